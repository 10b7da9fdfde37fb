// The view and baseline store: what a client holds, as far as the server
// knows. A view is a value_ref per entity slot (naming a value in the world
// history) and the other fields by value; the client's packets in the
// window each brought it to one, and the newest it acknowledged is the
// baseline the next packet is a delta against, kept as values.
#pragma once

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstdint>
#include <utility>
#include <vector>

#include "shared.hpp"

namespace bitrep::replication::server_side {

/// A view's refs summed up, kept as they change (when hash_views): over
/// the slots holding a value, two sums (mod 2^64) of a different mix of
/// (slot, ref) each. Equal refs give equal sums; refs that differ give
/// equal sums by chance only, about once in 2^128 (each mix spreads every
/// bit of its input over the 64 of its output).
struct view_hash {
    std::uint64_t a = 0, b = 0;
    bool operator==(const view_hash&) const = default;

    /// Replaces `was` by `now` in the sum, for slot `slot`.
    void rehash(std::size_t slot, value_ref was, value_ref now) noexcept
    {
        const view_hash out = of_slot(slot, was), in = of_slot(slot, now);
        a += in.a - out.a;
        b += in.b - out.b;
    }

    static view_hash of(const value_ref* refs, std::size_t slot_count) noexcept
    {
        view_hash hash;
        for (std::size_t s = 0; s < slot_count; ++s)
            hash.rehash(s, empty_ref, refs[s]);
        return hash;
    }

private:
    static std::uint64_t mix(std::uint64_t x, std::uint64_t k1, std::uint64_t k2) noexcept
    {
        x = (x ^ (x >> 30)) * k1;
        x = (x ^ (x >> 27)) * k2;
        return x ^ (x >> 31);
    }
    static view_hash of_slot(std::size_t slot, value_ref ref) noexcept
    {
        if (ref == empty_ref)
            return {};
        const std::uint64_t key = (static_cast<std::uint64_t>(slot) << 16) | ref;
        return {mix(key + 0x9E3779B97F4A7C15u, 0xBF58476D1CE4E5B9u, 0x94D049BB133111EBu),
                mix(key + 0x7F4A7C159E3779B9u, 0xFF51AFD7ED558CCDu, 0xC4CEB9FE1A85EC53u)};
    }
};

/// What the server knows of a packet it sent; its view (what the packet
/// brought the client to) is in the store's ring_refs and ring_fields rows
/// of the same index.
struct sent_view {
    std::uint16_t sequence = 0;
    bool valid = false;
    bool acked = false;
    bool has_baseline = false; ///< the packet was a delta against `baseline`
    bool usable = true;        ///< false once a value of its view left the history before it became a baseline
    std::uint16_t baseline = 0;
    /// The baseline log's length when the packet was made: its view was
    /// the baseline's refs then, but for the slots it took, listed in the
    /// sent log from sent_at (while later packets have not overwritten
    /// them).
    std::uint32_t log_at = 0;
    std::uint32_t sent_at = 0;
    std::uint32_t tick = 0;       ///< the history's tick when it was made (see fresh)
    std::uint32_t sent_count = 0; ///< more than difference_limit: too many to list
    view_hash hash{};             ///< of its view's refs (with hash_views)
};

/// A view as the server keeps it: a value_ref per entity slot (those of
/// entity arrays with conditions unused) and the other fields by value.
struct view_parts {
    const value_ref* refs;
    const kept_values* fields;
    view_hash hash; ///< of refs (hash_views)
};

/// The view a packet being built brings the client to. It starts as the
/// baseline's (client_views::start_next_view) and takes the entities the
/// selection chooses; the store takes it into its ring once the packet
/// exists (client_views::commit_view).
template <class SlotIndex>
struct view_draft {
    /// A ref per entity slot and the other fields by value, and the hash of
    /// the refs (hash_views).
    std::vector<value_ref> refs;
    kept_values fields{};
    view_hash hash;
    /// The shared slots it takes, as slot numbers (difference_limit + 1
    /// places: past difference_limit, too many to list) and as (field, id).
    std::vector<SlotIndex> sent;
    std::size_t sent_count = 0;
    std::vector<std::pair<std::uint16_t, std::uint32_t>> sent_ids;
    /// Between packets, when refs_known: `refs` holds the view of the
    /// packet refs_were describes (the ring row the last packet took held
    /// it), for start_next_view.
    sent_view refs_were{};
    bool refs_known = false;

