// Builds the engine's tables from reflection: entry_v<T> for any field type,
// table_v<T> for a reflected class. Everything here is constant data plus a
// few one-line accessors per container type; no serialization code.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <bitset>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <bitrep/annotations/adapted.hpp>
#include <bitrep/annotations/bounded_string.hpp>
#include <bitrep/annotations/bounded_vector.hpp>
#include <bitrep/annotations/delta_small.hpp>
#include <bitrep/annotations/duration.hpp>
#include <bitrep/annotations/entity_array.hpp>
#include <bitrep/annotations/field_flags.hpp>
#include <bitrep/annotations/quantized.hpp>
#include <bitrep/annotations/quat.hpp>
#include <bitrep/annotations/ranged.hpp>
#include <bitrep/detail/proxy_traits.hpp>
#include <bitrep/engine/table.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/serialize.hpp>

namespace bitrep::engine {

namespace detail {
template <class T>
struct is_bounded_vector : std::false_type {};
template <class T, std::size_t N>
struct is_bounded_vector<bounded_vector<T, N>> : std::bool_constant<!std::is_same_v<T, bool>> {};
template <class T>
struct is_bit_vector : std::false_type {};
template <std::size_t N>
struct is_bit_vector<bounded_vector<bool, N>> : std::true_type {};
template <class T>
struct is_bitset : std::false_type {};
template <std::size_t N>
struct is_bitset<std::bitset<N>> : std::true_type {
    static constexpr std::size_t size = N;
};
template <class T>
struct is_std_array : std::false_type {};
template <class T, std::size_t N>
struct is_std_array<std::array<T, N>> : std::true_type {};
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_variant : std::false_type {};
template <class... Ts>
struct is_variant<std::variant<Ts...>> : std::true_type {};
template <class T>
struct is_quantized : std::false_type {};
template <float_constant Min, float_constant Max, float_constant Resolution, range_policy Policy>
struct is_quantized<quantized<Min, Max, Resolution, Policy>> : std::true_type {};
template <class T>
struct is_ranged : std::false_type {};
template <class Int, Int Min, Int Max>
struct is_ranged<ranged<Int, Min, Max>> : std::true_type {};
template <class T>
struct is_bounded_string : std::false_type {};
template <std::size_t N>
struct is_bounded_string<bounded_string<N>> : std::true_type {};
template <class T>
struct is_quat : std::false_type {};
template <int Bits>
struct is_quat<quat<Bits>> : std::true_type {};
template <class T>
struct is_delta_small : std::false_type {};
template <class V, std::uint32_t MaxStep>
struct is_delta_small<delta_small<V, MaxStep>> : std::true_type {};
template <class T>
struct is_entity_array : std::false_type {};
template <class T, std::size_t N>
struct is_entity_array<entity_array<T, N>> : std::true_type {};
template <class T>
struct is_flagged : std::false_type {};
template <class T, field_flag Flag>
struct is_flagged<flagged<T, Flag>> : std::true_type {};

/// Classes the tables walk field by field: reflected, no hook (a field
/// annotated from outside its class is a proxy for its annotation).
template <class T>
constexpr bool walked_class()
{
    if constexpr (std::is_class_v<T> && requires { codec<T>::walks_fields; })
        return codec<T>::walks_fields;
    else
        return false;
}

/// The classes the tables describe member by member.
template <class T>
constexpr bool tabled_class()
{
    return walked_class<T>() || bitrep::detail::std_tuple<T>;
}

template <class T>
std::size_t vector_size(const void* v) noexcept
{
    return static_cast<const std::vector<T>*>(v)->size();
}
template <class T>
void* vector_data(void* v) noexcept
{
    return static_cast<std::vector<T>*>(v)->data();
}
template <class T>
void vector_resize(void* v, std::size_t size)
{
    bitrep::detail::resize_for_decode(*static_cast<std::vector<T>*>(v), size);
}
template <class T>
inline constexpr container_access vector_access{&vector_size<T>, &vector_data<T>, &vector_resize<T>};

inline bool bit_test(const void* v, std::size_t i) noexcept
{
    return (*static_cast<const std::vector<bool>*>(v))[i];
}
inline void bit_assign(void* v, std::size_t i, bool bit) noexcept
{
    (*static_cast<std::vector<bool>*>(v))[i] = bit;
}
inline constexpr bit_vector_access bit_access{&vector_size<bool>, &vector_resize<bool>, &bit_test, &bit_assign};

template <std::size_t N>
std::uint64_t bitset_word(const void* set, std::size_t at, int count) noexcept
{
    return bitrep::detail::bitset_word(*static_cast<const std::bitset<N>*>(set), at, count);
}
template <std::size_t N>
void set_bitset_word(void* set, std::size_t at, int count, std::uint64_t word) noexcept
{
    bitrep::detail::set_bitset_word(*static_cast<std::bitset<N>*>(set), at, count, word);
}
template <std::size_t N>
inline constexpr bitset_access bitset_access_v{&bitset_word<N>, &set_bitset_word<N>};

template <class T>
bool optional_has(const void* o) noexcept
{
    return static_cast<const std::optional<T>*>(o)->has_value();
}
template <class T>
void* optional_value(void* o) noexcept
{
    return &**static_cast<std::optional<T>*>(o);
}
template <class T>
void optional_reset(void* o) noexcept
{
    static_cast<std::optional<T>*>(o)->reset();
}
template <class T>
void optional_emplace(void* o)
{
    static_cast<std::optional<T>*>(o)->emplace();
}
template <class T>
inline constexpr optional_access optional_access_v{&optional_has<T>, &optional_value<T>, &optional_reset<T>,
                                                   &optional_emplace<T>};

template <class V>
std::size_t variant_index(const void* v) noexcept
{
    return static_cast<const V*>(v)->index();
}
template <class V, std::size_t I>
void* variant_held(void* v) noexcept
{
    return std::get_if<I>(static_cast<V*>(v));
}
template <class V, std::size_t I>
void* variant_hold(void* v)
{
    return &bitrep::detail::hold_alternative<I>(*static_cast<V*>(v));
}

template <class T>
using keyed = bitrep::detail::keyed_traits<T>;

/// What a read decodes a map's or set's entry into: std::pair<K, V>, whose
/// key is not const (the stored entries' layout), or K.
template <class T>
using decoded_entry = std::conditional_t<keyed<T>::has_values,
                                         std::pair<typename keyed<T>::key_type, typename keyed<T>::mapped_type>,
                                         typename keyed<T>::key_type>;
template <class T>
inline thread_local std::optional<decoded_entry<T>> decoded_entries;

template <class T>
std::size_t keyed_size(const void* m) noexcept
{
    return keyed<T>::entries(*static_cast<const T*>(m)).size();
}
template <class T>
const void* const* keyed_sorted(const void* m)
{
    return bitrep::detail::sorted_entries<T, 0, const void*>(*static_cast<const T*>(m)).data();
}
template <class T>
void keyed_clear(void* m) noexcept
{
    keyed<T>::entries(*static_cast<T*>(m)).clear();
}
template <class T>
void* keyed_fresh()
{
    return &decoded_entries<T>.emplace();
}
template <class T>
bool keyed_insert(void* m)
{
    auto& entries = keyed<T>::entries(*static_cast<T*>(m));
    auto& entry = *decoded_entries<T>;
    if constexpr (keyed<T>::has_values)
        return bitrep::detail::emplace_new(entries, std::move(entry.first), std::move(entry.second));
    else
        return bitrep::detail::emplace_new(entries, std::move(entry));
}
template <class T>
inline constexpr map_access map_access_v{keyed<T>::has_values, &keyed_size<T>, &keyed_sorted<T>, &keyed_clear<T>,
                                         &keyed_fresh<T>, &keyed_insert<T>};

template <class T>
using proxy_traits = bitrep::detail::proxy_traits<T>;

/// The thread's wire object of proxy type T (proxies do not nest in their
/// own wire types: a type containing itself has no encoding).
template <class T>
inline thread_local std::optional<typename proxy_traits<T>::wire> proxy_wires;

template <class T>
void* proxy_to_write(const void* value)
{
    return &proxy_wires<T>.emplace(proxy_traits<T>::to_wire(*static_cast<const T*>(value)));
}
template <class T>
void* proxy_to_read(void*)
{
    return &proxy_wires<T>.emplace();
}
template <class T>
void proxy_from_wire(void* value, const void* wire)
{
    proxy_traits<T>::from_wire(*static_cast<T*>(value), *static_cast<const typename proxy_traits<T>::wire*>(wire));
}

/// Whether a W's object is an F's, as the engine reads it: W holds just an
/// F (ranged<F> an F, quantized a float, bounded_string a std::string), so
/// W's instructions run on an F where it lies, and leave there what
/// converting the decoded W to an F would.
template <class W, class F>
struct holds_as : std::is_same<W, F> {};
template <class F, F Min, F Max>
struct holds_as<ranged<F, Min, Max>, F> : std::true_type {};
template <float_constant Min, float_constant Max, float_constant Resolution, range_policy Policy>
struct holds_as<quantized<Min, Max, Resolution, Policy>, float> : std::true_type {};
template <std::size_t N>
struct holds_as<bounded_string<N>, std::string> : std::true_type {};
template <class E, std::size_t N>
struct holds_as<bounded_vector<E, N>, std::vector<E>> : std::true_type {};
template <class V, std::uint32_t MaxStep, class F>
struct holds_as<delta_small<V, MaxStep>, F> : holds_as<V, F> {};
template <class X, field_flag Flag, class F>
struct holds_as<flagged<X, Flag>, F> : holds_as<X, F> {};
/// An adapter or annotated duration holds just the value it adapts.
template <class W, class F>
inline constexpr bool wraps = std::is_standard_layout_v<W> && sizeof(W) == sizeof(F);
template <class F, class Component, std::size_t N>
struct holds_as<each_component<F, Component, N>, F> : std::bool_constant<wraps<each_component<F, Component, N>, F>> {};
template <class F, int Bits>
struct holds_as<smallest_three<F, Bits>, F> : std::bool_constant<wraps<smallest_three<F, Bits>, F>> {};
template <class F, class Count>
struct holds_as<annotated_duration<F, Count>, F> : std::bool_constant<wraps<annotated_duration<F, Count>, F>> {};

/// Where T holds its wire object as it is (proxy_access::in_place), or
/// nullptr; proxy types whose wire type is their own object say so below.
template <class T>
inline constexpr std::ptrdiff_t (*proxy_in_place)() noexcept = nullptr;

constexpr std::ptrdiff_t at_start() noexcept
{
    return 0;
}

/// T, which holds just a Held, has its wire object Wire at its start when a
/// Wire's object is a Held's.
template <class T, class Wire, class Held>
inline constexpr std::ptrdiff_t (*wire_at_start)() noexcept =
    std::is_standard_layout_v<T> && sizeof(T) == sizeof(Held) && holds_as<Wire, Held>::value ? &at_start : nullptr;

/// A duration is its count.
template <class Rep, class Period>
inline constexpr std::ptrdiff_t (*proxy_in_place<std::chrono::duration<Rep, Period>>)() noexcept =
    wire_at_start<std::chrono::duration<Rep, Period>, Rep, Rep>;
template <class Duration, class Count>
inline constexpr std::ptrdiff_t (*proxy_in_place<annotated_duration<Duration, Count>>)() noexcept =
    wire_at_start<annotated_duration<Duration, Count>, Count, typename Duration::rep>;

/// Where `parts` (addresses in `value`) lie one after another, `size`
/// bytes apart: the first's distance from the value's start, else -1.
inline std::ptrdiff_t packed_parts(const void* value, std::initializer_list<const void*> parts,
                                   std::size_t size) noexcept
{
    const auto* first = static_cast<const unsigned char*>(*parts.begin());
    std::size_t k = 0;
    for (const void* part : parts)
        if (static_cast<const unsigned char*>(part) != first + size * k++)
            return -1;
    return first - static_cast<const unsigned char*>(value);
}

/// An each_component's components, when they are its wire type's
/// annotations' own numbers one after another (a glm::vec3 of floats sent
/// as quantized floats), are its wire object.
template <class T, class Component, std::size_t N>
std::ptrdiff_t components_in_place() noexcept
{
    each_component<T, Component, N> value{};
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return packed_parts(&value, {&value.get()[static_cast<int>(I)]...}, sizeof(Component));
    }(std::make_index_sequence<N>{});
}
template <class T>
using component_of = std::remove_cvref_t<decltype(std::declval<T&>()[0])>;
template <class T, class Component, std::size_t N>
inline constexpr std::ptrdiff_t (*proxy_in_place<each_component<T, Component, N>>)() noexcept =
    holds_as<Component, component_of<T>>::value ? &components_in_place<T, Component, N> : nullptr;

/// A smallest_three's quaternion, when its x, y, z and w are floats one
/// after another, is a quat<Bits>.
template <class Q, int Bits>
std::ptrdiff_t quaternion_in_place() noexcept
{
    smallest_three<Q, Bits> value;
    Q& q = value.get();
    using bitrep::detail::quat_part;
    return packed_parts(&value, {&quat_part<0>(q), &quat_part<1>(q), &quat_part<2>(q), &quat_part<3>(q)},
                        sizeof(float));
}
template <class Q>
inline constexpr bool float_parts = [] {
    using bitrep::detail::quat_part;
    return std::is_same_v<decltype(quat_part<0>(std::declval<Q&>())), float&> &&
           std::is_same_v<decltype(quat_part<1>(std::declval<Q&>())), float&> &&
           std::is_same_v<decltype(quat_part<2>(std::declval<Q&>())), float&> &&
           std::is_same_v<decltype(quat_part<3>(std::declval<Q&>())), float&>;
}();
template <class Q, int Bits>
inline constexpr std::ptrdiff_t (*proxy_in_place<smallest_three<Q, Bits>>)() noexcept =
    float_parts<Q> ? &quaternion_in_place<Q, Bits> : nullptr;

template <class T>
inline constexpr proxy_access proxy_access_v{proxy_in_place<T>, &proxy_to_write<T>, &proxy_to_read<T>,
                                             &proxy_from_wire<T>};

/// An entity_array is sent as its slots, read where they are; a read then
/// recounts the live entities.
using bitrep::detail::entity_array_access;
template <class T>
void* entity_slots_to_write(const void* array)
{
    return &entity_array_access::slots(*const_cast<T*>(static_cast<const T*>(array)));
}
template <class T>
void* entity_slots_to_read(void* array)
{
    return &entity_array_access::slots(*static_cast<T*>(array));
}
template <class T>
void entity_recount(void* array, const void*)
{
    entity_array_access::recount(*static_cast<T*>(array));
}
template <class T>
inline constexpr proxy_access entity_access_v{nullptr, &entity_slots_to_write<T>, &entity_slots_to_read<T>,
                                              &entity_recount<T>};

template <class T>
bool codec_write(write_stream& stream, const void* value)
{
    return bitrep::serialize(stream, *static_cast<const T*>(value));
}
template <class T>
bool codec_read(read_stream& stream, void* value)
{
    return bitrep::serialize(stream, *static_cast<T*>(value));
}
template <class T>
bool codec_measure(measure_stream& stream, const void* value)
{
    return bitrep::serialize(stream, *static_cast<const T*>(value));
}
template <class T>
inline constexpr codec_access codec_access_v{&codec_write<T>, &codec_read<T>, &codec_measure<T>};

template <class E>
inline constexpr auto enum_values = [] {
    using table = reflect::enumerators<E>;
    std::array<std::uint64_t, table::count> values{};
    for (std::size_t i = 0; i < table::count; ++i)
        values[i] = static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::underlying_type_t<E>>(table::values[i])));
    return values;
}();

