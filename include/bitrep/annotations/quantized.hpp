// quantized<Min, Max, Resolution>: a float sent as the standard's compressed
// float, e.g. quantized<-100.f, 100.f, 0.01f> costs 15 bits.
#pragma once

#include <array>
#include <bit>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <type_traits>

#include <bitrep/wire/quantize.hpp>

namespace bitrep {

namespace detail {
/// 10^0 to 10^63 as doubles, each the one before times ten: the same
/// numbers in every constant evaluation (exact up to 10^22).
inline constexpr auto powers_of_ten = [] {
    std::array<double, 64> powers{};
    double power = 1.0;
    for (double& p : powers) {
        p = power;
        power *= 10.0;
    }
    return powers;
}();

/// float_constant's exponent for an infinity (significand 1 or -1) or NaN
/// (significand 0); a significand of 0 with exponent 1 is -0.
inline constexpr std::int32_t nonfinite_exponent = 99;

/// The float significand * 10^exponent stands for.
constexpr float decimal_value(std::int64_t significand, std::int32_t exponent) noexcept
{
    constexpr float infinity = std::numeric_limits<float>::infinity();
    if (exponent == nonfinite_exponent)
        return significand == 0 ? std::numeric_limits<float>::quiet_NaN() : (significand > 0 ? infinity : -infinity);
    if (significand == 0)
        return exponent == 1 ? -0.0f : 0.0f;
    const double digits = static_cast<double>(significand);
    const double value = exponent >= 0 ? digits * powers_of_ten[static_cast<std::size_t>(exponent)]
                                       : digits / powers_of_ten[static_cast<std::size_t>(-exponent)];
    // Beyond float's range the conversion is undefined (and no constant).
    const double magnitude = value < 0 ? -value : value;
    if (magnitude > static_cast<double>(std::numeric_limits<float>::max()))
        return value < 0 ? -infinity : infinity;
    return static_cast<float>(value);
}

struct decimal {
    std::int64_t significand;
    std::int32_t exponent;
};

/// The decimal of a finite, nonzero f with the fewest significant digits
/// that decimal_value gives back as f exactly (at most 9 are ever needed);
/// an integer below 10^10 with exponent 0, and no trailing zeros after the
/// decimal point: -100 is {-100, 0}, 0.01 is {1, -2}, 1e30 is {1, 30}.
constexpr decimal shortest_decimal(float f) noexcept
{
    const double magnitude = f < 0.0f ? -static_cast<double>(f) : static_cast<double>(f);
    std::int32_t top = 0; // about the power of ten of the leading digit
    while (top < 38 && magnitude >= powers_of_ten[static_cast<std::size_t>(top) + 1])
        ++top;
    while (top <= 0 && top > -45 && magnitude * powers_of_ten[static_cast<std::size_t>(-top)] < 1.0)
        --top;
    for (std::int32_t digits = 1;; ++digits) {
        std::int32_t exponent = top - digits + 1;
        const double scaled = exponent >= 0 ? magnitude / powers_of_ten[static_cast<std::size_t>(exponent)]
                                            : magnitude * powers_of_ten[static_cast<std::size_t>(-exponent)];
        // Rounded half up (scaled is positive; std::lround is no constexpr).
        auto significand = static_cast<std::int64_t>(scaled);
        if (scaled - static_cast<double>(significand) >= 0.5)
            ++significand;
        for (; exponent < 0 && significand % 10 == 0; ++exponent)
            significand /= 10;
        if (exponent > 0 && exponent < 10 &&
            static_cast<double>(significand) * powers_of_ten[static_cast<std::size_t>(exponent)] < 1e10) {
            significand *= static_cast<std::int64_t>(powers_of_ten[static_cast<std::size_t>(exponent)]);
            exponent = 0;
        }
        if (f < 0.0f)
            significand = -significand;
        if (std::bit_cast<std::uint32_t>(decimal_value(significand, exponent)) == std::bit_cast<std::uint32_t>(f))
            return {significand, exponent};
    }
}

constexpr decimal decimal_of(float f) noexcept
{
    if (f != f)
        return {0, nonfinite_exponent};
    if (f == std::numeric_limits<float>::infinity() || f == -std::numeric_limits<float>::infinity())
        return {f > 0.0f ? 1 : -1, nonfinite_exponent};
    if (f == 0.0f)
        return {0, std::bit_cast<std::uint32_t>(f) >> 31 != 0 ? 1 : 0};
    return shortest_decimal(f);
}
} // namespace detail

/// A float usable as a template argument. clang 14 does not accept float
/// non-type template parameters, but it does accept a class of integers,
/// so `quantized<-100.f, 100.f, 0.01f>` works on both compilers (and
/// `quantized<0, 360, 0.1>` too: any arithmetic literal). It holds the
/// float as a decimal with the fewest digits that give it back exactly, so
/// that compilers print the numbers readably: quantized<-100.f, 100.f,
/// 0.01f> is quantized<{-100, 0}, {100, 0}, {1, -2}>.
struct float_constant {
    std::int64_t significand;
    std::int32_t exponent; // of ten; 99 for an infinity or NaN, 1 with significand 0 for -0

