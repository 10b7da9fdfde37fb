// Conformance of the raw bit layer (bits.hpp) with the serialize 1.0 wire
// standard: LSB-first packing where stream bit i is bit i % 8 of byte i / 8,
// bounds-checked writes and reads, and bits_required (reference sections 1-3).
// Every golden byte below is derived by hand from the reference; the derivation
// is in the comment next to it.
#include <bitrep/wire/bits.hpp>

#include <gtest/gtest.h>

#include "test_oracle.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <utility>
#include <vector>

namespace {

using byte_vector = oracle::bytes;

struct group {
    std::uint32_t value;
    int bits;
};

/// Stream bits [position, position + bits) by the reference's definition, one
/// bit at a time: stream bit i is bit i % 8 (bit 0 = least significant) of
/// byte i / 8, and a group's least significant bit comes first. (The bytes of a
/// group list by the same definition: oracle::pack.)
std::uint32_t reference_extract(std::span<const std::uint8_t> data, std::size_t position, int bits)
{
    std::uint32_t value = 0;
    for (int b = 0; b < bits; ++b, ++position)
        value |= static_cast<std::uint32_t>((data[position / 8] >> (position % 8)) & 1u) << b;
    return value;
}

std::uint32_t low_mask(int bits)
{
    return bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1u;
}

/// Packs groups with bit_writer into a buffer pre-filled with a sentinel and
/// returns the flushed meaningful bytes.
byte_vector pack(const std::vector<group>& groups)
{
    std::array<std::uint8_t, 64> buffer;
    buffer.fill(0xA5);
    bitrep::bit_writer writer{std::span<std::uint8_t>(buffer)};
    for (const group& g : groups)
        EXPECT_TRUE(writer.write_bits(g.value, g.bits));
    writer.flush();
    return byte_vector(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(writer.bytes_written()));
}

std::vector<group> random_groups(std::mt19937_64& rng, std::size_t count)
{
    std::uniform_int_distribution<int> width(1, 32);
    std::vector<group> groups;
    for (std::size_t i = 0; i < count; ++i) {
        const int bits = width(rng);
        groups.push_back({static_cast<std::uint32_t>(rng()) & low_mask(bits), bits});
    }
    return groups;
}

} // namespace

// ---------------------------------------------------------------------------
// bit_writer: layout
// ---------------------------------------------------------------------------

TEST(BitWriter, FirstBitGoesToTheLeastSignificantBitOfTheFirstByte)
{
    // stream bit 0 = bit 0 of byte 0
    EXPECT_EQ(pack({{1, 1}}), (byte_vector{0x01}));
}

TEST(BitWriter, GroupsFillEachByteFromBitZeroUpwards)
{
    // 0b101 at bits 0-2, 0b11111 at bits 3-7: 0b11111'101 = 0xFD
    EXPECT_EQ(pack({{0x5, 3}, {0x1F, 5}}), (byte_vector{0xFD}));
}

TEST(BitWriter, GroupsAreLaidDownLeastSignificantBitFirstAcrossBytes)
{
    // 0xA at bits 0-3, 0x89ABCDEF at bits 4-35, 0b11 at bits 36-37:
    // 0xA | 0x89ABCDEF << 4 | 0x3 << 36 = 0x38'9ABC'DEFA, little-endian, 38 bits -> 5 bytes
    EXPECT_EQ(pack({{0xA, 4}, {0x89ABCDEF, 32}, {0x3, 2}}), (byte_vector{0xFA, 0xDE, 0xBC, 0x9A, 0x38}));
}

TEST(BitWriter, GroupStraddlingBit32IsSplitBetweenBytesThreeAndFour)
{
    // 31 zero bits, then 0b11 at bits 31-32: bit 31 = byte 3 bit 7, bit 32 = byte 4 bit 0
    EXPECT_EQ(pack({{0, 31}, {0x3, 2}}), (byte_vector{0x00, 0x00, 0x00, 0x80, 0x01}));
}