    void set_ref(const server_shared& s, std::size_t slot, value_ref ref) noexcept
    {
        if (s.hash_views)
            hash.rehash(slot, refs[slot], ref);
        refs[slot] = ref;
    }

    /// Adds a shared slot to those the view takes.
    void take(std::size_t difference_limit, std::size_t slot, std::uint16_t field, std::uint32_t id)
    {
        if (sent_count <= difference_limit)
            sent[sent_count++] = static_cast<SlotIndex>(slot);
        sent_ids.emplace_back(field, id);
    }
};

/// The views of one client's packets in the window, and its baseline: the
/// newest view it acknowledged, made into values. Slots whose baseline
/// value changes are told to a Watcher (the scheduler, which keeps per
/// slot what it found of them): watcher.fetch(slot) ahead of the change
/// and watcher.base_changed(slot) when it is made.
template <class SlotIndex>
class client_views {
public:
    using slot_index = SlotIndex;

    explicit client_views(const server_shared& s)
        : s_(&s), ring_(s.options_.window),
          ring_refs_(s.options_.window, std::vector<value_ref>(s.slot_count, empty_ref)),
          ring_fields_(s.options_.window, s.default_fields_), base_state_(s.layout_),
          base_refs_(s.slot_count, empty_ref), base_fields_(s.default_fields_), moved_(s.slot_count, 0),
          base_log_(std::bit_ceil(s.difference_limit), 0), sent_log_(s.sent_log_size, 0)
    {
    }

    /// The baseline's refs, other fields, and the sequence of the next
    /// packet.
    const std::vector<value_ref>& base_refs() const noexcept { return base_refs_; }
    const kept_values& base_fields() const noexcept { return base_fields_; }
    std::uint16_t next_sequence() const noexcept { return next_sequence_; }

    /// Whether packet `sequence` can be a baseline: acknowledged, and the
    /// client still holds its view (fewer than `window` packets since).
    bool holds_baseline(std::uint16_t sequence) const noexcept
    {
        if (static_cast<std::uint16_t>(next_sequence_ - sequence) >= s_->options_.window)
            return false;
        const sent_view& slot = ring_[sequence % s_->options_.window];
        return slot.valid && slot.acked && slot.sequence == sequence && fresh(slot);
    }

    /// Whether a sent view is young enough to use: made fewer than view_age
    /// history ticks ago, so that the refs it holds have not been given out
    /// again (world_history.hpp, rename_age).
    bool fresh(const sent_view& view) const noexcept { return s_->history_.tick() - view.tick < view_age; }

    view_hash hash_at(const sent_view& view) const noexcept { return s_->hash_views ? view.hash : view_hash{}; }

    /// The newest acked view still in the window, materialized in
    /// base_state; else the default state. When a value of that view has
    /// left the history, the view materialized before stays the baseline
    /// while the client holds it, and `skipped` counts it.
    template <class Watcher>
    const void* baseline(packet_header& header, Watcher& watcher, std::uint64_t& skipped)
    {
        header.has_baseline = false;
        const std::size_t window = s_->options_.window;
        if (has_acked_ && holds_baseline(newest_acked_) && ring_[newest_acked_ % window].usable &&
            (base_default_ || base_sequence_ != newest_acked_)) {
            if (!materialize_base(newest_acked_, watcher)) [[unlikely]] {
                ring_[newest_acked_ % window].usable = false;
                skipped += 1;
            }
        }
        if (!base_default_ && holds_baseline(base_sequence_)) {
            header.has_baseline = true;
            header.baseline = base_sequence_;
            return base_state_.get();
        }
        if (!base_default_)
            materialize_default(watcher);
        return base_state_.get();
    }

    /// The value (a std::optional<Entity>) `ref` names in slot `id` of the
    /// shared entity array `array` for this client: its baseline's when the
    /// refs agree, else the history's (nullptr when the history no longer
    /// has it).
    BITREP_ALWAYS_INLINE const void* value_of(const entity_array_layout& array, std::size_t id,
                                              value_ref ref) const noexcept
    {
        if (base_refs_[array.first_slot + id] == ref)
            return array.slot(base_state_.get(), id);
        return s_->history_.find(array, id, ref);
    }

