// The top-level fields of a replicated State, split into entity arrays
// (replicated per slot, with priority and relevancy) and the rest (always
// brought to the current tick).
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include <bitrep/annotations/entity_array.hpp>
#include <bitrep/detail/portability.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/serialize.hpp>

namespace bitrep::replication {

/// The entity type named where a field is no entity array (a refused
/// per-entity callback's), so that nothing else fails.
struct not_an_entity {};

template <class T>
struct entity_array_traits : std::false_type {
    using entity = not_an_entity;
};
template <class T, std::size_t N>
struct entity_array_traits<entity_array<T, N>> : std::true_type {
    using entity = T;
    static constexpr std::size_t capacity = N;
};

/// A State replication walks field by field: a described class or an
/// aggregate.
template <class State>
concept walked_state = requires { requires codec<State>::walks_fields; };

/// Never true: the refusal of a State replication cannot walk, with the
/// State in the condition.
template <class State>
inline constexpr bool replicable_state = false;

/// Whether State is a class replication walks field by field. When it is
/// not, the refusal, and false: the server and client then compile nothing
/// more of the State, which would only fail again.
template <class State>
constexpr bool require_reflected_state()
{
    if constexpr (walked_state<State>) {
        return true;
    } else {
        static_assert(replicable_state<State>,
                      "bitrep replication: the State must be a described class or an aggregate (its top-level "
                      "entity_array fields are replicated per entity). A class with private members: put "
                      "BOOST_DESCRIBE_CLASS(State, (bases), (public members), (protected members), (private "
                      "members)) inside it.");
        return false;
    }
}

/// Calls visit(std::integral_constant<std::size_t, I>{}) for each top-level
/// field of State.
template <class State, class Visit>
BITREP_ALWAYS_INLINE void for_each_field_index(Visit&& visit)
{
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        (visit(std::integral_constant<std::size_t, I>{}), ...);
    }(std::make_index_sequence<reflect::field_count<State>>{});
}

/// What a pointer to a data member points into and at (void for anything
/// else).
template <class Pointer>
struct member_pointer_traits : std::false_type {
    using class_type = void;
    using member_type = void;
};
template <class Class, class Member>
struct member_pointer_traits<Member Class::*> : std::true_type {
    using class_type = Class;
    using member_type = Member;
};

// Never true: the conditions of the refusals of a per-entity callback,
// which the compiler prints with the field or the signatures.
template <auto Member>
inline constexpr bool state_field = false;
template <auto Member>
inline constexpr bool entity_array_field = false;
template <class F, class Signature>
inline constexpr bool callable_as = false;
template <class F, class R, class... A>
inline constexpr bool callable_as<F, R(A...)> = std::is_invocable_r_v<R, F&, A...>;

/// The index among State's reflected top-level fields of the one `member`
/// names, found by address in `state` (any State object).
template <class State, class Member>
std::size_t field_index_of(const State& state, Member State::*member) noexcept
{
    const void* target = &(state.*member);
    std::size_t found = reflect::field_count<State>;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        ((found = static_cast<const void*>(&reflect::field_at<I>(state)) == target ? I : found), ...);
    }(std::make_index_sequence<reflect::field_count<State>>{});
    return found;
}

template <class State, std::size_t I>
inline constexpr bool is_entity_field = entity_array_traits<reflect::field_type_at<State, I>>::value;

/// The entity slots of a field: its capacity for an entity array, else 0.
template <class Field>
inline constexpr std::size_t entity_slots_of = [] {
    if constexpr (entity_array_traits<Field>::value)
        return entity_array_traits<Field>::capacity;
    else
        return std::size_t{0};
}();

/// The entity slots of State's first `Count` fields (all of them by default):
/// where field Count's slots start when the slots are numbered in a row.
template <class State, std::size_t Count = reflect::field_count<State>>
inline constexpr std::size_t entity_slots_before = []<std::size_t... I>(std::index_sequence<I...>) {
    return (std::size_t{0} + ... + entity_slots_of<reflect::field_type_at<State, I>>);
}(std::make_index_sequence<Count>{});

} // namespace bitrep::replication
