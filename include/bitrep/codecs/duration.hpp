// std::chrono::duration: its count, as the count's own type (a plain
// duration: an int64 count costs 64 bits) or as the ranged or quantized
// annotation of ranged_duration / quantized_duration. A save file's schema
// describes it as a struct named after its period with one field, `count`,
// so that a load converts between periods (docs/save-format.md, section 3).
#pragma once

#include <bitrep/annotations/duration.hpp>
#include <bitrep/codec.hpp>
#include <bitrep/detail/inline.hpp>
#include <bitrep/serialize.hpp>

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

/// Durations bitrep sends: how to get at their count as it is sent.
template <class T>
struct duration_traits : std::false_type {};
template <class Rep, class Period>
    requires(std::is_arithmetic_v<Rep> && !std::is_same_v<Rep, bool>)
struct duration_traits<std::chrono::duration<Rep, Period>> : std::true_type {
    using type = std::chrono::duration<Rep, Period>;
    using count_type = Rep;
    using period = Period;
    static constexpr count_type count(const type& value) noexcept { return value.count(); }
    static constexpr void set(type& value, count_type count) noexcept { value = type(count); }
};
template <class Duration, class Count>
struct duration_traits<annotated_duration<Duration, Count>> : std::true_type {
    using type = annotated_duration<Duration, Count>;
    using count_type = Count;
    using period = typename Duration::period;
    static constexpr count_type count(const type& value) noexcept
    {
        return count_type(static_cast<typename count_type::value_type>(value.count()));
    }
    static constexpr void set(type& value, const count_type& count) noexcept
    {
        value.get() = Duration(static_cast<typename Duration::rep>(count.value()));
    }
};

/// std::chrono::duration (of a number) and annotated_duration.
template <class T>
concept chrono_duration = duration_traits<T>::value;

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

} // namespace detail

template <class T>
    requires detail::chrono_duration<T>
struct codec<T> {
    using traits = detail::duration_traits<T>;
    using count_type = typename traits::count_type;

    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, T& value)
    {
        count_type count{};
        if constexpr (!Stream::is_reading)
            count = traits::count(value);
        if (!codec<count_type>::serialize(stream, count))
            return false;
        if constexpr (Stream::is_reading)
            traits::set(value, count);
        return true;
    }
    static constexpr std::size_t max_bits() { return codec<count_type>::max_bits(); }
    static constexpr std::size_t min_bits() { return codec<count_type>::min_bits(); }
    /// A struct named after the period, whose one field `count` is the
    /// count's own node (ranged, quantized, integer or float).
    template <class Schema>
    static void describe(Schema& schema)
    {
        schema.begin_struct(detail::duration_name<typename traits::period>::value);
        schema.field("count", 0);
        codec<count_type>::describe(schema);
        schema.end();
    }
};

} // namespace bitrep
