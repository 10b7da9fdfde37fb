// The replication server's world history (world_history.hpp), compiled
// once: every State runs this code over its layout.
#include <bitrep/replication/world_history.hpp>

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <memory>

namespace bitrep::replication {


history::history(const state_layout& layout, std::size_t depth)
    : layout_(layout), depth_(std::max<std::size_t>(depth, 1)),
      per_sweep_((layout.slot_count + sweep_ticks - 1) / sweep_ticks),
      sweep_modulus_(layout.slot_count == 0 ? 1 : layout.slot_count), ring_ticks_(depth_ + 1),
      arenas_(layout.shared.size()), ring_(ring_ticks_ * layout.shared.size()), refs_(layout.slot_count, empty_ref),
      superseded_refs_(layout.slot_count, empty_ref)
{
    for (std::size_t k = 0; k < arenas_.size(); ++k) {
        arenas_[k].ticks = ring_.data() + k * ring_ticks_;
        arenas_[k].list = layout_.shared[k].ops->make_list();
        arenas_[k].most = (depth_ + 2) * layout_.shared[k].capacity;
    }
    renames_.reserve(per_sweep_ + 1);
    current_ = layout_.state_ops->make();
    superseded_ = layout_.state_ops->make();
}

history::~history()
{
    for (std::size_t k = 0; k < arenas_.size(); ++k)
        layout_.shared[k].ops->destroy_list(arenas_[k].list);
    layout_.state_ops->destroy(current_);
    layout_.state_ops->destroy(superseded_);
}

bool history::observe(const void* state)
{
    const std::uint32_t next = tick_ + 1;
    plan_renames(next);
    bool changed = false;
    std::size_t rename_at = 0;
    for (std::size_t k = 0; k < layout_.shared.size(); ++k)
        changed |= observe_array(k, state, next, rename_at);
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

BITREP_ALWAYS_INLINE void history::record(std::size_t k, range& r, std::uint32_t next, std::size_t slot,
                                          const void* value)
{
    arena& a = arenas_[k];
    if (r.at + r.count == a.limit) [[unlikely]]
        make_room(k, r, next);
    a.slots[r.at + r.count] = static_cast<std::uint32_t>(slot);
    layout_.shared[k].ops->put(a.values, r.at + r.count, value);
    ++r.count;
}

bool history::observe_array(std::size_t k, const void* state, std::uint32_t next, std::size_t& rename_at)
{
    const std::vector<std::size_t>& renames = renames_;
    const shared_array& array = layout_.shared[k];
    const slot_ops& ops = *array.ops;
    // This tick's range takes the place of the tick that left the window.
    range& changes = range_of(next, k);
    changes = {arenas_[k].head, 0};
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
            record(k, changes, next, slot, was);
            refs_[slot] = ref_of(next);
            changed = true;
            continue;
        }
        keep_superseded(array, id, next, was);
        ops.assign(array.array(current_), id, now);
        record(k, changes, next, slot, now);
        refs_[slot] = ops.has_value(now) ? ref_of(next) : empty_ref;
        changed = true;
    }
    arenas_[k].head = changes.at + changes.count;
    return changed;
}

void history::make_room(std::size_t k, range& r, std::uint32_t next)
{
    arena& a = arenas_[k];
    const std::size_t end = r.at + r.count;
    // The window's ticks, next - depth to next - 1, lie in the arena one
    // after another from the oldest with changes here.
    const range* oldest = nullptr;
    const std::size_t now = next % ring_ticks_;
    for (std::size_t d = depth_; d > 0 && oldest == nullptr; --d) {
        const range& o = a.ticks[(now + ring_ticks_ - d) % ring_ticks_];
        oldest = o.count != 0 ? &o : nullptr;
    }
    if (oldest == nullptr || oldest->at < r.at) {
        // Free: from the tick's end to the arena's, and from its start to
        // the oldest tick's changes (or its end, when the window has none).
        const std::size_t before = oldest == nullptr ? a.capacity : oldest->at;
        a.limit = a.capacity;
        if (end < a.capacity)
            return;
        if (r.count < before) {
            // Ranges apart, or the destination first: copying forward is safe.
            const slot_ops& ops = *layout_.shared[k].ops;
            std::copy_n(a.slots.data() + r.at, r.count, a.slots.data());
            ops.move_values(a.values, static_cast<unsigned char*>(a.values) + r.at * ops.stride, r.count);
            r.at = 0;
            a.limit = before;
            return;
        }
    } else {
        // The window's changes wrap round: free from the tick's end to the oldest's.
        a.limit = oldest->at;
        if (end < a.limit)
            return;
    }
    grow(k, r, next, std::min(a.most, std::max<std::size_t>(2 * a.capacity, 16)));
}

void history::grow(std::size_t k, range& r, std::uint32_t next, std::size_t capacity)
{
    arena& a = arenas_[k];
    const slot_ops& ops = *layout_.shared[k].ops;
    assert(capacity > a.capacity);
    std::vector<std::uint32_t> slots(capacity);
    std::unique_ptr<void, void (*)(void*)> list(ops.make_list(), ops.destroy_list);
    void* values = ops.resize_list(list.get(), capacity);
    std::size_t at = 0;
    const auto move = [&](range& o) {
        std::copy_n(a.slots.data() + o.at, o.count, slots.data() + at);
        ops.move_values(static_cast<unsigned char*>(values) + at * ops.stride,
                        static_cast<unsigned char*>(a.values) + o.at * ops.stride, o.count);
        o.at = at;
        at += o.count;
    };
    const std::size_t now = next % ring_ticks_;
    for (std::size_t d = depth_; d > 0; --d)
        move(a.ticks[(now + ring_ticks_ - d) % ring_ticks_]);
    move(r);
    a.slots.swap(slots);
    void* old = a.list;
    a.list = list.release();
    list.reset(old);
    a.values = values;
    a.capacity = capacity;
    a.limit = capacity;
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
    std::size_t bytes = (refs_.capacity() + superseded_refs_.capacity()) * sizeof(value_ref) + layout_.state_size +
                        ring_.capacity() * sizeof(range);
    for (std::size_t k = 0; k < arenas_.size(); ++k)
        bytes += arenas_[k].slots.capacity() * sizeof(std::uint32_t) +
                 layout_.shared[k].ops->list_bytes(arenas_[k].list);
    return bytes;
}

} // namespace bitrep::replication
