// Conformance of the stream primitives (stream.hpp) with the serialize 1.0
// wire standard, summarised in docs/formats/wire-format.md and the shared reference:
// golden bytes for every primitive, every reader refusal with its error code
// and bit offset, measure-stream accounting, and randomized round trips.
//
// Every golden vector is derived by hand from the reference: the comment next
// to it shows the bit arithmetic. Stream bit i is bit i % 8 of byte i / 8, and
// each field is laid down least significant bit first.
//
// This file is compiled twice: normally, and as stream_test_fma_contract with
// -O3 -mfma -ffp-contract=fast (BITREP_TEST_REQUIRES_FMA), to prove that a
// user's contraction flags cannot change compressed-float bytes.
#include <bitrep/wire/stream.hpp>

#include <gtest/gtest.h>

#include "test_oracle.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <ostream>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

using bitrep::error;
using byte_vector = oracle::bytes;
using oracle::bits_of;
using oracle::f32;
using oracle::pack; // input bytes by the reference's layout, for adversarial vectors

constexpr std::int32_t int32_min = std::numeric_limits<std::int32_t>::min();
constexpr std::int32_t int32_max = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t int64_min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();
constexpr float float_inf = std::numeric_limits<float>::infinity();

/// Every test runs in this fixture: the FMA-contract build of this file only
/// means something on a CPU with FMA, so there it skips on other CPUs.
class conformance : public ::testing::Test {
protected:
    void SetUp() override
    {
#if defined(BITREP_TEST_REQUIRES_FMA)
        if (!__builtin_cpu_supports("fma"))
            GTEST_SKIP() << "this build checks FMA contraction; the CPU has no FMA";
#endif
    }
};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// The span a reader gets. The pointer goes through an empty asm so that GCC
/// 12 at -O3 cannot tie it to a small constant-size allocation: bits.hpp's
/// guarded 4-byte load (load_le32) otherwise draws a false -Warray-bounds.
std::span<const std::uint8_t> input(const byte_vector& data)
{
    const std::uint8_t* bytes = data.data();
#if defined(__GNUC__)
    asm("" : "+r"(bytes));
#endif
    return {bytes, data.size()};
}

struct encoded {
    bool ok = false;
    std::size_t bits = 0;
    byte_vector data;
    error code = error::none;
};

/// Runs ops on a write_stream over a sentinel-filled buffer, then flushes.
template <class Ops>
encoded encode(Ops&& ops, std::size_t capacity = 4096)
{
    byte_vector buffer(capacity, 0xA5);
    bitrep::write_stream out{std::span<std::uint8_t>(buffer)};
    encoded e;
    e.ok = ops(out);
    e.bits = out.position();
    const std::size_t size = out.flush();
    EXPECT_EQ(size, (e.bits + 7) / 8) << "flush must return the meaningful byte count";
    e.data.assign(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(size));
    e.code = out.failure().to_status("Root").code();
    EXPECT_EQ(e.ok, e.code == error::none) << "return value and recorded status disagree";
    return e;
}

struct decoded {
    bitrep::status status;
    std::size_t position = 0;
};

/// Runs ops on a read_stream over exactly `data`.
template <class Ops>
decoded decode(const byte_vector& data, Ops&& ops)
{
    bitrep::read_stream in{input(data)};
    const bool ok = ops(in);
    decoded d{in.failure().to_status("Root"), in.position()};
    EXPECT_EQ(ok, d.status.ok()) << "return value and recorded status disagree";
    return d;
}

/// Reads `lead` bits first, then ops: the failing primitive starts at `lead`.
template <class Ops>
bitrep::status decode_after(const byte_vector& data, int lead, Ops&& ops)
{
    return decode(data, [&](auto& s) {
               std::uint32_t skipped = 0;
               return (lead == 0 || s.serialize_bits(skipped, lead)) && ops(s);
           })
        .status;
}

struct measured {
    std::size_t bits = 0;
    std::size_t exact_bits = 0;
};

template <class Ops>
measured measure(Ops&& ops)
{
    bitrep::measure_stream m;
    EXPECT_TRUE(ops(m)) << "a measure never fails";
    return {m.bits(), m.exact_bits()};
}

int bit_length(std::uint64_t span)
{
    return 64 - std::countl_zero(span);
}

/// UTF-8 encoding of one scalar value (written for these tests).
void append_utf8(std::string& out, std::uint32_t cp)
{
    auto put = [&](std::uint32_t byte) { out.push_back(static_cast<char>(static_cast<unsigned char>(byte))); };
    if (cp < 0x80) {
        put(cp);
    } else if (cp < 0x800) {
        put(0xC0 | (cp >> 6));
        put(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        put(0xE0 | (cp >> 12));
        put(0x80 | ((cp >> 6) & 0x3F));
        put(0x80 | (cp & 0x3F));
    } else {
        put(0xF0 | (cp >> 18));
        put(0x80 | ((cp >> 12) & 0x3F));
        put(0x80 | ((cp >> 6) & 0x3F));
        put(0x80 | (cp & 0x3F));
    }
}

std::string text_of(std::initializer_list<std::uint8_t> bytes)
{
    std::string s;
    for (std::uint8_t b : bytes)
        s.push_back(static_cast<char>(b));
    return s;
}

/// A string read with buffer_size 256 is an 8-bit length, no padding, then the bytes.
byte_vector string256(const byte_vector& payload)
{
    byte_vector data(payload.size() + 1);
    data[0] = static_cast<std::uint8_t>(payload.size());
    std::copy(payload.begin(), payload.end(), data.begin() + 1);
    return data;
}

} // namespace

// One fixture, one suite name per primitive.
using WorkedExample = conformance;
using Bits = conformance;
using Bool = conformance;
using Align = conformance;
using Int = conformance;
using Int64 = conformance;
using RangedOffset = conformance;
using IntRelative = conformance;
using Float = conformance;
using Double = conformance;
using FloatAndDouble = conformance;
using CompressedFloat = conformance;
using Bytes = conformance;
using String = conformance;
using Utf8 = conformance;
using TrailingBits = conformance;
using ErrorOffset = conformance;
using WriteStream = conformance;
using ReadStream = conformance;
using Measure = conformance;
using RoundTrip = conformance;

// ===========================================================================
// The reference's worked example (section 1)
// ===========================================================================

TEST_F(WorkedExample, BoolTrueIntFiveOfZeroToSevenThenAlignIsTheSingleByte0x0B)
{
    // bit 0 = 1 (true), bits 1-3 = 101 (5), bits 4-7 = padding: 0b0000'101'1 = 0x0B
    const auto e = encode([](auto& s) {
        bool b = true;
        std::int32_t v = 5;
        return s.serialize_bool(b) && s.serialize_int(v, 0, 7) && s.serialize_align();
    });
    EXPECT_TRUE(e.ok);
    EXPECT_EQ(e.bits, 8u);
    EXPECT_EQ(e.data, (byte_vector{0x0B}));
}

TEST_F(WorkedExample, Byte0x0BReadsBackAsTrueAndFive)
{
    bool b = false;
    std::int32_t v = 0;
    const auto d = decode(byte_vector{0x0B}, [&](auto& s) {
        return s.serialize_bool(b) && s.serialize_int(v, 0, 7) && s.serialize_align();
    });
    EXPECT_TRUE(d.status.ok()) << d.status.message();
    EXPECT_TRUE(b);
    EXPECT_EQ(v, 5);
    EXPECT_EQ(d.position, 8u);
}

// ===========================================================================
// bits (section 2)
// ===========================================================================

namespace {
/// One value given to bits: its width, and whether it goes through the
/// std::uint64_t overload or the std::uint32_t one.
struct bits_field {
    std::uint64_t value;
    int count;
    bool as_uint64;
};

/// Values written with bits one after another, and the bits and bytes that
/// come out.
struct bits_encoding {
    const char* name;
    std::vector<bits_field> fields;
    std::size_t bits;
    byte_vector data;
};

encoded encode_bits(const std::vector<bits_field>& fields)
{
    return encode([&](auto& s) {
        for (const bits_field& f : fields) {
            std::uint32_t narrow = static_cast<std::uint32_t>(f.value);
            std::uint64_t wide = f.value;
            if (!(f.as_uint64 ? s.serialize_bits(wide, f.count) : s.serialize_bits(narrow, f.count)))
                return false;
        }
        return true;
    });
}
} // namespace

TEST_F(Bits, ValuesArePackedLowBitsFirstAndWideOnesLow32BitsFirst)
{
    const bits_encoding cases[] = {
        // 0b101 at bits 0-2, 0b11111 at bits 3-7: 0b11111'101 = 0xFD
        {"the 32-bit overload packs low bits first", {{0x5, 3, false}, {0x1F, 5, false}}, 8, {0xFD}},
        // 0xA (4) | 0x89ABCDEF (32) << 4 | 0x3 (2) << 36 = 0x38'9ABC'DEFA -> FA DE BC 9A 38
        {"32-bit groups straddling a byte boundary are contiguous",
         {{0xA, 4, false}, {0x89ABCDEF, 32, false}, {0x3, 2, false}},
         38,
         {0xFA, 0xDE, 0xBC, 0x9A, 0x38}},
        // 0xAB'1234'5678: low 32 = 0x12345678 -> 78 56 34 12, then high 8 = 0xAB
        {"a 40-bit value goes low 32 bits first, then the high eight",
         {{0xAB12345678, 40, true}},
         40,
         {0x78, 0x56, 0x34, 0x12, 0xAB}},
        {"a 64-bit value is little-endian",
         {{0x0123456789ABCDEF, 64, true}},
         64,
         {0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01}},
        // 1 at bit 0, then 0x8000'0000'0000'0001 at bits 1-64:
        // bits 0, 1 and 64 set -> 03 00 00 00 00 00 00 00 01 (65 bits)
        {"a 64-bit field at an odd offset is one contiguous field",
         {{1, 1, false}, {0x8000000000000001, 64, true}},
         65,
         {0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01}},
        // 0x7 (3) | 0x0FED'CBA9'8765'4321 (60) << 3 | 0x5 (3) << 63
        // = 0x2'FF6E'5D4C'3B2A'190F -> 0F 19 2A 3B 4C 5D 6E FF 02 (66 bits)
        {"a 64-bit field straddling bit 64 is split across the word boundary",
         {{0x7, 3, false}, {0x0FEDCBA987654321, 60, true}, {0x5, 3, false}},
         66,
         {0x0F, 0x19, 0x2A, 0x3B, 0x4C, 0x5D, 0x6E, 0xFF, 0x02}},
        // 0x1234 in 13 bits: 34, then the high 5 bits 0x12
        {"the 64-bit overload with at most 32 bits is one group", {{0x1234, 13, true}}, 13, {0x34, 0x12}},
        {"a std::uint64_t of one still costs 64 bits", {{1, 64, true}}, 64, {0x01, 0, 0, 0, 0, 0, 0, 0}},
    };
    for (const bits_encoding& c : cases) {
        SCOPED_TRACE(c.name);
        const auto e = encode_bits(c.fields);
        EXPECT_TRUE(e.ok);
        EXPECT_EQ(e.bits, c.bits);
        EXPECT_EQ(e.data, c.data);
    }
}

TEST_F(Bits, ReaderRecoversAnOddOffsetSixtyFourBitField)
{
    std::uint32_t a = 0, c = 0;
    std::uint64_t b = 0;
    const auto d = decode(byte_vector{0x0F, 0x19, 0x2A, 0x3B, 0x4C, 0x5D, 0x6E, 0xFF, 0x02}, [&](auto& s) {
        return s.serialize_bits(a, 3) && s.serialize_bits(b, 60) && s.serialize_bits(c, 3);
    });
    ASSERT_TRUE(d.status.ok()) << d.status.message();
    EXPECT_EQ(a, 0x7u);
    EXPECT_EQ(b, 0x0FEDCBA987654321u);
    EXPECT_EQ(c, 0x5u);
    EXPECT_EQ(d.position, 66u);
}

// ===========================================================================
// bool (section 2)
// ===========================================================================

TEST_F(Bool, TrueIsOneBitOneAndFalseIsOneBitZero)
{
    // true, false, true, true at bits 0-3: 0b1101 = 0x0D
    const auto e = encode([](auto& s) {
        bool t = true, f = false;
        return s.serialize_bool(t) && s.serialize_bool(f) && s.serialize_bool(t) && s.serialize_bool(t);
    });
    EXPECT_EQ(e.bits, 4u);
    EXPECT_EQ(e.data, (byte_vector{0x0D}));
}

TEST_F(Bool, ReaderReadsOneBitPerBool)
{
    bool a = false, b = true, c = false, d = false;
    const auto r = decode(byte_vector{0x0D}, [&](auto& s) {
        return s.serialize_bool(a) && s.serialize_bool(b) && s.serialize_bool(c) && s.serialize_bool(d);
    });
    ASSERT_TRUE(r.status.ok());
    EXPECT_TRUE(a);
    EXPECT_FALSE(b);
    EXPECT_TRUE(c);
    EXPECT_TRUE(d);
    EXPECT_EQ(r.position, 4u);
}

// ===========================================================================
// align (section 2)
// ===========================================================================

namespace {
/// Bits written before the alignments (none when lead_bits is 0), the
/// alignments, and the bits and bytes that come out.
struct align_write {
    std::string name;
    std::uint32_t lead;
    int lead_bits;
    int aligns;
    std::size_t bits;
    byte_vector data;
};
} // namespace

TEST_F(Align, PadsWithZeroBitsUpToTheNextByteAndWritesNothingWhenAligned)
{
    std::vector<align_write> cases = {
        {"from an aligned position, two aligns write nothing", 0xAB, 8, 2, 8, {0xAB}},
        {"at the very start, an align writes nothing", 0, 0, 1, 0, {}},
    };
    // `lead` one bits, then 8 - lead zero bits: (1 << lead) - 1
    for (int lead = 1; lead <= 7; ++lead) {
        const std::uint32_t ones = (1u << lead) - 1u;
        cases.push_back({std::to_string(lead) + " one bits, then zero padding", ones, lead, 1, 8,
                         {static_cast<std::uint8_t>(ones)}});
    }
    for (const align_write& c : cases) {
        SCOPED_TRACE(c.name);
        const auto e = encode([&](auto& s) {
            std::uint32_t v = c.lead;
            if (c.lead_bits > 0 && !s.serialize_bits(v, c.lead_bits))
                return false;
            for (int n = 0; n < c.aligns; ++n)
                if (!s.serialize_align())
                    return false;
            return true;
        });
        EXPECT_TRUE(e.ok);
        EXPECT_EQ(e.bits, c.bits);
        EXPECT_EQ(e.data, c.data);
    }
}

TEST_F(Align, ReaderConsumesZeroPadding)
{
    // 3 bits 0b101, 5 zero padding bits, then 0xC3
    std::uint32_t a = 0, b = 0;
    const auto d = decode(byte_vector{0x05, 0xC3}, [&](auto& s) {
        return s.serialize_bits(a, 3) && s.serialize_align() && s.serialize_bits(b, 8);
    });
    ASSERT_TRUE(d.status.ok());
    EXPECT_EQ(a, 5u);
    EXPECT_EQ(b, 0xC3u);
    EXPECT_EQ(d.position, 16u);
}

