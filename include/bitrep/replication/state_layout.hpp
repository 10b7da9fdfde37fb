// A replicated State as the replication code compiled in the library sees
// it: data, not code. Its shared entity arrays (where they lie, how many
// slots, and a few operations on a slot's std::optional<Entity> through
// function pointers), built once per State from reflection.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include <bitrep/engine/delta.hpp>
#include <bitrep/engine/entries.hpp>
#include <bitrep/replication/conditions.hpp>
#include <bitrep/replication/state_fields.hpp>

namespace bitrep::replication {

/// Whether top-level field I of State is an entity array whose views hold
/// value_refs: one whose entity has no replication conditions (a
/// conditioned entity's copy differs per client, so views keep it).
template <class State, std::size_t I>
inline constexpr bool is_shared_field = [] {
    if constexpr (is_entity_field<State, I>)
        return !has_conditions<typename entity_array_traits<reflect::field_type_at<State, I>>::entity>;
    else
        return false;
}();

/// What the history does with one entity type's slots
/// (std::optional<Entity>), and with the list of them it keeps for the
/// changes in its window (a std::vector<std::optional<Entity>> behind a
/// void*, used as an arena).
struct slot_ops {
    /// The slot's entry, for the engine's comparisons and deltas.
    const engine::field_entry* entry = nullptr;
    std::uint32_t stride = 0;         ///< sizeof(std::optional<Entity>)
    /// The first slot in [from, end) whose bytes differ between the slot
    /// arrays `a` and `b` (end when none does): every one of them for a type
    /// that is not trivially copyable, which only a comparison on the wire
    /// can tell equal.
    std::size_t (*next_differing)(const void* a, const void* b, std::size_t from, std::size_t end) noexcept = nullptr;
    bool (*has_value)(const void* slot) noexcept = nullptr;
    /// The entity a slot holds (it must hold one).
    const void* (*entity)(const void* slot) noexcept = nullptr;
    /// The most bits the delta of a changed slot takes after its changed bit.
    std::size_t max_changed_bits = 0;
    /// The entity's priority when no callback says otherwise: its type's
    /// `static constexpr float replication_priority`, else 1.
    float constant_priority = 1.0f;
    /// Sets slot `id` of the entity_array `array` to `slot`'s value, keeping
    /// the array's count of live entities.
    void (*assign)(void* array, std::size_t id, const void* slot) = nullptr;
    void* (*make_list)() = nullptr;
    void (*destroy_list)(void* list) noexcept = nullptr;
    /// Makes the list hold `size` values (empty ones past those it held);
    /// returns its first value (which may have moved).
    void* (*resize_list)(void* list, std::size_t size) = nullptr;
    /// Copies `slot` into values[at], `values` a list's first value.
    void (*put)(void* values, std::size_t at, const void* slot) = nullptr;
    /// Moves `count` values from `from` to `to`, first to last: the ranges
    /// are apart, or `to` comes first.
    void (*move_values)(void* to, void* from, std::size_t count) = nullptr;
    std::size_t (*list_bytes)(const void* list) noexcept = nullptr;
    /// For an entity with replication conditions (else nullptr): sets the
    /// slot `view` to the entity `slot` holds, with its conditioned members
    /// as a client may have them (replication::apply_conditions): `had`, the
    /// entity the client may hold (nullptr: none), and whether it owns it.
    void (*apply_conditions)(void* view, const void* slot, const void* had, bool owned) = nullptr;
};

/// One entity array of the State. A shared one's entity has no replication
/// conditions, so that every client's view of a slot is a value_ref into
/// the history; a conditioned one's view is the client's own copy.
struct entity_array_layout {
    std::uint16_t field = 0;       ///< its index among the State's top-level fields
    std::uint32_t first_slot = 0;  ///< its slots' numbers start here, counted over every entity array
    std::uint32_t capacity = 0;
    std::size_t array_at = 0;      ///< the entity_array's offset in the State
    std::size_t slots_at = 0;      ///< its slot 0's offset in the State
    const slot_ops* ops = nullptr;
    bool shared = false;
    std::uint16_t shared_index = 0; ///< a shared array's place among the shared ones
    /// bits_required_for_span(capacity - 1): what a delta's list of changed
    /// slots spends on their count.
    std::uint8_t count_bits = 0;
    std::uint16_t kept_index = 0; ///< a conditioned array's place among the kept fields

