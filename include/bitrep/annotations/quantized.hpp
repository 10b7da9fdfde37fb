// quantized<Min, Max, Resolution>: a float sent as the standard's compressed
// float, e.g. quantized<-100.f, 100.f, 0.01f> costs 15 bits.
#pragma once

#include <bit>
#include <compare>
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <type_traits>

#include <bitrep/wire/quantize.hpp>

namespace bitrep {

/// A float usable as a template argument. clang 14 does not accept float
/// non-type template parameters, but it does accept a class holding the
/// float's bit pattern, so `quantized<-100.f, 100.f, 0.01f>` works on both
/// compilers (and `quantized<0, 360, 0.1>` too: any arithmetic literal).
struct float_constant {
    std::uint32_t pattern;

    template <class Number>
        requires std::is_arithmetic_v<Number>
    constexpr float_constant(Number value) noexcept : pattern(std::bit_cast<std::uint32_t>(static_cast<float>(value)))
    {
    }
    constexpr float value() const noexcept { return std::bit_cast<float>(pattern); }
};

namespace detail {
// The checks of an annotation's numbers. On failure each calls a function
// that is not constexpr, named for the mistake: clang 14 then says "in call
// to 'quantized_steps_within_cap(2.000000e+33, 4.294967e+09)'", the numbers
// its static_assert would not show (GCC shows them in "the comparison reduces
// to"; a static_assert message cannot be formatted before C++26).
inline bool quantized_has_more_steps_than_the_cap_of_2_to_the_32_minus_256(float, float) noexcept { return false; }
inline bool quantized_resolution_is_finer_than_float32_can_hold_over_the_range(float, float) noexcept { return false; }
constexpr bool quantized_steps_within_cap(float steps, float cap) noexcept
{
    return steps <= cap || quantized_has_more_steps_than_the_cap_of_2_to_the_32_minus_256(steps, cap);
}
constexpr bool quantized_float32_holds_resolution(float spacing, float resolution) noexcept
{
    return spacing <= resolution ||
           quantized_resolution_is_finer_than_float32_can_hold_over_the_range(spacing, resolution);
}

/// The distance from a finite positive float to the next one up: the
/// coarsest spacing of float32 over a range whose largest magnitude it is.
constexpr float float_spacing(float magnitude) noexcept
{
    return std::bit_cast<float>(std::bit_cast<std::uint32_t>(magnitude) + 1u) - magnitude;
}
} // namespace detail

#if defined(__clang__)
#define BITREP_QUANTIZED_REQUIRE(check, number, limit, message) static_assert(detail::check(number, limit), message)
#else
#define BITREP_QUANTIZED_REQUIRE(check, number, limit, message) static_assert((number) <= (limit), message)
#endif

/// What writing a quantized value outside [Min, Max] does: `refuse` (the
/// default) fails with value_out_of_range naming the field, as a ranged
/// integer's writer does, so that no value is saved or sent as another;
/// `clamp` sends the nearest bound, as serialize 1.0's compressed_float does
/// (spelled clamped<quantized<...>>). Both refuse NaN; the wire is the same.
enum class range_policy : std::uint8_t { refuse, clamp };

/// A float in [Min, Max] at Resolution. Writing a value outside the range, or
/// one that is not finite, fails with value_out_of_range (see range_policy
/// for clamping instead). A round trip yields the nearest quantum,
/// bit-exactly on every compiler.
template <float_constant Min, float_constant Max, float_constant Resolution,
          range_policy Policy = range_policy::refuse>
class quantized {
    static_assert(Min.value() < Max.value(), "quantized: Min must be below Max"); // also refuses NaN
    static_assert(Min.value() >= -std::numeric_limits<float>::max() &&
                      Max.value() <= std::numeric_limits<float>::max(),
                  "quantized: Min and Max must be finite");
    static_assert(Resolution.value() > 0.0f, "quantized: Resolution must be positive");
    // serialize 1.0 caps a quantizer at 2^32 - 256 steps and clamps above
    // it: quantized<-1e30f, 1e30f, 1e-3f> would cost 32 bits for a real step
    // of 4.7e20. And where float32's own spacing is coarser than Resolution,
    // the values between cannot exist. Both are mistakes in the annotation.
    static constexpr float steps_asked = (Max.value() - Min.value()) / Resolution.value();
    static constexpr float float32_spacing =
        detail::float_spacing(-Min.value() > Max.value() ? -Min.value() : Max.value());
    BITREP_QUANTIZED_REQUIRE(quantized_steps_within_cap, steps_asked, detail::max_quanta,
                             "quantized: (Max - Min) / Resolution (the first number) is more steps than serialize "
                             "1.0's cap of 2^32 - 256 (the second): make Resolution coarser or the range narrower");
    BITREP_QUANTIZED_REQUIRE(quantized_float32_holds_resolution, float32_spacing, Resolution.value(),
                             "quantized: float32 cannot hold Resolution (the second number) over the range: its "
                             "values there are the first number apart. Make Resolution coarser, or the range "
                             "nearer zero (store an offset from a local origin)");

public:
    using value_type = float;
    static constexpr float min = Min.value();
    static constexpr float max = Max.value();
    static constexpr float resolution = Resolution.value();
    static constexpr bitrep::quantizer quantizer = bitrep::quantizer::from_resolution(min, max, resolution);
    static constexpr int bits = quantizer.bits;
    static constexpr range_policy policy = Policy;
    /// The largest value a receiver decodes: Max, or a float32 above it when
    /// (Max - Min) + Min rounds up, which must count as in range so that a
    /// decoded value can always be sent again.
    static constexpr float top = quantizer.delta + quantizer.min > max ? quantizer.delta + quantizer.min : max;