TEST_F(Align, ReaderRefusesEveryNonZeroPaddingBit)
{
    for (int lead = 1; lead <= 7; ++lead) {
        for (int bit = lead; bit <= 7; ++bit) {
            const byte_vector data{static_cast<std::uint8_t>(1u << bit)};
            const auto st = decode_after(data, lead, [](auto& s) { return s.serialize_align(); });
            EXPECT_EQ(st.code(), error::bad_padding) << "lead " << lead << ", padding bit " << bit;
        }
    }
}

TEST_F(Align, ReaderAtTheEndOfAnExactStreamSucceeds)
{
    const auto st = decode_after(byte_vector{0xFF}, 8, [](auto& s) { return s.serialize_align(); });
    EXPECT_TRUE(st.ok()) << st.message();
}

// ===========================================================================
// int (section 3)
// ===========================================================================

TEST_F(Int, ValueIsWrittenAsItsOffsetFromMin)
{
    // [-100, 100]: 8 bits; -100 -> 0, 0 -> 100 = 0x64, 100 -> 200 = 0xC8
    const auto e = encode([](auto& s) {
        std::int32_t a = -100, b = 0, c = 100;
        return s.serialize_int(a, -100, 100) && s.serialize_int(b, -100, 100) && s.serialize_int(c, -100, 100);
    });
    EXPECT_EQ(e.bits, 24u);
    EXPECT_EQ(e.data, (byte_vector{0x00, 0x64, 0xC8}));
}

namespace {
/// One value in a range: the bits written are the bit length of the span.
struct int_width {
    const char* name;
    std::int32_t value, min, max;
    std::size_t bits;
    byte_vector data;
};
} // namespace

TEST_F(Int, WidthIsTheBitLengthOfTheRangesSpan)
{
    const int_width cases[] = {
        {"0 to 7 uses three bits", 5, 0, 7, 3, {0x05}},
        {"0 to 8 uses four bits", 8, 0, 8, 4, {0x08}},
        {"0 to 65535 uses sixteen bits", 0x1234, 0, 65535, 16, {0x34, 0x12}},
    };
    for (const int_width& c : cases) {
        SCOPED_TRACE(c.name);
        const auto e = encode([&](auto& s) {
            std::int32_t v = c.value;
            return s.serialize_int(v, c.min, c.max);
        });
        EXPECT_EQ(e.bits, c.bits);
        EXPECT_EQ(e.data, c.data);
    }
}

TEST_F(Int, FullInt32RangeUsesUnsignedOffsetArithmeticIn32Bits)
{
    // offset = value - INT32_MIN mod 2^32: -1 -> 0x7FFFFFFF, INT32_MIN -> 0, INT32_MAX -> 0xFFFFFFFF
    const auto e = encode([](auto& s) {
        std::int32_t a = -1, b = int32_min, c = int32_max;
        return s.serialize_int(a, int32_min, int32_max) && s.serialize_int(b, int32_min, int32_max) &&
               s.serialize_int(c, int32_min, int32_max);
    });
    EXPECT_EQ(e.bits, 96u);
    EXPECT_EQ(e.data, (byte_vector{0xFF, 0xFF, 0xFF, 0x7F, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF}));
}

TEST_F(Int, DegenerateRangeWritesNothing)
{
    // int(7, 7, 7) is 0 bits, so the following bool lands at bit 0
    const auto e = encode([](auto& s) {
        std::int32_t v = 7;
        bool b = true;
        return s.serialize_int(v, 7, 7) && s.serialize_bool(b);
    });
    EXPECT_EQ(e.bits, 1u);
    EXPECT_EQ(e.data, (byte_vector{0x01}));
}

TEST_F(Int, DegenerateRangeReadsNothingEvenAtTheEndAndYieldsMin)
{
    std::int32_t v = 0;
    const auto d = decode(byte_vector{}, [&](auto& s) { return s.serialize_int(v, -42, -42); });
    EXPECT_TRUE(d.status.ok()) << d.status.message();
    EXPECT_EQ(v, -42);
    EXPECT_EQ(d.position, 0u);
}

TEST_F(Int, ReaderAddsMinBackToTheOffset)
{
    std::int32_t a = 0, b = 0, c = 0;
    const auto d = decode(byte_vector{0x00, 0x64, 0xC8}, [&](auto& s) {
        return s.serialize_int(a, -100, 100) && s.serialize_int(b, -100, 100) && s.serialize_int(c, -100, 100);
    });
    ASSERT_TRUE(d.status.ok());
    EXPECT_EQ(a, -100);
    EXPECT_EQ(b, 0);
    EXPECT_EQ(c, 100);
}

TEST_F(Int, ReaderRefusesOffsetsAboveTheSpanInsteadOfClamping)
{
    // [0, 4] takes 3 bits, which can carry 5, 6, 7
    for (std::uint8_t raw = 5; raw <= 7; ++raw) {
        std::int32_t v = 0;
        const auto d = decode(byte_vector{raw}, [&](auto& s) { return s.serialize_int(v, 0, 4); });
        EXPECT_EQ(d.status.code(), error::out_of_range) << int{raw};
    }
    // [-100, 100] takes 8 bits, offsets 201..255 are refused
    for (unsigned raw = 201; raw <= 255; ++raw) {
        std::int32_t v = 0;
        const auto d = decode(byte_vector{static_cast<std::uint8_t>(raw)},
                              [&](auto& s) { return s.serialize_int(v, -100, 100); });
        EXPECT_EQ(d.status.code(), error::out_of_range) << raw;
    }
}

TEST_F(Int, ReaderAcceptsTheTopOfTheRange)
{
    std::int32_t v = 0;
    const auto d = decode(byte_vector{0x04}, [&](auto& s) { return s.serialize_int(v, 0, 4); });
    EXPECT_TRUE(d.status.ok());
    EXPECT_EQ(v, 4);
}

TEST_F(Int, WriterRefusesAValueOutsideTheRangeAndWritesNothing)
{
    for (std::int32_t bad : {8, -1, int32_max}) {
        const auto e = encode([&](auto& s) {
            std::int32_t v = bad;
            return s.serialize_int(v, 0, 7);
        });
        EXPECT_FALSE(e.ok) << bad;
        EXPECT_EQ(e.code, error::value_out_of_range) << bad;
        EXPECT_EQ(e.bits, 0u) << bad;
    }
}

// ===========================================================================
// int64 (section 3)
// ===========================================================================

namespace {
/// One value in a 64-bit range, after a true bit or not, and the bits and
/// bytes written.
struct int64_encoding {
    const char* name;
    std::int64_t value, min, max;
    bool leading_true;
    std::size_t bits;
    byte_vector data;
};
} // namespace

TEST_F(Int64, WidthIsTheBitLengthOfTheSpanWrittenLow32BitsFirst)
{
    const int64_encoding cases[] = {
        // [0, 2^40] -> 41 bits; offset 0x01'2345'6789: low 32 = 0x23456789, high 9 = 0x001
        // -> 89 67 45 23 01 00 (bit 40 = byte 5 bit 0 = 0)
        {"a width above 32 bits goes low 32 bits first, then the high bits", 0x0123456789, 0,
         std::int64_t{1} << 40, false, 41, {0x89, 0x67, 0x45, 0x23, 0x01, 0x00}},
        {"the top of 0 to 2^40 sets only bit 40", std::int64_t{1} << 40, 0, std::int64_t{1} << 40, false, 41,
         {0x00, 0x00, 0x00, 0x00, 0x00, 0x01}},
        // offset of 0 = 5'000'000'000 = 0x1'2A05'F200: low 32 -> 00 F2 05 2A, high 2 = 0b01
        {"plus or minus five billion uses 34 bits", 0, -5000000000, 5000000000, false, 34,
         {0x00, 0xF2, 0x05, 0x2A, 0x01}},
        // offset of -1 = -1 - INT64_MIN = 0x7FFF'FFFF'FFFF'FFFF
        {"the full range uses 64 bits of unsigned offset", -1, int64_min, int64_max, false, 64,
         {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F}},
        // true at bit 0; [0, 2^33 - 1] -> 33 bits, offset 0x1'0000'0001 at bits 1-33:
        // 1 | 0x1'0000'0001 << 1 = 0x2'0000'0003 -> 03 00 00 00 02
        {"a wide field at an odd offset is contiguous", 0x100000001, 0, (std::int64_t{1} << 33) - 1, true, 34,
         {0x03, 0x00, 0x00, 0x00, 0x02}},
    };
    for (const int64_encoding& c : cases) {
        SCOPED_TRACE(c.name);
        const auto e = encode([&](auto& s) {
            bool b = true;
            std::int64_t v = c.value;
            return (!c.leading_true || s.serialize_bool(b)) && s.serialize_int64(v, c.min, c.max);
        });
        EXPECT_TRUE(e.ok);
        EXPECT_EQ(e.bits, c.bits);
        EXPECT_EQ(e.data, c.data);
    }
}

TEST_F(Int64, OverInt32BoundsTheBytesEqualInt)
{
    struct sample {
        std::int32_t value, min, max;
        byte_vector expected;
    };
    const sample samples[] = {
        {37, -100, 100, {0x89}},                                 // offset 137 = 0x89
        {5, 0, 7, {0x05}},                                       // 3 bits
        {-2, int32_min, int32_max, {0xFE, 0xFF, 0xFF, 0x7F}},    // offset 0x7FFFFFFE
        {int32_max, 0, int32_max, {0xFF, 0xFF, 0xFF, 0x7F}},     // 31 bits
        {-5, -5, -5, {}},                                        // 0 bits
    };
    for (const sample& smp : samples) {
        const auto as_int = encode([&](auto& s) {
            std::int32_t v = smp.value;
            return s.serialize_int(v, smp.min, smp.max);
        });
        const auto as_int64 = encode([&](auto& s) {
            std::int64_t v = smp.value;
            return s.serialize_int64(v, smp.min, smp.max);
        });
        EXPECT_EQ(as_int.data, smp.expected) << smp.value;
        EXPECT_EQ(as_int64.data, smp.expected) << smp.value;
        EXPECT_EQ(as_int64.bits, as_int.bits) << smp.value;
    }
}

TEST_F(Int64, ReaderRecoversAWideValue)
{
    std::int64_t v = 0;
    const auto d = decode(byte_vector{0x00, 0xF2, 0x05, 0x2A, 0x01},
                          [&](auto& s) { return s.serialize_int64(v, -5000000000, 5000000000); });
    ASSERT_TRUE(d.status.ok());
    EXPECT_EQ(v, 0);
    EXPECT_EQ(d.position, 34u);
}

