// Delta encoding (docs/wire-format.md, "Deltas"): a value written against a
// baseline the receiver already holds, so that what did not change costs one
// bit. Deltas run on the engine (engine/delta.hpp, src/engine/delta.cpp),
// one walk over the type's entries for every kind, whichever path the
// type's whole encodings take (a type opted into the inlined codecs encodes
// its changed leaves with the same bytes):
//   write_delta(stream, [older,] base, v)   a changed bit, then what changed
//   read_delta(stream, [older,] base, v)    its reader
//   same_on_wire<Scope>(a, b)              a and b encode to the same bits
//   max_delta_bits<T>                       the most bits a delta takes
// Reading assigns every carried part of `v`: from the stream where it
// changed, from `base` where it did not; parts the stream's scope does not
// carry take the baseline's value. `older` is the state the baseline was
// itself sent against (the baseline again when there is none): the
// bit-packed streams ignore it; the coded streams (coded_stream.hpp) predict
// from it and take their contexts from it.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include <bitrep/codec.hpp>
#include <bitrep/detail/inline.hpp>
#include <bitrep/engine/delta.hpp>
#include <bitrep/engine/entries.hpp>
#include <bitrep/serialize.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep {

namespace detail {

/// Bitwise identical objects encode identically: a cheap first test that
/// settles unchanged entities (copies of each other) without quantizing.
template <class T>
BITREP_ALWAYS_INLINE bool identical_bytes(const T& a, const T& b) noexcept
{
    if constexpr (std::is_trivially_copyable_v<T>)
        return std::memcmp(static_cast<const void*>(&a), static_cast<const void*>(&b), sizeof(T)) == 0;
    else
        return false;
}

/// Two encodings of a hook type whose bound is too large for the stack, per
/// thread: they keep their capacity, so once they have grown to the largest
/// encoding compared, comparing allocates nothing.
struct encoding_scratch {
    std::vector<std::uint8_t> a, b;
};
inline encoding_scratch& this_threads_encoding_scratch()
{
    thread_local encoding_scratch scratch;
    return scratch;
}

/// Writes value into buffer (grown when too small) and says how many bits.
template <scope Scope, class T>
bool encode_for_comparison(const T& value, std::vector<std::uint8_t>& buffer, std::size_t& bits)
{
    failure_record failure;
    basic_measure_stream<Scope> measure(failure);
    if (!bitrep::serialize(measure, value))
        return false;
    bits = measure.exact_bits();
    if (buffer.size() < (bits + 7) / 8)
        buffer.resize((bits + 7) / 8);
    basic_write_stream<Scope> stream(std::span<std::uint8_t>(buffer.data(), (bits + 7) / 8), failure);
    if (!bitrep::serialize(stream, value))
        return false;
    stream.flush();
    return true;
}

/// Equality in wire space for any value: both encodings, compared bit for
/// bit. Used for kinds with no cheaper test (hooks), per entity, client and
/// tick, so it never allocates: a small bound encodes on the stack, a large
/// one into this thread's scratch. A value that cannot be encoded counts as
/// changed, so that the writer reports it.
template <scope Scope, class T>
bool same_encoding(const T& a, const T& b)
{
    constexpr std::size_t bound = max_bits<T>;
    if constexpr (bound <= std::size_t{8} * 512) {
        // Not zero-filled: only the bytes the writers flushed are compared.
        std::array<std::uint8_t, bound / 8 + 1> bytes_a;
        std::array<std::uint8_t, bound / 8 + 1> bytes_b;
        failure_record failure_a;
        failure_record failure_b;
        basic_write_stream<Scope> stream_a(bytes_a, failure_a);
        basic_write_stream<Scope> stream_b(bytes_b, failure_b);
        if (!bitrep::serialize(stream_a, a) || !bitrep::serialize(stream_b, b))
            return false;
        if (stream_a.bit_position() != stream_b.bit_position())
            return false;
        const std::size_t used = stream_a.flush();
        stream_b.flush();
        return std::equal(bytes_a.begin(), bytes_a.begin() + static_cast<std::ptrdiff_t>(used), bytes_b.begin());
    } else {
        encoding_scratch& scratch = this_threads_encoding_scratch();
        std::size_t bits_a = 0;
        std::size_t bits_b = 0;
        if (!encode_for_comparison<Scope>(a, scratch.a, bits_a) || !encode_for_comparison<Scope>(b, scratch.b, bits_b))
            return false;
        const auto used = static_cast<std::ptrdiff_t>((bits_a + 7) / 8);
        return bits_a == bits_b && std::equal(scratch.a.begin(), scratch.a.begin() + used, scratch.b.begin());
    }
}

/// What a writer already knows of one container's changed elements, so
/// that it neither compares every element nor encodes again what it
/// encoded for another packet: the replication server sets these around
/// its write_delta (docs/replication.md, section 11). For the containers
/// whose elements start at `base` and `value`: the number of elements that
/// differ on the wire (same_elements answers from it: 0 is the same), and,
/// for delta_elements when `changed` is set, their indices, ascending, and
/// optionally, per one of them, its delta_changed bits (32-bit words,
/// lowest bits first) when they do not depend on where they start
/// (nullptr: encode it).
struct element_hint {
    const void* base = nullptr;
    const std::uint32_t* changed = nullptr;
    std::size_t count = 0;
    const std::uint32_t* const* words = nullptr;
    const std::uint32_t* bits = nullptr;
    const void* value = nullptr;
};
/// The hints in force on this thread (empty but inside such a write).
inline thread_local std::span<const element_hint> element_hints;

inline const element_hint* find_element_hint(const void* base, const void* value) noexcept
{
    for (const element_hint& hint : element_hints)
        if (hint.base == base && hint.value == value)
            return &hint;
    return nullptr;
}

/// The streams the engine runs deltas on: bitrep's own.
template <class Stream>
inline constexpr bool engine_delta_stream =
    std::is_same_v<Stream, basic_write_stream<Stream::field_scope>> ||
    std::is_same_v<Stream, basic_read_stream<Stream::field_scope>> ||
    std::is_same_v<Stream, basic_measure_stream<Stream::field_scope>> ||
    std::is_same_v<Stream, basic_coded_write_stream<Stream::field_scope>> ||
    std::is_same_v<Stream, basic_coded_read_stream<Stream::field_scope>>;

/// A delta (the changed bit, then what changed).
template <class Stream, class T>
BITREP_ALWAYS_INLINE bool run_delta(Stream& stream, const T& older, const T& base, T& value)
{
    static_assert(engine_delta_stream<Stream>, "bitrep: deltas are written and read on bitrep's streams");
    return engine::delta(stream, engine::entry_v<T>, &older, &base, &value);
}

/// What changed of a value known to have changed (no changed bit).
template <class Stream, class T>
BITREP_ALWAYS_INLINE bool run_changed(Stream& stream, const T& older, const T& base, T& value)
{
    static_assert(engine_delta_stream<Stream>, "bitrep: deltas are written and read on bitrep's streams");
    return engine::changed(stream, engine::entry_v<T>, &older, &base, &value);
}
} // namespace detail

