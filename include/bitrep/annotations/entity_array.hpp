// entity_array<T, N>: N slots, each empty or holding one entity; the slot
// index is the entity's id on the wire and in replication.
#pragma once

#include <array>
#include <cassert>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace bitrep {

namespace detail {
struct entity_array_access;
}

/// A fixed set of entity slots. Encoded exactly as
/// std::array<std::optional<T>, N> (a presence bit per slot, then the
/// entity), so saves and schemas treat it as that. Replication treats it as
/// the world's entities: only created, destroyed and changed slots are sent,
/// and a replication_server applies priority and relevancy to it per slot.
///
/// In game code it is the entity container: `for (auto [id, cube] : cubes)`
/// visits the live entities with their ids, `emplace(args...)` creates one
/// in the lowest free slot and returns its id, `erase(id)` destroys one,
/// `size()` is O(1), and `free_ids()` visits the free slots.
template <class T, std::size_t N>
class entity_array {
public:
    using value_type = T;
    using slots_type = std::array<std::optional<T>, N>;
    using id_type = std::uint32_t;
    static constexpr std::size_t capacity = N;
    static_assert(N <= 0xFFFFFFFFu, "entity_array: ids are 32-bit");

    /// A live entity and its id (structured bindings: `auto [id, cube]`).
    template <class Entity>
    struct entry {
        id_type id;
        Entity& entity;
    };

    /// Walks the slots that are occupied (Live) or free (!Live).
    template <class Slots, bool Live>
    class slot_iterator {
    public:
        using difference_type = std::ptrdiff_t;
        using value_type = std::conditional_t<Live, entry<std::remove_reference_t<decltype(*std::declval<Slots&>()[0])>>,
                                              id_type>;
        slot_iterator() = default;
        slot_iterator(Slots* slots, std::size_t at) noexcept : slots_(slots), at_(at) { skip(); }
        value_type operator*() const noexcept
        {
            if constexpr (Live)
                return {static_cast<id_type>(at_), *(*slots_)[at_]};
            else
                return static_cast<id_type>(at_);
        }
        slot_iterator& operator++() noexcept
        {
            ++at_;
            skip();
            return *this;
        }
        slot_iterator operator++(int) noexcept
        {
            slot_iterator old = *this;
            ++*this;
            return old;
        }
        friend bool operator==(const slot_iterator& a, const slot_iterator& b) noexcept { return a.at_ == b.at_; }

    private:
        void skip() noexcept
        {
            while (at_ < N && (*slots_)[at_].has_value() != Live)
                ++at_;
        }
        Slots* slots_ = nullptr;
        std::size_t at_ = N;
    };
    using iterator = slot_iterator<slots_type, true>;
    using const_iterator = slot_iterator<const slots_type, true>;
    using free_iterator = slot_iterator<const slots_type, false>;

    template <class It>
    struct range {
        It first, last;
        It begin() const noexcept { return first; }
        It end() const noexcept { return last; }
    };

    entity_array() = default;

    /// Whether slot `id` holds an entity (false for an id past the end).
    bool contains(std::size_t id) const noexcept { return id < N && slots_[id].has_value(); }
    /// The entity in slot `id`, or nullptr when it is empty or past the end:
    /// the checked access, for an id that may name no entity.
    T* find(std::size_t id) noexcept { return contains(id) ? &*slots_[id] : nullptr; }
    const T* find(std::size_t id) const noexcept { return contains(id) ? &*slots_[id] : nullptr; }
    /// The entity in slot `id`; the slot must hold one (asserted where
    /// assertions are on; find(id) checks).
    T& operator[](std::size_t id) noexcept
    {
        assert(contains(id) && "entity_array::operator[]: the slot holds no entity");
        return *slots_[id];
    }
    const T& operator[](std::size_t id) const noexcept
    {
        assert(contains(id) && "entity_array::operator[]: the slot holds no entity");
        return *slots_[id];
    }

