// The schema-driven load: a save file written by another shape of T (fields
// added, removed, reordered, bounds changed) is read by the file's schema
// into the program's T (docs/save-format.md, section 3).
//
// It runs in two passes. bind() (detail/schema_bind.hpp) matches the file's
// schema with T's once per load. read_as<P>() then reads every value by its
// file node into the program's type, converting it and refusing a value that
// does not fit (out_of_range), with the per-struct field matching already
// done, so that a file of 100,000 entities costs a table lookup per field,
// not a name comparison.
#pragma once

#include <algorithm>
#include <array>
#include <bitset>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <bitrep/annotations.hpp>
#include <bitrep/codecs/bounded_map.hpp>
#include <bitrep/codecs/duration.hpp>
#include <bitrep/codecs/proxy.hpp>
#include <bitrep/detail/field_path.hpp>
#include <bitrep/detail/resize.hpp>
#include <bitrep/detail/with_index.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/save/schema.hpp>
#include <bitrep/save/schema_bind.hpp>
#include <bitrep/save/schema_reader.hpp>
#include <bitrep/serialize.hpp>

namespace bitrep::detail {

template <class P>
bool read_as(save_read_stream& stream, load_plan& plan, std::uint32_t f, P& out);

template <class T>
struct is_flagged : std::false_type {};
template <class T, field_flag Flag>
struct is_flagged<flagged<T, Flag>> : std::true_type {};

/// Whether a field of type F is in a save file at all.
template <class F>
constexpr bool saved_field()
{
    if constexpr (is_flagged<F>::value)
        return codec<F>::template carried<schema_builder>();
    else
        return true;
}

template <class P>
struct is_std_optional : std::false_type {};
template <class T>
struct is_std_optional<std::optional<T>> : std::true_type {};

[[gnu::cold, gnu::noinline]] inline bool value_does_not_fit(save_read_stream& stream, std::size_t start,
                                                            std::string_view why)
{
    return stream.fail(error::out_of_range, start, why);
}

/// Refuses a file's value whose enumerator, flag or alternative `name` the
/// program's `what` does not have, saying how a renamed one is kept. The
/// text is composed on the stack: a read path does not allocate to fail.
[[gnu::cold, gnu::noinline]] inline bool name_not_in_program(save_read_stream& stream, std::size_t start,
                                                             std::string_view name, std::string_view what)
{
    const detail::status_text<status::max_detail_length + 1> text(
        {"no `", name, "` in the program's ", what, ": if renamed, list the old name in bitrep_renames"});
    return stream.fail(error::out_of_range, start, text.view());
}

template <class Int>
bool integer_fits(const integer_value& value, Int min, Int max) noexcept
{
    if (value.negative()) {
        const auto v = static_cast<std::int64_t>(value.pattern);
        return std::cmp_less_equal(min, v) && std::cmp_less_equal(v, max);
    }
    return std::cmp_less_equal(min, value.pattern) && std::cmp_less_equal(value.pattern, max);
}

template <class Int>
Int integer_cast(const integer_value& value) noexcept
{
    return value.negative() ? static_cast<Int>(static_cast<std::int64_t>(value.pattern))
                            : static_cast<Int>(value.pattern);
}

/// The elements of a vector or array node into a container's first `count`
/// elements.
template <class Container>
bool read_elements(save_read_stream& stream, load_plan& plan, std::uint32_t element, Container& out,
                   std::size_t count)
{
    auto it = out.begin();
    for (std::size_t i = 0; i < count; ++i, ++it) {
        bool ok;
        if constexpr (std::is_same_v<typename Container::value_type, bool>) {
            bool bit = false;
            ok = read_as(stream, plan, element, bit);
            *it = bit;
        } else {
            ok = read_as(stream, plan, element, *it);
        }
        if (!ok) [[unlikely]] {
            stream.enter_index(i);
            return false;
        }
    }
    return true;
}

template <class S>
struct struct_reader {
    using read_field = bool (*)(save_read_stream&, load_plan&, std::uint32_t, S&);
    using reset_field = void (*)(S&);

