// Which of the engine's kinds a type is: one trait per annotation and
// standard container that make_entry (entries.hpp) gives a kind of its own,
// and whether a class is walked field by field or goes through its compiled
// codec.
#pragma once

#include <array>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <variant>

#include <bitrep/annotations/bounded_string.hpp>
#include <bitrep/annotations/bounded_vector.hpp>
#include <bitrep/annotations/delta_small.hpp>
#include <bitrep/annotations/entity_array.hpp>
#include <bitrep/annotations/field_flags.hpp>
#include <bitrep/annotations/quantized.hpp>
#include <bitrep/annotations/quat.hpp>
#include <bitrep/annotations/ranged.hpp>
#include <bitrep/quat_code.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/serialize.hpp>

namespace bitrep::engine::detail {
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
struct is_delta_small<delta_small<V, MaxStep>> : std::true_type {
    static constexpr std::uint32_t step = MaxStep;
};
template <class T>
struct is_quat_code : std::false_type {};
template <int Bits>
struct is_quat_code<quat_code<Bits>> : std::true_type {};
template <class T>
struct is_entity_array : std::false_type {};
template <class T, std::size_t N>
struct is_entity_array<entity_array<T, N>> : std::true_type {};
template <class T>
struct is_flagged : std::false_type {};
template <class T, field_flag Flag>
struct is_flagged<flagged<T, Flag>> : std::true_type {};

/// Classes the tables walk field by field: reflected, no hook (a field
/// annotated from outside its class is a proxy for its annotation). Asked
/// of the route, not of codec<T>, whose instantiation checks every field's
/// codec; the entry dispatch has taken every annotation by then.
template <class T>
constexpr bool walked_class()
{
    if constexpr (std::is_class_v<T>)
        return bitrep::detail::route_for<T>() == bitrep::detail::class_route::reflected;
    else
        return false;
}

/// The classes the tables describe member by member.
template <class T>
constexpr bool tabled_class()
{
    return walked_class<T>() || bitrep::detail::std_tuple<T>;
}

/// The annotations and standard types make_entry gives a kind of their own
/// (one class to match per type, where a trait per kind instantiated one
/// class each).
template <class T>
struct own_kind : std::false_type {};
template <class Int, Int Min, Int Max>
struct own_kind<ranged<Int, Min, Max>> : std::true_type {};
template <float_constant Min, float_constant Max, float_constant Resolution, range_policy Policy>
struct own_kind<quantized<Min, Max, Resolution, Policy>> : std::true_type {};
template <int Bits>
struct own_kind<quat<Bits>> : std::true_type {};
template <std::size_t N>
struct own_kind<bounded_string<N>> : std::true_type {};
template <class T, std::size_t N>
struct own_kind<bounded_vector<T, N>> : std::true_type {};
template <std::size_t N>
struct own_kind<std::bitset<N>> : std::true_type {};
template <class T, std::size_t N>
struct own_kind<std::array<T, N>> : std::true_type {};
template <class T>
struct own_kind<std::optional<T>> : std::true_type {};
template <class... Ts>
struct own_kind<std::variant<Ts...>> : std::true_type {};
template <class V, std::uint32_t MaxStep>
struct own_kind<delta_small<V, MaxStep>> : std::true_type {};
template <class T, field_flag Flag>
struct own_kind<flagged<T, Flag>> : std::true_type {};
template <class T, std::size_t N>
struct own_kind<entity_array<T, N>> : std::true_type {};

/// Whether T's entry is its compiled codec (a class with a hook, or a type
/// bitrep refuses): none of the kinds make_entry tells apart.
template <class T>
constexpr bool by_codec()
{
    if constexpr (std::is_arithmetic_v<T> || own_kind<T>::value || bitrep::detail::keyed_container<T> ||
                  bitrep::detail::proxied<T>)
        return false;
    else if constexpr (std::is_enum_v<T>)
        return !reflect::described_enum<T>;
    else
        return !tabled_class<T>();
}

} // namespace bitrep::engine::detail
