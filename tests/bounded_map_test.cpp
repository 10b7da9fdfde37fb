// codecs/bounded_map.hpp: bounded_map and bounded_set over ordered and
// unordered standard containers (docs/formats/wire-format.md, sections 3 and 6.3):
// golden bits from the test oracle's own packer, the canonical order,
// refusals, deltas by entry, and saves loading between maps and vectors.
#include <bitrep/bitrep.hpp>
#include <bitrep/coded_delta.hpp>
#include <bitrep/delta.hpp>

#include <gtest/gtest.h>

#include "delta_helpers.hpp"
#include "test_oracle.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <span>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace {

using bitrep::scope;
using namespace oracle::common;
using key16 = bitrep::ranged<int, 0, 15>;
using count99 = bitrep::ranged<int, 0, 99>;

struct Stash {
    static constexpr std::string_view bitrep_name = "Stash";
    bitrep::bounded_map<key16, count99, 4> items;                                    // count: 3 bits
    bitrep::bounded_set<std::uint8_t, 3, std::unordered_set<std::uint8_t>> seen;    // count: 2 bits
};
BOOST_DESCRIBE_STRUCT(Stash, (), (items, seen))

Stash sample()
{
    Stash s;
    s.items[key16(3)] = 50;
    s.items[key16(1)] = 7;
    s.seen.insert(200);
    s.seen.insert(4);
    return s;
}

template <class T>
bitrep::status decode_into(std::span<const std::uint8_t> data, T& out)
{
    return bitrep::from_bytes(data, out);
}

} // namespace

TEST(BoundedMap, TheCountThenEntriesInKeyOrder)
{
    EXPECT_EQ(bitrep::max_bits<Stash>, 3u + 4u * (4u + 7u) + 2u + 3u * 8u);
    const bytes out = oracle::encode(sample());
    const bytes expected = bit_builder{}
                               .bits(2, 3)   // two entries
                               .bits(1, 4)   // key 1
                               .bits(7, 7)   // its count
                               .bits(3, 4)   // key 3
                               .bits(50, 7)  // its count
                               .bits(2, 2)   // two keys
                               .bits(4, 8)   // in ascending order, whatever the hash order
                               .bits(200, 8)
                               .result();
    EXPECT_EQ(out, expected);
    EXPECT_EQ(out, (bytes{0x8a, 0xc3, 0xc8, 0x24, 0x40, 0x06})); // as docs/formats/wire-format.md lists it
    Stash got;
    got.items[key16(9)] = 9;
    ASSERT_TRUE(bitrep::from_bytes(out, got));
    EXPECT_EQ(got.items, sample().items);
    EXPECT_EQ(got.seen, sample().seen);
}

TEST(BoundedMap, EqualMapsGiveEqualBytesOrderedOrUnordered)
{
    using ordered = bitrep::bounded_map<std::uint16_t, std::int32_t, 64>;
    using hashed = bitrep::bounded_map<std::uint16_t, std::int32_t, 64, std::unordered_map<std::uint16_t, std::int32_t>>;
    std::mt19937 random(3);
    for (int round = 0; round < 50; ++round) {
        std::vector<std::pair<std::uint16_t, std::int32_t>> entries;
        for (std::size_t n = random() % 65; entries.size() < n;) {
            const auto key = static_cast<std::uint16_t>(random());
            if (std::none_of(entries.begin(), entries.end(), [&](const auto& e) { return e.first == key; }))
                entries.emplace_back(key, static_cast<std::int32_t>(random()));
        }
        ordered a;
        hashed b;
        hashed c;
        c.map().reserve(500); // another bucket count: another iteration order
        for (const auto& [k, v] : entries)
            a[k] = v, b[k] = v;
        std::shuffle(entries.begin(), entries.end(), random);
        for (const auto& [k, v] : entries)
            c[k] = v;
        const bytes bytes_a = oracle::encode(a);
        EXPECT_EQ(oracle::encode(b), bytes_a) << round;
        EXPECT_EQ(oracle::encode(c), bytes_a) << round;
        // The bits of a bounded_vector of the pairs, sorted.
        bitrep::bounded_vector<std::pair<std::uint16_t, std::int32_t>, 64> as_vector;
        for (const auto& [k, v] : a)
            as_vector.push_back({k, v});
        EXPECT_EQ(oracle::encode(as_vector), bytes_a) << round;
        hashed back;
        ASSERT_TRUE(bitrep::from_bytes(bytes_a, back));
        EXPECT_EQ(back.map(), b.map());
    }
}

