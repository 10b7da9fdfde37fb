// Allocation guarantees: writing into a caller buffer never allocates, not
// even when it fails, and reporting a failure never allocates (a status
// holds its path inline), so read paths cannot throw std::bad_alloc for it.
// A replication server, once warm, allocates nothing in a tick: update(),
// replicate() and receive().
#include <bitrep/bitrep.hpp>
#include <bitrep/delta.hpp>

#include <gtest/gtest.h>

#include "allocation_counter.hpp" // replaces operator new for this test binary
#include "replication_fixtures.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
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

TEST(Allocation, ADecoderOfATypeWithContainersAllocatesNothingOnceWarm)
{
    // A decoder keeps its working object, so only the first messages grow
    // capacity. (As many squads in each: a vector that shrinks destroys the
    // inner vectors past its new size, and their capacity with them.)
    const Roster full{"a title longer than any inline buffer", {{1, 2, 3, 4, 5, 6, 7, 8}, {9, 10}, {11, 12, 13}}};
    const Roster small{"short", {{1}, {}, {2}}};
    const std::vector<std::uint8_t> full_bytes = bitrep::to_bytes(full);
    const std::vector<std::uint8_t> small_bytes = bitrep::to_bytes(small);
    std::vector<std::uint8_t> refused = full_bytes;
    refused.pop_back();
    Roster target{};
    bitrep::decoder<Roster> decoder;
    bool all_ok = true;
    auto stream_of_messages = [&](int count) {
        for (int i = 0; i < count; ++i) {
            all_ok = decoder.decode(i % 2 ? small_bytes : full_bytes, target) && all_ok;
            all_ok = !decoder.decode(refused, target) && all_ok;
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
    bitrep::decoder<CachedRoster> cached_decoder;
    for (int warm = 0; warm < 2; ++warm)
        ASSERT_TRUE(cached_decoder.decode(cached_bytes, cached));
    EXPECT_EQ(allocations_during([&] {
                  for (int i = 0; i < 50; ++i)
                      all_ok = cached_decoder.decode(cached_bytes, cached) && all_ok;
              }),
              0u);
    EXPECT_TRUE(all_ok);
    EXPECT_EQ(cached.cache.get(), (std::vector<int>{1, 2, 3}));
}

TEST(Allocation, FromBytesKeepsNothingBetweenCalls)
{
    // from_bytes decodes into a working object made for the call: after a
    // success the heap holds what it held before (the target's old parts
    // went with the working object), and after a refusal too, for a type
    // with containers and for one with a field the encoding does not carry.
    const Roster full{"a title longer than any inline buffer", {{1, 2, 3, 4, 5, 6, 7, 8}, {9, 10}, {11, 12, 13}}};
    const std::vector<std::uint8_t> full_bytes = bitrep::to_bytes(full);
    std::vector<std::uint8_t> refused = full_bytes;
    refused.pop_back();
    Roster target = full;
    for (int i = 0; i < 3; ++i) {
        const std::size_t held = allocation_counter::live_bytes;
        std::size_t calls = allocations_during([&] { EXPECT_TRUE(bitrep::from_bytes(full_bytes, target)); });
        EXPECT_GT(calls, 0u); // the decoded parts, made anew
        EXPECT_EQ(allocation_counter::live_bytes, held) << "call " << i;
        calls = allocations_during([&] { EXPECT_FALSE(bitrep::from_bytes(refused, target)); });
        EXPECT_GT(calls, 0u);
        EXPECT_EQ(allocation_counter::live_bytes, held) << "call " << i;
    }
    EXPECT_EQ(target.title.str(), full.title.str());

    CachedRoster cached{full, {}};
    cached.cache.get() = {7};
    const std::vector<std::uint8_t> cached_bytes = bitrep::to_bytes(cached);
    const std::size_t held = allocation_counter::live_bytes;
    EXPECT_TRUE(bitrep::from_bytes(cached_bytes, cached));
    EXPECT_EQ(allocation_counter::live_bytes, held);
    EXPECT_EQ(cached.cache.get(), (std::vector<int>{7}));
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

/// What one tick's server calls asked of the heap.
struct tick_allocations {
    std::size_t update = 0;
    std::size_t replicate = 0; ///< over every client
    std::size_t receive = 0;   ///< over the acks that arrived
    std::size_t total() const { return update + replicate + receive; }
};

/// A server with its clients over a steady_link, one tick at a time; only
/// the server's calls are counted (the test's own copies of acks are not).
class steady_server {
public:
    steady_server(const steady_link& link, const bitrep::replication_options& options, std::size_t client_count)
        : link_(link), server_(options)
    {
        clients_.reserve(client_count);
        for (std::size_t k = 0; k < client_count; ++k) {
            ids_.push_back(server_.add_client());
            clients_.emplace_back(options);
        }
    }

    /// Tick `t`: the server takes `world`, sends every client a packet (some
    /// lost), and receives the acks due (some lost, the rest link.ack_delay
    /// ticks late).
    tick_allocations tick(std::uint32_t t, const World& world)
    {
        tick_allocations made;
        made.update = allocations_during([&] { server_.update(world); });
        for (std::size_t k = 0; k < clients_.size(); ++k) {
            std::span<const std::uint8_t> packet;
            bitrep::status sent;
            made.replicate += allocations_during([&] { sent = server_.replicate(ids_[k], packet); });
            EXPECT_TRUE(sent) << sent.message() << " (client " << k << ", tick " << t << ")";
            if (!sent || lost())
                continue;
            EXPECT_TRUE(clients_[k].receive(packet)) << "client " << k << ", tick " << t;
            if (!lost())
                acks_.push_back({t + link_.ack_delay, k, {clients_[k].ack().begin(), clients_[k].ack().end()}});
        }
        for (const ack_in_flight& ack : acks_)
            if (ack.due == t)
                made.receive +=
                    allocations_during([&] { EXPECT_TRUE(server_.receive(ids_[ack.client], ack.bytes)); });
        std::erase_if(acks_, [&](const ack_in_flight& ack) { return ack.due <= t; });
        return made;
    }

    std::uint64_t dropped() const { return dropped_; }
    const std::vector<replication_fixtures::Client>& clients() const { return clients_; }

private:
    bool lost()
    {
        const bool lost = std::uniform_real_distribution<double>(0.0, 1.0)(losses_) < link_.loss;
        dropped_ += lost ? 1 : 0;
        return lost;
    }

    steady_link link_;
    replication_fixtures::Server server_;
    std::vector<bitrep::client_id> ids_;
    std::vector<replication_fixtures::Client> clients_;
    std::mt19937 losses_{23};
    std::uint64_t dropped_ = 0;
    std::vector<ack_in_flight> acks_;
};

/// The cube slots whose value differs on the wire between two worlds
/// (created, destroyed or moved): the changes the server's history records.
std::size_t changed_cubes(const World& before, const World& after)
{
    std::size_t changed = 0;
    for (std::size_t id = 0; id < replication_fixtures::capacity; ++id) {
        const auto* was = before.cubes.find(id);
        const auto* now = after.cubes.find(id);
        if ((was == nullptr) != (now == nullptr) ||
            (was != nullptr && !bitrep::same_on_wire<bitrep::scope::replication>(*was, *now)))
            ++changed;
    }
    return changed;
}

} // namespace

// Once warm, a server's whole tick allocates nothing: update(), replicate()
// for every client and receive() for every ack, at any loss or ack delay.
// The world history's changes live in an arena sized by the most changes
// its window held, views in the rings, packets in per-client buffers;
// candidates and the scratch keep their capacity. The world churns: cubes
// are created and destroyed throughout, most ticks move a few cubes and
// one in eight (at random) moves all of them, so that a tick often changes
// more cubes than the tick in its place in the history's ring did (a list
// per tick would grow). Warming up, the window is once full of ticks that
// move half the cubes, more in all than any window after it.
TEST_P(SteadyReplication, ServerTickAllocatesNothingOnceWarm)
{
    using namespace replication_fixtures;
    const steady_link link = GetParam();
    bitrep::replication_options options;
    options.encoding = link.encoding;
    options.history = 128; // so that warming up is short
    constexpr std::size_t client_count = 8;
    const std::uint32_t busy_ticks = 128 + 8; // the window full of busy ticks
    const std::uint32_t warm_ticks = busy_ticks + 2 * 128 + 64;
    const std::uint32_t counted_ticks = sanitized ? 120 : 400;

    moving_world driver(17, 200);
    steady_server server(link, options, client_count);
    std::mt19937 bursts(29);
    std::size_t counted = 0, fewest = capacity, most = 0;
    for (std::uint32_t t = 0; t < warm_ticks + counted_ticks; ++t) {
        const bool burst = std::uniform_int_distribution<int>(0, 7)(bursts) == 0;
        const World before = driver.world;
        driver.step(true, t < busy_ticks ? 0.5 : burst ? 1.0 : 0.05);
        const tick_allocations made = server.tick(t, driver.world);
        if (t < warm_ticks)
            continue;
        counted += made.total();
        EXPECT_EQ(made.total(), 0u) << "tick " << t << ": update " << made.update << ", replicate "
                                    << made.replicate << ", receive " << made.receive;
        const std::size_t changed = changed_cubes(before, driver.world);
        fewest = std::min(fewest, changed);
        most = std::max(most, changed);
    }
    EXPECT_EQ(counted, 0u);
    // The ticks counted changed from a few cubes to nearly all of them, the
    // link lost what it should, and the clients followed the world: the
    // test measured a server at work.
    EXPECT_LT(fewest, 20u);
    EXPECT_GT(most, 190u);
    EXPECT_EQ(server.dropped() > 0, link.loss > 0);
    std::uint64_t applied = 0;
    for (const Client& client : server.clients()) {
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