    template <class Number>
        requires std::is_arithmetic_v<Number>
    constexpr float_constant(Number value) noexcept : float_constant(of(static_cast<float>(value)))
    {
    }
    constexpr float value() const noexcept { return detail::decimal_value(significand, exponent); }

private:
    constexpr float_constant(std::int64_t s, std::int32_t e) noexcept : significand(s), exponent(e) {}
    static constexpr float_constant of(float f) noexcept
    {
        const detail::decimal d = detail::decimal_of(f);
        return float_constant(d.significand, d.exponent);
    }
};

namespace detail {
/// The distance from a finite positive float to the next one up: the
/// coarsest spacing of float32 over a range whose largest magnitude it is.
constexpr float float_spacing(float magnitude) noexcept
{
    return std::bit_cast<float>(std::bit_cast<std::uint32_t>(magnitude) + 1u) - magnitude;
}
} // namespace detail

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
public:
    using value_type = float;
    static constexpr float min = Min.value();
    static constexpr float max = Max.value();
    static constexpr float resolution = Resolution.value();

private:
    // The annotation's mistakes. Each check runs only on numbers the checks
    // before it passed (a failed one leaves 0 to the next), so that one
    // mistake is one error; the quantizer is made from numbers that passed.
    static_assert(min < max, "bitrep::quantized<Min, Max, Resolution>: Min must be below Max"); // also refuses NaN
    static constexpr bool finite = min < max && min >= -std::numeric_limits<float>::max() &&
                                   max <= std::numeric_limits<float>::max();
    static_assert(finite || !(min < max), "bitrep::quantized<Min, Max, Resolution>: Min and Max must be finite");
    static_assert(resolution > 0.0f || !finite, "bitrep::quantized<Min, Max, Resolution>: Resolution must be positive");
    // serialize 1.0 caps a quantizer at 2^32 - 256 steps and clamps above
    // it: quantized<-1e30f, 1e30f, 1e-3f> would cost 32 bits for a real step
    // of 4.7e20. And where float32's own spacing is coarser than Resolution,
    // the values between cannot exist. Both are mistakes in the annotation.
    static constexpr float steps_asked = finite && resolution > 0.0f ? (max - min) / resolution : 0.0f;
    static_assert(steps_asked <= detail::max_quanta,
                  "bitrep::quantized<Min, Max, Resolution>: (Max - Min) / Resolution is more steps than the 2^32 - 256 "
                  "the standard's quantizer takes: make Resolution coarser or the range narrower");
    static constexpr bool steps_fit = finite && resolution > 0.0f && steps_asked <= detail::max_quanta;
    static constexpr float float32_spacing = steps_fit ? detail::float_spacing(-min > max ? -min : max) : 0.0f;
    static constexpr float resolution_asked = steps_fit ? resolution : 0.0f;
    static_assert(float32_spacing <= resolution_asked,
                  "bitrep::quantized<Min, Max, Resolution>: float32 cannot hold Resolution over the range (its values "
                  "near the larger bound are further apart than Resolution). Make Resolution coarser, or the range "
                  "nearer zero (store an offset from a local origin)");
    static constexpr bool valid = steps_fit && float32_spacing <= resolution;

public:
    static constexpr bitrep::quantizer quantizer =
        bitrep::quantizer::from_resolution(valid ? min : 0.0f, valid ? max : 1.0f, valid ? resolution : 1.0f);
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

namespace detail {
/// Never true: clamped<T>'s refusal, with T in the condition.
template <class T>
inline constexpr bool clampable = false;
template <class Quantized>
struct clamped_of {
    static_assert(clampable<Quantized>,
                  "bitrep::clamped<T>: T must be a quantized<Min, Max, Resolution> or a quantized_duration");
    using type = Quantized; // nothing more to report
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
