// std::chrono::duration: a proxy (codecs/proxy.hpp) sent as its count, as
// the count's own type (a plain duration: an int64 count costs 64 bits) or
// as the ranged or quantized annotation of ranged_duration /
// quantized_duration. A save file's schema describes it as a struct named
// after its period with one field, `count`, so that a load converts between
// periods (docs/formats/save-format.md, section 3).
#pragma once

#include <bitrep/annotations/duration.hpp>
#include <bitrep/codec.hpp>
#include <bitrep/detail/proxy_traits.hpp>
#include <bitrep/detail/portability.hpp>

#include <array>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>
#include <utility>

namespace bitrep {

namespace detail {

/// A period as a save file names it: "std::chrono::duration<1/1000>" for
/// milliseconds (std::ratio keeps its terms reduced, so equal periods have
/// equal names).
inline constexpr std::string_view duration_name_prefix = "std::chrono::duration<";

template <class Period>
struct duration_name {
    static constexpr auto text = [] {
        std::array<char, 64> out{};
        std::size_t n = 0;
        for (char c : duration_name_prefix)
            out[n++] = c;
        auto put = [&](std::intmax_t v) {
            std::array<char, 24> digits{};
            std::size_t k = 0;
            do {
                digits[k++] = static_cast<char>('0' + v % 10);
                v /= 10;
            } while (v != 0);
            while (k > 0)
                out[n++] = digits[--k];
        };
        put(Period::num);
        out[n++] = '/';
        put(Period::den);
        out[n++] = '>';
        return std::pair{out, n};
    }();
    static constexpr std::string_view value{text.first.data(), text.second};
};

/// A period read from a save file's struct name: both terms positive and at
/// most INT64_MAX (what std::ratio can hold); false for any other name.
struct duration_period {
    std::uint64_t num = 1;
    std::uint64_t den = 1;
    friend bool operator==(const duration_period&, const duration_period&) = default;
};
inline bool parse_duration_period(std::string_view name, duration_period& out) noexcept
{
    if (!name.starts_with(duration_name_prefix) || !name.ends_with('>'))
        return false;
    name = name.substr(duration_name_prefix.size(), name.size() - duration_name_prefix.size() - 1);
    const std::size_t slash = name.find('/');
    if (slash == std::string_view::npos)
        return false;
    auto term = [](std::string_view digits, std::uint64_t& value) {
        const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
        return error == std::errc{} && end == digits.data() + digits.size() && value > 0 &&
               value <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    };
    return term(name.substr(0, slash), out.num) && term(name.substr(slash + 1), out.den);
}

/// Durations are sent as their count (the proxy's wire type), and saved as
/// a struct named after the period whose one field is the count.
template <class Duration, class Count>
struct duration_proxy : std::true_type {
    using wire = Count;
    using period = typename Duration::period;
    /// The struct the schema names, whose one field is `count` (the
    /// engine's tables carry it as data).
    static constexpr std::string_view schema_struct = duration_name<period>::value;
};
template <class Rep, class Period>
    requires(std::is_arithmetic_v<Rep> && !std::is_same_v<Rep, bool>)
struct proxy_traits<std::chrono::duration<Rep, Period>> : duration_proxy<std::chrono::duration<Rep, Period>, Rep> {
    using type = std::chrono::duration<Rep, Period>;
    static constexpr Rep to_wire(const type& value) noexcept { return value.count(); }
    static constexpr void from_wire(type& value, Rep count) noexcept { value = type(count); }
};
template <class Duration, class Count>
struct proxy_traits<annotated_duration<Duration, Count>> : duration_proxy<Duration, Count> {
    using type = annotated_duration<Duration, Count>;
    static constexpr Count to_wire(const type& value) noexcept
    {
        return Count(static_cast<typename Count::value_type>(value.count()));
    }
    static constexpr void from_wire(type& value, const Count& count) noexcept
    {
        value.get() = Duration(static_cast<typename Duration::rep>(count.value()));
    }
};

/// std::chrono::duration (of a number) and annotated_duration.
template <class T>
concept chrono_duration = proxied<T> && requires { typename proxy_traits<T>::period; };

} // namespace detail

} // namespace bitrep
