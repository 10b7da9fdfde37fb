// The standard's compressed-float arithmetic (serialize 1.0 section 6), shared
// by `quantized` and by the smallest-three components of `quat`.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

#include <bitrep/bits.hpp>
#include <bitrep/detail/inline.hpp>

namespace bitrep::detail {

/// Forces x to be materialised as a float32 value. bitrep is header-only, so
/// it is compiled with the user's flags; under -ffp-contract=fast (GCC's
/// default in GNU mode) with FMA hardware, `p = n * m; s = p + 0.5f` would be
/// fused into one rounding and change the wire. An empty asm that claims to
/// modify x is a fusion barrier that costs no instruction.
template <class Real>
    requires std::is_floating_point_v<Real>
BITREP_ALWAYS_INLINE Real keep_rounded(Real x) noexcept
{
#if defined(__GNUC__) && defined(__x86_64__)
    asm("" : "+x"(x));
#elif defined(__GNUC__) && defined(__aarch64__)
    asm("" : "+w"(x));
#else
    volatile Real stored = x;
    x = stored;
#endif
    return x;
}

/// Largest float32 below 2^32: the cap on the number of quanta.
inline constexpr float max_quanta = 4294967040.0f;

/// A float range mapped onto the integers [0, max_integer].
struct quantizer {
    float min;
    float delta;
    std::uint32_t max_integer;
    int bits;

    /// The standard's derivation from (min, max, resolution), all in float32.
    static constexpr quantizer from_resolution(float min, float max, float resolution) noexcept
    {
        const float delta = max - min;
        float values = delta / resolution;
        values = values < 1.0f ? 1.0f : (values > max_quanta ? max_quanta : values);
        auto max_integer = static_cast<std::uint64_t>(values); // truncates; values >= 1
        if (static_cast<float>(max_integer) < values)
            ++max_integer; // ceil
        return {min, delta, static_cast<std::uint32_t>(max_integer),
                bits_required_for_span(max_integer)};
    }

    /// A fixed bit budget for a range symmetric about 0 (smallest-three):
    /// max_integer = 2^bits - 2, an even count, so that 0 is exactly a
    /// quantum (with 2^bits - 1 the identity rotation would come back as
    /// 0.0014 at 9 bits). The one code above it is refused by readers.
    static constexpr quantizer from_bits(float min, float max, int bits) noexcept
    {
        const auto max_integer = static_cast<std::uint32_t>((std::uint64_t{1} << bits) - 2);
        return {min, max - min, max_integer, bits};
    }

    /// Writer steps 1-4. Out-of-range inputs saturate. Writers refuse NaN
    /// before calling this; here it maps to quantum 0 so that no input is
    /// undefined behaviour.
    std::uint32_t quantize(float value) const noexcept
    {
        float n = (value - min) / delta;
        n = n > 0.0f ? (n < 1.0f ? n : 1.0f) : 0.0f;
        const float p = keep_rounded(n * static_cast<float>(max_integer)); // rounding 1
        const float s = keep_rounded(p + 0.5f);                            // rounding 2
        // s >= 0.5, so truncation is floor(s) without a libm call.
        const auto q = static_cast<std::uint32_t>(s);
        // With an odd max_integer above 2^23, p + 0.5 can round up to
        // max_integer + 1, which every conformant reader refuses. Writing
        // max_integer instead changes only bytes no reader could accept.
        return q > max_integer ? max_integer : q;
    }

    /// Reader step 2. The caller has already refused q > max_integer.
    float dequantize(std::uint32_t q) const noexcept
    {
        const float n = keep_rounded(static_cast<float>(q) / static_cast<float>(max_integer));
        const float p = keep_rounded(n * delta);
        return p + min;
    }

    friend constexpr bool operator==(const quantizer&, const quantizer&) = default;
};

} // namespace bitrep::detail
