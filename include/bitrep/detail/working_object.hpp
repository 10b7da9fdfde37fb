// What an all-or-nothing read decodes into before it replaces the
// destination: a copy of it when the stream leaves some of T's fields out
// (they must keep their values), else a new T, whose old contents need no
// copying since the read writes every field. from_bytes, decoder and save
// loads share it, each with its stream's scope.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include <boost/mp11/list.hpp>

#include <bitrep/annotations.hpp>
#include <bitrep/codecs/classes.hpp>
#include <bitrep/codecs/field_flags.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep::detail {

/// Whether a stream of `Scope` writes every field of T when it reads one:
/// no field it does not carry (transient anywhere; net_only in saves,
/// save_only on the network) and no serialization hook, which may skip some.
/// A described class whose description lists all its members: an
/// aggregate with no bases and as many fields as described. Members left
/// out of a description are never read, so they must come from a copy.
template <class T>
constexpr bool described_completely()
{
    if constexpr (std::is_aggregate_v<T> && boost::mp11::mp_empty<reflect::detail::bases_of<T>>::value)
        return reflect::detail::aggregate_size<T> == reflect::field_count<T>;
    else
        return false;
}

template <class T, scope Scope>
struct every_field_carried {
    static constexpr bool value = [] {
        if constexpr (!std::is_class_v<T>) {
            return true;
        } else {
            constexpr class_route route = route_for<T>();
            if constexpr (route == class_route::reflected) {
                if constexpr (reflect::described<T>) {
                    if constexpr (!described_completely<T>())
                        return false;
                }
                return []<std::size_t... I>(std::index_sequence<I...>) {
                    return (every_field_carried<reflect::wire_type_at<T, I>, Scope>::value && ...);
                }(std::make_index_sequence<reflect::field_count<T>>{});
            } else {
                return route != class_route::member_hook && route != class_route::free_hook; // else an annotation
            }
        }
    }();
};
template <class T, field_flag Flag, scope Scope>
struct every_field_carried<flagged<T, Flag>, Scope> {
    static constexpr bool value = flag_carried(Flag, Scope) && every_field_carried<T, Scope>::value;
};
template <class T, std::size_t N, scope Scope>
struct every_field_carried<bounded_vector<T, N>, Scope> : every_field_carried<T, Scope> {};
template <class T, std::size_t N, scope Scope>
struct every_field_carried<std::array<T, N>, Scope> : every_field_carried<T, Scope> {};
template <class T, scope Scope>
struct every_field_carried<std::optional<T>, Scope> : every_field_carried<T, Scope> {};
template <class T, std::size_t N, scope Scope>
struct every_field_carried<entity_array<T, N>, Scope> : every_field_carried<T, Scope> {};
template <class... Ts, scope Scope>
struct every_field_carried<std::variant<Ts...>, Scope> {
    static constexpr bool value = (every_field_carried<Ts, Scope>::value && ...);
};
template <class... Ts, scope Scope>
struct every_field_carried<std::tuple<Ts...>, Scope> {
    static constexpr bool value = (every_field_carried<Ts, Scope>::value && ...);
};
template <class A, class B, scope Scope>
struct every_field_carried<std::pair<A, B>, Scope> {
    static constexpr bool value = every_field_carried<A, Scope>::value && every_field_carried<B, Scope>::value;
};

/// A read of Scope may decode into a T holding anything (a new one, or a
/// working object kept from an earlier message) instead of a copy of the
/// destination.
template <class T, scope Scope>
inline constexpr bool reads_every_field = every_field_carried<T, Scope>::value && std::is_default_constructible_v<T>;

/// The object an all-or-nothing read of Scope decodes into.
template <scope Scope, class T>
T working_object(const T& destination)
{
    if constexpr (reads_every_field<T, Scope>) {
        static_cast<void>(destination);
        return T{};
    } else {
        return T(destination);
    }
}

} // namespace bitrep::detail
