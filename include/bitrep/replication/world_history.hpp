// The server's one record of the world's recent past, shared by every
// client (docs/design/replication-server.md,
// "The server at scale: one world history, views as refs"). A client's view of an entity
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
#include <bitrep/replication/state_layout.hpp>

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
/// baseline lapses) + view_age = 53,248 (docs/design/replication-server.md,
/// "The server at scale: one world history, views as refs",
/// "Refs over long sessions").
inline constexpr std::uint32_t rename_age = 16384;
inline constexpr std::uint32_t sweep_ticks = 4096;
inline constexpr std::uint32_t drop_age = 40960;
inline constexpr std::uint32_t view_age = 16384;

/// Field I's place among the fields a view keeps by value (all but the
/// shared entity arrays: state_layout::kept).
template <class State, std::size_t I>
inline constexpr std::size_t private_index = []<std::size_t... J>(std::index_sequence<J...>) {
    return (std::size_t{0} + ... + (is_shared_field<State, J> ? 0 : 1));
}(std::make_index_sequence<I>{});

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
/// observed ticks (a tick counts only when something changed), per tick and
/// shared array a range of (slot, value) in slot order in the array's arena
/// (see `arena`); and per slot, the value it had before its last change
/// when that value was older than depth / 2 ticks. Memory: two States
/// (current and superseded values), plus per shared array an arena of at
/// most 16 entries or twice (the changes in the window, the tick being
/// recorded included, + the most in one tick), whichever is more, and never
/// more than (depth + 2) x its slots. Compiled once in the library
/// (src/replication/world_history.cpp): the State is its layout.
class history {
public:
    history(const state_layout& layout, std::size_t depth);
    ~history();
    history(const history&) = delete;
    history& operator=(const history&) = delete;

    /// Records `state` as the newest tick: every shared slot whose value
    /// differs on the wire from the recorded one gets a new ref. So does,
    /// with its value unchanged, a slot of this tick's share of the sweep
    /// whose ref has reached rename_age (to clients, a change to a value
    /// equal on the wire: no bytes); a superseded value whose ref has
    /// reached drop_age is dropped. Returns whether any slot got a new ref.
    bool observe(const void* state);

    std::uint32_t tick() const noexcept { return tick_; }
    const value_ref* refs() const noexcept { return refs_.data(); }
    const void* current() const noexcept { return current_; }
    const state_layout& layout() const noexcept { return layout_; }

    /// The value (a std::optional<Entity>) `ref` names in slot `id` of the
    /// shared array `array`, or nullptr when it is older than the history.
    BITREP_ALWAYS_INLINE const void* find(const shared_array& array, std::size_t id, value_ref ref) const noexcept
    {
        if (ref == empty_ref)
            return array.ops->entry->defaults; // an empty std::optional
        const std::size_t slot = array.first_slot + id;
        if (refs_[slot] == ref)
            return array.slot(current_, id);
        const std::uint32_t age = (ref_of(tick_) + ref_period - ref) % ref_period;
        if (age >= depth_ || age >= tick_)
            return superseded_refs_[slot] == ref ? array.slot(superseded_, id) : nullptr;
        const arena& changes = arenas_[array.shared_index];
        const range r = changes.ticks[(tick_ - age) % ring_ticks_];
        const std::uint32_t* slots = changes.slots.data();
        const std::uint32_t* first = slots + r.at;
        const std::uint32_t* last = first + r.count;
        const std::uint32_t* at = std::lower_bound(first, last, static_cast<std::uint32_t>(slot));
        if (at == last || *at != slot)
            return nullptr;
        return static_cast<const unsigned char*>(changes.values) +
               static_cast<std::size_t>(at - slots) * array.ops->stride;
    }

    /// Whether find(array, id, ref) finds a value, for a ref the server gave
    /// out for that slot (one of its change ticks, or empty_ref).
    bool holds(const shared_array& array, std::size_t id, value_ref ref) const noexcept
    {
        const std::size_t slot = array.first_slot + id;
        if (ref == empty_ref || refs_[slot] == ref)
            return true;
        const std::uint32_t age = (ref_of(tick_) + ref_period - ref) % ref_period;
        return (age < depth_ && age < tick_) || superseded_refs_[slot] == ref;
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
            const std::size_t at = t % ring_ticks_;
            for (const arena& changes : arenas_) {
                // Locals, which f cannot change: no reloads per slot.
                const range r = changes.ticks[at];
                const std::uint32_t* slot = changes.slots.data() + r.at;
                for (const std::uint32_t* end = slot + r.count; slot != end; ++slot)
                    f(static_cast<std::size_t>(*slot));
            }
        }
        return true;
    }

    /// Bytes held beyond the State of current values (for docs and benches).
    std::size_t history_bytes() const noexcept;