TEST(BitWriter, ThirtyTwoBitGroupAtAnOddOffsetStraddlesTheScratchWord)
{
    // 1 at bit 0, 0xFFFFFFFF at bits 1-32, 0 at bit 33:
    // 0x1'FFFF'FFFF (33 ones) -> FF FF FF FF 01
    EXPECT_EQ(pack({{1, 1}, {0xFFFFFFFF, 32}, {0, 1}}), (byte_vector{0xFF, 0xFF, 0xFF, 0xFF, 0x01}));
}

TEST(BitWriter, GroupStraddlingBit64IsSplitBetweenBytesSevenAndEight)
{
    // 0x03020100 at bits 0-31, 0x07060504 (30 bits) at bits 32-61, 0b10101 at bits 62-66:
    // bytes 0-6 = 00 01 02 03 04 05 06; byte 7 = 0x07 (bits 56-58) | bit 62 -> 0x47;
    // byte 8 = bit 64 and bit 66 -> 0x05. 67 bits -> 9 bytes.
    EXPECT_EQ(pack({{0x03020100, 32}, {0x07060504, 30}, {0x15, 5}}),
              (byte_vector{0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x47, 0x05}));
}

TEST(BitWriter, ManyStraddlingGroupsMatchTheBitByBitReferencePacker)
{
    // Widths 31, 7, 29, 17, 32, 3 cross both 32- and 64-bit boundaries at varying offsets.
    const std::vector<group> groups = {{0x5A5A5A5A & low_mask(31), 31}, {0x55, 7},      {0x1234567, 29},
                                       {0x1F0F0, 17},                   {0xDEADBEEF, 32}, {0x6, 3}};
    EXPECT_EQ(pack(groups), oracle::pack(groups));
}

