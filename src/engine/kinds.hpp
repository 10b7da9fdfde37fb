// Each kind's rule as the interpreter runs it: the same stream primitives
// the codecs call, with the constants from the field's entry, so that both
// give the same bits and the same refusals.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include <bitrep/codecs/bitset.hpp>
#include <bitrep/codecs/bounded_map.hpp>
#include <bitrep/codecs/containers.hpp>
#include <bitrep/codecs/flags.hpp>
#include <bitrep/codecs/quantized.hpp>
#include <bitrep/codecs/quat.hpp>
#include <bitrep/codecs/ranged.hpp>
#include <bitrep/codecs/scalars.hpp>
#include <bitrep/codecs/variant.hpp>
#include <bitrep/detail/portability.hpp>
#include <bitrep/engine/table.hpp>

#include "program.hpp"

namespace bitrep::engine::kinds {

/// An integer of `width` bytes, sign-extended to 64 bits when signed.
inline std::uint64_t load_integer(const unsigned char* p, unsigned width, bool is_signed) noexcept
{
    switch (width) {
    case 1: {
        std::uint8_t v;
        std::memcpy(&v, p, 1);
        return is_signed ? static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int8_t>(v))) : v;
    }
    case 2: {
        std::uint16_t v;
        std::memcpy(&v, p, 2);
        return is_signed ? static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int16_t>(v))) : v;
    }
    case 4: {
        std::uint32_t v;
        std::memcpy(&v, p, 4);
        return is_signed ? static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(v))) : v;
    }
    default: {
        std::uint64_t v;
        std::memcpy(&v, p, 8);
        return v;
    }
    }
}

/// Stores the low `width` bytes of value.
inline void store_integer(unsigned char* p, unsigned width, std::uint64_t value) noexcept
{
    switch (width) {
    case 1: {
        const auto v = static_cast<std::uint8_t>(value);
        std::memcpy(p, &v, 1);
        return;
    }
    case 2: {
        const auto v = static_cast<std::uint16_t>(value);
        std::memcpy(p, &v, 2);
        return;
    }
    case 4: {
        const auto v = static_cast<std::uint32_t>(value);
        std::memcpy(p, &v, 4);
        return;
    }
    default: std::memcpy(p, &value, 8); return;
    }
}

/// A compiled codec runs on a stream of its own, resumed from the
/// interpreter's state and handed back, so that the interpreter's stream
/// never has its address taken.
template <class Stream>
BITREP_NOINLINE inline typename Stream::state_type call_codec(const typename Stream::state_type& state,
                                                         failure_record& failure, const codec_access& codec,
                                                         unsigned char* p, bool& ok)
{
    Stream stream(state, failure);
    const auto& calls = [&codec]() -> const auto& {
        if constexpr (Stream::field_scope == scope::save)
            return codec.save;
        else if constexpr (Stream::field_scope == scope::replication)
            return codec.replication;
        else
            return codec.all;
    }();
    if constexpr (Stream::is_reading)
        ok = calls.read(stream, p);
    else if constexpr (Stream::is_writing)
        ok = calls.write(stream, p);
    else
        ok = calls.measure(stream, p);
    return stream.state();
}

/// A rarer kind's rule, out of line in the same way, so that its loops do
/// not crowd the interpreter's own registers.
template <class Stream, auto Rule, class... Args>
BITREP_NOINLINE typename Stream::state_type out_of_line(const typename Stream::state_type& state,
                                                          failure_record& failure, bool& ok, Args&&... args)
{
    Stream stream(state, failure);
    ok = Rule(stream, std::forward<Args>(args)...);
    return stream.state();
}

template <class Stream>
BITREP_ALWAYS_INLINE bool run_enumeration(Stream& stream, const field_entry& e, unsigned char* p)
{
    std::uint64_t index = 0;
    const std::size_t start = stream.position();
    if constexpr (!Stream::is_reading) {
        const enumeration_params& en = e.enumeration;
        const std::uint64_t value = load_integer(p, e.width, e.is_signed);
        if (en.values == nullptr) {
            index = value < en.count ? value : en.count;
        } else {
            index = en.count;
            for (std::uint64_t i = 0; i < en.count; ++i)
                if (en.values[i] == value) {
                    index = i;
                    break;
                }
        }
        if (Stream::is_writing && index == en.count) [[unlikely]]
            return stream.fail(error::bad_enum, start, "enum value is not an enumerator");
    }
    if (!bitrep::detail::serialize_enum_index(stream, index, e.enumeration.count, start))
        return false;
    if constexpr (Stream::is_reading)
        store_integer(p, e.width, e.enumeration.values == nullptr ? index : e.enumeration.values[index]);
    return true;
}

