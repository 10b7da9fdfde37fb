// Builds the engine's tables from reflection: entry_v<T> for any field type,
// table_v<T> for a reflected class. Everything here is constant data plus a
// few one-line accessors per container type; no serialization code. Which
// kind a type is comes from kind_traits.hpp, what the schema learns of it
// from schema_info.hpp; objects.hpp hands a whole value to the entry points.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <bitrep/annotations/adapted.hpp>
#include <bitrep/detail/portability.hpp>
#include <bitrep/detail/working_object.hpp>
#include <bitrep/engine/access.hpp>
#include <bitrep/engine/kind_traits.hpp>
#include <bitrep/engine/schema_info.hpp>
#include <bitrep/engine/table.hpp>
#include <bitrep/predict.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/renames.hpp>
#include <bitrep/serialize.hpp>

namespace bitrep::engine {

namespace detail {
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

/// to = from, for a T.
template <class T>
void copy_object(void* to, const void* from)
{
    *static_cast<T*>(to) = *static_cast<const T*>(from);
}

/// A new default-made T, and its end: a working object's (objects.hpp), a
/// replication state's.
template <class T>
void* make_object()
{
    return new T();
}
template <class T>
void destroy_object(void* object) noexcept
{
    delete static_cast<T*>(object);
}

/// A default-made T, which a value a save file lacks loads as.
template <class T>
inline const T default_object{};

/// What the library needs to exchange a T's object byte by byte, and its
/// default.
template <class T>
constexpr field_entry with_object(field_entry e)
{
    e.object_size = std::is_empty_v<T> ? 0 : static_cast<std::uint32_t>(sizeof(T));
    e.trivially_copyable = std::is_trivially_copyable_v<T>;
    if constexpr (std::is_default_constructible_v<T>)
        e.defaults = &default_object<T>;
    return e;
}
} // namespace detail

/// The entry of a field of type T.
template <class T>
inline constexpr field_entry entry_v = detail::make_entry<T>();
} // namespace bitrep::engine

namespace bitrep {
/// An upper bound, in bits, of any value of T, following the standard's
/// measure rule (7 bits per alignment); unbounded_bits for a hook type that
/// declares no `static constexpr std::size_t bitrep_max_bits`, and for what
/// holds one.
template <class T>
inline constexpr std::size_t max_bits = engine::entry_v<T>.max_bits;
} // namespace bitrep

namespace bitrep::engine {

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
    static constexpr bool accepted = bitrep::detail::accept_alternatives<Ts...>();
    static constexpr std::array<field_entry, sizeof...(Ts)> alternatives{entry_v<Ts>...};
    static constexpr auto held = []<std::size_t... I>(std::index_sequence<I...>) {
        return std::array<void* (*)(void*) noexcept, sizeof...(Ts)>{&variant_held<type, I>...};
    }(std::index_sequence_for<Ts...>{});
    static constexpr auto hold = []<std::size_t... I>(std::index_sequence<I...>) {
        return std::array<void* (*)(void*), sizeof...(Ts)>{&variant_hold<type, I>...};
    }(std::index_sequence_for<Ts...>{});
    static constexpr std::array<std::string_view, sizeof...(Ts)> names{reflect::type_name<Ts>()...};
    static constexpr variant_access access{&variant_index<type>, held.data(), hold.data(), names.data()};
    static constexpr std::array<std::string_view, sizeof...(Ts)> saved_names{
        bitrep::detail::alternative_name<Ts>()...};
    static constexpr schema_info schema = [] {
        schema_info info;
        info.names = saved_names.data();
        return info;
    }();
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
    e.instructions = 2 + wire.instructions; // in place: the wire's alone
    e.nodes = 1 + wire.nodes;
    e.min_bits = wire.min_bits;
    e.max_bits = wire.max_bits;
    e.slots = wire.slots;
    return e;
}

/// A field annotated from outside its class (F sent as W) is in place where
/// W's object is F's and W's own instructions run on it where it lies.
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
    field_entry e = with_object<F>(proxy_entry(entry_v<W>, &annotation_access_v<F, W>));
    e.flag = entry_v<W>.flag; // a scope that does not carry W leaves the field out
    return e;
}();