TEST(BitWriter, RandomGroupSequencesMatchTheBitByBitReferencePacker)
{
    std::mt19937_64 rng(0xB17'0001);
    std::uniform_int_distribution<std::size_t> length(1, 14);
    for (int iteration = 0; iteration < 3000; ++iteration) {
        const auto groups = random_groups(rng, length(rng));
        ASSERT_EQ(pack(groups), oracle::pack(groups)) << "iteration " << iteration;
    }
}

TEST(BitWriter, UnusedHighBitsOfTheFinalByteAreWrittenAsZero)
{
    // The buffer is pre-filled with 0xA5; the final byte must still read 0b00000'101.
    EXPECT_EQ(pack({{0x5, 3}}), (byte_vector{0x05}));
    EXPECT_EQ(pack({{0xFFFFFFFF, 32}, {0x1, 1}}), (byte_vector{0xFF, 0xFF, 0xFF, 0xFF, 0x01}));
}

// ---------------------------------------------------------------------------
// bit_writer: accounting and bounds
// ---------------------------------------------------------------------------

TEST(BitWriter, BitsWrittenCountsEveryGroup)
{
    std::array<std::uint8_t, 16> buffer{};
    bitrep::bit_writer writer{std::span<std::uint8_t>(buffer)};
    EXPECT_EQ(writer.bits_written(), 0u);
    EXPECT_TRUE(writer.write_bits(0x3, 2));
    EXPECT_EQ(writer.bits_written(), 2u);
    EXPECT_TRUE(writer.write_bits(0x12345, 31));
    EXPECT_EQ(writer.bits_written(), 33u);
    EXPECT_EQ(writer.bits_available(), 128u - 33u);
}

TEST(BitWriter, BytesWrittenIsTheCeilingOfBitsOverEight)
{
    for (std::size_t bits = 0; bits <= 96; ++bits) {
        std::array<std::uint8_t, 16> buffer{};
        bitrep::bit_writer writer{std::span<std::uint8_t>(buffer)};
        for (std::size_t i = 0; i < bits; ++i)
            ASSERT_TRUE(writer.write_bits(1, 1));
        EXPECT_EQ(writer.bytes_written(), (bits + 7) / 8) << bits << " bits";
    }
}

TEST(BitWriter, FlushStoresExactlyTheMeaningfulBytesAndNothingBeyond)
{
    for (std::size_t bits = 0; bits <= 96; ++bits) {
        std::array<std::uint8_t, 16> buffer;
        buffer.fill(0xA5);
        bitrep::bit_writer writer{std::span<std::uint8_t>(buffer)};
        for (std::size_t i = 0; i < bits; ++i)
            ASSERT_TRUE(writer.write_bits(1, 1));
        writer.flush();
        const std::size_t meaningful = (bits + 7) / 8;
        for (std::size_t i = 0; i < buffer.size(); ++i) {
            std::uint8_t expected = 0xA5; // untouched
            if (i < meaningful) {
                const std::size_t ones = bits - 8 * i < 8 ? bits - 8 * i : 8;
                expected = static_cast<std::uint8_t>((1u << ones) - 1u);
            }
            ASSERT_EQ(buffer[i], expected) << bits << " bits, byte " << i;
        }
    }
}

TEST(BitWriter, WriteThatDoesNotFitIsRefusedAndBitsWrittenIsUnchanged)
{
    std::array<std::uint8_t, 3> buffer{};
    bitrep::bit_writer writer{std::span<std::uint8_t>(buffer)};
    ASSERT_TRUE(writer.write_bits(0x1FFFF, 17));
    EXPECT_FALSE(writer.write_bits(0xFF, 8)); // 17 + 8 = 25 > 24
    EXPECT_EQ(writer.bits_written(), 17u);
    EXPECT_EQ(writer.bits_available(), 7u);
    EXPECT_FALSE(writer.write_bits(0, 32));
    EXPECT_EQ(writer.bits_written(), 17u);
}

TEST(BitWriter, RefusedWriteLeavesEarlierContentIntactAndLaterFittingWritesWork)
{
    std::array<std::uint8_t, 3> buffer{};
    bitrep::bit_writer writer{std::span<std::uint8_t>(buffer)};
    ASSERT_TRUE(writer.write_bits(0x1FFFF, 17));
    ASSERT_FALSE(writer.write_bits(0xFF, 8));
    ASSERT_TRUE(writer.write_bits(0x0, 6));
    ASSERT_TRUE(writer.write_bits(0x1, 1));
    writer.flush();
    // 17 ones, 6 zeros, then a 1 at bit 23: FF FF 81
    EXPECT_EQ(buffer, (std::array<std::uint8_t, 3>{0xFF, 0xFF, 0x81}));
}

TEST(BitWriter, EveryWidthIsRefusedExactlyWhenItExceedsTheRoomLeft)
{
    for (std::size_t size = 0; size <= 9; ++size) {
        for (std::size_t used = 0; used <= size * 8; ++used) {
            for (int bits = 1; bits <= 32; ++bits) {
                byte_vector buffer(size);
                bitrep::bit_writer writer{std::span<std::uint8_t>(buffer)};
                for (std::size_t i = 0; i < used; ++i)
                    ASSERT_TRUE(writer.write_bits(0, 1));
                const bool fits = used + static_cast<std::size_t>(bits) <= size * 8;
                ASSERT_EQ(writer.write_bits(0, bits), fits) << size << " bytes, " << used << " used, " << bits;
                ASSERT_EQ(writer.bits_written(), fits ? used + static_cast<std::size_t>(bits) : used);
            }
        }
    }
}

TEST(BitWriter, EmptySpanRefusesEveryWrite)
{
    bitrep::bit_writer writer{std::span<std::uint8_t>()};
    for (int bits = 1; bits <= 32; ++bits)
        EXPECT_FALSE(writer.write_bits(0, bits)) << bits;
    EXPECT_EQ(writer.bits_written(), 0u);
}

TEST(BitWriter, NeverWritesOutsideItsSpan)
{
    // The writer gets bytes 4..10 of a larger buffer; everything else is a sentinel.
    std::mt19937_64 rng(0xB17'0002);
    for (int iteration = 0; iteration < 500; ++iteration) {
        std::array<std::uint8_t, 16> storage;
        storage.fill(0x5A);
        const std::span<std::uint8_t> inner(storage.data() + 4, 7);
        bitrep::bit_writer writer{inner};
        const auto groups = random_groups(rng, 8);
        std::vector<group> accepted;
        for (const group& g : groups) {
            if (writer.write_bits(g.value, g.bits))
                accepted.push_back(g);
        }
        writer.flush();
        for (std::size_t i = 0; i < 4; ++i)
            ASSERT_EQ(storage[i], 0x5A) << "byte before the span, iteration " << iteration;
        for (std::size_t i = 11; i < storage.size(); ++i)
            ASSERT_EQ(storage[i], 0x5A) << "byte after the span, iteration " << iteration;
        const byte_vector expected = oracle::pack(accepted);
        ASSERT_EQ(byte_vector(inner.begin(), inner.begin() + static_cast<std::ptrdiff_t>(expected.size())), expected);
    }
}

// ---------------------------------------------------------------------------
// bit_reader
// ---------------------------------------------------------------------------

namespace {
/// Bytes and the groups (value, width) a reader must find in them, in order.
struct known_reading {
    const char* name;
    byte_vector data;
    std::vector<std::pair<std::uint32_t, int>> groups;
};
} // namespace

TEST(BitReader, ReadsKnownVectorsLeastSignificantBitFirstAcrossTheWordBoundary)
{
    const known_reading cases[] = {
        // Same vector as the writer's: 0x38'9ABC'DEFA = 0xA (4) | 0x89ABCDEF (32) | 0x3 (2)
        {"groups least significant bit first", {0xFA, 0xDE, 0xBC, 0x9A, 0x38}, {{0xAu, 4}, {0x89ABCDEFu, 32}, {0x3u, 2}}},
        {"a group straddling bit 64",
         {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x47, 0x05},
         {{0x03020100u, 32}, {0x07060504u, 30}, {0x15u, 5}}},
    };
    // A refused read ends its own case only: the lambda is what ASSERT returns from.
    const auto read_all = [](const known_reading& c) {
        bitrep::bit_reader reader{std::span<const std::uint8_t>(c.data)};
        for (const auto& [expected, width] : c.groups) {
            std::uint32_t value = 0;
            ASSERT_TRUE(reader.read_bits(value, width)) << "group of " << width << " bits";
            EXPECT_EQ(value, expected) << "group of " << width << " bits";
        }
    };
    for (const known_reading& c : cases) {
        SCOPED_TRACE(c.name);
        read_all(c);
    }
}

TEST(BitReader, RandomGroupsReadBackFromReferencePackedBytes)
{
    std::mt19937_64 rng(0xB17'0003);
    std::uniform_int_distribution<std::size_t> length(1, 14);
    for (int iteration = 0; iteration < 3000; ++iteration) {
        const auto groups = random_groups(rng, length(rng));
        const byte_vector data = oracle::pack(groups);
        bitrep::bit_reader reader{std::span<const std::uint8_t>(data)};
        std::size_t position = 0;
        for (const group& g : groups) {
            std::uint32_t value = ~0u;
            ASSERT_TRUE(reader.read_bits(value, g.bits)) << "iteration " << iteration;
            ASSERT_EQ(value, g.value) << "iteration " << iteration;
            position += static_cast<std::size_t>(g.bits);
            ASSERT_EQ(reader.bits_read(), position);
        }
    }
}

TEST(BitReader, ReadPastTheEndIsRefusedAtEveryLengthAndConsumesNothing)
{
    for (std::size_t size = 0; size <= 9; ++size) {
        const byte_vector data(size, 0xFF);
        for (std::size_t used = 0; used <= size * 8; ++used) {
            for (int bits = 1; bits <= 32; ++bits) {
                bitrep::bit_reader reader{std::span<const std::uint8_t>(data)};
                std::uint32_t value = 0;
                for (std::size_t i = 0; i < used; ++i)
                    ASSERT_TRUE(reader.read_bits(value, 1));
                const bool fits = used + static_cast<std::size_t>(bits) <= size * 8;
                value = 0x12345678;
                ASSERT_EQ(reader.read_bits(value, bits), fits) << size << " bytes, " << used << " used, " << bits;
                if (fits) {
                    ASSERT_EQ(value, low_mask(bits));
                    ASSERT_EQ(reader.bits_read(), used + static_cast<std::size_t>(bits));
                } else {
                    ASSERT_EQ(reader.bits_read(), used);
                    ASSERT_EQ(reader.bits_remaining(), size * 8 - used);
                }
            }
        }
    }
}

TEST(BitReader, RefusedReadLeavesTheRemainingBitsReadable)
{
    // 0xAB 0xCD: after 4 bits (0xB), a 13-bit read is refused, the last 12 bits still read 0xCDA.
    const byte_vector data{0xAB, 0xCD};
    bitrep::bit_reader reader{std::span<const std::uint8_t>(data)};
    std::uint32_t value = 0;
    ASSERT_TRUE(reader.read_bits(value, 4));
    EXPECT_EQ(value, 0xBu);
    EXPECT_FALSE(reader.read_bits(value, 13));
    ASSERT_TRUE(reader.read_bits(value, 12));
    EXPECT_EQ(value, 0xCDAu);
    EXPECT_FALSE(reader.read_bits(value, 1));
}

TEST(BitReader, EmptySpanRefusesEveryRead)
{
    bitrep::bit_reader reader{std::span<const std::uint8_t>()};
    std::uint32_t value = 0;
    for (int bits = 1; bits <= 32; ++bits)
        EXPECT_FALSE(reader.read_bits(value, bits)) << bits;
    EXPECT_EQ(reader.bits_read(), 0u);
    EXPECT_EQ(reader.bits_remaining(), 0u);
}

TEST(BitReader, BytesOutsideTheSpanNeverInfluenceWhatIsRead)
{
    // The same 1..9 data bytes sit inside two buffers whose surrounding bytes
    // differ (0x00 vs 0xFF): every read, accepted or refused, must agree.
    std::mt19937_64 rng(0xB17'0004);
    for (int iteration = 0; iteration < 2000; ++iteration) {
        const std::size_t size = 1 + rng() % 9;
        std::array<std::uint8_t, 32> zeros{};
        std::array<std::uint8_t, 32> ones;
        ones.fill(0xFF);
        for (std::size_t i = 0; i < size; ++i)
            zeros[8 + i] = ones[8 + i] = static_cast<std::uint8_t>(rng());
        bitrep::bit_reader a{std::span<const std::uint8_t>(zeros.data() + 8, size)};
        bitrep::bit_reader b{std::span<const std::uint8_t>(ones.data() + 8, size)};
        const std::span<const std::uint8_t> data(zeros.data() + 8, size);
        for (int step = 0; step < 12; ++step) {
            const int bits = 1 + static_cast<int>(rng() % 32);
            const std::size_t position = a.bits_read();
            const bool fits = position + static_cast<std::size_t>(bits) <= size * 8;
            std::uint32_t va = 0, vb = 0;
            const bool ra = a.read_bits(va, bits);
            const bool rb = b.read_bits(vb, bits);
            ASSERT_EQ(ra, fits) << "iteration " << iteration;
            ASSERT_EQ(rb, fits) << "iteration " << iteration;
            if (fits) {
                const std::uint32_t expected = reference_extract(data, position, bits);
                ASSERT_EQ(va, expected) << "iteration " << iteration;
                ASSERT_EQ(vb, expected) << "iteration " << iteration;
            }
            ASSERT_EQ(a.bits_read(), b.bits_read());
        }
    }
}

TEST(BitReader, LastBitsOfTheSpanReadCorrectlyWhateverFollowsIt)
{
    // A 3-byte span followed by 0xFF bytes: the final 24-bit read sees only the span.
    const std::array<std::uint8_t, 8> storage{0x01, 0x02, 0x03, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    bitrep::bit_reader reader{std::span<const std::uint8_t>(storage.data(), 3)};
    std::uint32_t value = 0;
    ASSERT_TRUE(reader.read_bits(value, 20));
    EXPECT_EQ(value, 0x30201u);
    ASSERT_TRUE(reader.read_bits(value, 4));
    EXPECT_EQ(value, 0x0u);
    EXPECT_FALSE(reader.read_bits(value, 1));
}

TEST(BitReader, TotalBitsIsEightTimesTheSpanSize)
{
    const byte_vector data(7);
    bitrep::bit_reader reader{std::span<const std::uint8_t>(data)};
    EXPECT_EQ(reader.total_bits(), 56u);
    EXPECT_EQ(reader.bits_remaining(), 56u);
    EXPECT_EQ(reader.bits_read(), 0u);
}

TEST(BitReader, BitsRemainingCountsDownToZero)
{
    const byte_vector data(5);
    bitrep::bit_reader reader{std::span<const std::uint8_t>(data)};
    std::uint32_t value = 0;
    const int widths[] = {3, 32, 4, 1};
    std::size_t read = 0;
    for (int bits : widths) {
        ASSERT_TRUE(reader.read_bits(value, bits));
        read += static_cast<std::size_t>(bits);
        EXPECT_EQ(reader.bits_read(), read);
        EXPECT_EQ(reader.bits_remaining(), 40u - read);
    }
    EXPECT_EQ(reader.bits_remaining(), 0u);
    EXPECT_FALSE(reader.read_bits(value, 1));
}

// ---------------------------------------------------------------------------
// bits_required (reference section 3)
// ---------------------------------------------------------------------------

TEST(BitsRequired, EqualBoundsNeedZeroBits)
{
    EXPECT_EQ(bitrep::bits_required(0, 0), 0);
    EXPECT_EQ(bitrep::bits_required(-7, -7), 0);
    EXPECT_EQ(bitrep::bits_required(std::numeric_limits<std::int32_t>::max(), std::numeric_limits<std::int32_t>::max()), 0);
    EXPECT_EQ(bitrep::bits_required(std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::min()), 0);
}

TEST(BitsRequired, Int32WidthIsTheBitLengthOfTheSpan)
{
    EXPECT_EQ(bitrep::bits_required(0, 1), 1);
    EXPECT_EQ(bitrep::bits_required(0, 7), 3);
    EXPECT_EQ(bitrep::bits_required(0, 8), 4);
    EXPECT_EQ(bitrep::bits_required(0, 255), 8);
    EXPECT_EQ(bitrep::bits_required(-100, 100), 8);
    EXPECT_EQ(bitrep::bits_required(0, 65535), 16);
}

TEST(BitsRequired, Int32SpanOfTwoToTheThirtyTwoMinusOneNeeds32Bits)
{
    EXPECT_EQ(bitrep::bits_required(std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()), 32);
    EXPECT_EQ(bitrep::bits_required(std::uint32_t{0}, std::uint32_t{0xFFFFFFFF}), 32);
}

TEST(BitsRequired, Int64WidthsAboveThirtyTwoBits)
{
    EXPECT_EQ(bitrep::bits_required(std::int64_t{0}, std::int64_t{0xFFFFFFFF}), 32);     // [0, 2^32-1]
    EXPECT_EQ(bitrep::bits_required(std::int64_t{0}, std::int64_t{1} << 32), 33);        // [0, 2^32]
    EXPECT_EQ(bitrep::bits_required(std::int64_t{0}, std::int64_t{1} << 40), 41);        // [0, 2^40]
    EXPECT_EQ(bitrep::bits_required(std::int64_t{-5000000000}, std::int64_t{5000000000}), 34); // span 10^10 < 2^34
}

TEST(BitsRequired, FullInt64RangeNeeds64Bits)
{
    EXPECT_EQ(bitrep::bits_required(std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()), 64);
}

TEST(BitsRequired, SpanFormAgreesWithTheBoundsForm)
{
    EXPECT_EQ(bitrep::bits_required_for_span(0), 0);
    EXPECT_EQ(bitrep::bits_required_for_span(1), 1);
    EXPECT_EQ(bitrep::bits_required_for_span(200), 8);
    EXPECT_EQ(bitrep::bits_required_for_span(0xFFFFFFFFull), 32);
    EXPECT_EQ(bitrep::bits_required_for_span(0x100000000ull), 33);
    EXPECT_EQ(bitrep::bits_required_for_span(~0ull), 64);
}

// ---------------------------------------------------------------- whole bytes

TEST(BitWriter, WriteBytesAtEveryAlignedStateEqualsEightBitGroups)
{
    // Whole bytes written after 0..7 bytes of lead-in (so the scratch word is
    // empty or holds 1..3 bytes) must lay down exactly what 8-bit groups do.
    for (std::size_t lead = 0; lead < 8; ++lead) {
        for (std::size_t count = 0; count < 13; ++count) {
            byte_vector payload;
            for (std::size_t i = 0; i < count; ++i)
                payload.push_back(static_cast<std::uint8_t>(0xA0 + i));
            oracle::bit_builder expected;
            for (std::size_t i = 0; i < lead; ++i)
                expected.bits(i + 1, 8);
            for (std::uint8_t b : payload)
                expected.bits(b, 8);
            expected.bits(5, 3); // a trailing partial group after the bytes

            byte_vector buffer(lead + count + 1);
            bitrep::bit_writer writer(buffer);
            for (std::size_t i = 0; i < lead; ++i)
                ASSERT_TRUE(writer.write_bits(static_cast<std::uint32_t>(i + 1), 8));
            ASSERT_TRUE(writer.write_bytes(payload.data(), count));
            ASSERT_TRUE(writer.write_bits(5, 3));
            writer.flush();
            EXPECT_EQ(writer.bits_written(), (lead + count) * 8 + 3);
            EXPECT_EQ(buffer, expected.result()) << "lead " << lead << ", count " << count;
        }
    }
}

TEST(BitWriter, WriteBytesThatDoNotFitAreRefusedAndNothingIsWritten)
{
    byte_vector buffer(4, 0xEE);
    bitrep::bit_writer writer(buffer);
    ASSERT_TRUE(writer.write_bits(0x11, 8));
    const std::uint8_t payload[4] = {1, 2, 3, 4};
    EXPECT_FALSE(writer.write_bytes(payload, 4));
    EXPECT_EQ(writer.bits_written(), 8u);
    EXPECT_TRUE(writer.write_bytes(payload, 3));
    writer.flush();
    EXPECT_EQ(buffer, (byte_vector{0x11, 1, 2, 3}));
}

TEST(BitReader, ReadBytesAtEveryAlignedStateReturnsTheBytesInOrder)
{
    byte_vector data(24);
    for (std::size_t i = 0; i < data.size(); ++i)
        data[i] = static_cast<std::uint8_t>(i * 7 + 1);
    for (std::size_t lead = 0; lead < 8; ++lead) {
        for (std::size_t count = 0; lead + count < data.size(); ++count) {
            bitrep::bit_reader reader(data);
            for (std::size_t i = 0; i < lead; ++i) {
                std::uint32_t byte = 0;
                ASSERT_TRUE(reader.read_bits(byte, 8));
            }
            byte_vector out(count);
            ASSERT_TRUE(reader.read_bytes(out.data(), count));
            EXPECT_TRUE(std::equal(out.begin(), out.end(), data.begin() + static_cast<std::ptrdiff_t>(lead)))
                << "lead " << lead << ", count " << count;
            // The stream continues correctly after the bytes.
            if (lead + count < data.size()) {
                std::uint32_t next = 0;
                ASSERT_TRUE(reader.read_bits(next, 8));
                EXPECT_EQ(next, data[lead + count]);
            }
        }
    }
}

TEST(BitReader, ReadBytesPastTheEndIsRefusedAndConsumesNothing)
{
    const byte_vector data{1, 2, 3};
    bitrep::bit_reader reader(data);
    std::uint32_t first = 0;
    ASSERT_TRUE(reader.read_bits(first, 8));
    std::uint8_t out[3] = {};
    EXPECT_FALSE(reader.read_bytes(out, 3));
    EXPECT_EQ(reader.bits_read(), 8u);
    EXPECT_TRUE(reader.read_bytes(out, 2));
    EXPECT_EQ(out[0], 2);
    EXPECT_EQ(out[1], 3);
}
