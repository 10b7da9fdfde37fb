// replication::server_core: the replication server compiled once, over the
// State's layout (include/bitrep/replication/server_core.hpp). Per client,
// the packet to send each tick, as a delta against the newest state the
// client acknowledged, within a bit budget spent on the entities of
// highest accumulated priority (docs/design/replication-server.md).
#include <bitrep/replication/server_core.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cassert>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include "../engine/delta_cost.hpp"
#include <bitrep/detail/inline.hpp>
#include <bitrep/engine/delta.hpp>
#include <bitrep/replication/protocol.hpp>
#include <bitrep/replication/state_layout.hpp>
#include <bitrep/replication/world_history.hpp>
#include <bitrep/wire/coded_stream.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep::replication {

/// What the server keeps whatever the width of its slot numbers: the
/// options, the State's layout, the callbacks and the world history. The
/// work is indexed_server's.
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
        options_.max_packet_bytes = std::max<std::size_t>(
            options_.max_packet_bytes, 16 + prefix_bytes(options_.security) + suffix_bytes(options_.security) - crc_bytes);
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
    /// 1,024 slots the upkeep measured 12,800 instructions per client per
    /// tick, comparing a few hundred).
    const bool hash_views;
    /// Whether finding the candidates fetches each client's per-slot
    /// entries ahead: from 4,096 slots, where they are seldom in the cache
    /// (2.4 MB per client at 10,000 slots). For the cube world's 1,024 it
    /// added 13,000 instructions per client per tick and no time.
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

/// The server's work for slot numbers of type SlotIndex: 2 bytes when the
/// State's entity slots fit them (the per-slot arrays a client holds stay
/// that small), else 4.
template <class SlotIndex>
class indexed_server final : public server_core::impl {
public:
    using impl::impl;

    bool has_client(client_id id) const noexcept override { return find(id) != nullptr; }
    connection_parts* parts(client_id id) const noexcept override
    {
        const connection* c = find(id);
        return c != nullptr ? c->parts.get() : nullptr;
    }
    std::size_t client_ids() const noexcept override { return connections_.size(); }
    const server_client_statistics* statistics(client_id id) const noexcept override
    {
        const connection* c = find(id);
        return c != nullptr ? &c->stats : nullptr;
    }
    client_id add_client(const packet_key& key, std::uint64_t connection_id,
                         std::unique_ptr<connection_parts> parts) override
    {
        auto c = std::make_unique<connection>();
        c->parts = std::move(parts);
        c->guard = packet_guard(options_.security, key, direction::server_to_client, connection_id);
        if (options_.security == packet_security::aead && key.present() && aead_available()) {
            // A reconnection given the key again without a new id would
            // repeat the earlier connection's nonces: refuse it, loudly.
            const std::uint64_t fingerprint = connection_fingerprint(key, connection_id);
            if (std::find(used_pairs_.begin(), used_pairs_.end(), fingerprint) != used_pairs_.end())
                c->guard.refuse_reused_pair();
            else
                used_pairs_.push_back(fingerprint);
        }
        if (options_.security == packet_security::aead)
            c->guard.reserve_body(options_.max_packet_bytes);
        c->ring.resize(options_.window);
        c->ring_refs.resize(options_.window);
        for (auto& refs : c->ring_refs)
            refs.assign(slot_count, empty_ref);
        c->ring_fields.assign(options_.window, default_fields_);
        c->draft.fields = default_fields_;
        c->base_fields = default_fields_;
        c->draft.refs.assign(slot_count, empty_ref);
        c->base_state = state_object(layout_);
        c->base_refs.assign(slot_count, empty_ref);
        c->per_slot.assign(slot_count, slot_entry{});
        c->sent_log.assign(sent_log_size, 0);
        c->draft.sent.assign(difference_limit + 1, 0);
        c->base_log.assign(std::bit_ceil(difference_limit), 0);
        c->stale.reserve(slot_count);
        c->moved.assign(slot_count, 0);
        c->stale_flag.assign(slot_count, 0);
        // The candidates, their order keys and the taken list grow to what
        // the busiest tick so far needed, and stay.
        c->unsendable.assign(slot_count + field_count, 0);
        c->draft.mended.reserve(slot_count + field_count);
        c->packet.assign(options_.max_packet_bytes, 0);
        c->tokens = static_cast<double>(options_.max_packet_bytes);
        // The client's own copies of the entities of arrays with conditions.
        c->conditioned.resize(field_count);
        for (const entity_array_layout& array : layout_.arrays)
            if (!array.shared)
                c->conditioned[array.field] = kept_object(layout_.kept[array.kept_index]);
        connections_.push_back(std::move(c));
        return static_cast<client_id>(connections_.size() - 1);
    }

    void remove_client(client_id id) noexcept override
    {
        connection* c = find(id);
        if (c == nullptr)
            return;
        if (in_use_.load(std::memory_order_acquire) == 0) {
            connections_[id].reset();
            return;
        }
        c->removed = true;
        removals_pending_.store(true, std::memory_order_release);
    }

    status replicate(client_id id, std::span<const std::uint8_t>& packet) override
    {
        packet = {};
        connection* c = find(id);
        if (c == nullptr) [[unlikely]]
            return status(error::unknown_client, 0, "client", "no such client");
        if (observed_ == nullptr) [[unlikely]]
            return status(error::no_baseline, 0, "world", "replicate(id, out) before any update(state)");
        const void* state = observed_;
        // A callback (on_invalid_value, priority, relevancy) may remove this
        // client while its packet is being built.
        const connection_scope in_use(*this);
        scratch_lease lease(*this);
        scratch& work = *lease;
        start_tick(work);
        status result = build_fitting(*c, work, id, state);
        if (!result && result.code() == error::value_out_of_range) [[unlikely]] {
            // Some value cannot be encoded: find which, leave those out, and
            // build the packet again without them.
            drop(*c);
            if (mark_unsendable(*c, state))
                result = build_fitting(*c, work, id, state);
        }
        forget_unsendable(*c);
        if (!result) [[unlikely]] {
            drop(*c);
            return result;
        }
        if (c->removed) [[unlikely]]
            return status(error::unknown_client, 0, "client", "removed while its packet was built");
        commit(*c);
        packet = std::span<const std::uint8_t>(c->packet.data(), c->draft.size);
        return {};
    }

    status receive(client_id id, std::span<const std::uint8_t> bytes) override
    {
        connection* c = find(id);
        if (c == nullptr) [[unlikely]]
            return status(error::unknown_client, 0, "client", "no such client");
        // Left by return or by a handler's exception alike, so that a throwing
        // handler cannot keep removed connections alive.
        const connection_scope in_use(*this);
        status result;
        {
            const packet_guard::body_scope wiped(c->guard);
            result = apply_client_packet(*c, id, bytes);
        }
        (result ? c->stats.acks_received : c->stats.acks_refused) += 1;
        return result;
    }

    bool sent_state(client_id id, std::uint16_t sequence, void* out) const override
    {
        const connection* c = find(id);
        if (c == nullptr)
            return false;
        const std::size_t row = sequence % options_.window;
        const sent_view& slot = c->ring[row];
        if (!slot.valid || slot.sequence != sequence || !fresh(slot))
            return false;
        // A default State holds no entity: every slot as empty_ref names it.
        std::vector<value_ref> held(slot_count, empty_ref);
        return materialize(*c, c->ring_refs[row].data(), c->ring_fields[row], out, held);
    }

    std::size_t client_bytes(client_id id) const noexcept override
    {
        const connection* c = find(id);
        if (c == nullptr)
            return 0;
        std::size_t bytes = sizeof(connection) + layout_.state_size;
        for (const auto& refs : c->ring_refs)
            bytes += sizeof(refs) + refs.capacity() * sizeof(value_ref);
        bytes += c->ring.capacity() * sizeof(sent_view);
        for (const kept_values& fields : c->ring_fields)
            bytes += fields.bytes();
        bytes += (c->sent_log.capacity() + c->draft.sent.capacity() + c->base_log.capacity()) * sizeof(slot_index);
        bytes += (c->draft.refs.capacity() + c->base_refs.capacity()) * sizeof(value_ref);
        bytes += c->per_slot.capacity() * sizeof(slot_entry);
        // NOLINTNEXTLINE(bugprone-sizeof-expression): `taken` holds pointers, and their size is what it allocates
        bytes += c->candidates.capacity() * sizeof(candidate) + c->taken.capacity() * sizeof(const candidate*);
        bytes += c->unsendable.capacity() + c->draft.mended.capacity() * sizeof(std::uint32_t) + c->packet.capacity();
        bytes += c->order.capacity() * sizeof(std::uint64_t) +
                 (c->stale.capacity() + c->moved.capacity()) * sizeof(slot_index) + c->stale_flag.capacity();
        return bytes;
    }

    std::size_t shared_bytes() const noexcept override
    {
        std::size_t bytes = sizeof(*this) + history_.history_bytes();
        std::lock_guard<std::mutex> lock(scratch_mutex_);
        for (const auto& sc : scratch_free_) {
            bytes += sizeof(scratch) + sc->cache.capacity() * sizeof(cached_delta) +
                     sc->words.capacity() * sizeof(std::uint32_t) + sc->encoded.capacity() +
                     2 * slot_count * sizeof(value_ref);
            for (const coded_section& section : sc->sections)
                bytes += (section.older_refs.capacity() + section.base_refs.capacity() + section.view_refs.capacity()) *
                             sizeof(value_ref) +
                         section.bytes.capacity();
        }
        return bytes;
    }

