// Where a value holds its wire type's object as it is, so that the wire
// type's instructions run on it where it lies, with nothing to convert: a
// duration's count, a glm::vec3's floats, a plain float annotated from
// outside as quantized.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <bitrep/annotations/adapted.hpp>
#include <bitrep/annotations/bounded_string.hpp>
#include <bitrep/annotations/bounded_vector.hpp>
#include <bitrep/annotations/delta_small.hpp>
#include <bitrep/annotations/duration.hpp>
#include <bitrep/annotations/field_flags.hpp>
#include <bitrep/annotations/quantized.hpp>
#include <bitrep/annotations/ranged.hpp>

namespace bitrep::engine::detail {

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

} // namespace bitrep::engine::detail