    /// Changes a slot's baseline ref, in the log.
    void set_base_ref(std::size_t slot, value_ref ref) noexcept
    {
        if (s_->hash_views)
            base_hash_.rehash(slot, base_refs_[slot], ref);
        base_refs_[slot] = ref;
        base_log_[static_cast<std::size_t>(base_log_end_++) & (base_log_.size() - 1)] = static_cast<slot_index>(slot);
    }

    /// Whether the logs list every slot where the view of packet `view` may
    /// differ from the baseline's, in at most difference_limit places.
    bool listed(const sent_view& view) const noexcept
    {
        return view.sent_count + static_cast<std::uint32_t>(base_log_end_ - view.log_at) <= s_->difference_limit &&
               static_cast<std::uint32_t>(sent_log_end_ - view.sent_at) <= s_->sent_log_size;
    }

    /// Where `refs`, the view of the packet `view` describes, may differ
    /// from the baseline's: the slots its packet took and those whose
    /// baseline ref changed since it was made (when they are `listed`; else
    /// every slot is compared). Calls f(slot) for each slot whose refs
    /// differ, some perhaps twice; f may change refs[slot].
    template <class F>
    void for_each_difference(const sent_view& view, const value_ref* refs, F&& f) const
    {
        const value_ref* base = base_refs_.data();
        const std::size_t sent_mask = s_->sent_log_size - 1;
        const bool fetch_far = s_->prefetch_far;
        const std::uint32_t sent_at = view.sent_at;
        const std::size_t sent_count = view.sent_count;
        const std::uint32_t from = view.log_at;
        if (!listed(view)) {
            for_each_mismatch(base, refs, s_->slot_count, f);
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
                fetch(sent_log_[(sent_at + i + ahead) & sent_mask]);
            const std::size_t s = sent_log_[(sent_at + i) & sent_mask];
            if (base[s] != refs[s])
                f(s);
        }
        const std::size_t mask = base_log_.size() - 1;
        for (std::uint32_t i = from; i != base_log_end_; ++i) {
            if (base_log_end_ - i > ahead)
                fetch(base_log_[static_cast<std::size_t>(i + ahead) & mask]);
            const std::size_t s = base_log_[static_cast<std::size_t>(i) & mask];
            if (base[s] != refs[s])
                f(s);
        }
#ifndef NDEBUG
        // The log misses nothing: every slot that differs is in it. (The
        // thread's scratch keeps its capacity: no allocation once warm.)
        static thread_local std::vector<std::uint8_t> in_log;
        in_log.assign(s_->slot_count, 0);
        for (std::size_t i = 0; i < sent_count; ++i)
            in_log[sent_log_[(sent_at + i) & sent_mask]] = 1;
        for (std::uint32_t i = from; i != base_log_end_; ++i)
            in_log[base_log_[static_cast<std::size_t>(i) & mask]] = 1;
        for_each_mismatch(base, refs, s_->slot_count, [&](std::size_t s) { assert(in_log[s] != 0); });
#endif
    }

    /// Makes `out` (whose slots hold the values `held` names) the view
    /// `refs` + `fields` for this client. Returns false when a value it
    /// needs has left the history (then `out` is a mix, as `held` says).
    bool materialize(const value_ref* refs, const kept_values& fields, void* out, std::vector<value_ref>& held) const
    {
        bool found = true;
        for (const entity_array_layout& array : s_->layout_.shared) {
            const std::size_t first = array.first_slot;
            void* slots = array.array(out);
            for_each_mismatch(held.data() + first, refs + first, array.capacity, [&](std::size_t s) {
                if (const void* value = value_of(array, s, refs[first + s])) {
                    array.ops->assign(slots, s, value);
                    held[first + s] = refs[first + s];
                } else {
                    found = false;
                }
            });
        }
        s_->assign_kept(out, fields);
        return found;
    }

    /// The view packet `sequence` brought the client to, into `out` (a
    /// default State); false when it is no longer known.
    bool sent_state(std::uint16_t sequence, void* out) const
    {
        const std::size_t row = sequence % s_->options_.window;
        const sent_view& slot = ring_[row];
        if (!slot.valid || slot.sequence != sequence || !fresh(slot))
            return false;
        // A default State holds no entity: every slot as empty_ref names it.
        std::vector<value_ref> held(s_->slot_count, empty_ref);
        return materialize(ring_refs_[row].data(), ring_fields_[row], out, held);
    }

