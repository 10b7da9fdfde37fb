// The deltas of shared entity slots measured and encoded this tick, shared
// by the clients whose baselines hold the same value: a client's selection
// measures through it, and its bit-packed packet copies the bits.
#pragma once

#include <cstdint>
#include <vector>

#include "shared.hpp"

namespace bitrep::replication::server_side {

/// An upper bound of the bits write_delta spends on `value` against `base`
/// wherever it starts (the standard's 7 bits per alignment).
inline std::size_t measured_delta_bits(const engine::field_entry& entry, const void* base, const void* value)
{
    failure_record failure;
    basic_measure_stream<scope::replication> stream(failure);
    static_cast<void>(engine::delta(stream, entry, base, base, const_cast<void*>(value)));
    return stream.bits();
}

/// What changed of entity slot `target` against `base` (both of `array`),
/// measured on the replication stream.
inline std::size_t measured_changed_bits(const entity_array_layout& array, const void* base, const void* target)
{
    failure_record failure;
    basic_measure_stream<scope::replication> stream(failure);
    static_cast<void>(engine::changed(stream, *array.ops->entry, base, base, const_cast<void*>(target)));
    return stream.bits();
}

/// An entity slot's delta from the value `base` names to the one `target`
/// names, measured, and its bits once encoded.
struct cached_delta {
    static constexpr std::uint32_t no_words = 0xFFFFFFFFu;
    std::uint32_t tick = 0;
    value_ref base = 0;
    value_ref target = 0;
    std::uint32_t bound = 0; ///< the measure stream's bits() (alignment at 7 bits)
    std::uint32_t exact = 0; ///< its exact bits; equal to bound: no alignment, so the bits can be copied anywhere
    std::uint32_t offset = no_words;
    std::uint32_t stamp = 0; ///< when made, to replace the oldest of a slot's ways
};

/// Per entity slot, the last `ways` deltas encoded for it this tick (for
/// any client).
class delta_cache {
public:
    static constexpr std::size_t ways = 4;

    explicit delta_cache(std::size_t slot_count) : entries_(slot_count * ways) {}

    /// Readies the cache for history tick `tick`: the deltas it holds are
    /// an earlier tick's.
    void start_tick(std::uint32_t tick)
    {
        tick_ = tick + 1;
        words.clear();
    }
    bool is_for(std::uint32_t tick) const noexcept { return tick_ == tick + 1; }
    /// History ticks since the cache was last used (a large number: never).
    std::uint32_t ticks_since(std::uint32_t tick) const noexcept { return tick + 1 - tick_; }

    /// The delta of entity slot `slot` (of `array`, at `id`) from the
    /// value ref `base_ref` names (`base`) to the one `ref` names
    /// (`target`), measured now or earlier this tick.
    BITREP_ALWAYS_INLINE cached_delta& find(const entity_array_layout& array, std::size_t slot, value_ref base_ref,
                                            value_ref ref, const void* base, const void* target)
    {
        cached_delta* slot_ways = &entries_[slot * ways];
        for (std::size_t w = 0; w < ways; ++w) {
            cached_delta& way = slot_ways[w];
            if (way.tick == tick_ && way.base == base_ref && way.target == ref)
                return way;
        }
        cached_delta& entry = way_to_replace(slot_ways, ways, tick_);
        failure_record failure;
        basic_measure_stream<scope::replication> stream(failure);
        static_cast<void>(engine::changed(stream, *array.ops->entry, base, base, const_cast<void*>(target)));
        entry = {tick_, base_ref, ref, static_cast<std::uint32_t>(stream.bits()),
                 static_cast<std::uint32_t>(stream.exact_bits()), cached_delta::no_words, ++stamps_};
        return entry;
    }

    /// Encodes a cached delta's bits, when they can be copied (no
    /// alignment) and encode at all; returns whether it has them.
    BITREP_ALWAYS_INLINE bool encode(cached_delta& entry, const entity_array_layout& array, const void* base,
                                     const void* target)
    {
        if (entry.bound != entry.exact)
            return false;
        if (entry.offset != cached_delta::no_words)
            return true;
        encoded_.assign((entry.exact + 7) / 8 + 8, 0);
        failure_record failure;
        basic_write_stream<scope::replication> stream(encoded_, failure);
        if (!engine::changed(stream, *array.ops->entry, base, base, const_cast<void*>(target)) ||
            stream.bit_position() != entry.exact) [[unlikely]]
            return false;
        stream.flush();
        entry.offset = static_cast<std::uint32_t>(words.size());
        for (std::size_t at = 0; at < (entry.exact + 31) / 32; ++at) {
            std::uint32_t word = 0;
            for (std::size_t b = 0; b < 4; ++b)
                word |= static_cast<std::uint32_t>(encoded_[4 * at + b]) << (8 * b);
            words.push_back(word);
        }
        return true;
    }

    /// The encoded deltas' bits, at their entries' offsets.
    std::vector<std::uint32_t> words;

    std::size_t bytes() const noexcept
    {
        return entries_.capacity() * sizeof(cached_delta) + words.capacity() * sizeof(std::uint32_t) +
               encoded_.capacity();
    }

private:
    std::vector<cached_delta> entries_;
    std::uint32_t tick_ = 0; ///< history tick + 1 the cache is for
    std::uint32_t stamps_ = 0;
    std::vector<std::uint8_t> encoded_;
};

} // namespace bitrep::replication::server_side
