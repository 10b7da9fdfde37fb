// What the game's handlers may do inside receive() (on_input, on_message,
// on_change), on both packet paths: call receive() again, for their own
// connection (refused: its packet is still being read) or another (works),
// and throw (nothing a packet brought is lost). Run under ASan by CI's
// sanitizer builds: a nested call that reached the packet still being read
// freed or wiped it.
#include <gtest/gtest.h>

#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>
#include <bitrep/replication/security.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "replication_fixtures.hpp"
#include "test_oracle.hpp"

// At namespace scope: error paths name the types.
struct Move {
    bitrep::ranged<std::uint32_t, 0, 1'000'000> tick;
};
BOOST_DESCRIBE_STRUCT(Move, (), (tick))

struct Note {
    bitrep::bounded_string<200> text;
};
BOOST_DESCRIBE_STRUCT(Note, (), (text))

namespace {

using replication_fixtures::moving_world;
using replication_fixtures::update_and_replicate;
using Messages = bitrep::message_set<Note>;
using Server = bitrep::replication_server<World, Move, Messages>;
using Client = bitrep::replication_client<World, Move, Messages>;
using bytes = std::vector<std::uint8_t>;

bytes copy(std::span<const std::uint8_t> packet) { return {packet.begin(), packet.end()}; }

Note note(std::string text)
{
    Note n;
    n.text = std::move(text);
    return n;
}

Move move_at(std::uint32_t tick)
{
    Move m;
    m.tick = tick;
    return m;
}

/// A server with two clients on one packet path, packets passed by hand.
class Handlers : public ::testing::TestWithParam<bitrep::packet_security> {
protected:
    void SetUp() override
    {
        if (GetParam() == bitrep::packet_security::aead && !bitrep::replication::aead_available())
            GTEST_SKIP() << "bitrep built without libsodium";
        options.security = GetParam();
        server.emplace(options);
        for (int k = 0; k < 2; ++k) {
            keys.push_back(bitrep::packet_key::random());
            clients.emplace_back(options, keys.back());
            ids.push_back(server->add_client(keys.back()));
        }
        // Each client holds a state, so that its packets carry acks the
        // server takes.
        for (int k = 0; k < 2; ++k)
            ASSERT_TRUE(clients[k].receive(update_and_replicate(*server, ids[k], driver.world)));
    }

    bitrep::replication_options options;
    moving_world driver{7, 20};
    std::optional<Server> server;
    std::vector<bitrep::packet_key> keys;
    std::vector<Client> clients;
    std::vector<bitrep::client_id> ids;
};

INSTANTIATE_TEST_SUITE_P(BothPaths, Handlers,
                         ::testing::Values(bitrep::packet_security::crc, bitrep::packet_security::aead),
                         [](const auto& info) {
                             return info.param == bitrep::packet_security::crc ? std::string("crc")
                                                                                : std::string("aead");
                         });

} // namespace

TEST_P(Handlers, AServerHandlerCallingReceiveForItsOwnClientIsRefusedAndItsPacketStaysWhole)
{
    // The outer packet: an input, then an unreliable note the port delivers
    // after the input handler. The inner: the client's next packet, longer.
    ASSERT_TRUE(clients[0].send_input(1, move_at(1)));
    ASSERT_TRUE(clients[0].send(note("outer"), bitrep::channel::unreliable));
    const bytes outer = copy(clients[0].packet());
    ASSERT_TRUE(clients[0].send_input(2, move_at(2)));
    ASSERT_TRUE(clients[0].send(note(std::string(150, 'i')), bitrep::channel::unreliable));
    const bytes inner = copy(clients[0].packet());
    ASSERT_GT(inner.size(), outer.size());

    std::vector<bitrep::status> nested;
    std::vector<std::string> notes;
    server->on_input([&](bitrep::client_id from, std::uint32_t, const Move&) {
        nested.push_back(server->receive(from, inner));
    });
    server->on_message<Note>([&](bitrep::client_id, const Note& n) { notes.push_back(n.text.str()); });
    ASSERT_TRUE(server->receive(ids[0], outer));
    ASSERT_EQ(nested.size(), 1u);
    EXPECT_EQ(nested[0].code(), bitrep::error::would_block) << nested[0].message();
    EXPECT_TRUE(oracle::contains(nested[0].message(), "inside its own receive()")) << nested[0].message();
    EXPECT_EQ(notes, (std::vector<std::string>{"outer"})) << "the outer packet's message, as sent";
    // The refused packet was not read: given again afterwards, it is taken.
    ASSERT_TRUE(server->receive(ids[0], inner));
    EXPECT_EQ(notes, (std::vector<std::string>{"outer", std::string(150, 'i')}));
}

