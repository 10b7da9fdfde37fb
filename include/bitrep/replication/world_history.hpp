// The server's one record of the world's recent past, shared by every
// client (docs/replication.md, section 11). A client's view of an entity
// slot is a 2-byte value_ref naming a value in it, not a copy of the entity.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <bitrep/delta.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/replication/conditions.hpp>
#include <bitrep/replication/state_fields.hpp>

namespace bitrep::replication {

/// Which value an entity slot holds in a view: the observed tick at which
/// that value appeared in the world, modulo ref_period, or empty_ref for
/// no entity. Equal refs mean equal values; different refs may still name
/// values equal on the wire, which a comparison settles.
using value_ref = std::uint16_t;
inline constexpr value_ref empty_ref = 0xFFFF;
inline constexpr std::uint32_t ref_period = 0xFFFF;
/// Refs are tick numbers modulo ref_period, so a ref given out again names
/// a different value. No ref in use is allowed to get that old: the history
/// renames a value whose ref has reached rename_age ticks (its slot is
/// visited at least every sweep_ticks), drops a superseded value whose ref
/// has reached drop_age, and the server does not use a view made more than
/// view_age ticks ago (replication_server::fresh). For a client that gets
/// what changes, the oldest ref in use is then under rename_age +
/// sweep_ticks + the ticks between its packets (under view_age, or its
/// baseline lapses) + view_age = 53,248 (docs/replication.md, "Refs over
/// long sessions").
inline constexpr std::uint32_t rename_age = 16384;
inline constexpr std::uint32_t sweep_ticks = 4096;
inline constexpr std::uint32_t drop_age = 40960;
inline constexpr std::uint32_t view_age = 16384;

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

/// The top-level fields a view keeps by value (all but the shared ones),
/// as a std::tuple of their types.
template <class State, std::size_t I, bool Private = !is_shared_field<State, I>>
struct private_part {
    using type = std::tuple<>;
};
template <class State, std::size_t I>
struct private_part<State, I, true> {
    using type = std::tuple<reflect::field_type_at<State, I>>;
};
template <class State, class Indices = std::make_index_sequence<reflect::field_count<State>>>
struct private_fields_of;
template <class State, std::size_t... I>
struct private_fields_of<State, std::index_sequence<I...>> {
    using type = decltype(std::tuple_cat(std::declval<typename private_part<State, I>::type>()...));
};
template <class State>
using private_fields = typename private_fields_of<State>::type;

/// Field I's place in private_fields<State>.
template <class State, std::size_t I>
inline constexpr std::size_t private_index = []<std::size_t... J>(std::index_sequence<J...>) {
    return (std::size_t{0} + ... + (is_shared_field<State, J> ? 0 : 1));
}(std::make_index_sequence<I>{});

template <std::size_t I, class State>
auto& private_field(private_fields<State>& fields) noexcept
{
    return std::get<private_index<State, I>>(fields);
}
template <std::size_t I, class State>
const auto& private_field(const private_fields<State>& fields) noexcept
{
    return std::get<private_index<State, I>>(fields);
}

/// Calls f(i) for each i in [0, n) where a[i] != b[i], in increasing i,
/// 32 refs (64 bytes) at a time: with SSE2, one mask of the differing refs
/// per block, so that a scan costs about a nanosecond per 32 slots however
/// many differ; without it, equal blocks skipped by memcmp, then four refs
/// at a time. f may change a[i] (the block's mask is taken before).
template <class F>
BITREP_ALWAYS_INLINE void for_each_mismatch(const value_ref* a, const value_ref* b, std::size_t n, F&& f)
{
    constexpr std::size_t block = 32;
    const std::size_t blocks = n / block;
    for (std::size_t k = 0; k < blocks; ++k) {
        const std::size_t at = k * block;
#if defined(__SSE2__)
        auto equal = [&](std::size_t i) {
            const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + at + i));
            const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + at + i));
            return _mm_cmpeq_epi16(x, y);
        };
        const auto low = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_packs_epi16(equal(0), equal(8))));
        const auto high = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_packs_epi16(equal(16), equal(24))));
        std::uint32_t differ = ~(low | (high << 16));
        while (differ != 0) {
            f(at + static_cast<std::size_t>(std::countr_zero(differ)));
            differ &= differ - 1;
        }
#else
        if (std::memcmp(a + at, b + at, block * sizeof(value_ref)) == 0) [[likely]]
            continue;
        for (std::size_t g = at; g < at + block; g += 4) {
            std::uint64_t x = 0, y = 0;
            std::memcpy(&x, a + g, sizeof x);
            std::memcpy(&y, b + g, sizeof y);
            if (x == y)
                continue;
            for (std::size_t i = g; i < g + 4; ++i)
                if (a[i] != b[i])
                    f(i);
        }
#endif
    }
    for (std::size_t i = blocks * block; i < n; ++i)
        if (a[i] != b[i])
            f(i);
}