TEST_F(Int64, ReaderRefusesOffsetsAboveTheSpan)
{
    const struct {
        const char* name;
        std::int64_t max;
        byte_vector data;
    } cases[] = {
        {"[0, 2^32] -> 33 bits; offset 2^32 + 1: low 32 = 1, high bit = 1", std::int64_t{1} << 32,
         {0x01, 0x00, 0x00, 0x00, 0x01}},
        {"[0, 2^40] -> 41 bits; offset 2^41 - 1 (all ones)", std::int64_t{1} << 40,
         {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        std::int64_t v = 0;
        const auto d = decode(c.data, [&](auto& s) { return s.serialize_int64(v, 0, c.max); });
        EXPECT_EQ(d.status.code(), error::out_of_range);
    }
}

TEST_F(Int64, WriterRefusesAValueOutsideTheRange)
{
    for (std::int64_t bad : {std::int64_t{-1}, (std::int64_t{1} << 40) + 1, int64_max, int64_min}) {
        const auto e = encode([&](auto& s) {
            std::int64_t v = bad;
            return s.serialize_int64(v, 0, std::int64_t{1} << 40);
        });
        EXPECT_EQ(e.code, error::value_out_of_range) << bad;
        EXPECT_EQ(e.bits, 0u) << bad;
    }
}

TEST_F(Int64, DegenerateRangeIsZeroBitsBothWays)
{
    const auto e = encode([](auto& s) {
        std::int64_t v = int64_min;
        return s.serialize_int64(v, int64_min, int64_min);
    });
    EXPECT_TRUE(e.ok);
    EXPECT_EQ(e.bits, 0u);
    std::int64_t v = 0;
    const auto d = decode(byte_vector{}, [&](auto& s) { return s.serialize_int64(v, int64_max, int64_max); });
    EXPECT_TRUE(d.status.ok());
    EXPECT_EQ(v, int64_max);
}

// ===========================================================================
// ranged offset (the core of every ranged integer)
// ===========================================================================

TEST_F(RangedOffset, OffsetIsWrittenInTheBitLengthOfTheSpan)
{
    // offset 5 of span 7 -> 3 bits 101; offset 2^40 of span 2^40 -> 41 bits, bit 40 at byte 5 bit 3
    // (3 + 40 = 43 = 5 * 8 + 3)
    const auto e = encode([](auto& s) {
        std::uint64_t a = 5, b = std::uint64_t{1} << 40;
        return s.serialize_ranged_offset(a, 7) && s.serialize_ranged_offset(b, std::uint64_t{1} << 40);
    });
    EXPECT_EQ(e.bits, 44u);
    EXPECT_EQ(e.data, (byte_vector{0x05, 0x00, 0x00, 0x00, 0x00, 0x08}));
}

TEST_F(RangedOffset, ZeroSpanIsZeroBits)
{
    const auto e = encode([](auto& s) {
        std::uint64_t v = 0;
        return s.serialize_ranged_offset(v, 0);
    });
    EXPECT_TRUE(e.ok);
    EXPECT_EQ(e.bits, 0u);
}

TEST_F(RangedOffset, ReaderRefusesAnOffsetAboveTheSpan)
{
    std::uint64_t v = 0;
    const auto d = decode(byte_vector{0x05}, [&](auto& s) { return s.serialize_ranged_offset(v, 4); });
    EXPECT_EQ(d.status.code(), error::out_of_range);
}

TEST_F(RangedOffset, WriterRefusesAnOffsetAboveTheSpan)
{
    const auto e = encode([](auto& s) {
        std::uint64_t v = 5;
        return s.serialize_ranged_offset(v, 4);
    });
    EXPECT_EQ(e.code, error::value_out_of_range);
    EXPECT_EQ(e.bits, 0u);
}

// ===========================================================================
// int_relative (section 4)
// ===========================================================================

namespace {
encoded encode_relative(std::int32_t previous, std::int32_t current)
{
    return encode([&](auto& s) {
        std::int32_t c = current;
        return s.serialize_int_relative(previous, c);
    });
}
} // namespace

namespace {
/// One encoding of the tier table: previous and current, the total bits and
/// the bytes the reference's section 3 gives for them.
struct relative_encoding {
    const char* name;
    std::int32_t previous, current;
    std::size_t bits;
    byte_vector data;
};
} // namespace

TEST_F(IntRelative, EachTierIsItsFlagsThenItsPayloadAtTheTiersLowestAndHighestDifference)
{
    const relative_encoding cases[] = {
        {"tier one, d = 1: a single one bit", -50, -49, 1, {0x01}},
        // d = 2: bits 0,1 = 0,1; payload 0 at bits 2-4 -> 0b000'10 = 0x02
        {"tier two, d = 2: flags 0,1 then d - 2 in three bits", -50, -48, 5, {0x02}},
        // d = 6: payload 4 = 0b100 at bits 2-4 -> 0b100'10 = 0x12
        {"tier two, d = 6", -50, -44, 5, {0x12}},
        // d = 7: bit 2 set, payload 0 at bits 3-7 -> 0x04
        {"tier three, d = 7: flags 0,0,1 then d - 7 in five bits", 1000, 1007, 8, {0x04}},
        // d = 23: payload 16 = 0b10000 at bits 3-7 -> bit 7 -> 0x84
        {"tier three, d = 23", 1000, 1023, 8, {0x84}},
        // d = 24: bit 3 set, payload 0 at bits 4-12 -> 08 00
        {"tier four, d = 24: three zeros and a one then d - 24 in nine bits", 0, 24, 13, {0x08, 0x00}},
        // d = 280: payload 256 -> bit 4 + 8 = 12 = byte 1 bit 4 -> 08 10
        {"tier four, d = 280", 0, 280, 13, {0x08, 0x10}},
        // d = 281: bit 4 set, payload 0 at bits 5-17 -> 10 00 00
        {"tier five, d = 281: four zeros and a one then d - 281 in thirteen bits", -7, 274, 18, {0x10, 0x00, 0x00}},
        // d = 4377: payload 4096 = 2^12 -> bit 5 + 12 = 17 = byte 2 bit 1 -> 10 00 02
        {"tier five, d = 4377", -7, 4370, 18, {0x10, 0x00, 0x02}},
        // d = 4378: bit 5 set, payload 0 at bits 6-22 -> 20 00 00
        {"tier six, d = 4378: five zeros and a one then d - 4378 in seventeen bits", 100, 4478, 23, {0x20, 0x00, 0x00}},
        // d = 69914: payload 65536 = 2^16 -> bit 6 + 16 = 22 = byte 2 bit 6 -> 20 00 40
        {"tier six, d = 69914", 100, 70014, 23, {0x20, 0x00, 0x40}},
        // d = 69915 (previous 0): 0x1111B << 6 = 0x44'46C0 -> C0 46 44 00 00
        {"final tier, d = 69915: six zeros then the absolute current in 32 bits", 0, 69915, 38,
         {0xC0, 0x46, 0x44, 0x00, 0x00}},
        // previous -1'000'000, current 5: the payload is 5, not d: 5 << 6 = 0x140 -> 40 01 00 00 00
        {"final tier sends current, not d", -1000000, 5, 38, {0x40, 0x01, 0x00, 0x00, 0x00}},
    };
    for (const relative_encoding& c : cases) {
        SCOPED_TRACE(c.name);
        const auto e = encode_relative(c.previous, c.current);
        EXPECT_EQ(e.bits, c.bits);
        EXPECT_EQ(e.data, c.data);
    }
}

TEST_F(IntRelative, TotalBitsPerTierAreOneFiveEightThirteenEighteenTwentyThreeAndThirtyEight)
{
    struct tier {
        std::int32_t low_d, high_d;
        std::size_t bits;
    };
    const tier tiers[] = {{1, 1, 1},         {2, 6, 5},           {7, 23, 8},           {24, 280, 13},
                          {281, 4377, 18},   {4378, 69914, 23},   {69915, 1 << 30, 38}};
    for (const tier& t : tiers) {
        for (std::int32_t d : {t.low_d, t.high_d}) {
            EXPECT_EQ(encode_relative(-3, -3 + d).bits, t.bits) << "d = " << d;
            EXPECT_EQ(measure([&](auto& s) {
                          std::int32_t c = -3 + d;
                          return s.serialize_int_relative(-3, c);
                      }).bits,
                      t.bits)
                << "d = " << d;
        }
    }
}

TEST_F(IntRelative, ReaderRecoversEveryTierBoundary)
{
    struct vector {
        std::int32_t previous, current;
        byte_vector data;
    };
    const vector vectors[] = {
        {-50, -49, {0x01}},       {-50, -48, {0x02}},       {-50, -44, {0x12}},       {1000, 1007, {0x04}},
        {1000, 1023, {0x84}},     {0, 24, {0x08, 0x00}},    {0, 280, {0x08, 0x10}},   {-7, 274, {0x10, 0x00, 0x00}},
        {-7, 4370, {0x10, 0x00, 0x02}}, {100, 4478, {0x20, 0x00, 0x00}}, {100, 70014, {0x20, 0x00, 0x40}},
        {0, 69915, {0xC0, 0x46, 0x44, 0x00, 0x00}}, {-1000000, 5, {0x40, 0x01, 0x00, 0x00, 0x00}},
    };
    for (const vector& v : vectors) {
        std::int32_t current = 0;
        const auto d = decode(v.data, [&](auto& s) { return s.serialize_int_relative(v.previous, current); });
        EXPECT_TRUE(d.status.ok()) << v.current << ": " << d.status.message();
        EXPECT_EQ(current, v.current);
    }
}

TEST_F(IntRelative, TierTwoPayloadOffsetsFiveToSevenAreRefused)
{
    // flags 0,1 then offsets 5, 6, 7 at bits 2-4: 0b101'10 = 0x16, 0b110'10 = 0x1A, 0b111'10 = 0x1E
    for (std::uint8_t raw : {std::uint8_t{0x16}, std::uint8_t{0x1A}, std::uint8_t{0x1E}}) {
        std::int32_t current = 0;
        const auto d = decode(byte_vector{raw}, [&](auto& s) { return s.serialize_int_relative(0, current); });
        EXPECT_EQ(d.status.code(), error::out_of_range) << int{raw};
    }
}

TEST_F(IntRelative, EveryTierPayloadAboveItsRangeIsRefused)
{
    struct tier {
        int flags;        // number of zero flags before the one
        int payload_bits; // bits_required(min, max)
        std::uint64_t span;
    };
    const tier tiers[] = {{2, 5, 16}, {3, 9, 256}, {4, 13, 4096}, {5, 17, 65536}};
    for (const tier& t : tiers) {
        for (std::uint64_t offset : {t.span, t.span + 1, (std::uint64_t{1} << t.payload_bits) - 1}) {
            const byte_vector data = pack({{0, t.flags}, {1, 1}, {offset, t.payload_bits}});
            std::int32_t current = 0;
            const auto d = decode(data, [&](auto& s) { return s.serialize_int_relative(0, current); });
            if (offset <= t.span) {
                EXPECT_TRUE(d.status.ok()) << "tier with " << t.flags << " zero flags, offset " << offset;
            } else {
                EXPECT_EQ(d.status.code(), error::out_of_range) << "tier with " << t.flags << " zero flags, offset "
                                                                << offset;
            }
        }
    }
}

TEST_F(IntRelative, FinalTierCurrentNotAbovePreviousIsRefused)
{
    // previous 100; current 100: 100 << 6 = 0x1900 -> 00 19 00 00 00; current 99: 0x18C0 -> C0 18 00 00 00
    for (const byte_vector& data : {byte_vector{0x00, 0x19, 0x00, 0x00, 0x00}, byte_vector{0xC0, 0x18, 0x00, 0x00, 0x00}}) {
        std::int32_t current = 0;
        const auto d = decode(data, [&](auto& s) { return s.serialize_int_relative(100, current); });
        EXPECT_EQ(d.status.code(), error::out_of_range);
    }
    // previous -5, current -6 (0xFFFFFFFA): below previous whether compared signed or unsigned
    std::int32_t current = 0;
    const auto d = decode(pack({{0, 6}, {0xFFFFFFFA, 32}}),
                          [&](auto& s) { return s.serialize_int_relative(-5, current); });
    EXPECT_EQ(d.status.code(), error::out_of_range);
}

TEST_F(IntRelative, FinalTierAcceptsAnyCurrentAbovePreviousEvenASmallDifference)
{
    // previous 100, current 101 sent in the final tier: 101 << 6 = 0x1940 -> 40 19 00 00 00
    std::int32_t current = 0;
    const auto d = decode(byte_vector{0x40, 0x19, 0x00, 0x00, 0x00},
                          [&](auto& s) { return s.serialize_int_relative(100, current); });
    EXPECT_TRUE(d.status.ok()) << d.status.message();
    EXPECT_EQ(current, 101);
    EXPECT_EQ(d.position, 38u);
}

TEST_F(IntRelative, WriterRefusesCurrentNotAbovePrevious)
{
    auto e = encode_relative(10, 10);
    EXPECT_EQ(e.code, error::value_out_of_range);
    e = encode_relative(10, 9);
    EXPECT_EQ(e.code, error::value_out_of_range);
    EXPECT_EQ(e.bits, 0u);
}

// ===========================================================================
// float, double (section 5)
// ===========================================================================

namespace {
const std::uint32_t float_patterns[] = {
    0x3F800000, // 1.0f
    0x7FC00000, // canonical quiet NaN
    0x7FC00001, // quiet NaN with payload
    0xFFC12345, // negative quiet NaN with payload
    0x7FFFFFFF, // all-ones payload
    0x7F800001, // signalling NaN
    0x7FA00000, // signalling NaN
    0xFF800001, // negative signalling NaN
    0x7F800000, // +inf
    0xFF800000, // -inf
    0x80000000, // -0
    0x00000001, // smallest subnormal
    0x807FFFFF, // largest negative subnormal
    0x00400000, // subnormal
    0x7F7FFFFF, // largest finite
};
const std::uint64_t double_patterns[] = {
    0x3FF0000000000000, // 1.0
    0x7FF8000000000000, // canonical quiet NaN
    0x7FF8000000000001, // quiet NaN with payload
    0xFFF8DEADBEEF0001, // negative quiet NaN with payload
    0x7FF0000000000001, // signalling NaN
    0x7FF4000000000000, // signalling NaN
    0x7FF0000000000000, // +inf
    0xFFF0000000000000, // -inf
    0x8000000000000000, // -0
    0x0000000000000001, // smallest subnormal
    0x800FFFFFFFFFFFFF, // largest negative subnormal
    0x7FEFFFFFFFFFFFFF, // largest finite
};
} // namespace

namespace {
/// 1.0 as a float or a double, after a true bit or not, and the bits and
/// bytes written.
struct real_encoding {
    const char* name;
    bool as_double;
    bool leading_true;
    std::size_t bits;
    byte_vector data;
};

template <class Stream>
bool serialize_real(Stream& s, float& v)
{
    return s.serialize_float(v);
}
template <class Stream>
bool serialize_real(Stream& s, double& v)
{
    return s.serialize_double(v);
}

/// Each pattern is written as its bytes, low byte first, and read back bit
/// for bit.
template <class Real, class Pattern, std::size_t N>
void expect_every_pattern_verbatim(const Pattern (&patterns)[N])
{
    for (const Pattern pattern : patterns) {
        SCOPED_TRACE(::testing::Message() << std::hex << pattern);
        const auto e = encode([&](auto& s) {
            Real v = std::bit_cast<Real>(pattern);
            return serialize_real(s, v);
        });
        byte_vector expected;
        for (std::size_t i = 0; i < sizeof(Pattern); ++i)
            expected.push_back(static_cast<std::uint8_t>(pattern >> (8 * i)));
        EXPECT_EQ(e.data, expected);
        Real v = 0;
        const auto d = decode(expected, [&](auto& s) { return serialize_real(s, v); });
        EXPECT_TRUE(d.status.ok());
        EXPECT_EQ(bits_of(v), pattern);
    }
}
} // namespace

TEST_F(FloatAndDouble, AreTheirBinaryPatternsLow32BitsFirstAndNotAligned)
{
    const real_encoding cases[] = {
        // 1.0f = 0x3F800000 -> 00 00 80 3F
        {"a float is the binary32 pattern as one 32-bit group", false, false, 32, {0x00, 0x00, 0x80, 0x3F}},
        // true at bit 0, 0x3F800000 at bits 1-32: 1 | 0x3F800000 << 1 = 0x7F000001 -> 01 00 00 7F 00
        {"a float at an odd offset is not aligned", false, true, 33, {0x01, 0x00, 0x00, 0x7F, 0x00}},
        // 1.0 = 0x3FF0'0000'0000'0000 -> 00 00 00 00 00 00 F0 3F
        {"a double is the binary64 pattern, low 32 bits first", true, false, 64,
         {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF0, 0x3F}},
        // true at bit 0: 1 | 0x3FF0'0000'0000'0000 << 1 = 0x7FE0'0000'0000'0001 (bit 64 = 0)
        {"a double at an odd offset is one contiguous 64-bit field", true, true, 65,
         {0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0xE0, 0x7F, 0x00}},
    };
    for (const real_encoding& c : cases) {
        SCOPED_TRACE(c.name);
        const auto e = encode([&](auto& s) {
            bool b = true;
            float f = 1.0f;
            double d = 1.0;
            return (!c.leading_true || s.serialize_bool(b)) && (c.as_double ? serialize_real(s, d) : serialize_real(s, f));
        });
        EXPECT_TRUE(e.ok);
        EXPECT_EQ(e.bits, c.bits);
        EXPECT_EQ(e.data, c.data);
    }
}

TEST_F(Float, EverySpecialPatternIsWrittenVerbatimAndReadBackBitExactly)
{
    expect_every_pattern_verbatim<float>(float_patterns);
}

TEST_F(Double, EverySpecialPatternIsWrittenVerbatimAndReadBackBitExactly)
{
    expect_every_pattern_verbatim<double>(double_patterns);
}

TEST_F(Float, ReaderAcceptsEveryRandomPatternBitExactly)
{
    std::mt19937_64 rng(0xF10A7);
    for (int i = 0; i < 5000; ++i) {
        const auto pattern = static_cast<std::uint32_t>(rng());
        float v = 0.0f;
        const auto d = decode(pack({{pattern, 32}}), [&](auto& s) { return s.serialize_float(v); });
        ASSERT_TRUE(d.status.ok()) << std::hex << pattern;
        ASSERT_EQ(bits_of(v), pattern);
    }
}

// ===========================================================================
// compressed_float (section 6)
// ===========================================================================

namespace {
encoded encode_compressed(float value, float min, float max, float resolution)
{
    return encode([&](auto& s) {
        float v = value;
        return s.serialize_compressed_float(v, min, max, resolution);
    });
}

/// The quantum written for one value, read back as raw bits (2 bytes at most here).
std::uint32_t written_quantum(const encoded& e)
{
    std::uint32_t q = 0;
    for (std::size_t i = 0; i < e.data.size(); ++i)
        q |= static_cast<std::uint32_t>(e.data[i]) << (8 * i);
    return q;
}

struct discriminating_row {
    float value;
    std::uint32_t conformant, in_double, fused;
};
// Reference section 6, [0, 10] at 0.01 (max_integer_value 1000, 10 bits).
const discriminating_row discriminating_table[] = {
    {0.005f, 1, 0, 0}, {0.025f, 3, 2, 3}, {0.105f, 11, 10, 11}, {9.995f, 1000, 999, 1000}, {2.5f, 250, 250, 250},
};
} // namespace

TEST_F(CompressedFloat, ZeroToTenAtOneHundredthIsTenBits)
{
    // values = 10 / 0.01f = 1000 (float32), ceil 1000, bit length 10
    EXPECT_EQ(encode_compressed(5.0f, 0.0f, 10.0f, 0.01f).bits, 10u);
    EXPECT_EQ(measure([](auto& s) {
                  float v = 5.0f;
                  return s.serialize_compressed_float(v, 0.0f, 10.0f, 0.01f);
              }).bits,
              10u);
}

TEST_F(CompressedFloat, MinusHundredToHundredAtOneHundredthIsFifteenBits)
{
    // values = 200 / 0.01f = 20000, bit length 15
    EXPECT_EQ(encode_compressed(5.0f, -100.0f, 100.0f, 0.01f).bits, 15u);
}

TEST_F(CompressedFloat, DiscriminatingTableQuantizesWithTwoSeparateFloat32Roundings)
{
    for (const discriminating_row& row : discriminating_table) {
        const auto e = encode_compressed(row.value, 0.0f, 10.0f, 0.01f);
        // q in 10 bits, little-endian over 2 bytes: q & 0xFF, q >> 8
        const byte_vector expected{static_cast<std::uint8_t>(row.conformant & 0xFF),
                                   static_cast<std::uint8_t>(row.conformant >> 8)};
        EXPECT_EQ(e.bits, 10u);
        EXPECT_EQ(e.data, expected) << row.value;
        EXPECT_EQ(written_quantum(e), row.conformant) << row.value;
    }
}

TEST_F(CompressedFloat, DiscriminatingTableSeparatesConformantFromDoubleAndFusedArithmetic)
{
    // Recomputes the table's three columns so that the golden test above is
    // known to catch both forbidden arithmetics.
    for (const discriminating_row& row : discriminating_table) {
        const float n = f32(f32(row.value - 0.0f) / 10.0f); // step 1, shared by all three
        // Multiply and +0.5 in double. (n * 1000 is exact in double, so even a
        // contracted double multiply-add gives the same result.)
        const auto in_double = static_cast<std::uint32_t>(std::floor(static_cast<double>(n) * 1000.0 + 0.5));
        // One float32 fused multiply-add: a single rounding.
        const auto fused = static_cast<std::uint32_t>(std::floor(std::fma(n, 1000.0f, 0.5f)));
        const auto conformant = oracle::quantizer(0.0f, 10.0f, 0.01f).quantize(row.value);
        EXPECT_EQ(conformant, row.conformant) << row.value;
        EXPECT_EQ(in_double, row.in_double) << row.value;
        EXPECT_EQ(fused, row.fused) << row.value;
        if (row.value != 2.5f) {
            EXPECT_TRUE(in_double != row.conformant || fused != row.conformant) << row.value;
        }
    }
    // Between them, the rows catch each forbidden arithmetic at least once.
    EXPECT_NE(discriminating_table[0].in_double, discriminating_table[0].conformant);
    EXPECT_NE(discriminating_table[0].fused, discriminating_table[0].conformant);
}

TEST_F(CompressedFloat, NonZeroMinIsSubtractedBeforeScaling)
{
    // [-100, 100] at 0.01 (20000, 15 bits): -100 -> 0; 0 -> n 0.5 -> 10000 = 0x2710 -> 10 27;
    // 100 -> 20000 = 0x4E20 -> 20 4E
    EXPECT_EQ(encode_compressed(-100.0f, -100.0f, 100.0f, 0.01f).data, (byte_vector{0x00, 0x00}));
    EXPECT_EQ(encode_compressed(0.0f, -100.0f, 100.0f, 0.01f).data, (byte_vector{0x10, 0x27}));
    EXPECT_EQ(encode_compressed(100.0f, -100.0f, 100.0f, 0.01f).data, (byte_vector{0x20, 0x4E}));
}

TEST_F(CompressedFloat, OutOfRangeInputsIncludingInfinitySaturate)
{
    // [0, 10] at 0.01: n clamps to [0, 1] -> q 0 (00 00) or 1000 (E8 03)
    EXPECT_EQ(encode_compressed(11.0f, 0.0f, 10.0f, 0.01f).data, (byte_vector{0xE8, 0x03}));
    EXPECT_EQ(encode_compressed(-1.0f, 0.0f, 10.0f, 0.01f).data, (byte_vector{0x00, 0x00}));
    EXPECT_EQ(encode_compressed(float_inf, 0.0f, 10.0f, 0.01f).data, (byte_vector{0xE8, 0x03}));
    EXPECT_EQ(encode_compressed(-float_inf, 0.0f, 10.0f, 0.01f).data, (byte_vector{0x00, 0x00}));
    EXPECT_EQ(encode_compressed(std::numeric_limits<float>::max(), 0.0f, 10.0f, 0.01f).data,
              (byte_vector{0xE8, 0x03}));
    EXPECT_EQ(encode_compressed(-std::numeric_limits<float>::max(), 0.0f, 10.0f, 0.01f).data,
              (byte_vector{0x00, 0x00}));
}

TEST_F(CompressedFloat, NanIsRefusedOnWriteWithValueOutOfRange)
{
    for (std::uint32_t nan : {0x7FC00000u, 0xFFC00001u, 0x7F800001u}) {
        const auto e = encode_compressed(std::bit_cast<float>(nan), 0.0f, 10.0f, 0.01f);
        EXPECT_FALSE(e.ok);
        EXPECT_EQ(e.code, error::value_out_of_range) << std::hex << nan;
        EXPECT_EQ(e.bits, 0u);
    }
}

TEST_F(CompressedFloat, FewerQuantaThanOneClampToOneQuantumInOneBit)
{
    // [0, 1] at 10: values = 0.1 -> clamped to 1 -> max_integer_value 1 -> 1 bit.
    // 0.6: p = 0.6, s = 1.1 -> q 1; 0.4: s = 0.9 -> q 0
    auto e = encode_compressed(0.6f, 0.0f, 1.0f, 10.0f);
    EXPECT_EQ(e.bits, 1u);
    EXPECT_EQ(e.data, (byte_vector{0x01}));
    e = encode_compressed(0.4f, 0.0f, 1.0f, 10.0f);
    EXPECT_EQ(e.bits, 1u);
    EXPECT_EQ(e.data, (byte_vector{0x00}));
}

TEST_F(CompressedFloat, MoreQuantaThanFloat32CanCountClampTo4294967040In32Bits)
{
    // [0, 1e9] at 1e-3: values ~ 1e12 -> clamped to 4294967040 = 0xFFFFFF00 -> 32 bits.
    // 1e9: n = 1, p = 4294967040, p + 0.5 rounds back to p -> q = 0xFFFFFF00 -> 00 FF FF FF
    const auto e = encode_compressed(1e9f, 0.0f, 1e9f, 1e-3f);
    EXPECT_EQ(e.bits, 32u);
    EXPECT_EQ(e.data, (byte_vector{0x00, 0xFF, 0xFF, 0xFF}));
}

TEST_F(CompressedFloat, DecodeIsThreeFloat32RoundingsBitExact)
{
    // [0, 10]: n = q / 1000, p = n * 10, value = p + 0 (each rounded to float32)
    struct vector {
        std::uint32_t q;
        float expected;
    };
    const vector vectors[] = {
        {3, 0x1.eb852p-6f},    // n = 0x1.89374cp-9, p = 0x1.eb852p-6 (0.0300000012)
        {11, 0x1.c28f5cp-4f},  // n = 0x1.6872bp-7, p = 0x1.c28f5cp-4 (0.109999999)
        {250, 2.5f},           // n = 0.25, p = 2.5
        {999, 0x1.3fae14p+3f}, // n = 0x1.ff7ceep-1, p = 0x1.3fae14p+3 (9.98999977)
        {1000, 10.0f},         // n = 1
    };
    for (const vector& v : vectors) {
        float value = -1.0f;
        const auto d = decode(pack({{v.q, 10}}),
                              [&](auto& s) { return s.serialize_compressed_float(value, 0.0f, 10.0f, 0.01f); });
        ASSERT_TRUE(d.status.ok()) << v.q;
        EXPECT_EQ(bits_of(value), bits_of(v.expected)) << v.q << ": got " << std::hexfloat << value;
        EXPECT_EQ(bits_of(value), bits_of(oracle::quantizer(0.0f, 10.0f, 0.01f).dequantize(v.q))) << v.q;
    }
}

TEST_F(CompressedFloat, DecodeWithNonZeroMinRoundsTheProductBeforeAddingMin)
{
    // [-100, 100] at 0.01 (20000, 15 bits): n = q / 20000, p = n * 200 (rounded), value = p + -100.
    // A fused n * 200 + -100 lands one ulp away (last column), so these vectors discriminate.
    struct vector {
        std::uint32_t q;
        float expected, fused;
    };
    const vector vectors[] = {
        // q 384: n = 0x1.3a92a4p-6, p = 0x1.eb852p+1 (3.84), value = -96.16 -> -0x1.80a3d8p+6
        {384, -0x1.80a3d8p+6f, -0x1.80a3d6p+6f},
        // q 591: n = 0x1.e425aep-6, p = 0x1.7a3d7p+2 (5.91), value -> -0x1.785c28p+6
        {591, -0x1.785c28p+6f, -0x1.785c2ap+6f},
        // q 19999: n = 0x1.fff972p-1, p = 0x1.8ffae2p+7 (199.98), value -> 0x1.8ff5c4p+6
        {19999, 0x1.8ff5c4p+6f, 0x1.8ff5c2p+6f},
    };
    for (const vector& v : vectors) {
        float value = 0.0f;
        const auto d = decode(pack({{v.q, 15}}),
                              [&](auto& s) { return s.serialize_compressed_float(value, -100.0f, 100.0f, 0.01f); });
        ASSERT_TRUE(d.status.ok()) << v.q;
        EXPECT_EQ(bits_of(value), bits_of(v.expected)) << v.q << ": got " << std::hexfloat << value;
        // The vector discriminates: the fused decode really is different.
        const float n = f32(static_cast<float>(v.q) / 20000.0f);
        EXPECT_EQ(bits_of(std::fma(n, 200.0f, -100.0f)), bits_of(v.fused)) << v.q;
        EXPECT_NE(bits_of(v.fused), bits_of(v.expected)) << v.q;
    }
}

TEST_F(CompressedFloat, ReaderRefusesAQuantumAboveMaxIntegerValue)
{
    // [0, 10] at 0.01: 10 bits carry up to 1023, but only 0..1000 are quanta
    for (std::uint32_t q : {1001u, 1002u, 1023u}) {
        float value = 0.0f;
        const auto d = decode(pack({{q, 10}}),
                              [&](auto& s) { return s.serialize_compressed_float(value, 0.0f, 10.0f, 0.01f); });
        EXPECT_EQ(d.status.code(), error::out_of_range) << q;
    }
}

TEST_F(CompressedFloat, RandomInputsQuantizeAndDecodeExactlyAsTheReferenceArithmetic)
{
    std::mt19937_64 rng(0xC0F1);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    for (int i = 0; i < 20000; ++i) {
        const float min = (i % 3 == 0) ? 0.0f : f32(unit(rng) * 2000.0f - 1000.0f);
        const float delta = f32(std::pow(10.0f, unit(rng) * 6.0f - 2.0f));
        const float max = f32(min + delta);
        const float resolution = f32(std::pow(10.0f, unit(rng) * 4.0f - 3.0f));
        const oracle::quantizer ref(min, max, resolution);
        // Below 2^23 quanta, p + 0.5 is exact. (For an odd max_integer_value in [2^23, 2^24), the
        // standard's own rounding takes p = max to max + 1, which readers refuse; not round-trippable.)
        if (!(max > min) || ref.max_integer >= (1u << 23))
            continue;
        const float value = f32(min + f32((unit(rng) * 1.2f - 0.1f) * ref.delta));
        const std::uint32_t q = ref.quantize(value);
        const auto e = encode_compressed(value, min, max, resolution);
        ASSERT_TRUE(e.ok);
        ASSERT_EQ(e.bits, static_cast<std::size_t>(ref.bits)) << min << " " << max << " " << resolution;
        ASSERT_EQ(e.data, pack({{q, ref.bits}})) << std::hexfloat << "value " << value << " in [" << min << ", " << max
                                                 << "] at " << resolution;
        float back = 0.0f;
        const auto d = decode(e.data, [&](auto& s) { return s.serialize_compressed_float(back, min, max, resolution); });
        ASSERT_TRUE(d.status.ok());
        ASSERT_EQ(bits_of(back), bits_of(ref.dequantize(q))) << std::hexfloat << "q " << q << " in [" << min
                                                             << ", " << max << "] at " << resolution;
    }
}

TEST_F(CompressedFloat, EveryQuantumOfAQuantizerMarkedExactDecodesToAValueSentAsItself)
{
    // quanta_round_trip (wire/quantize.hpp) is an error bound; this checks
    // it where it claims exactness, quantum by quantum, over ranges of every
    // scale, and that it does not give up on the ordinary ones.
    std::mt19937_64 rng(0x5E771E);
    std::uniform_real_distribution<double> exponent(-4.0, 6.0);
    std::size_t exact_quantizers = 0;
    std::size_t quanta_checked = 0;
    for (int i = 0; i < 400 && quanta_checked < 40'000'000; ++i) {
        const double magnitude = std::pow(10.0, exponent(rng));
        const float min = f32(static_cast<float>((rng() % 2 ? -1.0 : 1.0) * magnitude * (rng() % 3 == 0 ? 0.0 : 1.0)));
        const float width = f32(static_cast<float>(std::pow(10.0, exponent(rng) / 2.0 + 1.0)));
        const float resolution = f32(static_cast<float>(width * std::pow(10.0, -1.0 - std::fmod(exponent(rng) + 4.0, 5.0))));
        const float max = f32(min + width);
        if (!(max > min) || !(resolution > 0.0f))
            continue;
        const auto q = bitrep::quantizer::from_resolution(min, max, resolution);
        if (!q.exact || q.max_integer > (1u << 21))
            continue;
        ++exact_quantizers;
        for (std::uint32_t quantum = 0; quantum <= q.max_integer; ++quantum, ++quanta_checked)
            ASSERT_EQ(q.quantize(q.dequantize(quantum)), quantum)
                << std::hexfloat << "[" << min << ", " << max << "] at " << resolution << ", quantum " << quantum;
    }
    EXPECT_GT(exact_quantizers, 100u);
    EXPECT_TRUE(bitrep::quantizer::from_resolution(-100.0f, 100.0f, 0.01f).exact);
    EXPECT_TRUE(bitrep::quantizer::from_resolution(0.0f, 360.0f, 0.1f).exact);
    EXPECT_TRUE(bitrep::quantizer::from_bits(-0.707106781f, 0.707106781f, 20).exact);
}

TEST_F(CompressedFloat, TheStandardPrimitiveSendsTheStandardsQuantumEvenWhereItIsNotStable)
{
    // Where float32 cannot resolve the range, the annotations send a stable
    // quantum; the standard's own primitive still sends the standard's.
    const auto q = bitrep::quantizer::from_resolution(-100000.0f, 100000.0f, 0.01f);
    ASSERT_FALSE(q.exact);
    std::mt19937_64 rng(9);
    std::uniform_real_distribution<float> any(-100000.0f, 100000.0f);
    std::size_t differing = 0;
    for (int i = 0; i < 20000; ++i) {
        const float value = any(rng);
        const std::uint32_t standard = q.quantize(value);
        ASSERT_EQ(q.stable_quantize(value), q.settle(standard));
        differing += q.stable_quantize(value) != standard ? 1 : 0;
        const auto e = encode([&](auto& s) {
            float v = value;
            return s.serialize_compressed_float(v, -100000.0f, 100000.0f, 0.01f);
        });
        ASSERT_EQ(e.data, pack({{standard, q.bits}}));
    }
    EXPECT_GT(differing, 0u);
}

TEST_F(CompressedFloat, SerializeQuantizedWithAResolutionQuantizerWritesTheSameBytes)
{
    const auto q = bitrep::quantizer::from_resolution(0.0f, 10.0f, 0.01f);
    EXPECT_EQ(q.max_integer, 1000u);
    EXPECT_EQ(q.bits, 10);
    const auto e = encode([&](auto& s) {
        float v = 0.005f;
        return s.serialize_quantized(v, q);
    });
    EXPECT_EQ(e.data, (byte_vector{0x01, 0x00})); // q = 1, as in the discriminating table
}

TEST_F(CompressedFloat, FixedBitQuantizerHasAnEvenQuantumCountSoZeroIsExact)
{
    // bitrep's smallest-three quantizer (docs/formats/wire-format.md section 3): [-1, 1] in 4 bits has
    // max_integer_value 2^4 - 2 = 14. 0.0: n = 1 / 2 = 0.5, p = 7, s = 7.5 -> q 7 = 0b0111;
    // decoded: n = 7 / 14 = 0.5, p = 1, value = 1 + -1 = 0 exactly.
    const auto q = bitrep::quantizer::from_bits(-1.0f, 1.0f, 4);
    EXPECT_EQ(q.max_integer, 14u);
    const auto e = encode([&](auto& s) {
        float v = 0.0f;
        return s.serialize_quantized(v, q);
    });
    EXPECT_EQ(e.bits, 4u);
    EXPECT_EQ(e.data, (byte_vector{0x07}));
    float back = 1.0f;
    const auto d = decode(e.data, [&](auto& s) { return s.serialize_quantized(back, q); });
    ASSERT_TRUE(d.status.ok());
    EXPECT_EQ(bits_of(back), bits_of(0.0f));
}

TEST_F(CompressedFloat, FixedBitQuantizerRefusesTheOneCodeAboveItsQuanta)
{
    const auto q = bitrep::quantizer::from_bits(-1.0f, 1.0f, 4);
    float back = 0.0f;
    const auto d = decode(byte_vector{0x0F}, [&](auto& s) { return s.serialize_quantized(back, q); });
    EXPECT_EQ(d.status.code(), error::out_of_range);
}

// ===========================================================================
// bytes (section 7)
// ===========================================================================

namespace {
/// Bytes written after a true bit or not, and before one or not, and the
/// bits and bytes that come out.
struct bytes_encoding {
    const char* name;
    bool leading_true;
    byte_vector payload;
    bool trailing_true;
    std::size_t bits;
    byte_vector data;
};
} // namespace

TEST_F(Bytes, AlignFirstThenTheBytesVerbatim)
{
    const bytes_encoding cases[] = {
        // true at bit 0, 7 padding bits, then AA BB
        {"after a bit: padding, then the bytes", true, {0xAA, 0xBB}, false, 24, {0x01, 0xAA, 0xBB}},
        {"from an aligned start there is no padding", false, {0x01, 0x02, 0x03}, false, 24, {0x01, 0x02, 0x03}},
        // true at bit 0, bytes(0) pads bits 1-7, true at bit 8 -> 01 01 (9 bits)
        {"a count of zero still aligns", true, {}, true, 9, {0x01, 0x01}},
    };
    for (const bytes_encoding& c : cases) {
        SCOPED_TRACE(c.name);
        const auto e = encode([&](auto& s) {
            bool b = true;
            byte_vector data = c.payload;
            data.push_back(0); // never an empty buffer, as count zero is given one
            return (!c.leading_true || s.serialize_bool(b)) && s.serialize_bytes(data.data(), c.payload.size()) &&
                   (!c.trailing_true || s.serialize_bool(b));
        });
        EXPECT_TRUE(e.ok);
        EXPECT_EQ(e.bits, c.bits);
        EXPECT_EQ(e.data, c.data);
    }
}

TEST_F(Bytes, ReaderCopiesTheBytesAfterThePadding)
{
    bool b = false;
    std::uint8_t data[2] = {0, 0};
    const auto d = decode(byte_vector{0x01, 0xAA, 0xBB},
                          [&](auto& s) { return s.serialize_bool(b) && s.serialize_bytes(data, 2); });
    ASSERT_TRUE(d.status.ok());
    EXPECT_EQ(data[0], 0xAA);
    EXPECT_EQ(data[1], 0xBB);
    EXPECT_EQ(d.position, 24u);
}

TEST_F(Bytes, ReaderWithCountZeroConsumesAndChecksThePadding)
{
    bool a = false, b = false;
    std::uint8_t none[1] = {0};
    auto d = decode(byte_vector{0x01, 0x01},
                    [&](auto& s) { return s.serialize_bool(a) && s.serialize_bytes(none, 0) && s.serialize_bool(b); });
    EXPECT_TRUE(d.status.ok());
    EXPECT_TRUE(b);
    EXPECT_EQ(d.position, 9u);
    d = decode(byte_vector{0x03, 0x01}, [&](auto& s) { return s.serialize_bool(a) && s.serialize_bytes(none, 0); });
    EXPECT_EQ(d.status.code(), error::bad_padding);
}

TEST_F(Bytes, ReaderRefusesEveryNonZeroPaddingBit)
{
    for (int bit = 1; bit <= 7; ++bit) {
        bool b = false;
        std::uint8_t data[1] = {0};
        const auto d = decode(byte_vector{static_cast<std::uint8_t>(0x01 | (1u << bit)), 0xAA},
                              [&](auto& s) { return s.serialize_bool(b) && s.serialize_bytes(data, 1); });
        EXPECT_EQ(d.status.code(), error::bad_padding) << bit;
    }
}

TEST_F(Bytes, ReaderRefusesFewerBytesThanCountAfterAlignment)
{
    bool b = false;
    std::uint8_t data[3] = {0, 0, 0};
    const auto d = decode(byte_vector{0x01, 0xAA, 0xBB},
                          [&](auto& s) { return s.serialize_bool(b) && s.serialize_bytes(data, 3); });
    EXPECT_EQ(d.status.code(), error::truncated);
}

// ===========================================================================
// string (section 7)
// ===========================================================================

namespace {
encoded encode_string(const std::string& text, std::size_t buffer_size, bool leading_true = false)
{
    return encode([&](auto& s) {
        std::string t = text;
        bool b = true;
        return (!leading_true || s.serialize_bool(b)) && s.serialize_string(t, buffer_size);
    });
}

bitrep::status decode_string(const byte_vector& data, std::size_t buffer_size, std::string* out = nullptr)
{
    std::string text = "sentinel";
    const auto d = decode(data, [&](auto& s) { return s.serialize_string(text, buffer_size); });
    if (out)
        *out = text;
    return d.status;
}
} // namespace

namespace {
/// One string encoding: the text, the buffer size (which sets the length's
/// width), whether a true bit comes first, and the bits and bytes written.
struct string_encoding {
    const char* name;
    std::string text;
    std::size_t buffer_size;
    bool leading_true;
    std::size_t bits;
    byte_vector data;
};
} // namespace

TEST_F(String, IsTheLengthInTheBitsOfBufferSizeThenAlignmentThenTheBytes)
{
    const string_encoding cases[] = {
        // length 2 in 5 bits (bits 0-4), 3 padding bits, 'h' = 0x68, 'i' = 0x69
        {"\"hi\" with buffer size 32 is 24 bits", "hi", 32, false, 24, {0x02, 0x68, 0x69}},
        // length 0 in 5 bits, then the alignment of bytes(0): 3 padding bits
        {"empty with buffer size 32 is 8 bits", "", 32, false, 8, {0x00}},
        // After a true bit: buffer 32 -> length 2 at bits 1-5: 1 | 2 << 1 = 0x05, pad 6-7, 68 69
        {"buffer size is part of the format: 32", "hi", 32, true, 24, {0x05, 0x68, 0x69}},
        // buffer 256 -> length 2 in 8 bits at bits 1-8: byte 0 = 0x05, byte 1 bit 0 = 0, pad 9-15, 68 69
        {"buffer size is part of the format: 256", "hi", 256, true, 32, {0x05, 0x00, 0x68, 0x69}},
        // buffer 4 -> length in bits_required(0, 3) = 2 bits: 3 = 0b11, pad 6 bits, 'a' 'b' 'c'
        {"length at the buffer maximum uses all length bits", "abc", 4, false, 32, {0x03, 0x61, 0x62, 0x63}},
    };
    for (const string_encoding& c : cases) {
        SCOPED_TRACE(c.name);
        const auto e = encode_string(c.text, c.buffer_size, c.leading_true);
        EXPECT_EQ(e.bits, c.bits);
        EXPECT_EQ(e.data, c.data);
    }
}

TEST_F(String, BufferSizeOneHasAZeroBitLengthButStillAligns)
{
    auto e = encode_string("", 1);
    EXPECT_EQ(e.bits, 0u);
    e = encode_string("", 1, true);
    EXPECT_EQ(e.bits, 8u);
    EXPECT_EQ(e.data, (byte_vector{0x01}));
}

TEST_F(String, ReaderRecoversTheTextWithoutATerminator)
{
    std::string text;
    ASSERT_TRUE(decode_string(byte_vector{0x02, 0x68, 0x69}, 32, &text).ok());
    EXPECT_EQ(text, "hi");
    EXPECT_EQ(text.size(), 2u);
    ASSERT_TRUE(decode_string(byte_vector{0x00}, 32, &text).ok());
    EXPECT_EQ(text, "");
}

TEST_F(String, ReaderRefusesALengthAboveBufferSizeMinusOne)
{
    // buffer 5 -> 3-bit length, 5..7 exceed the maximum 4
    for (std::uint8_t length : {std::uint8_t{5}, std::uint8_t{6}, std::uint8_t{7}}) {
        byte_vector data(9, 0x61);
        data[0] = length;
        EXPECT_EQ(decode_string(data, 5).code(), error::out_of_range) << int{length};
    }
    // buffer 20 -> 5-bit length, 20..31 exceed 19
    byte_vector data(33, 0x61);
    data[0] = 20;
    EXPECT_EQ(decode_string(data, 20).code(), error::out_of_range);
}

TEST_F(String, ReaderRefusesEveryNonZeroPaddingBit)
{
    // buffer 32: length 2 at bits 0-4, padding bits 5-7
    for (int bit = 5; bit <= 7; ++bit) {
        const byte_vector data{static_cast<std::uint8_t>(0x02 | (1u << bit)), 0x68, 0x69};
        EXPECT_EQ(decode_string(data, 32).code(), error::bad_padding) << bit;
    }
    // the empty string's alignment is checked too
    EXPECT_EQ(decode_string(byte_vector{0x80}, 32).code(), error::bad_padding);
}

TEST_F(String, ReaderRefusesAZeroByteInThePayload)
{
    EXPECT_EQ(decode_string(string256({0x61, 0x00, 0x62}), 256).code(), error::interior_nul);
    EXPECT_EQ(decode_string(string256({0x00}), 256).code(), error::interior_nul);
    EXPECT_EQ(decode_string(string256({0x61, 0x62, 0x00}), 256).code(), error::interior_nul);
}

TEST_F(String, ReaderRefusesPayloadPastTheEnd)
{
    // length 5, only 2 bytes follow
    EXPECT_EQ(decode_string(byte_vector{0x05, 0x61, 0x62}, 256).code(), error::truncated);
    // length 1, nothing follows
    EXPECT_EQ(decode_string(byte_vector{0x01}, 32).code(), error::truncated);
}

TEST_F(String, WriterRefusesAStringLongerThanBufferSizeMinusOne)
{
    const auto e = encode_string("abcd", 4);
    EXPECT_EQ(e.code, error::value_out_of_range);
    EXPECT_EQ(e.bits, 0u);
}

TEST_F(String, WriterRefusesAnInteriorNul)
{
    const auto e = encode_string(std::string("a\0b", 3), 32);
    EXPECT_EQ(e.code, error::interior_nul);
    EXPECT_EQ(e.bits, 0u);
}

TEST_F(String, WriterFindsAZeroOrNonAsciiByteAtEveryPositionOfEveryLength)
{
    // The check reads the text a word at a time, the last word overlapping:
    // every position of every length up to three words is seen.
    for (std::size_t length = 1; length <= 24; ++length) {
        for (std::size_t at = 0; at < length; ++at) {
            std::string text(length, 'a');
            text[at] = '\0';
            EXPECT_EQ(encode_string(text, 32).code, error::interior_nul) << length << " " << at;
            text[at] = static_cast<char>(0x80); // a lone continuation byte
            EXPECT_EQ(encode_string(text, 32).code, error::bad_utf8) << length << " " << at;
            text[at] = '\x7f';
            EXPECT_TRUE(encode_string(text, 32).code == error::none) << length << " " << at;
        }
    }
}

TEST_F(String, WriterRefusesMalformedUtf8)
{
    for (const std::string& bad : {text_of({0xC0, 0x80}), text_of({0xED, 0xA0, 0x80}), text_of({0x80}),
                                   text_of({0xF4, 0x90, 0x80, 0x80}), text_of({0xE2, 0x82})}) {
        const auto e = encode_string(bad, 32);
        EXPECT_EQ(e.code, error::bad_utf8);
        EXPECT_EQ(e.bits, 0u);
    }
}

// ===========================================================================
// UTF-8 well-formedness on read (section 7)
// ===========================================================================

TEST_F(Utf8, WellFormedOneToFourByteFormsAreAccepted)
{
    const std::vector<byte_vector> good = {
        {0x41},                   // U+0041
        {0x7F},                   // U+007F, last 1-byte form
        {0xC2, 0x80},             // U+0080, first 2-byte form
        {0xC3, 0xA9},             // U+00E9
        {0xDF, 0xBF},             // U+07FF, last 2-byte form
        {0xE0, 0xA0, 0x80},       // U+0800, first 3-byte form
        {0xE2, 0x82, 0xAC},       // U+20AC
        {0xED, 0x9F, 0xBF},       // U+D7FF, just below the surrogates
        {0xEE, 0x80, 0x80},       // U+E000, just above the surrogates
        {0xEF, 0xBF, 0xBF},       // U+FFFF
        {0xF0, 0x90, 0x80, 0x80}, // U+10000, first 4-byte form
        {0xF0, 0x9F, 0x98, 0x80}, // U+1F600
        {0xF4, 0x8F, 0xBF, 0xBF}, // U+10FFFF, the last code point
        {0x68, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80, 0x21}, // mixed
    };
    for (const auto& payload : good) {
        std::string text;
        const auto st = decode_string(string256(payload), 256, &text);
        EXPECT_TRUE(st.ok()) << st.message() << " for lead byte " << std::hex << int{payload.front()};
        EXPECT_EQ(text, std::string(payload.begin(), payload.end()));
    }
}

TEST_F(Utf8, OverlongFormsAreRefused)
{
    const std::vector<byte_vector> overlong = {{0xC0, 0x80},       {0xC1, 0xBF},       {0xE0, 0x80, 0x80},
                                               {0xE0, 0x9F, 0xBF}, {0xF0, 0x80, 0x80, 0x80}, {0xF0, 0x8F, 0xBF, 0xBF}};
    for (const byte_vector& payload : overlong)
        EXPECT_EQ(decode_string(string256(payload), 256).code(), error::bad_utf8) << std::hex << int{payload.front()};
}

TEST_F(Utf8, SurrogateCodePointsAreRefused)
{
    const std::vector<byte_vector> surrogates = {{0xED, 0xA0, 0x80}, {0xED, 0xBF, 0xBF}, {0xED, 0xB0, 0x80}};
    for (const byte_vector& payload : surrogates)
        EXPECT_EQ(decode_string(string256(payload), 256).code(), error::bad_utf8);
}

TEST_F(Utf8, CodePointsAboveU10FFFFAreRefused)
{
    const std::vector<byte_vector> too_large = {{0xF4, 0x90, 0x80, 0x80}, {0xF4, 0xBF, 0xBF, 0xBF}};
    for (const byte_vector& payload : too_large)
        EXPECT_EQ(decode_string(string256(payload), 256).code(), error::bad_utf8);
}

TEST_F(Utf8, TruncatedSequencesAreRefused)
{
    const std::vector<byte_vector> truncated = {{0xC3},       {0xE2, 0x82},       {0xF0, 0x9F, 0x98},
                                                {0x41, 0xE2}, {0xC3, 0x41},       {0xE2, 0x82, 0x41},
                                                {0xF0, 0x9F, 0x98, 0x41}};
    for (const byte_vector& payload : truncated)
        EXPECT_EQ(decode_string(string256(payload), 256).code(), error::bad_utf8);
}

TEST_F(Utf8, StrayContinuationBytesAreRefused)
{
    const std::vector<byte_vector> stray = {{0x80}, {0xBF}, {0x41, 0x80}, {0xC3, 0xA9, 0xA9}};
    for (const byte_vector& payload : stray)
        EXPECT_EQ(decode_string(string256(payload), 256).code(), error::bad_utf8);
}

TEST_F(Utf8, InvalidLeadBytesF5ToFFAreRefused)
{
    for (unsigned lead = 0xF5; lead <= 0xFF; ++lead) {
        const auto b = static_cast<std::uint8_t>(lead);
        EXPECT_EQ(decode_string(string256({b, 0x80, 0x80, 0x80}), 256).code(), error::bad_utf8) << std::hex << lead;
        EXPECT_EQ(decode_string(string256({b}), 256).code(), error::bad_utf8) << std::hex << lead;
    }
}

// ===========================================================================
// Trailing bits (section 9)
// ===========================================================================

TEST_F(TrailingBits, NonZeroTrailingBitsOfTheLastByteAreNeverExamined)
{
    // bool true, int 5 of [0, 7] at bits 0-3; bits 4-7 set: 0xF0 | 0x0B = 0xFB
    bool b = false;
    std::int32_t v = 0;
    auto d = decode(byte_vector{0xFB}, [&](auto& s) { return s.serialize_bool(b) && s.serialize_int(v, 0, 7); });
    EXPECT_TRUE(d.status.ok());
    EXPECT_TRUE(b);
    EXPECT_EQ(v, 5);
    // int_relative tier 2, d = 2 (bits 0-4 = 0x02), bits 5-7 set
    std::int32_t current = 0;
    d = decode(byte_vector{0xE2}, [&](auto& s) { return s.serialize_int_relative(10, current); });
    EXPECT_TRUE(d.status.ok());
    EXPECT_EQ(current, 12);
    // compressed float q = 1 in 10 bits, bits 10-15 set
    float f = 0.0f;
    d = decode(byte_vector{0x01, 0xFC}, [&](auto& s) { return s.serialize_compressed_float(f, 0.0f, 10.0f, 0.01f); });
    EXPECT_TRUE(d.status.ok());
    EXPECT_EQ(bits_of(f), bits_of(oracle::quantizer(0.0f, 10.0f, 0.01f).dequantize(1)));
}

TEST_F(TrailingBits, WholeBytesLeftOverAreNotAPrimitiveRefusal)
{
    bool b = false;
    const auto d = decode(byte_vector{0x01, 0xFF, 0xFF}, [&](auto& s) { return s.serialize_bool(b); });
    EXPECT_TRUE(d.status.ok());
    EXPECT_TRUE(b);
}

// ===========================================================================
// Truncation: every primitive refuses to read past the end (section 9)
// ===========================================================================

namespace {
struct primitive_case {
    const char* name;
    std::function<bool(bitrep::write_stream&)> write;
    std::function<bool(bitrep::read_stream&)> read;
};

void PrintTo(const primitive_case& c, std::ostream* os)
{
    *os << c.name;
}

template <class Op>
primitive_case make_case(const char* name, Op op)
{
    return {name, op, op};
}

std::vector<primitive_case> truncation_cases()
{
    auto relative = [](const char* name, std::int32_t current) {
        return make_case(name, [current](auto& s) {
            std::int32_t c = current;
            return s.serialize_int_relative(1000, c);
        });
    };
    return {
        make_case("Bits1", [](auto& s) { std::uint32_t v = 1; return s.serialize_bits(v, 1); }),
        make_case("Bits17", [](auto& s) { std::uint32_t v = 0x1ABCD; return s.serialize_bits(v, 17); }),
        make_case("Bits32", [](auto& s) { std::uint32_t v = 0xDEADBEEF; return s.serialize_bits(v, 32); }),
        make_case("Bits33", [](auto& s) { std::uint64_t v = 0x1DEADBEEF; return s.serialize_bits(v, 33); }),
        make_case("Bits64", [](auto& s) { std::uint64_t v = 0xFEEDFACECAFEBEEF; return s.serialize_bits(v, 64); }),
        make_case("Bool", [](auto& s) { bool v = true; return s.serialize_bool(v); }),
        make_case("IntZeroToSeven", [](auto& s) { std::int32_t v = 5; return s.serialize_int(v, 0, 7); }),
        make_case("IntFullRange", [](auto& s) { std::int32_t v = -7; return s.serialize_int(v, int32_min, int32_max); }),
        make_case("Int64FortyOneBits",
                  [](auto& s) { std::int64_t v = 0x0123456789; return s.serialize_int64(v, 0, std::int64_t{1} << 40); }),
        make_case("Int64FullRange", [](auto& s) { std::int64_t v = -7; return s.serialize_int64(v, int64_min, int64_max); }),
        make_case("RangedOffset",
                  [](auto& s) { std::uint64_t v = 12345; return s.serialize_ranged_offset(v, std::uint64_t{1} << 40); }),
        relative("IntRelativeTier1", 1001),
        relative("IntRelativeTier2", 1005),
        relative("IntRelativeTier3", 1020),
        relative("IntRelativeTier4", 1200),
        relative("IntRelativeTier5", 4000),
        relative("IntRelativeTier6", 60000),
        relative("IntRelativeFinalTier", 5000000),
        make_case("Float", [](auto& s) { float v = -1.5f; return s.serialize_float(v); }),
        make_case("Double", [](auto& s) { double v = -1.5; return s.serialize_double(v); }),
        make_case("CompressedFloat",
                  [](auto& s) { float v = 2.5f; return s.serialize_compressed_float(v, 0.0f, 10.0f, 0.01f); }),
        make_case("CompressedFloatNonZeroMin",
                  [](auto& s) { float v = 2.5f; return s.serialize_compressed_float(v, -100.0f, 100.0f, 0.01f); }),
        make_case("Bytes", [](auto& s) { std::uint8_t d[3] = {1, 2, 3}; return s.serialize_bytes(d, 3); }),
        make_case("String", [](auto& s) { std::string t = "hi"; return s.serialize_string(t, 32); }),
        make_case("EmptyString", [](auto& s) { std::string t; return s.serialize_string(t, 32); }),
        make_case("Utf8String", [](auto& s) { std::string t = "h\xC3\xA9llo"; return s.serialize_string(t, 256); }),
    };
}
} // namespace

class Truncated : public conformance, public ::testing::WithParamInterface<primitive_case> {};

// (align alone cannot run past the end: streams are whole bytes, so its padding always fits.)
TEST_P(Truncated, RefusedWhenFewerBitsRemainThanTheEncodingNeedsFromEveryStartingBit)
{
    const primitive_case& c = GetParam();
    for (int lead = 0; lead <= 7; ++lead) {
        const auto e = encode([&](bitrep::write_stream& s) {
            std::uint32_t zero = 0;
            return (lead == 0 || s.serialize_bits(zero, lead)) && c.write(s);
        });
        ASSERT_TRUE(e.ok);
        // The whole encoding reads back.
        EXPECT_TRUE(decode_after(e.data, lead, [&](bitrep::read_stream& s) { return c.read(s); }).ok()) << lead;
        // Every shorter prefix that still holds the leading bits is refused as truncated.
        for (std::size_t size = (static_cast<std::size_t>(lead) + 7) / 8; size < e.data.size(); ++size) {
            const byte_vector prefix(e.data.begin(), e.data.begin() + static_cast<std::ptrdiff_t>(size));
            const auto st = decode_after(prefix, lead, [&](bitrep::read_stream& s) { return c.read(s); });
            EXPECT_EQ(st.code(), error::truncated) << "lead " << lead << ", " << size << " of " << e.data.size()
                                                   << " bytes";
        }
    }
}

INSTANTIATE_TEST_SUITE_P(EveryPrimitive, Truncated, ::testing::ValuesIn(truncation_cases()),
                         [](const ::testing::TestParamInfo<primitive_case>& info) { return std::string(info.param.name); });

// ===========================================================================
// The recorded error's bit offset is the start of the failing primitive.
// Each vector starts with 3 zero bits, so the primitive starts at bit 3.
// ===========================================================================

namespace {
/// A reader refusal: the bytes (3 zero bits, then the failing primitive's),
/// the primitive, and the error it records.
struct refusal_case {
    const char* name;
    byte_vector data;
    std::function<bool(bitrep::read_stream&)> read;
    error code;
};

void PrintTo(const refusal_case& c, std::ostream* os)
{
    *os << c.name;
}

std::vector<refusal_case> refusal_cases()
{
    auto string_of = [](int buffer_size) {
        return [buffer_size](bitrep::read_stream& s) {
            std::string t;
            return s.serialize_string(t, buffer_size);
        };
    };
    return {
        {"IntOutOfRange", pack({{0, 3}, {5, 3}}),
         [](bitrep::read_stream& s) { std::int32_t v = 0; return s.serialize_int(v, 0, 4); }, error::out_of_range},
        {"WideInt64OutOfRange", pack({{0, 3}, {(std::uint64_t{1} << 32) + 1, 33}}),
         [](bitrep::read_stream& s) { std::int64_t v = 0; return s.serialize_int64(v, 0, std::int64_t{1} << 32); },
         error::out_of_range},
        {"CompressedFloatQuantumTooLarge", pack({{0, 3}, {1001, 10}}),
         [](bitrep::read_stream& s) { float v = 0.0f; return s.serialize_compressed_float(v, 0.0f, 10.0f, 0.01f); },
         error::out_of_range},
        {"AlignBadPadding", pack({{0, 3}, {0x10, 5}}), [](bitrep::read_stream& s) { return s.serialize_align(); },
         error::bad_padding},
        {"BytesBadPadding", pack({{0, 3}, {0x10, 5}, {0xAA, 8}}),
         [](bitrep::read_stream& s) { std::uint8_t d[1] = {0}; return s.serialize_bytes(d, 1); }, error::bad_padding},
        {"BytesPastTheEnd", pack({{0, 3}, {0, 5}, {0xAA, 8}}),
         [](bitrep::read_stream& s) { std::uint8_t d[2] = {0, 0}; return s.serialize_bytes(d, 2); }, error::truncated},
        {"PlainBitsPastTheEnd", byte_vector{0x00},
         [](bitrep::read_stream& s) { std::uint32_t v = 0; return s.serialize_bits(v, 6); }, error::truncated},
        // 5 bytes: 37 bits remain after the lead, enough for the low 32 but not the high 32
        {"DoublePastTheEndAfterItsLowHalf", byte_vector(5, 0x00),
         [](bitrep::read_stream& s) { double v = 0.0; return s.serialize_double(v); }, error::truncated},
        {"WideInt64PastTheEndAfterItsLowHalf", byte_vector(5, 0x00),
         [](bitrep::read_stream& s) { std::int64_t v = 0; return s.serialize_int64(v, 0, std::int64_t{1} << 40); },
         error::truncated},
        // flags 0,1 at bits 3-4, offset 5 at bits 5-7
        {"IntRelativePayloadOutOfRange", pack({{0, 3}, {0, 1}, {1, 1}, {5, 3}}),
         [](bitrep::read_stream& s) { std::int32_t c = 0; return s.serialize_int_relative(0, c); }, error::out_of_range},
        {"IntRelativeFinalTierNotAbovePrevious", pack({{0, 3}, {0, 6}, {100, 32}}),
         [](bitrep::read_stream& s) { std::int32_t c = 0; return s.serialize_int_relative(100, c); },
         error::out_of_range},
        // five zero flags fit in bits 3-7; the sixth is past the end
        {"IntRelativePastTheEndInItsFlags", byte_vector{0x00},
         [](bitrep::read_stream& s) { std::int32_t c = 0; return s.serialize_int_relative(0, c); }, error::truncated},
        // buffer 5: 3-bit length 6 at bits 3-5
        {"StringLengthOutOfRange", pack({{0, 3}, {6, 3}, {0, 2}, {0x61616161616161, 56}}), string_of(5),
         error::out_of_range},
        // buffer 16: 4-bit length 2 at bits 3-6, padding bit 7 set, then "hi"
        {"StringBadPadding", pack({{0, 3}, {2, 4}, {1, 1}, {0x68, 8}, {0x69, 8}}), string_of(16), error::bad_padding},
        {"StringInteriorNul", pack({{0, 3}, {2, 4}, {0, 1}, {0x61, 8}, {0x00, 8}}), string_of(16),
         error::interior_nul},
        {"StringBadUtf8", pack({{0, 3}, {1, 4}, {0, 1}, {0x80, 8}}), string_of(16), error::bad_utf8},
        {"StringPayloadPastTheEnd", pack({{0, 3}, {3, 4}, {0, 1}, {0x61, 8}}), string_of(16), error::truncated},
    };
}
} // namespace

class ErrorOffsets : public conformance, public ::testing::WithParamInterface<refusal_case> {};

TEST_P(ErrorOffsets, PointAtTheFailingPrimitive)
{
    const refusal_case& c = GetParam();
    const auto st = decode_after(c.data, 3, c.read);
    EXPECT_EQ(st.code(), c.code);
    EXPECT_EQ(st.bit_offset(), 3u);
    EXPECT_EQ(st.field_path(), "Root");
}

INSTANTIATE_TEST_SUITE_P(EveryRefusal, ErrorOffsets, ::testing::ValuesIn(refusal_cases()),
                         [](const ::testing::TestParamInfo<refusal_case>& info) { return std::string(info.param.name); });

TEST_F(ErrorOffset, FirstFailureIsTheOneRecorded)
{
    // int out of range at bit 0, then a read past the end: the status keeps the first cause
    const byte_vector data{0x07};
    bitrep::read_stream s{input(data)};
    std::int32_t v = 0;
    std::uint32_t more = 0;
    EXPECT_FALSE(s.serialize_int(v, 0, 4));
    EXPECT_FALSE(s.serialize_bits(more, 32));
    EXPECT_EQ(s.failure().to_status("Root").code(), error::out_of_range);
    EXPECT_EQ(s.failure().to_status("Root").bit_offset(), 0u);
}

// ===========================================================================
// write_stream / read_stream accounting and writer refusals
// ===========================================================================

TEST_F(WriteStream, FlushReturnsTheCeilingOfBitsOverEightAndZeroesUnusedBits)
{
    for (std::size_t bits = 0; bits <= 80; ++bits) {
        byte_vector buffer(16, 0xA5);
        bitrep::write_stream s{std::span<std::uint8_t>(buffer)};
        for (std::size_t i = 0; i < bits; ++i) {
            bool b = true;
            ASSERT_TRUE(s.serialize_bool(b));
        }
        EXPECT_EQ(s.position(), bits);
        const std::size_t size = s.flush();
        ASSERT_EQ(size, (bits + 7) / 8) << bits;
        if (bits % 8 != 0) {
            EXPECT_EQ(static_cast<unsigned>(buffer[size - 1]), (1u << (bits % 8)) - 1u) << "unused high bits are zero, " << bits << " bits";
        }
    }
}

TEST_F(WriteStream, PositionCountsBitsWrittenIncludingPadding)
{
    byte_vector buffer(16);
    bitrep::write_stream s{std::span<std::uint8_t>(buffer)};
    bool b = true;
    std::int32_t v = 3;
    EXPECT_EQ(s.position(), 0u);
    ASSERT_TRUE(s.serialize_bool(b));
    EXPECT_EQ(s.position(), 1u);
    ASSERT_TRUE(s.serialize_int(v, 0, 100));
    EXPECT_EQ(s.position(), 8u);
    ASSERT_TRUE(s.serialize_bool(b));
    ASSERT_TRUE(s.serialize_align());
    EXPECT_EQ(s.position(), 16u);
}

TEST_F(WriteStream, FullBufferIsRefusedWithBufferTooSmall)
{
    struct attempt {
        const char* name;
        std::size_t capacity;
        std::function<bool(bitrep::write_stream&)> op;
    };
    const attempt attempts[] = {
        {"bool after 8 bits", 1,
         [](bitrep::write_stream& s) {
             std::uint32_t v = 0xFF;
             bool b = true;
             return s.serialize_bits(v, 8) && s.serialize_bool(b);
         }},
        {"bits 17 into 2 bytes", 2, [](bitrep::write_stream& s) { std::uint32_t v = 0; return s.serialize_bits(v, 17); }},
        {"double into 7 bytes", 7, [](bitrep::write_stream& s) { double v = 1.0; return s.serialize_double(v); }},
        {"float into 3 bytes", 3, [](bitrep::write_stream& s) { float v = 1.0f; return s.serialize_float(v); }},
        {"int64 41 bits into 5 bytes", 5,
         [](bitrep::write_stream& s) { std::int64_t v = 1; return s.serialize_int64(v, 0, std::int64_t{1} << 40); }},
        {"bytes 3 into 2 bytes", 2,
         [](bitrep::write_stream& s) { std::uint8_t d[3] = {1, 2, 3}; return s.serialize_bytes(d, 3); }},
        {"string hi into 2 bytes", 2, [](bitrep::write_stream& s) { std::string t = "hi"; return s.serialize_string(t, 32); }},
        {"anything into 0 bytes", 0, [](bitrep::write_stream& s) { bool b = false; return s.serialize_bool(b); }},
    };
    for (const attempt& a : attempts) {
        const auto e = encode(a.op, a.capacity);
        EXPECT_FALSE(e.ok) << a.name;
        EXPECT_EQ(e.code, error::buffer_too_small) << a.name;
    }
}

TEST_F(WriteStream, ExactlyFullBufferIsAccepted)
{
    const auto e = encode([](bitrep::write_stream& s) { double v = 1.0; return s.serialize_double(v); }, 8);
    EXPECT_TRUE(e.ok);
    EXPECT_EQ(e.data.size(), 8u);
}

TEST_F(ReadStream, PositionCountsBitsReadIncludingPadding)
{
    const byte_vector data{0x0B, 0xFF};
    bitrep::read_stream s{input(data)};
    bool b = false;
    std::int32_t v = 0;
    EXPECT_EQ(s.position(), 0u);
    ASSERT_TRUE(s.serialize_bool(b));
    EXPECT_EQ(s.position(), 1u);
    ASSERT_TRUE(s.serialize_int(v, 0, 7));
    EXPECT_EQ(s.position(), 4u);
    ASSERT_TRUE(s.serialize_align());
    EXPECT_EQ(s.position(), 8u);
    EXPECT_EQ(s.bits_remaining(), 8u);
}

// ===========================================================================
// measure_stream (section 8)
// ===========================================================================

TEST_F(Measure, NonAligningOperationsCountTheirExactWidth)
{
    struct expectation {
        const char* name;
        std::size_t bits;
        std::function<bool(bitrep::measure_stream&)> op;
    };
    const expectation expectations[] = {
        {"bits 13", 13, [](bitrep::measure_stream& s) { std::uint32_t v = 0; return s.serialize_bits(v, 13); }},
        {"bits 40", 40, [](bitrep::measure_stream& s) { std::uint64_t v = 0; return s.serialize_bits(v, 40); }},
        {"bits 64", 64, [](bitrep::measure_stream& s) { std::uint64_t v = 1; return s.serialize_bits(v, 64); }},
        {"bool", 1, [](bitrep::measure_stream& s) { bool b = true; return s.serialize_bool(b); }},
        {"int [0,7]", 3, [](bitrep::measure_stream& s) { std::int32_t v = 1; return s.serialize_int(v, 0, 7); }},
        {"int [-100,100]", 8, [](bitrep::measure_stream& s) { std::int32_t v = 1; return s.serialize_int(v, -100, 100); }},
        {"int [3,3]", 0, [](bitrep::measure_stream& s) { std::int32_t v = 3; return s.serialize_int(v, 3, 3); }},
        {"int full", 32,
         [](bitrep::measure_stream& s) { std::int32_t v = 1; return s.serialize_int(v, int32_min, int32_max); }},
        {"int64 [0,2^40]", 41,
         [](bitrep::measure_stream& s) { std::int64_t v = 1; return s.serialize_int64(v, 0, std::int64_t{1} << 40); }},
        {"int64 full", 64,
         [](bitrep::measure_stream& s) { std::int64_t v = 1; return s.serialize_int64(v, int64_min, int64_max); }},
        {"ranged_offset 2^40", 41,
         [](bitrep::measure_stream& s) { std::uint64_t v = 1; return s.serialize_ranged_offset(v, std::uint64_t{1} << 40); }},
        {"int_relative d=1", 1, [](bitrep::measure_stream& s) { std::int32_t c = 1; return s.serialize_int_relative(0, c); }},
        {"int_relative d=6", 5, [](bitrep::measure_stream& s) { std::int32_t c = 6; return s.serialize_int_relative(0, c); }},
        {"int_relative d=23", 8, [](bitrep::measure_stream& s) { std::int32_t c = 23; return s.serialize_int_relative(0, c); }},
        {"int_relative d=280", 13, [](bitrep::measure_stream& s) { std::int32_t c = 280; return s.serialize_int_relative(0, c); }},
        {"int_relative d=4377", 18, [](bitrep::measure_stream& s) { std::int32_t c = 4377; return s.serialize_int_relative(0, c); }},
        {"int_relative d=69914", 23, [](bitrep::measure_stream& s) { std::int32_t c = 69914; return s.serialize_int_relative(0, c); }},
        {"int_relative d=69915", 38, [](bitrep::measure_stream& s) { std::int32_t c = 69915; return s.serialize_int_relative(0, c); }},
        {"float", 32, [](bitrep::measure_stream& s) { float v = 1.0f; return s.serialize_float(v); }},
        {"double", 64, [](bitrep::measure_stream& s) { double v = 1.0; return s.serialize_double(v); }},
        {"compressed [0,10]@0.01", 10,
         [](bitrep::measure_stream& s) { float v = 1.0f; return s.serialize_compressed_float(v, 0.0f, 10.0f, 0.01f); }},
        {"compressed [-100,100]@0.01", 15,
         [](bitrep::measure_stream& s) { float v = 1.0f; return s.serialize_compressed_float(v, -100.0f, 100.0f, 0.01f); }},
    };
    for (const expectation& x : expectations) {
        bitrep::measure_stream m;
        EXPECT_TRUE(x.op(m)) << x.name;
        EXPECT_EQ(m.bits(), x.bits) << x.name;
        EXPECT_EQ(m.exact_bits(), x.bits) << x.name;
    }
}

TEST_F(Measure, EachAlignmentCountsSevenBitsWhateverThePosition)
{
    auto m = measure([](auto& s) { return s.serialize_align(); });
    EXPECT_EQ(m.bits, 7u);
    EXPECT_EQ(m.exact_bits, 0u);
    m = measure([](auto& s) {
        bool b = true;
        return s.serialize_bool(b) && s.serialize_align() && s.serialize_align();
    });
    EXPECT_EQ(m.bits, 1u + 7u + 7u);
    EXPECT_EQ(m.exact_bits, 8u);
}

TEST_F(Measure, BitsEightAlignBitsEightIsTwentyThreeBits)
{
    // The reference's example: 8 + 7 + 8 = 23 (16 from an aligned start, 23 from bit offset 1)
    const auto m = measure([](auto& s) {
        std::uint32_t a = 0xAA, b = 0xBB;
        return s.serialize_bits(a, 8) && s.serialize_align() && s.serialize_bits(b, 8);
    });
    EXPECT_EQ(m.bits, 23u);
    EXPECT_EQ(m.exact_bits, 16u);
    const auto from_one = encode([](auto& s) {
        bool lead = false;
        std::uint32_t a = 0xAA, b = 0xBB;
        return s.serialize_bool(lead) && s.serialize_bits(a, 8) && s.serialize_align() && s.serialize_bits(b, 8);
    });
    EXPECT_EQ(from_one.bits - 1, 23u);
}

TEST_F(Measure, BytesCountSevenBitsOfAlignmentPlusEightPerByte)
{
    auto m = measure([](auto& s) {
        std::uint8_t d[2] = {1, 2};
        return s.serialize_bytes(d, 2);
    });
    EXPECT_EQ(m.bits, 7u + 16u);
    EXPECT_EQ(m.exact_bits, 16u);
    m = measure([](auto& s) {
        std::uint8_t d[1] = {0};
        return s.serialize_bytes(d, 0);
    });
    EXPECT_EQ(m.bits, 7u);
}

TEST_F(Measure, StringCountsLengthBitsSevenBitsOfAlignmentAndEightPerByte)
{
    // "hi" with buffer 32: 5 + 7 + 16 = 28 (24 written from an aligned start)
    auto m = measure([](auto& s) {
        std::string t = "hi";
        return s.serialize_string(t, 32);
    });
    EXPECT_EQ(m.bits, 28u);
    EXPECT_EQ(m.exact_bits, 24u);
    // "" with buffer 32: 5 + 7 = 12 (8 written)
    m = measure([](auto& s) {
        std::string t;
        return s.serialize_string(t, 32);
    });
    EXPECT_EQ(m.bits, 12u);
    EXPECT_EQ(m.exact_bits, 8u);
}

// ===========================================================================
// Randomized sequences of mixed primitives
// ===========================================================================

namespace {

enum class kind { bits32, bits64, boolean, align, int32, int64, ranged_offset, int_relative, float32, float64, compressed,
                  bytes, string };
constexpr int kind_count = 13;

struct op {
    kind k = kind::boolean;
    int width = 0;             // bits32 / bits64
    std::uint64_t u = 0;       // bits value, ranged offset
    std::uint64_t span = 0;    // ranged offset
    std::int64_t i = 0;        // int32 / int64 value, int_relative current
    std::int64_t min = 0, max = 0;
    std::int32_t previous = 0; // int_relative
    bool b = false;
    std::uint64_t pattern = 0; // float / double bit pattern
    float f = 0.0f, fmin = 0.0f, fmax = 0.0f, fres = 0.0f;
    byte_vector data;
    std::string text;
    std::size_t buffer_size = 0;
};

template <class Stream>
bool apply(Stream& s, op& o)
{
    switch (o.k) {
    case kind::bits32: {
        auto v = static_cast<std::uint32_t>(o.u);
        const bool ok = s.serialize_bits(v, o.width);
        o.u = v;
        return ok;
    }
    case kind::bits64: return s.serialize_bits(o.u, o.width);
    case kind::boolean: return s.serialize_bool(o.b);
    case kind::align: return s.serialize_align();
    case kind::int32: {
        auto v = static_cast<std::int32_t>(o.i);
        const bool ok = s.serialize_int(v, static_cast<std::int32_t>(o.min), static_cast<std::int32_t>(o.max));
        o.i = v;
        return ok;
    }
    case kind::int64: return s.serialize_int64(o.i, o.min, o.max);
    case kind::ranged_offset: return s.serialize_ranged_offset(o.u, o.span);
    case kind::int_relative: {
        auto v = static_cast<std::int32_t>(o.i);
        const bool ok = s.serialize_int_relative(o.previous, v);
        o.i = v;
        return ok;
    }
    case kind::float32: {
        auto v = std::bit_cast<float>(static_cast<std::uint32_t>(o.pattern));
        const bool ok = s.serialize_float(v);
        o.pattern = bits_of(v);
        return ok;
    }
    case kind::float64: {
        auto v = std::bit_cast<double>(o.pattern);
        const bool ok = s.serialize_double(v);
        o.pattern = bits_of(v);
        return ok;
    }
    case kind::compressed: return s.serialize_compressed_float(o.f, o.fmin, o.fmax, o.fres);
    case kind::bytes: return s.serialize_bytes(o.data.data(), o.data.size());
    case kind::string: return s.serialize_string(o.text, o.buffer_size);
    }
    return false;
}

/// An op with its outputs scrambled, ready to be filled in by a read.
op blank_for_reading(const op& o)
{
    op r = o;
    r.u = ~o.u;
    r.i = 0;
    r.b = !o.b;
    r.pattern = ~o.pattern;
    r.f = -12345.0f;
    std::fill(r.data.begin(), r.data.end(), std::uint8_t{0xEE});
    r.text = "stale";
    return r;
}

std::uint64_t uniform(std::mt19937_64& rng, std::uint64_t low, std::uint64_t high)
{
    return std::uniform_int_distribution<std::uint64_t>(low, high)(rng);
}

/// A span whose bit length is exactly `width`.
std::uint64_t span_of_width(std::mt19937_64& rng, int width)
{
    if (width == 0)
        return 0;
    return (rng() >> (64 - width)) | (std::uint64_t{1} << (width - 1));
}

std::string random_utf8(std::mt19937_64& rng, std::size_t max_bytes)
{
    std::string text;
    const std::size_t target = uniform(rng, 0, max_bytes);
    while (true) {
        std::uint32_t cp = 0;
        switch (uniform(rng, 0, 3)) {
        case 0: cp = static_cast<std::uint32_t>(uniform(rng, 1, 0x7F)); break;
        case 1: cp = static_cast<std::uint32_t>(uniform(rng, 0x80, 0x7FF)); break;
        case 2:
            do
                cp = static_cast<std::uint32_t>(uniform(rng, 0x800, 0xFFFF));
            while (cp >= 0xD800 && cp <= 0xDFFF);
            break;
        default: cp = static_cast<std::uint32_t>(uniform(rng, 0x10000, 0x10FFFF)); break;
        }
        std::string next = text;
        append_utf8(next, cp);
        if (next.size() > target)
            return text;
        text = next;
    }
}

op random_op(std::mt19937_64& rng)
{
    op o;
    o.k = static_cast<kind>(uniform(rng, 0, kind_count - 1));
    switch (o.k) {
    case kind::bits32:
        o.width = static_cast<int>(uniform(rng, 1, 32));
        o.u = rng() >> (64 - o.width);
        break;
    case kind::bits64:
        o.width = static_cast<int>(uniform(rng, 1, 64));
        o.u = rng() >> (64 - o.width);
        break;
    case kind::boolean: o.b = (rng() & 1) != 0; break;
    case kind::align: break;
    case kind::int32: {
        const std::uint64_t span = span_of_width(rng, static_cast<int>(uniform(rng, 0, 32)));
        const std::int64_t low = std::int64_t{int32_min} + static_cast<std::int64_t>(uniform(rng, 0, 0xFFFFFFFFu - span));
        o.min = low;
        o.max = low + static_cast<std::int64_t>(span);
        o.i = low + static_cast<std::int64_t>(uniform(rng, 0, span));
        break;
    }
    case kind::int64: {
        const std::uint64_t span = span_of_width(rng, static_cast<int>(uniform(rng, 0, 64)));
        // Unsigned u maps to signed order as u ^ 2^63: pick the bias-shifted minimum.
        const std::uint64_t low = (std::uint64_t{1} << 63) + uniform(rng, 0, ~std::uint64_t{0} - span);
        o.min = static_cast<std::int64_t>(low);
        o.max = static_cast<std::int64_t>(low + span);
        o.i = static_cast<std::int64_t>(low + uniform(rng, 0, span));
        break;
    }
    case kind::ranged_offset:
        o.span = span_of_width(rng, static_cast<int>(uniform(rng, 0, 64)));
        o.u = uniform(rng, 0, o.span);
        break;
    case kind::int_relative: {
        static constexpr std::int64_t tiers[][2] = {{1, 1},       {2, 6},         {7, 23},         {24, 280},
                                                    {281, 4377},  {4378, 69914},  {69915, 0xFFFFFFFF}};
        const auto& t = tiers[uniform(rng, 0, 6)];
        const auto d = static_cast<std::int64_t>(uniform(rng, static_cast<std::uint64_t>(t[0]), static_cast<std::uint64_t>(t[1])));
        const std::int64_t previous =
            std::int64_t{int32_min} + static_cast<std::int64_t>(uniform(rng, 0, static_cast<std::uint64_t>(std::int64_t{int32_max} - d - std::int64_t{int32_min})));
        o.previous = static_cast<std::int32_t>(previous);
        o.i = previous + d;
        break;
    }
    case kind::float32: o.pattern = rng() & 0xFFFFFFFF; break;
    case kind::float64: o.pattern = rng(); break;
    case kind::compressed: {
        std::uniform_real_distribution<float> unit(0.0f, 1.0f);
        while (true) {
            o.fmin = (rng() % 3 == 0) ? 0.0f : f32(unit(rng) * 2000.0f - 1000.0f);
            o.fmax = f32(o.fmin + f32(std::pow(10.0f, unit(rng) * 5.0f - 2.0f)));
            o.fres = f32(std::pow(10.0f, unit(rng) * 4.0f - 3.0f));
            const oracle::quantizer ref(o.fmin, o.fmax, o.fres);
            if (o.fmax > o.fmin && ref.max_integer < (1u << 23)) // see the random CompressedFloat test
                break;
        }
        switch (uniform(rng, 0, 9)) {
        case 0: o.f = float_inf; break;
        case 1: o.f = -float_inf; break;
        case 2: o.f = o.fmin; break;
        case 3: o.f = o.fmax; break;
        default: o.f = f32(o.fmin + f32((unit(rng) * 1.2f - 0.1f) * f32(o.fmax - o.fmin))); break;
        }
        break;
    }
    case kind::bytes:
        o.data.resize(uniform(rng, 0, 6));
        for (auto& byte : o.data)
            byte = static_cast<std::uint8_t>(rng());
        break;
    case kind::string:
        o.buffer_size = uniform(rng, 1, 64);
        o.text = random_utf8(rng, o.buffer_size - 1);
        break;
    }
    return o;
}

/// The reference width of an op, not counting alignment; aligning ops are flagged.
std::size_t reference_width(const op& o, bool& aligns)
{
    aligns = false;
    switch (o.k) {
    case kind::bits32:
    case kind::bits64: return static_cast<std::size_t>(o.width);
    case kind::boolean: return 1;
    case kind::align: aligns = true; return 0;
    case kind::int32:
    case kind::int64:
        return static_cast<std::size_t>(bit_length(static_cast<std::uint64_t>(o.max) - static_cast<std::uint64_t>(o.min)));
    case kind::ranged_offset: return static_cast<std::size_t>(bit_length(o.span));
    case kind::int_relative: {
        const std::int64_t d = o.i - o.previous;
        return d == 1 ? 1 : d <= 6 ? 5 : d <= 23 ? 8 : d <= 280 ? 13 : d <= 4377 ? 18 : d <= 69914 ? 23 : 38;
    }
    case kind::float32: return 32;
    case kind::float64: return 64;
    case kind::compressed: return static_cast<std::size_t>(oracle::quantizer(o.fmin, o.fmax, o.fres).bits);
    case kind::bytes: aligns = true; return 8 * o.data.size();
    case kind::string: aligns = true; return static_cast<std::size_t>(bit_length(o.buffer_size - 1)) + 8 * o.text.size();
    }
    return 0;
}

/// The reference position after the op, from `position`.
std::size_t reference_position_after(const op& o, std::size_t position)
{
    auto round_up = [](std::size_t p) { return (p + 7) / 8 * 8; };
    bool aligns = false;
    const std::size_t width = reference_width(o, aligns);
    switch (o.k) {
    case kind::align: return round_up(position);
    case kind::bytes: return round_up(position) + width;
    case kind::string: {
        const auto length_bits = static_cast<std::size_t>(bit_length(o.buffer_size - 1));
        return round_up(position + length_bits) + 8 * o.text.size();
    }
    default: return position + width;
    }
}

void expect_read_matches(const op& written, const op& read, std::size_t index)
{
    switch (written.k) {
    case kind::bits32:
    case kind::bits64:
    case kind::ranged_offset: EXPECT_EQ(read.u, written.u) << "op " << index; break;
    case kind::boolean: EXPECT_EQ(read.b, written.b) << "op " << index; break;
    case kind::align: break;
    case kind::int32:
    case kind::int64:
    case kind::int_relative: EXPECT_EQ(read.i, written.i) << "op " << index; break;
    case kind::float32:
    case kind::float64: EXPECT_EQ(read.pattern, written.pattern) << "op " << index; break;
    case kind::compressed: {
        const oracle::quantizer ref(written.fmin, written.fmax, written.fres);
        EXPECT_EQ(bits_of(read.f), bits_of(ref.dequantize(ref.quantize(written.f))))
            << "op " << index << std::hexfloat << ": " << written.f << " in [" << written.fmin << ", " << written.fmax
            << "] at " << written.fres;
        break;
    }
    case kind::bytes: EXPECT_EQ(read.data, written.data) << "op " << index; break;
    case kind::string: EXPECT_EQ(read.text, written.text) << "op " << index; break;
    }
}

std::vector<op> random_sequence(std::mt19937_64& rng)
{
    std::vector<op> ops(uniform(rng, 1, 20));
    for (op& o : ops)
        o = random_op(rng);
    return ops;
}

} // namespace

TEST_F(RoundTrip, RandomMixedSequencesReadBackEqualValuesAtEqualPositions)
{
    std::mt19937_64 rng(0x5EED'0001);
    for (int iteration = 0; iteration < 3000; ++iteration) {
        SCOPED_TRACE(::testing::Message() << "iteration " << iteration);
        std::vector<op> ops = random_sequence(rng);

        byte_vector buffer(4096, 0xA5);
        bitrep::write_stream out{std::span<std::uint8_t>(buffer)};
        std::vector<std::size_t> written_positions;
        std::size_t expected_position = 0;
        for (std::size_t i = 0; i < ops.size(); ++i) {
            op copy = ops[i];
            ASSERT_TRUE(apply(out, copy)) << "op " << i << ": " << out.failure().to_status("Root").message();
            expected_position = reference_position_after(ops[i], expected_position);
            ASSERT_EQ(out.position(), expected_position) << "op " << i;
            written_positions.push_back(out.position());
        }
        const std::size_t size = out.flush();
        ASSERT_EQ(size, (expected_position + 7) / 8);
        const byte_vector data(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(size));

        bitrep::read_stream in{input(data)};
        for (std::size_t i = 0; i < ops.size(); ++i) {
            op read = blank_for_reading(ops[i]);
            ASSERT_TRUE(apply(in, read)) << "op " << i << ": " << in.failure().to_status("Root").message();
            ASSERT_EQ(in.position(), written_positions[i]) << "op " << i;
            expect_read_matches(ops[i], read, i);
        }
        if (HasFailure())
            return;
    }
}

TEST_F(Measure, RandomSequencesCountExactWidthsPlusSevenBitsPerAlignment)
{
    std::mt19937_64 rng(0x5EED'0002);
    for (int iteration = 0; iteration < 3000; ++iteration) {
        std::vector<op> ops = random_sequence(rng);
        bitrep::measure_stream m;
        std::size_t expected = 0;
        for (op& o : ops) {
            ASSERT_TRUE(apply(m, o));
            bool aligns = false;
            expected += reference_width(o, aligns) + (aligns ? 7 : 0);
        }
        ASSERT_EQ(m.bits(), expected) << "iteration " << iteration;
    }
}

TEST_F(Measure, ExactBitsEqualsWhatWriteStreamWritesFromAnAlignedStart)
{
    std::mt19937_64 rng(0x5EED'0003);
    for (int iteration = 0; iteration < 3000; ++iteration) {
        std::vector<op> ops = random_sequence(rng);
        bitrep::measure_stream m;
        byte_vector buffer(4096);
        bitrep::write_stream out{std::span<std::uint8_t>(buffer)};
        for (op& o : ops) {
            op copy = o;
            ASSERT_TRUE(apply(m, o));
            ASSERT_TRUE(apply(out, copy));
        }
        ASSERT_EQ(m.exact_bits(), out.position()) << "iteration " << iteration;
    }
}

TEST_F(Measure, BitsBoundTheWrittenSizeFromEveryStartingBitOffset)
{
    std::mt19937_64 rng(0x5EED'0004);
    for (int iteration = 0; iteration < 3000; ++iteration) {
        std::vector<op> ops = random_sequence(rng);
        bitrep::measure_stream m;
        for (op& o : ops)
            ASSERT_TRUE(apply(m, o));
        for (int lead = 0; lead <= 7; ++lead) {
            byte_vector buffer(4096);
            bitrep::write_stream out{std::span<std::uint8_t>(buffer)};
            std::uint32_t zero = 0;
            ASSERT_TRUE(lead == 0 || out.serialize_bits(zero, lead));
            for (const op& o : ops) {
                op copy = o;
                ASSERT_TRUE(apply(out, copy));
            }
            ASSERT_GE(m.bits(), out.position() - static_cast<std::size_t>(lead))
                << "iteration " << iteration << ", starting at bit " << lead;
        }
    }
}

TEST_F(RoundTrip, IntOverInt32BoundsAndInt64WriteIdenticalBytesForRandomRanges)
{
    std::mt19937_64 rng(0x5EED'0005);
    for (int iteration = 0; iteration < 3000; ++iteration) {
        const std::uint64_t span = span_of_width(rng, static_cast<int>(uniform(rng, 0, 32)));
        const auto min = static_cast<std::int32_t>(std::int64_t{int32_min} + static_cast<std::int64_t>(uniform(rng, 0, 0xFFFFFFFFu - span)));
        const auto max = static_cast<std::int32_t>(std::int64_t{min} + static_cast<std::int64_t>(span));
        const auto value = static_cast<std::int32_t>(std::int64_t{min} + static_cast<std::int64_t>(uniform(rng, 0, span)));
        const auto a = encode([&](auto& s) {
            std::int32_t v = value;
            return s.serialize_int(v, min, max);
        });
        const auto b = encode([&](auto& s) {
            std::int64_t v = value;
            return s.serialize_int64(v, min, max);
        });
        // And both equal the offset laid down in bit_length(span) bits.
        const byte_vector expected = pack({{static_cast<std::uint64_t>(std::int64_t{value} - min), bit_length(span)}});
        ASSERT_EQ(a.data, expected) << value << " in [" << min << ", " << max << "]";
        ASSERT_EQ(b.data, expected) << value << " in [" << min << ", " << max << "]";
    }
}