template <class E>
inline constexpr auto flag_masks = [] {
    using flags = reflect::flags<E>;
    std::array<std::uint64_t, flags::count> masks{};
    for (std::size_t i = 0; i < flags::count; ++i)
        masks[i] = flags::table.masks[i];
    return masks;
}();

template <class T>
constexpr field_entry make_entry();
} // namespace detail

/// The entry of a field of type T.
template <class T>
inline constexpr field_entry entry_v = detail::make_entry<T>();

template <class T>
struct table_of;

/// The table of a reflected class T.
template <class T>
inline constexpr const type_table& table_v = table_of<T>::table;

namespace detail {
template <class V>
struct variant_table;
template <class... Ts>
struct variant_table<std::variant<Ts...>> {
    using type = std::variant<Ts...>;
    static constexpr std::array<field_entry, sizeof...(Ts)> alternatives{entry_v<Ts>...};
    static constexpr auto held = []<std::size_t... I>(std::index_sequence<I...>) {
        return std::array<void* (*)(void*) noexcept, sizeof...(Ts)>{&variant_held<type, I>...};
    }(std::index_sequence_for<Ts...>{});
    static constexpr auto hold = []<std::size_t... I>(std::index_sequence<I...>) {
        return std::array<void* (*)(void*), sizeof...(Ts)>{&variant_hold<type, I>...};
    }(std::index_sequence_for<Ts...>{});
    static constexpr std::array<std::string_view, sizeof...(Ts)> names{reflect::type_name<Ts>()...};
    static constexpr variant_access access{&variant_index<type>, held.data(), hold.data(), names.data()};
};

template <class Int>
constexpr field_entry integer_entry(kind k)
{
    field_entry e;
    e.kind = k;
    e.width = sizeof(Int);
    e.is_signed = std::is_signed_v<Int>;
    return e;
}

/// A value sent as the wire type whose entry is `wire`.
constexpr field_entry proxy_entry(const field_entry& wire, const proxy_access* access)
{
    field_entry e;
    e.kind = kind::proxy;
    e.element = &wire;
    e.proxy = access;
    e.depth = static_cast<std::uint8_t>(wire.depth + 1);
    e.min_bits = wire.min_bits;
    e.max_bits = wire.max_bits;
    return e;
}

/// A field of type F annotated from outside its class as W: a proxy for W,
/// made from the field to write it and to read into it (the part a stream
/// does not carry keeps the field's), the field then assigned from it; in
/// place where W's object is F's and W's instructions run on it where it lies.
template <class F, class W>
inline thread_local std::optional<W> annotation_wires;

template <class F, class W>
void* annotation_to_write(const void* field)
{
    return &annotation_wires<F, W>.emplace(*static_cast<const F*>(field));
}
template <class F, class W>
void* annotation_to_read(void* field)
{
    return &annotation_wires<F, W>.emplace(*static_cast<F*>(field));
}
template <class F, class W>
void annotation_from_wire(void* field, const void* wire)
{
    *static_cast<F*>(field) = static_cast<F>(*static_cast<W*>(const_cast<void*>(wire)));
}
template <class F, class W>
std::ptrdiff_t annotation_in_place() noexcept
{
    const field_entry& wire = entry_v<W>;
    if (wire.kind != kind::proxy)
        return 0;
    return wire.proxy->in_place != nullptr && wire.proxy->in_place() >= 0 ? 0 : -1;
}
template <class F, class W>
inline constexpr proxy_access annotation_access_v{holds_as<W, F>::value ? &annotation_in_place<F, W> : nullptr,
                                                  &annotation_to_write<F, W>, &annotation_to_read<F, W>,
                                                  &annotation_from_wire<F, W>};

template <class F, class W>
inline constexpr field_entry annotation_entry_v = [] {
    field_entry e = proxy_entry(entry_v<W>, &annotation_access_v<F, W>);
    e.flag = entry_v<W>.flag; // a scope that does not carry W leaves the field out
    return e;
}();

/// How a table reaches the members of a class it walks: reflection's
/// fields, or a std::pair's or std::tuple's members, which are fields named
/// by position (`#0`, `#1`, as the codec names them).
template <class T>
struct members {
    static constexpr std::size_t count = reflect::field_count<T>;
    template <std::size_t I>
    static constexpr const field_entry& entry() noexcept
    {
        if constexpr (reflect::sent_as_other<T, I>)
            return annotation_entry_v<reflect::field_type_at<T, I>, reflect::wire_type_at<T, I>>;
        else
            return entry_v<reflect::wire_type_at<T, I>>;
    }
    template <std::size_t I>
    static constexpr reflect::field_id id() noexcept
    {
        return reflect::field_id_at<T, I>();
    }
    template <std::size_t I>
    static auto& at(T& object) noexcept
    {
        return reflect::field_at<I>(object);
    }
};
template <bitrep::detail::std_tuple T>
struct members<T> {
    static constexpr std::size_t count = std::tuple_size_v<T>;
    template <std::size_t I>
    static constexpr const field_entry& entry() noexcept
    {
        return entry_v<std::tuple_element_t<I, T>>;
    }
    template <std::size_t I>
    static constexpr reflect::field_id id() noexcept
    {
        return {{}, I};
    }
    template <std::size_t I>
    static auto& at(T& object) noexcept
    {
        return std::get<I>(object);
    }
};

template <class T>
constexpr field_entry make_entry()
{
    field_entry e;
    if constexpr (std::is_same_v<T, bool>) {
        e.kind = kind::boolean;
        e.min_bits = e.max_bits = 1;
    } else if constexpr (std::is_integral_v<T>) {
        e = integer_entry<T>(kind::integer);
        e.min_bits = e.max_bits = sizeof(T) * 8;
    } else if constexpr (std::is_same_v<T, float>) {
        e.kind = kind::float32;
        e.min_bits = e.max_bits = 32;
    } else if constexpr (std::is_same_v<T, double>) {
        e.kind = kind::float64;
        e.min_bits = e.max_bits = 64;
    } else if constexpr (std::is_enum_v<T> && reflect::described_enum<T> && !reflect::flag_enum<T>) {
        using table = reflect::enumerators<T>;
        e = integer_entry<std::underlying_type_t<T>>(kind::enumeration);
        e.span = table::count;
        e.values = table::values_are_indices ? nullptr : enum_values<T>.data();
        e.min_bits = e.max_bits = static_cast<std::size_t>(bitrep::detail::enum_index_bits(table::count));
    } else if constexpr (reflect::flag_enum<T>) {
        e = integer_entry<typename reflect::flags<T>::bits_type>(kind::flags);
        e.min = reflect::flags<T>::table.all;
        e.span = reflect::flags<T>::count;
        e.values = flag_masks<T>.data();
        e.min_bits = e.max_bits = reflect::flags<T>::count;
    } else if constexpr (is_ranged<T>::value) {
        using Int = typename T::value_type;
        e = integer_entry<Int>(kind::ranged);
        e.min = static_cast<std::uint64_t>(T::min);
        e.span = static_cast<std::uint64_t>(T::max) - static_cast<std::uint64_t>(T::min);
        e.min_bits = e.max_bits = T::bits;
    } else if constexpr (is_quantized<T>::value) {
        e.kind = kind::quantized;
        e.quantizer = T::quantizer;
        e.low = T::min;
        e.top = T::top;
        e.clamp = T::policy == range_policy::clamp;
        e.min_bits = e.max_bits = static_cast<std::size_t>(T::bits);
    } else if constexpr (is_quat<T>::value) {
        static_assert(std::is_standard_layout_v<T> && sizeof(T) == 4 * sizeof(float));
        e.kind = kind::quat;
        e.quantizer = T::component_quantizer;
        e.low = T::tie_margin;
        e.min_bits = e.max_bits = static_cast<std::size_t>(T::bits);
    } else if constexpr (is_bounded_string<T>::value) {
        static_assert(std::is_standard_layout_v<T> && sizeof(T) == sizeof(std::string));
        e.kind = kind::string;
        e.min = T::max_length;
        e.min_bits = static_cast<std::size_t>(bitrep::detail::string_length_bits(T::max_length));
        e.max_bits = e.min_bits + 7 + T::max_length * 8;
    } else if constexpr (is_bounded_vector<T>::value) {
        using element = typename T::value_type;
        static_assert(std::is_standard_layout_v<T> && sizeof(T) == sizeof(std::vector<element>));
        e.kind = kind::vector;
        e.min = T::max_elements;
        e.element = &entry_v<element>;
        e.stride = sizeof(element);
        e.container = &vector_access<element>;
        e.depth = static_cast<std::uint8_t>(entry_v<element>.depth + 1);
        e.min_bits = static_cast<std::size_t>(bitrep::detail::count_bits(T::max_elements));
        e.max_bits = bitrep::detail::add_bits(e.min_bits,
                                              bitrep::detail::multiply_bits(T::max_elements, entry_v<element>.max_bits));
    } else if constexpr (is_bit_vector<T>::value) {
        static_assert(std::is_standard_layout_v<T> && sizeof(T) == sizeof(std::vector<bool>));
        e.kind = kind::bit_vector;
        e.min = T::max_elements;
        e.bits = &bit_access;
        e.min_bits = static_cast<std::size_t>(bitrep::detail::count_bits(T::max_elements));
        e.max_bits = bitrep::detail::add_bits(e.min_bits, T::max_elements);
    } else if constexpr (is_bitset<T>::value) {
        e.kind = kind::bitset;
        e.min = is_bitset<T>::size;
        e.bitset = &bitset_access_v<is_bitset<T>::size>;
        e.min_bits = e.max_bits = is_bitset<T>::size;
    } else if constexpr (is_std_array<T>::value) {
        using element = typename T::value_type;
        e.kind = kind::array;
        e.min = std::tuple_size_v<T>;
        e.element = &entry_v<element>;
        e.stride = sizeof(element);
        e.depth = static_cast<std::uint8_t>(entry_v<element>.depth + 1);
        e.min_bits = bitrep::detail::multiply_bits(std::tuple_size_v<T>, entry_v<element>.min_bits);
        e.max_bits = bitrep::detail::multiply_bits(std::tuple_size_v<T>, entry_v<element>.max_bits);
    } else if constexpr (is_optional<T>::value) {
        using element = typename T::value_type;
        e.kind = kind::optional;
        e.element = &entry_v<element>;
        e.maybe = &optional_access_v<element>;
        e.depth = static_cast<std::uint8_t>(entry_v<element>.depth + 1);
        e.min_bits = 1;
        e.max_bits = bitrep::detail::add_bits(1, entry_v<element>.max_bits);
    } else if constexpr (is_delta_small<T>::value) {
        // V's encoding (the step only changes deltas), V's object at the
        // same address.
        using V = typename T::annotated_type;
        static_assert(std::is_standard_layout_v<T> && sizeof(T) == sizeof(V));
        e = entry_v<V>;
    } else if constexpr (is_variant<T>::value) {
        using table = variant_table<T>;
        e.kind = kind::variant;
        e.span = table::alternatives.size();
        e.element = table::alternatives.data();
        e.variant = &table::access;
        std::size_t most = 0;
        std::size_t least = unbounded_bits;
        for (const field_entry& alternative : table::alternatives) {
            most = std::max(most, alternative.max_bits);
            least = std::min(least, alternative.min_bits);
            e.depth = std::max(e.depth, static_cast<std::uint8_t>(alternative.depth + 1));
        }
        const auto index_bits = static_cast<std::size_t>(bitrep::detail::enum_index_bits(e.span));
        e.min_bits = bitrep::detail::add_bits(index_bits, least);
        e.max_bits = bitrep::detail::add_bits(index_bits, most);
    } else if constexpr (bitrep::detail::keyed_container<T>) {
        // Stored entries are read where they are, through the layout of the
        // entry a read decodes (a std::pair's key is const only in the map).
        using entry = decoded_entry<T>;
        static_assert(sizeof(entry) == sizeof(typename keyed<T>::entry) &&
                      alignof(entry) == alignof(typename keyed<T>::entry));
        e.kind = kind::map;
        e.min = keyed<T>::max_entries;
        e.element = &entry_v<entry>;
        e.map = &map_access_v<T>;
        e.depth = static_cast<std::uint8_t>(entry_v<entry>.depth + 1);
        e.min_bits = static_cast<std::size_t>(bitrep::detail::count_bits(keyed<T>::max_entries));
        e.max_bits = bitrep::detail::add_bits(
            e.min_bits, bitrep::detail::multiply_bits(keyed<T>::max_entries, entry_v<entry>.max_bits));
    } else if constexpr (is_flagged<T>::value) {
        if constexpr (T::flag == field_flag::transient) {
            e.flag = static_cast<std::uint8_t>(T::flag);
        } else {
            e = entry_v<typename T::value_type>;
            e.flag = static_cast<std::uint8_t>(T::flag);
            if (!bitrep::is_condition(T::flag))
                e.min_bits = 0;
        }
    } else if constexpr (bitrep::detail::proxied<T>) {
        using wire = typename proxy_traits<T>::wire;
        e = proxy_entry(entry_v<wire>, &proxy_access_v<T>);
    } else if constexpr (is_entity_array<T>::value) {
        e = proxy_entry(entry_v<typename T::slots_type>, &entity_access_v<T>);
    } else if constexpr (tabled_class<T>()) {
        e.kind = kind::structure;
        e.nested = &table_v<T>;
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            using m = members<T>;
            ((e.min_bits += m::template entry<I>().min_bits), ...);
            ((e.max_bits = bitrep::detail::add_bits(e.max_bits, m::template entry<I>().max_bits)), ...);
            ((e.depth = std::max(e.depth, m::template entry<I>().depth)), ...);
        }(std::make_index_sequence<members<T>::count>{});
    } else {
        e.kind = kind::codec;
        e.codec = &codec_access_v<T>;
        e.min_bits = codec<T>::min_bits();
        e.max_bits = codec<T>::max_bits();
    }
    return e;
}

