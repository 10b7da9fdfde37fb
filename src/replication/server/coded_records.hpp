// The coded deltas of shared entity slots recorded this tick, shared by the
// clients whose packets send the same slot from the same older state and
// baseline: a coded packet replays an entity's decisions into its own
// models instead of comparing and encoding the entity again
// (docs/design/replication-server.md, "Coded packets under loss").
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "shared.hpp"
#include <bitrep/wire/coded_stream.hpp>

namespace bitrep::replication::server_side {

/// One slot's recorded delta from the values refs `older`, `base` name to
/// the one `target` names.
struct recorded_entry {
    std::uint32_t tick = 0;
    value_ref older = 0;
    value_ref base = 0;
    value_ref target = 0;
    /// The ticks apart (older << 16 | ahead) when the entity predicts
    /// itself (predict.hpp), else 0: the library's prediction needs none.
    std::uint32_t ticks = 0;
    bool differs = false;  ///< base and target differ on the wire
    bool pending = false;  ///< asked for once: recorded when asked again
    bool recorded = false; ///< false: code the slot itself (not asked for twice, or a codec of its own)
    bool previous_changed = false;
    std::uint32_t offset = 0; ///< in the ops of the tick
    std::uint32_t count = 0;
    std::uint32_t stamp = 0; ///< when made, to replace the oldest of a slot's ways
};

/// Per entity slot, the last `ways` coded deltas recorded for it this tick
/// (for any client), their decisions, and per slot whether its older and
/// base values were last found the same.
class coded_records {
public:
    static constexpr std::size_t ways = 4;

    explicit coded_records(const server_shared& s) : entries_(s.slot_count * ways), same_before_(s.slot_count)
    {
        std::size_t slots = 0;
        for (const entity_array_layout& array : s.layout_.shared) {
            slots = std::max<std::size_t>(slots, array.ops->entry->slots);
            predicts_.push_back(engine::has_prediction(*array.ops->entry));
        }
        models_.resize(slots);
    }

    /// Readies the records for history tick `tick`: those held are an
    /// earlier tick's.
    void start_tick(std::uint32_t tick)
    {
        const std::uint32_t next = tick + 1;
        if ((next & memo_mask) < (tick_ & memo_mask)) [[unlikely]] // the memo's ticks wrapped
            std::fill(same_before_.begin(), same_before_.end(), 0);
        tick_ = next;
        ops_.clear();
    }

    /// The delta of slot `slot` (of `array`) from `base` (named by
    /// `base_ref`, predicted from `older`, named by `older_ref`) to `target`
    /// (named by `ref`). A delta is recorded the second time a packet this
    /// tick asks for it: the first packet codes it itself, so that a delta
    /// only one packet sends (every client's, when they all get the same
    /// packet) costs no recording.
    const recorded_entry& find(const entity_array_layout& array, std::size_t slot, value_ref older_ref,
                               value_ref base_ref, value_ref ref, const void* older, const void* base,
                               const void* target, const delta_ticks& ticks)
    {
        const std::uint32_t apart =
            predicts_[array.shared_index] ? (ticks.older_to_baseline << 16 | (ticks.baseline_to_value & 0xFFFFu)) : 0;
        recorded_entry* slot_ways = &entries_[slot * ways];
        for (std::size_t w = 0; w < ways; ++w) {
            recorded_entry& way = slot_ways[w];
            if (way.tick == tick_ && way.older == older_ref && way.base == base_ref && way.target == ref &&
                way.ticks == apart) {
                if (way.pending)
                    record(way, array, older, base, target, ticks);
                return way;
            }
        }
        const bool differs = !server_shared::same_slot(array, base, target);
        recorded_entry& entry = way_to_replace(slot_ways, ways, tick_);
        entry = {tick_, older_ref, base_ref, ref, apart, differs, differs, false, false, 0, 0, ++stamps_};
        return entry;
    }

    /// A recorded entry's decisions, valid until the next find.
    recorded_delta delta_of(const recorded_entry& entry) const noexcept
    {
        if (!entry.recorded)
            return {};
        return {ops_.data() + entry.offset, entry.count, entry.previous_changed};
    }

    /// Whether slot `slot`'s values named by `older_ref` and `base_ref`
    /// (`older`, `base`) are the same on the wire, compared once per tick
    /// for every client asking of the same two.
    bool same_before(const entity_array_layout& array, std::size_t slot, value_ref older_ref, value_ref base_ref,
                     const void* older, const void* base)
    {
        const std::uint64_t key = (std::uint64_t{tick_ & memo_mask} << 33) | (std::uint64_t{older_ref} << 17) |
                                  (std::uint64_t{base_ref} << 1);
        std::uint64_t& held = same_before_[slot];
        if ((held & ~std::uint64_t{1}) == key)
            return (held & 1) != 0;
        const bool same = server_shared::same_slot(array, older, base);
        held = key | (same ? 1 : 0);
        return same;
    }

    std::size_t bytes() const noexcept
    {
        return entries_.capacity() * sizeof(recorded_entry) + same_before_.capacity() * sizeof(std::uint64_t) +
               ops_.capacity() * sizeof(std::uint32_t) + models_.capacity() * sizeof(coded_slot);
    }

private:
    static constexpr std::uint32_t memo_mask = 0x7FFFFFFFu;

    void record(recorded_entry& entry, const entity_array_layout& array, const void* older, const void* base,
                const void* target, const delta_ticks& ticks)
    {
        entry.pending = false;
        entry.offset = static_cast<std::uint32_t>(ops_.size());
        failure_record failure;
        basic_coded_record_stream<scope::replication> recorder(
            ops_, std::span<coded_slot>(models_).first(array.ops->entry->slots), failure);
        recorder.set_ticks(ticks);
        recorder.begin_entity();
        entry.recorded = engine::changed(recorder, *array.ops->entry, older, base, const_cast<void*>(target));
        if (!entry.recorded) [[unlikely]] {
            ops_.resize(entry.offset);
            return;
        }
        entry.count = static_cast<std::uint32_t>(ops_.size() - entry.offset);
        entry.previous_changed = recorder.previous_changed();
    }

    std::vector<recorded_entry> entries_;
    std::vector<std::uint64_t> same_before_;
    std::vector<bool> predicts_; ///< per shared array: its entities' deltas depend on the ticks
    /// The decisions recorded this tick, at their entries' offsets.
    std::vector<std::uint32_t> ops_;
    /// The models a recording names its decisions by (their probabilities unused).
    std::vector<coded_slot> models_;
    std::uint32_t tick_ = 0; ///< history tick + 1 the records are for
    std::uint32_t stamps_ = 0;
};

} // namespace bitrep::replication::server_side