    const void* slot(const void* state, std::size_t id) const noexcept
    {
        return static_cast<const unsigned char*>(state) + slots_at + id * ops->stride;
    }
    /// Slot `id` of an object of the entity_array's own type.
    void* slot_in_array(void* array_object, std::size_t id) const noexcept
    {
        return static_cast<unsigned char*>(array_object) + (slots_at - array_at) + id * ops->stride;
    }
    const void* slot_in_array(const void* array_object, std::size_t id) const noexcept
    {
        return static_cast<const unsigned char*>(array_object) + (slots_at - array_at) + id * ops->stride;
    }
    void* array(void* state) const noexcept { return static_cast<unsigned char*>(state) + array_at; }
};

using shared_array = entity_array_layout;

/// A value of one type made, copied and destroyed through function pointers.
struct value_ops {
    void* (*make)() = nullptr; ///< a new default-made value
    void (*destroy)(void* value) noexcept = nullptr;
    void (*assign)(void* to, const void* from) = nullptr;
};

/// A top-level field a client's view keeps by value: every field but the
/// shared entity arrays (whose views are refs into the history).
struct kept_field {
    std::uint16_t field = 0; ///< its index among the State's top-level fields
    std::size_t offset = 0;  ///< in the State
    const engine::field_entry* entry = nullptr;
    const value_ops* ops = nullptr;
    bool entity_array = false; ///< a conditioned entity array (the client's own copies)

    const void* in(const void* state) const noexcept { return static_cast<const unsigned char*>(state) + offset; }
    void* in(void* state) const noexcept { return static_cast<unsigned char*>(state) + offset; }
};

struct state_layout {
    /// The shared entity array slot `slot` belongs to (nullptr: none).
    const entity_array_layout* shared_of(std::size_t slot) const noexcept
    {
        for (const entity_array_layout& a : shared)
            if (slot - a.first_slot < a.capacity)
                return &a;
        return nullptr;
    }
    /// The entity array that is top-level field `field`.
    const entity_array_layout& array_of(std::size_t field) const noexcept { return *by_field[field]; }