/// Whether field I (of type F) of T is one bitrep serializes. When it is
/// not, the refusal names the struct and the field, and the table takes
/// refused_entry for it: F's own entry would refuse F again, without them.
template <class T, std::size_t I, class F>
constexpr bool accepts_field()
{
    if constexpr (by_codec<F>())
        return bitrep::detail::accept_field<T, I>();
    else
        return true;
}
inline constexpr field_entry refused_entry{};

/// How a table reaches the members of a class it walks: reflection's
/// fields, or a std::pair's or std::tuple's members, which are fields named
/// by position (`#0`, `#1`, as the codec names them).
template <class T>
struct members {
    static constexpr std::size_t count = reflect::field_count<T>;
    using types = decltype([]<std::size_t... I>(std::index_sequence<I...>) {
        return boost::mp11::mp_list<reflect::wire_type_at<T, I>...>{};
    }(std::make_index_sequence<count>{}));
    template <std::size_t I>
    static constexpr const field_entry& entry() noexcept
    {
        if constexpr (!accepts_field<T, I, reflect::wire_type_at<T, I>>())
            return refused_entry;
        else if constexpr (reflect::sent_as_other<T, I>)
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
/// The types of an aggregate's fields, read off the type of its tie (no
/// accessor instantiated per field).
template <class Tie>
struct tied_types;
template <template <class...> class Tuple, class... F>
struct tied_types<Tuple<F...>> {
    using type = boost::mp11::mp_list<std::remove_cvref_t<F>...>;
};
template <class T>
using aggregate_field_types = typename tied_types<decltype(reflect::detail::aggregate_tie(std::declval<T&>()))>::type;

/// Field I (of type F) of T: its entry, after the check that names the
/// struct and the field when bitrep refuses F.
template <class T, std::size_t I, class F>
constexpr const field_entry& checked_field_entry() noexcept
{
    if constexpr (accepts_field<T, I, F>())
        return entry_v<F>;
    else
        return refused_entry;
}

/// A plain aggregate (no description, no annotation from outside): every
/// field sent as its own type, named by position.
template <class T>
    requires(reflect::aggregate<T> && !reflect::annotated_outside<T> && !bitrep::detail::std_tuple<T>)
struct members<T> {
    static constexpr std::size_t count = reflect::field_count<T>;
    using types = aggregate_field_types<T>;
    static constexpr auto all_entries()
    {
        return []<class... F, std::size_t... I>(boost::mp11::mp_list<F...>, std::index_sequence<I...>) {
            return std::array<field_entry, count>{checked_field_entry<T, I, F>()...};
        }(aggregate_field_types<T>{}, std::make_index_sequence<count>{});
    }
    static constexpr auto all_ids()
    {
        return []<std::size_t... I>(std::index_sequence<I...>) {
            return std::array<reflect::field_id, count>{reflect::detail::position_id<I>...};
        }(std::make_index_sequence<count>{});
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
    using types = boost::mp11::mp_rename<T, boost::mp11::mp_list>;
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

/// A count of up to `max`, then that many of `element`.
constexpr field_entry counted_entry(kind k, std::uint64_t max, const field_entry& element)
{
    field_entry e;
    e.kind = k;
    e.bounded = {max};
    e.element = &element;
    e.depth = static_cast<std::uint8_t>(element.depth + 1);
    e.instructions = 2 + element.instructions; // the loop's head and end
    e.nodes = 1 + element.nodes;
    e.min_bits = static_cast<std::size_t>(bitrep::detail::count_bits(max));
    e.max_bits = bitrep::detail::add_bits(e.min_bits, bitrep::detail::multiply_bits(max, element.max_bits));
    e.slots = 1 + element.slots;
    return e;
}

/// A variant whose alternatives are accepted (variant_table<T>::accepted).
template <class Table>
constexpr field_entry accepted_variant_entry()
{
    using table = Table;
    field_entry e;
    e.kind = kind::variant;
    e.fixed = {table::alternatives.size()};
    e.element = table::alternatives.data();
    e.variant = &table::access;
    e.schema = &table::schema;
    std::size_t most = 0;
    std::size_t least = unbounded_bits;
    e.instructions = 1; // the index; then per alternative its jump, its body and its end
    e.nodes = 0;
    e.slots = 1; // the index; then each alternative's, one after another
    for (const field_entry& alternative : table::alternatives) {
        e.slots += alternative.slots;
        most = std::max(most, alternative.max_bits);
        least = std::min(least, alternative.min_bits);
        e.depth = std::max(e.depth, static_cast<std::uint8_t>(alternative.depth + 1));
        e.instructions += 2 + alternative.instructions;
        e.nodes += 1 + alternative.nodes;
    }
    const auto index_bits = static_cast<std::size_t>(bitrep::detail::enum_index_bits(e.fixed.count));
    e.min_bits = bitrep::detail::add_bits(index_bits, least);
    e.max_bits = bitrep::detail::add_bits(index_bits, most);
    return e;
}

template <class T>
constexpr field_entry variant_entry()
{
    using table = variant_table<T>;
    if constexpr (!table::accepted)
        return field_entry{}; // refused
    else
        return accepted_variant_entry<table>();
}

/// The value's entry, carried by the streams the flag names.
template <class T>
constexpr field_entry flagged_entry()
{
    field_entry e;
    if constexpr (T::flag != field_flag::transient) {
        e = entry_v<typename T::value_type>;
        if (!bitrep::is_condition(T::flag))
            e.min_bits = 0;
    } else {
        e.instructions = 0;
        e.copy = &copy_object<T>;
    }
    e.flag = static_cast<std::uint8_t>(static_cast<std::uint8_t>(T::flag) + 1);
    return e;
}

template <class T>
constexpr field_entry structure_entry()
{
    field_entry e;
    e.kind = kind::structure;
    e.nested = &table_v<T>;
    e.schema = &structure_info_v<T>;
    e.instructions = 0;
    e.slots = 0;
    for (const field_entry& field : table_of<T>::fields) {
        e.slots += field.slots;
        e.min_bits += field.min_bits;
        e.max_bits = bitrep::detail::add_bits(e.max_bits, field.max_bits);
        e.depth = std::max(e.depth, field.depth);
        e.instructions += field.instructions;
        e.nodes += 1 + field.nodes;
    }
    e.slots = std::max<std::uint32_t>(e.slots, 1);
    return e;
}

template <class T>
constexpr field_entry sequence_entry();
template <class T>
constexpr field_entry composite_entry();

/// bool, integers, floats, enums, flags, ranged, quantized, quat: numbers.
template <class T>
constexpr field_entry number_entry()
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
        e.enumeration = {table::count, table::values_are_indices ? nullptr : enum_values<T>.data()};
        e.schema = &enum_info_v<T>;
        e.min_bits = e.max_bits = static_cast<std::size_t>(bitrep::detail::enum_index_bits(table::count));
    } else if constexpr (reflect::flag_enum<T>) {
        e = integer_entry<typename reflect::flags<T>::bits_type>(kind::flags);
        e.flags = {reflect::flags<T>::table.all, reflect::flags<T>::count, flag_masks<T>.data()};
        e.schema = &flags_info_v<T>;
        e.min_bits = e.max_bits = reflect::flags<T>::count;
    } else if constexpr (is_ranged<T>::value) {
        using Int = typename T::value_type;
        e = integer_entry<Int>(kind::ranged);
        e.ranged = {static_cast<std::uint64_t>(T::min),
                    static_cast<std::uint64_t>(T::max) - static_cast<std::uint64_t>(T::min)};
        e.min_bits = e.max_bits = T::bits;
    } else if constexpr (is_quantized<T>::value) {
        e.kind = kind::quantized;
        e.quantized = codec<T>::params;
        e.schema = &quantized_info_v<T>;
        e.min_bits = e.max_bits = static_cast<std::size_t>(T::bits);
    } else if constexpr (is_quat<T>::value) {
        static_assert(std::is_standard_layout_v<T> && sizeof(T) == 4 * sizeof(float));
        e.kind = kind::quat;
        e.quat = {T::component_quantizer, T::tie_margin};
        e.slots = 2; // the largest axis; the three components
        e.min_bits = e.max_bits = static_cast<std::size_t>(T::bits);
    } else {
        return sequence_entry<T>();
    }
    return e;
}

/// Strings, vectors, arrays, bitsets, optionals: elements in a row.
template <class T>
constexpr field_entry sequence_entry()
{
    field_entry e;
    if constexpr (is_bounded_string<T>::value) {
        static_assert(std::is_standard_layout_v<T> && sizeof(T) == sizeof(std::string));
        e.kind = kind::string;
        e.bounded = {T::max_length};
        e.min_bits = static_cast<std::size_t>(bitrep::detail::string_length_bits(T::max_length));
        e.max_bits = e.min_bits + 7 + T::max_length * 8;
        e.slots = 2; // as a container of chars: its own and its characters' (which nothing uses)
    } else if constexpr (is_bounded_vector<T>::value) {
        using element = typename T::value_type;
        static_assert(std::is_standard_layout_v<T> && sizeof(T) == sizeof(std::vector<element>));
        e = counted_entry(kind::vector, T::max_elements, entry_v<element>);
        e.stride = sizeof(element);
        e.container = &vector_access<element>;
    } else if constexpr (is_bit_vector<T>::value) {
        static_assert(std::is_standard_layout_v<T> && sizeof(T) == sizeof(std::vector<bool>));
        e = counted_entry(kind::bit_vector, T::max_elements, entry_v<typename T::value_type>);
        e.depth = 0; // one instruction, no loop: the elements are bits, read through a bool
        e.instructions = 1;
        e.nodes = 0;
        e.bits = &bit_access;
    } else if constexpr (is_bitset<T>::value) {
        e.kind = kind::bitset;
        e.fixed = {is_bitset<T>::size};
        e.bitset = &bitset_access_v<is_bitset<T>::size>;
        e.min_bits = e.max_bits = is_bitset<T>::size;
    } else if constexpr (is_std_array<T>::value) {
        using element = typename T::value_type;
        e.kind = kind::array;
        e.fixed = {std::tuple_size_v<T>};
        e.element = &entry_v<element>;
        e.stride = sizeof(element);
        e.depth = static_cast<std::uint8_t>(entry_v<element>.depth + 1);
        e.instructions = 2 + entry_v<element>.instructions;
        e.nodes = 1 + entry_v<element>.nodes;
        if (entry_v<element>.instructions == 1 && std::tuple_size_v<T> <= unrolled_array_limit) {
            // Perhaps unrolled (a fixed-width leaf): an instruction and a node per element.
            e.instructions = std::max<std::uint32_t>(e.instructions, std::tuple_size_v<T>);
            e.nodes = std::max<std::uint32_t>(e.nodes, std::tuple_size_v<T>);
        }
        e.min_bits = bitrep::detail::multiply_bits(std::tuple_size_v<T>, entry_v<element>.min_bits);
        e.max_bits = bitrep::detail::multiply_bits(std::tuple_size_v<T>, entry_v<element>.max_bits);
        e.slots = 1 + entry_v<element>.slots;
    } else if constexpr (is_optional<T>::value) {
        using element = typename T::value_type;
        e.kind = kind::optional;
        e.element = &entry_v<element>;
        e.maybe = &optional_access_v<element>;
        e.depth = static_cast<std::uint8_t>(entry_v<element>.depth + 1);
        e.instructions = 2 + entry_v<element>.instructions;
        e.nodes = 1 + entry_v<element>.nodes;
        e.min_bits = 1;
        e.max_bits = bitrep::detail::add_bits(1, entry_v<element>.max_bits);
        e.slots = 1 + entry_v<element>.slots;
    } else {
        return composite_entry<T>();
    }
    return e;
}

/// Variants, maps, flagged fields, proxies, classes; anything else (a class
/// with a serialization hook) through its compiled codec.
template <class T>
constexpr field_entry composite_entry()
{
    if constexpr (is_variant<T>::value) {
        return variant_entry<T>();
    } else if constexpr (bitrep::detail::keyed_container<T>) {
        // Stored entries are read where they are, through the layout of the
        // entry a read decodes (a std::pair's key is const only in the map).
        using entry = decoded_entry<T>;
        static_assert(sizeof(entry) == sizeof(typename keyed<T>::entry) &&
                      alignof(entry) == alignof(typename keyed<T>::entry));
        field_entry e = counted_entry(kind::map, keyed<T>::max_entries, entry_v<entry>);
        e.map = &map_access_v<T>;
        e.copy = &copy_object<T>;
        return e;
    } else if constexpr (is_delta_small<T>::value) {
        // V's encoding (the step only changes deltas), V's object at the
        // same address.
        using V = typename T::annotated_type;
        static_assert(std::is_standard_layout_v<T> && sizeof(T) == sizeof(V));
        field_entry e = entry_v<V>;
        e.rule = field_entry::delta_rule::small_step;
        e.delta_limit = is_delta_small<T>::step;
        return e;
    } else if constexpr (is_flagged<T>::value) {
        return flagged_entry<T>();
    } else if constexpr (bitrep::detail::proxied<T>) {
        field_entry e = proxy_entry(entry_v<typename proxy_traits<T>::wire>, &proxy_access_v<T>);
        if constexpr (proxy_describes_itself<T>())
            e.schema = &proxy_info_v<T>;
        return e;
    } else if constexpr (is_entity_array<T>::value) {
        return proxy_entry(entry_v<typename T::slots_type>, &entity_access_v<T>);
    } else if constexpr (is_quat_code<T>::value) {
        field_entry e = structure_entry<T>();
        e.rule = field_entry::delta_rule::smallest_three_code;
        e.delta_limit = T::max;
        e.slots = 2; // the largest axis; the three components
        return e;
    } else if constexpr (tabled_class<T>()) {
        return structure_entry<T>();
    } else {
        field_entry e;
        e.kind = kind::codec;
        e.codec = &codec_access_v<T>;
        e.copy = &copy_object<T>;
        e.schema = &hook_info_v<T>;
        e.min_bits = codec<T>::min_bits();
        e.max_bits = codec<T>::max_bits();
        return e;
    }
}

template <class T>
constexpr field_entry make_entry()
{
    return with_object<T>(number_entry<T>());
}

template <class T>
void compute_offsets() noexcept;

/// Whether T's fields are all its members: not a described class whose
/// description may leave some out (members it does not list are never read,
/// so an all-or-nothing read must start from a copy).
template <class T>
constexpr bool lists_every_member()
{
    if constexpr (reflect::described<T>)
        return bitrep::detail::described_completely<T>();
    else
        return true;
}
} // namespace detail

namespace detail {
template <class M>
constexpr auto entries_of()
{
    if constexpr (requires { M::all_entries(); })
        return M::all_entries();
    else
        return []<std::size_t... I>(std::index_sequence<I...>) {
            return std::array<field_entry, M::count>{M::template entry<I>()...};
        }(std::make_index_sequence<M::count>{});
}
template <class M>
constexpr auto ids_of()
{
    if constexpr (requires { M::all_ids(); })
        return M::all_ids();
    else
        return []<std::size_t... I>(std::index_sequence<I...>) {
            return std::array<reflect::field_id, M::count>{M::template id<I>()...};
        }(std::make_index_sequence<M::count>{});
}

/// type_table::predict for a T that predicts.
template <class T>
bool predict_call(const void* older, const void* base, const delta_ticks& ticks, void* context,
                  bool (*next)(void* context, const void* predicted))
{
    const T& b = *static_cast<const T*>(base);
    const bool none = older == base;
    const history<T> h{none ? b : *static_cast<const T*>(older), b, none ? 0u : ticks.older_to_baseline};
    const T predicted = bitrep::detail::predicted(h, ticks.baseline_to_value);
    return next(context, &predicted);
}
template <class T>
constexpr auto predict_of() noexcept
{
    using call = bool (*)(const void*, const void*, const delta_ticks&, void*, bool (*)(void*, const void*));
    if constexpr (predicts<T>)
        return static_cast<call>(&predict_call<T>);
    else
        return static_cast<call>(nullptr);
}

/// Each field's first coded model slot (type_table::slot_offsets): the
/// slots of the fields before the first field of its type.
template <class Types, std::size_t N>
constexpr std::array<std::uint32_t, N> slot_offsets_of(const std::array<field_entry, N>& fields)
{
    std::array<std::uint32_t, N> offsets{};
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        ((offsets[I] = [&] {
             std::uint32_t before = 0;
             for (std::size_t k = 0; k < boost::mp11::mp_find<Types, boost::mp11::mp_at_c<Types, I>>::value; ++k)
                 before += fields[k].slots;
             return before;
         }()),
         ...);
    }(std::make_index_sequence<N>{});
    return offsets;
}
} // namespace detail