TEST(BoundedMap, AKeyGivenTwiceIsRefusedAndChangesNothing)
{
    // Two entries, both key 3.
    const bytes twice = bit_builder{}.bits(2, 3).bits(3, 4).bits(1, 7).bits(3, 4).bits(2, 7).bits(0, 2).result();
    Stash target = sample();
    const bitrep::status st = decode_into(twice, target);
    EXPECT_STATUS(st, bitrep::error::duplicate_key, "Stash.items[1]", 3 + 11);
    EXPECT_EQ(target.items, sample().items);
    // Keys out of order are the same map: read, not refused.
    const bytes reversed = bit_builder{}.bits(2, 3).bits(3, 4).bits(50, 7).bits(1, 4).bits(7, 7).bits(0, 2).result();
    Stash got;
    ASSERT_TRUE(decode_into(reversed, got));
    EXPECT_EQ(got.items, sample().items);
    // A set's key twice.
    const bytes set_twice = bit_builder{}.bits(0, 3).bits(2, 2).bits(4, 8).bits(4, 8).result();
    EXPECT_STATUS(decode_into(set_twice, target), bitrep::error::duplicate_key, "Stash.seen[1]", 3 + 2 + 8);
}

TEST(BoundedMap, ACountPastTheBoundAndEveryTruncationAreRefused)
{
    const bytes five = bit_builder{}.bits(5, 3).result();
    Stash target = sample();
    EXPECT_STATUS(decode_into(five, target), bitrep::error::out_of_range, "Stash.items", 0);
    const bytes whole = oracle::encode(sample());
    for (std::size_t n = 0; n < whole.size(); ++n) {
        EXPECT_FALSE(decode_into(std::span(whole).first(n), target)) << n;
        EXPECT_EQ(target.items, sample().items);
        EXPECT_EQ(target.seen, sample().seen);
    }
    // Writing a map past its bound is refused, naming it.
    Stash big;
    for (int k = 0; k < 5; ++k)
        big.items[key16(k)] = k;
    bytes out;
    EXPECT_STATUS(bitrep::to_bytes(big, out), bitrep::error::value_out_of_range, "Stash.items", 0);
}

namespace {
struct Inventory {
    bitrep::bounded_map<std::uint16_t, count99, 64, std::unordered_map<std::uint16_t, count99>> items;
    bitrep::bounded_set<key16, 16> quests;
};
BOOST_DESCRIBE_STRUCT(Inventory, (), (items, quests))
} // namespace

TEST(BoundedMapDelta, OnlyTheRemovedChangedAndInsertedEntriesAreSent)
{
    Inventory base;
    for (std::uint16_t k = 0; k < 40; ++k)
        base.items[static_cast<std::uint16_t>(k * 3)] = k;
    base.quests = {key16(2), key16(5)};
    EXPECT_EQ(bitrep::delta_bit_size(base, base), 1u);

    Inventory one = base;
    one.items[30] = 99; // the 11th key in order
    // Inventory changed; items changed; 0 removed of 40 (6 bits); 1 changed
    // of 40 (6 bits); its index 10 in [0, 39] (6 bits); the count's delta
    // (7 bits); 0 inserted of 64 - 40 (5 bits); quests unchanged.
    EXPECT_EQ(bitrep::delta_bit_size(base, one), 1u + 1u + 6u + 6u + 6u + 7u + 5u + 1u);
    EXPECT_EQ(oracle::replicate(base, one, Inventory{}).items, one.items);

    Inventory mixed = base;
    mixed.items.erase(0);
    mixed.items.erase(117);
    mixed.items[1] = 5;
    mixed.items[60] = 61;
    mixed.quests.erase(key16(2));
    mixed.quests.insert(key16(15));
    mixed.quests.insert(key16(0));
    const Inventory got = oracle::replicate(base, mixed, Inventory{});
    EXPECT_EQ(got.items, mixed.items);
    EXPECT_EQ(got.quests, mixed.quests);
    // Far fewer bits than the whole map (40 entries of 16 + 7 bits).
    EXPECT_LT(bitrep::delta_bit_size(base, mixed), 120u);
    // Reading into the baseline object itself.
    Inventory in_place = base;
    const oracle::encoded e = oracle::encode_delta(base, mixed);
    bitrep::read_stream stream(e.data);
    ASSERT_TRUE(bitrep::read_delta(stream, in_place, in_place));
    EXPECT_EQ(in_place.items, mixed.items);
}

