// quantized<Min, Max, Resolution>: a float sent as the standard's compressed
// float, e.g. quantized<-100.f, 100.f, 0.01f> costs 15 bits.
#pragma once

#include <bit>
#include <compare>
#include <cstdint>
#include <iosfwd>
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

/// A float in [Min, Max] at Resolution. Values outside the range clamp on
/// write (as the standard specifies); NaN is refused with value_out_of_range.
/// A round trip yields the nearest quantum, bit-exactly on every compiler.
template <float_constant Min, float_constant Max, float_constant Resolution>
class quantized {
    static_assert(Min.value() < Max.value(), "quantized: Min must be below Max");
    static_assert(Resolution.value() > 0.0f, "quantized: Resolution must be positive");

public:
    using value_type = float;
    static constexpr float min = Min.value();
    static constexpr float max = Max.value();
    static constexpr float resolution = Resolution.value();
    static constexpr detail::quantizer quantizer = detail::quantizer::from_resolution(min, max, resolution);
    static constexpr int bits = quantizer.bits;

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

    /// The quantum this value is sent as, and the float a receiver rebuilds.
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

} // namespace bitrep
