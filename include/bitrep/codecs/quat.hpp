// quat<B>: smallest three (docs/wire-format.md section 3).
#pragma once

#include <bitrep/codec.hpp>
#include <bitrep/detail/inline.hpp>
#include <bitrep/detail/quantize.hpp>
#include <bitrep/quat.hpp>
#include <bitrep/status.hpp>

#include <cmath>
#include <cstdint>

namespace bitrep {

namespace detail {
/// What a writer sends of a quaternion: the index of the largest component
/// and the other three in index order. Everything is selected in registers
/// (no component array indexed by `largest`), so the quantizing that follows
/// does not wait on a store and a dependent load.
struct smallest_three {
    std::uint32_t largest = 0;
    float small[3] = {};

    /// Sign-folded so that the largest component is positive (q and -q are
    /// the same rotation). Ties go to the lowest index.
    BITREP_ALWAYS_INLINE static smallest_three of(float x, float y, float z, float w) noexcept
    {
        smallest_three s;
        float top = std::fabs(x);
        float lead = x;
        if (std::fabs(y) > top) {
            s.largest = 1;
            top = std::fabs(y);
            lead = y;
        }
        if (std::fabs(z) > top) {
            s.largest = 2;
            top = std::fabs(z);
            lead = z;
        }
        if (std::fabs(w) > top) {
            s.largest = 3;
            lead = w;
        }
        s.small[0] = s.largest == 0 ? y : x;
        s.small[1] = s.largest <= 1 ? z : y;
        s.small[2] = s.largest <= 2 ? w : z;
        if (lead < 0.0f)
            for (float& component : s.small)
                component = -component;
        return s;
    }
};
template <class Quat>
inline constexpr float Quat::*quat_components[4] = {&Quat::x, &Quat::y, &Quat::z, &Quat::w};

/// Smallest three for any quaternion with float members x, y, z, w, with the
/// components' quantizer given: the codec passes its constant one, and a save
/// file written with another bit count passes that file's.
template <class Stream, class Quat>
BITREP_ALWAYS_INLINE bool serialize_smallest_three(Stream& stream, Quat& value, const quantizer& component_quantizer)
{
    const std::size_t start = stream.position();
    detail::smallest_three s; // reading: only its `largest` is used, as the
                              // components go straight into `value`
    if constexpr (!Stream::is_reading) {
        if constexpr (Stream::is_writing) {
            const float norm = value.x * value.x + value.y * value.y + value.z * value.z + value.w * value.w;
            if (!(std::fabs(norm - 1.0f) <= 0.01f)) [[unlikely]] // also refuses NaN and infinity
                return stream.fail(error::value_out_of_range, start,
                                   "quaternion is not unit length (|q|^2 off by more than 1%)");
        }
        s = detail::smallest_three::of(value.x, value.y, value.z, value.w);
    }
    if (!stream.serialize_bits(s.largest, 2))
        return false;
    // Reading stores each component straight into the target (the k-th
    // smaller one is component k below the largest and k + 1 from it on),
    // one float at a time: assembling them in a local array and copying
    // that out as one 16-byte load would defeat store forwarding.
    float sum = 0.0f;
    for (std::uint32_t k = 0; k < 3; ++k) {
        float& component =
            Stream::is_reading ? value.*quat_components<Quat>[k + (k >= s.largest ? 1u : 0u)] : s.small[k];
        if (!stream.serialize_quantized(component, component_quantizer))
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
        value.*quat_components<Quat>[s.largest] = std::sqrt(1.0f - sum);
    }
    return true;
}

} // namespace detail

template <int Bits>
struct codec<quat<Bits>> {
    using type = quat<Bits>;

    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, type& value)
    {
        return detail::serialize_smallest_three(stream, value, type::component_quantizer);
    }
    static constexpr std::size_t max_bits() { return type::bits; }
    static constexpr std::size_t min_bits() { return type::bits; }
    template <class Schema>
    static void describe(Schema& schema) { schema.quat(Bits); }
};

} // namespace bitrep