    /// The state a coded packet predicts from, which the client must hold
    /// too: a view `d` packets before the baseline, where `d` is the
    /// baseline's distance from this packet, so that base + (base - older)
    /// extrapolates to this tick; else the baseline's own baseline when it
    /// is less than 2d before it (a prediction that falls short still
    /// helps); else none (header.has_older false: the baseline itself, no
    /// prediction, also when the history no longer has a value of that
    /// view). A view counts as held when the client acknowledged it, or
    /// decoded the baseline against it, and no packet since could have
    /// taken its slot in the client's ring (fewer than `window` packets
    /// sent after it). Returns the view (its refs nullptr: none).
    view_parts older_view(packet_header& header) const
    {
        header.has_older = false;
        header.older = 0;
        if (!header.has_baseline)
            return {nullptr, nullptr, {}};
        const std::size_t window = s_->options_.window;
        const std::uint16_t b = header.baseline;
        const sent_view& baseline_view = ring_[b % window];
        auto held = [&](std::uint16_t older) -> const sent_view* {
            if (static_cast<std::uint16_t>(next_sequence_ - older) >= window)
                return nullptr;
            const sent_view& slot = ring_[older % window];
            if (!slot.valid || slot.sequence != older || !fresh(slot))
                return nullptr;
            const bool decoded_against = baseline_view.has_baseline && baseline_view.baseline == older;
            return slot.acked || decoded_against ? &slot : nullptr;
        };
        const auto d = static_cast<std::uint16_t>(next_sequence_ - b);
        const sent_view* older = held(static_cast<std::uint16_t>(b - d));
        if (older == nullptr && baseline_view.has_baseline &&
            static_cast<std::uint16_t>(b - baseline_view.baseline) < 2u * d)
            older = held(baseline_view.baseline);
        if (older == nullptr)
            return {nullptr, nullptr, {}};
        const std::size_t row = older->sequence % window;
        if (!history_holds(row)) [[unlikely]]
            return {nullptr, nullptr, {}};
        header.has_older = true;
        header.older = older->sequence;
        return {ring_refs_[row].data(), &ring_fields_[row], hash_at(ring_[row])};
    }

    /// The view of the last packet sent (the newest the client may hold),
    /// or the baseline when there is none (`packets_sent` 0).
    view_parts previous_view(std::uint64_t packets_sent) const noexcept
    {
        const std::uint16_t last = static_cast<std::uint16_t>(next_sequence_ - 1);
        const std::size_t row = last % s_->options_.window;
        const sent_view& slot = ring_[row];
        if (packets_sent != 0 && slot.valid && slot.sequence == last && fresh(slot))
            return {ring_refs_[row].data(), &ring_fields_[row], hash_at(slot)};
        return base_parts();
    }

    view_parts base_parts() const noexcept { return {base_refs_.data(), &base_fields_, base_hash_}; }

    /// Makes the draft's refs the baseline's refs: where the view they hold
    /// (the one the last packet's ring row held, refs_were) differs from
    /// the baseline, when the logs list those places; else by a copy. In a
    /// world where little changes this spares copying every ref for every
    /// packet.
    void start_next_view(view_draft<SlotIndex>& draft) const
    {
        value_ref* next = draft.refs.data();
        const value_ref* base = base_refs_.data();
        if (draft.refs_known && listed(draft.refs_were))
            for_each_difference(draft.refs_were, next, [&](std::size_t s) { next[s] = base[s]; });
        else
            std::copy_n(base, s_->slot_count, next); // as fast as the scan, when every slot must be looked at
        draft.refs_known = false;                    // until the packet is committed
        if (s_->hash_views)
            draft.hash = base_hash_;
        draft.sent_count = 0;
        draft.sent_ids.clear();
        assert(std::equal(base_refs_.begin(), base_refs_.end(), draft.refs.begin()));
    }