/// A flag enum: the codec's serialize_flag_bits over the value's pattern.
template <class Stream>
BITREP_ALWAYS_INLINE bool run_flags(Stream& stream, const field_entry& e, unsigned char* p)
{
    std::uint64_t bits = 0;
    if constexpr (!Stream::is_reading)
        bits = load_integer(p, e.width, false);
    if (!bitrep::detail::serialize_flag_bits(stream, bits, e.flags.masks, static_cast<std::size_t>(e.flags.count),
                                             e.flags.all))
        return false;
    if constexpr (Stream::is_reading)
        store_integer(p, e.width, bits);
    return true;
}

/// std::bitset: the codec's serialize_bit_words over the set's words.
template <class Stream>
BITREP_ALWAYS_INLINE bool run_bitset(Stream& stream, const field_entry& e, unsigned char* p)
{
    const bitset_access& set = *e.bitset;
    return bitrep::detail::serialize_bit_words(
        stream, static_cast<std::size_t>(e.fixed.count), [&](std::size_t at, int count) { return set.word(p, at, count); },
        [&](std::size_t at, int count, std::uint64_t word) { set.set_word(p, at, count, word); });
}

/// A full-width integer's pattern.
template <class Stream, class Int>
BITREP_ALWAYS_INLINE bool run_integer(Stream& stream, unsigned char* p)
{
    std::uint64_t pattern = 0;
    if constexpr (!Stream::is_reading) {
        Int v;
        std::memcpy(&v, p, sizeof v);
        pattern = v;
    }
    if (!bitrep::detail::serialize_integer_pattern(stream, pattern, static_cast<int>(sizeof(Int) * 8), false))
        return false;
    if constexpr (Stream::is_reading) {
        const auto v = static_cast<Int>(pattern);
        std::memcpy(p, &v, sizeof v);
    }
    return true;
}

/// ranged<Int, min, min + span>: the codec's serialize_ranged_value.
template <class Stream, class Int>
BITREP_ALWAYS_INLINE bool run_ranged(Stream& stream, const instruction& in, unsigned char* p)
{
    Int value{};
    if constexpr (!Stream::is_reading)
        std::memcpy(&value, p, sizeof value);
    if (!bitrep::detail::serialize_ranged_value(stream, value, in.constants.ranged.min, in.constants.ranged.min + in.constants.ranged.span, in.bits))
        return false;
    if constexpr (Stream::is_reading)
        std::memcpy(p, &value, sizeof value);
    return true;
}

/// quantized<min, max, resolution>: refused outside its range unless
/// clamped, then the quantum.
template <class Stream>
BITREP_ALWAYS_INLINE bool run_quantized(Stream& stream, const field_entry& e, unsigned char* p)
{
    return bitrep::detail::serialize_quantized_value(stream, *reinterpret_cast<float*>(p), e.quantized);
}

/// bounded_vector<bool>: the vector's count, then each element as a bit.
template <class Stream>
BITREP_ALWAYS_INLINE bool run_bit_vector(Stream& stream, const field_entry& e, unsigned char* p)
{
    const bit_vector_access& bits = *e.bits;
    std::uint64_t size = bits.size(p);
    if (!bitrep::detail::serialize_vector_count(stream, size, e.bounded.max, e.element->min_bits))
        return false;
    if constexpr (Stream::is_reading)
        bits.resize(p, static_cast<std::size_t>(size));
    return bitrep::detail::serialize_bit_elements(
        stream, static_cast<std::size_t>(size), [&](std::size_t i) { return bits.test(p, i); },
        [&](std::size_t i, bool bit) { bits.assign(p, i, bit); });
}