/// Per entity slot of the shared entity arrays: the ref of its current
/// value and that value, and the values that appeared in the last `depth`
/// observed ticks (a tick counts only when something changed), per tick a
/// list of (slot, value) in slot order; and per slot, the value it had
/// before its last change when that value was older than depth / 2 ticks.
/// Memory: two States (current and superseded values), plus depth x
/// (changed slots per tick) entries.
template <class State>
class world_history {
    template <std::size_t I>
    using slot_of = std::optional<typename entity_array_traits<reflect::field_type_at<State, I>>::entity>;

    template <std::size_t I, bool Shared = is_shared_field<State, I>>
    struct changes_part {
        using type = std::tuple<>;
    };
    template <std::size_t I>
    struct changes_part<I, true> {
        using type = std::tuple<std::vector<std::pair<std::uint32_t, slot_of<I>>>>;
    };
    template <class Indices>
    struct changes_of;
    template <std::size_t... I>
    struct changes_of<std::index_sequence<I...>> {
        using type = decltype(std::tuple_cat(std::declval<typename changes_part<I>::type>()...));
    };
    using tick_changes = typename changes_of<std::make_index_sequence<reflect::field_count<State>>>::type;

    template <std::size_t I>
    static constexpr std::size_t shared_index = []<std::size_t... J>(std::index_sequence<J...>) {
        return (std::size_t{0} + ... + (is_shared_field<State, J> ? 1 : 0));
    }(std::make_index_sequence<I>{});


public:
    static constexpr std::size_t slot_count = entity_slots_before<State>;

    explicit world_history(std::size_t depth) : depth_(std::max<std::size_t>(depth, 1)), ring_(depth_ + 1)
    {
        refs_.assign(slot_count, empty_ref);
    }

    /// Records `state` as the newest tick: every shared slot whose value
    /// differs on the wire from the recorded one gets a new ref. So does,
    /// with its value unchanged, a slot of this tick's share of the sweep
    /// whose ref has reached rename_age (to clients, a change to a value
    /// equal on the wire: no bytes); a superseded value whose ref has
    /// reached drop_age is dropped. Returns whether any slot got a new ref.
    bool observe(const State& state)
    {
        const std::uint32_t next = tick_ + 1;
        tick_changes& bucket = ring_[next % ring_.size()];
        bool changed = false;
        // This tick's share of the sweep: slots [sweep_, sweep_ + per_sweep)
        // modulo the slot count, so that every slot is visited at least every
        // sweep_ticks observed ticks. The slots to rename, ascending.
        std::array<std::size_t, per_sweep + 1> renames{};
        std::size_t rename_count = 0;
        for (std::size_t k = 0; k < per_sweep; ++k) {
            const std::size_t slot = (sweep_ + k) % sweep_modulus;
            if (aged(superseded_refs_[slot], next, drop_age))
                superseded_refs_[slot] = empty_ref;
            if (aged(refs_[slot], next, rename_age))
                renames[rename_count++] = slot;
        }
        // In slot order (the share may wrap past the last slot); a handful.
        for (std::size_t i = 1; i < rename_count; ++i)
            for (std::size_t j = i; j > 0 && renames[j - 1] > renames[j]; --j)
                std::swap(renames[j - 1], renames[j]);
        renames[rename_count] = slot_count; // past every slot
        std::size_t rename_at = 0;
        for_each_field_index<State>([&](auto index) {
            constexpr std::size_t I = decltype(index)::value;
            if constexpr (is_shared_field<State, I>) {
                using slot_type = slot_of<I>;
                constexpr std::size_t first = entity_slots_before<State, I>;
                auto& list = std::get<shared_index<I>>(bucket);
                list.clear();
                const auto& now = reflect::field_at<I>(state).slots();
                auto& held = reflect::field_at<I>(current_);
                while (renames[rename_at] < first)
                    ++rename_at;
                for (std::size_t id = 0; id < now.size(); ++id) {
                    const slot_type& was = held.slots()[id];
                    const bool rename = renames[rename_at] == first + id;
                    rename_at += rename ? 1 : 0;
                    if (bitrep::detail::identical_bytes(was, now[id]) ||
                        bitrep::same_on_wire<scope::replication>(was, now[id])) {
                        if (!rename) [[likely]]
                            continue;
                        // Renamed: recorded as a change to the value it has.
                        keep_superseded<I>(first + id, next, was);
                        list.emplace_back(static_cast<std::uint32_t>(id), was);
                        refs_[first + id] = ref_of(next);
                        changed = true;
                        continue;
                    }
                    keep_superseded<I>(first + id, next, was);
                    bitrep::detail::entity_array_access::assign(held, id, now[id]);
                    list.emplace_back(static_cast<std::uint32_t>(id), now[id]);
                    refs_[first + id] = now[id].has_value() ? ref_of(next) : empty_ref;
                    changed = true;
                }
            }
        });
        if (changed) {
            tick_ = next;
            sweep_ = (sweep_ + per_sweep) % sweep_modulus;
        }
        return changed;
    }
    static constexpr std::size_t per_sweep = (slot_count + sweep_ticks - 1) / sweep_ticks;
    static constexpr std::size_t sweep_modulus = slot_count == 0 ? 1 : slot_count;

