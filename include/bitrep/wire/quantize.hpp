// The standard's compressed-float arithmetic (serialize 1.0 section 6), shared
// by `quantized` and by the smallest-three components of `quat`.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <type_traits>

#include <bitrep/detail/portability.hpp>
#include <bitrep/wire/bits.hpp>

namespace bitrep::detail {

/// Largest float32 below 2^32: the cap on the number of quanta.
inline constexpr float max_quanta = 4294967040.0f;

/// Whether every quantum q of a quantizer comes back as q when dequantized
/// and quantized again, so that the quantum the standard's writer sends is
/// already the one its decoded value is sent as. A sufficient condition from
/// an error bound: with u = 2^-24, the reader's three roundings and the
/// writer's four move q by at most about 5uM + uA(M/D) (A the larger
/// magnitude of min and max, D = max - min), and rounding p + 1/2 adds u(M+1);
/// while the sum stays below 1/2, floor(p + 1/2) lands on q. The constants
/// carry a margin (tests/stream_test.cpp checks every quantum of many
/// quantizers). It holds for every range whose resolution float32 can
/// represent across it and below about a million quanta, e.g. [-100, 100] at
/// 0.01, and fails only for ranges finer than float32 can tell apart.
constexpr bool quanta_round_trip(float min, float delta, std::uint32_t max_integer) noexcept
{
    const double m = static_cast<double>(max_integer);
    const double low = static_cast<double>(min);
    const double high = low + static_cast<double>(delta);
    const double magnitude = std::max(low < 0 ? -low : low, high < 0 ? -high : high);
    return 6.1 * m + 1.1 * magnitude * (m / static_cast<double>(delta)) + 1.0 < 8388608.0; // 2^23
}

} // namespace bitrep::detail

namespace bitrep {

/// A float range mapped onto the integers [0, max_integer]: the
/// quantized annotation's, and the smallest-three components'.
struct quantizer {
    float min;
    float delta;
    std::uint32_t max_integer;
    int bits;
    /// quanta_round_trip: stable_quantize() is quantize(). (No default
    /// member initializer: a quantizer is trivially default-constructible,
    /// so that a kind's params holding one can sit in a union.)
    bool exact;

    /// The standard's derivation from (min, max, resolution), all in float32.
    static constexpr quantizer from_resolution(float min, float max, float resolution) noexcept
    {
        const float delta = max - min;
        float values = delta / resolution;
        values = values < 1.0f ? 1.0f : (values > detail::max_quanta ? detail::max_quanta : values);
        auto max_integer = static_cast<std::uint64_t>(values); // truncates; values >= 1
        if (static_cast<float>(max_integer) < values)
            ++max_integer; // ceil
        const auto top = static_cast<std::uint32_t>(max_integer);
        return {min, delta, top, bits_required_for_span(max_integer), detail::quanta_round_trip(min, delta, top)};
    }

    /// A fixed bit budget for a range symmetric about 0 (smallest-three):
    /// max_integer = 2^bits - 2, an even count, so that 0 is exactly a
    /// quantum (with 2^bits - 1 the identity rotation would come back as
    /// 0.0014 at 9 bits). The one code above it is refused by readers.
    static constexpr quantizer from_bits(float min, float max, int bits) noexcept
    {
        const auto max_integer = static_cast<std::uint32_t>((std::uint64_t{1} << bits) - 2);
        return {min, max - min, max_integer, bits, detail::quanta_round_trip(min, max - min, max_integer)};
    }

    /// Writer steps 1-4 of the standard (serialize 1.0 section 6): the
    /// compressed_float primitive. Out-of-range inputs saturate. Writers
    /// refuse NaN before calling this; here it maps to quantum 0 so that no
    /// input is undefined behaviour.
    BITREP_ALWAYS_INLINE std::uint32_t quantize(float value) const noexcept
    {
        float n = (value - min) / delta;
        n = n > 0.0f ? (n < 1.0f ? n : 1.0f) : 0.0f;
        const float p = detail::keep_rounded(n * static_cast<float>(max_integer)); // rounding 1
        const float s = detail::keep_rounded(p + 0.5f);                            // rounding 2
        // s >= 0.5, so truncation is floor(s) without a libm call.
        const auto q = static_cast<std::uint32_t>(s);
        // With an odd max_integer above 2^23, p + 0.5 can round up to
        // max_integer + 1, which every conformant reader refuses. Writing
        // max_integer instead changes only bytes no reader could accept.
        return q > max_integer ? max_integer : q;
    }

    /// The quantum bitrep's annotations send (quantized, quat): quantize(),
    /// except that where float32 cannot tell neighbouring quanta apart
    /// (`exact` is false) it is moved to the quantum its own decoded value is
    /// sent as, so that decoding and encoding again gives the same bytes.
    BITREP_ALWAYS_INLINE std::uint32_t stable_quantize(float value) const noexcept
    {
        const std::uint32_t q = quantize(value);
        return exact ? q : settle(q);
    }

    /// Reader step 2. The caller has already refused q > max_integer.
    float dequantize(std::uint32_t q) const noexcept
    {
        const float n = detail::keep_rounded(static_cast<float>(q) / static_cast<float>(max_integer));
        const float p = detail::keep_rounded(n * delta);
        return p + min;
    }

    /// Whether q decodes to a value that is sent as q again.
    bool is_fixed_point(std::uint32_t q) const noexcept { return quantize(dequantize(q)) == q; }

    /// The fixed point q settles on under q -> quantize(dequantize(q)). That
    /// map is monotone (each rounding step is), so from any q its iterates
    /// move one way only, within [0, max_integer], and stop.
    BITREP_NOINLINE std::uint32_t settle(std::uint32_t q) const noexcept
    {
        for (std::uint32_t next = quantize(dequantize(q)); next != q; next = quantize(dequantize(q)))
            q = next;
        return q;
    }

    friend constexpr bool operator==(const quantizer&, const quantizer&) = default;
};

} // namespace bitrep