template <class T>
void compute_offsets() noexcept;
} // namespace detail

template <class T>
struct table_of {
    using members = detail::members<T>;
    static constexpr std::size_t count = members::count;
    static constexpr auto fields = []<std::size_t... I>(std::index_sequence<I...>) {
        return std::array<field_entry, count>{members::template entry<I>()...};
    }(std::make_index_sequence<count>{});
    static constexpr auto ids = []<std::size_t... I>(std::index_sequence<I...>) {
        return std::array<reflect::field_id, count>{members::template id<I>()...};
    }(std::make_index_sequence<count>{});
    static inline std::atomic<std::uint32_t> offsets[count == 0 ? 1 : count]{};
    static inline std::atomic<bool> ready{false};
    static constexpr type_table table{reflect::type_name<T>(), fields.data(), ids.data(),
                                      static_cast<std::uint32_t>(count), offsets, &ready,
                                      &detail::compute_offsets<T>};
};

namespace detail {
template <class T>
inline std::atomic<const void*> programs[3]{};
} // namespace detail

/// A value of type T as the engine's entry points take it.
template <class T>
inline constexpr root root_v{&entry_v<T>, detail::programs<T>};

namespace detail {
/// Where each field of T lies: taken from an object's storage that is never
/// constructed (only member addresses are formed), once per program.
template <class T>
void compute_offsets() noexcept
{
    alignas(T) unsigned char storage[sizeof(T)];
    T& object = *reinterpret_cast<T*>(storage);
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        (table_of<T>::offsets[I].store(static_cast<std::uint32_t>(
                                           reinterpret_cast<const unsigned char*>(&members<T>::template at<I>(object)) -
                                           storage),
                                       std::memory_order_relaxed),
         ...);
    }(std::make_index_sequence<table_of<T>::count>{});
    table_of<T>::ready.store(true, std::memory_order_release);
}
} // namespace detail

} // namespace bitrep::engine