    std::span<const entity_array_layout> arrays; ///< every entity array, in field order
    std::span<const entity_array_layout> shared; ///< the shared ones, in field order
    /// Per top-level field, its entity array (nullptr: not one).
    const entity_array_layout* const* by_field = nullptr;
    std::span<const kept_field> kept; ///< in field order
    std::size_t slot_count = 0;  ///< entity slots over every entity array
    std::size_t field_count = 0; ///< the State's top-level fields
    std::size_t state_size = 0;  ///< sizeof(State)
    const value_ops* state_ops = nullptr;
    const engine::field_entry* state_entry = nullptr;
    const void* state_defaults = nullptr; ///< a value-initialized State
    std::string_view name;                ///< the State's type name, for error paths
    const std::string_view* field_names = nullptr; ///< per top-level field (empty for an aggregate's)
};

namespace detail {

template <class T>
inline constexpr value_ops value_ops_v{&engine::detail::make_object<T>, &engine::detail::destroy_object<T>,
                                       &engine::detail::copy_object<T>};

template <class Entity>
bool slot_has_value(const void* slot) noexcept
{
    return static_cast<const std::optional<Entity>*>(slot)->has_value();
}
template <class Entity>
std::size_t slot_next_differing(const void* a, const void* b, std::size_t from, std::size_t end) noexcept
{
    using slot = std::optional<Entity>;
    if constexpr (std::is_trivially_copyable_v<slot>) {
        const auto* x = static_cast<const slot*>(a);
        const auto* y = static_cast<const slot*>(b);
        while (from < end && std::memcmp(static_cast<const void*>(x + from), static_cast<const void*>(y + from),
                                         sizeof(slot)) == 0)
            ++from;
        return from;
    } else {
        static_cast<void>(a), static_cast<void>(b), static_cast<void>(end);
        return from;
    }
}
template <class Entity>
const void* slot_entity(const void* slot) noexcept
{
    return &**static_cast<const std::optional<Entity>*>(slot);
}
template <class Entity>
constexpr float constant_priority() noexcept
{
    if constexpr (requires { Entity::replication_priority; })
        return static_cast<float>(Entity::replication_priority);
    else
        return 1.0f;
}
template <class Array>
void slot_assign(void* array, std::size_t id, const void* slot)
{
    bitrep::detail::entity_array_access::assign(*static_cast<Array*>(array), id,
                                                *static_cast<const std::optional<typename Array::value_type>*>(slot));
}
template <class Entity>
void* slot_list_make()
{
    return new std::vector<std::optional<Entity>>();
}
template <class Entity>
void slot_list_destroy(void* list) noexcept
{
    delete static_cast<std::vector<std::optional<Entity>>*>(list);
}
template <class Entity>
void* slot_list_resize(void* list, std::size_t size)
{
    auto& values = *static_cast<std::vector<std::optional<Entity>>*>(list);
    values.resize(size);
    return values.data();
}
template <class Entity>
void slot_list_put(void* values, std::size_t at, const void* slot)
{
    static_cast<std::optional<Entity>*>(values)[at] = *static_cast<const std::optional<Entity>*>(slot);
}
template <class Entity>
void slot_list_move(void* to, void* from, std::size_t count)
{
    auto* first = static_cast<std::optional<Entity>*>(from);
    std::move(first, first + count, static_cast<std::optional<Entity>*>(to));
}
template <class Entity>
std::size_t slot_list_bytes(const void* list) noexcept
{
    return static_cast<const std::vector<std::optional<Entity>>*>(list)->capacity() * sizeof(std::optional<Entity>);
}

template <class Entity>
void slot_apply_conditions(void* view, const void* slot, const void* had, bool owned)
{
    static const Entity defaults{};
    auto& copy = *static_cast<std::optional<Entity>*>(view);
    copy = *static_cast<const std::optional<Entity>*>(slot);
    apply_conditions(*copy, static_cast<const Entity*>(had), owned, defaults);
}
template <class Entity>
constexpr auto conditions_of() noexcept
{
    if constexpr (has_conditions<Entity>)
        return &slot_apply_conditions<Entity>;
    else
        return static_cast<void (*)(void*, const void*, const void*, bool)>(nullptr);
}

template <class Array>
inline constexpr slot_ops slot_ops_v{&engine::entry_v<std::optional<typename Array::value_type>>,
                                     sizeof(std::optional<typename Array::value_type>),
                                     &slot_next_differing<typename Array::value_type>,
                                     &slot_has_value<typename Array::value_type>,
                                     &slot_entity<typename Array::value_type>,
                                     engine::max_changed_bits(engine::entry_v<std::optional<typename Array::value_type>>),
                                     constant_priority<typename Array::value_type>(),
                                     &slot_assign<Array>,
                                     &slot_list_make<typename Array::value_type>,
                                     &slot_list_destroy<typename Array::value_type>,
                                     &slot_list_resize<typename Array::value_type>,
                                     &slot_list_put<typename Array::value_type>,
                                     &slot_list_move<typename Array::value_type>,
                                     &slot_list_bytes<typename Array::value_type>,
                                     conditions_of<typename Array::value_type>()};

template <class State>
inline constexpr std::size_t shared_count = []<std::size_t... I>(std::index_sequence<I...>) {
    return (std::size_t{0} + ... + (is_shared_field<State, I> ? 1 : 0));
}(std::make_index_sequence<reflect::field_count<State>>{});
template <class State>
inline constexpr std::size_t array_count = []<std::size_t... I>(std::index_sequence<I...>) {
    return (std::size_t{0} + ... + (is_entity_field<State, I> ? 1 : 0));
}(std::make_index_sequence<reflect::field_count<State>>{});

/// The layout's arrays, with the offsets taken from the default State the
/// engine keeps (offsets are not constant expressions).
template <class State>
struct layout_storage {
    std::array<entity_array_layout, array_count<State>> arrays{};
    std::array<entity_array_layout, shared_count<State>> shared{};
    std::array<const entity_array_layout*, reflect::field_count<State>> by_field{};
    std::array<kept_field, reflect::field_count<State> - shared_count<State>> kept{};
    static constexpr auto names = []<std::size_t... I>(std::index_sequence<I...>) {
        return std::array<std::string_view, sizeof...(I)>{reflect::field_id_at<State, I>().name...};
    }(std::make_index_sequence<reflect::field_count<State>>{});
    state_layout layout;

