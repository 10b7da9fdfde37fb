// The scheduler's work for one packet: the candidates (the entity slots
// whose target for this client differs on the wire from its baseline),
// each with its accumulated priority, and the ones the packet takes while
// its bound stays within the budget.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>

#include "connection.hpp"
#include "scratch.hpp"
#include <bitrep/detail/portability.hpp>
#include <bitrep/engine/delta_cost.hpp>

namespace bitrep::replication::server_side {

template <class SlotIndex>
class selection {
public:
    /// The selection of client `id`'s packet (its connection `c`) from
    /// `state`, against the baseline `base` (as values), the last packet's
    /// view being `previous`.
    selection(const server_shared& s, connection<SlotIndex>& c, scratch& sc, client_id id, const void* state,
              const void* base, view_parts previous) noexcept
        : s_(s), c_(c), sc_(sc), id_(id), state_(state), base_(base), previous_(previous)
    {
    }

    /// Sets the new view's entity slots (which start as the baseline's). A
    /// slot whose current entity differs on the wire from the baseline's is
    /// a candidate. Candidates already sent in a packet the client has not
    /// acknowledged come first: leaving them out would take the client back
    /// to the baseline's version. The others follow by accumulated
    /// priority. Each is taken while the packet's bound stays within the
    /// budget; `used_bits` bounds everything else the packet holds, and on
    /// return the whole packet. Returns whether that bound is exact
    /// (measured) rather than the entities' upper bounds.
    bool select(std::size_t& used_bits, std::size_t budget_bits)
    {
        if (s_.slot_count == 0)
            return true;
        collect_candidates();
        return take_candidates(used_bits, budget_bits);
    }

private:
    using schedule_type = client_schedule<SlotIndex>;

    const server_shared& s_;
    connection<SlotIndex>& c_;
    scratch& sc_;
    const client_id id_;
    const void* const state_;
    const void* const base_;
    const view_parts previous_;

