// Writing and reading bit-packed deltas in tests, with the checks every
// delta test wants: delta_bit_size counts exactly what write_delta writes,
// and the reader stops exactly where the writer did.
#pragma once

#include <bitrep/delta.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace oracle {

struct encoded {
    std::vector<std::uint8_t> data;
    std::size_t bits = 0;
};

/// write_delta into an exactly sized buffer.
template <bitrep::scope Scope = bitrep::scope::all, class T>
encoded encode_delta(const T& base, const T& current)
{
    encoded e;
    e.bits = bitrep::delta_bit_size<Scope>(base, current);
    e.data.assign((e.bits + 7) / 8, 0);
    bitrep::basic_write_stream<Scope> stream(e.data);
    const bool ok = bitrep::write_delta(stream, base, current);
    EXPECT_TRUE(ok) << stream.failure_status("delta").message();
    EXPECT_EQ(stream.bit_position(), e.bits) << "delta_bit_size disagrees with write_delta";
    e.data.resize(stream.flush());
    return e;
}

/// read_delta over exactly `data`; the status of a failed read.
template <bitrep::scope Scope = bitrep::scope::all, class T>
bitrep::status read_delta_status(std::span<const std::uint8_t> data, const T& base, T& out,
                                 std::size_t* bits_read = nullptr)
{
    bitrep::basic_read_stream<Scope> stream(data);
    if (!bitrep::read_delta(stream, base, out))
        return stream.failure_status("delta");
    if (bits_read != nullptr)
        *bits_read = stream.bit_position();
    return {};
}

/// Writes current against base, reads it back into `start` (a value unlike
/// both, so that every part the reader fails to assign shows), and checks
/// the reader consumed exactly the bits written.
template <bitrep::scope Scope = bitrep::scope::all, class T>
T replicate(const T& base, const T& current, T start = {})
{
    const encoded e = encode_delta<Scope>(base, current);
    std::size_t bits_read = 0;
    const bitrep::status st = read_delta_status<Scope>(e.data, base, start, &bits_read);
    EXPECT_TRUE(st) << st.message();
    EXPECT_EQ(bits_read, e.bits) << "the reader stopped elsewhere than the writer";
    return start;
}

/// What a coded delta (delta_coder) brought: whether it was written and
/// read, the value read, and the bytes it took.
template <class T>
struct coded {
    bool ok = false;
    T value{};
    std::size_t size = 0;
};

/// Writes `current` with `coder` against `older` and `base` into a buffer of
/// `capacity` bytes, then reads it back into a default-made T.
template <class Coder, class T>
coded<T> coded_round_trip(Coder& coder, const T& older, const T& base, const T& current, std::size_t capacity)
{
    coded<T> result;
    std::vector<std::uint8_t> buffer(capacity);
    if (!coder.write(buffer, result.size, older, base, current)) {
        ADD_FAILURE() << "the coder refused to write";
        return result;
    }
    if (!coder.read(std::span(buffer).first(result.size), older, base, result.value)) {
        ADD_FAILURE() << "the coder refused to read what it wrote";
        return result;
    }
    result.ok = true;
    return result;
}

} // namespace oracle