template <class T>
struct table_of {
    using members = detail::members<T>;
    static constexpr std::size_t count = members::count;
    static constexpr auto fields = detail::entries_of<members>();
    static constexpr auto ids = detail::ids_of<members>();
    static constexpr auto slot_offsets = detail::slot_offsets_of<typename members::types>(fields);
    static inline std::atomic<std::uint32_t> offsets[count == 0 ? 1 : count]{};
    static inline std::atomic<bool> ready{false};
    static constexpr type_table table{reflect::type_name<T>(), fields.data(), ids.data(),
                                      static_cast<std::uint32_t>(count), offsets, &ready,
                                      &detail::compute_offsets<T>, detail::lists_every_member<T>(),
                                      slot_offsets.data(), detail::predict_of<T>()};
};

namespace detail {
/// Static room for T's programs, one per scope (zero-filled: no space in
/// the binary, and no allocation when the first call compiles them).
template <class T>
struct program_storage {
    static constexpr std::uint32_t instructions = entry_v<T>.instructions + 1; // and `done`
    static constexpr std::uint32_t nodes = entry_v<T>.nodes == 0 ? 1 : entry_v<T>.nodes;
    alignas(16) static inline unsigned char code[3][instructions * instruction_bytes]{};
    alignas(16) static inline unsigned char node_room[3][nodes * path_node_bytes]{};
    static inline std::atomic<std::uint8_t> state[3]{};
    static constexpr program_room rooms[3] = {
        {code[0], instructions, node_room[0], nodes, &state[0]},
        {code[1], instructions, node_room[1], nodes, &state[1]},
        {code[2], instructions, node_room[2], nodes, &state[2]},
    };
};
} // namespace detail