    template <std::size_t I>
    static bool read(save_read_stream& stream, load_plan& plan, std::uint32_t f, S& out)
    {
        return reflect::with_field_as_sent<I, true>(
            [&](auto& field) { return read_as(stream, plan, f, field); }, out);
    }
    template <std::size_t I>
    static void reset(S& out)
    {
        static const S defaults{};
        reflect::field_at<I>(out) = reflect::field_at<I>(defaults);
    }

    template <std::size_t I>
    static constexpr read_field reader_at()
    {
        if constexpr (saved_field<reflect::wire_type_at<S, I>>())
            return &read<I>;
        else
            return nullptr; // a transient field's type need not even be serializable
    }
    template <std::size_t I>
    static constexpr reset_field resetter_at()
    {
        if constexpr (saved_field<reflect::wire_type_at<S, I>>())
            return &reset<I>;
        else
            return nullptr;
    }

    /// Per field position: how to read it and how to give it its default.
    /// Fields a save file never carries have no entry (and are never bound).
    static constexpr auto readers = []<std::size_t... I>(std::index_sequence<I...>) {
        return std::array<read_field, sizeof...(I)>{reader_at<I>()...};
    }(std::make_index_sequence<reflect::field_count<S>>{});
    static constexpr auto resetters = []<std::size_t... I>(std::index_sequence<I...>) {
        return std::array<reset_field, sizeof...(I)>{resetter_at<I>()...};
    }(std::make_index_sequence<reflect::field_count<S>>{});
};

template <class S>
bool read_struct(save_read_stream& stream, load_plan& plan, std::uint32_t f, S& out)
{
    using reader = struct_reader<S>;
    const schema& file = plan.file;
    const std::uint32_t end = file.nodes[f].end;
    for (std::uint32_t c = f + 1; c < end; c = file.nodes[c].end) {
        const std::int32_t position = plan.target[c];
        const bool ok = position < 0 ? skip_value(stream, file, c, plan.budget)
                                     : reader::readers[static_cast<std::size_t>(position)](stream, plan, c, out);
        if (!ok) [[unlikely]] {
            enter_schema_field(stream.failure(), file.nodes[c]);
            return false;
        }
    }
    const auto [begin, stop] = plan.missing[f];
    for (std::uint32_t i = begin; i < stop; ++i)
        reader::resetters[plan.missing_fields[i]](out);
    return true;
}

// One read_value overload per kind of program type, each reading the file's
// node `f` (never an optional: read_as unwraps those first).

inline bool read_value(save_read_stream& stream, load_plan& plan, std::uint32_t f, bool& out)
{
    static_cast<void>(plan);
    static_cast<void>(f);
    return stream.serialize_bool(out);
}

/// An integer of any file kind into [min, max] of the program's Int.
template <class Int>
bool read_integer_within(save_read_stream& stream, const schema_node& node, Int min, Int max, Int& out,
                         std::string_view why)
{
    const std::size_t start = stream.position();
    integer_value value;
    if (!read_integer(stream, node, value))
        return false;
    if (!integer_fits(value, min, max)) [[unlikely]]
        return value_does_not_fit(stream, start, why);
    out = integer_cast<Int>(value);
    return true;
}

template <class Int>
    requires(std::is_integral_v<Int> && !std::is_same_v<Int, bool>)
bool read_value(save_read_stream& stream, load_plan& plan, std::uint32_t f, Int& out)
{
    return read_integer_within(stream, plan.file.nodes[f], std::numeric_limits<Int>::min(),
                               std::numeric_limits<Int>::max(), out,
                               "the file's value does not fit the program's integer type");
}

template <std::integral Int, Int Min, Int Max>
bool read_value(save_read_stream& stream, load_plan& plan, std::uint32_t f, ranged<Int, Min, Max>& out)
{
    return read_integer_within(stream, plan.file.nodes[f], Min, Max, out.get(),
                               "the file's value is outside the program's range");
}

template <class Real>
    requires std::is_floating_point_v<Real>
bool read_value(save_read_stream& stream, load_plan& plan, std::uint32_t f, Real& out)
{
    double value = 0.0;
    if (!read_real(stream, plan.file.nodes[f], value))
        return false;
    out = static_cast<Real>(value);
    return true;
}

/// A real the file held (read from `start`) into a program's float or
/// quantized float.
template <class Real>
    requires std::is_floating_point_v<Real>
bool accept_real(save_read_stream&, std::size_t, double value, Real& out)
{
    out = static_cast<Real>(value);
    return true;
}
template <float_constant Min, float_constant Max, float_constant Resolution, range_policy Policy>
bool accept_real(save_read_stream& stream, std::size_t start, double value,
                 quantized<Min, Max, Resolution, Policy>& out)
{
    using type = quantized<Min, Max, Resolution, Policy>;
    // Within half a step of the range: it loads as the edge, the quantum a
    // save of it would have sent, so that the loaded value can be saved again.
    const double slack = 0.5 * static_cast<double>(type::resolution);
    if (!(value >= type::min - slack && value <= type::max + slack)) [[unlikely]]
        return value_does_not_fit(stream, start, "the file's value is outside the program's range");
    out = std::clamp(static_cast<float>(value), type::min, type::max);
    return true;
}

template <float_constant Min, float_constant Max, float_constant Resolution, range_policy Policy>
bool read_value(save_read_stream& stream, load_plan& plan, std::uint32_t f,
                quantized<Min, Max, Resolution, Policy>& out)
{
    const std::size_t start = stream.position();
    double value = 0.0;
    if (!read_real(stream, plan.file.nodes[f], value))
        return false;
    return accept_real(stream, start, value, out);
}

template <int Bits>
bool read_value(save_read_stream& stream, load_plan& plan, std::uint32_t f, quat<Bits>& out)
{
    return serialize_smallest_three(stream, out, plan.file.nodes[f].quantizer);
}

template <class E>
    requires(std::is_enum_v<E> && !reflect::flag_enum<E>)
bool read_value(save_read_stream& stream, load_plan& plan, std::uint32_t f, E& out)
{
    const std::size_t start = stream.position();
    std::uint64_t index = 0;
    if (!read_enum_index(stream, plan.file.nodes[f], index))
        return false;
    const std::int32_t mine = plan.target[f + 1 + index];
    if (mine < 0) [[unlikely]]
        return name_not_in_program(stream, start, plan.file.nodes[f + 1 + index].name, "enum");
    out = reflect::enumerators<E>::values[static_cast<std::size_t>(mine)];
    return true;
}

/// A file's flags (a struct of bools) into a flag enum, matched by name: a
/// flag the file lacks is clear, and a set flag the program no longer has
/// is refused (clear, it is nothing lost). A file's field that is no bool
/// and no flag (a struct that became a flag enum) is skipped by its kind,
/// as a struct's dropped field is, and bind() listed it as dropped.
template <class E>
    requires reflect::flag_enum<E>
bool read_value(save_read_stream& stream, load_plan& plan, std::uint32_t f, E& out)
{
    const schema& file = plan.file;
    std::uint64_t word = 0;
    for (std::uint32_t c = f + 1; c < file.nodes[f].end; c = file.nodes[c].end) {
        const std::size_t start = stream.position();
        const std::int32_t flag = plan.target[c];
        bool set = false;
        const bool ok = flag < 0 && file.nodes[c].kind != schema_kind::boolean
                            ? skip_value(stream, file, c, plan.budget)
                            : read_as(stream, plan, c, set);
        if (!ok) [[unlikely]] {
            enter_schema_field(stream.failure(), file.nodes[c]);
            return false;
        }
        if (set && flag < 0) [[unlikely]] {
            name_not_in_program(stream, start, file.nodes[c].name, "flag enum");
            enter_schema_field(stream.failure(), file.nodes[c]);
            return false;
        }
        if (set)
            word |= std::uint64_t{1} << flag;
    }
    out = codec<E>::from_word(word);
    return true;
}

template <std::size_t MaxLength>
bool read_value(save_read_stream& stream, load_plan& plan, std::uint32_t f, bounded_string<MaxLength>& out)
{
    const std::size_t start = stream.position();
    if (!stream.serialize_string(out.str(), plan.file.nodes[f].max + 1))
        return false;
    if (out.size() > MaxLength) [[unlikely]]
        return value_does_not_fit(stream, start, "the file's string is longer than the program's bound");
    return true;
}

template <class T, std::size_t MaxSize>
bool read_value(save_read_stream& stream, load_plan& plan, std::uint32_t f, bounded_vector<T, MaxSize>& out)
{
    const std::size_t start = stream.position();
    std::uint64_t count = 0;
    if (!read_list_count(stream, plan.file.nodes[f], count))
        return false;
    if (count > MaxSize) [[unlikely]]
        return value_does_not_fit(stream, start, "the file's vector is longer than the program's bound");
    if (!count_fits_input(stream, count, plan.min_bits[f + 1]))
        return false;
    resize_for_decode(out, static_cast<std::size_t>(count));
    return read_elements(stream, plan, f + 1, out, static_cast<std::size_t>(count));
}

/// A file's array or vector into a fixed number `n` of the program's
/// elements (`read(i)` reads element i): a longer list is refused, and the
/// elements the file lacks get `reset(i)`.
template <class Read, class Reset>
bool read_fixed_list(save_read_stream& stream, load_plan& plan, std::uint32_t f, std::size_t n,
                     std::string_view longer, Read read, Reset reset)
{
    const std::size_t start = stream.position();
    std::uint64_t count = 0;
    if (!read_list_count(stream, plan.file.nodes[f], count))
        return false;
    if (count > n) [[unlikely]]
        return value_does_not_fit(stream, start, longer);
    for (std::size_t i = 0; i < count; ++i) {
        if (!read(i)) [[unlikely]] {
            stream.enter_index(i);
            return false;
        }
    }
    for (std::size_t i = static_cast<std::size_t>(count); i < n; ++i)
        reset(i);
    return true;
}

/// An array the file holds fewer elements of gives the rest their defaults.
template <class T, std::size_t N>
bool read_value(save_read_stream& stream, load_plan& plan, std::uint32_t f, std::array<T, N>& out)
{
    return read_fixed_list(
        stream, plan, f, N, "the file's array is longer than the program's",
        [&](std::size_t i) { return read_as(stream, plan, f + 1, out[i]); }, [&](std::size_t i) { out[i] = T{}; });
}

/// A file's array or vector of bools (a bitset's schema) into a bitset; the
/// bits the file lacks are 0, and a longer list is refused.
template <std::size_t N>
bool read_value(save_read_stream& stream, load_plan& plan, std::uint32_t f, std::bitset<N>& out)
{
    return read_fixed_list(
        stream, plan, f, N, "the file's bitset is longer than the program's",
        [&](std::size_t i) {
            bool bit = false;
            if (!read_as(stream, plan, f + 1, bit))
                return false;
            out[i] = bit;
            return true;
        },
        [&](std::size_t i) { out[i] = false; });
}

/// A file's list of pairs (a map's schema) or of keys (a set's) into a
/// bounded map or set: in any order (a vector's, too), a key given twice
/// refused (duplicate_key), a list longer than the bound refused.
template <class T>
bool read_keyed(save_read_stream& stream, load_plan& plan, std::uint32_t f, T& out)
{
    using traits = keyed_traits<T>;
    const std::size_t start = stream.position();
    std::uint64_t count = 0;
    if (!read_list_count(stream, plan.file.nodes[f], count))
        return false;
    if (count > traits::max_entries) [[unlikely]]
        return value_does_not_fit(stream, start, "the file holds more entries than the program's bound");
    if (!count_fits_input(stream, count, plan.min_bits[f + 1]))
        return false;
    auto& entries = traits::entries(out);
    entries.clear();
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::size_t at = stream.position();
        bool ok;
        if constexpr (traits::has_values) {
            std::pair<typename traits::key_type, typename traits::mapped_type> entry{};
            ok = read_as(stream, plan, f + 1, entry) &&
                 add_decoded_entry<traits>(stream, entries, at, std::move(entry.first), std::move(entry.second));
        } else {
            typename traits::key_type key{};
            ok = read_as(stream, plan, f + 1, key) && add_decoded_entry<traits>(stream, entries, at, std::move(key));
        }
        if (!ok) [[unlikely]] {
            stream.enter_index(static_cast<std::size_t>(i));
            return false;
        }
    }
    return true;
}

