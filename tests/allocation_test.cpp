// Allocation guarantees: writing into a caller buffer never allocates, not
// even when it fails, and reporting a failure never allocates (a status
// holds its path inline), so read paths cannot throw std::bad_alloc for it.
#include <bitrep/bitrep.hpp>
#include <bitrep/delta.hpp>

#include <gtest/gtest.h>

#include "allocation_counter.hpp" // replaces operator new for this test binary

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace {

using allocation_counter::allocations_during;

struct Vec { bitrep::quantized<-10.f, 10.f, 0.01f> x, y; };
struct Unit {
    bitrep::ranged<int, 0, 100> health;
    Vec position;
    bitrep::quat<9> orientation;
    std::array<bitrep::ranged<int, 1, 64>, 4> counts;
};

} // namespace

TEST(Allocation, EncodingIntoACallerBufferAllocatesNothing)
{
    const Unit unit{50, {1.0f, -2.0f}, {}, {{1, 2, 3, 4}}};
    std::array<std::uint8_t, 64> buffer{};
    std::size_t written = 0;
    bitrep::status st;
    EXPECT_EQ(allocations_during([&] { st = bitrep::to_bytes(unit, std::span<std::uint8_t>(buffer), written); }), 0u);
    EXPECT_TRUE(st);
    EXPECT_GT(written, 0u);
}

