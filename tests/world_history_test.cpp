// The replication server's shared world history (world_history.hpp and
// docs/design/replication-server.md, "The server at scale: one world history, views as refs"):
// packets byte for byte those of the server
// that kept 64 copies of the State per client, work shared between clients
// in the same position, views whose values left the history, and the memory
// a client costs.
#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>
#include <bitrep/replication/world_history.hpp>

#include <gtest/gtest.h>

#include "replicate_packet.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <random>
#include <span>
#include <vector>

namespace {

using test_replication::replicate_or_fail;
using test_replication::update_and_replicate;

// The shape of replicated_worlds.hpp's World, kept as its own on purpose:
// the recorded packet hashes below pin this world's bytes, and a change to
// the shared one must not move them.
struct Rock {
    bitrep::quantized<-256.f, 256.f, 0.01f> x, y, z;
    bitrep::quat<9> orientation;
    bool rolling = false;
};
BOOST_DESCRIBE_STRUCT(Rock, (), (x, y, z, orientation, rolling))

struct Field {
    bitrep::ranged<std::uint32_t, 0, 1'000'000> tick;
    bitrep::entity_array<Rock, 256> rocks;
};
BOOST_DESCRIBE_STRUCT(Field, (), (tick, rocks))

using Server = bitrep::replication_server<Field>;
using Client = bitrep::replication_client<Field>;

/// A seeded field of 200 rocks, 20 moving a tick, one created or destroyed
/// every 50 ticks.
struct moving_field {
    Field field;
    std::mt19937 rng;
    std::uniform_real_distribution<float> unit{-1.f, 1.f};

    explicit moving_field(unsigned seed) : rng(seed)
    {
        for (int i = 0; i < 200; ++i)
            field.rocks.emplace(Rock{unit(rng) * 100, unit(rng) * 100, unit(rng) * 100, {}, false});
    }

