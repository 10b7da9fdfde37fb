// The streams a run of fixed-width leaves runs on, out of the interpreter's
// loop (interpreter.cpp, run_leaves): the bit writer's or reader's state and
// the failure record's address, and nothing else, so that the call that
// hands the state over and back is a handful of moves (write_stream and
// read_stream also carry a failure record of their own, hundreds of bytes).
// Their bit groups and refusals are write_stream's and read_stream's. The
// unchecked forms (Checked = false) run where the caller has checked the
// room for the whole run once: they can refuse a value, never for room.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <bitrep/detail/inline.hpp>
#include <bitrep/wire/bits.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep::engine {

/// A leaf writer (Cursor = bit_writer) or reader (Cursor = bit_reader).
template <class Cursor, bitrep::scope Scope, bool Checked = true>
class leaf_stream : public bitrep::cursor_stream<leaf_stream<Cursor, Scope, Checked>, Cursor, Scope> {
    using cursor_stream = bitrep::cursor_stream<leaf_stream, Cursor, Scope>;
    using cursor_stream::cursor_;

public:
    using cursor_stream::cursor_stream;

    using stream_primitives<leaf_stream>::serialize_bits;
    BITREP_ALWAYS_INLINE bool serialize_bits(std::uint32_t& value, int bits)
    {
        if constexpr (cursor_stream::is_writing) {
            if constexpr (!Checked) {
                cursor_.write_bits_unchecked(value, bits);
                return true;
            }
            if (!cursor_.write_bits(value, bits)) [[unlikely]]
                return this->fail(error::buffer_too_small, cursor_.bits_written(), "output buffer is full");
        } else {
            if constexpr (!Checked) {
                value = cursor_.read_bits_unchecked(bits);
                return true;
            }
            if (!cursor_.read_bits(value, bits)) [[unlikely]]
                return this->fail(error::truncated, cursor_.bits_read(), "input ends before the value");
        }
        return true;
    }
    std::size_t bit_position() const noexcept
    {
        if constexpr (cursor_stream::is_writing)
            return cursor_.bits_written();
        else
            return cursor_.bits_read();
    }
};

/// The leaf stream for the interpreter's `Stream`.
template <class Stream, bool Checked = true>
using leaf_stream_for =
    leaf_stream<std::conditional_t<Stream::is_reading, bit_reader, bit_writer>, Stream::field_scope, Checked>;

/// Whether `count` runs of `run_bits` bits each fit in what the stream has
/// left to write or read.
template <class State>
BITREP_ALWAYS_INLINE bool has_room_for(const State& state, std::size_t count, std::size_t run_bits) noexcept
{
    std::size_t bits = 0;
    if (__builtin_mul_overflow(count, run_bits, &bits)) [[unlikely]]
        return false;
    if constexpr (requires { state.has_room(bits); })
        return state.has_room(bits);
    else
        return state.has_bits(bits);
}

} // namespace bitrep::engine
