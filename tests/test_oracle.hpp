// What the tests compare bitrep against, and how they print it. Shared by the
// test executables (each *_test.cpp is its own program, so everything here is
// inline or a template).
//
// The oracle is written from the wire reference (serialize 1.0, summarised in
// docs/formats/wire-format.md), independently of the library: a bit-at-a-time packer
// for expected bytes (section 1) and the float32 compressed-float quantizer
// (section 6). It calls none of bitrep's packing or quantizing code (bits.hpp,
// wire/quantize.hpp). Only the to_bytes / from_bytes helpers at the end, and
// PrintTo, touch the library.
#pragma once

#include <bitrep/bytes.hpp>
#include <bitrep/status.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string_view>
#include <utility>
#include <vector>

namespace bitrep {
// Readable gtest output for error codes and statuses. gtest finds PrintTo
// by argument-dependent lookup, so it lives in their namespace.
inline void PrintTo(error code, std::ostream* os) { *os << to_string(code); }
inline void PrintTo(const status& s, std::ostream* os) { *os << s.message(); }
} // namespace bitrep

namespace oracle {

using bytes = std::vector<std::uint8_t>;

inline bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

/// A failure with this code, field path and bit offset; use through
/// EXPECT_STATUS(st, code, path, bit).
inline ::testing::AssertionResult has_status(const bitrep::status& st, bitrep::error code, std::string_view path,
                                             std::size_t bit)
{
    if (st.ok() || st.code() != code || st.field_path() != path || st.bit_offset() != bit)
        return ::testing::AssertionFailure() << "got \"" << st.message() << "\", expected "
                                             << bitrep::to_string(code) << " at " << path << ", bit " << bit;
    return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------- bits (sections 1-2)

/// An independent bit packer for expected bytes: stream bit i is bit i % 8
/// (bit 0 = least significant) of byte i / 8, and a value's least
/// significant bit goes first (serialize 1.0 section 1).
class bit_builder {
public:
    /// The low `count` bits of `value` (0 <= count <= 64).
    bit_builder& bits(std::uint64_t value, int count)
    {
        for (int i = 0; i < count; ++i) {
            if (size_ % 8 == 0)
                bytes_.push_back(0);
            if ((value >> i) & 1u)
                bytes_.back() = static_cast<std::uint8_t>(bytes_.back() | (1u << (size_ % 8)));
            ++size_;
        }
        return *this;
    }
    /// Zero bits up to the next byte boundary.
    bit_builder& align()
    {
        while (size_ % 8 != 0)
            bits(0, 1);
        return *this;
    }
    /// Aligns, then the characters as bytes (the payload of a string; the
    /// length prefix is the caller's).
    bit_builder& text(std::string_view s)
    {
        align();
        for (char c : s)
            bits(static_cast<unsigned char>(c), 8);
        return *this;
    }
    const bytes& result() const { return bytes_; }

private:
    bytes bytes_;
    std::size_t size_ = 0;
};

/// One group of the group-list form: the low `bits` bits of `value` (0..64).
struct group {
    std::uint64_t value;
    int bits;
};

/// The groups laid down in order by bit_builder. Takes any range of elements
/// with `value` and `bits` members.
template <class Groups>
bytes pack(const Groups& groups)
{
    bit_builder builder;
    for (const auto& g : groups)
        builder.bits(g.value, g.bits);
    return builder.result();
}

/// pack({{value, bits}, ...}).
inline bytes pack(std::initializer_list<group> groups) { return pack<std::initializer_list<group>>(groups); }

// ---------------------------------------------------------------- floats (sections 5-6)

inline std::uint32_t bits_of(float value) { return std::bit_cast<std::uint32_t>(value); }
inline std::uint64_t bits_of(double value) { return std::bit_cast<std::uint64_t>(value); }

/// Rounds to float32 through memory: no widening, and no contraction (FMA)
/// can fuse across it, whatever the compiler flags.
inline float f32(float x)
{
    volatile float stored = x;
    return stored;
}

/// compressed_float exactly as serialize 1.0 section 6 states it, every step
/// rounded to float32 through f32 (independent of bitrep::quantizer).
struct quantizer {
    float min;
    float delta;
    std::uint32_t max_integer; ///< max_integer_value
    int bits;

    /// The declaration (min, max, resolution): max_integer_value is
    /// ceil(delta / resolution) clamped to [1, 2^32 - 256].
    quantizer(float lo, float hi, float resolution)
        : quantizer(lo, hi, max_integer_for(f32(hi - lo), resolution), exact{})
    {
    }

    /// A range split into a given max_integer_value (quat components,
    /// expectations written as explicit quanta counts).
    static quantizer with_max_integer(float lo, float hi, std::uint32_t max_integer)
    {
        return quantizer(lo, hi, max_integer, exact{});
    }

    /// Writer: the quantum of `value` (out-of-range values saturate).
    std::uint32_t quantize(float value) const
    {
        float n = f32(f32(value - min) / delta);
        if (n < 0.0f)
            n = 0.0f;
        if (n > 1.0f)
            n = 1.0f;
        const float p = f32(n * static_cast<float>(max_integer)); // rounding 1
        const float s = f32(p + 0.5f);                            // rounding 2
        return static_cast<std::uint32_t>(std::floor(s));
    }

    /// Reader: the value of quantum `q` (q <= max_integer).
    float dequantize(std::uint32_t q) const
    {
        const float n = f32(static_cast<float>(q) / static_cast<float>(max_integer));
        const float p = f32(n * delta);
        return f32(p + min);
    }

private:
    struct exact {};

    quantizer(float lo, float hi, std::uint32_t max_integer_value, exact)
        : min(lo),
          delta(f32(hi - lo)),
          max_integer(max_integer_value),
          bits(static_cast<int>(std::bit_width(max_integer_value))) // bits_required(0, max_integer_value)
    {
    }

    static std::uint32_t max_integer_for(float delta, float resolution)
    {
        float values = f32(delta / resolution);
        if (values < 1.0f)
            values = 1.0f;
        if (values > 4294967040.0f)
            values = 4294967040.0f;
        return static_cast<std::uint32_t>(std::ceil(values));
    }
};

// ---------------------------------------------------------------- to_bytes / from_bytes

/// from_bytes into `start`, expecting success.
template <class T>
T decode(const bytes& data, T start = {})
{
    const bitrep::status st = bitrep::from_bytes(data, start);
    EXPECT_TRUE(st) << st.message();
    return start;
}

/// to_bytes, expecting success.
template <class T>
bytes encode(const T& value)
{
    bytes out;
    const bitrep::status st = bitrep::to_bytes(value, out);
    EXPECT_TRUE(st) << st.message();
    return out;
}

/// to_bytes then from_bytes into `start`, expecting success.
template <class T>
T round_trip(const T& value, T start = {})
{
    return decode(bitrep::to_bytes(value), std::move(start));
}

/// The status of writing `value` with to_bytes.
template <class T>
bitrep::status write_status(const T& value)
{
    bytes out;
    return bitrep::to_bytes(value, out);
}

/// The names the test files use most, brought in at once by
/// `using namespace oracle::common;` in a test's unnamed namespace: the bytes,
/// the expected-bytes packer, the bit patterns of floats, and the to_bytes /
/// from_bytes helpers. A file that declares one of these names itself names
/// what it uses one by one instead.
namespace common {
using oracle::bit_builder;
using oracle::bits_of;
using oracle::bytes;
using oracle::decode;
using oracle::round_trip;
using oracle::write_status;
} // namespace common

} // namespace oracle

/// The status is a failure with exactly this code, field path and bit offset.
#define EXPECT_STATUS(st, code, path, bit) EXPECT_TRUE(::oracle::has_status((st), (code), (path), (bit)))
