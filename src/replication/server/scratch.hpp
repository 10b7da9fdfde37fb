// What building a packet uses and no connection keeps: the delta cache,
// the coded sections of this tick, the views made into values for the
// encoder, the element hints. One scratch is lent to each replicate() call
// at a time (indexed_server's pool) and passed down in the call.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "coded_records.hpp"
#include "delta_cache.hpp"
#include "views.hpp"
#include <bitrep/wire/coded_stream.hpp>

namespace bitrep::replication::server_side {

/// A coded packet's state section and the views it was encoded from: their
/// refs, or with hash_views their hashes.
struct coded_section {
    bool used = false;
    bool has_older = false;
    std::vector<value_ref> older_refs, base_refs, view_refs;
    view_hash older_hash, base_hash, view_hash_;
    kept_values older_fields{}, base_fields{}, view_fields{};
    std::vector<std::uint8_t> bytes;
};

/// The coded entity sections of this tick's last packets, each for its
/// (older, baseline, view): a client in the same position gets the same
/// bytes without encoding them.
class coded_sections {
public:
    explicit coded_sections(const server_shared& s)
    {
        // Made now, so that keeping a section copies into them without
        // allocating: a section is smaller than its packet, and its views'
        // refs are kept only when views are not compared by hash.
        const std::size_t refs = s.hash_views ? 0 : s.slot_count;
        for (coded_section& section : sections_) {
            section.older_fields = section.base_fields = section.view_fields = kept_values(s.layout_);
            section.older_refs.reserve(refs);
            section.base_refs.reserve(refs);
            section.view_refs.reserve(refs);
            section.bytes.reserve(s.options_.max_packet_bytes);
        }
    }

    void start_tick() noexcept
    {
        for (coded_section& section : sections_)
            section.used = false;
    }

    /// A section this tick encoded from the same three views (older: refs
    /// nullptr when the packet predicts from nothing), or nullptr.
    const coded_section* find(const server_shared& s, view_parts older, view_parts base, view_parts view) const
    {
        for (const coded_section& section : sections_) {
            if (!section.used || section.has_older != (older.refs != nullptr))
                continue;
            if (same_view(s, section.view_refs, section.view_hash_, section.view_fields, view) &&
                same_view(s, section.base_refs, section.base_hash, section.base_fields, base) &&
                (older.refs == nullptr ||
                 same_view(s, section.older_refs, section.older_hash, section.older_fields, older)))
                return &section;
        }
        return nullptr;
    }

    void keep(const server_shared& s, view_parts older, view_parts base, view_parts view,
              std::span<const std::uint8_t> bytes)
    {
        coded_section& section = sections_[next_];
        next_ = (next_ + 1) % sections_.size();
        section.used = true;
        section.has_older = older.refs != nullptr;
        auto keep_refs = [&s](std::vector<value_ref>& refs, view_hash& hash, const view_parts& kept) {
            if (s.hash_views)
                hash = kept.hash;
            else
                refs.assign(kept.refs, kept.refs + s.slot_count);
        };
        if (section.has_older) {
            keep_refs(section.older_refs, section.older_hash, older);
            section.older_fields = *older.fields;
        }
        keep_refs(section.base_refs, section.base_hash, base);
        section.base_fields = *base.fields;
        keep_refs(section.view_refs, section.view_hash_, view);
        section.view_fields = *view.fields;
        section.bytes.assign(bytes.begin(), bytes.end());
    }

    std::size_t bytes() const noexcept
    {
        std::size_t bytes = 0;
        for (const coded_section& section : sections_)
            bytes += (section.older_refs.capacity() + section.base_refs.capacity() + section.view_refs.capacity()) *
                         sizeof(value_ref) +
                     section.bytes.capacity();
        return bytes;
    }

private:
    std::array<coded_section, 16> sections_{};
    std::size_t next_ = 0;

