// Allocation guarantees: writing into a caller buffer never allocates, not
// even when it fails, and reporting a failure never allocates (a status
// holds its path inline), so read paths cannot throw std::bad_alloc for it.
// A replication server, once warm, allocates nothing to replicate or receive.
#include <bitrep/bitrep.hpp>
#include <bitrep/delta.hpp>

#include <gtest/gtest.h>

#include "allocation_counter.hpp" // replaces operator new for this test binary
#include "replication_fixtures.hpp"

#include <array>
#include <cstdint>
#include <random>
#include <span>
#include <string>
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

// ---------------------------------------------------------------- a replication server in steady state

namespace {

/// How a server's clients hear it: the encoding, how many ticks their acks
/// take to arrive, and the share of packets lost each way.
struct steady_link {
    const char* name;
    bitrep::replication_encoding encoding;
    std::uint32_t ack_delay;
    double loss;
};

class SteadyReplication : public ::testing::TestWithParam<steady_link> {};

/// An ack on its way to the server.
struct ack_in_flight {
    std::uint32_t due;
    std::size_t client;
    std::vector<std::uint8_t> bytes;
};

} // namespace

// Once warm, a server's replicate() and receive() allocate nothing, for any
// client, at any loss or ack delay: views live in the rings, packets in
// per-client buffers, candidates and the scratch keep their capacity. The
// world moves and churns; cubes are created and destroyed throughout.
// (update() is not held to it: the world history's per-tick lists grow
// when a tick changes more cubes than they held before.)
TEST_P(SteadyReplication, ReplicateAndReceiveAllocateNothingOnceWarm)
{
    using namespace replication_fixtures;
    const steady_link link = GetParam();
    bitrep::replication_options options;
    options.encoding = link.encoding;
    options.history = 128; // its lists full after 128 ticks, so that warming up is short
    constexpr std::size_t client_count = 8;
    const std::uint32_t warm_ticks = 2 * 128 + 64;
    const std::uint32_t counted_ticks = sanitized ? 120 : 400;

    moving_world driver(17, 200);
    Server server(options);
    std::vector<bitrep::client_id> ids;
    std::vector<Client> clients;
    clients.reserve(client_count);
    for (std::size_t k = 0; k < client_count; ++k) {
        ids.push_back(server.add_client());
        clients.emplace_back(options);
    }
    std::mt19937 losses(23);
    const auto lost = [&] { return std::uniform_real_distribution<double>(0.0, 1.0)(losses) < link.loss; };
    std::vector<ack_in_flight> acks;

    std::size_t counted = 0;
    std::uint64_t dropped = 0;
    for (std::uint32_t t = 0; t < warm_ticks + counted_ticks; ++t) {
        driver.step(true);
        server.update(driver.world);
        std::size_t made = 0;
        for (std::size_t k = 0; k < client_count; ++k) {
            std::span<const std::uint8_t> packet;
            bitrep::status sent;
            made += allocations_during([&] { sent = server.replicate(ids[k], packet); });
            ASSERT_TRUE(sent) << sent.message() << " (client " << k << ", tick " << t << ")";
            if (lost()) {
                ++dropped;
                continue;
            }
            ASSERT_TRUE(clients[k].receive(packet)) << "client " << k << ", tick " << t;
            if (lost())
                ++dropped;
            else
                acks.push_back({t + link.ack_delay, k, {clients[k].ack().begin(), clients[k].ack().end()}});
        }
        for (const ack_in_flight& ack : acks)
            if (ack.due == t)
                made += allocations_during([&] { EXPECT_TRUE(server.receive(ids[ack.client], ack.bytes)); });
        std::erase_if(acks, [&](const ack_in_flight& ack) { return ack.due <= t; });
        if (t >= warm_ticks) {
            counted += made;
            EXPECT_EQ(made, 0u) << "tick " << t;
        }
    }
    EXPECT_EQ(counted, 0u);
    // The link lost what it should, and the clients followed the world:
    // the test measured a server at work.
    EXPECT_EQ(dropped > 0, link.loss > 0);
    std::uint64_t applied = 0;
    for (const Client& client : clients) {
        applied += client.statistics().applied;
        EXPECT_TRUE(holds_world(client.state(), driver.world) || link.loss > 0);
    }
    EXPECT_GT(applied, client_count * (warm_ticks + counted_ticks) * 9 / 10);
}

INSTANTIATE_TEST_SUITE_P(
    Links, SteadyReplication,
    ::testing::Values(steady_link{"CodedAcksAtOnce", bitrep::replication_encoding::coded, 0, 0.0},
                      steady_link{"CodedAcksSixLate", bitrep::replication_encoding::coded, 6, 0.0},
                      steady_link{"CodedSixLateFivePercentLoss", bitrep::replication_encoding::coded, 6, 0.05},
                      steady_link{"BitPackedAcksAtOnce", bitrep::replication_encoding::bit_packed, 0, 0.0},
                      steady_link{"BitPackedSixLateFivePercentLoss", bitrep::replication_encoding::bit_packed, 6,
                                  0.05}),
    [](const ::testing::TestParamInfo<steady_link>& info) { return std::string(info.param.name); });