    /// What a state packet holds besides one message: CRC and headers
    /// (coded at the most), the input ack, the message section's framing
    /// and padding, and the fields sent in every packet at their bound
    /// (when they have one; else a message that leaves them no room waits
    /// until they are smaller).
    /// An entity slot's number, counted over every entity array.
    using slot_index = SlotIndex;
    /// An entity slot's delta from the value `base` names to the one
    /// `target` names, measured, and its bits once encoded.
    struct cached_delta {
        static constexpr std::uint32_t no_words = 0xFFFFFFFFu;
        std::uint32_t tick = 0;
        value_ref base = 0;
        value_ref target = 0;
        std::uint32_t bound = 0;  ///< the measure stream's bits() (alignment at 7 bits)
        std::uint32_t exact = 0;  ///< its exact bits; equal to bound: no alignment, so the bits can be copied anywhere
        std::uint32_t offset = no_words;
        std::uint32_t stamp = 0; ///< when made, to replace the oldest of a slot's ways
    };
    static constexpr std::size_t cache_ways = 4;
    /// A view's refs summed up, kept as they change (when hash_views):
    /// over the slots holding a value, two sums (mod 2^64) of a different
    /// mix of (slot, ref) each. Equal refs give equal sums; refs that differ
    /// give equal sums by chance only, about once in 2^128 (each mix spreads
    /// every bit of its input over the 64 of its output).
    struct view_hash {
        std::uint64_t a = 0, b = 0;
        bool operator==(const view_hash&) const = default;
    };
    static std::uint64_t mix(std::uint64_t x, std::uint64_t k1, std::uint64_t k2) noexcept
    {
        x = (x ^ (x >> 30)) * k1;
        x = (x ^ (x >> 27)) * k2;
        return x ^ (x >> 31);
    }
    static view_hash slot_hash(std::size_t slot, value_ref ref) noexcept
    {
        if (ref == empty_ref)
            return {};
        const std::uint64_t key = (static_cast<std::uint64_t>(slot) << 16) | ref;
        return {mix(key + 0x9E3779B97F4A7C15u, 0xBF58476D1CE4E5B9u, 0x94D049BB133111EBu),
                mix(key + 0x7F4A7C159E3779B9u, 0xFF51AFD7ED558CCDu, 0xC4CEB9FE1A85EC53u)};
    }
    static void rehash(view_hash& hash, std::size_t slot, value_ref was, value_ref now) noexcept
    {
        const view_hash out = slot_hash(slot, was), in = slot_hash(slot, now);
        hash.a += in.a - out.a;
        hash.b += in.b - out.b;
    }
    view_hash hash_of(const value_ref* refs) const noexcept
    {
        view_hash hash;
        for (std::size_t s = 0; s < slot_count; ++s)
            rehash(hash, s, empty_ref, refs[s]);
        return hash;
    }
    /// A coded packet's state section and the views it was encoded from:
    /// their refs, or with hash_views their hashes.
    struct coded_section {
        bool used = false;
        bool has_older = false;
        std::vector<value_ref> older_refs, base_refs, view_refs;
        view_hash older_hash, base_hash, view_hash_;
        kept_values older_fields{}, base_fields{}, view_fields{};
        std::vector<std::uint8_t> bytes;
    };
    /// What the server knows of a packet it sent; its view (what the packet
    /// brought the client to) is in the connection's ring_refs and
    /// ring_fields rows of the same index.
    struct sent_view {
        std::uint16_t sequence = 0;
        bool valid = false;
        bool acked = false;
        bool has_baseline = false;  ///< the packet was a delta against `baseline`
        bool usable = true;         ///< false once a value of its view left the history before it became a baseline
        std::uint16_t baseline = 0;
        /// The baseline log's length when the packet was made: its view was
        /// the baseline's refs then, but for the slots it took, listed in
        /// the sent log from sent_at (while later packets have not
        /// overwritten them).
        std::uint32_t log_at = 0;
        std::uint32_t sent_at = 0;
        std::uint32_t tick = 0; ///< the history's tick when it was made (see fresh)
        std::uint32_t sent_count = 0;            ///< more than difference_limit: too many to list
        view_hash hash{}; ///< of its view's refs (with hash_views)
    };
    view_hash hash_at(const sent_view& view) const noexcept
    {
        if (hash_views)
            return view.hash;
        else
            return {};
    }
    /// A view as the server keeps it: a value_ref per entity slot (those of
    /// entity arrays with conditions unused) and the other fields by value.
    struct view_parts {
        const value_ref* refs;
        const kept_values* fields;
        view_hash hash; ///< of refs (hash_views)
    };
    /// Per entity array: how many entities are sent and the sum of their
    /// indices' listed_index_bits, each at its worst (listed first).
    struct array_use {
        std::size_t count = 0;
        std::size_t index_bits = 0;
        /// The array's layout, and what its cost model reads of it, as values.
        const entity_array_layout* array = nullptr;
        std::size_t capacity = 0;
        std::size_t count_bits = 0;
        std::size_t max_changed_bits = 0;
    };
    /// States built per packet, lent to one replicate() at a time: the
    /// packet's view and the coded encoding's older view, with the refs each
    /// holds so that the next packet (usually much the same) copies only the
    /// slots that differ.
    struct scratch {
        explicit scratch(const state_layout& layout)
            : view(layout), older(layout), view_refs(layout.slot_count, empty_ref),
              older_refs(layout.slot_count, empty_ref), cache(layout.slot_count * cache_ways),
              hints(layout.field_count), uses(layout.field_count), models(layout.state_entry->slots)
        {
            // Made now, so that keeping a section copies into them without
            // allocating.
            for (coded_section& section : sections)
                section.older_fields = section.base_fields = section.view_fields = kept_values(layout);
        }
        state_object view;
        state_object older;
        std::vector<value_ref> view_refs;
        std::vector<value_ref> older_refs;
        /// Per entity slot, the last `cache_ways` deltas encoded for it this
        /// tick (for any client): clients whose baselines hold the same value
        /// share them.
        std::vector<cached_delta> cache;
        std::uint32_t cache_tick = 0; ///< history tick + 1 the cache is for
        std::uint32_t stamps = 0;
        std::vector<std::uint32_t> words; ///< the cached deltas' bits
        std::vector<std::uint8_t> encoded;
        /// The element hints of one packet (see engine::element_hint).
        std::vector<std::uint32_t> hint_changed;
        std::vector<std::uint32_t> hint_offsets;
        std::vector<const std::uint32_t*> hint_words;
        std::vector<std::uint32_t> hint_bits;
        std::vector<engine::element_hint> hints; ///< one per top-level field at most
        /// Per top-level field, what its entity array's entities take of
        /// the packet being built (packet_bound).
        std::vector<array_use> uses;
        /// The coded entity sections of this tick's last packets, each for
        /// its (older, baseline, view): a client in the same position gets
        /// the same bytes without encoding them.
        std::array<coded_section, 16> sections{};
        std::size_t next_section = 0;
        view_parts older_parts{nullptr, nullptr, {}}; ///< the older view older_state chose
        /// The coded encoding's models: each packet starts them afresh, so
        /// one set serves every client this scratch encodes for.
        std::vector<coded_slot> models;
    };
    /// Takes a scratch from the pool (one per thread replicating at once;
    /// made on first use) and gives it back.
    class scratch_lease {
    public:
        explicit scratch_lease(indexed_server& server) : server_(server)
        {
            std::lock_guard<std::mutex> lock(server_.scratch_mutex_);
            if (server_.scratch_free_.empty()) {
                held_ = std::make_unique<scratch>(server_.layout_);
            } else {
                held_ = std::move(server_.scratch_free_.back());
                server_.scratch_free_.pop_back();
            }
        }
        ~scratch_lease()
        {
            std::lock_guard<std::mutex> lock(server_.scratch_mutex_);
            server_.scratch_free_.push_back(std::move(held_));
        }
        scratch_lease(const scratch_lease&) = delete;
        scratch_lease& operator=(const scratch_lease&) = delete;
        scratch& operator*() noexcept { return *held_; }

    private:
        indexed_server& server_;
        std::unique_ptr<scratch> held_;
    };

    /// Readies a scratch for this tick: its cached deltas and coded
    /// sections are of an earlier one.
    void start_tick(scratch& work) const
    {
        if (work.cache_tick == history_.tick() + 1)
            return;
        if (history_.tick() + 1 - work.cache_tick >= view_age) [[unlikely]] {
            // Unused for so long that the refs of the views it holds may
            // have been given out again: forget them.
            work.view.reset();
            work.older.reset();
            std::fill(work.view_refs.begin(), work.view_refs.end(), empty_ref);
            std::fill(work.older_refs.begin(), work.older_refs.end(), empty_ref);
        }
        work.cache_tick = history_.tick() + 1;
        work.words.clear();
        for (coded_section& section : work.sections)
            section.used = false;
    }

    /// What a client's packets keep per entity slot for finding and
    /// ordering candidates, together: a candidate reads and writes one
    /// cache line of them (in worlds of 10,000 entities, where a client's
    /// per-slot entries are out of the cache, each array was a miss).
    struct slot_entry {
        /// The priority accumulated while the slot stays a candidate; it
        /// counts only when `epoch` says it was one in the previous packet
        /// (epochs are packets_sent + 1).
        float priority = 0.0f;
        std::uint32_t epoch = 0;
        /// A ref whose value was found to differ on the wire from the
        /// baseline's (empty_ref: none), so that a slot left waiting is not
        /// compared again every packet; cleared when the baseline's slot
        /// changes.
        value_ref compared = empty_ref;
        slot_index candidate_at = 0; ///< its index in candidates, this packet
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
    /// Everything building a packet changes of its connection, apart until
    /// the packet exists: commit() applies it whole, a failed build drops it
    /// whole (start() makes the next from the connection again). What a
    /// build writes outside it holds whatever becomes of the packet: the
    /// baseline made into values and what the selection learnt of it (the
    /// slots found to differ or not), the candidates' places, the scratch.
    struct packet_draft {
        packet_header header;
        std::size_t size = 0;
        /// The view the packet brings the client to: a ref per entity slot
        /// and the other fields by value, their hash (hash_views), and the
        /// shared slots it takes, as slot numbers (difference_limit + 1
        /// places: past difference_limit, too many to list) and as (field, id).
        std::vector<value_ref> refs;
        kept_values fields{};
        view_hash hash;
        std::vector<slot_index> sent;
        std::size_t sent_count = 0;
        std::vector<std::pair<std::uint16_t, std::uint32_t>> sent_ids;
        /// Between packets, when refs_known: `refs` holds the view of the
        /// packet refs_were describes (the ring row the last packet took
        /// held it), for start_next_view.
        sent_view refs_were{};
        bool refs_known = false;
        /// The connection's statistics, byte tokens and coded ratio as they
        /// are once the packet is sent.
        server_client_statistics stats;
        double tokens = 0;
        double coded_ratio = 1.0;
        std::vector<std::uint32_t> mended; ///< reported values the packet sends as they are

        /// A new draft on the connection's figures (`ratio`: the coded
        /// ratio to plan with).
        void start(const server_client_statistics& now, double tokens_now, double ratio)
        {
            header = {};
            size = 0;
            sent_count = 0;
            sent_ids.clear();
            stats = now;
            tokens = tokens_now;
            coded_ratio = ratio;
            mended.clear();
        }
    };
    /// Everything replicate() touches belongs to one connection (or is read
    /// only, or atomic), so replicate() for different clients may run on
    /// different threads (docs/design/threads.md, "Replication").
    struct connection {
        bool removed = false; ///< by remove_client() during a call: freed when the outermost returns
        /// The packets in the window, by sequence % window, and their views
        /// (refs and other fields) at the same index. A packet's view is
        /// built in its draft and swapped in only once the packet exists.
        std::vector<sent_view> ring;
        std::vector<std::vector<value_ref>> ring_refs;
        std::vector<kept_values> ring_fields;
        /// The baseline's view, materialized: a State holding the values its
        /// refs name (kept here, since the history forgets old values that
        /// a slow client may still hold), its refs, its other fields, and
        /// which packet it is (none: the default state).
        state_object base_state;
        std::vector<value_ref> base_refs;
        kept_values base_fields{};
        /// The shared entity slots whose baseline ref may differ from the
        /// world's: every slot whose world ref or baseline ref changed since
        /// it was last found equal (a slot found equal is dropped), fed by
        /// the history's change lists up to stale_tick, so that finding the
        /// candidates costs what changed and what the client is missing,
        /// not a look at every slot. stale_flag marks the members.
        std::vector<slot_index> stale;
        std::vector<std::uint8_t> stale_flag;
        std::vector<slot_index> moved; ///< materialize_base's slots that differ (repeats allowed), moved_count of them
        std::size_t moved_count = 0;
        /// The slots whose baseline ref changed, in order: a ring of the
        /// last base_log.size() of them, base_log_end counting all. With the
        /// slots a packet took (in the sent log, unless there were more than
        /// difference_limit), it says where the packet's view may differ
        /// from the baseline's without comparing every slot.
        std::vector<slot_index> base_log;
        std::uint32_t base_log_end = 0; ///< mod 2^32: only differences of a window's packets are taken
        /// The slots the packets took, packet after packet: a ring of the
        /// last sent_log_size, sent_log_end counting all.
        std::vector<slot_index> sent_log;
        std::uint32_t sent_log_end = 0;
        view_hash base_hash; ///< of base_refs (hash_views)
        std::uint32_t stale_tick = 0;
        bool stale_known = false; ///< else rebuilt by comparing every slot
        bool base_default = true;
        std::uint16_t base_sequence = 0;
        std::uint16_t next_sequence = 0;
        bool has_acked = false;
        std::uint16_t newest_acked = 0;
        bool suspect_ack = false;        ///< an ack named a packet not sent yet: see apply_ack
        std::uint16_t suspect_newest = 0;
        /// Per entity slot, what finding and ordering candidates keeps
        /// (slot_entry): one cache line to fetch per candidate.
        std::vector<slot_entry> per_slot;
        std::vector<candidate> candidates;
        std::vector<std::uint64_t> order;         ///< the candidates' order_keys
        std::size_t candidate_count = 0;          ///< of candidates and order, those this packet's
        std::size_t tried_last = 0;               ///< candidates the last selection tried
        std::vector<const candidate*> taken; ///< taken at their type's bound, not yet measured
        /// Per entity slot, then per top-level field: its current value
        /// cannot be encoded, so this replicate() call keeps the client's
        /// last one (cleared when the call ends).
        std::vector<std::uint8_t> unsendable;
        bool any_unsendable = false;
        std::vector<std::uint8_t> packet;
        packet_guard guard; ///< seals its state packets, opens its client's packets
        double tokens = 0;
        server_client_statistics stats;
        /// Coded bits per bit-packed bit of the entity selection's estimate,
        /// learnt from this client's full packets: the selection may plan
        /// budget / ratio bit-packed bits.
        double coded_ratio = 1.0;
        /// The packet being built (packet_draft).
        packet_draft draft;