    /// Whether two views' other fields are equal on the wire.
    static bool same_fields(const server_shared& s, const kept_values& a, const kept_values& b)
    {
        for (std::size_t k = 0; k < s.layout_.kept.size(); ++k) {
            const engine::field_entry& entry = *s.layout_.kept[k].entry;
            const void* x = a.at(k);
            const void* y = b.at(k);
            const bool identical = entry.trivially_copyable && std::memcmp(x, y, entry.object_size) == 0;
            if (!identical && !engine::same<scope::replication>(entry, x, y))
                return false;
        }
        return true;
    }
    static bool same_view(const server_shared& s, const std::vector<value_ref>& refs, const view_hash& hash,
                          const kept_values& fields, view_parts view)
    {
        if (s.hash_views) {
            assert(view.hash == view_hash::of(view.refs, s.slot_count));
            if (hash != view.hash)
                return false;
        } else if (!std::equal(refs.begin(), refs.end(), view.refs)) {
            return false;
        }
        return same_fields(s, fields, *view.fields);
    }
};

/// Per entity array: how many entities a packet sends and the sum of their
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

/// States built per packet, and what else a packet's build needs for a
/// while and no connection keeps.
struct scratch {
    explicit scratch(const server_shared& s)
        : view(s.layout_), older(s.layout_), view_refs(s.slot_count, empty_ref), older_refs(s.slot_count, empty_ref),
          cache(s.slot_count), records(s), sections(s), hints(s.field_count), uses(s.field_count),
          models(s.layout_.state_entry->slots), verify(s.options_.max_packet_bytes)
    {
        std::size_t words = 0;
        for (const entity_array_layout& array : s.layout_.shared)
            words += (array.capacity + 63) / 64;
        hint_before.resize(words);
        sent_slots.resize((s.slot_count + 63) / 64);
        hint_changed.reserve(s.slot_count);
        hint_entries.reserve(s.slot_count);
        hint_records.reserve(s.slot_count);
    }

    /// Readies the scratch for history tick `tick`: its cached deltas and
    /// coded sections are of an earlier one.
    void start_tick(std::uint32_t tick)
    {
        if (cache.is_for(tick))
            return;
        if (cache.ticks_since(tick) >= view_age) [[unlikely]] {
            // Unused for so long that the refs of the views it holds may
            // have been given out again: forget them.
            view.reset();
            older.reset();
            std::fill(view_refs.begin(), view_refs.end(), empty_ref);
            std::fill(older_refs.begin(), older_refs.end(), empty_ref);
        }
        cache.start_tick(tick);
        records.start_tick(tick);
        sections.start_tick();
    }

    /// The packet's view and the coded encoding's older view as values,
    /// with the refs each holds, so that the next packet (usually much the
    /// same) copies only the slots that differ.
    state_object view;
    state_object older;
    std::vector<value_ref> view_refs;
    std::vector<value_ref> older_refs;
    delta_cache cache;
    coded_records records;
    coded_sections sections;
    /// The element hints of one packet (see engine::element_hint).
    std::vector<std::uint32_t> hint_changed;
    std::vector<std::uint32_t> hint_offsets;
    std::vector<const std::uint32_t*> hint_words;
    std::vector<std::uint32_t> hint_bits;
    /// A coded packet's: per shared entity array, whether each slot changed
    /// between the older view and the baseline (bits, from a word boundary
    /// per array); per changed slot, its recorded decisions.
    std::vector<std::uint64_t> hint_before;
    std::vector<std::uint64_t> sent_slots; ///< marks by slot, all clear between packets
    std::vector<const recorded_entry*> hint_entries;
    std::vector<recorded_delta> hint_records;
    std::vector<engine::element_hint> hints; ///< one per top-level field at most
    /// Per top-level field, what its entity array's entities take of the
    /// packet being built (packet_bound).
    std::vector<array_use> uses;
    /// The coded encoding's models: each packet starts them afresh, so one
    /// set serves every client this scratch encodes for.
    std::vector<coded_slot> models;
    /// Debug builds encode each coded section again without its records
    /// here, and check that the bytes are the same.
    std::vector<std::uint8_t> verify;

    std::size_t bytes(std::size_t slot_count) const noexcept
    {
        return sizeof(scratch) + cache.bytes() + records.bytes() + sections.bytes() + 2 * slot_count * sizeof(value_ref);
    }
};

} // namespace bitrep::replication::server_side
