// State packets too large for one datagram (docs/formats/packets.md,
// section 4): a client that joins a world whose fields other than entities
// exceed a packet, or a change of those fields that large, gets the state
// in slices of at most max_packet_bytes, under loss, on both packet paths;
// a malformed or forged slice changes nothing.
#include <gtest/gtest.h>

#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>
#include <bitrep/replication/security.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "allocation_counter.hpp"
#include "resealed.hpp"
#include "test_oracle.hpp"

// At namespace scope: error paths name the types.
struct Chest {
    bitrep::ranged<int, 0, 100000> gold;
    bitrep::bounded_vector<bitrep::ranged<int, 0, 255>, 8> items;
    bool open = false;
};
BOOST_DESCRIBE_STRUCT(Chest, (), (gold, items, open))

struct Enemy {
    bitrep::quantized<-512.f, 512.f, 0.01f> x, y;
};
BOOST_DESCRIBE_STRUCT(Enemy, (), (x, y))

struct Dungeon {
    bitrep::entity_array<Enemy, 300> enemies;
    bitrep::bounded_map<int, Chest, 256> chests;
    bitrep::ranged<int, 0, 1000> round;
};
BOOST_DESCRIBE_STRUCT(Dungeon, (), (enemies, chests, round))

namespace {

using Server = bitrep::replication_server<Dungeon>;
using Client = bitrep::replication_client<Dungeon>;
using bytes = std::vector<std::uint8_t>;

Chest chest(int i, int shift)
{
    Chest c;
    c.gold = (i * 37 + shift) % 100000;
    c.open = (i + shift) % 2 == 0;
    for (int k = 0; k < 8; ++k)
        c.items.push_back(bitrep::ranged<int, 0, 255>((i + k + shift) % 256));
    return c;
}

/// 256 full chests (3.8 KB bit-packed) and 300 enemies.
Dungeon dungeon(int shift = 0)
{
    Dungeon d;
    for (int i = 0; i < 256; ++i)
        d.chests.emplace(i, chest(i, shift));
    for (int i = 0; i < 300; ++i)
        d.enemies.emplace(Enemy{.x = static_cast<float>(i % 100), .y = static_cast<float>(shift % 100)});
    d.round = shift % 1000;
    return d;
}

bitrep::replication_options options_on(bitrep::packet_security security)
{
    bitrep::replication_options options;
    options.security = security;
    return options;
}

/// A server and a client, their packets passed by hand with a chance of loss
/// each way.
class Slices : public ::testing::TestWithParam<bitrep::packet_security> {
protected:
    void SetUp() override
    {
        if (GetParam() == bitrep::packet_security::aead && !bitrep::replication::aead_available())
            GTEST_SKIP() << "bitrep built without libsodium";
    }

    /// Ticks until the client holds the world (at most `limit`), `loss`
    /// each way; every datagram within max_packet_bytes.
    static int ticks_to_converge(Server& server, bitrep::client_id id, Client& client, const Dungeon& world,
                                 double loss, std::uint32_t seed, int limit = 2000)
    {
        std::mt19937 random(seed);
        std::bernoulli_distribution lost(loss);
        for (int tick = 1; tick <= limit; ++tick) {
            server.update(world);
            std::span<const std::uint8_t> out;
            const bitrep::status sent = server.replicate(id, out);
            EXPECT_TRUE(sent) << sent.message();
            EXPECT_LE(out.size(), server.options().max_packet_bytes);
            if (!lost(random)) {
                const bitrep::status received = client.receive(out);
                EXPECT_TRUE(received || received == bitrep::error::stale) << received.message();
            }
            const std::span<const std::uint8_t> back = client.packet();
            EXPECT_LE(back.size(), server.options().max_packet_bytes);
            if (!lost(random)) {
                EXPECT_TRUE(server.receive(id, back));
            }
            if (client.has_state() && bitrep::replicated_equal(client.state(), world))
                return tick;
        }
        return -1;
    }
};

INSTANTIATE_TEST_SUITE_P(BothPaths, Slices,
                         ::testing::Values(bitrep::packet_security::crc, bitrep::packet_security::aead),
                         [](const auto& info) {
                             return info.param == bitrep::packet_security::crc ? std::string("crc")
                                                                                : std::string("aead");
                         });

} // namespace

