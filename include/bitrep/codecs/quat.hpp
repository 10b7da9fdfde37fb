// quat<B>: smallest three (docs/wire-format.md section 3).
#pragma once

#include <bitrep/codec.hpp>
#include <bitrep/detail/quantize.hpp>
#include <bitrep/quat.hpp>
#include <bitrep/status.hpp>

#include <array>
#include <cmath>
#include <cstdint>

namespace bitrep {

template <int Bits>
struct codec<quat<Bits>> {
    using type = quat<Bits>;

    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, type& value)
    {
        std::array<float, 4> c{};
        if constexpr (!Stream::is_reading)
            c = {value.x, value.y, value.z, value.w};
        std::uint32_t largest = 0;
        const std::size_t start = stream.position();
        if constexpr (!Stream::is_reading) {
            for (std::uint32_t i = 1; i < 4; ++i)
                if (std::fabs(c[i]) > std::fabs(c[largest]))
                    largest = i;
            if constexpr (Stream::is_writing) {
                const float norm = c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3];
                if (!(std::fabs(norm - 1.0f) <= 0.01f)) [[unlikely]] // also refuses NaN and infinity
                    return stream.fail(error::value_out_of_range, start,
                                       "quaternion is not unit length (|q|^2 off by more than 1%)");
            }
            if (c[largest] < 0.0f)
                for (float& component : c)
                    component = -component; // q and -q are the same rotation
        }
        if (!stream.serialize_bits(largest, 2))
            return false;
        // The three smaller components in index order: the k-th is c[k] below
        // the largest and c[k + 1] from it on. A fixed count of three lets
        // compilers unroll this into straight-line code.
        float sum = 0.0f;
        for (std::uint32_t k = 0; k < 3; ++k) {
            float& component = c[k + (k >= largest ? 1u : 0u)];
            if (!stream.serialize_quantized(component, type::component_quantizer))
                return stream.fail_from(start);
            // The sum is rounded step by step (no fusion) so every receiver
            // rebuilds the same largest component.
            if constexpr (Stream::is_reading)
                sum = detail::keep_rounded(sum + detail::keep_rounded(component * component));
        }
        if constexpr (Stream::is_reading) {
            // The three smallest components of a unit quaternion have squares
            // summing to at most 3/4 (the largest is at least 1/2), so no
            // writer sends more than 1: such bytes are forged, and accepting
            // them would hand the game a rotation that is not unit length.
            if (sum > 1.0f) [[unlikely]]
                return stream.fail(error::out_of_range, start, "smallest-three components exceed unit length");
            c[largest] = std::sqrt(1.0f - sum);
            value = type{c[0], c[1], c[2], c[3]};
        }
        return true;
    }
    static constexpr std::size_t max_bits() { return type::bits; }
};

} // namespace bitrep
