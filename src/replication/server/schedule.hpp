// The scheduler's per-client state: which shared slots may differ from the
// client's baseline (the stale list), what each slot accumulated while it
// waited, and this packet's candidates in their order. The selection that
// fills and takes them, one packet at a time, is selection.hpp.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include <bitrep/detail/portability.hpp>

#include "shared.hpp"

namespace bitrep::replication::server_side {

/// What a client's packets keep per entity slot for finding and ordering
/// candidates, together: a candidate reads and writes one cache line of
/// them (in worlds of 10,000 entities, where a client's per-slot entries
/// are out of the cache, each array was a miss).
template <class SlotIndex>
struct slot_entry {
    /// The priority accumulated while the slot stays a candidate; it counts
    /// only when `epoch` says it was one in the previous packet (epochs are
    /// packets_sent + 1).
    float priority = 0.0f;
    std::uint32_t epoch = 0;
    /// A ref whose value was found to differ on the wire from the
    /// baseline's (empty_ref: none), so that a slot left waiting is not
    /// compared again every packet; cleared when the baseline's slot
    /// changes.
    value_ref compared = empty_ref;
    SlotIndex candidate_at = 0; ///< its index in candidates, this packet
};

struct candidate {
    const void* target; ///< the std::optional<entity> the client should get
    float priority;
    std::uint32_t id;
    std::uint16_t field;
    value_ref ref;      ///< shared entity arrays: the ref of `target`
    bool in_flight;     ///< sent since the baseline: the client may hold it already
    bool taken = false; ///< in this packet
};

template <class SlotIndex>
class client_schedule {
public:
    using slot_index = SlotIndex;

    explicit client_schedule(const server_shared& s)
        : per_slot(s.slot_count), stale_flag(s.slot_count, 0), s_(&s)
    {
        stale.reserve(s.slot_count);
    }

    /// Per entity slot, what finding and ordering candidates keeps
    /// (slot_entry): one cache line to fetch per candidate.
    std::vector<slot_entry<SlotIndex>> per_slot;
    /// The shared entity slots whose baseline ref may differ from the
    /// world's: every slot whose world ref or baseline ref changed since it
    /// was last found equal (a slot found equal is dropped), fed by the
    /// history's change lists up to stale_tick, so that finding the
    /// candidates costs what changed and what the client is missing, not a
    /// look at every slot. stale_flag marks the members.
    std::vector<slot_index> stale;
    std::vector<std::uint8_t> stale_flag;
    /// This packet's candidates, candidate_count of them, and their
    /// order_keys; they grow to what the busiest tick so far needed, and
    /// stay.
    std::vector<candidate> candidates;
    std::vector<std::uint64_t> order;
    std::size_t candidate_count = 0;
    std::size_t tried_last = 0;          ///< candidates the last selection tried
    std::vector<const candidate*> taken; ///< taken at their type's bound, not yet measured

    /// A candidate's place in the selection as one integer, the larger sent
    /// first: in flight first, then by priority, ties going to the earlier
    /// entity slot (the earlier field, then the earlier id). From the top:
    /// in flight (1 bit), the priority (32), the slot counted down (31).
    static constexpr std::size_t slot_bits = 31;
    static constexpr std::uint64_t slot_mask = (std::uint64_t{1} << slot_bits) - 1;
    static constexpr std::size_t in_flight_shift = slot_bits + 32;
    static std::uint64_t order_key(bool in_flight, float priority, std::size_t slot) noexcept
    {
        // Floats as integers in the same order (+0 and -0 as one).
        std::uint32_t bits = std::bit_cast<std::uint32_t>(priority == 0.0f ? 0.0f : priority);
        bits = (bits & 0x80000000u) != 0 ? ~bits : bits | 0x80000000u;
        return (std::uint64_t{in_flight} << in_flight_shift) | (std::uint64_t{bits} << slot_bits) |
               (slot_mask - static_cast<std::uint64_t>(slot));
    }
    static std::size_t slot_of_key(std::uint64_t key) noexcept
    {
        return static_cast<std::size_t>(slot_mask - (key & slot_mask));
    }

    /// The views' Watcher (client_views): a slot's baseline value is about
    /// to change (fetch) and changed (base_changed).
    void fetch(std::size_t slot) const noexcept
    {
        BITREP_PREFETCH(stale_flag.data() + slot);
        BITREP_PREFETCH(per_slot.data() + slot);
    }
    void base_changed(std::size_t slot) noexcept
    {
        per_slot[slot].compared = empty_ref;
        mark_stale(slot);
    }