    /// The draft's view becomes the ring's row for the packet `header`
    /// describes, the next sequence; the draft keeps the row's old refs, to
    /// start the next view from.
    void commit_view(view_draft<SlotIndex>& draft, const packet_header& header) noexcept
    {
        const std::size_t row = next_sequence_ % s_->options_.window;
        std::swap(ring_refs_[row], draft.refs);
        draft.refs_were = ring_[row];
        draft.refs_known = ring_[row].valid;
        const std::uint32_t sent_at = sent_log_end_;
        if (draft.sent_count <= s_->difference_limit) {
            for (std::size_t i = 0; i < draft.sent_count; ++i)
                sent_log_[(sent_at + i) & (s_->sent_log_size - 1)] = draft.sent[i];
            sent_log_end_ += static_cast<std::uint32_t>(draft.sent_count);
        }
        std::swap(ring_fields_[row], draft.fields);
        ring_[row] = {next_sequence_,   true,    false,        header.has_baseline,
                     true,            header.baseline, base_log_end_, sent_at,
                     s_->history_.tick(), static_cast<std::uint32_t>(draft.sent_count)};
        if (s_->hash_views)
            ring_[row].hash = draft.hash;
        ++next_sequence_;
    }

    /// Applies a client's ack: refused when it names a packet not sent
    /// (`packets_sent` so far).
    status apply_ack(const ack_record& ack, std::uint64_t packets_sent)
    {
        if (!ack.any)
            return {};
        const std::uint16_t last_sent = static_cast<std::uint16_t>(next_sequence_ - 1);
        if (packets_sent == 0 || sequence_newer(ack.newest, last_sent)) [[unlikely]] {
            // A client that heard nothing for half the sequence range acks
            // its old newest packet; once the numbers come round, the same
            // ack would name a new packet it never got. It stays refused
            // until the client acks another packet.
            suspect_ack_ = true;
            suspect_newest_ = ack.newest;
            return status(error::out_of_range, 32, "ack", "acknowledges a packet never sent");
        }
        if (suspect_ack_ && ack.newest == suspect_newest_) [[unlikely]]
            return status(error::out_of_range, 32, "ack", "acknowledges a packet from before the sequence wrapped");
        suspect_ack_ = false;
        acknowledge(ack.newest);
        for (std::uint16_t i = 0; i < 32; ++i)
            if ((ack.mask >> i) & 1u)
                acknowledge(static_cast<std::uint16_t>(ack.newest - 1 - i));
        return {};
    }

    /// The bytes the store holds.
    std::size_t bytes() const noexcept
    {
        std::size_t bytes = s_->layout_.state_size;
        for (const auto& refs : ring_refs_)
            bytes += sizeof(std::vector<value_ref>) + refs.capacity() * sizeof(value_ref);
        bytes += ring_.capacity() * sizeof(sent_view);
        for (const kept_values& fields : ring_fields_)
            bytes += fields.bytes();
        bytes += (sent_log_.capacity() + base_log_.capacity() + moved_.capacity()) * sizeof(slot_index);
        bytes += base_refs_.capacity() * sizeof(value_ref);
        return bytes;
    }

private:
    const server_shared* s_;
    /// The packets in the window, by sequence % window, and their views
    /// (refs and other fields) at the same index. A packet's view is built
    /// in a view_draft and swapped in only once the packet exists.
    std::vector<sent_view> ring_;
    std::vector<std::vector<value_ref>> ring_refs_;
    std::vector<kept_values> ring_fields_;
    /// The baseline's view, materialized: a State holding the values its
    /// refs name (kept here, since the history forgets old values that a
    /// slow client may still hold), its refs, its other fields, and which
    /// packet it is (none: the default state).
    state_object base_state_;
    std::vector<value_ref> base_refs_;
    kept_values base_fields_{};
    view_hash base_hash_; ///< of base_refs (hash_views)
    bool base_default_ = true;
    std::uint16_t base_sequence_ = 0;
    std::uint16_t next_sequence_ = 0;
    bool has_acked_ = false;
    std::uint16_t newest_acked_ = 0;
    bool suspect_ack_ = false; ///< an ack named a packet not sent yet: see apply_ack
    std::uint16_t suspect_newest_ = 0;

    /// materialize_base's slots that differ (repeats allowed).
    std::vector<slot_index> moved_;
    /// The slots whose baseline ref changed, in order: a ring of the last
    /// base_log.size() of them, base_log_end counting all. With the slots a
    /// packet took (in the sent log, unless there were more than
    /// difference_limit), it says where the packet's view may differ from
    /// the baseline's without comparing every slot.
    std::vector<slot_index> base_log_;
    std::uint32_t base_log_end_ = 0; ///< mod 2^32: only differences of a window's packets are taken
    /// The slots the packets took, packet after packet: a ring of the last
    /// sent_log_size, sent_log_end counting all.
    std::vector<slot_index> sent_log_;
    std::uint32_t sent_log_end_ = 0;

