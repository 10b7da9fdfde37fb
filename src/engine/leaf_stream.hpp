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
#include <string>
#include <type_traits>

#include <bitrep/detail/portability.hpp>
#include <bitrep/detail/resize.hpp>
#include <bitrep/wire/bits.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep::engine {

namespace detail {

inline constexpr std::uint64_t byte_ones = 0x0101010101010101u;
inline constexpr std::uint64_t byte_highs = 0x8080808080808080u;

/// Stores the low n <= 8 bytes of word at `text`, within those n bytes.
BITREP_ALWAYS_INLINE void store_short(unsigned char* text, std::size_t n, std::uint64_t word) noexcept
{
    if (n >= 4) {
        bitrep::detail::store_le32(text, static_cast<std::uint32_t>(word));
        bitrep::detail::store_le32(text + n - 4, static_cast<std::uint32_t>(word >> (8 * (n - 4))));
    } else if (n != 0) {
        text[0] = static_cast<unsigned char>(word);
        text[n / 2] = static_cast<unsigned char>(word >> (8 * (n / 2)));
        text[n - 1] = static_cast<unsigned char>(word >> (8 * (n - 1)));
    }
}

/// Whether the low n <= 8 bytes of word are ASCII and none is zero: text
/// that needs no UTF-8 check.
BITREP_ALWAYS_INLINE bool plain_ascii(std::uint64_t word, std::size_t n) noexcept
{
    const std::uint64_t mask = n == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * n)) - 1;
    return ((word | ((word - byte_ones) & ~word)) & byte_highs & mask) == 0;
}

} // namespace detail

/// A bounded_string of at most 16 plain ASCII bytes, its length field at
/// most 24 bits wide, moved a word at a time: the same bits as the
/// stream's serialize_string, with one room check. False, having moved
/// nothing, for any other string or where the room is short: the caller
/// then runs serialize_string, which refuses what is to be refused.
template <class Cursor>
BITREP_ALWAYS_INLINE bool short_string(Cursor& cursor, std::string& text, std::uint64_t max_length, int length_bits)
{
    if (length_bits > 24)
        return false;
    if constexpr (std::is_same_v<Cursor, bit_writer>) {
        const std::size_t n = text.size();
        if (n > 16 || n > max_length)
            return false;
        const auto* bytes = reinterpret_cast<const std::uint8_t*>(text.data());
        const std::size_t first = n < 8 ? n : 8;
        const std::uint64_t low = bitrep::detail::load_short(bytes, first);
        const std::uint64_t high = bitrep::detail::load_short(bytes + first, n - first);
        const int head = length_bits + static_cast<int>((8 - (cursor.bits_written() + length_bits) % 8) % 8);
        if (!detail::plain_ascii(low, first) || !detail::plain_ascii(high, n - first) ||
            !cursor.has_room(static_cast<std::size_t>(head) + 8 * n))
            return false;
        if (head != 0)
            cursor.write_bits_unchecked(static_cast<std::uint32_t>(n), head); // the length, then zero padding
        const auto put = [&cursor](std::uint64_t word, std::size_t count) BITREP_LAMBDA_ALWAYS_INLINE {
            if (count > 4) {
                cursor.write_bits_unchecked(static_cast<std::uint32_t>(word), 32);
                cursor.write_bits_unchecked(static_cast<std::uint32_t>(word >> 32), static_cast<int>(8 * (count - 4)));
            } else if (count != 0) {
                cursor.write_bits_unchecked(static_cast<std::uint32_t>(word), static_cast<int>(8 * count));
            }
        };
        put(low, first);
        put(high, n - first);
        return true;
    } else {
        const Cursor before = cursor;
        const int head = length_bits + static_cast<int>((8 - (cursor.bits_read() + length_bits) % 8) % 8);
        if (head == 0 || !cursor.has_bits(static_cast<std::size_t>(head)))
            return false;
        const std::uint32_t fields = cursor.read_bits_unchecked(head);
        const std::size_t n = fields & ((std::uint32_t{1} << length_bits) - 1);
        const std::size_t first = n < 8 ? n : 8;
        if ((fields >> length_bits) != 0 || n > max_length || n > 16 || !cursor.has_bits(8 * n)) {
            cursor = before;
            return false;
        }
        const std::uint64_t low = cursor.read_short_bytes_unchecked(first);
        const std::uint64_t high = cursor.read_short_bytes_unchecked(n - first);
        if (!detail::plain_ascii(low, first) || !detail::plain_ascii(high, n - first)) {
            cursor = before;
            return false;
        }
        if (text.size() != n) [[unlikely]]
            bitrep::detail::resize_for_decode(text, n);
        auto* bytes = reinterpret_cast<unsigned char*>(text.data());
        detail::store_short(bytes, first, low);
        detail::store_short(bytes + first, n - first, high);
        return true;
    }
}

/// A leaf writer (Cursor = bit_writer) or reader (Cursor = bit_reader).
template <class Cursor, bitrep::scope Scope, bool Checked = true, bool Quiet = false>
class leaf_stream : public bitrep::cursor_stream<leaf_stream<Cursor, Scope, Checked, Quiet>, Cursor, Scope> {
    using cursor_stream = bitrep::cursor_stream<leaf_stream, Cursor, Scope>;
    using cursor_stream::cursor_;

public:
    using cursor_stream::cursor_stream;
    /// Quiet: refusals record nothing (stream_primitives::fail).
    static constexpr bool quiet = Quiet;

    /// A quiet stream's serialize_string moves a short plain string a word
    /// at a time (short_string) and declines any other, as a refusal: the
    /// engine's slow handler then runs serialize_string on a stream that
    /// records, which takes the rest.
    BITREP_ALWAYS_INLINE bool serialize_string(std::string& text, std::size_t buffer_size)
    {
        if constexpr (Quiet)
            return short_string(cursor_, text, buffer_size - 1, bits_required_for_span(buffer_size - 1));
        else
            return stream_primitives<leaf_stream>::serialize_string(text, buffer_size);
    }
    /// serialize_string with the length field's width known (the engine's
    /// instruction holds it).
    BITREP_ALWAYS_INLINE bool serialize_string(std::string& text, std::size_t buffer_size, int length_bits)
    {
        if constexpr (Quiet)
            return short_string(cursor_, text, buffer_size - 1, length_bits);
        else
            return stream_primitives<leaf_stream>::serialize_string(text, buffer_size);
    }

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
};

/// The leaf stream for the interpreter's `Stream`.
template <class Stream, bool Checked = true, bool Quiet = false>
using leaf_stream_for =
    leaf_stream<std::conditional_t<Stream::is_reading, bit_reader, bit_writer>, Stream::field_scope, Checked, Quiet>;

/// Whether `count` runs of `run_bits` bits each fit in what the stream has
/// left to write or read.
template <class State>
BITREP_ALWAYS_INLINE bool has_room_for(const State& state, std::size_t count, std::size_t run_bits) noexcept
{
    std::size_t bits = 0;
    if (bitrep::detail::mul_overflow(count, run_bits, &bits)) [[unlikely]]
        return false;
    if constexpr (requires { state.has_room(bits); })
        return state.has_room(bits);
    else
        return state.has_bits(bits);
}

} // namespace bitrep::engine
