// The streams a run of fixed-width leaves runs on, out of the interpreter's
// loop (interpreter.cpp, run_leaves): the bit writer's or reader's state and
// the failure record's address, and nothing else, so that the call that
// hands the state over and back is a handful of moves (write_stream and
// read_stream also carry a failure record of their own, hundreds of bytes).
// Their bit groups and refusals are write_stream's and read_stream's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <bitrep/detail/inline.hpp>
#include <bitrep/wire/bits.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep::engine {

template <bitrep::scope Scope>
class leaf_writer : public stream_primitives<leaf_writer<Scope>> {
public:
    static constexpr bool is_writing = true;
    static constexpr bool is_reading = false;
    static constexpr bool is_measuring = false;
    static constexpr bitrep::scope field_scope = Scope;

    BITREP_ALWAYS_INLINE leaf_writer(const bit_writer& state, failure_record& record) noexcept
        : stream_primitives<leaf_writer>(record), writer_(state)
    {
    }
    const bit_writer& state() const noexcept { return writer_; }

    using stream_primitives<leaf_writer>::serialize_bits;
    BITREP_ALWAYS_INLINE bool serialize_bits(std::uint32_t& value, int bits)
    {
        if (!writer_.write_bits(value, bits)) [[unlikely]]
            return this->fail(error::buffer_too_small, writer_.bits_written(), "output buffer is full");
        return true;
    }
    std::size_t bit_position() const noexcept { return writer_.bits_written(); }

private:
    bit_writer writer_;
};

template <bitrep::scope Scope>
class leaf_reader : public stream_primitives<leaf_reader<Scope>> {
public:
    static constexpr bool is_writing = false;
    static constexpr bool is_reading = true;
    static constexpr bool is_measuring = false;
    static constexpr bitrep::scope field_scope = Scope;

    BITREP_ALWAYS_INLINE leaf_reader(const bit_reader& state, failure_record& record) noexcept
        : stream_primitives<leaf_reader>(record), reader_(state)
    {
    }
    const bit_reader& state() const noexcept { return reader_; }

    using stream_primitives<leaf_reader>::serialize_bits;
    BITREP_ALWAYS_INLINE bool serialize_bits(std::uint32_t& value, int bits)
    {
        if (!reader_.read_bits(value, bits)) [[unlikely]]
            return this->fail(error::truncated, reader_.bits_read(), "input ends before the value");
        return true;
    }
    std::size_t bit_position() const noexcept { return reader_.bits_read(); }

private:
    bit_reader reader_;
};

/// The leaf stream for the interpreter's `Stream`.
template <class Stream>
using leaf_stream_for = std::conditional_t<Stream::is_reading, leaf_reader<Stream::field_scope>,
                                           leaf_writer<Stream::field_scope>>;

} // namespace bitrep::engine
