// What the replication server's connections share: the options, the
// State's layout, the callbacks and the world history (server_core::impl).
// The parts each connection keeps are in connection.hpp; indexed_server
// (../server_core.cpp) ties them together.
#pragma once

#include <bitrep/replication/server_core.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <memory>
#include <vector>

#include <bitrep/detail/portability.hpp>
#include <bitrep/engine/delta.hpp>
#include <bitrep/replication/protocol.hpp>
#include <bitrep/replication/state_layout.hpp>
#include <bitrep/replication/world_history.hpp>

namespace bitrep::replication {

/// What every connection shares, whatever the width of the slot numbers:
/// the options, the State's layout, the callbacks, the world history and
/// what is kept of it per slot for all clients. Each connection's parts
/// (server/connection.hpp) read it; replicate() writes to it only through
/// atomics (reported_, same_memo_). The work is indexed_server's.
class server_core::impl {
public:
    using priority_function = server_core::priority_function;
    using relevancy_function = server_core::relevancy_function;
    using entity_priority_function = server_core::entity_priority_function;
    using entity_relevancy_function = server_core::entity_relevancy_function;
    using entity_owner_function = server_core::entity_owner_function;
    using invalid_value_function = server_core::invalid_value_function;

    impl(const state_layout& layout, const replication_options& options, find_unencodable_function find)
        : options_(options), layout_(layout), find_unencodable_(find), slot_count(layout.slot_count),
          field_count(layout.field_count), difference_limit(slot_count / 16),
          sent_log_size(std::bit_ceil(4 * (difference_limit + 1))), hash_views(slot_count >= 4096),
          prefetch_far(slot_count >= 4096),
          typed_priority_(field_count), typed_relevant_(field_count), typed_owner_(field_count),
          reported_(new std::atomic<bool>[slot_count + field_count]), default_fields_(layout_),
          history_(layout_, std::max(options.history, 2 * ring_size(options.window))),
          same_memo_(std::make_unique<std::atomic<std::uint64_t>[]>(slot_count))
    {
        options_.window = ring_size(options_.window);
        // Room for the CRC (or number and tag), the header and the check value at least.
        options_.max_packet_bytes = server_packet_bytes(options_);
        for (std::size_t i = 0; i < slot_count + field_count; ++i)
            reported_[i].store(false, std::memory_order_relaxed);
    }

    virtual ~impl() = default;
    impl(const impl&) = delete;
    impl& operator=(const impl&) = delete;

    virtual client_id add_client(const packet_key& key, std::uint64_t connection_id,
                                 std::unique_ptr<connection_parts> parts) = 0;
    virtual void remove_client(client_id id) noexcept = 0;
    virtual bool has_client(client_id id) const noexcept = 0;
    virtual connection_parts* parts(client_id id) const noexcept = 0;
    virtual std::size_t client_ids() const noexcept = 0;
    virtual status replicate(client_id id, std::span<const std::uint8_t>& packet) = 0;
    virtual status receive(client_id id, std::span<const std::uint8_t> bytes) = 0;
    virtual const server_client_statistics* statistics(client_id id) const noexcept = 0;
    virtual bool sent_state(client_id id, std::uint16_t sequence, void* out) const = 0;
    virtual std::size_t client_bytes(client_id id) const noexcept = 0;
    virtual std::size_t shared_bytes() const noexcept = 0;

    void update(const void* state)
    {
        const bool changed = history_.observe(state);
        observed_ = state;
        if (changed && (history_.tick() & memo_tick_mask) == 0) // the memo's ticks wrapped (every 2^31 changes)
            for (std::size_t s = 0; s < slot_count; ++s)
                same_memo_[s].store(0, std::memory_order_relaxed);
    }

    std::size_t message_other_bits(std::size_t framing_bits, bool inputs) const noexcept
    {
        std::size_t bits = 8 * (prefix_bytes(options_.security) + suffix_bytes(options_.security)) + packet_header::bits +
                           packet_header::coded_bits + 7 + framing_bits + 7 + 1 + (options_.check_value ? 32 : 0);
        if (inputs)
            bits += 17;
        std::size_t always_sent = layout_.shared.size(); // a changed bit each
        for (const kept_field& f : layout_.kept)
            always_sent = bitrep::detail::add_bits(always_sent, f.entity_array ? 1 : engine::max_delta_bits(*f.entry));
        return always_sent == unbounded_bits ? bits : bits + always_sent;
    }

    /// A kept field's value made on its own (a conditioned entity array's
    /// copies for one client).
    static std::shared_ptr<void> kept_object(const kept_field& f)
    {
        return std::shared_ptr<void>(f.ops->make(), f.ops->destroy);
    }

    /// The priority of `entity` (the State's, or the client's conditioned
    /// copy), when a callback is set for its entity array (has_priority_callback).
    float priority_of(client_id id, entity_key key, const void* state, const void* entity) const
    {
        if (const auto& typed = typed_priority_[key.field])
            return typed(id, key.id, entity);
        return priority_(id, key, state);
    }

    /// Whether priority_of calls a callback for entity array `field`.
    bool has_priority_callback(std::size_t field) const noexcept { return typed_priority_[field] || priority_; }