private:
    /// Where one tick's changes to one shared array lie in its arena.
    struct range {
        std::size_t at = 0;
        std::size_t count = 0;
    };
    /// One shared array's changes in the window, per change its slot
    /// (counted as refs() counts them) and its value at the same index:
    /// each tick's a range, in slot order, the ticks one after another
    /// around the arena as in a ring. A tick's range is contiguous: one that
    /// reaches the end of the arena moves to its start when the oldest tick
    /// in the window leaves room there (the end is left unused until the
    /// ring comes round). The arena grows (doubling, all in the window moved
    /// up to its start) only when a change finds no room, that is when the
    /// window's changes and the tick's, plus that unused end, fill it.
    struct arena {
        range* ticks = nullptr;           ///< by tick % ring_ticks_: its range (in ring_)
        std::vector<std::uint32_t> slots; ///< `capacity` of them
        void* list = nullptr;             ///< `capacity` values (slot_ops::make_list)
        void* values = nullptr;           ///< the list's first value
        std::size_t capacity = 0;
        std::size_t most = 0; ///< the most it may need: (depth + 2) x the array's slots
        std::size_t head = 0; ///< where the next tick's changes start
        /// [head, limit) is free; it may be more (make_room looks again).
        std::size_t limit = 0;
    };

    static value_ref ref_of(std::uint32_t tick) noexcept { return static_cast<value_ref>(tick % ref_period); }
    /// Whether `ref` (not empty) is at least `limit` ticks old at tick `at`.
    static bool aged(value_ref ref, std::uint32_t at, std::uint32_t limit) noexcept
    {
        return ref != empty_ref && (ref_of(at) + ref_period - ref) % ref_period >= limit;
    }
    /// Fills renames_ with this tick's share of the sweep, ascending, and a
    /// sentinel past every slot.
    void plan_renames(std::uint32_t next);
    /// Records the changes to shared array `k` at tick `next`; `rename_at`
    /// walks renames_ across the arrays. Returns whether any slot changed.
    bool observe_array(std::size_t k, const void* state, std::uint32_t next, std::size_t& rename_at);
    /// Appends (slot, value) to `r`, tick `next`'s range in arena `k`.
    void record(std::size_t k, range& r, std::uint32_t next, std::size_t slot, const void* value);
    /// Makes room in arena `k` for one more change after `r`, tick `next`'s
    /// range, moving `r` to the arena's start or growing the arena.
    void make_room(std::size_t k, range& r, std::uint32_t next);
    /// Moves the window's ranges in arena `k` and then `r` to the start of
    /// a new arena of `capacity` entries.
    void grow(std::size_t k, range& r, std::uint32_t next, std::size_t capacity);
    /// Tick t's range in arena k.
    range& range_of(std::uint32_t t, std::size_t k) noexcept { return arenas_[k].ticks[t % ring_ticks_]; }
    void keep_superseded(const shared_array& array, std::size_t id, std::uint32_t next, const void* was);

    const state_layout& layout_;
    std::size_t depth_;
    std::size_t per_sweep_;
    std::size_t sweep_modulus_;
    std::uint32_t tick_ = 0;
    std::size_t sweep_ = 0; ///< the first slot of the next tick's share of the sweep
    std::size_t ring_ticks_; ///< depth + 1: the window, and the tick being observed
    std::vector<arena> arenas_; ///< per shared array
    /// By shared array x ring_ticks_ + tick % ring_ticks_: where that tick's
    /// changes lie in that array's arena (arena::ticks points into it).
    std::vector<range> ring_;
    std::vector<value_ref> refs_;
    void* current_ = nullptr;
    /// Per slot, a value superseded long after it appeared, and its ref
    /// (empty_ref: none): see keep_superseded.
    std::vector<value_ref> superseded_refs_;
    void* superseded_ = nullptr;
    std::vector<std::size_t> renames_; ///< observe's: this tick's share of the sweep to rename
};

} // namespace bitrep::replication