    constexpr quantized() noexcept = default;
    constexpr quantized(float value) noexcept : value_(value) {}
    constexpr quantized& operator=(float value) noexcept
    {
        value_ = value;
        return *this;
    }

    constexpr operator float() const noexcept { return value_; }
    constexpr float value() const noexcept { return value_; }
    /// The float itself, e.g. `&p.x.get()` for a UI slider's float*.
    constexpr float& get() noexcept { return value_; }
    constexpr const float& get() const noexcept { return value_; }

    /// Whether the value is in [Min, Max] (false for NaN and infinities).
    constexpr bool in_range() const noexcept { return min <= value_ && value_ <= top; }
    /// Whether writing it succeeds: in range, or under range_policy::clamp
    /// anything but NaN. Every writer asks this one question (the codec,
    /// deltas, the coded residuals).
    constexpr bool encodable() const noexcept { return Policy == range_policy::clamp ? value_ == value_ : in_range(); }

    /// The quantum this value is sent as, and the float a receiver rebuilds
    /// (outside the range: the nearest bound's, which only clamped<> sends).
    std::uint32_t quantum() const noexcept { return quantizer.stable_quantize(value_); }
    float quantized_value() const noexcept { return quantizer.dequantize(quantum()); }

    constexpr quantized& operator+=(float v) noexcept { value_ += v; return *this; }
    constexpr quantized& operator-=(float v) noexcept { value_ -= v; return *this; }
    constexpr quantized& operator*=(float v) noexcept { value_ *= v; return *this; }
    constexpr quantized& operator/=(float v) noexcept { value_ /= v; return *this; }

    friend constexpr bool operator==(const quantized&, const quantized&) noexcept = default;
    friend constexpr auto operator<=>(const quantized&, const quantized&) noexcept = default;
    // Templates, so that comparing with a double or an integer literal is an
    // exact match and never ties with the built-in operator.
    template <class Number>
        requires(std::is_arithmetic_v<Number> && !std::is_same_v<Number, bool>)
    friend constexpr bool operator==(const quantized& a, Number b) noexcept
    {
        return a.value_ == b;
    }
    template <class Number>
        requires(std::is_arithmetic_v<Number> && !std::is_same_v<Number, bool>)
    friend constexpr std::partial_ordering operator<=>(const quantized& a, Number b) noexcept
    {
        return a.value_ <=> b;
    }

    /// Prints the float as it is held (not its quantum).
    template <class CharT, class Traits>
    friend std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os, const quantized& q)
    {
        return os << q.value_;
    }

private:
    float value_ = (min <= 0.0f && 0.0f <= max) ? 0.0f : min;
};

#undef BITREP_QUANTIZED_REQUIRE

namespace detail {
template <class Quantized>
struct clamped_of {
    static_assert(sizeof(Quantized) == 0,
                  "bitrep::clamped<T>: T must be a quantized<Min, Max, Resolution> or a quantized_duration");
};
template <float_constant Min, float_constant Max, float_constant Resolution, range_policy Policy>
struct clamped_of<quantized<Min, Max, Resolution, Policy>> {
    using type = quantized<Min, Max, Resolution, range_policy::clamp>;
};
} // namespace detail

/// A quantized float whose writer clamps values outside [Min, Max] to the
/// nearest bound, as serialize 1.0 does, instead of refusing them:
/// `bitrep::clamped<bitrep::quantized<0.f, 1.f, 0.01f>>` for a value where
/// the edge is as good as anything past it (a volume, a blend weight). NaN
/// is still refused. The same bits and schema as the quantized it names, so
/// a save written with either loads into the other.
template <class Quantized>
using clamped = typename detail::clamped_of<Quantized>::type;

} // namespace bitrep