    /// Creates (or replaces) the entity in slot `id` < N. The first
    /// argument must be the id (an integer); without one, see below.
    template <class Id, class... Args>
        requires std::is_integral_v<Id>
    T& emplace(Id id, Args&&... args)
    {
        return emplace_at(static_cast<std::size_t>(id), std::forward<Args>(args)...);
    }
    /// Creates the entity in the lowest free slot and returns its id, or
    /// nothing when every slot is taken (`emplace()`, `emplace(Cube{...})`).
    template <class... Args>
        requires(sizeof...(Args) == 0 || !std::is_integral_v<std::remove_cvref_t<std::tuple_element_t<0, std::tuple<Args...>>>>)
    std::optional<id_type> emplace(Args&&... args)
    {
        while (next_free_ < N && slots_[next_free_].has_value())
            ++next_free_;
        if (next_free_ == N)
            return std::nullopt;
        const std::size_t id = next_free_;
        emplace_at(id, std::forward<Args>(args)...);
        return static_cast<id_type>(id);
    }
    /// Creates (or replaces) the entity in slot `id` < N (asserted).
    template <class... Args>
    T& emplace_at(std::size_t id, Args&&... args)
    {
        assert(id < N && "entity_array::emplace: id past the last slot");
        size_ += slots_[id].has_value() ? 0 : 1;
        return slots_[id].emplace(std::forward<Args>(args)...);
    }
    /// Destroys the entity in slot `id` < N (asserted), if any.
    void erase(std::size_t id) noexcept
    {
        assert(id < N && "entity_array::erase: id past the last slot");
        if (!slots_[id].has_value())
            return;
        slots_[id].reset();
        --size_;
        next_free_ = id < next_free_ ? id : next_free_;
    }
    void clear() noexcept
    {
        for (std::optional<T>& slot : slots_)
            slot.reset();
        size_ = 0;
        next_free_ = 0;
    }

    /// Live entities, O(1).
    std::size_t size() const noexcept { return size_; }
    std::size_t count() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }
    /// Free slots, O(1).
    std::size_t free_count() const noexcept { return N - size_; }

    /// The live entities with their ids, in id order.
    iterator begin() noexcept { return iterator(&slots_, 0); }
    iterator end() noexcept { return iterator(&slots_, N); }
    const_iterator begin() const noexcept { return const_iterator(&slots_, 0); }
    const_iterator end() const noexcept { return const_iterator(&slots_, N); }
    /// The ids of the free slots, in order.
    range<free_iterator> free_ids() const noexcept { return {free_iterator(&slots_, 0), free_iterator(&slots_, N)}; }

    /// Every slot, as it is encoded. Read only: slots change through
    /// emplace and erase, which keep size() and the free list right.
    const slots_type& slots() const noexcept { return slots_; }

    /// The same entities in the same slots (the bookkeeping follows from them).
    friend bool operator==(const entity_array& a, const entity_array& b)
        requires std::equality_comparable<T>
    {
        return a.slots_ == b.slots_;
    }

private:
    friend struct detail::entity_array_access;

    /// After the slots were written wholesale (decoding).
    void recount() noexcept
    {
        size_ = 0;
        for (const std::optional<T>& slot : slots_)
            size_ += slot.has_value() ? 1 : 0;
        next_free_ = 0;
    }

    slots_type slots_{};
    std::size_t size_ = 0;
    std::size_t next_free_ = 0; ///< no free slot below it
};

namespace detail {
/// The library's own writes into entity slots (decoders, the replication
/// server's views), which keep the bookkeeping right.
struct entity_array_access {
    /// The slots, for a codec's signature; a writing stream only reads them.
    template <class T, std::size_t N>
    static typename entity_array<T, N>::slots_type& slots(entity_array<T, N>& array) noexcept
    {
        return array.slots_;
    }
    /// After the slots were written wholesale.
    template <class T, std::size_t N>
    static void recount(entity_array<T, N>& array) noexcept
    {
        array.recount();
    }
    /// Runs write(slots) on the array's slots, then recounts.
    template <class T, std::size_t N, class Write>
    static decltype(auto) rewrite(entity_array<T, N>& array, Write&& write)
    {
        struct recount_after {
            entity_array<T, N>& array;
            ~recount_after() { array.recount(); }
        } guard{array};
        return write(array.slots_);
    }
    /// Sets one slot.
    template <class T, std::size_t N>
    static void assign(entity_array<T, N>& array, std::size_t id, const std::optional<T>& slot)
    {
        if (slot.has_value())
            array.emplace_at(id, *slot);
        else
            array.erase(id);
    }
};
} // namespace detail

} // namespace bitrep