    layout_storage()
    {
        // Through a pointer variable, so that `s` is no constant: g++ 12 with
        // -fsanitize=null at -Og and above crashes folding field_at(s) on a
        // State of internal linkage.
        const State* object = &engine::detail::default_object<State>;
        const State& s = *object;
        const auto* base = reinterpret_cast<const unsigned char*>(&s);
        std::size_t k = 0;
        std::size_t j = 0;
        std::size_t m = 0;
        for_each_field_index<State>([&](auto index) {
            constexpr std::size_t I = decltype(index)::value;
            if constexpr (!is_shared_field<State, I>) {
                using field_type = reflect::field_type_at<State, I>;
                kept[m++] = {static_cast<std::uint16_t>(I),
                             static_cast<std::size_t>(
                                 reinterpret_cast<const unsigned char*>(&reflect::field_at<I>(s)) - base),
                             &engine::entry_v<field_type>, &value_ops_v<field_type>, is_entity_field<State, I>};
            }
            if constexpr (is_entity_field<State, I>) {
                using array_type = reflect::field_type_at<State, I>;
                const auto& array = reflect::field_at<I>(s);
                auto& slots = bitrep::detail::entity_array_access::slots(const_cast<array_type&>(array));
                arrays[j] = {static_cast<std::uint16_t>(I),
                             static_cast<std::uint32_t>(entity_slots_before<State, I>),
                             static_cast<std::uint32_t>(array_type::capacity),
                             static_cast<std::size_t>(reinterpret_cast<const unsigned char*>(&array) - base),
                             static_cast<std::size_t>(reinterpret_cast<const unsigned char*>(slots.data()) - base),
                             &slot_ops_v<array_type>,
                             is_shared_field<State, I>,
                             static_cast<std::uint16_t>(k),
                             static_cast<std::uint8_t>(bits_required_for_span(array_type::capacity - 1)),
                             static_cast<std::uint16_t>(is_shared_field<State, I> ? 0 : m - 1)};
                if (arrays[j].shared)
                    shared[k++] = arrays[j];
                by_field[I] = &arrays[j];
                ++j;
            }
        });
        layout = {std::span<const entity_array_layout>(arrays), std::span<const entity_array_layout>(shared),
                  by_field.data(), std::span<const kept_field>(kept), entity_slots_before<State>,
                  reflect::field_count<State>, sizeof(State), &value_ops_v<State>, &engine::entry_v<State>,
                  &engine::detail::default_object<State>, reflect::type_name<State>(), names.data()};
    }
};

} // namespace detail

/// The values of a State's kept fields (state_layout::kept), in field
/// order: what a client's view holds besides its refs. Made and copied
/// through the fields' value_ops; every copy allocates nothing once made.
class kept_values {
public:
    kept_values() = default;
    explicit kept_values(const state_layout& layout) : layout_(&layout)
    {
        values_.reserve(layout.kept.size());
        for (const kept_field& f : layout.kept)
            values_.push_back(f.ops->make());
    }
    kept_values(const kept_values& other) : layout_(other.layout_)
    {
        if (layout_ == nullptr)
            return;
        values_.reserve(other.values_.size());
        for (std::size_t k = 0; k < other.values_.size(); ++k) {
            values_.push_back(layout_->kept[k].ops->make());
            layout_->kept[k].ops->assign(values_[k], other.values_[k]);
        }
    }
    kept_values(kept_values&& other) noexcept : layout_(other.layout_), values_(std::move(other.values_)) {}
    kept_values& operator=(const kept_values& other)
    {
        if (this == &other)
            return *this;
        if (values_.size() != other.values_.size()) {
            kept_values copy(other);
            swap(copy);
            return *this;
        }
        for (std::size_t k = 0; k < values_.size(); ++k)
            layout_->kept[k].ops->assign(values_[k], other.values_[k]);
        return *this;
    }
    kept_values& operator=(kept_values&& other) noexcept
    {
        swap(other);
        return *this;
    }
    ~kept_values()
    {
        for (std::size_t k = 0; k < values_.size(); ++k)
            layout_->kept[k].ops->destroy(values_[k]);
    }
    void swap(kept_values& other) noexcept
    {
        std::swap(layout_, other.layout_);
        values_.swap(other.values_);
    }
    friend void swap(kept_values& a, kept_values& b) noexcept { a.swap(b); }

