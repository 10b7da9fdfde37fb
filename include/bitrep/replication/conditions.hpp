// Replication conditions (owner_only, skip_owner, initial_only on the
// members of an entity type): what a client's view of an entity holds for
// each (docs/design/replication-server.md, "Replication conditions").
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include <bitrep/annotations/field_flags.hpp>
#include <bitrep/codec.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/serialize.hpp>

namespace bitrep::replication {

template <class T>
struct condition_of {
    static constexpr bool conditioned = false;
};
template <class T, field_flag Flag>
struct condition_of<flagged<T, Flag>> {
    static constexpr bool conditioned = is_condition(Flag);
    static constexpr field_flag flag = Flag;
};

/// Whether T's codec walks its fields (a reflected class).
template <class T>
constexpr bool walks_fields() noexcept
{
    if constexpr (std::is_class_v<T> && requires { codec<T>::walks_fields; })
        return codec<T>::walks_fields;
    else
        return false;
}

template <class T>
constexpr bool contains_condition();

template <class T, std::size_t... I>
constexpr bool any_field_contains_condition(std::index_sequence<I...>)
{
    return (contains_condition<reflect::field_type_at<T, I>>() || ...);
}

/// Whether T holds a replication condition anywhere inside it.
template <class T>
constexpr bool contains_condition()
{
    if constexpr (condition_of<T>::conditioned) {
        return true;
    } else if constexpr (requires { T::flag; typename T::value_type; }) {
        return contains_condition<typename T::value_type>(); // save_only<T> and the like
    } else if constexpr (requires { typename T::slots_type; }) {
        return contains_condition<typename T::slots_type>(); // entity_array
    } else if constexpr (requires { typename T::value_type; }) {
        if constexpr (std::is_class_v<typename T::value_type>)
            return contains_condition<typename T::value_type>(); // vectors, arrays, optionals
        else
            return false; // strings, vectors of scalars
    } else if constexpr (walks_fields<T>()) {
        return any_field_contains_condition<T>(std::make_index_sequence<reflect::field_count<T>>{});
    } else {
        return false;
    }
}

/// Whether a member of an entity keeps its conditions to itself: one on the
/// member is honoured, any inside it would not be.
template <class Member>
constexpr bool member_conditions_honoured()
{
    if constexpr (condition_of<Member>::conditioned)
        return !contains_condition<typename Member::value_type>();
    else
        return !contains_condition<Member>();
}

template <class Entity, std::size_t... M>
constexpr bool entity_conditions_honoured(std::index_sequence<M...>)
{
    return (member_conditions_honoured<reflect::field_type_at<Entity, M>>() && ...);
}

template <class Field>
constexpr bool field_conditions_honoured()
{
    if constexpr (requires { typename Field::slots_type; typename Field::value_type; }) {
        using entity = typename Field::value_type;
        if constexpr (walks_fields<entity>())
            return entity_conditions_honoured<entity>(std::make_index_sequence<reflect::field_count<entity>>{});
        else
            return !contains_condition<entity>();
    } else {
        return !contains_condition<Field>();
    }
}

/// Never true: the refusal of a condition outside the members of the
/// State's entities, with the top-level field that holds it.
template <class Field>
inline constexpr bool conditions_on_entity_members_only = false;

/// Whether top-level field I of State holds replication conditions only on
/// members of its entities; when not, the refusal, naming the field.
template <class State, std::size_t I>
constexpr bool accept_field_conditions()
{
    if constexpr (field_conditions_honoured<reflect::field_type_at<State, I>>()) {
        return true;
    } else {
        static_assert(conditions_on_entity_members_only<reflect::field_label<State, I>>,
                      "bitrep: owner_only, skip_owner and initial_only apply to the members of the State's entities "
                      "(entity_array elements) only; anywhere else every client would receive the field (the "
                      "condition names the State's field that holds one elsewhere)");
        return false;
    }
}

/// A replication condition is honoured on the members of the State's
/// entities only: anywhere else (a top-level field, a struct inside an
/// entity) it would be sent to every client, so it is refused.
template <class State>
constexpr bool conditions_only_on_entity_members()
{
    return []<std::size_t... I>(std::index_sequence<I...>) {
        return (accept_field_conditions<State, I>() && ...);
    }(std::make_index_sequence<reflect::field_count<State>>{});
}

/// Whether some member of Entity (its own, not nested ones) carries a
/// replication condition.
template <class Entity>
inline constexpr bool has_conditions = [] {
    if constexpr (walks_fields<Entity>())
        return []<std::size_t... I>(std::index_sequence<I...>) {
            return (condition_of<reflect::field_type_at<Entity, I>>::conditioned || ...);
        }(std::make_index_sequence<reflect::field_count<Entity>>{});
    else
        return false;
}();

/// Turns `view`, a copy of the current entity, into what a client may have
/// of it: an owner_only member keeps its value only for the owner, a
/// skip_owner one for everyone else (the others see `defaults`' value: a
/// default-constructed Entity's), and an initial_only one takes the value
/// the client already has (`known`, when the client has the entity).
template <class Entity>
void apply_conditions(Entity& view, const Entity* known, bool is_owner, const Entity& defaults)
{
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        (
            [&] {
                using field = reflect::field_type_at<Entity, I>;
                if constexpr (condition_of<field>::conditioned) {
                    constexpr field_flag flag = condition_of<field>::flag;
                    auto& target = reflect::field_at<I>(view);
                    if constexpr (flag == field_flag::owner_only) {
                        if (!is_owner)
                            target = reflect::field_at<I>(defaults);
                    } else if constexpr (flag == field_flag::skip_owner) {
                        if (is_owner)
                            target = reflect::field_at<I>(defaults);
                    } else if (known != nullptr) {
                        target = reflect::field_at<I>(*known);
                    }
                }
            }(),
            ...);
    }(std::make_index_sequence<reflect::field_count<Entity>>{});
}

} // namespace bitrep::replication