namespace detail {
/// T's entry, whose containers, alternatives and proxies nest no deeper
/// than the engine's loop stack.
template <class T>
constexpr const field_entry* checked_entry() noexcept
{
    static_assert(entry_v<T>.depth <= max_depth,
                  "bitrep: containers, variants and proxies nested deeper than the engine runs (engine::max_depth)");
    return &entry_v<T>;
}
} // namespace detail

/// A value of type T as the engine's entry points take it.
template <class T>
inline constexpr root root_v{detail::checked_entry<T>(), detail::program_storage<T>::rooms};

namespace detail {
/// The addresses of object's fields, in table order, all at once: one tie
/// (or one pass over a description's member pointers) per type, so that a
/// type's offsets instantiate one function rather than an accessor chain per
/// field.
template <class T>
BITREP_FORCE_INLINE void field_addresses(T& object, const void** out) noexcept
{
    if constexpr (reflect::described<T> && !bitrep::detail::std_tuple<T>) {
        using bases = reflect::detail::bases_of<T>;
        constexpr std::size_t base_count = boost::mp11::mp_size<bases>::value;
        [&]<class... B>(boost::mp11::mp_list<B...>) {
            std::size_t i = 0;
            ((out[i++] = &static_cast<typename B::type&>(object)), ...);
        }(bases{});
        [&]<class... M>(boost::mp11::mp_list<M...>) {
            std::size_t i = base_count;
            ((out[i++] = &(object.*M::pointer)), ...);
        }(reflect::detail::members_of<T>{});
#if BITREP_COUNT_AGGREGATE_FIELDS
    } else if constexpr (reflect::aggregate<T> && !bitrep::detail::std_tuple<T>) {
        namespace tied = boost::pfr::detail::sequence_tuple;
        auto fields = reflect::detail::aggregate_tie(object);
        [&]<std::size_t... I, class... F>(tied::tuple_base<std::index_sequence<I...>, F...>& tie) {
            ((out[I] = &static_cast<tied::base_from_member<I, F>&>(tie).value), ...);
        }(fields);
#endif
    } else {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            ((out[I] = &members<T>::template at<I>(object)), ...);
        }(std::make_index_sequence<members<T>::count>{});
    }
}

/// Where each field of T lies: taken from an object's storage that is never
/// constructed (only member addresses are formed), once per program.
template <class T>
void compute_offsets() noexcept
{
    alignas(T) unsigned char storage[sizeof(T)];
    constexpr std::size_t count = table_of<T>::count;
    const void* addresses[count == 0 ? 1 : count];
    field_addresses(*reinterpret_cast<T*>(storage), addresses);
    for (std::size_t i = 0; i < count; ++i)
        table_of<T>::offsets[i].store(
            static_cast<std::uint32_t>(static_cast<const unsigned char*>(addresses[i]) - storage),
            std::memory_order_relaxed);
    table_of<T>::ready.store(true, std::memory_order_release);
}
} // namespace detail

} // namespace bitrep::engine