template <class K, class V, std::size_t N, class Map>
bool read_value(save_read_stream& stream, load_plan& plan, std::uint32_t f, bounded_map<K, V, N, Map>& out)
{
    return read_keyed(stream, plan, f, out);
}

template <class K, std::size_t N, class Set>
bool read_value(save_read_stream& stream, load_plan& plan, std::uint32_t f, bounded_set<K, N, Set>& out)
{
    return read_keyed(stream, plan, f, out);
}

template <class V, std::uint32_t MaxStep>
bool read_value(save_read_stream& stream, load_plan& plan, std::uint32_t f, delta_small<V, MaxStep>& out)
{
    return read_value(stream, plan, f, static_cast<V&>(out));
}

/// Entity slots are saved as an array of optionals.
template <class T, std::size_t N>
bool read_value(save_read_stream& stream, load_plan& plan, std::uint32_t f, entity_array<T, N>& out)
{
    return entity_array_access::rewrite(out, [&](auto& slots) { return read_value(stream, plan, f, slots); });
}

/// A file's struct into the members of a pair or tuple, which bind()
/// matched by position; a member the file lacks gets its default.
template <class Tuple>
bool read_members(save_read_stream& stream, load_plan& plan, std::uint32_t f, Tuple& out)
{
    constexpr std::size_t size = std::tuple_size_v<Tuple>;
    const schema& file = plan.file;
    for (std::uint32_t c = f + 1; c < file.nodes[f].end; c = file.nodes[c].end) {
        const std::int32_t position = plan.target[c];
        const bool ok = position < 0 ? skip_value(stream, file, c, plan.budget)
                                     : with_index<size>(static_cast<std::size_t>(position), [&](auto i) {
                                           return read_as(stream, plan, c, std::get<decltype(i)::value>(out));
                                       });
        if (!ok) [[unlikely]] {
            enter_schema_field(stream.failure(), file.nodes[c]);
            return false;
        }
    }
    const auto [begin, stop] = plan.missing[f];
    for (std::uint32_t i = begin; i < stop; ++i)
        with_index<size>(plan.missing_fields[i], [&](auto m) {
            std::get<decltype(m)::value>(out) = std::tuple_element_t<decltype(m)::value, Tuple>{};
            return true;
        });
    return true;
}