TEST_P(Handlers, AServerHandlerCallingReceiveWithAForgedOversizedPacketChangesNothing)
{
    // A stranger's packet longer than any the connection allows: only the
    // connection id is needed to reach the guard, and it travels in clear.
    ASSERT_TRUE(clients[0].send_input(1, move_at(1)));
    ASSERT_TRUE(clients[0].send(note("outer"), bitrep::channel::unreliable));
    const bytes outer = copy(clients[0].packet());
    bytes forged(bitrep::replication::largest_packet(options) + 800, std::uint8_t{0xC3});
    std::fill_n(forged.begin(), 8, std::uint8_t{0}); // connection id 0; a packet number never seen

    std::vector<bitrep::status> nested;
    std::vector<std::string> notes;
    server->on_input([&](bitrep::client_id from, std::uint32_t, const Move&) {
        nested.push_back(server->receive(from, forged));
    });
    server->on_message<Note>([&](bitrep::client_id, const Note& n) { notes.push_back(n.text.str()); });
    ASSERT_TRUE(server->receive(ids[0], outer));
    ASSERT_EQ(nested.size(), 1u);
    EXPECT_EQ(nested[0].code(), bitrep::error::would_block);
    EXPECT_EQ(notes, (std::vector<std::string>{"outer"}));
    // Outside any handler it is refused for its length, before anything is read.
    const bitrep::status alone = server->receive(ids[0], forged);
    EXPECT_EQ(alone.code(), bitrep::error::corrupt) << alone.message();
    EXPECT_TRUE(oracle::contains(alone.message(), "max_packet_bytes")) << alone.message();
}

TEST_P(Handlers, AServerHandlerMayReceiveAnotherClientsPacket)
{
    ASSERT_TRUE(clients[0].send_input(1, move_at(1)));
    ASSERT_TRUE(clients[0].send(note("from 0"), bitrep::channel::reliable));
    const bytes first = copy(clients[0].packet());
    ASSERT_TRUE(clients[1].send_input(1, move_at(1)));
    ASSERT_TRUE(clients[1].send(note("from 1"), bitrep::channel::reliable));
    const bytes second = copy(clients[1].packet());

    std::vector<std::pair<bitrep::client_id, std::string>> notes;
    std::vector<bitrep::status> nested;
    server->on_input([&](bitrep::client_id from, std::uint32_t, const Move&) {
        if (from == ids[0])
            nested.push_back(server->receive(ids[1], second));
    });
    server->on_message<Note>([&](bitrep::client_id from, const Note& n) { notes.emplace_back(from, n.text.str()); });
    ASSERT_TRUE(server->receive(ids[0], first));
    ASSERT_EQ(nested.size(), 1u);
    EXPECT_TRUE(nested[0]) << nested[0].message();
    const std::vector<std::pair<bitrep::client_id, std::string>> expected{{ids[1], "from 1"}, {ids[0], "from 0"}};
    EXPECT_EQ(notes, expected);
}

TEST_P(Handlers, AClientHandlerCallingReceiveIsRefusedAndItsPacketStaysWhole)
{
    // Two notes in one state packet: the first one's handler tries the next
    // state packet; the second note is still read from the first packet.
    ASSERT_TRUE(server->send(ids[0], note("one"), bitrep::channel::reliable));
    ASSERT_TRUE(server->send(ids[0], note("two"), bitrep::channel::unreliable));
    driver.step(true);
    const bytes outer = copy(update_and_replicate(*server, ids[0], driver.world));
    ASSERT_TRUE(server->send(ids[0], note(std::string(150, 'n')), bitrep::channel::unreliable));
    driver.step(true);
    const bytes inner = copy(update_and_replicate(*server, ids[0], driver.world));

    std::vector<bitrep::status> nested;
    std::vector<std::string> notes;
    clients[0].on_message<Note>([&](const Note& n) {
        notes.push_back(n.text.str());
        if (notes.size() == 1)
            nested.push_back(clients[0].receive(inner));
    });
    ASSERT_TRUE(clients[0].receive(outer));
    ASSERT_EQ(nested.size(), 1u);
    EXPECT_EQ(nested[0].code(), bitrep::error::would_block) << nested[0].message();
    EXPECT_EQ(notes, (std::vector<std::string>{"one", "two"}));
    ASSERT_TRUE(clients[0].receive(inner));
    EXPECT_EQ(notes.back(), std::string(150, 'n'));
    EXPECT_EQ(clients[0].statistics().applied, 3u);
}