TEST(BoundedMapDelta, RandomEditsRoundTripOnBothStreams)
{
    std::mt19937 random(17);
    bitrep::delta_coder<Inventory, scope::all> coder;
    Inventory older, was, now;
    for (int step = 0; step < 400; ++step) {
        older = was;
        was = now;
        for (int edit = static_cast<int>(random() % 4); edit-- > 0;) {
            const auto key = static_cast<std::uint16_t>(random() % 100);
            switch (random() % 3) {
            case 0: now.items.erase(key); break;
            case 1:
                if (now.items.size() < 64 || now.items.contains(key))
                    now.items[key] = static_cast<int>(random() % 100);
                break;
            default:
                if (now.quests.contains(key16(key % 16)))
                    now.quests.erase(key16(key % 16));
                else
                    now.quests.insert(key16(key % 16));
            }
        }
        const Inventory plain = oracle::replicate(was, now, older);
        ASSERT_EQ(plain.items, now.items) << step;
        ASSERT_EQ(plain.quests, now.quests) << step;
        const oracle::coded<Inventory> decoded = oracle::coded_round_trip(coder, older, was, now, 1024);
        ASSERT_TRUE(decoded.ok) << step;
        ASSERT_EQ(decoded.value.items, now.items) << step;
        ASSERT_EQ(decoded.value.quests, now.quests) << step;
    }
}

TEST(BoundedMapDelta, AnInsertedKeyTheMapHoldsIsRefused)
{
    struct One {
        bitrep::bounded_map<key16, count99, 4> items;
    };
    One base;
    base.items[key16(1)] = 5;
    // One changed, items changed, 0 removed of 1 (1 bit), 0 changed of 1
    // (1 bit), 1 inserted of 3 (2 bits): key 1 again, count 9.
    const bytes forged = bit_builder{}.bits(1, 1).bits(1, 1).bits(0, 1).bits(0, 1).bits(1, 2).bits(1, 4).bits(9, 7).result();
    bitrep::read_stream stream(forged);
    One out;
    EXPECT_FALSE(bitrep::read_delta(stream, base, out));
    EXPECT_STATUS(stream.failure_status("One"), bitrep::error::duplicate_key, "One.#0[0]", 6); // One is reflected by position
}

namespace saves {
struct StashVector {
    static constexpr std::string_view bitrep_name = "Stash";
    bitrep::bounded_vector<std::pair<int, int>, 8> items;
    bitrep::bounded_vector<int, 3> seen;
};
BOOST_DESCRIBE_STRUCT(StashVector, (), (items, seen))
struct StashSmall {
    static constexpr std::string_view bitrep_name = "Stash";
    bitrep::bounded_map<key16, count99, 2> items;
};
BOOST_DESCRIBE_STRUCT(StashSmall, (), (items))
} // namespace saves

TEST(BoundedMapSave, MapsAndVectorsOfPairsLoadIntoEachOther)
{
    saves::StashVector v;
    bitrep::load_info info;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(sample()), v, info));
    EXPECT_EQ(info.path, bitrep::load_info::route::schema);
    EXPECT_EQ(v.items.vector(), (std::vector<std::pair<int, int>>{{1, 7}, {3, 50}}));
    EXPECT_EQ(v.seen.vector(), (std::vector<int>{4, 200}));
    // Back, in any order; a key twice is refused naming the entry.
    v.items = {{9, 1}, {2, 3}};
    v.seen = {7};
    Stash s;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(v), s, info));
    EXPECT_EQ(s.items.size(), 2u);
    EXPECT_EQ(s.items.at(key16(9)), 1);
    EXPECT_TRUE(s.seen.contains(7));
    v.items = {{9, 1}, {2, 3}, {9, 4}};
    const bitrep::status st = bitrep::load_from_bytes(bitrep::save_to_bytes(v), s, info);
    EXPECT_EQ(st.code(), bitrep::error::duplicate_key) << st.message();
    EXPECT_EQ(st.field_path(), "Stash.items[2]") << st.message();
    EXPECT_EQ(s.items.at(key16(9)), 1);
    // Same schema: the fast path.
    Stash again;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(sample()), again, info));
    EXPECT_EQ(info.path, bitrep::load_info::route::fast);
    EXPECT_EQ(again.items, sample().items);
}

TEST(BoundedMapSave, MoreEntriesThanTheProgramsBoundAreRefused)
{
    saves::StashSmall small;
    bitrep::load_info info;
    Stash three = sample();
    three.items[key16(0)] = 1;
    const bitrep::status st = bitrep::load_from_bytes(bitrep::save_to_bytes(three), small, info);
    EXPECT_EQ(st.code(), bitrep::error::out_of_range) << st.message();
    EXPECT_EQ(st.field_path(), "saves::StashSmall.items") << st.message();
    EXPECT_TRUE(small.items.empty());
    // Fewer fit.
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(sample()), small, info));
    EXPECT_EQ(small.items, sample().items.map());
}