TEST_P(Slices, AClientJoiningAWorldLargerThanAPacketReceivesItInSlices)
{
    const Dungeon world = dungeon();
    Server server(options_on(GetParam()));
    const bitrep::packet_key key = bitrep::packet_key::random();
    Client client(options_on(GetParam()), key);
    const bitrep::client_id id = server.add_client(key);
    const int ticks = ticks_to_converge(server, id, client, world, 0.0, 1);
    ASSERT_GT(ticks, 0);
    const bitrep::server_client_statistics& stats = *server.statistics(id);
    EXPECT_EQ(stats.large_states, 1u);
    EXPECT_EQ(stats.slices_sent, 4u) << "3.8 KB in slices of at most 1,186 bytes (CRC) or 1,158 (AEAD)";
    EXPECT_EQ(client.statistics().applied + client.statistics().slices, static_cast<std::uint64_t>(ticks));
    // Then small deltas again.
    const std::uint64_t slices = stats.slices_sent;
    Dungeon next = world;
    next.round = 7;
    EXPECT_GT(ticks_to_converge(server, id, client, next, 0.0, 2), 0);
    EXPECT_EQ(server.statistics(id)->slices_sent, slices);
    EXPECT_LT(server.statistics(id)->last_packet_bytes, 200u);
}

TEST_P(Slices, ALateJoinerConvergesAt20PercentLossEachWay)
{
    const Dungeon world = dungeon();
    Server server(options_on(GetParam()));
    std::vector<bitrep::packet_key> keys{bitrep::packet_key::random(), bitrep::packet_key::random()};
    Client early(options_on(GetParam()), keys[0]);
    const bitrep::client_id early_id = server.add_client(keys[0]);
    ASSERT_GT(ticks_to_converge(server, early_id, early, world, 0.2, 3), 0);
    Client late(options_on(GetParam()), keys[1]);
    const bitrep::client_id late_id = server.add_client(keys[1]);
    const int ticks = ticks_to_converge(server, late_id, late, world, 0.2, 4);
    EXPECT_GT(ticks, 0);
    EXPECT_GE(server.statistics(late_id)->large_states, 1u);
}

TEST_P(Slices, AChangeOfTheFieldsLargerThanAPacketGoesInSlices)
{
    Server server(options_on(GetParam()));
    const bitrep::packet_key key = bitrep::packet_key::random();
    Client client(options_on(GetParam()), key);
    const bitrep::client_id id = server.add_client(key);
    ASSERT_GT(ticks_to_converge(server, id, client, dungeon(0), 0.05, 5), 0);
    const std::uint64_t before = server.statistics(id)->large_states;
    ASSERT_GT(ticks_to_converge(server, id, client, dungeon(1), 0.05, 6), 0) << "every chest changed at once";
    EXPECT_GT(server.statistics(id)->large_states, before);
}

TEST_P(Slices, AForgedSliceAckNamingSlicesPastThePacketChangesNothingOfTheTransfer)
{
    const Dungeon world = dungeon();
    Server server(options_on(GetParam()));
    const bitrep::packet_key key = bitrep::packet_key::random();
    Client client(options_on(GetParam()), key);
    const bitrep::client_id id = server.add_client(key);
    server.update(world);
    std::span<const std::uint8_t> first;
    ASSERT_TRUE(server.replicate(id, first)); // packet 0's first slice, lost
    // A client packet whose slice ack names slices 65535 and the 64 below.
    bitrep::replication::ack_record ack;
    bitrep::replication::slice_ack slices{true, 0, 0, 65535, ~std::uint64_t{0}};
    bytes body((bitrep::replication::ack_bits + bitrep::replication::slice_ack::bits + 7) / 8 +
               bitrep::replication::crc_bytes);
    bitrep::replication::message_write_stream stream(std::span<std::uint8_t>(body).subspan(bitrep::replication::crc_bytes));
    ASSERT_TRUE(ack.serialize(stream) && slices.serialize(stream));
    stream.flush();
    const std::span<const std::uint8_t> input =
        GetParam() == bitrep::packet_security::crc ? std::span<const std::uint8_t>(body)
                                                   : std::span<const std::uint8_t>(body).subspan(bitrep::replication::crc_bytes);
    // Sealed under the number of the client's first packet, which is lost:
    // the client's later ones stay fresh on the AEAD path.
    static_cast<void>(client.packet());
    bytes forged;
    ASSERT_TRUE(resealed(GetParam(), key, input, options_on(GetParam()).protocol_id,
                         bitrep::replication::packet_kind::ack, 0, 0, forged));
    ASSERT_TRUE(server.receive(id, forged)) << "an ack naming nothing it could hold";
    EXPECT_GT(ticks_to_converge(server, id, client, world, 0.0, 7), 0);
    EXPECT_EQ(server.statistics(id)->slices_sent, 5u) << "the lost first slice again, after the other three";
}