TEST(Allocation, AFailedEncodeIntoACallerBufferAllocatesNothing)
{
    Unit unit{50, {1.0f, -2.0f}, {}, {{1, 2, 3, 4}}};
    std::array<std::uint8_t, 2> small{};
    std::size_t written = 0;
    bitrep::status st;
    EXPECT_EQ(allocations_during([&] { st = bitrep::to_bytes(unit, std::span<std::uint8_t>(small), written); }), 0u);
    EXPECT_EQ(st.code(), bitrep::error::buffer_too_small);

    unit.counts[2] = 65; // outside [1, 64]
    std::array<std::uint8_t, 64> buffer{};
    EXPECT_EQ(allocations_during([&] { st = bitrep::to_bytes(unit, std::span<std::uint8_t>(buffer), written); }), 0u);
    EXPECT_EQ(st.code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(st.field_path(), "Unit.#3[2]");
}

TEST(Allocation, AFailedDecodeOfAContainerFreeTypeAllocatesNothing)
{
    const std::array<std::uint8_t, 3> truncated{0x10, 0x20, 0x30};
    Unit target{};
    bitrep::status st;
    EXPECT_EQ(allocations_during([&] { st = bitrep::from_bytes(truncated, target); }), 0u);
    EXPECT_EQ(st.code(), bitrep::error::truncated);
}

namespace {
/// A hook type that declares no bitrep_max_bits: its bound is unknown, so
/// deltas compare two values by encoding both.
struct Waypoint {
    std::int32_t x = 0;
    std::int32_t y = 0;
    template <class Stream>
    bool serialize(Stream& stream)
    {
        return stream.serialize_int(x, -100000, 100000) && stream.serialize_int(y, -100000, 100000);
    }
};
static_assert(bitrep::max_bits<Waypoint> == bitrep::unbounded_bits);

/// Up to 1024 bytes in one message, usually a handful.
struct Inbox {
    bitrep::bounded_vector<bitrep::ranged<int, 0, 255>, 1024> bytes;
};
} // namespace

TEST(Allocation, ComparingHookValuesOnTheWireAllocatesNothingOnceWarm)
{
    const Waypoint a{10, 20};
    Waypoint b{10, 21};
    EXPECT_FALSE(bitrep::same_on_wire<bitrep::scope::replication>(a, b)); // may size this thread's scratch once
    bool same = true;
    EXPECT_EQ(allocations_during([&] {
                  for (int i = 0; i < 100; ++i) {
                      b.y = 20 + i % 2;
                      same = bitrep::same_on_wire<bitrep::scope::replication>(a, b) && same;
                  }
              }),
              0u);
    EXPECT_FALSE(same);
    b.y = 20;
    EXPECT_TRUE(bitrep::same_on_wire<bitrep::scope::replication>(a, b));
}

TEST(Allocation, EncodingIntoAVectorAllocatesForTheEncodingNotForTheBound)
{
    Inbox inbox{};
    inbox.bytes.push_back(7);
    inbox.bytes.push_back(8);
    static_assert(bitrep::max_bits<Inbox> / 8 > 1000);
    std::vector<std::uint8_t> out;
    ASSERT_TRUE(bitrep::to_bytes(inbox, out));
    EXPECT_EQ(out.size(), 4u); // 11 bits of count, 2 x 8 bits
    EXPECT_LE(out.capacity(), 64u);
}

namespace {
/// Containers at every level, and a string past any small-string buffer.
struct Roster {
    bitrep::bounded_string<40> title;
    bitrep::bounded_vector<bitrep::bounded_vector<bitrep::ranged<int, 0, 255>, 8>, 8> squads;
};
/// The same with a field the encoding does not carry (it comes from the target).
struct CachedRoster {
    Roster roster;
    bitrep::transient<std::vector<int>> cache;
};
} // namespace

TEST(Allocation, FromBytesOfATypeWithContainersAllocatesNothingOnceWarm)
{
    // from_bytes decodes into a working object the thread keeps for the
    // type, so only the first messages grow capacity. (As many squads in
    // each: a vector that shrinks destroys the inner vectors past its new
    // size, and their capacity with them.)
    const Roster full{"a title longer than any inline buffer", {{1, 2, 3, 4, 5, 6, 7, 8}, {9, 10}, {11, 12, 13}}};
    const Roster small{"short", {{1}, {}, {2}}};
    const std::vector<std::uint8_t> full_bytes = bitrep::to_bytes(full);
    const std::vector<std::uint8_t> small_bytes = bitrep::to_bytes(small);
    std::vector<std::uint8_t> refused = full_bytes;
    refused.pop_back();
    Roster target{};
    bool all_ok = true;
    auto stream_of_messages = [&](int count) {
        for (int i = 0; i < count; ++i) {
            all_ok = bitrep::from_bytes(i % 2 ? small_bytes : full_bytes, target) && all_ok;
            all_ok = !bitrep::from_bytes(refused, target) && all_ok;
        }
    };
    // Warm once the target and the working object, which trade places on
    // every success, have each held the full roster.
    stream_of_messages(4);
    EXPECT_EQ(allocations_during([&] { stream_of_messages(50); }), 0u);
    EXPECT_TRUE(all_ok);
    EXPECT_EQ(target.title.str(), "short");

    CachedRoster cached{};
    cached.cache.get() = {1, 2, 3};
    CachedRoster cached_full{full, {}};
    const std::vector<std::uint8_t> cached_bytes = bitrep::to_bytes(cached_full);
    for (int warm = 0; warm < 2; ++warm)
        ASSERT_TRUE(bitrep::from_bytes(cached_bytes, cached));
    EXPECT_EQ(allocations_during([&] {
                  for (int i = 0; i < 50; ++i)
                      all_ok = bitrep::from_bytes(cached_bytes, cached) && all_ok;
              }),
              0u);
    EXPECT_TRUE(all_ok);
    EXPECT_EQ(cached.cache.get(), (std::vector<int>{1, 2, 3}));
}

TEST(Allocation, FromBytesOfTypesTakenInTurnAllocatesNothingOnceWarm)
{
    // The thread keeps a working object per type: switching type on every
    // message finds each one's again.
    const Roster roster{"a title longer than any inline buffer", {{1, 2, 3}, {4}}};
    CachedRoster cached_sent{roster, {}};
    const std::vector<std::uint8_t> roster_bytes = bitrep::to_bytes(roster);
    const std::vector<std::uint8_t> cached_bytes = bitrep::to_bytes(cached_sent);
    Roster roster_target{};
    CachedRoster cached_target{};
    cached_target.cache.get() = {7};
    bool all_ok = true;
    auto in_turn = [&](int count) {
        for (int i = 0; i < count; ++i) {
            all_ok = bitrep::from_bytes(roster_bytes, roster_target) && all_ok;
            all_ok = bitrep::from_bytes(cached_bytes, cached_target) && all_ok;
        }
    };
    in_turn(2);
    EXPECT_EQ(allocations_during([&] { in_turn(50); }), 0u);
    EXPECT_TRUE(all_ok);
    EXPECT_EQ(roster_target.title.str(), roster.title.str());
    EXPECT_EQ(cached_target.cache.get(), (std::vector<int>{7}));
}

TEST(Allocation, TheCounterSeesAllocations)
{
    // The counter itself must work, or the tests above would pass vacuously.
    // The pointer escapes through an opaque asm, so the optimiser cannot elide
    // the pair (it may, and at -O3 does, elide a plain `delete new int`).
    EXPECT_EQ(allocations_during([] {
                  int* p = new int(3);
                  asm volatile("" : : "r"(p) : "memory");
                  delete p;
              }),
              1u);
}
