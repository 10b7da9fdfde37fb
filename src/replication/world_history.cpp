// The replication server's world history (world_history.hpp), compiled
// once: every State runs this code over its layout.
#include <bitrep/replication/world_history.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

namespace bitrep::replication {


history::history(const state_layout& layout, std::size_t depth)
    : layout_(layout), depth_(std::max<std::size_t>(depth, 1)),
      per_sweep_((layout.slot_count + sweep_ticks - 1) / sweep_ticks),
      sweep_modulus_(layout.slot_count == 0 ? 1 : layout.slot_count), refs_(layout.slot_count, empty_ref),
      superseded_refs_(layout.slot_count, empty_ref)
{
    ring_.resize(depth_ + 1);
    for (tick_changes& changes : ring_) {
        changes.lists.resize(layout_.shared.size());
        for (std::size_t k = 0; k < changes.lists.size(); ++k)
            changes.lists[k].list = layout_.shared[k].ops->make_list();
    }
    renames_.reserve(per_sweep_ + 1);
    current_ = layout_.state_ops->make();
    superseded_ = layout_.state_ops->make();
}

history::~history()
{
    for (tick_changes& changes : ring_)
        for (std::size_t k = 0; k < changes.lists.size(); ++k)
            layout_.shared[k].ops->destroy_list(changes.lists[k].list);
    layout_.state_ops->destroy(current_);
    layout_.state_ops->destroy(superseded_);
}

bool history::observe(const void* state)
{
    const std::uint32_t next = tick_ + 1;
    tick_changes& changes = ring_[next % ring_.size()];
    changes.slots.clear();
    plan_renames(next);
    bool changed = false;
    std::size_t rename_at = 0;
    for (std::size_t k = 0; k < layout_.shared.size(); ++k)
        changed |= observe_array(k, state, next, changes, rename_at);
    if (changed) {
        tick_ = next;
        sweep_ = (sweep_ + per_sweep_) % sweep_modulus_;
    }
    return changed;
}

void history::plan_renames(std::uint32_t next)
{
    // This tick's share of the sweep: slots [sweep_, sweep_ + per_sweep_)
    // modulo the slot count, so that every slot is visited at least every
    // sweep_ticks observed ticks. The slots to rename, ascending (a
    // handful: the share may wrap past the last slot).
    std::vector<std::size_t>& renames = renames_;
    renames.clear();
    for (std::size_t k = 0; k < per_sweep_; ++k) {
        const std::size_t slot = (sweep_ + k) % sweep_modulus_;
        if (aged(superseded_refs_[slot], next, drop_age))
            superseded_refs_[slot] = empty_ref;
        if (aged(refs_[slot], next, rename_age))
            renames.push_back(slot);
    }
    std::sort(renames.begin(), renames.end());
    renames.push_back(layout_.slot_count); // past every slot
}

bool history::observe_array(std::size_t k, const void* state, std::uint32_t next, tick_changes& changes,
                            std::size_t& rename_at)
{
    const std::vector<std::size_t>& renames = renames_;
    const shared_array& array = layout_.shared[k];
    const slot_ops& ops = *array.ops;
    tick_list& list = changes.lists[k];
    ops.clear_list(list.list);
    list.values = nullptr;
    list.start = changes.slots.size();
    while (renames[rename_at] < array.first_slot)
        ++rename_at;
    const void* held_slots = array.slot(current_, 0);
    const void* now_slots = array.slot(state, 0);
    bool changed = false;
    for (std::size_t id = 0;; ++id) {
        // Up to the next slot to rename, the slots whose bytes differ
        // (all of them for a type that is not trivially copyable).
        const std::size_t stop = std::min<std::size_t>(array.capacity, renames[rename_at] - array.first_slot);
        id = ops.next_differing(held_slots, now_slots, id, stop);
        if (id == array.capacity)
            break;
        const void* was = array.slot(current_, id);
        const void* now = array.slot(state, id);
        const std::size_t slot = array.first_slot + id;
        const bool rename = renames[rename_at] == slot;
        rename_at += rename ? 1 : 0;
        // Before `stop` the bytes differ; at it they were not compared.
        const bool same_bytes = id == stop && ops.next_differing(held_slots, now_slots, id, id + 1) != id;
        if (same_bytes || engine::same<scope::replication>(*ops.entry, was, now)) {
            if (!rename)
                continue;
            // Renamed: recorded as a change to the value it has.
            keep_superseded(array, id, next, was);
            changes.slots.push_back(static_cast<std::uint32_t>(slot));
            list.values = ops.push(list.list, was);
            refs_[slot] = ref_of(next);
            changed = true;
            continue;
        }
        keep_superseded(array, id, next, was);
        ops.assign(array.array(current_), id, now);
        changes.slots.push_back(static_cast<std::uint32_t>(slot));
        list.values = ops.push(list.list, now);
        refs_[slot] = ops.has_value(now) ? ref_of(next) : empty_ref;
        changed = true;
    }
    return changed;
}

/// Slot `id` of `array` changes at tick `next`. A client's view may name
/// the value it had until now for about a window of packets more; when that
/// value's own tick leaves the history within depth / 2 ticks (an entity
/// that had not changed for long), it is kept aside, so that a view sent
/// while it was current can still become a baseline. It is overwritten only
/// by a value superseded at least depth / 2 ticks after it was, when no view
/// in flight names it.
void history::keep_superseded(const shared_array& array, std::size_t id, std::uint32_t next, const void* was)
{
    const std::size_t slot = array.first_slot + id;
    const value_ref old = refs_[slot];
    if (old == empty_ref)
        return;
    const std::uint32_t age = (ref_of(next) + ref_period - old) % ref_period;
    if (std::uint64_t{2} * age < depth_)
        return;
    superseded_refs_[slot] = old;
    array.ops->assign(array.array(superseded_), id, was);
}

std::size_t history::history_bytes() const noexcept
{
    std::size_t bytes = (refs_.capacity() + superseded_refs_.capacity()) * sizeof(value_ref) + layout_.state_size;
    for (const tick_changes& changes : ring_) {
        bytes += changes.slots.capacity() * sizeof(std::uint32_t);
        for (std::size_t k = 0; k < changes.lists.size(); ++k)
            bytes += layout_.shared[k].ops->list_bytes(changes.lists[k].list);
    }
    return bytes;
}

} // namespace bitrep::replication