template <class... Ts>
bool read_value(save_read_stream& stream, load_plan& plan, std::uint32_t f, std::tuple<Ts...>& out)
{
    return read_members(stream, plan, f, out);
}

template <class A, class B>
bool read_value(save_read_stream& stream, load_plan& plan, std::uint32_t f, std::pair<A, B>& out)
{
    return read_members(stream, plan, f, out);
}

/// The file's alternative into the program's alternative bind() matched it
/// with (a file's alternative the program no longer has is refused).
template <class... Ts>
bool read_value(save_read_stream& stream, load_plan& plan, std::uint32_t f, std::variant<Ts...>& out)
{
    const std::size_t start = stream.position();
    std::uint32_t alternative = 0;
    if (!read_alternative(stream, plan.file, f, alternative, plan.budget))
        return false;
    const std::int32_t mine = plan.target[alternative];
    if (mine < 0) [[unlikely]] {
        const schema_node& missing = plan.file.nodes[alternative];
        if (missing.name.empty())
            value_does_not_fit(stream, start, "the file's alternative is not in the program's variant");
        else
            name_not_in_program(stream, start, missing.name, "variant");
        enter_schema_alternative(stream.failure(), missing);
        return false;
    }
    const bool ok = with_index<sizeof...(Ts)>(static_cast<std::size_t>(mine), [&](auto i) {
        return read_as(stream, plan, alternative, hold_alternative<decltype(i)::value>(out));
    });
    if (!ok) [[unlikely]]
        enter_schema_alternative(stream.failure(), plan.file.nodes[alternative]);
    return ok;
}