TEST_P(Slices, AStateLargerThanMaxStateBytesIsRefusedSayingWhatItNeeds)
{
    bitrep::replication_options options = options_on(GetParam());
    options.max_state_bytes = 2000;
    Server server(options);
    const bitrep::packet_key key = bitrep::packet_key::random();
    const bitrep::client_id id = server.add_client(key);
    const Dungeon world = dungeon(); // the server reads it until the next update()
    server.update(world);
    std::span<const std::uint8_t> out;
    const bitrep::status sent = server.replicate(id, out);
    EXPECT_EQ(sent.code(), bitrep::error::buffer_too_small);
    EXPECT_TRUE(oracle::contains(sent.message(), "max_state_bytes (2000)")) << sent.message();
    EXPECT_TRUE(oracle::contains(sent.message(), "at Dungeon.chests: the state packet needs ")) << sent.message();
    EXPECT_TRUE(out.empty());
    EXPECT_EQ(server.statistics(id)->packets_sent, 0u);
    EXPECT_EQ(server.statistics(id)->slices_sent, 0u);
}

namespace {

/// A CRC-path slice datagram with the given header and `size` bytes of body.
bytes forged_slice(std::uint16_t sequence, std::uint32_t count, std::uint32_t index, std::uint32_t total,
                   std::size_t size, std::uint32_t protocol_id)
{
    bytes packet(bitrep::replication::crc_bytes + bitrep::replication::slice_header::bytes + size, 0xAB);
    bitrep::replication::slice_header header{sequence, {total, count}, index};
    bitrep::replication::message_write_stream stream(
        std::span<std::uint8_t>(packet).subspan(bitrep::replication::crc_bytes, bitrep::replication::slice_header::bytes));
    EXPECT_TRUE(header.serialize(stream));
    stream.flush();
    bitrep::replication::seal(protocol_id, bitrep::replication::packet_kind::slice, packet);
    return packet;
}

} // namespace

TEST(SlicesForged, MalformedSlicesAreRefusedAndChangeNothing)
{
    Client client;
    // A game without inputs and messages keeps the protocol id as it is.
    const std::uint32_t protocol = bitrep::replication_options{}.protocol_id;
    const std::size_t max = bitrep::replication_options{}.max_state_bytes;
    struct forged {
        const char* what;
        bytes packet;
        bitrep::error expected;
    };
    const std::vector<forged> cases{
        {"index past the count", forged_slice(1, 3, 3, 3000, 1000, protocol), bitrep::error::out_of_range},
        {"an empty last slice", forged_slice(1, 4, 0, 3, 1, protocol), bitrep::error::out_of_range},
        {"larger than max_state_bytes", forged_slice(1, 2000, 0, static_cast<std::uint32_t>(max) + 1,
                                                     (max + 1 + 1999) / 2000, protocol),
         bitrep::error::out_of_range},
        {"not the slice's length", forged_slice(1, 3, 1, 3000, 999, protocol), bitrep::error::out_of_range},
        {"a truncated header", bytes(8, 0), bitrep::error::corrupt},
    };
    for (const forged& f : cases) {
        bitrep::status received;
        const std::size_t allocations =
            allocation_counter::allocations_during([&] { received = client.receive(f.packet); });
        EXPECT_EQ(received.code(), f.expected) << f.what << ": " << received.message();
        EXPECT_EQ(allocations, 0u) << f.what;
        EXPECT_FALSE(client.has_state()) << f.what;
    }
    // A well-formed slice of a packet that never completes changes no state,
    // and the client acknowledges it.
    ASSERT_TRUE(client.receive(forged_slice(1, 3, 1, 3000, 1000, protocol)));
    EXPECT_FALSE(client.has_state());
    EXPECT_EQ(client.statistics().slices, 1u);
    EXPECT_GT(client.packet().size(), 11u) << "the ack of slices";
    // The same slice again is stale; another cut of the same packet is refused.
    EXPECT_EQ(client.receive(forged_slice(1, 3, 1, 3000, 1000, protocol)).code(), bitrep::error::stale);
    EXPECT_EQ(client.receive(forged_slice(1, 4, 1, 3000, 750, protocol)).code(), bitrep::error::out_of_range);
}

TEST(SlicesForged, APacketPutTogetherFromForgedSlicesIsRefusedWholeAndWiped)
{
    Client client;
    const std::uint32_t protocol = bitrep::replication_options{}.protocol_id;
    ASSERT_TRUE(client.receive(forged_slice(9, 2, 0, 300, 150, protocol)));
    const bitrep::status whole = client.receive(forged_slice(9, 2, 1, 300, 150, protocol));
    EXPECT_FALSE(whole) << "0xAB bytes are no state packet";
    EXPECT_FALSE(client.has_state());
    EXPECT_EQ(client.packet().size(), 11u) << "nothing left to acknowledge";
}