    /// Fills the candidates with this tick's, every entity array's.
    void collect_candidates()
    {
        c_.schedule.candidate_count = 0;
        c_.schedule.refresh_stale(c_.views.base_refs().data());
        for (const entity_array_layout& array : s_.layout_.arrays) {
            if (array.shared)
                collect_shared_candidates(array);
            else
                collect_field_candidates(array);
        }
        c_.schedule.prune_stale(c_.views.base_refs().data());
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

    /// Adds the candidates of a shared entity array: the slots whose refs
    /// differ from the baseline's (every slot is looked at only when
    /// relevancy or a value that cannot be encoded makes the target differ
    /// per client). A slot whose target equals the baseline's value on the
    /// wire takes the target's ref, so it is not compared again.
    BITREP_NOINLINE void collect_shared_candidates(const entity_array_layout& array)
    {
        const std::size_t first = array.first_slot;
        const std::size_t capacity = array.capacity;
        const std::size_t stride = array.ops->stride;
        client_views<SlotIndex>& views = c_.views;
        view_draft<SlotIndex>& next = c_.draft.view;
        const value_ref* old = views.base_refs().data() + first;
        const value_ref* now = s_.history_.refs() + first;
        const value_ref* sent = previous_.refs + first;
        const auto* current = static_cast<const unsigned char*>(array.slot(s_.history_.current(), 0));
        const auto* had = static_cast<const unsigned char*>(array.slot(base_, 0));
        const auto* live = static_cast<const unsigned char*>(array.slot(state_, 0));
        slot_entry<SlotIndex>* entry = c_.schedule.per_slot.data() + first;
        const bool called = s_.has_priority_callback(array.field);
        const candidate_array adding(array);
        auto consider = [&](std::size_t slot, value_ref ref, const void* target) BITREP_LAMBDA_ALWAYS_INLINE {
            if (old[slot] == ref)
                return;
            // Found to differ from the baseline's value in an earlier packet
            // (the memo is cleared when the baseline's slot changes).
            const bool known = entry[slot].compared == ref && ref != empty_ref;
            if (!known && s_.same_slot_memo(array, first + slot, old[slot], had + slot * stride, ref, target)) {
                // The new view, a copy of the baseline's refs, takes it too.
                views.set_base_ref(first + slot, ref);
                next.set_ref(s_, first + slot, ref);
                return;
            }
            entry[slot].compared = ref;
            bool in_flight = false;
            if (sent != old && sent[slot] == ref) {
                in_flight = true; // the last packet took this very value
            } else if (sent != old && sent[slot] != old[slot]) {
                const void* in_packet = views.value_of(array, slot, sent[slot]);
                in_flight = in_packet == nullptr || !server_shared::same_slot(array, in_packet, had + slot * stride);
            }
            add_candidate(adding, slot, in_flight, ref, target, live + slot * stride, called);
        };
        if (s_.relevancy_set(array.field) || c_.any_unsendable) {
            collect_every_slot(array, sent, current, live, consider);
            return;
        }
        const bool fetch_far = s_.prefetch_far; // read once: the loop's stores would make it load again per slot
        const SlotIndex* stale = c_.schedule.stale.data();
        const std::size_t count = c_.schedule.stale.size();
        for (std::size_t i = 0; i < count; ++i) {
            fetch_ahead(fetch_far, stale, i, count, first, capacity, stride, old, now, sent, entry, had);
            const std::size_t slot = stale[i] - first;
            if (slot >= capacity)
                continue;
            consider(slot, now[slot], current + slot * stride);
        }
    }

    /// Fetches what collecting the candidates of the slots that may differ
    /// reads a few slots ahead of stale slot `i` (of `count`): a slot not
    /// compared yet reads the baseline's value (`had`), which is seldom in
    /// the cache (each client has its own). In a large world the client's
    /// per-slot entries (`old`, `entry`) are not in the cache either: they
    /// are fetched further ahead, then, once they are in, the baseline's
    /// value of the slots to be compared.
    BITREP_ALWAYS_INLINE void fetch_ahead(bool fetch_far, const SlotIndex* stale, std::size_t i, std::size_t count,
                                          std::size_t first, std::size_t capacity, std::size_t stride,
                                          const value_ref* old, const value_ref* now, const value_ref* sent,
                                          const slot_entry<SlotIndex>* entry, const unsigned char* had) const noexcept
    {
        constexpr std::size_t ahead = 8;
        constexpr std::size_t far = 2 * ahead;
        if (fetch_far && i + far < count) {
            const std::size_t later = stale[i + far];
            BITREP_PREFETCH(c_.views.base_refs().data() + later);
            BITREP_PREFETCH(c_.schedule.per_slot.data() + later);
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
    BITREP_ALWAYS_INLINE void collect_every_slot(const entity_array_layout& array, const value_ref* sent,
                                                 const unsigned char* current, const unsigned char* live,
                                                 Consider& consider) const
    {
        const slot_ops& ops = *array.ops;
        const std::size_t stride = ops.stride;
        const value_ref* now = s_.history_.refs() + array.first_slot;
        for (std::size_t slot = 0; slot < array.capacity; ++slot) {
            if (c_.keeps(array.first_slot + slot)) {
                if (const void* in_packet = c_.views.value_of(array, slot, sent[slot]))
                    consider(slot, sent[slot], in_packet);
                continue;
            }
            const entity_key key{array.field, static_cast<std::uint32_t>(slot)};
            const void* now_slot = current + slot * stride;
            const void* live_slot = live + slot * stride;
            if (!ops.has_value(now_slot) || !ops.has_value(live_slot) ||
                !s_.is_relevant(id_, key, state_, ops.entity(live_slot)))
                consider(slot, empty_ref, ops.entry->defaults);
            else
                consider(slot, now[slot], now_slot);
        }
    }

    /// Adds a conditioned entity array's candidates: every slot, compared
    /// by value (views keep these arrays by value, as the client's
    /// conditioned copies differ per client).
    void collect_field_candidates(const entity_array_layout& array)
    {
        const void* sent_array = previous_.fields->at(array.kept_index);
        const bool previous_is_base = previous_.fields == &c_.views.base_fields();
        const bool called = s_.has_priority_callback(array.field);
        const candidate_array adding(array);
        for (std::size_t slot = 0; slot < array.capacity; ++slot) {
            const entity_key key{array.field, static_cast<std::uint32_t>(slot)};
            const void* old = array.slot(base_, slot);
            const void* sent = array.slot_in_array(sent_array, slot);
            // An entity whose value cannot be encoded stays as the client
            // may have it: the last packet's version.
            const void* target = c_.keeps(array.first_slot + slot)
                                     ? sent
                                     : target_slot(key, array, array.slot(state_, slot), sent);
            if (server_shared::same_slot(array, old, target))
                continue;
            const bool in_flight = !previous_is_base && !server_shared::same_slot(array, sent, old);
            add_candidate(adding, slot, in_flight, empty_ref, target, target, called);
        }
    }

    /// The slot (a std::optional<Entity>) as this client should have it
    /// now: the entity, or empty when it is absent or not relevant to the
    /// client; for an entity with conditions, the client's own copy of it.
    const void* target_slot(entity_key key, const entity_array_layout& array, const void* slot, const void* sent) const
    {
        const slot_ops& ops = *array.ops;
        if (!ops.has_value(slot))
            return slot;
        if (!s_.is_relevant(id_, key, state_, ops.entity(slot)))
            return ops.entry->defaults;
        if (ops.apply_conditions == nullptr)
            return slot;
        // The client's own copy, in the connection: the entity with its
        // conditioned members as this client may have them. An
        // initial_only member keeps the value of the newest copy the
        // client may hold (from a packet in flight, or its baseline).
        void* view = array.slot_in_array(c_.conditioned[key.field].get(), key.id);
        const auto& owner = s_.typed_owner_[key.field];
        const std::optional<client_id> owned_by = owner ? owner(key.id, ops.entity(slot)) : std::nullopt;
        // No entity in that view means the entity is created for the
        // client now (its slot may have held another in the baseline).
        const void* had = ops.has_value(sent) ? ops.entity(sent) : nullptr;
        ops.apply_conditions(view, slot, had, owned_by == id_);
        return view;
    }

    /// Adds a candidate, accumulating its priority: slot `slot` of `array`,
    /// whose view should become `target` (a std::optional<Entity>).
    /// `entity` is what the priority callbacks see: the State's slot, or
    /// the client's conditioned copy of it. `called` says whether a
    /// priority callback is set for the array (has_priority_callback),
    /// which the caller asks once per array.
    BITREP_ALWAYS_INLINE void add_candidate(const candidate_array& array, std::size_t slot, bool in_flight,
                                            value_ref ref, const void* target, const void* entity, bool called)
    {
        const std::size_t first = array.first;
        const entity_key key{array.field, static_cast<std::uint32_t>(slot)};
        // An entity's own priority counts when the client gets it (the
        // target) and it exists (the entity); else 1.
        float own = 1.0f;
        if ((called || array.constant_priority != 1.0f) && array.has_value(target) && array.has_value(entity))
            own = called ? s_.priority_of(id_, key, state_, array.entity(entity)) : array.constant_priority;
        const float priority = c_.schedule.accumulated(first + slot, c_.figures.stats.packets_sent) + own;
        c_.schedule.add({target, priority, key.id, key.field, ref, in_flight}, first + slot);
    }

    /// The running bound of the packet while entities are taken. An entity
    /// is first counted at its type's upper bound, which spares measuring
    /// it while the packet is far from full; the first one that does not
    /// fit that way has every entity counted so far measured exactly
    /// (measure_taken), and from then on each is (`exact`).
    struct packet_bound {
        std::size_t used_bits;
        std::size_t budget_bits;
        bool exact = false;
        array_use* uses; ///< the scratch's, by field
    };

    /// Takes the candidates in order while they fit, and counts the rest
    /// deferred. Returns whether the bound is exact.
    bool take_candidates(std::size_t& used_bits, std::size_t budget_bits)
    {
        schedule_type& schedule = c_.schedule;
        packet_bound bound{used_bits, budget_bits, false, sc_.uses.data()};
        for (const entity_array_layout& array : s_.layout_.arrays)
            sc_.uses[array.field] = {0, 0, &array, array.capacity, array.count_bits, array.ops->max_changed_bits};
        schedule.taken.clear();
        // Trying stops once the packet is full: after this many candidates
        // in a row that did not fit.
        constexpr int misses_allowed = 8;
        int misses = 0;
        // Only the candidates that are tried get ordered, a run at a time:
        // the first run a little longer than what the last packet tried,
        // each next one twice the last. (A radix sort of them all, without
        // the comparisons' mispredicted branches, measured slower.)
        const auto first = schedule.order.begin();
        const auto last = first + static_cast<std::ptrdiff_t>(schedule.candidate_count);
        auto next = first;
        auto run = static_cast<std::ptrdiff_t>(schedule.tried_last + schedule.tried_last / 4 + 32);
        while (next != last && misses < misses_allowed) {
            const auto run_end = last - next > run ? next + run : last;
            if (run_end != last)
                std::nth_element(next, run_end, last, std::greater<>{});
            std::sort(next, run_end, std::greater<>{});
            for (; next != run_end && misses < misses_allowed; ++next) {
                candidate& chosen =
                    schedule.candidates[schedule.per_slot[schedule_type::slot_of_key(*next)].candidate_at];
                if (try_take(chosen, bound)) {
                    misses = 0;
                } else {
                    defer(chosen.in_flight);
                    ++misses;
                }
            }
            run *= 2;
        }
        schedule.tried_last = static_cast<std::size_t>(next - first);
        for (auto rest = next; rest != last; ++rest)
            defer((*rest >> schedule_type::in_flight_shift) != 0);
        used_bits = bound.used_bits;
        return bound.exact;
    }

    /// Takes `chosen` when the packet's bound with it stays within the
    /// budget. Returns whether it did.
    BITREP_ALWAYS_INLINE bool try_take(candidate& chosen, packet_bound& bound)
    {
        array_use& use = bound.uses[chosen.field];
        const std::size_t grown_bits =
            use.index_bits + bitrep::detail::listed_index_bits(chosen.id, bitrep::detail::no_listed_index);
        const std::size_t index_growth =
            index_overhead(use, use.count + 1, grown_bits) - index_overhead(use, use.count, use.index_bits);
        std::size_t cost = use.max_changed_bits;
        if (!bound.exact && (cost > bound.budget_bits || bound.used_bits + index_growth + cost > bound.budget_bits))
            measure_taken(bound);
        if (bound.exact)
            cost = changed_bits(*use.array, chosen);
        const std::size_t bits = bound.used_bits + index_growth + cost;
        if (bits > bound.budget_bits)
            return false;
        bound.used_bits = bits;
        use.count += 1;
        use.index_bits = grown_bits;
        if (!bound.exact)
            c_.schedule.taken.push_back(&chosen);
        take(*use.array, chosen);
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

    /// The measured bits of what changed of candidate `chosen` of `array`
    /// against the baseline, shared with the other clients of this tick
    /// whose baselines hold the same value.
    std::size_t changed_bits(const entity_array_layout& array, const candidate& chosen)
    {
        const void* had = array.slot(base_, chosen.id);
        if (!array.shared)
            return measured_changed_bits(array, had, chosen.target);
        const std::size_t slot = array.first_slot + chosen.id;
        return sc_.cache.find(array, slot, c_.views.base_refs()[slot], chosen.ref, had, chosen.target).bound;
    }

    /// Counts the entities taken so far at their measured bits instead of
    /// their upper bounds.
    void measure_taken(packet_bound& bound)
    {
        for (const candidate* taken : c_.schedule.taken) {
            const array_use& use = bound.uses[taken->field];
            bound.used_bits -= use.max_changed_bits - changed_bits(*use.array, *taken);
        }
        bound.exact = true;
    }

    /// Puts a taken entity into the view and counts it sent.
    void take(const entity_array_layout& array, candidate& chosen)
    {
        const std::size_t slot = array.first_slot + chosen.id;
        if (array.shared) {
            c_.draft.view.set_ref(s_, slot, chosen.ref);
            c_.draft.view.take(s_.difference_limit, slot, array.field, chosen.id);
        } else {
            array.ops->assign(c_.draft.view.fields.at(array.kept_index), chosen.id, chosen.target);
        }
        chosen.taken = true;
        if (!c_.keeps(slot))
            c_.note_sent_as_is(s_, slot);
        c_.draft.figures.stats.entities_sent += 1;
    }

    /// Counts a candidate left for a later packet.
    void defer(bool in_flight) noexcept
    {
        c_.draft.figures.stats.entities_deferred += 1;
        c_.draft.figures.stats.in_flight_dropped += in_flight ? 1 : 0;
    }
};

} // namespace bitrep::replication::server_side