    void step(int tick)
    {
        field.tick = static_cast<std::uint32_t>(tick);
        for (int k = 0; k < 20; ++k) {
            const auto id = rng() % 256;
            if (!field.rocks.contains(id))
                continue;
            Rock& rock = field.rocks[id];
            rock.x = std::clamp(rock.x.get() + unit(rng), -250.f, 250.f);
            const float angle = unit(rng);
            rock.orientation = {std::cos(angle), std::sin(angle), 0.f, 0.f};
        }
        if (tick % 50 == 7) {
            const auto id = rng() % 256;
            if (field.rocks.contains(id))
                field.rocks.erase(id);
            else
                field.rocks.emplace_at(id, Rock{1.f, 2.f, 3.f, {}, true});
        }
    }
};

/// FNV-1a over every packet of a 400-tick session with five clients (two
/// acking at once and hearing everything, three losing a tenth of their
/// packets with acks 2, 6 and 6 ticks late), under six option sets.
std::uint64_t session_hash(int mode, std::uint64_t* shared = nullptr)
{
    bitrep::replication_options o;
    o.encoding = mode % 2 != 0 ? bitrep::replication_encoding::bit_packed : bitrep::replication_encoding::coded;
    if (mode >= 2)
        o.max_packet_bytes = 300;
    if (mode >= 4)
        o.bytes_per_second = 9000;
    Server server(o);
    if (mode == 3)
        server.set_relevancy<&Field::rocks>([](bitrep::client_id c, std::uint32_t id, const Rock& rock) {
            return (id + c) % 3 != 0 || rock.x.get() > 0;
        });
    constexpr int clients = 5;
    constexpr int delays[clients] = {0, 0, 2, 6, 6};
    std::vector<Client> receivers(clients, Client(o));
    std::vector<bitrep::client_id> ids;
    for (int i = 0; i < clients; ++i)
        ids.push_back(server.add_client());
    std::vector<std::deque<std::vector<std::uint8_t>>> acks(clients);
    moving_field world(7u + static_cast<unsigned>(mode));
    std::uint64_t hash = 1469598103934665603ull;
    for (int tick = 0; tick < 400; ++tick) {
        world.step(tick);
        for (std::size_t c = 0; c < clients; ++c) {
            const std::span<const std::uint8_t> packet = update_and_replicate(server, ids[c], world.field);
            for (const std::uint8_t byte : packet)
                hash = (hash ^ byte) * 1099511628211ull;
            if (c < 2 || world.rng() % 10 != 0)
                static_cast<void>(receivers[c].receive(packet));
            const std::span<const std::uint8_t> ack = receivers[c].ack();
            acks[c].emplace_back(ack.begin(), ack.end());
            if (acks[c].size() > static_cast<std::size_t>(delays[c])) {
                static_cast<void>(server.receive(ids[c], acks[c].front()));
                acks[c].pop_front();
            }
        }
    }
    if (shared != nullptr)
        for (const bitrep::client_id id : ids)
            *shared += server.statistics(id)->shared_sections + server.statistics(id)->shared_entity_deltas;
    return hash;
}

TEST(WorldHistory, PacketsAreByteForByteThoseOfTheServerThatCopiedTheState)
{
    // Recorded with the server of commit 1e39d0d, which kept a full copy of
    // the State per packet in the window and compared every slot; the coded
    // option sets (0, 2 and 4) again when the coded residual's magnitude
    // class began to be coded from a pivot and when its models got priors,
    // which changed coded bytes only.
    constexpr std::uint64_t recorded[6] = {0xf7f5f2e467c4374aull, 0x8889e515fe1664c4ull, 0x033850f861918ccdull,
                                           0xb9a4159b7674209bull, 0x4e028bcc274a7ef6ull, 0x2cb4f2480e4b6aceull};
    std::uint64_t shared = 0;
    for (int mode = 0; mode < 6; ++mode)
        EXPECT_EQ(session_hash(mode, &shared), recorded[mode]) << "option set " << mode;
    // The first two clients are in the same position all along: their
    // packets share work.
    EXPECT_GT(shared, 0u);
}

TEST(WorldHistory, ClientsInTheSamePositionGetTheSameStateBytesAndShareTheirEncoding)
{
    for (const auto encoding : {bitrep::replication_encoding::coded, bitrep::replication_encoding::bit_packed}) {
        bitrep::replication_options o;
        o.encoding = encoding;
        Server server(o);
        const bitrep::client_id a = server.add_client();
        const bitrep::client_id b = server.add_client();
        Client ca(o), cb(o);
        moving_field world(3);
        for (int tick = 0; tick < 120; ++tick) {
            world.step(tick);
            server.update(world.field);
            const std::vector<std::uint8_t> pa = [&] {
                const auto p = replicate_or_fail(server, a);
                return std::vector<std::uint8_t>(p.begin(), p.end());
            }();
            const std::span<const std::uint8_t> pb = replicate_or_fail(server, b);
            // Same sequence, same baseline, same views: the same packet.
            ASSERT_TRUE(std::equal(pa.begin(), pa.end(), pb.begin(), pb.end())) << "tick " << tick;
            ASSERT_TRUE(ca.receive(pa));
            ASSERT_TRUE(cb.receive(pb));
            ASSERT_TRUE(server.receive(a, ca.ack()));
            ASSERT_TRUE(server.receive(b, cb.ack()));
        }
        const auto& sa = *server.statistics(a);
        const auto& sb = *server.statistics(b);
        if (encoding == bitrep::replication_encoding::coded) {
            // The first client encodes; the second copies (full states go
            // bit-packed and share entity deltas instead).
            EXPECT_EQ(sa.shared_sections, 0u);
            EXPECT_EQ(sb.shared_sections, sb.packets_sent - sb.full_states);
        } else {
            EXPECT_EQ(sa.shared_entity_deltas, 0u);
            EXPECT_EQ(sb.shared_entity_deltas, sb.entities_sent);
        }
        EXPECT_TRUE(bitrep::same_on_wire<bitrep::scope::replication>(cb.state(), world.field));
    }
}

TEST(WorldHistory, ReplicateWithoutAWorldIsRefusedAndChangesNothing)
{
    Server server;
    const bitrep::client_id id = server.add_client();
    std::span<const std::uint8_t> packet;
    const bitrep::status result = server.replicate(id, packet);
    EXPECT_EQ(result.code(), bitrep::error::no_baseline);
    EXPECT_TRUE(packet.empty());
    EXPECT_EQ(server.statistics(id)->packets_sent, 0u);
}

TEST(WorldHistory, AViewWhoseValuesLeftTheHistoryIsNotABaselineAndTheClientStillConverges)
{
    // A history of 8 ticks (the least for a window of 4) and 100 bytes a
    // packet, with 100 rocks moving a tick: rocks go unsent for many ticks
    // while they keep changing, so views built on an old baseline name
    // values the history has dropped by the time they are acknowledged.
    bitrep::replication_options o;
    o.window = 4;
    o.history = 8;
    o.max_packet_bytes = 100;
    o.encoding = bitrep::replication_encoding::bit_packed;
    Server server(o);
    Client client(o);
    const bitrep::client_id id = server.add_client();
    moving_field world(5);
    std::deque<std::vector<std::uint8_t>> acks;
    for (int tick = 0; tick < 1500; ++tick) {
        if (tick < 600)
            for (int k = 0; k < 5; ++k)
                world.step(tick);
        const std::span<const std::uint8_t> packet = update_and_replicate(server, id, world.field);
        ASSERT_TRUE(client.receive(packet)) << "tick " << tick;
        // Every state the client applies is the view the server recorded.
        const auto sent = server.sent_state(id, client.sequence());
        ASSERT_TRUE(sent.has_value()) << "tick " << tick;
        ASSERT_TRUE(bitrep::same_on_wire<bitrep::scope::replication>(client.state(), *sent))
            << "tick " << tick;
        const std::span<const std::uint8_t> ack = client.ack();
        acks.emplace_back(ack.begin(), ack.end());
        if (acks.size() > 1) {
            ASSERT_TRUE(server.receive(id, acks.front()));
            acks.pop_front();
        }
    }
    // The situation this test is about did arise.
    EXPECT_GT(server.statistics(id)->baselines_skipped, 0u);
    EXPECT_TRUE(bitrep::same_on_wire<bitrep::scope::replication>(client.state(), world.field));
}

TEST(WorldHistory, AClientThatJoinsAQuietWorldLateConvergesWithoutSkippingBaselines)
{
    // Rocks that have not changed for longer than the history (128 ticks)
    // are found as the world's current values. A client that joins late
    // gets them a few at a time (100-byte packets, acks 6 ticks late) while
    // some of them change: a view sent before such a change names the value
    // it replaced, whose tick the history has dropped, and that view must
    // still be able to become the baseline (world_history keeps the value a
    // long-unchanged slot had before its change).
    bitrep::replication_options o;
    o.history = 128;
    o.max_packet_bytes = 100;
    Server server(o);
    moving_field world(11);
    std::mt19937 rng(3);
    // The history counts only ticks that change an entity: one rock (the
    // first) moves every tick, and `count` others chosen at random.
    const auto first = static_cast<std::uint32_t>(
        std::find_if(world.field.rocks.slots().begin(), world.field.rocks.slots().end(),
                     [](const auto& slot) { return slot.has_value(); }) -
        world.field.rocks.slots().begin());
    auto nudge = [&](int tick, int count) {
        world.field.tick = static_cast<std::uint32_t>(tick);
        Rock& clock = world.field.rocks[first];
        clock.y = clock.y.get() > 0 ? -1.f : 1.f;
        for (int k = 0; k < count; ++k) {
            const auto id = rng() % 256;
            if (world.field.rocks.contains(id))
                world.field.rocks[id].x = std::clamp(world.field.rocks[id].x.get() + 1.f, -250.f, 250.f);
        }
    };
    int tick = 0;
    for (; tick < 400; ++tick) {
        nudge(tick, 0);
        server.update(world.field);
    }
    Client client(o);
    const bitrep::client_id id = server.add_client();
    std::deque<std::vector<std::uint8_t>> acks;
    int converged_at = -1;
    for (; tick < 1000 && converged_at < 0; ++tick) {
        nudge(tick, 1);
        server.update(world.field);
        ASSERT_TRUE(client.receive(replicate_or_fail(server, id))) << "tick " << tick;
        const std::span<const std::uint8_t> ack = client.ack();
        acks.emplace_back(ack.begin(), ack.end());
        if (acks.size() > 6) {
            ASSERT_TRUE(server.receive(id, acks.front()));
            acks.pop_front();
        }
        if (bitrep::same_on_wire<bitrep::scope::replication>(client.state(), world.field))
            converged_at = tick;
    }
    EXPECT_GE(converged_at, 0) << "the client never held the world";
    EXPECT_EQ(server.statistics(id)->baselines_skipped, 0u);
}

/// A value the history recorded: the tick it appeared, the rock's id, its
/// ref and the value.
struct recorded_value {
    std::uint32_t tick;
    std::size_t id;
    bitrep::replication::value_ref ref;
    std::optional<Rock> value;
};

/// Changes `count` rocks (all of them past 256), and with one chance in
/// four destroys one and creates one.
void change_rocks(Field& field, std::mt19937& rng, std::size_t count)
{
    std::uniform_real_distribution<float> unit{-1.f, 1.f};
    for (std::size_t k = 0; k < 256 && count > 0; ++k) {
        const std::size_t id = count >= 256 ? k : rng() % 256;
        if (!field.rocks.contains(id))
            continue;
        field.rocks[id].x = std::clamp(field.rocks[id].x.get() + 0.5f + unit(rng), -250.f, 250.f);
        count -= count >= 256 ? 0 : 1;
    }
    if (rng() % 4 == 0) {
        const std::size_t id = rng() % 256;
        if (field.rocks.contains(id))
            field.rocks.erase(id);
        else
            field.rocks.emplace_at(id, Rock{1.f, 2.f, 3.f, {}, true});
    }
}

/// Every value recorded in the last `depth` ticks is found, with the
/// bytes it had; changes_since names the slots that changed in them, in
/// order.
void expect_window_found(const bitrep::replication::history& history, std::uint32_t depth,
                         const std::vector<recorded_value>& values,
                         const std::vector<std::vector<std::size_t>>& changed_at)
{
    const bitrep::replication::shared_array& rocks = history.layout().shared[0];
    const std::uint32_t now = history.tick();
    for (const recorded_value& v : values) {
        if (now - v.tick >= depth)
            continue;
        const auto* found = static_cast<const std::optional<Rock>*>(history.find(rocks, v.id, v.ref));
        ASSERT_NE(found, nullptr) << "rock " << v.id << " of tick " << v.tick << ", now " << now;
        ASSERT_TRUE(found->has_value());
        EXPECT_TRUE(bitrep::same_on_wire<bitrep::scope::replication>(**found, *v.value))
            << "rock " << v.id << " of tick " << v.tick << ", now " << now;
    }
    const std::uint32_t since = now > depth ? now - depth : 0;
    std::vector<std::size_t> named, expected;
    ASSERT_TRUE(history.changes_since(since, [&](std::size_t slot) { named.push_back(slot); }));
    for (std::uint32_t t = since + 1; t <= now; ++t)
        expected.insert(expected.end(), changed_at[t].begin(), changed_at[t].end());
    EXPECT_EQ(named, expected) << "now " << now;
}

TEST(WorldHistory, FindsEveryValueInItsWindowAsItsTicksComeRoundTheArena)
{
    // A history of 8 ticks whose ticks change nothing, a rock or two, or
    // every rock, so that its arena of changes grows, a tick reaches its end
    // and moves to its start, and the window wraps round it.
    namespace rep = bitrep::replication;
    constexpr std::uint32_t depth = 8;
    rep::history history(rep::layout_of<Field>(), depth);
    const rep::shared_array& rocks = history.layout().shared[0];
    moving_field world(5);
    std::mt19937 rng(11);
    std::vector<recorded_value> values;
    std::vector<std::vector<std::size_t>> changed_at(1);
    for (int step = 0; step < 1500; ++step) {
        const std::uint32_t kind = rng() % 10;
        change_rocks(world.field, rng, kind == 0 ? 0 : kind == 1 ? 256 : kind == 2 ? 60 : kind);
        const std::vector<rep::value_ref> before(history.refs(), history.refs() + history.layout().slot_count);
        const bool changed = history.observe(&world.field);
        std::vector<std::size_t> slots;
        for (std::size_t slot = rocks.first_slot; slot < rocks.first_slot + rocks.capacity; ++slot)
            if (history.refs()[slot] != before[slot])
                slots.push_back(slot);
        ASSERT_EQ(changed, !slots.empty()) << "step " << step;
        if (!changed)
            continue;
        for (const std::size_t slot : slots)
            if (history.refs()[slot] != rep::empty_ref)
                values.push_back({history.tick(), slot - rocks.first_slot, history.refs()[slot],
                                  world.field.rocks.slots()[slot - rocks.first_slot]});
        changed_at.push_back(slots);
        std::erase_if(values, [&](const recorded_value& v) { return history.tick() - v.tick >= depth; });
        expect_window_found(history, depth, values, changed_at);
        if (::testing::Test::HasFatalFailure())
            return;
    }
    EXPECT_GT(history.tick(), 1000u);
}

TEST(WorldHistory, AClientCostsItsRefsItsBaselineAndItsBuffers)
{
    Server server;
    const bitrep::client_id id = server.add_client();
    moving_field world(9);
    for (int tick = 0; tick < 200; ++tick) {
        world.step(tick);
        static_cast<void>(update_and_replicate(server, id, world.field));
    }
    // 64 views x 256 slots x 2 bytes, one State, and what grows with the
    // candidates: a quarter at most of the 64 States the server used to keep.
    const std::size_t bytes = server.client_bytes(id);
    EXPECT_GE(bytes, 64u * 256u * 2u + sizeof(Field));
    EXPECT_LT(bytes, 64u * sizeof(Field) / 4);
    EXPECT_GT(server.shared_bytes(), sizeof(Field));
}

} // namespace
