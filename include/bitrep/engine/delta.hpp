// Deltas on the engine: a value written against a baseline the receiver
// holds (docs/formats/wire-format.md, section 6), walked over the same entries as the
// engine's programs, compiled once in the library (src/engine/delta.cpp),
// on the bit-packed and the coded streams.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include <bitrep/codec.hpp>
#include <bitrep/engine/table.hpp>
#include <bitrep/wire/coded_stream.hpp>

namespace bitrep::engine {

/// What a writer already knows of one container's changed elements, so
/// that it neither compares every element nor encodes again what it
/// encoded for another packet (the replication server's, for its entity
/// arrays: docs/design/replication-server.md,
/// "The server at scale: one world history, views as refs"). For the
/// container whose elements start at `base` in the baseline and at `value`
/// in the value written: the number of elements that differ on the wire (comparing the
/// containers answers from it: 0 is the same), and, for the delta's list of
/// changed elements when `changed` is set, their indices, ascending, and
/// optionally, per one of them, the bits of its delta after its changed bit
/// (32-bit words, lowest bits first) when they do not depend on where they
/// start (nullptr: encode it). A coded writer, with `changed_before` set,
/// takes per element whether it changed between the older state and the
/// baseline (bits, lowest first) and, with `records`, per changed element
/// its recorded decisions (ops nullptr: encode it). `element` is the
/// elements' entry, which the hint must match besides the addresses.
struct element_hint {
    const void* base = nullptr;
    const std::uint32_t* changed = nullptr;
    std::size_t count = 0;
    const std::uint32_t* const* words = nullptr;
    const std::uint32_t* bits = nullptr;
    const void* value = nullptr;
    const std::uint64_t* changed_before = nullptr;
    const recorded_delta* records = nullptr;
    const field_entry* element = nullptr;
};
/// The hints of one write. They apply to the containers reached from the
/// value through its structures and proxies (a State's entity arrays).
using element_hints = std::span<const element_hint>;

/// The changed bit, then what changed: write_delta's and read_delta's bytes.
/// `older` is the state the baseline was itself sent against (the baseline
/// again when there is none; only the coded streams read it). Reading
/// assigns every carried part of `value`, from the baseline where nothing
/// changed. A writer may be given what it knows already (`hints`).
template <class Stream>
bool delta(Stream& stream, const field_entry& entry, const void* older, const void* base, void* value,
           element_hints hints = {});

/// Whether a and b are equal on the wire (what costs one bit in a delta).
template <scope Scope>
bool same(const field_entry& entry, const void* a, const void* b);

/// What changed, without the changed bit: a delta's body when the caller
/// knows the value changed (the replication server's entity slots).
template <class Stream>
bool changed(Stream& stream, const field_entry& entry, const void* older, const void* base, void* value);

/// Whether the entry holds a class with a prediction of its own
/// (type_table::predict): then its coded deltas depend on the ticks too.
constexpr bool has_prediction(const field_entry& e) noexcept
{
    switch (e.kind) {
    case kind::structure:
        if (e.nested->predict != nullptr)
            return true;
        for (std::uint32_t i = 0; i < e.nested->count; ++i)
            if (has_prediction(e.nested->fields[i]))
                return true;
        return false;
    case kind::vector:
    case kind::array:
    case kind::optional:
    case kind::map:
    case kind::proxy: return has_prediction(*e.element);
    case kind::variant:
        for (std::uint64_t i = 0; i < e.fixed.count; ++i)
            if (has_prediction(e.element[i]))
                return true;
        return false;
    default: return false;
    }
}

constexpr std::size_t max_changed_bits(const field_entry& e) noexcept;

/// The most bits a delta of a value of this entry takes (with the standard's
/// 7 bits per alignment): its changed bit and max_changed_bits.
constexpr std::size_t max_delta_bits(const field_entry& e) noexcept
{
    return is_transient(e) ? 0 : bitrep::detail::add_bits(1, max_changed_bits(e));
}

/// The most bits a changed value's delta takes, after its changed bit.
constexpr std::size_t max_changed_bits(const field_entry& e) noexcept
{
    namespace d = bitrep::detail;
    if (is_transient(e))
        return 0;
    if (e.rule == field_entry::delta_rule::small_step) {
        const auto step_bits = static_cast<std::size_t>(bits_required_for_span(2 * std::uint64_t{e.delta_limit} - 1));
        return 1 + std::max(step_bits, e.max_bits);
    }
    if (e.rule == field_entry::delta_rule::smallest_three_code)
        return e.max_bits;
    switch (e.kind) {
    case kind::structure: {
        std::size_t bits = 0;
        for (std::uint32_t i = 0; i < e.nested->count; ++i)
            bits = d::add_bits(bits, max_delta_bits(e.nested->fields[i]));
        return bits;
    }
    case kind::optional: return d::add_bits(1, std::max(e.element->max_bits, max_changed_bits(*e.element)));
    case kind::variant: {
        std::size_t same_alternative = 0;
        std::size_t largest = 0;
        for (std::uint64_t i = 0; i < e.fixed.count; ++i) {
            same_alternative = std::max(same_alternative, max_changed_bits(e.element[i]));
            largest = std::max(largest, e.element[i].max_bits);
        }
        const std::size_t switched =
            e.fixed.count < 2 ? 0 : d::add_bits(static_cast<std::size_t>(bits_required_for_span(e.fixed.count - 2)), largest);
        return d::add_bits(1, std::max(same_alternative, switched));
    }
    case kind::proxy: return max_changed_bits(*e.element);
    case kind::array: {
        const auto n = static_cast<std::size_t>(e.fixed.count);
        return d::add_bits(1 + n, d::multiply_bits(n, max_changed_bits(*e.element)));
    }
    case kind::vector: {
        const auto n = static_cast<std::size_t>(e.bounded.max);
        const std::size_t each = std::max(e.element->max_bits, max_changed_bits(*e.element));
        return d::add_bits(static_cast<std::size_t>(bits_required_for_span(n)) + 1 + n, d::multiply_bits(n, each));
    }
    case kind::map: {
        const auto n = static_cast<std::size_t>(e.bounded.max);
        const auto count = static_cast<std::size_t>(bits_required_for_span(n));
        const std::size_t each_changed =
            e.map->has_values ? d::add_bits(count, max_changed_bits(e.element->nested->fields[1])) : count;
        return d::add_bits(3 * count,
                           d::add_bits(d::multiply_bits(n, count),
                                       d::add_bits(d::multiply_bits(n, each_changed), d::multiply_bits(n, e.element->max_bits))));
    }
    default: return e.max_bits; // a value that changes as a whole
    }
}

// Instantiated once, in the library.
extern template bool delta(basic_write_stream<scope::all>&, const field_entry&, const void*, const void*, void*, element_hints);
extern template bool delta(basic_read_stream<scope::all>&, const field_entry&, const void*, const void*, void*, element_hints);
extern template bool delta(basic_measure_stream<scope::all>&, const field_entry&, const void*, const void*, void*, element_hints);
extern template bool delta(basic_coded_write_stream<scope::all>&, const field_entry&, const void*, const void*, void*, element_hints);
extern template bool delta(basic_coded_read_stream<scope::all>&, const field_entry&, const void*, const void*, void*, element_hints);
extern template bool delta(basic_write_stream<scope::save>&, const field_entry&, const void*, const void*, void*, element_hints);
extern template bool delta(basic_read_stream<scope::save>&, const field_entry&, const void*, const void*, void*, element_hints);
extern template bool delta(basic_measure_stream<scope::save>&, const field_entry&, const void*, const void*, void*, element_hints);
extern template bool delta(basic_coded_write_stream<scope::save>&, const field_entry&, const void*, const void*, void*, element_hints);
extern template bool delta(basic_coded_read_stream<scope::save>&, const field_entry&, const void*, const void*, void*, element_hints);
extern template bool delta(basic_write_stream<scope::replication>&, const field_entry&, const void*, const void*, void*, element_hints);
extern template bool delta(basic_read_stream<scope::replication>&, const field_entry&, const void*, const void*, void*, element_hints);
extern template bool delta(basic_measure_stream<scope::replication>&, const field_entry&, const void*, const void*, void*, element_hints);
extern template bool delta(basic_coded_write_stream<scope::replication>&, const field_entry&, const void*, const void*, void*, element_hints);
extern template bool delta(basic_coded_read_stream<scope::replication>&, const field_entry&, const void*, const void*, void*, element_hints);
extern template bool changed(basic_write_stream<scope::all>&, const field_entry&, const void*, const void*, void*);
extern template bool changed(basic_read_stream<scope::all>&, const field_entry&, const void*, const void*, void*);
extern template bool changed(basic_measure_stream<scope::all>&, const field_entry&, const void*, const void*, void*);
extern template bool changed(basic_coded_write_stream<scope::all>&, const field_entry&, const void*, const void*, void*);
extern template bool changed(basic_coded_read_stream<scope::all>&, const field_entry&, const void*, const void*, void*);
extern template bool changed(basic_write_stream<scope::save>&, const field_entry&, const void*, const void*, void*);
extern template bool changed(basic_read_stream<scope::save>&, const field_entry&, const void*, const void*, void*);
extern template bool changed(basic_measure_stream<scope::save>&, const field_entry&, const void*, const void*, void*);
extern template bool changed(basic_coded_write_stream<scope::save>&, const field_entry&, const void*, const void*, void*);
extern template bool changed(basic_coded_read_stream<scope::save>&, const field_entry&, const void*, const void*, void*);
extern template bool changed(basic_write_stream<scope::replication>&, const field_entry&, const void*, const void*, void*);
extern template bool changed(basic_read_stream<scope::replication>&, const field_entry&, const void*, const void*, void*);
extern template bool changed(basic_measure_stream<scope::replication>&, const field_entry&, const void*, const void*, void*);
extern template bool changed(basic_coded_write_stream<scope::replication>&, const field_entry&, const void*, const void*, void*);
extern template bool changed(basic_coded_read_stream<scope::replication>&, const field_entry&, const void*, const void*, void*);
extern template bool changed(basic_coded_record_stream<scope::replication>&, const field_entry&, const void*, const void*,
                             void*);
extern template bool same<scope::all>(const field_entry&, const void*, const void*);
extern template bool same<scope::save>(const field_entry&, const void*, const void*);
extern template bool same<scope::replication>(const field_entry&, const void*, const void*);

} // namespace bitrep::engine