/// How a count in the file's period becomes one in the program's: times
/// num / den, reduced. False when the terms do not fit 63 bits.
inline bool duration_scale(duration_period file, std::intmax_t program_num, std::intmax_t program_den,
                           duration_period& scale) noexcept
{
    // (file.num / file.den) / (program_num / program_den)
    const auto pn = static_cast<std::uint64_t>(program_num);
    const auto pd = static_cast<std::uint64_t>(program_den);
    const std::uint64_t g1 = std::gcd(file.num, pn);
    const std::uint64_t g2 = std::gcd(file.den, pd);
    if (__builtin_mul_overflow(file.num / g1, pd / g2, &scale.num) ||
        __builtin_mul_overflow(file.den / g2, pn / g1, &scale.den))
        return false;
    const std::uint64_t g = std::gcd(scale.num, scale.den);
    scale.num /= g;
    scale.den /= g;
    constexpr auto limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    return scale.num <= limit && scale.den <= limit;
}

/// An integer times num / den, when the result is a whole number that fits
/// 64 bits.
inline bool scale_integer(integer_value& value, duration_period scale) noexcept
{
    if (value.negative()) {
        std::int64_t n = static_cast<std::int64_t>(value.pattern);
        if (n % static_cast<std::int64_t>(scale.den) != 0)
            return false;
        n /= static_cast<std::int64_t>(scale.den);
        std::int64_t result = 0;
        if (__builtin_mul_overflow(n, static_cast<std::int64_t>(scale.num), &result))
            return false;
        value.pattern = static_cast<std::uint64_t>(result);
        return true;
    }
    if (value.pattern % scale.den != 0)
        return false;
    if (__builtin_mul_overflow(value.pattern / scale.den, scale.num, &value.pattern))
        return false;
    value.is_signed = false; // not negative, whatever its top bit
    return true;
}

