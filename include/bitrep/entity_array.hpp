// entity_array<T, N>: N slots, each empty or holding one entity; the slot
// index is the entity's id on the wire and in replication.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <utility>

namespace bitrep {

/// A fixed set of entity slots. Encoded exactly as
/// std::array<std::optional<T>, N> (a presence bit per slot, then the
/// entity), so saves and schemas treat it as that. Replication treats it as
/// the world's entities: only created, destroyed and changed slots are sent,
/// and a replication_server applies priority and relevancy to it per slot.
template <class T, std::size_t N>
class entity_array {
public:
    using value_type = T;
    using slots_type = std::array<std::optional<T>, N>;
    static constexpr std::size_t capacity = N;

    /// Whether slot `id` holds an entity (false for an id past the end).
    bool contains(std::size_t id) const noexcept { return id < N && slots_[id].has_value(); }
    /// The entity in slot `id`, or nullptr when it is empty or past the end.
    T* find(std::size_t id) noexcept { return contains(id) ? &*slots_[id] : nullptr; }
    const T* find(std::size_t id) const noexcept { return contains(id) ? &*slots_[id] : nullptr; }
    /// The entity in slot `id`; the slot must hold one.
    T& operator[](std::size_t id) noexcept { return *slots_[id]; }
    const T& operator[](std::size_t id) const noexcept { return *slots_[id]; }

    /// Creates (or replaces) the entity in slot `id` < N.
    template <class... Args>
    T& emplace(std::size_t id, Args&&... args)
    {
        return slots_[id].emplace(std::forward<Args>(args)...);
    }
    void erase(std::size_t id) noexcept { slots_[id].reset(); }
    void clear() noexcept
    {
        for (std::optional<T>& slot : slots_)
            slot.reset();
    }
    /// The number of occupied slots (counted: O(N)).
    std::size_t count() const noexcept
    {
        std::size_t n = 0;
        for (const std::optional<T>& slot : slots_)
            n += slot.has_value() ? 1 : 0;
        return n;
    }

    slots_type& slots() noexcept { return slots_; }
    const slots_type& slots() const noexcept { return slots_; }

    friend bool operator==(const entity_array&, const entity_array&) = default;

private:
    slots_type slots_{};
};

} // namespace bitrep
