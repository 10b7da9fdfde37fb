// ranged_duration / quantized_duration: a std::chrono::duration whose count
// is sent as a ranged integer or a quantized float, e.g. a cooldown in
// milliseconds in [0, 60000] costs 16 bits instead of a 64-bit count.
#pragma once

#include <chrono>
#include <compare>
#include <concepts>
#include <type_traits>

#include <bitrep/annotations/quantized.hpp>
#include <bitrep/annotations/ranged.hpp>

namespace bitrep {

/// A Duration held and used as one (it converts to and from any duration
/// std::chrono converts implicitly, compares with any duration, adds and
/// subtracts durations), whose count is sent as Count: a ranged<rep, ...>
/// for an integer count, a quantized<...> for a floating one. Use it
/// through ranged_duration and quantized_duration.
template <class Duration, class Count>
class annotated_duration {
public:
    using duration = Duration;
    using rep = typename Duration::rep;
    using period = typename Duration::period;
    using count_type = Count;

    /// The count Count holds by default (0 when its range holds it).
    constexpr annotated_duration() noexcept : value_(static_cast<rep>(Count{}.value())) {}
    template <class Rep2, class Period2>
        requires std::is_convertible_v<std::chrono::duration<Rep2, Period2>, Duration>
    constexpr annotated_duration(std::chrono::duration<Rep2, Period2> value) noexcept : value_(value)
    {
    }

    constexpr operator Duration() const noexcept { return value_; }
    constexpr Duration value() const noexcept { return value_; }
    constexpr Duration& get() noexcept { return value_; }
    constexpr const Duration& get() const noexcept { return value_; }
    constexpr rep count() const noexcept { return value_.count(); }

    template <class Rep2, class Period2>
        requires std::is_convertible_v<std::chrono::duration<Rep2, Period2>, Duration>
    constexpr annotated_duration& operator+=(std::chrono::duration<Rep2, Period2> d) noexcept
    {
        value_ += Duration(d);
        return *this;
    }
    template <class Rep2, class Period2>
        requires std::is_convertible_v<std::chrono::duration<Rep2, Period2>, Duration>
    constexpr annotated_duration& operator-=(std::chrono::duration<Rep2, Period2> d) noexcept
    {
        value_ -= Duration(d);
        return *this;
    }

    friend constexpr bool operator==(const annotated_duration&, const annotated_duration&) noexcept = default;
    friend constexpr auto operator<=>(const annotated_duration& a, const annotated_duration& b) noexcept
    {
        return a.value_ <=> b.value_;
    }
    template <class Rep2, class Period2>
    friend constexpr bool operator==(const annotated_duration& a, std::chrono::duration<Rep2, Period2> b) noexcept
    {
        return a.value_ == b;
    }
    template <class Rep2, class Period2>
    friend constexpr auto operator<=>(const annotated_duration& a, std::chrono::duration<Rep2, Period2> b) noexcept
    {
        return a.value_ <=> b;
    }

private:
    Duration value_;
};

/// A duration whose integer count is in [Min, Max], sent as
/// ranged<rep, Min, Max>: `ranged_duration<std::chrono::milliseconds, 0,
/// 60'000>` costs 16 bits. A count outside the range is refused on write
/// (value_out_of_range naming the field), like a ranged integer's.
template <class Duration, typename Duration::rep Min, typename Duration::rep Max>
    requires std::integral<typename Duration::rep>
using ranged_duration = annotated_duration<Duration, ranged<typename Duration::rep, Min, Max>>;

/// A duration whose floating count is in [Min, Max] at Resolution, sent as
/// quantized<Min, Max, Resolution> (in the duration's own units): a
/// `quantized_duration<std::chrono::duration<float>, 0, 10, 0.01>` (seconds,
/// to the hundredth) costs 10 bits. A count outside the range, or not
/// finite, is refused on write like a quantized float's;
/// `bitrep::clamped<quantized_duration<...>>` clamps it instead.
template <class Duration, float_constant Min, float_constant Max, float_constant Resolution>
    requires std::floating_point<typename Duration::rep>
using quantized_duration = annotated_duration<Duration, quantized<Min, Max, Resolution>>;

namespace detail {
template <class Duration, float_constant Min, float_constant Max, float_constant Resolution, range_policy Policy>
struct clamped_of<annotated_duration<Duration, quantized<Min, Max, Resolution, Policy>>> {
    using type = annotated_duration<Duration, quantized<Min, Max, Resolution, range_policy::clamp>>;
};
} // namespace detail

} // namespace bitrep
