// The top-level fields of a replicated State, split into entity arrays
// (replicated per slot, with priority and relevancy) and the rest (always
// brought to the current tick).
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include <bitrep/annotations/entity_array.hpp>
#include <bitrep/detail/inline.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/serialize.hpp>

namespace bitrep::replication {

template <class T>
struct entity_array_traits : std::false_type {};
template <class T, std::size_t N>
struct entity_array_traits<entity_array<T, N>> : std::true_type {
    using entity = T;
    static constexpr std::size_t capacity = N;
};

template <class State>
void require_reflected_state()
{
    static_assert(std::is_class_v<State> && codec<State>::walks_fields,
                  "bitrep replication: the State must be a described class or an aggregate (its top-level "
                  "entity_array fields are replicated per entity)");
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

/// What a pointer to a data member points into and at.
template <class Pointer>
struct member_pointer_traits : std::false_type {};
template <class Class, class Member>
struct member_pointer_traits<Member Class::*> : std::true_type {
    using class_type = Class;
    using member_type = Member;
};

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