    void mark_stale(std::size_t slot) noexcept
    {
        if (stale_flag[slot] == 0) {
            stale_flag[slot] = 1;
            stale.push_back(static_cast<slot_index>(slot));
        }
    }

    /// Brings the stale list up to the history's tick: the slots that
    /// changed since, or (after a gap longer than the history, and at
    /// first) every slot whose baseline ref (`base_refs`) differs from the
    /// world's.
    void refresh_stale(const value_ref* base_refs)
    {
        const history& past = s_->history_;
        const std::size_t slot_count = s_->slot_count;
        const bool fed = stale_known && past.changes_since(stale_tick, [&](std::size_t s) { mark_stale(s); });
        if (!fed) {
            for (const std::size_t s : stale)
                stale_flag[s] = 0;
            stale.clear();
            for_each_mismatch(base_refs, past.refs(), slot_count, [&](std::size_t s) { mark_stale(s); });
            stale_known = true;
        }
        stale_tick = past.tick();
        if (stale.size() * 8 >= slot_count) {
            // Dense: in slot order, so that the scans that follow read the
            // per-slot arrays front to back, which the prefetcher follows
            // (in change order, nearly every read missed the cache).
            std::size_t n = 0;
            for (std::size_t s = 0; s < slot_count; ++s)
                if (stale_flag[s] != 0)
                    stale[n++] = static_cast<slot_index>(s);
        }
    }

    /// Drops from the stale list the slots whose baseline ref is the world's.
    void prune_stale(const value_ref* base_refs) noexcept
    {
        const value_ref* now = s_->history_.refs();
        std::size_t kept = 0;
        for (const slot_index s : stale) {
            if (base_refs[s] == now[s])
                stale_flag[s] = 0;
            else
                stale[kept++] = s;
        }
        stale.resize(kept);
    }

    /// The priority slot `index` has accumulated while a candidate, before
    /// packet number `packets_sent`.
    float accumulated(std::size_t index, std::uint64_t packets_sent) const noexcept
    {
        const slot_entry<SlotIndex>& entry = per_slot[index];
        return entry.epoch == static_cast<std::uint32_t>(packets_sent) ? entry.priority : 0.0f;
    }

    /// Adds candidate `made` for entity slot `slot`, in flight or not, at
    /// `priority`.
    BITREP_ALWAYS_INLINE void add(const candidate& made, std::size_t slot)
    {
        const std::size_t n = candidate_count;
        if (n == candidates.size()) [[unlikely]]
            grow();
        candidate_count = n + 1;
        per_slot[slot].candidate_at = static_cast<slot_index>(n);
        order[n] = order_key(made.in_flight, made.priority, slot);
        candidates[n] = made;
    }

    /// The packet that was planned went out as packet number
    /// `packets_sent`: the candidates left waiting keep what they
    /// accumulated, for the next packet (the others count from nothing when
    /// they wait again).
    void keep_waiting(std::uint64_t packets_sent) noexcept
    {
        const auto epoch = static_cast<std::uint32_t>(packets_sent + 1);
        for (std::size_t i = 0; i < candidate_count; ++i) {
            const candidate& left = candidates[i];
            if (!left.taken) {
                slot_entry<SlotIndex>& entry = per_slot[s_->layout_.array_of(left.field).first_slot + left.id];
                entry.priority = left.priority;
                entry.epoch = epoch;
            }
        }
    }

    std::size_t bytes() const noexcept
    {
        constexpr std::size_t pointer_bytes = sizeof(void*); // what `taken` allocates per entry
        return per_slot.capacity() * sizeof(slot_entry<SlotIndex>) + candidates.capacity() * sizeof(candidate) +
               taken.capacity() * pointer_bytes + order.capacity() * sizeof(std::uint64_t) +
               stale.capacity() * sizeof(slot_index) + stale_flag.capacity();
    }

private:
    std::uint32_t stale_tick = 0;
    bool stale_known = false; ///< else rebuilt by comparing every slot
    const server_shared* s_;

    /// Room for more candidates.
    BITREP_NOINLINE void grow()
    {
        const std::size_t size = std::max<std::size_t>(64, candidates.size() * 2);
        candidates.resize(size);
        order.resize(size);
    }
};

} // namespace bitrep::replication::server_side