    /// Makes base_state the view of packet `sequence`, copying the slots
    /// whose refs differ; changes nothing and returns false when a value it
    /// needs has left the history.
    template <class Watcher>
    bool materialize_base(std::uint16_t sequence, Watcher& watcher)
    {
        const std::size_t row = sequence % s_->options_.window;
        const value_ref* want = ring_refs_[row].data();
        const history& past = s_->history_;
        const state_layout& layout = s_->layout_;
        // One scan finds the slots that differ; nothing changes until each
        // of their values is known to be in the history.
        std::size_t n = 0;
        slot_index* differing = moved_.data();
        for_each_difference(ring_[row], want, [&](std::size_t s) { differing[n++] = static_cast<slot_index>(s); });
        // The baseline's slots and the client's entries for them are seldom
        // in the cache (each client has its own): fetched while the history
        // is asked, for the copy after. (`holds` answers from the ref's age;
        // the copy searches the history once.)
        bool found = true;
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t s = differing[i];
            const entity_array_layout& array = *layout.shared_of(s);
            const auto* bytes = static_cast<const char*>(array.slot(base_state_.get(), s - array.first_slot));
            BITREP_PREFETCH(bytes);
            BITREP_PREFETCH(bytes + array.ops->stride - 1);
            watcher.fetch(s);
            found = found && past.holds(array, s - array.first_slot, want[s]);
        }
        if (!found)
            return false;
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t s = differing[i];
            if (base_refs_[s] == want[s])
                continue; // a repeat
            const entity_array_layout& array = *layout.shared_of(s);
            const void* value = past.find(array, s - array.first_slot, want[s]);
            assert(value != nullptr); // held, as asked above
            array.ops->assign(array.array(base_state_.get()), s - array.first_slot, value);
            set_base_ref(s, want[s]);
            watcher.base_changed(s);
        }
        s_->assign_kept(base_state_.get(), ring_fields_[row]);
        base_fields_ = ring_fields_[row];
        base_default_ = false;
        base_sequence_ = sequence;
        return true;
    }

    template <class Watcher>
    void materialize_default(Watcher& watcher)
    {
        for (const entity_array_layout& array : s_->layout_.shared) {
            for (std::size_t s = 0; s < array.capacity; ++s) {
                const std::size_t slot = array.first_slot + s;
                if (base_refs_[slot] != empty_ref) {
                    array.ops->assign(array.array(base_state_.get()), s, array.ops->entry->defaults);
                    set_base_ref(slot, empty_ref);
                    watcher.base_changed(slot);
                }
            }
        }
        for (const kept_field& f : s_->layout_.kept)
            f.ops->assign(f.in(base_state_.get()), f.in(s_->layout_.state_defaults));
        base_fields_ = s_->default_fields_;
        base_default_ = true;
    }

    /// Whether every value the view of ring row `row` names can be found
    /// (materialize would succeed).
    bool history_holds(std::size_t row) const noexcept
    {
        bool held = true;
        const value_ref* refs = ring_refs_[row].data();
        for_each_difference(ring_[row], refs, [&](std::size_t slot) BITREP_LAMBDA_ALWAYS_INLINE {
            const entity_array_layout& array = *s_->layout_.shared_of(slot);
            held = held && s_->history_.holds(array, slot - array.first_slot, refs[slot]);
        });
        return held;
    }

    void acknowledge(std::uint16_t sequence) noexcept
    {
        const std::size_t window = s_->options_.window;
        sent_view& slot = ring_[sequence % window];
        if (!slot.valid || slot.sequence != sequence)
            return;
        slot.acked = true;
        // The newest ack so far no longer counts once its slot holds another
        // packet: it may be from before the sequence numbers last wrapped,
        // and seem newer than every ack to come for half their range.
        const sent_view& newest = ring_[newest_acked_ % window];
        const bool newest_held = has_acked_ && newest.acked && newest.sequence == newest_acked_;
        if (!newest_held || sequence_newer(sequence, newest_acked_)) {
            has_acked_ = true;
            newest_acked_ = sequence;
        }
    }
};

} // namespace bitrep::replication::server_side