/// A count in the file's period into the program's count (an integer,
/// ranged, float or quantized) in the program's period: an integer count
/// must come out whole and in range (1500 ms are not a whole number of
/// seconds: out_of_range, nothing rounded away); a real one is scaled.
template <class Count>
bool read_scaled_count(save_read_stream& stream, const schema_node& node, duration_period scale, Count& out)
{
    const std::size_t start = stream.position();
    if constexpr (std::is_floating_point_v<Count> || requires { Count::resolution; }) {
        double value = 0.0;
        if (!read_real(stream, node, value))
            return false;
        return accept_real(stream, start, value * static_cast<double>(scale.num) / static_cast<double>(scale.den),
                           out);
    } else {
        integer_value value;
        if (!read_integer(stream, node, value))
            return false;
        if (!scale_integer(value, scale)) [[unlikely]]
            return value_does_not_fit(stream, start, "the file's duration is no whole number of the program's units");
        if constexpr (std::is_integral_v<Count>) {
            if (!integer_fits(value, std::numeric_limits<Count>::min(), std::numeric_limits<Count>::max())) [[unlikely]]
                return value_does_not_fit(stream, start, "the file's duration does not fit the program's count");
            out = integer_cast<Count>(value);
        } else {
            if (!integer_fits(value, Count::min, Count::max)) [[unlikely]]
                return value_does_not_fit(stream, start, "the file's duration is outside the program's range");
            out = integer_cast<typename Count::value_type>(value);
        }
        return true;
    }
}