/// Whether a and b are equal on the wire in Scope's streams: they encode to
/// the same bits, so a delta of one against the other is one bit. A
/// quantized float compares its quanta, a float its bit pattern, a hook
/// class its encoding; a value that cannot be encoded counts as changed.
template <scope Scope = scope::all, class T>
BITREP_ALWAYS_INLINE bool same_on_wire(const T& a, const T& b)
{
    return engine::same<Scope>(engine::entry_v<T>, &a, &b);
}

/// The most bits a delta of a T takes (its changed bit included, with the
/// standard's 7 bits per alignment), and what a changed T's delta takes
/// after its changed bit.
template <class T>
inline constexpr std::size_t max_delta_bits = engine::max_delta_bits(engine::entry_v<T>);
template <class T>
inline constexpr std::size_t max_changed_bits = engine::max_changed_bits(engine::entry_v<T>);

/// Writes `current` as a delta against `baseline` (which the receiver must
/// hold exactly as the sender's quantization rebuilds it).
template <class Stream, class T>
[[nodiscard]] bool write_delta(Stream& stream, const T& baseline, const T& current)
{
    static_assert(!Stream::is_reading, "bitrep::write_delta: use read_delta with a read stream");
    return detail::run_delta(stream, baseline, baseline, const_cast<T&>(current));
}

/// write_delta with the state the baseline was itself sent against, which
/// the receiver also holds: the coded streams predict from it. On the
/// bit-packed streams the bytes are those of write_delta(stream, baseline, current).
template <class Stream, class T>
[[nodiscard]] bool write_delta(Stream& stream, const T& older, const T& baseline, const T& current)
{
    static_assert(!Stream::is_reading, "bitrep::write_delta: use read_delta with a read stream");
    return detail::run_delta(stream, older, baseline, const_cast<T&>(current));
}

/// Reads a delta written against `baseline` into `out`: every carried part of
/// `out` is assigned. `out` must not be `baseline`. On failure `out` is
/// partly written and the stream's status says where; decode into a working
/// copy for all-or-nothing (replication_client does).
template <class Stream, class T>
[[nodiscard]] bool read_delta(Stream& stream, const T& baseline, T& out)
{
    static_assert(Stream::is_reading, "bitrep::read_delta needs a read stream");
    return detail::run_delta(stream, baseline, baseline, out);
}

/// read_delta of what write_delta(stream, older, baseline, current) wrote.
template <class Stream, class T>
[[nodiscard]] bool read_delta(Stream& stream, const T& older, const T& baseline, T& out)
{
    static_assert(Stream::is_reading, "bitrep::read_delta needs a read stream");
    return detail::run_delta(stream, older, baseline, out);
}

/// The exact number of bits write_delta writes (in scope Scope).
template <scope Scope = scope::all, class T>
std::size_t delta_bit_size(const T& baseline, const T& current)
{
    failure_record failure;
    basic_measure_stream<Scope> stream(failure);
    static_cast<void>(write_delta(stream, baseline, current));
    return stream.exact_bits();
}

} // namespace bitrep
