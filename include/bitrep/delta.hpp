// Delta encoding (docs/formats/wire-format.md, section 6): a value written against a
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
#include <bitrep/detail/portability.hpp>
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