        /// Per entity array whose entity has replication conditions, an
        /// object of its type holding this client's copies.
        std::vector<std::shared_ptr<void>> conditioned; ///< by top-level field, made by the field's ops

        /// The client's inputs, and the messages both ways (nullptr: none).
        std::unique_ptr<connection_parts> parts;
    };

    /// A receive() or replicate() under way, whose callbacks may remove
    /// clients: the outermost call frees the removed connections when it
    /// ends. Counted atomically, as replicate() runs on several threads.
    class connection_scope {
    public:
        explicit connection_scope(indexed_server& server) noexcept : server_(server)
        {
            server_.in_use_.fetch_add(1, std::memory_order_acq_rel);
        }
        connection_scope(const connection_scope&) = delete;
        connection_scope& operator=(const connection_scope&) = delete;
        ~connection_scope()
        {
            if (server_.in_use_.fetch_sub(1, std::memory_order_acq_rel) != 1 ||
                !server_.removals_pending_.load(std::memory_order_acquire)) [[likely]]
                return;
            server_.removals_pending_.store(false, std::memory_order_relaxed);
            for (auto& removed : server_.connections_)
                if (removed != nullptr && removed->removed)
                    removed.reset();
        }

    private:
        indexed_server& server_;
    };

    /// The client's connection; none once removed (even while a call still
    /// holds it).
    connection* find(client_id id) const noexcept
    {
        connection* c = id < connections_.size() ? connections_[id].get() : nullptr;
        return c != nullptr && !c->removed ? c : nullptr;
    }

    /// Whether packet `sequence` can be a baseline: acknowledged, and the
    /// client still holds its view (fewer than `window` packets since).
    bool holds_baseline(const connection& c, std::uint16_t sequence) const noexcept
    {
        if (static_cast<std::uint16_t>(c.next_sequence - sequence) >= options_.window)
            return false;
        const sent_view& slot = c.ring[sequence % options_.window];
        return slot.valid && slot.acked && slot.sequence == sequence && fresh(slot);
    }

    /// Whether a sent view is young enough to use: made fewer than
    /// view_age history ticks ago, so that the refs it holds
    /// have not been given out again (world_history.hpp, rename_age).
    bool fresh(const sent_view& view) const noexcept
    {
        return history_.tick() - view.tick < view_age;
    }

    /// The newest acked view still in the window, materialized in
    /// c.base_state; else the default state. When a value of that view has
    /// left the history, the view materialized before stays the baseline
    /// while the client holds it.
    const void* baseline(connection& c, packet_header& header)
    {
        header.has_baseline = false;
        if (c.has_acked && holds_baseline(c, c.newest_acked) && c.ring[c.newest_acked % options_.window].usable &&
            (c.base_default || c.base_sequence != c.newest_acked)) {
            if (!materialize_base(c, c.newest_acked)) [[unlikely]] {
                c.ring[c.newest_acked % options_.window].usable = false;
                c.stats.baselines_skipped += 1;
            }
        }
        if (!c.base_default && holds_baseline(c, c.base_sequence)) {
            header.has_baseline = true;
            header.baseline = c.base_sequence;
            return c.base_state.get();
        }
        if (!c.base_default)
            materialize_default(c);
        return c.base_state.get();
    }

    /// The value (a std::optional<Entity>) `ref` names in slot `id` of the
    /// shared entity array `array` for this client: its baseline's when the
    /// refs agree, else the history's (nullptr when the history no longer
    /// has it).
    BITREP_ALWAYS_INLINE const void* value_of(const connection& c, const entity_array_layout& array,
                                              std::size_t id, value_ref ref) const noexcept
    {
        if (c.base_refs[array.first_slot + id] == ref)
            return array.slot(c.base_state.get(), id);
        return history_.find(array, id, ref);
    }

