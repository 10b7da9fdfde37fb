// ranged<Int, Min, Max>: an integer that costs bits_required(Min, Max) bits.
#pragma once

#include <compare>
#include <concepts>
#include <cstdint>
#include <iosfwd>
#include <utility>

#include <bitrep/wire/bits.hpp>

namespace bitrep {

namespace detail {
template <class Int>
constexpr Int default_in_range(Int min, Int max) noexcept
{
    // 0 when the range holds it (like a plain int), else the minimum.
    return (min <= Int{} && Int{} <= max) ? Int{} : min;
}
} // namespace detail

/// An integer in [Min, Max], signed or unsigned, up to 64 bits. Behaves like
/// its Int (converts to it, assigns from it, compares with it). Writing a
/// value outside the range fails with value_out_of_range rather than sending
/// bytes that decode to another number.
template <std::integral Int, Int Min, Int Max>
    requires(!std::same_as<Int, bool>)
class ranged {
    static_assert(Min <= Max, "bitrep::ranged<Int, Min, Max>: Min must not be above Max");

public:
    using value_type = Int;
    static constexpr Int min = Min;
    static constexpr Int max = Max;
    static constexpr std::uint64_t span = static_cast<std::uint64_t>(Max) - static_cast<std::uint64_t>(Min);
    static constexpr int bits = bits_required_for_span(span);

    constexpr ranged() noexcept = default;
    constexpr ranged(Int value) noexcept : value_(value) {}
    constexpr ranged& operator=(Int value) noexcept
    {
        value_ = value;
        return *this;
    }

    constexpr operator Int() const noexcept { return value_; }
    constexpr Int value() const noexcept { return value_; }
    /// The value itself, e.g. `&p.hp.get()` for a UI widget's int*.
    constexpr Int& get() noexcept { return value_; }
    constexpr const Int& get() const noexcept { return value_; }
    constexpr bool in_range() const noexcept { return Min <= value_ && value_ <= Max; }

    constexpr ranged& operator+=(Int v) noexcept { value_ = static_cast<Int>(value_ + v); return *this; }
    constexpr ranged& operator-=(Int v) noexcept { value_ = static_cast<Int>(value_ - v); return *this; }
    constexpr ranged& operator*=(Int v) noexcept { value_ = static_cast<Int>(value_ * v); return *this; }
    constexpr ranged& operator/=(Int v) noexcept { value_ = static_cast<Int>(value_ / v); return *this; }
    constexpr ranged& operator++() noexcept { return *this += Int{1}; }
    constexpr ranged& operator--() noexcept { return *this -= Int{1}; }
    constexpr ranged operator++(int) noexcept { ranged old = *this; ++*this; return old; }
    constexpr ranged operator--(int) noexcept { ranged old = *this; --*this; return old; }

    friend constexpr bool operator==(const ranged&, const ranged&) noexcept = default;
    friend constexpr auto operator<=>(const ranged&, const ranged&) noexcept = default;
    // Templates, so that comparing with any integer is an exact match and never
    // ties with the built-in operator reached through the conversion to Int;
    // std::cmp_* compares mixed signedness by value, not by bit pattern.
    template <std::integral U>
        requires(!std::same_as<U, bool>)
    friend constexpr bool operator==(const ranged& a, U b) noexcept
    {
        return std::cmp_equal(a.value_, b);
    }
    template <std::integral U>
        requires(!std::same_as<U, bool>)
    friend constexpr std::strong_ordering operator<=>(const ranged& a, U b) noexcept
    {
        if (std::cmp_less(a.value_, b))
            return std::strong_ordering::less;
        return std::cmp_equal(a.value_, b) ? std::strong_ordering::equal : std::strong_ordering::greater;
    }

    /// Prints the number (an 8-bit Int too, not as a character).
    template <class CharT, class Traits>
    friend std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os, const ranged& r)
    {
        return os << +r.value_;
    }

private:
    Int value_ = detail::default_in_range(Min, Max);
};

} // namespace bitrep