    void* at(std::size_t k) noexcept { return values_[k]; }
    const void* at(std::size_t k) const noexcept { return values_[k]; }
    std::size_t size() const noexcept { return values_.size(); }
    /// The bytes held: the values' objects (their own heap parts aside) and
    /// the pointers to them.
    std::size_t bytes() const noexcept
    {
        std::size_t total = sizeof(*this) + values_.capacity() * sizeof(void*);
        for (std::size_t k = 0; k < values_.size(); ++k)
            total += layout_->kept[k].entry->object_size;
        return total;
    }

private:
    const state_layout* layout_ = nullptr;
    std::vector<void*> values_;
};

/// A State made, reset and destroyed through its layout: the server's
/// baselines and the views it encodes.
class state_object {
public:
    state_object() = default;
    explicit state_object(const state_layout& layout) : layout_(&layout), object_(layout.state_ops->make()) {}
    state_object(state_object&& other) noexcept : layout_(other.layout_), object_(other.object_)
    {
        other.object_ = nullptr;
    }
    state_object& operator=(state_object&& other) noexcept
    {
        std::swap(layout_, other.layout_);
        std::swap(object_, other.object_);
        return *this;
    }
    state_object(const state_object& other)
        : layout_(other.layout_), object_(other.object_ != nullptr ? layout_->state_ops->make() : nullptr)
    {
        if (object_ != nullptr)
            layout_->state_ops->assign(object_, other.object_);
    }
    state_object& operator=(const state_object& other)
    {
        if (this == &other)
            return *this;
        if (object_ != nullptr && other.object_ != nullptr && layout_ == other.layout_) {
            layout_->state_ops->assign(object_, other.object_);
            return *this;
        }
        state_object copy(other);
        swap(copy);
        return *this;
    }
    void swap(state_object& other) noexcept
    {
        std::swap(layout_, other.layout_);
        std::swap(object_, other.object_);
    }
    ~state_object()
    {
        if (object_ != nullptr)
            layout_->state_ops->destroy(object_);
    }
    void* get() const noexcept { return object_; }
    /// Back to a value-initialized State.
    void reset() { layout_->state_ops->assign(object_, layout_->state_defaults); }

private:
    const state_layout* layout_ = nullptr;
    void* object_ = nullptr;
};

/// The State's layout, made on first use.
template <class State>
const state_layout& layout_of()
{
    static const detail::layout_storage<State> storage;
    return storage.layout;
}

/// layout_of<State>(), after the check that replication can walk State:
/// when it cannot, its refusal and an empty layout, nothing more compiled.
template <class State>
const state_layout& checked_layout_of()
{
    if constexpr (require_reflected_state<State>()) {
        return layout_of<State>();
    } else {
        static const state_layout refused{};
        return refused;
    }
}

} // namespace bitrep::replication