    std::uint32_t tick() const noexcept { return tick_; }
    const value_ref* refs() const noexcept { return refs_.data(); }
    const State& current() const noexcept { return current_; }

    /// The value `ref` names in slot `id` of entity array I, or nullptr when
    /// it is older than the history.
    template <std::size_t I>
    BITREP_ALWAYS_INLINE const slot_of<I>* find(std::size_t id, value_ref ref) const noexcept
    {
        static const slot_of<I> none;
        if (ref == empty_ref)
            return &none;
        constexpr std::size_t first = entity_slots_before<State, I>;
        if (refs_[first + id] == ref)
            return &reflect::field_at<I>(current_).slots()[id];
        const std::uint32_t age = (ref_of(tick_) + ref_period - ref) % ref_period;
        if (age >= depth_ || age >= tick_)
            return superseded_refs_[first + id] == ref ? &reflect::field_at<I>(superseded_).slots()[id] : nullptr;
        const auto& list = std::get<shared_index<I>>(ring_[(tick_ - age) % ring_.size()]);
        const auto at = std::lower_bound(list.begin(), list.end(), id,
                                         [](const auto& entry, std::size_t key) { return entry.first < key; });
        return at != list.end() && at->first == id ? &at->second : nullptr;
    }

    /// Whether find<I>(id, ref) finds a value, for a ref the server gave
    /// out for that slot (one of its change ticks, or empty_ref).
    template <std::size_t I>
    bool holds(std::size_t id, value_ref ref) const noexcept
    {
        constexpr std::size_t first = entity_slots_before<State, I>;
        if (ref == empty_ref || refs_[first + id] == ref)
            return true;
        const std::uint32_t age = (ref_of(tick_) + ref_period - ref) % ref_period;
        return (age < depth_ && age < tick_) || superseded_refs_[first + id] == ref;
    }

    /// Calls f(slot), slot counted as refs() counts them, for each slot
    /// whose ref changed in the observed ticks after `since` (a slot may
    /// come more than once); returns false, calling nothing, when some of
    /// those ticks have left the history.
    template <class F>
    bool changes_since(std::uint32_t since, F&& f) const
    {
        if (since > tick_ || tick_ - since > depth_)
            return false;
        for (std::uint32_t t = since + 1; t <= tick_; ++t) {
            const tick_changes& bucket = ring_[t % ring_.size()];
            for_each_field_index<State>([&](auto index) {
                constexpr std::size_t I = decltype(index)::value;
                if constexpr (is_shared_field<State, I>) {
                    constexpr std::size_t first = entity_slots_before<State, I>;
                    for (const auto& change : std::get<shared_index<I>>(bucket))
                        f(first + change.first);
                }
            });
        }
        return true;
    }

    /// Bytes held beyond the State of current values (for docs and benches).
    std::size_t history_bytes() const noexcept
    {
        std::size_t bytes = (refs_.capacity() + superseded_refs_.capacity()) * sizeof(value_ref) + sizeof(State);
        for (const tick_changes& bucket : ring_)
            std::apply([&](const auto&... list) { ((bytes += list.capacity() * sizeof(list[0])), ...); }, bucket);
        return bytes;
    }

private:
    static value_ref ref_of(std::uint32_t tick) noexcept { return static_cast<value_ref>(tick % ref_period); }
    /// Whether `ref` (not empty) is at least `limit` ticks old at tick `at`.
    static bool aged(value_ref ref, std::uint32_t at, std::uint32_t limit) noexcept
    {
        return ref != empty_ref && (ref_of(at) + ref_period - ref) % ref_period >= limit;
    }

    /// Slot `slot` (of entity array I) changes at tick `next`. A client's
    /// view may name the value it had until now for about a window of
    /// packets more; when that value's own tick leaves the history within
    /// depth / 2 ticks (an entity that had not changed for long), it is
    /// kept aside, so that a view sent while it was current can still
    /// become a baseline. It is overwritten only by a value superseded at
    /// least depth / 2 ticks after it was, when no view in flight names it.
    template <std::size_t I>
    void keep_superseded(std::size_t slot, std::uint32_t next, const slot_of<I>& was)
    {
        const value_ref old = refs_[slot];
        if (old == empty_ref)
            return;
        const std::uint32_t age = (ref_of(next) + ref_period - old) % ref_period;
        if (std::uint64_t{2} * age < depth_)
            return;
        superseded_refs_[slot] = old;
        bitrep::detail::entity_array_access::assign(reflect::field_at<I>(superseded_),
                                                    slot - entity_slots_before<State, I>, was);
    }

    std::size_t depth_;
    std::uint32_t tick_ = 0;
    std::size_t sweep_ = 0; ///< the first slot of the next tick's share of the sweep
    std::vector<tick_changes> ring_; ///< by tick % (depth + 1): the changes of that tick
    std::vector<value_ref> refs_;
    State current_{};
    /// Per slot, a value superseded long after it appeared, and its ref
    /// (empty_ref: none): see keep_superseded.
    std::vector<value_ref> superseded_refs_ = std::vector<value_ref>(slot_count, empty_ref);
    State superseded_{};
};

} // namespace bitrep::replication