    bool is_relevant(client_id id, entity_key key, const void* state, const void* entity) const
    {
        if (const auto& typed = typed_relevant_[key.field])
            return typed(id, key.id, entity);
        return !relevant_ || relevant_(id, key, state);
    }

    /// Whether the target of an entity array's slots may differ per client
    /// (relevancy), so that every slot must be looked at for each.
    bool relevancy_set(std::size_t field) const noexcept { return typed_relevant_[field] || relevant_; }

    /// Two slots of `array` equal on the wire: the same bytes, or both empty,
    /// or both holding entities that are.
    static bool same_slot(const entity_array_layout& array, const void* a, const void* b)
    {
        const slot_ops& ops = *array.ops;
        return ops.next_differing(a, b, 0, 1) == 1 || engine::same<scope::replication>(*ops.entry, a, b);
    }

    /// same_slot of a shared slot's values named by refs `a` and `b`, asked
    /// once per world tick for every client holding the same baseline: the
    /// answer is kept per slot in one word (the history's tick, both refs,
    /// the answer), which refs name the same values while the tick stands.
    /// (Inlined into the candidates' loop: a call there, once per slot,
    /// would spill the loop's registers.)
    BITREP_ALWAYS_INLINE bool same_slot_memo(const entity_array_layout& array, std::size_t slot, value_ref a,
                                             const void* x, value_ref b, const void* y) const
    {
        const std::uint64_t key = (std::uint64_t{history_.tick() & memo_tick_mask} << 33) |
                                  (std::uint64_t{a} << 17) | (std::uint64_t{b} << 1);
        std::atomic<std::uint64_t>& entry = same_memo_[slot];
        const std::uint64_t held = entry.load(std::memory_order_relaxed);
        if ((held & ~std::uint64_t{1}) == key)
            return (held & 1) != 0;
        const bool same = same_slot(array, x, y);
        entry.store(key | (same ? 1 : 0), std::memory_order_relaxed);
        return same;
    }

    /// Sets `state`'s kept fields to `values`.
    void assign_kept(void* state, const kept_values& values) const
    {
        for (std::size_t k = 0; k < layout_.kept.size(); ++k)
            layout_.kept[k].ops->assign(layout_.kept[k].in(state), values.at(k));
    }

    replication_options options_;
    /// The State as the code compiled in the library sees it.
    const state_layout& layout_;
    find_unencodable_function find_unencodable_;
    /// Entity slots, over every entity array, and top-level fields.
    const std::size_t slot_count;
    const std::size_t field_count;
    /// Past this many slots to look at, finding where a view differs from
    /// the baseline's compares every slot instead (for_each_difference).
    const std::size_t difference_limit;
    /// The places of the ring of the slots recent packets took (sent_log):
    /// a few packets' worth of difference_limit.
    const std::size_t sent_log_size;
    /// Whether views are compared by hashes kept as their refs change
    /// (view_hash) rather than by their refs: from 4,096 slots, where
    /// reading three ref arrays per client costs more than the hashes'
    /// upkeep (four 64-bit mixes per changed ref; for the cube world's
    /// 1,024 slots the upkeep costs more than comparing the refs).
    const bool hash_views;
    /// Whether finding the candidates fetches each client's per-slot
    /// entries ahead: from 4,096 slots, where they are seldom in the cache
    /// (2.4 MB per client at 10,000 slots). For the cube world's 1,024,
    /// whose entries stay in the cache, the fetches only add instructions.
    const bool prefetch_far;
    priority_function priority_;
    relevancy_function relevant_;
    /// Per top-level field: the typed callbacks of its entity array.
    std::vector<entity_priority_function> typed_priority_;
    std::vector<entity_relevancy_function> typed_relevant_;
    std::vector<entity_owner_function> typed_owner_;
    invalid_value_function on_invalid_;
    /// Per entity slot, then per top-level field: reported to on_invalid_
    /// and not encodable since. Shared by every connection (one report per
    /// value, not per client), so atomic.
    std::unique_ptr<std::atomic<bool>[]> reported_;
    /// A view's kept fields as value-initialized values (a default State's
    /// initializers aside): the baseline's before any is acknowledged.
    const kept_values default_fields_;
    /// The world's recent past, shared by every client, and the state of
    /// the last update().
    history history_;
    /// Per shared entity slot: its last comparison (same_slot_memo). One
    /// word each, relaxed: replicate() runs on several threads, and a word
    /// is whole or not there.
    static constexpr std::uint32_t memo_tick_mask = 0x7FFFFFFFu;
    std::unique_ptr<std::atomic<std::uint64_t>[]> same_memo_;
    const void* observed_ = nullptr;
};

namespace server_side {
using server_shared = server_core::impl;

/// Of one slot's `count` cache ways (each with its `tick` and `stamp`), the
/// one a new entry of tick `tick` replaces: one from an earlier tick, else
/// the oldest (the delta cache's and the coded records').
template <class Way>
BITREP_ALWAYS_INLINE Way& way_to_replace(Way* ways, std::size_t count, std::uint32_t tick) noexcept
{
    Way* victim = ways;
    for (std::size_t w = 1; w < count && victim->tick == tick; ++w)
        if (ways[w].tick != tick || ways[w].stamp < victim->stamp)
            victim = &ways[w];
    return *victim;
}
} // namespace server_side

} // namespace bitrep::replication