/// std::variant: the held alternative's index, as the codec sends it.
template <class Stream>
BITREP_ALWAYS_INLINE bool run_variant_index(Stream& stream, const field_entry& e, const unsigned char* p,
                                            std::size_t& index)
{
    std::uint64_t held = 0;
    if constexpr (!Stream::is_reading)
        held = e.variant->index(p);
    if (!bitrep::detail::serialize_held_index(stream, held, e.fixed.count))
        return false;
    index = static_cast<std::size_t>(held);
    return true;
}

/// Alternative k's object: made the one held when reading.
template <class Stream>
BITREP_ALWAYS_INLINE unsigned char* alternative_object(const field_entry& e, unsigned char* p, std::uint64_t k)
{
    if constexpr (Stream::is_reading)
        return static_cast<unsigned char*>(e.variant->hold[k](p));
    else
        return static_cast<unsigned char*>(e.variant->held[k](p));
}

/// Points the loop at map entry `index` (its stride is 0): when writing,
/// the stored one that comes index-th in key order; when reading, an entry
/// made anew in the scratch, whose first bit is kept.
template <class Stream, class Frame>
BITREP_ALWAYS_INLINE void to_map_entry(Stream& stream, const field_entry& e, Frame& frame, std::size_t index,
                                       scratch& work)
{
    if constexpr (Stream::is_reading) {
        frame.start = stream.position();
        frame.data = static_cast<unsigned char*>(e.map->fresh(work));
    } else {
        frame.data = static_cast<unsigned char*>(const_cast<void*>(frame.entries[index]));
    }
}

/// bounded_map / bounded_set: the count, then a loop over the entries; a
/// read empties the map first. What the loop makes in the scratch (the
/// entries in key order, an entry read) is released after the last entry.
template <class Stream, class Frame>
BITREP_ALWAYS_INLINE bool enter_map(Stream& stream, const field_entry& e, unsigned char* p, Frame& frame,
                                    scratch& work)
{
    const map_access& map = *e.map;
    std::uint64_t size = map.size(p);
    if (!bitrep::detail::serialize_keyed_count(stream, size, e.bounded.max, e.element->min_bits, map.has_values))
        return false;
    frame.count = static_cast<std::size_t>(size);
    frame.stride = 0;
    frame.mark = work.top();
    if constexpr (Stream::is_reading)
        map.clear(p);
    else if (size != 0)
        frame.entries = map.sorted(p, work);
    if (size != 0)
        to_map_entry(stream, e, frame, 0, work);
    return true;
}

/// After entry frame.index's body: a read entry joins the map, unless its
/// key is there already; then on to the next entry, if any.
template <class Stream, class Frame>
BITREP_ALWAYS_INLINE bool next_map_entry(Stream& stream, const field_entry& e, unsigned char* p, Frame& frame,
                                         scratch& work)
{
    if constexpr (Stream::is_reading) {
        const bool added = e.map->insert(p, frame.data);
        work.release(frame.mark);
        if (!added) [[unlikely]]
            return bitrep::detail::refuse_duplicate_key(stream, frame.start, e.map->has_values);
    }
    if (frame.index + 1 < frame.count)
        to_map_entry(stream, e, frame, frame.index + 1, work);
    else
        work.release(frame.mark);
    return true;
}

/// A proxy's wire object, in the scratch: made from the value to write it,
/// made anew to read into.
template <class Stream>
BITREP_ALWAYS_INLINE unsigned char* proxy_wire(const field_entry& e, unsigned char* p, scratch& work)
{
    if constexpr (Stream::is_reading)
        return static_cast<unsigned char*>(e.proxy->wire_to_read(p, work));
    else
        return static_cast<unsigned char*>(e.proxy->wire_to_write(p, work));
}

/// After the wire object's body: a read makes the value from it; then the
/// scratch lets it go.
template <class Stream>
BITREP_ALWAYS_INLINE void leave_proxy(const field_entry& e, unsigned char* p, const unsigned char* wire,
                                      scratch& work, scratch::mark mark)
{
    if constexpr (Stream::is_reading)
        e.proxy->from_wire(p, wire);
    work.release(mark);
}

/// The layout of every quat<Bits> (checked where its entry is built).
struct quat_floats {
    float x, y, z, w;
};

} // namespace bitrep::engine::kinds
