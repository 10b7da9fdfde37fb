// codecs/bitset.hpp: std::bitset<N> as N bits, bit 0 first (docs/formats/wire-format.md,
// section 3): golden bits from the test oracle's own packer, deltas, and
// saves loading between bitsets and arrays of bools.
#include <bitrep/bitrep.hpp>
#include <bitrep/coded_delta.hpp>
#include <bitrep/delta.hpp>

#include <gtest/gtest.h>

#include "delta_helpers.hpp"
#include "test_oracle.hpp"

#include <array>
#include <bitset>
#include <cstdint>
#include <random>
#include <span>
#include <string_view>
#include <vector>

namespace {

using bitrep::scope;
using namespace oracle::common;

struct Doors {
    std::bitset<5> open;      // 5 bits
    std::bitset<40> visited;  // 40 bits: a word of 32, then 8
};
BOOST_DESCRIBE_STRUCT(Doors, (), (open, visited))

Doors sample()
{
    Doors d;
    d.open.set(0).set(2);
    d.visited.set(1).set(31).set(32).set(39);
    return d;
}

} // namespace

TEST(Bitset, NBitsBitZeroFirstAsAnArrayOfBoolsIs)
{
    EXPECT_EQ(bitrep::max_bits<Doors>, 45u);
    bytes out;
    ASSERT_TRUE(bitrep::to_bytes(sample(), out));
    const std::uint64_t visited = (1ull << 1) | (1ull << 31) | (1ull << 32) | (1ull << 39);
    EXPECT_EQ(out, bit_builder{}.bits(0b00101, 5).bits(visited & 0xffffffffu, 32).bits(visited >> 32, 8).result());
    EXPECT_EQ(out, (bytes{0x45, 0x00, 0x00, 0x00, 0x30, 0x10})); // as docs/formats/wire-format.md lists it
    // The same bits as std::array<bool, N>.
    struct Arrays {
        std::array<bool, 5> open{true, false, true, false, false};
        std::array<bool, 40> visited{};
    } arrays;
    for (std::size_t i : {1u, 31u, 32u, 39u})
        arrays.visited[i] = true;
    EXPECT_EQ(bitrep::to_bytes(arrays), out);
    Doors got;
    got.visited.set(7);
    ASSERT_TRUE(bitrep::from_bytes(out, got));
    EXPECT_EQ(got.open, sample().open);
    EXPECT_EQ(got.visited, sample().visited);
}

TEST(Bitset, EveryTruncationIsRefusedAndChangesNothing)
{
    const bytes whole = bitrep::to_bytes(sample());
    for (std::size_t n = 0; n < whole.size(); ++n) {
        Doors target;
        target.open.set(4);
        EXPECT_FALSE(bitrep::from_bytes(std::span(whole).first(n), target)) << n;
        EXPECT_EQ(target.open, std::bitset<5>().set(4));
    }
}

TEST(BitsetDelta, ABitsetChangesAsAWhole)
{
    const Doors base = sample();
    Doors current = base;
    current.visited.flip(20);
    // Doors changed; open unchanged; visited changed and its 40 bits.
    EXPECT_EQ(bitrep::delta_bit_size(base, current), 1u + 1u + 1u + 40u);
    EXPECT_EQ(bitrep::delta_bit_size(base, base), 1u);
    std::mt19937 random(5);
    bitrep::delta_coder<Doors, scope::all> coder;
    Doors older, was, now = base;
    for (int step = 0; step < 200; ++step) {
        older = was;
        was = now;
        if (random() % 2 == 0)
            now.visited.flip(random() % 40);
        if (random() % 3 == 0)
            now.open.flip(random() % 5);
        const oracle::coded<Doors> decoded = oracle::coded_round_trip(coder, older, was, now, 64);
        ASSERT_TRUE(decoded.ok) << step;
        ASSERT_EQ(decoded.value.visited, now.visited) << step;
        ASSERT_EQ(decoded.value.open, now.open) << step;
    }
}

namespace saves {
struct DoorsArrays {
    static constexpr std::string_view bitrep_name = "Doors";
    std::array<bool, 8> open{};        // longer
    std::array<bool, 40> visited{};
};
BOOST_DESCRIBE_STRUCT(DoorsArrays, (), (open, visited))
struct DoorsFew {
    static constexpr std::string_view bitrep_name = "Doors";
    std::array<bool, 3> open{};
    std::array<bool, 40> visited{};
};
BOOST_DESCRIBE_STRUCT(DoorsFew, (), (open, visited))
struct DoorsShorter {
    static constexpr std::string_view bitrep_name = "Doors";
    std::bitset<3> open;               // shorter than the file's 5
    std::bitset<64> visited;           // longer
};
BOOST_DESCRIBE_STRUCT(DoorsShorter, (), (open, visited))
} // namespace saves

TEST(BitsetSave, ABitsetLoadsIntoALongerArrayOfBoolsAndBackWithTheRestCleared)
{
    saves::DoorsArrays arrays;
    bitrep::load_info info;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(sample()), arrays, info));
    EXPECT_EQ(arrays.open, (std::array<bool, 8>{true, false, true, false, false, false, false, false}));
    EXPECT_TRUE(arrays.visited[39]);
    // Back: fewer bools than bits clear the rest; more are refused.
    saves::DoorsFew few;
    few.open = {true, true, false};
    Doors back;
    back.open.set(4);
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(few), back, info));
    EXPECT_EQ(back.open, std::bitset<5>(0b00011));
    EXPECT_FALSE(bitrep::load_from_bytes(bitrep::save_to_bytes(arrays), back, info)); // 8 bools into 5 bits
    EXPECT_EQ(back.open, std::bitset<5>(0b00011));
    Doors exact;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(sample()), exact, info));
    EXPECT_EQ(info.path, bitrep::load_info::route::fast);
}

TEST(BitsetSave, ALongerBitsetInTheFileIsRefusedNamingTheField)
{
    saves::DoorsShorter shorter;
    shorter.visited.set(63);
    bitrep::load_info info;
    const bitrep::status st = bitrep::load_from_bytes(bitrep::save_to_bytes(sample()), shorter, info);
    EXPECT_EQ(st.code(), bitrep::error::out_of_range);
    EXPECT_TRUE(oracle::contains(st.message(), ".open")) << st.message();
    EXPECT_TRUE(oracle::contains(st.message(), "the file's bitset is longer than the program's")) << st.message();
    EXPECT_TRUE(shorter.visited.test(63));
}