/// A file's duration (bind() let only durations in) in any period into the
/// program's: the count converted, a count the file lacks the default's.
template <class T>
bool read_duration(save_read_stream& stream, load_plan& plan, std::uint32_t f, T& out)
{
    using traits = proxy_traits<T>;
    using period = typename traits::period;
    const schema& file = plan.file;
    const std::size_t start = stream.position();
    duration_period file_period;
    duration_period scale;
    if (!parse_duration_period(file.nodes[f].type_name, file_period) ||
        !duration_scale(file_period, period::num, period::den, scale)) [[unlikely]]
        return value_does_not_fit(stream, start, "the file's duration period cannot be converted to the program's");
    typename traits::wire count = traits::to_wire(T{});
    for (std::uint32_t c = f + 1; c < file.nodes[f].end; c = file.nodes[c].end) {
        bool ok;
        if (plan.target[c] != 0)
            ok = skip_value(stream, file, c, plan.budget);
        else if (scale.num == 1 && scale.den == 1)
            ok = read_as(stream, plan, c, count);
        else
            ok = read_scaled_count(stream, file.nodes[c], scale, count);
        if (!ok) [[unlikely]] {
            enter_schema_field(stream.failure(), file.nodes[c]);
            return false;
        }
    }
    traits::from_wire(out, count);
    return true;
}

/// A proxy by its wire type's node (a duration by its own rules).
template <class T>
    requires proxied<T>
bool read_value(save_read_stream& stream, load_plan& plan, std::uint32_t f, T& out)
{
    if constexpr (chrono_duration<T>) {
        return read_duration(stream, plan, f, out);
    } else {
        typename proxy_traits<T>::wire sent = proxy_traits<T>::to_wire(out);
        if (!read_as(stream, plan, f, sent))
            return false;
        proxy_traits<T>::from_wire(out, sent);
        return true;
    }
}

template <class T>
    requires(std::is_class_v<T> && !proxied<T>)
bool read_value(save_read_stream& stream, load_plan& plan, std::uint32_t f, T& out)
{
    if constexpr (route_for<T>() == class_route::reflected)
        return read_struct(stream, plan, f, out);
    else
        return bitrep::serialize(stream, out); // a hook: bind() checked it is the same hook type
}

/// Reads the file's node `f` into the program's `out`: unwraps flags and
/// optionals on either side, then reads by kind. bind() stepped into an
/// optional on one side only before it compared the nodes within, so
/// `identical[f]` says that f encodes like the program's type *inside* such an
/// optional: it is looked at only once `out` is unwrapped the same way (an
/// int in a file marked identical to the program's int must not be read as
/// the program's std::optional<int>, presence bit and all).
template <class P>
bool read_as(save_read_stream& stream, load_plan& plan, std::uint32_t f, P& out)
{
    const schema_kind kind = plan.file.nodes[f].kind;
    if constexpr (is_flagged<P>::value) {
        return read_as(stream, plan, f, out.get()); // a flag is not in the schema
    } else if constexpr (is_std_optional<P>::value) {
        if (kind != schema_kind::optional) {
            // The file's plain value into the program's optional: present.
            if (!out)
                out.emplace();
            return read_as(stream, plan, f, *out);
        }
        if (plan.identical[f])
            return bitrep::serialize(stream, out);
        bool present = false;
        if (!stream.serialize_bool(present))
            return false;
        if (!present) {
            out.reset();
            return true;
        }
        if (!out)
            out.emplace();
        return read_as(stream, plan, f + 1, *out);
    } else {
        if (kind == schema_kind::optional) {
            // The file's optional into a plain value: absent gives the default.
            bool present = false;
            if (!stream.serialize_bool(present))
                return false;
            if (!present) {
                out = P{};
                return true;
            }
            return read_as(stream, plan, f + 1, out);
        }
        if (plan.identical[f])
            return bitrep::serialize(stream, out);
        return read_value(stream, plan, f, out);
    }
}

} // namespace bitrep::detail