    /// Makes c.base_state the view of packet `sequence`, copying the slots
    /// whose refs differ; changes nothing and returns false when a value it
    /// needs has left the history.
    bool materialize_base(connection& c, std::uint16_t sequence)
    {
        const std::size_t row = sequence % options_.window;
        const value_ref* want = c.ring_refs[row].data();
        // One scan finds the slots that differ; nothing changes until each
        // of their values is known to be in the history.
        std::size_t n = 0;
        slot_index* moved = c.moved.data();
        for_each_difference(c, c.ring[row], want, [&](std::size_t s) { moved[n++] = static_cast<slot_index>(s); });
        c.moved_count = n;
        // The baseline's slots and the client's entries for them are seldom
        // in the cache (each client has its own): fetched while the history
        // is asked, for the copy after. (`holds` answers from the ref's age;
        // the copy searches the history once.)
        bool found = true;
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t s = moved[i];
            const entity_array_layout& array = *layout_.shared_of(s);
            const auto* bytes = static_cast<const char*>(array.slot(c.base_state.get(), s - array.first_slot));
            BITREP_PREFETCH(bytes);
            BITREP_PREFETCH(bytes + array.ops->stride - 1);
            BITREP_PREFETCH(c.stale_flag.data() + s);
            BITREP_PREFETCH(c.per_slot.data() + s);
            found = found && history_.holds(array, s - array.first_slot, want[s]);
        }
        if (!found)
            return false;
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t s = moved[i];
            if (c.base_refs[s] == want[s])
                continue; // a repeat
            const entity_array_layout& array = *layout_.shared_of(s);
            const void* value = history_.find(array, s - array.first_slot, want[s]);
            assert(value != nullptr); // held, as asked above
            array.ops->assign(array.array(c.base_state.get()), s - array.first_slot, value);
            set_base_ref(c, s, want[s]);
            c.per_slot[s].compared = empty_ref;
            mark_stale(c, s);
        }
        assign_kept(c.base_state.get(), c.ring_fields[row]);
        c.base_fields = c.ring_fields[row];
        c.base_default = false;
        c.base_sequence = sequence;
        return true;
    }

    /// Whether the logs list every slot where the view of packet `view` may
    /// differ from the baseline's, in at most difference_limit places.
    bool listed(const connection& c, const sent_view& view) const noexcept
    {
        return view.sent_count + static_cast<std::uint32_t>(c.base_log_end - view.log_at) <= difference_limit &&
               static_cast<std::uint32_t>(c.sent_log_end - view.sent_at) <= sent_log_size;
    }

    /// Where `refs`, the view of the packet `view` describes, may differ
    /// from the baseline's: the slots its packet took and those whose
    /// baseline ref changed since it was made (when they are `listed`; else
    /// every slot is compared). Calls f(slot) for each slot whose refs
    /// differ, some perhaps twice; f may change refs[slot].
    template <class F>
    void for_each_difference(const connection& c, const sent_view& view, const value_ref* refs, F&& f) const
    {
        const value_ref* base = c.base_refs.data();
        const std::size_t sent_mask = sent_log_size - 1;
        const bool fetch_far = prefetch_far;
        const std::uint32_t sent_at = view.sent_at;
        const std::size_t sent_count = view.sent_count;
        const std::uint32_t from = view.log_at;
        if (!listed(c, view)) {
            for_each_mismatch(base, refs, slot_count, f);
            return;
        }
        // In a large world the listed slots' refs are out of the cache:
        // fetched a few entries ahead.
        constexpr std::size_t ahead = 8;
        auto fetch = [&](std::size_t s) BITREP_LAMBDA_ALWAYS_INLINE {
            if (fetch_far) {
                BITREP_PREFETCH(base + s);
                BITREP_PREFETCH(refs + s);
            } else {
                static_cast<void>(s);
            }
        };
        for (std::size_t i = 0; i < sent_count; ++i) {
            if (i + ahead < sent_count)
                fetch(c.sent_log[(sent_at + i + ahead) & sent_mask]);
            const std::size_t s = c.sent_log[(sent_at + i) & sent_mask];
            if (base[s] != refs[s])
                f(s);
        }
        const std::size_t mask = c.base_log.size() - 1;
        for (std::uint32_t i = from; i != c.base_log_end; ++i) {
            if (c.base_log_end - i > ahead)
                fetch(c.base_log[static_cast<std::size_t>(i + ahead) & mask]);
            const std::size_t s = c.base_log[static_cast<std::size_t>(i) & mask];
            if (base[s] != refs[s])
                f(s);
        }
#ifndef NDEBUG
        // The log misses nothing: every slot that differs is in it.
        std::vector<std::uint8_t> in_log(slot_count, 0);
        for (std::size_t i = 0; i < sent_count; ++i)
            in_log[c.sent_log[(sent_at + i) & sent_mask]] = 1;
        for (std::uint32_t i = from; i != c.base_log_end; ++i)
            in_log[c.base_log[static_cast<std::size_t>(i) & mask]] = 1;
        for_each_mismatch(base, refs, slot_count, [&](std::size_t s) { assert(in_log[s] != 0); });
#endif
    }

    /// Changes a slot's ref in the view being built.
    void set_next_ref(connection& c, std::size_t slot, value_ref ref) const noexcept
    {
        if (hash_views)
            rehash(c.draft.hash, slot, c.draft.refs[slot], ref);
        c.draft.refs[slot] = ref;
    }

    /// Changes a slot's baseline ref, in the log.
    void set_base_ref(connection& c, std::size_t slot, value_ref ref) const noexcept
    {
        if (hash_views)
            rehash(c.base_hash, slot, c.base_refs[slot], ref);
        c.base_refs[slot] = ref;
        c.base_log[static_cast<std::size_t>(c.base_log_end++) & (c.base_log.size() - 1)] = static_cast<slot_index>(slot);
    }

    /// Sets `state`'s kept fields to `values`.
    void assign_kept(void* state, const kept_values& values) const
    {
        for (std::size_t k = 0; k < layout_.kept.size(); ++k)
            layout_.kept[k].ops->assign(layout_.kept[k].in(state), values.at(k));
    }

    void materialize_default(connection& c)
    {
        for (const entity_array_layout& array : layout_.shared) {
            for (std::size_t s = 0; s < array.capacity; ++s) {
                const std::size_t slot = array.first_slot + s;
                if (c.base_refs[slot] != empty_ref) {
                    array.ops->assign(array.array(c.base_state.get()), s, array.ops->entry->defaults);
                    set_base_ref(c, slot, empty_ref);
                    mark_stale(c, slot);
                    c.per_slot[slot].compared = empty_ref;
                }
            }
        }
        for (const kept_field& f : layout_.kept)
            f.ops->assign(f.in(c.base_state.get()), f.in(layout_.state_defaults));
        c.base_fields = default_fields_;
        c.base_default = true;
    }

    /// Makes `out` (whose slots hold the values `held` names) the view
    /// `refs` + `fields` for this client. Returns false when a value it
    /// needs has left the history (then `out` is a mix, as `held` says).
    bool materialize(const connection& c, const value_ref* refs, const kept_values& fields, void* out,
                     std::vector<value_ref>& held) const
    {
        bool found = true;
        for (const entity_array_layout& array : layout_.shared) {
            const std::size_t first = array.first_slot;
            void* slots = array.array(out);
            for_each_mismatch(held.data() + first, refs + first, array.capacity, [&](std::size_t s) {
                if (const void* value = value_of(c, array, s, refs[first + s])) {
                    array.ops->assign(slots, s, value);
                    held[first + s] = refs[first + s];
                } else {
                    found = false;
                }
            });
        }
        assign_kept(out, fields);
        return found;
    }

    /// Whether every value the view of ring row `row` names can be found
    /// (materialize would succeed).
    bool history_holds(const connection& c, std::size_t row) const noexcept
    {
        bool held = true;
        const value_ref* refs = c.ring_refs[row].data();
        for_each_difference(c, c.ring[row], refs, [&](std::size_t slot) {
            const entity_array_layout& array = *layout_.shared_of(slot);
            held = held && history_.holds(array, slot - array.first_slot, refs[slot]);
        });
        return held;
    }

    /// The state a coded packet predicts from, which the client must hold
    /// too: a view `d` packets before the baseline, where `d` is the
    /// baseline's distance from this packet, so that base + (base - older)
    /// extrapolates to this tick; else the baseline's own baseline when it
    /// is less than 2d before it (a prediction that falls short still
    /// helps); else none (the baseline itself: no prediction, also when the
    /// history no longer has a value of that view). A view counts as held
    /// when the client acknowledged it, or decoded the baseline against it,
    /// and no packet since could have taken its slot in the client's ring
    /// (fewer than `window` packets sent after it).
    const void* older_state(const connection& c, packet_header& header, const void* base,
                             scratch& sc) const
    {
        header.has_older = false;
        header.older = 0;
        if (!header.has_baseline)
            return base;
        const std::uint16_t b = header.baseline;
        const sent_view& baseline_view = c.ring[b % options_.window];
        auto held = [&](std::uint16_t older) -> const sent_view* {
            if (static_cast<std::uint16_t>(c.next_sequence - older) >= options_.window)
                return nullptr;
            const sent_view& slot = c.ring[older % options_.window];
            if (!slot.valid || slot.sequence != older || !fresh(slot))
                return nullptr;
            const bool decoded_against = baseline_view.has_baseline && baseline_view.baseline == older;
            return slot.acked || decoded_against ? &slot : nullptr;
        };
        const auto d = static_cast<std::uint16_t>(c.next_sequence - b);
        const sent_view* older = held(static_cast<std::uint16_t>(b - d));
        if (older == nullptr && baseline_view.has_baseline &&
            static_cast<std::uint16_t>(b - baseline_view.baseline) < 2u * d)
            older = held(baseline_view.baseline);
        if (older == nullptr)
            return base;
        const std::size_t row = older->sequence % options_.window;
        if (!history_holds(c, row)) [[unlikely]]
            return base;
        header.has_older = true;
        header.older = older->sequence;
        // Made into values only when the packet is encoded (not when it is
        // copied from another client's).
        sc.older_parts = {c.ring_refs[row].data(), &c.ring_fields[row], hash_at(c.ring[row])};
        return sc.older.get();
    }

    /// The view of the last packet sent (the newest the client may hold),
    /// or the baseline when there is none.
    view_parts previous_view(const connection& c) const noexcept
    {
        const std::uint16_t last = static_cast<std::uint16_t>(c.next_sequence - 1);
        const std::size_t row = last % options_.window;
        const sent_view& slot = c.ring[row];
        if (c.stats.packets_sent != 0 && slot.valid && slot.sequence == last && fresh(slot))
            return {c.ring_refs[row].data(), &c.ring_fields[row], hash_at(slot)};
        return {c.base_refs.data(), &c.base_fields, c.base_hash};
    }

    /// An upper bound of the bits write_delta spends on value against base
    /// wherever it starts (the standard's 7 bits per alignment).
    static std::size_t measured_delta_bits(const engine::field_entry& entry, const void* base, const void* value)
    {
        failure_record failure;
        basic_measure_stream<scope::replication> stream(failure);
        static_cast<void>(engine::delta(stream, entry, base, base, const_cast<void*>(value)));
        return stream.bits();
    }

    /// What changed of entity slot `target` against `base` (both of
    /// `array`), measured on the replication stream.
    static std::size_t measured_changed_bits(const entity_array_layout& array, const void* base,
                                             const void* target)
    {
        failure_record failure;
        basic_measure_stream<scope::replication> stream(failure);
        static_cast<void>(engine::changed(stream, *array.ops->entry, base, base, const_cast<void*>(target)));
        return stream.bits();
    }

    /// measured_changed_bits of entity slot `id` of `array`, from its
    /// baseline value to `target` (named `ref`), shared with the other
    /// clients of this tick whose baselines hold the same value.
    std::size_t changed_bits(const connection& c, scratch& sc, const entity_array_layout& array, std::uint32_t id,
                             value_ref ref, const void* base, const void* target)
    {
        if (array.shared)
            return cached(c, sc, array, id, ref, base, target).bound;
        return measured_changed_bits(array, base, target);
    }

    BITREP_ALWAYS_INLINE cached_delta& cached(const connection& c, scratch& sc, const entity_array_layout& array,
                                              std::uint32_t id, value_ref ref, const void* base, const void* target)
    {
        const std::size_t first = array.first_slot;
        const value_ref base_ref = c.base_refs[first + id];
        cached_delta* ways = &sc.cache[(first + id) * cache_ways];
        // The way to replace: one from an earlier tick, else the oldest.
        cached_delta* victim = nullptr;
        for (std::size_t w = 0; w < cache_ways; ++w) {
            cached_delta& way = ways[w];
            const bool current = way.tick == sc.cache_tick;
            if (current && way.base == base_ref && way.target == ref)
                return way;
            const bool victim_current = victim != nullptr && victim->tick == sc.cache_tick;
            if (victim == nullptr || (victim_current && (!current || way.stamp < victim->stamp)))
                victim = &way;
        }
        cached_delta& entry = *victim;
        failure_record failure;
        basic_measure_stream<scope::replication> stream(failure);
        static_cast<void>(engine::changed(stream, *array.ops->entry, base, base, const_cast<void*>(target)));
        entry = {sc.cache_tick, base_ref, ref, static_cast<std::uint32_t>(stream.bits()),
                 static_cast<std::uint32_t>(stream.exact_bits()), cached_delta::no_words, ++sc.stamps};
        return entry;
    }

    /// Encodes a cached delta's bits, when they can be copied (no
    /// alignment) and encode at all; returns whether it has them.
    BITREP_ALWAYS_INLINE static bool encode_cached(scratch& sc, cached_delta& entry,
                                                   const entity_array_layout& array, const void* base,
                                                   const void* target)
    {
        if (entry.bound != entry.exact)
            return false;
        if (entry.offset != cached_delta::no_words)
            return true;
        sc.encoded.assign((entry.exact + 7) / 8 + 8, 0);
        failure_record failure;
        basic_write_stream<scope::replication> stream(sc.encoded, failure);
        if (!engine::changed(stream, *array.ops->entry, base, base, const_cast<void*>(target)) ||
            stream.bit_position() != entry.exact) [[unlikely]]
            return false;
        stream.flush();
        entry.offset = static_cast<std::uint32_t>(sc.words.size());
        for (std::size_t at = 0; at < (entry.exact + 31) / 32; ++at) {
            std::uint32_t word = 0;
            for (std::size_t b = 0; b < 4; ++b)
                word |= static_cast<std::uint32_t>(sc.encoded[4 * at + b]) << (8 * b);
            sc.words.push_back(word);
        }
        return true;
    }

    /// The element hints of this packet, from `base` to `view`: per shared
    /// entity array it takes nothing from, that the two are the same (which
    /// the encoder would otherwise learn by comparing every slot); and, for
    /// the bit-packed encoder (`changes`), per array it changes, the slots
    /// it takes and their cached bits.
    engine::element_hints element_hints(connection& c, scratch& sc, const void* base, const void* view, bool changes)
    {
        std::size_t count = 0;
        if (!changes) {
            for (const entity_array_layout& array : layout_.shared) {
                const auto in_array = [&](const auto& sent) { return sent.first == array.field; };
                if (std::none_of(c.draft.sent_ids.begin(), c.draft.sent_ids.end(), in_array))
                    sc.hints[count++] = {array.slot(base, 0), nullptr, 0, nullptr, nullptr, array.slot(view, 0)};
            }
            return engine::element_hints(sc.hints.data(), count);
        }
        std::sort(c.draft.sent_ids.begin(), c.draft.sent_ids.end());
        sc.hint_changed.clear();
        sc.hint_offsets.clear();
        sc.hint_bits.clear();
        for (const auto& [field, id] : c.draft.sent_ids) {
            // take() lists the slots of shared entity arrays only.
            const entity_array_layout& array = layout_.array_of(field);
            const value_ref ref = c.draft.refs[array.first_slot + id];
            const void* had = array.slot(base, id);
            const void* target = value_of(c, array, id, ref);
            cached_delta& entry = cached(c, sc, array, id, ref, had, target);
            c.draft.stats.shared_entity_deltas += entry.offset != cached_delta::no_words ? 1 : 0;
            const bool has_words = encode_cached(sc, entry, array, had, target);
            sc.hint_changed.push_back(id);
            sc.hint_offsets.push_back(has_words ? entry.offset : cached_delta::no_words);
            sc.hint_bits.push_back(entry.exact);
        }
        sc.hint_words.resize(sc.hint_offsets.size());
        for (std::size_t k = 0; k < sc.hint_offsets.size(); ++k)
            sc.hint_words[k] =
                sc.hint_offsets[k] == cached_delta::no_words ? nullptr : sc.words.data() + sc.hint_offsets[k];
        std::size_t start = 0;
        for (const entity_array_layout& array : layout_.shared) {
            std::size_t end = start;
            while (end < c.draft.sent_ids.size() && c.draft.sent_ids[end].first == array.field)
                ++end;
            const auto* changed = end != start ? sc.hint_changed.data() + start : nullptr;
            sc.hints[count++] = {array.slot(base, 0), changed, end - start,
                                 changed != nullptr ? sc.hint_words.data() + start : nullptr,
                                 changed != nullptr ? sc.hint_bits.data() + start : nullptr, array.slot(view, 0)};
            start = end;
        }
        return engine::element_hints(sc.hints.data(), count);
    }

    /// Whether two views' other fields are equal on the wire.
    bool same_fields(const kept_values& a, const kept_values& b) const
    {
        for (std::size_t k = 0; k < layout_.kept.size(); ++k) {
            const engine::field_entry& entry = *layout_.kept[k].entry;
            const void* x = a.at(k);
            const void* y = b.at(k);
            const bool identical = entry.trivially_copyable && std::memcmp(x, y, entry.object_size) == 0;
            if (!identical && !engine::same<scope::replication>(entry, x, y))
                return false;
        }
        return true;
    }
    bool same_view(const std::vector<value_ref>& refs, const view_hash& hash, const kept_values& fields,
                          view_parts view)
    {
        if (hash_views) {
            assert(view.hash == hash_of(view.refs));
            if (hash != view.hash)
                return false;
        } else if (!std::equal(refs.begin(), refs.end(), view.refs)) {
            return false;
        }
        return same_fields(fields, *view.fields);
    }

    /// A coded section this tick encoded from the same three views (older:
    /// refs nullptr when the packet predicts from nothing), or nullptr.
    const coded_section* find_section(const scratch& sc, view_parts older, view_parts base, view_parts view)
    {
        for (const coded_section& section : sc.sections) {
            if (!section.used || section.has_older != (older.refs != nullptr))
                continue;
            if (same_view(section.view_refs, section.view_hash_, section.view_fields, view) &&
                same_view(section.base_refs, section.base_hash, section.base_fields, base) &&
                (older.refs == nullptr ||
                 same_view(section.older_refs, section.older_hash, section.older_fields, older)))
                return &section;
        }
        return nullptr;
    }

    void keep_section(scratch& sc, view_parts older, view_parts base, view_parts view,
                             std::span<const std::uint8_t> bytes)
    {
        coded_section& section = sc.sections[sc.next_section];
        sc.next_section = (sc.next_section + 1) % sc.sections.size();
        section.used = true;
        section.has_older = older.refs != nullptr;
        auto keep = [this](std::vector<value_ref>& refs, view_hash& hash, const view_parts& kept) {
            if (hash_views)
                hash = kept.hash;
            else
                refs.assign(kept.refs, kept.refs + slot_count);
        };
        if (section.has_older) {
            keep(section.older_refs, section.older_hash, older);
            section.older_fields = *older.fields;
        }
        keep(section.base_refs, section.base_hash, base);
        section.base_fields = *base.fields;
        keep(section.view_refs, section.view_hash_, view);
        section.view_fields = *view.fields;
        section.bytes.assign(bytes.begin(), bytes.end());
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

    /// The slot (a std::optional<Entity>) as this client should have it
    /// now: the entity, or empty when it is absent or not relevant to the
    /// client; for an entity with conditions, the client's own copy of it.
    const void* target_slot(connection& c, client_id id, entity_key key, const void* state,
                            const entity_array_layout& array, const void* slot, const void* sent) const
    {
        const slot_ops& ops = *array.ops;
        if (!ops.has_value(slot))
            return slot;
        if (!is_relevant(id, key, state, ops.entity(slot)))
            return ops.entry->defaults;
        if (ops.apply_conditions == nullptr)
            return slot;
        // The client's own copy, in the connection: the entity with its
        // conditioned members as this client may have them. An
        // initial_only member keeps the value of the newest copy the
        // client may hold (from a packet in flight, or its baseline).
        void* view = array.slot_in_array(c.conditioned[key.field].get(), key.id);
        const auto& owner = typed_owner_[key.field];
        const std::optional<client_id> owned_by = owner ? owner(key.id, ops.entity(slot)) : std::nullopt;
        // No entity in that view means the entity is created for the
        // client now (its slot may have held another in the baseline).
        const void* had = ops.has_value(sent) ? ops.entity(sent) : nullptr;
        ops.apply_conditions(view, slot, had, owned_by == id);
        return view;
    }

    /// Sets the new view's entity slots (which start as the baseline's). A
    /// slot whose current entity differs on the wire from the baseline's is
    /// a candidate. Candidates already sent in a packet the client has not
    /// acknowledged come first: leaving them out would take the client back
    /// to the baseline's version. The others follow by accumulated priority.
    /// Each is taken while the packet's bound stays within the budget;
    /// `used_bits` bounds everything else the packet holds, and on return
    /// the whole packet. Returns whether that bound is exact (measured)
    /// rather than the entities' upper bounds.
    bool select_entities(connection& c, scratch& sc, client_id id, const void* state, const void* base,
                         view_parts previous, std::size_t& used_bits, std::size_t budget_bits)
    {
        if (slot_count != 0) {
            collect_candidates(c, id, state, base, previous);
            return take_candidates(c, sc, base, used_bits, budget_bits);
        } else {
            static_cast<void>(c), static_cast<void>(sc), static_cast<void>(id), static_cast<void>(state), static_cast<void>(base);
            static_cast<void>(previous), static_cast<void>(used_bits), static_cast<void>(budget_bits);
            return true;
        }
    }

    static void mark_stale(connection& c, std::size_t slot) noexcept
    {
        if (c.stale_flag[slot] == 0) {
            c.stale_flag[slot] = 1;
            c.stale.push_back(static_cast<slot_index>(slot));
        }
    }

    /// Brings c.stale up to the history's tick: the slots that changed
    /// since, or (after a gap longer than the history, and at first) every
    /// slot whose baseline ref differs from the world's.
    void refresh_stale(connection& c) const
    {
        const bool fed = c.stale_known && history_.changes_since(c.stale_tick, [&](std::size_t s) { mark_stale(c, s); });
        if (!fed) {
            for (const std::size_t s : c.stale)
                c.stale_flag[s] = 0;
            c.stale.clear();
            for_each_mismatch(c.base_refs.data(), history_.refs(), slot_count,
                                           [&](std::size_t s) { mark_stale(c, s); });
            c.stale_known = true;
        }
        c.stale_tick = history_.tick();
        if (c.stale.size() * 8 >= slot_count) {
            // Dense: in slot order, so that the scans that follow read the
            // per-slot arrays front to back, which the prefetcher follows
            // (in change order, nearly every read missed the cache).
            std::size_t n = 0;
            for (std::size_t s = 0; s < slot_count; ++s)
                if (c.stale_flag[s] != 0)
                    c.stale[n++] = static_cast<slot_index>(s);
        }
    }

    /// Drops from c.stale the slots whose baseline ref is the world's.
    void prune_stale(connection& c) const noexcept
    {
        const value_ref* now = history_.refs();
        std::size_t kept = 0;
        for (const slot_index s : c.stale) {
            if (c.base_refs[s] == now[s])
                c.stale_flag[s] = 0;
            else
                c.stale[kept++] = s;
        }
        c.stale.resize(kept);
    }

    /// Fills c.candidates with this tick's candidates, every entity array's.
    void collect_candidates(connection& c, client_id id, const void* state, const void* base, view_parts previous)
    {
        c.candidate_count = 0;
        refresh_stale(c);
        for (const entity_array_layout& array : layout_.arrays) {
            if (array.shared)
                collect_shared_candidates(c, id, state, base, previous, array);
            else
                collect_field_candidates(c, id, state, base, previous, array);
        }
        prune_stale(c);
    }

    /// The priority slot `index` has accumulated while a candidate, before
    /// this packet.
    static float accumulated(const connection& c, std::size_t index) noexcept
    {
        const slot_entry& entry = c.per_slot[index];
        return entry.epoch == static_cast<std::uint32_t>(c.stats.packets_sent) ? entry.priority : 0.0f;
    }

    /// What adding an entity array's candidates reads of its layout, taken
    /// into values once per array (read through the layout, the compilers
    /// load them again for every candidate).
    struct candidate_array {
        std::size_t first;
        std::uint16_t field;
        float constant_priority;
        bool (*has_value)(const void* slot) noexcept;
        const void* (*entity)(const void* slot) noexcept;

        explicit candidate_array(const entity_array_layout& array) noexcept
            : first(array.first_slot), field(array.field), constant_priority(array.ops->constant_priority),
              has_value(array.ops->has_value), entity(array.ops->entity)
        {
        }
    };

    /// Adds a candidate, accumulating its priority: slot `slot` of `array`,
    /// whose view should become `target` (a std::optional<Entity>).
    /// `entity` is what the priority callbacks see: the State's slot, or
    /// the client's conditioned copy of it. `called` says whether a
    /// priority callback is set for the array (has_priority_callback),
    /// which the caller asks once per array.
    BITREP_ALWAYS_INLINE void add_candidate(connection& c, client_id id, const void* state,
                                            const candidate_array& array, std::size_t slot, bool in_flight,
                                            value_ref ref, const void* target, const void* entity, bool called)
    {
        const std::size_t first = array.first;
        const entity_key key{array.field, static_cast<std::uint32_t>(slot)};
        // An entity's own priority counts when the client gets it (the
        // target) and it exists (the entity); else 1.
        float own = 1.0f;
        if ((called || array.constant_priority != 1.0f) && array.has_value(target) && array.has_value(entity))
            own = called ? priority_of(id, key, state, array.entity(entity)) : array.constant_priority;
        const float priority = accumulated(c, first + slot) + own;
        const std::size_t n = c.candidate_count;
        if (n == c.candidates.size()) [[unlikely]]
            grow_candidates(c);
        c.candidate_count = n + 1;
        c.per_slot[first + slot].candidate_at = static_cast<slot_index>(n);
        c.order[n] = order_key(in_flight, priority, first + slot);
        c.candidates[n] = {target, priority, key.id, key.field, ref, in_flight};
    }

    /// Room for more candidates: the arrays grow to what the busiest tick
    /// so far needed, and stay.
    [[gnu::noinline]] static void grow_candidates(connection& c)
    {
        const std::size_t size = std::max<std::size_t>(64, c.candidates.size() * 2);
        c.candidates.resize(size);
        c.order.resize(size);
    }

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
    bool same_slot_memo(const entity_array_layout& array, std::size_t slot, value_ref a,
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

    /// Adds the candidates of a shared entity array: the slots whose refs
    /// differ from the baseline's (every slot is looked at only when
    /// relevancy or a value that cannot be encoded makes the target differ
    /// per client). A slot whose target equals the baseline's value on the
    /// wire takes the target's ref, so it is not compared again.
    [[gnu::noinline]] void collect_shared_candidates(connection& c, client_id id, const void* state, const void* base,
                                   view_parts previous, const entity_array_layout& array)
    {
        const std::size_t first = array.first_slot;
        const std::size_t capacity = array.capacity;
        const std::size_t stride = array.ops->stride;
        value_ref* old = c.base_refs.data() + first;
        const value_ref* now = history_.refs() + first;
        const value_ref* sent = previous.refs + first;
        const auto* current = static_cast<const unsigned char*>(array.slot(history_.current(), 0));
        const auto* had = static_cast<const unsigned char*>(array.slot(base, 0));
        const auto* live = static_cast<const unsigned char*>(array.slot(state, 0));
        slot_entry* entry = c.per_slot.data() + first;
        const bool called = has_priority_callback(array.field);
        const candidate_array adding(array);
        auto consider = [&](std::size_t slot, value_ref ref, const void* target) BITREP_LAMBDA_ALWAYS_INLINE {
            if (old[slot] == ref)
                return;
            // Found to differ from the baseline's value in an earlier packet
            // (the memo is cleared when the baseline's slot changes).
            const bool known = entry[slot].compared == ref && ref != empty_ref;
            if (!known && same_slot_memo(array, first + slot, old[slot], had + slot * stride, ref, target)) {
                // The new view, a copy of the baseline's refs, takes it too.
                set_base_ref(c, first + slot, ref);
                set_next_ref(c, first + slot, ref);
                return;
            }
            entry[slot].compared = ref;
            bool in_flight = false;
            if (sent != old && sent[slot] == ref) {
                in_flight = true; // the last packet took this very value
            } else if (sent != old && sent[slot] != old[slot]) {
                const void* in_packet = value_of(c, array, slot, sent[slot]);
                in_flight = in_packet == nullptr || !same_slot(array, in_packet, had + slot * stride);
            }
            add_candidate(c, id, state, adding, slot, in_flight, ref, target, live + slot * stride, called);
        };
        if (typed_relevant_[array.field] || relevant_ || c.any_unsendable) {
            collect_every_slot(c, id, state, array, sent, current, live, consider);
            return;
        }
        const bool fetch_far = prefetch_far; // read once: loaded again per slot, it cost 1% more instructions
        const slot_index* stale = c.stale.data();
        const std::size_t count = c.stale.size();
        for (std::size_t i = 0; i < count; ++i) {
            fetch_ahead(c, fetch_far, stale, i, count, first, capacity, stride, old, now, sent, entry, had);
            const std::size_t slot = stale[i] - first;
            if (slot >= capacity)
                continue;
            consider(slot, now[slot], current + slot * stride);
        }
    }

    /// Fetches what collecting the candidates of the slots that may differ
    /// reads a few slots ahead of stale slot `i` (of `count`): a slot not compared yet reads the baseline's value (`had`),
    /// which is seldom in the cache (each client has its own). In a large
    /// world the client's per-slot entries (`old`, `entry`) are not in the
    /// cache either: they are fetched further ahead, then, once they are
    /// in, the baseline's value of the slots to be compared.
    BITREP_ALWAYS_INLINE void fetch_ahead(const connection& c, bool fetch_far, const slot_index* stale, std::size_t i, std::size_t count,
                                          std::size_t first, std::size_t capacity, std::size_t stride,
                                          const value_ref* old, const value_ref* now, const value_ref* sent,
                                          const slot_entry* entry, const unsigned char* had) const noexcept
    {
        constexpr std::size_t ahead = 8;
        constexpr std::size_t far = 2 * ahead;
        if (fetch_far && i + far < count) {
            const std::size_t later = stale[i + far];
            BITREP_PREFETCH(c.base_refs.data() + later);
            BITREP_PREFETCH(c.per_slot.data() + later);
            if (sent != old)
                BITREP_PREFETCH(sent - first + later);
        }
        if (i + ahead < count) {
            const std::size_t soon = stale[i + ahead] - first;
            if (soon < capacity && old[soon] != now[soon] && entry[soon].compared != now[soon]) {
                const auto* bytes = had + soon * stride;
                BITREP_PREFETCH(bytes);
                BITREP_PREFETCH(bytes + stride - 1);
            }
        }
    }

    /// consider(slot, ref, target) for every shared slot of `array`, when
    /// the target differs per client: relevancy, or a value that cannot be
    /// encoded, which stays as the client may have it (the last packet's
    /// version, `sent`).
    template <class Consider>
    BITREP_ALWAYS_INLINE void collect_every_slot(const connection& c, client_id id, const void* state, const entity_array_layout& array,
                            const value_ref* sent, const unsigned char* current, const unsigned char* live,
                            Consider& consider) const
    {
        const slot_ops& ops = *array.ops;
        const std::size_t stride = ops.stride;
        const value_ref* now = history_.refs() + array.first_slot;
        for (std::size_t slot = 0; slot < array.capacity; ++slot) {
            if (c.any_unsendable && c.unsendable[array.first_slot + slot]) {
                if (const void* in_packet = value_of(c, array, slot, sent[slot]))
                    consider(slot, sent[slot], in_packet);
                continue;
            }
            const entity_key key{array.field, static_cast<std::uint32_t>(slot)};
            const void* now_slot = current + slot * stride;
            const void* live_slot = live + slot * stride;
            if (!ops.has_value(now_slot) || !ops.has_value(live_slot) ||
                !is_relevant(id, key, state, ops.entity(live_slot)))
                consider(slot, empty_ref, ops.entry->defaults);
            else
                consider(slot, now[slot], now_slot);
        }
    }

    /// Adds a conditioned entity array's candidates: every slot, compared
    /// by value (views keep these arrays by value, as the client's
    /// conditioned copies differ per client).
    void collect_field_candidates(connection& c, client_id id, const void* state, const void* base,
                                  view_parts previous, const entity_array_layout& array)
    {
        const void* sent_array = previous.fields->at(array.kept_index);
        const bool previous_is_base = previous.fields == &c.base_fields;
        const bool called = has_priority_callback(array.field);
        const candidate_array adding(array);
        for (std::size_t slot = 0; slot < array.capacity; ++slot) {
            const entity_key key{array.field, static_cast<std::uint32_t>(slot)};
            const void* old = array.slot(base, slot);
            const void* sent = array.slot_in_array(sent_array, slot);
            // An entity whose value cannot be encoded stays as the client
            // may have it: the last packet's version.
            const void* target = c.any_unsendable && c.unsendable[array.first_slot + slot]
                                     ? sent
                                     : target_slot(c, id, key, state, array, array.slot(state, slot), sent);
            if (same_slot(array, old, target))
                continue;
            const bool in_flight = !previous_is_base && !same_slot(array, sent, old);
            add_candidate(c, id, state, adding, slot, in_flight, empty_ref, target, target, called);
        }
    }

    /// The running bound of the packet while entities are taken. An entity
    /// is first counted at its type's upper bound, which spares measuring
    /// it while the packet is far from full; the first one that does not fit
    /// that way has every entity counted so far measured exactly
    /// (measure_taken), and from then on each is (`exact`).
    struct packet_bound {
        std::size_t used_bits;
        std::size_t budget_bits;
        bool exact = false;
        array_use* uses; ///< the scratch's, by field
        scratch& sc;     ///< the call's, for its delta cache
    };

    /// Takes the candidates from c.candidates in order while they fit, and
    /// counts the rest deferred. Returns whether the bound is exact.
    bool take_candidates(connection& c, scratch& sc, const void* base, std::size_t& used_bits, std::size_t budget_bits)
    {
        packet_bound bound{used_bits, budget_bits, false, sc.uses.data(), sc};
        for (const entity_array_layout& array : layout_.arrays)
            sc.uses[array.field] = {0, 0, &array, array.capacity, array.count_bits, array.ops->max_changed_bits};
        c.taken.clear();
        // Trying stops once the packet is full: after this many candidates
        // in a row that did not fit.
        constexpr int misses_allowed = 8;
        int misses = 0;
        // Only the candidates that are tried get ordered, a run at a time:
        // the first run a little longer than what the last packet tried,
        // each next one twice the last. (A radix sort of them all, without
        // the comparisons' mispredicted branches, measured slower.)
        const auto first = c.order.begin();
        const auto last = first + static_cast<std::ptrdiff_t>(c.candidate_count);
        auto next = first;
        auto run = static_cast<std::ptrdiff_t>(c.tried_last + c.tried_last / 4 + 32);
        while (next != last && misses < misses_allowed) {
            const auto run_end = last - next > run ? next + run : last;
            if (run_end != last)
                std::nth_element(next, run_end, last, std::greater<>{});
            std::sort(next, run_end, std::greater<>{});
            for (; next != run_end && misses < misses_allowed; ++next) {
                candidate& chosen = c.candidates[c.per_slot[slot_of_key(*next)].candidate_at];
                if (try_take(c, chosen, base, bound)) {
                    misses = 0;
                } else {
                    defer(c, chosen.in_flight);
                    ++misses;
                }
            }
            run *= 2;
        }
        c.tried_last = static_cast<std::size_t>(next - first);
        for (auto rest = next; rest != last; ++rest)
            defer(c, (*rest >> in_flight_shift) != 0);
        used_bits = bound.used_bits;
        return bound.exact;
    }

    /// Takes `chosen` when the packet's bound with it stays within the
    /// budget. Returns whether it did.
    BITREP_ALWAYS_INLINE bool try_take(connection& c, candidate& chosen, const void* base, packet_bound& bound)
    {
        array_use& use = bound.uses[chosen.field];
        const std::size_t grown_bits = use.index_bits + bitrep::detail::listed_index_bits(chosen.id, bitrep::detail::no_listed_index);
        const std::size_t index_growth =
            index_overhead(use, use.count + 1, grown_bits) - index_overhead(use, use.count, use.index_bits);
        std::size_t cost = use.max_changed_bits;
        if (!bound.exact && (cost > bound.budget_bits || bound.used_bits + index_growth + cost > bound.budget_bits))
            measure_taken(c, base, bound);
        if (bound.exact)
            cost = changed_bits(c, bound.sc, *use.array, chosen.id, chosen.ref, use.array->slot(base, chosen.id), chosen.target);
        const std::size_t bits = bound.used_bits + index_growth + cost;
        if (bits > bound.budget_bits)
            return false;
        bound.used_bits = bits;
        use.count += 1;
        use.index_bits = grown_bits;
        if (!bound.exact)
            c.taken.push_back(&chosen);
        take(c, *use.array, chosen);
        return true;
    }

    /// The bits that say which slots of an entity array changed:
    /// delta_elements' own cost model (bitrep::detail::changed_elements_form_of),
    /// over all its slots, at least one of which changed.
    static std::size_t index_overhead(const array_use& use, std::size_t count, std::size_t index_bits) noexcept
    {
        const std::size_t list = use.count_bits + index_bits;
        return count == 0 ? 0 : 1 + std::min(list, use.capacity);
    }

    /// Counts the entities taken so far at their measured bits instead of
    /// their upper bounds.
    void measure_taken(connection& c, const void* base, packet_bound& bound)
    {
        for (const candidate* taken : c.taken) {
            const array_use& use = bound.uses[taken->field];
            bound.used_bits -= use.max_changed_bits - changed_bits(c, bound.sc, *use.array, taken->id, taken->ref,
                                                                   use.array->slot(base, taken->id), taken->target);
        }
        bound.exact = true;
    }

    /// Puts a taken entity into the view and counts it sent.
    void take(connection& c, const entity_array_layout& array, candidate& chosen)
    {
        const std::size_t first = array.first_slot;
        if (array.shared) {
            set_next_ref(c, first + chosen.id, chosen.ref);
            if (c.draft.sent_count <= difference_limit)
                c.draft.sent[c.draft.sent_count++] = static_cast<slot_index>(first + chosen.id);
            c.draft.sent_ids.emplace_back(array.field, chosen.id);
        } else {
            array.ops->assign(c.draft.fields.at(array.kept_index), chosen.id, chosen.target);
        }
        chosen.taken = true;
        if (!(c.any_unsendable && c.unsendable[first + chosen.id]))
            note_sent_as_is(c, first + chosen.id);
        c.draft.stats.entities_sent += 1;
    }

    /// Counts a candidate left for a later packet.
    static void defer(connection& c, bool in_flight) noexcept
    {
        c.draft.stats.entities_deferred += 1;
        c.draft.stats.in_flight_dropped += in_flight ? 1 : 0;
    }

    /// build_packet in the configured encoding, into c.draft. A coded packet
    /// that does not fit is dropped and built again with a more cautious
    /// ratio, and as a last resort bit-packed, whose selection fits by
    /// construction. A full state (no acknowledged baseline) goes
    /// bit-packed: with nothing to predict from, coding it saved 2% of its
    /// bytes for 7.5 times the time (docs/benchmarks.md, "Replication").
    status build_fitting(connection& c, scratch& sc, client_id id, const void* state)
    {
        packet_draft& draft = c.draft;
        packet_header against;
        const void* base = baseline(c, against);
        double ratio = c.coded_ratio;
        std::uint64_t rebuilds = c.stats.coded_rebuilds;
        const auto start = [&] {
            draft.start(c.stats, c.tokens, ratio);
            draft.stats.coded_rebuilds = rebuilds;
            draft.header.has_baseline = against.has_baseline;
            draft.header.baseline = against.baseline;
        };
        if (options_.encoding == replication_encoding::coded && against.has_baseline) {
            constexpr int attempts = 3;
            for (int attempt = 0; attempt < attempts; ++attempt) {
                start();
                status result = build_packet(c, sc, id, state, base, true);
                // A coded packet that left out every entity waiting (its
                // header is larger, or the ratio grew too cautious) would
                // starve them: the bit-packed one carries what it can.
                const bool starved = draft.stats.entities_sent == c.stats.entities_sent &&
                                     draft.stats.entities_deferred != c.stats.entities_deferred;
                if (result && starved) {
                    ratio = draft.coded_ratio;
                    break;
                }
                if (result || result.code() != error::buffer_too_small)
                    return result;
                drop(c);
                rebuilds += 1;
                ratio = std::min(4.0, draft.coded_ratio * 1.25);
            }
            drop(c);
            start();
            draft.stats.bit_packed_fallbacks += 1;
        } else {
            start();
        }
        return build_packet(c, sc, id, state, base, false);
    }

    /// Makes the draft's refs the baseline's refs: where the view they hold
    /// (the one the last packet's ring row held, refs_were) differs from the
    /// baseline, when the logs list those places; else by a copy. In a
    /// world where little changes this spares copying every ref for every
    /// packet.
    void start_next_view(connection& c) const
    {
        value_ref* next = c.draft.refs.data();
        const value_ref* base = c.base_refs.data();
        if (c.draft.refs_known && listed(c, c.draft.refs_were))
            for_each_difference(c, c.draft.refs_were, next, [&](std::size_t s) { next[s] = base[s]; });
        else
            std::copy_n(base, slot_count, next); // as fast as the scan, when every slot must be looked at
        c.draft.refs_known = false; // until the packet is committed
        if (hash_views)
            c.draft.hash = c.base_hash;
        assert(std::equal(c.base_refs.begin(), c.base_refs.end(), c.draft.refs.begin()));
    }

    /// What one build of a packet decided before writing it.
    struct packet_plan {
        bool coded;
        const void* base;  ///< the baseline, as values
        const void* older; ///< what a coded packet predicts from (the baseline: nothing)
        view_parts previous;
        std::optional<input_ack> inputs;
        message_endpoint* messages;
        /// What is sent as it is, never coded: CRC or tag, headers, input
        /// ack and the messages' section.
        std::size_t header_bits = 0;
        /// The packet's bound so far, in bit-packed bits.
        std::size_t used_bits = 0;
        std::size_t budget_bytes = 0;
        double ratio = 1.0;    ///< coded bits per planned bit (with a little room to spare)
        bool exact = false;    ///< used_bits measured, not the entities' upper bounds
        std::uint64_t sent_before = 0;
    };

    /// Builds the packet into the draft (started): c.packet's bytes and the
    /// view they bring the client to.
    status build_packet(connection& c, scratch& sc, client_id id, const void* state, const void* base, bool coded)
    {
        packet_draft& draft = c.draft;
        draft.header.sequence = c.next_sequence;
        draft.header.has_check_value = options_.check_value;
        draft.header.coded = coded;
        packet_plan plan{coded, base, coded ? older_state(c, draft.header, base, sc) : base, previous_view(c),
                         c.parts ? c.parts->inputs_ack() : std::nullopt,
                         c.parts ? c.parts->messages() : nullptr};
        plan.header_bits = 8 * (c.guard.prefix() + c.guard.suffix()) + packet_header::bits +
                           (coded ? packet_header::coded_bits + 7 : 0);
        if (plan.inputs)
            plan.header_bits += 1 + (plan.inputs->any ? 16 : 0);
        plan.used_bits = plan.header_bits + 1 + (options_.check_value ? 32 : 0);
        start_next_view(c);
        bring_fields(c, state, plan);
        plan_budget(c, plan);
        select(c, sc, id, state, plan);
        return write_packet(c, sc, plan);
    }

    /// Brings the fields other than entities to this tick (or, when the
    /// tick's value cannot be encoded, keeps them as the client may have
    /// them), counting their bits; entities start as the client has them
    /// and are taken by priority (select).
    void bring_fields(connection& c, const void* state, packet_plan& plan)
    {
        plan.used_bits += layout_.shared.size(); // a changed bit each
        for (std::size_t k = 0; k < layout_.kept.size(); ++k) {
            const kept_field& f = layout_.kept[k];
            void* field = c.draft.fields.at(k);
            if (f.entity_array) {
                // Its slots are taken one by one, from the baseline's.
                f.ops->assign(field, f.in(plan.base));
                plan.used_bits += 1;
                continue;
            }
            const bool keep = c.any_unsendable && c.unsendable[slot_count + f.field];
            f.ops->assign(field, keep ? plan.previous.fields->at(k) : f.in(state));
            plan.used_bits += measured_delta_bits(*f.entry, f.in(plan.base), field);
            if (!keep)
                note_sent_as_is(c, slot_count + f.field);
        }
    }

    /// The packet's byte budget (the token bucket's, refilled for this
    /// tick), and the reliable messages in their share of it: like the
    /// header they are sent as they are, never coded. The unreliable
    /// part's end bit and the padding after the section count with them.
    void plan_budget(connection& c, packet_plan& plan) const
    {
        packet_draft& draft = c.draft;
        plan.budget_bytes = options_.max_packet_bytes;
        if (options_.bytes_per_second != 0) {
            const double per_tick = static_cast<double>(options_.bytes_per_second) / options_.tick_rate;
            draft.tokens =
                std::min(draft.tokens + per_tick, std::max(per_tick, static_cast<double>(options_.max_packet_bytes)));
            plan.budget_bytes =
                draft.tokens <= 0 ? 0 : std::min(plan.budget_bytes, static_cast<std::size_t>(draft.tokens));
        }
        if (plan.messages == nullptr)
            return;
        const std::size_t budget_bits = plan.budget_bytes * 8;
        const std::size_t share =
            static_cast<std::size_t>(static_cast<double>(budget_bits) * std::clamp(options_.reliable_share, 0.0, 1.0));
        // The section's room: what the header and the fields always sent
        // leave, less the padding after it.
        const std::size_t whole = budget_bits > plan.used_bits + 7 ? budget_bits - plan.used_bits - 7 : 0;
        const std::size_t message_bits = plan.messages->plan_reliable(c.stats.packets_sent, share, whole) + 1 + 7;
        plan.header_bits += message_bits;
        plan.used_bits += message_bits;
    }

    /// The entities the packet takes, and the unreliable messages in the
    /// room they leave. The selection plans in bit-packed bits; a coded
    /// packet holds about 1 / coded_ratio as many.
    void select(connection& c, scratch& sc, client_id id, const void* state, packet_plan& plan)
    {
        plan.ratio = plan.coded ? std::max(c.draft.coded_ratio, 0.05) * 1.03 : 1.0;
        std::size_t plan_bits = plan.budget_bytes * 8;
        if (plan.coded && plan_bits > plan.header_bits)
            plan_bits = plan.header_bits +
                        static_cast<std::size_t>(static_cast<double>(plan_bits - plan.header_bits) / plan.ratio);
        plan.sent_before = c.draft.stats.entities_sent;
        plan.exact = select_entities(c, sc, id, state, plan.base, plan.previous, plan.used_bits, plan_bits);
        if (plan.messages != nullptr) {
            // Unreliable messages in the room the state left, in real bits.
            const double state_bits = static_cast<double>(plan.used_bits - plan.header_bits) * plan.ratio;
            const double left =
                static_cast<double>(plan.budget_bytes * 8) - static_cast<double>(plan.header_bits) - state_bits;
            plan.messages->plan_unreliable(left > 1 ? static_cast<std::size_t>(left) + 1 : 1);
        }
    }

    /// Writes the planned packet into c.packet and seals it.
    status write_packet(connection& c, scratch& sc, const packet_plan& plan)
    {
        packet_draft& draft = c.draft;
        failure_record failure;
        const std::size_t prefix = c.guard.prefix();
        const std::size_t suffix = c.guard.suffix();
        basic_write_stream<scope::replication> stream(
            std::span<std::uint8_t>(c.packet).subspan(prefix, c.packet.size() - prefix - suffix), failure);
        if (!draft.header.serialize(stream)) [[unlikely]]
            return stream.failure_status("packet");
        if (plan.inputs) {
            input_ack ack = *plan.inputs;
            if (!ack.serialize(stream)) [[unlikely]]
                return stream.failure_status("packet");
        }
        if (plan.messages != nullptr) {
            if (!plan.messages->write(stream) || !stream.serialize_align()) [[unlikely]]
                return stream.failure_status("packet");
        }
        const status written = plan.coded ? write_coded(c, sc, plan, prefix + stream.flush())
                                          : write_bit_packed(c, sc, plan, stream);
        if (!written) [[unlikely]]
            return written;
        return c.guard.seal(options_.protocol_id, packet_kind::state,
                            std::span<std::uint8_t>(c.packet.data(), draft.size));
    }

    /// The draft's view as values, for the encoder: every value it names is
    /// the baseline's or the world's now, so the history has it.
    status materialize_view(const connection& c, scratch& sc) const
    {
        if (!materialize(c, c.draft.refs.data(), c.draft.fields, sc.view.get(), sc.view_refs)) [[unlikely]]
            return status(error::no_baseline, 0, layout_.name, "a value of the view left the history");
        return {};
    }

    /// The state section bit-packed, after the head, and the check value.
    status write_bit_packed(connection& c, scratch& sc, const packet_plan& plan,
                            basic_write_stream<scope::replication>& stream)
    {
        if (status made = materialize_view(c, sc); !made) [[unlikely]]
            return made;
        const void* view = sc.view.get();
        bool ok = engine::delta(stream, *layout_.state_entry, plan.base, plan.base, const_cast<void*>(view),
                                element_hints(c, sc, plan.base, view, true));
        if (ok && options_.check_value) {
            std::uint32_t check = check_value;
            ok = stream.serialize_bits(check, 32);
        }
        if (!ok) [[unlikely]]
            return stream.failure_status(layout_.name);
        c.draft.size = c.guard.prefix() + stream.flush() + c.guard.suffix();
        return {};
    }

    /// The state section range coded, from byte `start`: copied from
    /// another client's packet of this tick built from the same views, or
    /// encoded. It fills the budget at most (or the packet, when only what
    /// must go is in it).
    status write_coded(connection& c, scratch& sc, const packet_plan& plan, std::size_t start)
    {
        packet_draft& draft = c.draft;
        const std::size_t suffix = c.guard.suffix(); // the tag, on the AEAD path
        const std::size_t end = draft.stats.entities_sent != plan.sent_before
                                    ? std::max(plan.budget_bytes, start + suffix)
                                    : options_.max_packet_bytes;
        const std::span<std::uint8_t> room =
            std::span<std::uint8_t>(c.packet).subspan(start, std::max(start, end - suffix) - start);
        const view_parts older_parts = draft.header.has_older ? sc.older_parts : view_parts{nullptr, nullptr, {}};
        const view_parts base_parts{c.base_refs.data(), &c.base_fields, c.base_hash};
        const view_parts view_parts_{draft.refs.data(), &draft.fields, draft.hash};
        std::size_t coded_bytes = 0;
        const coded_section* shared = find_section(sc, older_parts, base_parts, view_parts_);
        if (shared != nullptr && shared->bytes.size() <= room.size()) {
            std::copy(shared->bytes.begin(), shared->bytes.end(), room.begin());
            coded_bytes = shared->bytes.size();
            draft.stats.shared_sections += 1;
        } else {
            if (status coded = encode_coded(c, sc, plan, room, coded_bytes); !coded) [[unlikely]]
                return coded;
            keep_section(sc, older_parts, base_parts, view_parts_, room.first(coded_bytes));
        }
        draft.size = start + coded_bytes + suffix;
        if (plan.exact && draft.stats.entities_sent != plan.sent_before) {
            // Learn from full packets: quickly when coded grew, slowly when it shrank.
            const double sample =
                static_cast<double>(8 * coded_bytes) / static_cast<double>(plan.used_bits - plan.header_bits);
            draft.coded_ratio += (sample - draft.coded_ratio) * (sample > draft.coded_ratio ? 0.5 : 0.125);
        }
        return {};
    }

    /// Range codes the draft's view against the baseline (predicting from
    /// the older view) into `room`; `bytes` is what it took.
    status encode_coded(connection& c, scratch& sc, const packet_plan& plan, std::span<std::uint8_t> room,
                        std::size_t& bytes)
    {
        if (status made = materialize_view(c, sc); !made) [[unlikely]]
            return made;
        if (c.draft.header.has_older &&
            !materialize(c, sc.older_parts.refs, *sc.older_parts.fields, sc.older.get(), sc.older_refs)) [[unlikely]]
            return status(error::no_baseline, 0, layout_.name, "a value of the older view left the history");
        const void* view = sc.view.get();
        // The models start afresh for each packet, so one set serves every
        // client this scratch encodes for.
        std::fill(sc.models.begin(), sc.models.end(), coded_slot{});
        failure_record failure;
        basic_coded_write_stream<scope::replication> coder(room, sc.models, failure);
        std::uint32_t check = check_value;
        if (!engine::delta(coder, *layout_.state_entry, plan.older, plan.base, const_cast<void*>(view),
                           element_hints(c, sc, plan.base, view, false)) ||
            (options_.check_value && !coder.serialize_bits(check, 32)) || !coder.finish(bytes)) [[unlikely]]
            return coder.failure_status(layout_.name);
        return {};
    }

    /// The packet exists: the draft's view joins the ring, and its figures
    /// become the connection's.
    void commit(connection& c) noexcept
    {
        packet_draft& draft = c.draft;
        if (message_endpoint* messages = c.parts ? c.parts->messages() : nullptr)
            messages->commit(c.stats.packets_sent);
        commit_view(c);
        // The candidates left waiting keep what they accumulated, for the
        // next packet (the others count from nothing when they wait again).
        const auto epoch = static_cast<std::uint32_t>(c.stats.packets_sent + 1);
        for (std::size_t i = 0; i < c.candidate_count; ++i) {
            const candidate& left = c.candidates[i];
            if (!left.taken) {
                slot_entry& entry = c.per_slot[layout_.array_of(left.field).first_slot + left.id];
                entry.priority = left.priority;
                entry.epoch = epoch;
            }
        }
        ++c.next_sequence;
        c.stats = draft.stats;
        c.stats.packets_sent += 1;
        c.stats.bytes_sent += draft.size;
        c.stats.full_states += draft.header.has_baseline ? 0 : 1;
        c.stats.last_packet_bytes = draft.size;
        c.tokens = draft.tokens - static_cast<double>(draft.size);
        c.coded_ratio = draft.coded_ratio;
        for (const std::uint32_t index : draft.mended)
            reported_[index].store(false, std::memory_order_relaxed);
    }

    /// The draft's view becomes the ring's row for its sequence; the draft
    /// keeps the row's old refs, to start the next view from.
    void commit_view(connection& c) noexcept
    {
        packet_draft& draft = c.draft;
        const std::size_t row = c.next_sequence % options_.window;
        std::swap(c.ring_refs[row], draft.refs);
        draft.refs_were = c.ring[row];
        draft.refs_known = c.ring[row].valid;
        const std::uint32_t sent_at = c.sent_log_end;
        if (draft.sent_count <= difference_limit) {
            for (std::size_t i = 0; i < draft.sent_count; ++i)
                c.sent_log[(sent_at + i) & (sent_log_size - 1)] = draft.sent[i];
            c.sent_log_end += static_cast<std::uint32_t>(draft.sent_count);
        }
        std::swap(c.ring_fields[row], draft.fields);
        c.ring[row] = {c.next_sequence, true,    false,           draft.header.has_baseline,
                       true,            draft.header.baseline, c.base_log_end, sent_at,
                       history_.tick(), static_cast<std::uint32_t>(draft.sent_count)};
        if (hash_views)
            c.ring[row].hash = draft.hash;
    }

    /// The packet will not be sent: nothing of the draft reaches the
    /// connection, and the messages it planned stay queued.
    static void drop(connection& c) noexcept
    {
        if (message_endpoint* messages = c.parts ? c.parts->messages() : nullptr)
            messages->cancel();
    }

    void forget_unsendable(connection& c) noexcept
    {
        if (c.any_unsendable)
            std::fill(c.unsendable.begin(), c.unsendable.end(), std::uint8_t{0});
        c.any_unsendable = false;
    }

    /// A value reported as unencodable went out as it is: once the packet
    /// exists (commit), it counts as mended and is reported again if it
    /// breaks again.
    void note_sent_as_is(connection& c, std::size_t index)
    {
        if (reported_[index].load(std::memory_order_relaxed)) [[unlikely]]
            c.draft.mended.push_back(static_cast<std::uint32_t>(index));
    }

    /// After a packet failed on a value outside its annotation: marks every
    /// top-level field and entity of `state` whose value cannot be encoded,
    /// and reports each once. Runs only then, so its cost (an encoding of
    /// every entity) is paid only while some value is broken. Returns
    /// whether it found any.
    [[gnu::cold]] bool mark_unsendable(connection& c, const void* state)
    {
        forget_unsendable(c);
        struct context {
            indexed_server* server;
            connection* c;
        } marking{this, &c};
        find_unencodable_(state, &marking, [](void* p, std::size_t index, entity_key key, const status& why) {
            auto& to = *static_cast<context*>(p);
            to.server->mark(*to.c, index, key, why);
        });
        return c.any_unsendable;
    }

    void mark(connection& c, std::size_t index, entity_key key, const status& why)
    {
        c.unsendable[index] = 1;
        c.any_unsendable = true;
        if (!reported_[index].exchange(true, std::memory_order_relaxed) && on_invalid_)
            on_invalid_(key, why);
    }

    /// A client's packet: its ack, then its inputs and messages. All or
    /// nothing: every part is checked before any is applied.
    status apply_client_packet(connection& c, client_id id, std::span<const std::uint8_t> bytes)
    {
        // The packet's body: after the CRC, or decrypted once authentic.
        std::span<const std::uint8_t> body;
        if (status opened = c.guard.open(options_.protocol_id, packet_kind::ack, bytes, body); !opened)
            return opened;
        failure_record failure;
        message_read_stream stream(body, failure);
        ack_record ack;
        if (!ack.serialize(stream)) [[unlikely]]
            return stream.failure_status("ack");
        if (c.parts && !c.parts->read(stream)) [[unlikely]]
            return stream.failure_status("packet");
        if (!stream.serialize_align()) [[unlikely]]
            return stream.failure_status("packet");
        if (stream.bit_position() / 8 != body.size()) [[unlikely]]
            return status(error::trailing_data, 8 * c.guard.prefix() + stream.bit_position(), "packet",
                          "whole bytes left over after the client's packet");
        if (status acked = apply_ack(c, ack); !acked) [[unlikely]]
            return acked;
        if (c.parts)
            c.parts->apply(id, c.removed, body);
        return {};
    }

    status apply_ack(connection& c, const ack_record& ack)
    {
        if (!ack.any)
            return {};
        const std::uint16_t last_sent = static_cast<std::uint16_t>(c.next_sequence - 1);
        if (c.stats.packets_sent == 0 || sequence_newer(ack.newest, last_sent)) [[unlikely]] {
            // A client that heard nothing for half the sequence range acks
            // its old newest packet; once the numbers come round, the same
            // ack would name a new packet it never got. It stays refused
            // until the client acks another packet.
            c.suspect_ack = true;
            c.suspect_newest = ack.newest;
            return status(error::out_of_range, 32, "ack", "acknowledges a packet never sent");
        }
        if (c.suspect_ack && ack.newest == c.suspect_newest) [[unlikely]]
            return status(error::out_of_range, 32, "ack", "acknowledges a packet from before the sequence wrapped");
        c.suspect_ack = false;
        acknowledge(c, ack.newest);
        for (std::uint16_t i = 0; i < 32; ++i)
            if ((ack.mask >> i) & 1u)
                acknowledge(c, static_cast<std::uint16_t>(ack.newest - 1 - i));
        return {};
    }

    void acknowledge(connection& c, std::uint16_t sequence) noexcept
    {
        sent_view& slot = c.ring[sequence % options_.window];
        if (!slot.valid || slot.sequence != sequence)
            return;
        slot.acked = true;
        // The newest ack so far no longer counts once its slot holds another
        // packet: it may be from before the sequence numbers last wrapped,
        // and seem newer than every ack to come for half their range.
        const sent_view& newest = c.ring[c.newest_acked % options_.window];
        const bool newest_held = c.has_acked && newest.acked && newest.sequence == c.newest_acked;
        if (!newest_held || sequence_newer(sequence, c.newest_acked)) {
            c.has_acked = true;
            c.newest_acked = sequence;
        }
    }

    std::vector<std::unique_ptr<connection>> connections_;
    /// receive() and replicate() calls under way (a handler may call them again).
    std::atomic<int> in_use_{0};
    std::atomic<bool> removals_pending_{false}; ///< some connection is marked removed
    /// connection_fingerprint of every (key, connection id) pair given to
    /// add_client on the AEAD path: 8 bytes per connection ever added.
    std::vector<std::uint64_t> used_pairs_;
    /// Scratch states lent to replicate() calls (see scratch_lease).
    mutable std::mutex scratch_mutex_;
    std::vector<std::unique_ptr<scratch>> scratch_free_;};

server_core::server_core(const state_layout& layout, const replication_options& options, find_unencodable_function find)
    : impl_(layout.slot_count <= 0xFFFF
                ? std::unique_ptr<impl>(std::make_unique<indexed_server<std::uint16_t>>(layout, options, find))
                : std::unique_ptr<impl>(std::make_unique<indexed_server<std::uint32_t>>(layout, options, find)))
{
}
server_core::~server_core() = default;

const replication_options& server_core::options() const noexcept { return impl_->options_; }
std::size_t server_core::message_other_bits(std::size_t framing_bits, bool inputs) const noexcept
{
    return impl_->message_other_bits(framing_bits, inputs);
}
client_id server_core::add_client(const packet_key& key, std::uint64_t connection_id,
                                  std::unique_ptr<connection_parts> parts)
{
    return impl_->add_client(key, connection_id, std::move(parts));
}
void server_core::remove_client(client_id id) noexcept { impl_->remove_client(id); }
bool server_core::has_client(client_id id) const noexcept { return impl_->has_client(id); }
connection_parts* server_core::parts(client_id id) const noexcept { return impl_->parts(id); }
std::size_t server_core::client_ids() const noexcept { return impl_->client_ids(); }
void server_core::set_priority(priority_function f) { impl_->priority_ = std::move(f); }
void server_core::set_relevancy(relevancy_function f) { impl_->relevant_ = std::move(f); }
void server_core::set_priority(std::size_t field, entity_priority_function f)
{
    impl_->typed_priority_[field] = std::move(f);
}
void server_core::set_relevancy(std::size_t field, entity_relevancy_function f)
{
    impl_->typed_relevant_[field] = std::move(f);
}
void server_core::set_owner(std::size_t field, entity_owner_function f) { impl_->typed_owner_[field] = std::move(f); }
void server_core::on_invalid_value(invalid_value_function f) { impl_->on_invalid_ = std::move(f); }
void server_core::update(const void* state) { impl_->update(state); }
status server_core::replicate(client_id id, std::span<const std::uint8_t>& packet)
{
    return impl_->replicate(id, packet);
}
status server_core::receive(client_id id, std::span<const std::uint8_t> bytes) { return impl_->receive(id, bytes); }
const server_client_statistics* server_core::statistics(client_id id) const noexcept
{
    return impl_->statistics(id);
}
bool server_core::sent_state(client_id id, std::uint16_t sequence, void* out) const
{
    return impl_->sent_state(id, sequence, out);
}
std::size_t server_core::client_bytes(client_id id) const noexcept { return impl_->client_bytes(id); }
std::size_t server_core::shared_bytes() const noexcept { return impl_->shared_bytes(); }

} // namespace bitrep::replication
