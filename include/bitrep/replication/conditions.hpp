// Replication conditions (owner_only, skip_owner, initial_only on the
// members of an entity type): what a client's view of an entity holds for
// each (docs/replication.md, section 10.5).
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

/// Whether some member of Entity (its own, not nested ones) carries a
/// replication condition.
template <class Entity>
inline constexpr bool has_conditions = [] {
    if constexpr (std::is_class_v<Entity> && codec<Entity>::walks_fields)
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