TEST_P(Handlers, AnOnChangeCallbackCallingReceiveIsRefused)
{
    // The states it is shown are the client's own, still in use.
    driver.step(true);
    const bytes outer = copy(update_and_replicate(*server, ids[0], driver.world));
    driver.step(true);
    const bytes inner = copy(update_and_replicate(*server, ids[0], driver.world));
    std::vector<bitrep::status> nested;
    clients[0].on_change([&](const bitrep::state_change&, const World&, const World&) {
        if (nested.empty())
            nested.push_back(clients[0].receive(inner));
    });
    ASSERT_TRUE(clients[0].receive(outer));
    ASSERT_EQ(nested.size(), 1u);
    EXPECT_EQ(nested[0].code(), bitrep::error::would_block);
    EXPECT_TRUE(clients[0].receive(inner));
}

TEST_P(Handlers, AnInputHandlerThatThrowsLosesNoInput)
{
    // Inputs 1-3 in one packet; the handler fails on 2. Input 3 is not
    // acknowledged, so the client sends it again with input 4.
    std::vector<std::uint32_t> handled;
    bool fail = true;
    server->on_input([&](bitrep::client_id, std::uint32_t tick, const Move& m) {
        EXPECT_EQ(m.tick.get(), tick);
        handled.push_back(tick);
        if (tick == 2 && fail) {
            fail = false;
            throw std::runtime_error("the game's handler failed");
        }
    });
    for (std::uint32_t tick = 1; tick <= 3; ++tick)
        ASSERT_TRUE(clients[0].send_input(tick, move_at(tick)));
    EXPECT_THROW(static_cast<void>(server->receive(ids[0], clients[0].packet())), std::runtime_error);
    EXPECT_EQ(handled, (std::vector<std::uint32_t>{1, 2}));
    // The server's next state packet acknowledges inputs 1 and 2 only.
    driver.step(true);
    ASSERT_TRUE(clients[0].receive(update_and_replicate(*server, ids[0], driver.world)));
    EXPECT_EQ(clients[0].inputs_waiting(), 1u);
    ASSERT_TRUE(clients[0].send_input(4, move_at(4)));
    ASSERT_TRUE(server->receive(ids[0], clients[0].packet()));
    EXPECT_EQ(handled, (std::vector<std::uint32_t>{1, 2, 3, 4}));
    const auto* stats = server->input_statistics(ids[0]);
    ASSERT_NE(stats, nullptr);
    EXPECT_EQ(stats->delivered, 4u);
    EXPECT_EQ(stats->ticks_skipped, 0u);
}

TEST_P(Handlers, InputsOfOnePacketAreEachNewerThanTheOneDeliveredBeforeIt)
{
    // Ticks compare by their difference, which is not transitive across half
    // the range: 0x80000008 is newer than 0x10 and 5 newer than it, but 5 is
    // not newer than 0x10. Each is judged against the one delivered before.
    std::vector<std::uint32_t> handled;
    server->on_input([&](bitrep::client_id, std::uint32_t tick, const Move&) { handled.push_back(tick); });
    ASSERT_TRUE(clients[0].send_input(0, Move{}));
    ASSERT_TRUE(server->receive(ids[0], clients[0].packet()));
    for (const std::uint32_t tick : {0x10u, 0x80000008u, 5u})
        ASSERT_TRUE(clients[0].send_input(tick, Move{}));
    ASSERT_TRUE(server->receive(ids[0], clients[0].packet()));
    EXPECT_EQ(handled, (std::vector<std::uint32_t>{0, 0x10, 0x80000008u, 5}));
}
