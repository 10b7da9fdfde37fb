// Two-way replication (docs/guide/two-way.md): client inputs,
// reliable and unreliable messages both ways, through lossy links and
// hostile bytes.
#include <gtest/gtest.h>

#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>

#include <cstdint>
#include <algorithm>
#include <iostream>
#include <map>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "replication_fixtures.hpp"
#include "test_oracle.hpp"

// At namespace scope: error paths name the types ("Chat.text").
struct PlayerInput {
    bitrep::ranged<int, -1, 1> move_x, move_y;
    bool jump = false;
    bitrep::ranged<std::uint32_t, 0, 1'000'000> sequence; ///< the tick again, to check what arrives
};
BOOST_DESCRIBE_STRUCT(PlayerInput, (), (move_x, move_y, jump, sequence))

struct Chat {
    bitrep::ranged<std::uint32_t, 0, 1'000'000> serial;
    bitrep::bounded_string<40> text;
};
BOOST_DESCRIBE_STRUCT(Chat, (), (serial, text))

struct Push {
    bitrep::ranged<std::uint32_t, 0, 250> target; // 8 bits
    bool hard = false;                              // a 9-bit body: its last bit in a byte of its own
};
BOOST_DESCRIBE_STRUCT(Push, (), (target, hard))

struct Score {
    bitrep::ranged<std::uint32_t, 0, 1'000'000> serial;
    std::uint32_t points = 0;
};
BOOST_DESCRIBE_STRUCT(Score, (), (serial, points))

struct Blob {
    bitrep::bounded_vector<std::uint8_t, 4000> bytes;
};
BOOST_DESCRIBE_STRUCT(Blob, (), (bytes))

namespace {

using replication_fixtures::moving_world;
using replication_fixtures::update_and_replicate;
using Messages = bitrep::message_set<Chat, Push, Score, Blob>;
using Server = bitrep::replication_server<World, PlayerInput, Messages>;
using Client = bitrep::replication_client<World, PlayerInput, Messages>;

Chat chat(std::uint32_t serial, std::string text)
{
    Chat c;
    c.serial = serial;
    c.text = std::move(text);
    return c;
}

PlayerInput input_for(std::uint32_t tick)
{
    PlayerInput input;
    input.move_x = static_cast<int>(tick % 3) - 1;
    input.move_y = static_cast<int>((tick / 3) % 3) - 1;
    input.jump = tick % 7 == 0;
    input.sequence = tick;
    return input;
}

/// A server and one client joined by a link simulator each way.
struct linked {
    explicit linked(bitrep::link_conditions conditions, std::uint64_t seed, bitrep::replication_options options = {})
        : driver(static_cast<std::uint32_t>(seed), 30), server(options), client(options), id(server.add_client()),
          down(conditions, seed), up(conditions, seed + 1000)
    {
        server.on_input([this](bitrep::client_id, std::uint32_t tick, const PlayerInput& input) {
            inputs_received.push_back(tick);
            EXPECT_EQ(input.sequence.get(), tick);
        });
        server.on_message<Chat>([this](bitrep::client_id from, const Chat& c) {
            EXPECT_EQ(from, id);
            chats_at_server.push_back(c.serial.get());
            EXPECT_EQ(c.text.str(), "line " + std::to_string(c.serial.get()));
        });
        client.on_message<Chat>([this](const Chat& c) { chats_at_client.push_back(c.serial.get()); });
        client.on_message<Score>([this](const Score& s) {
            scores_at_client.push_back(s.serial.get());
            EXPECT_EQ(s.points, 1000u * s.serial.get() + 7u) << "the body's last partial byte";
        });
        server.on_message<Push>([this](bitrep::client_id, const Push& p) {
            EXPECT_EQ(p.target.get(), pushes_at_server.size() % 251);
            EXPECT_EQ(p.hard, pushes_at_server.size() % 2 == 1);
            pushes_at_server.push_back(p.target.get());
        });
    }

    moving_world driver;
    Server server;
    Client client;
    bitrep::client_id id;
    bitrep::link_simulator down; ///< server to client
    bitrep::link_simulator up;   ///< client to server

    std::vector<std::uint32_t> inputs_received;
    /// Each client packet's input ticks, by its bytes.
    std::map<std::string, std::pair<std::uint32_t, std::uint32_t>> carried;
    /// The inputs the server must deliver, by the rule of section 10.2:
    /// those of every packet that reaches it intact that are newer than
    /// every input delivered before.
    std::vector<std::uint32_t> expected_inputs;
    std::vector<std::uint32_t> chats_at_server;
    std::vector<std::uint32_t> chats_at_client;
    std::vector<std::uint32_t> scores_at_client;
    std::vector<std::uint32_t> pushes_at_server;
    std::uint32_t pushes_sent = 0;

    /// One tick at time `t`: the client sends its input (and a chat line
    /// every `chat_every` ticks), both ends send and receive.
    void tick(std::uint32_t t, std::uint32_t chat_every, std::uint32_t& next_chat, std::uint32_t& next_reply,
              std::uint32_t& next_score)
    {
        driver.step(true);
        ASSERT_TRUE(client.send_input(t, input_for(t)));
        if (chat_every != 0 && t % chat_every == 0) {
            if (client.send(chat(next_chat, "line " + std::to_string(next_chat)), bitrep::channel::reliable))
                ++next_chat;
            if (server.send(id, chat(next_reply, "reply"), bitrep::channel::reliable))
                ++next_reply;
            Score s;
            s.serial = next_score++;
            s.points = 1000u * s.serial.get() + 7u;
            EXPECT_TRUE(server.send(id, s, bitrep::channel::unreliable));
            Push p;
            p.target = pushes_sent % 251;
            p.hard = pushes_sent % 2 == 1;
            if (client.send(p, bitrep::channel::reliable))
                ++pushes_sent;
        }
        down.send(update_and_replicate(server, id, driver.world), t);
        const std::span<const std::uint8_t> packet = client.packet();
        carried[std::string(packet.begin(), packet.end())] = {t + 1 - static_cast<std::uint32_t>(client.inputs_waiting()), t};
        up.send(packet, t);
        down.receive(t, [&](std::span<const std::uint8_t> bytes) { static_cast<void>(client.receive(bytes)); });
        up.receive(t, [&](std::span<const std::uint8_t> bytes) {
            const bitrep::status received = server.receive(id, bytes);
            const auto found = carried.find(std::string(bytes.begin(), bytes.end()));
            if (found == carried.end())
                return; // corrupted on the way
            EXPECT_TRUE(received) << received.message();
            for (std::uint32_t tick = found->second.first; tick <= found->second.second; ++tick)
                if (expected_inputs.empty() || tick > expected_inputs.back())
                    expected_inputs.push_back(tick);
        });
    }
};

bool strictly_increasing(const std::vector<std::uint32_t>& v)
{
    for (std::size_t i = 1; i < v.size(); ++i)
        if (v[i] <= v[i - 1])
            return false;
    return true;
}

/// 0..n-1, each once and in order.
bool exactly_once_in_order(const std::vector<std::uint32_t>& v, std::uint32_t n)
{
    if (v.size() != n)
        return false;
    for (std::uint32_t i = 0; i < n; ++i)
        if (v[i] != i)
            return false;
    return true;
}

} // namespace

TEST(TwoWay, InputsAndMessagesArriveOnAPerfectLink)
{
    linked link({}, 1);
    std::uint32_t chat_serial = 0, reply_serial = 0, score_serial = 0;
    for (std::uint32_t t = 1; t <= 120; ++t)
        ASSERT_NO_FATAL_FAILURE(link.tick(t, 10, chat_serial, reply_serial, score_serial));
    // The last tick's input is in flight only if the link had latency; it has none.
    ASSERT_EQ(link.inputs_received.size(), 120u);
    for (std::uint32_t t = 1; t <= 120; ++t)
        EXPECT_EQ(link.inputs_received[t - 1], t);
    EXPECT_TRUE(exactly_once_in_order(link.chats_at_server, chat_serial));
    EXPECT_TRUE(exactly_once_in_order(link.chats_at_client, reply_serial));
    EXPECT_TRUE(exactly_once_in_order(link.scores_at_client, score_serial));
    EXPECT_EQ(link.pushes_at_server.size(), link.pushes_sent);
    EXPECT_EQ(link.client.inputs_waiting(), 1u) << "the newest input waits for the next state packet's ack";
}

class TwoWayUnderLoss : public ::testing::TestWithParam<double> {};

TEST_P(TwoWayUnderLoss, ReliableMessagesArriveExactlyOnceInOrderAndNoInputIsLost)
{
    bitrep::link_conditions conditions;
    conditions.loss = GetParam();
    conditions.latency = 3;
    conditions.jitter = 2;
    conditions.duplicate = 0.05;
    conditions.reorder = 0.05;
    conditions.reorder_delay = 4;
    conditions.corrupt = 0.02;
    linked link(conditions, 7);
    std::uint32_t chat_serial = 0, reply_serial = 0, score_serial = 0;
    const std::uint32_t ticks = replication_fixtures::sanitized ? 600 : 1800;
    for (std::uint32_t t = 1; t <= ticks; ++t)
        ASSERT_NO_FATAL_FAILURE(link.tick(t, 6, chat_serial, reply_serial, score_serial));
    // Then a clear link until everything in flight has landed.
    link.down.set_conditions({});
    link.up.set_conditions({});
    for (std::uint32_t t = ticks + 1; t <= ticks + 120; ++t)
        ASSERT_NO_FATAL_FAILURE(link.tick(t, 0, chat_serial, reply_serial, score_serial));

    // The state converges as without inputs and messages: the world moved
    // in the tail's last tick, whose packet arrived on the clear link.
    EXPECT_TRUE(replication_fixtures::holds_world(link.client.state(), link.driver.world));
    EXPECT_TRUE(exactly_once_in_order(link.chats_at_server, chat_serial)) << link.chats_at_server.size() << " of " << chat_serial;
    EXPECT_TRUE(exactly_once_in_order(link.chats_at_client, reply_serial)) << link.chats_at_client.size() << " of " << reply_serial;
    EXPECT_TRUE(strictly_increasing(link.scores_at_client));
    EXPECT_LE(link.scores_at_client.size(), score_serial);
    // Every input an intact packet carried arrived, once and in tick order,
    // unless a newer one had arrived first; the others are exactly the
    // ticks the server counts as skipped (every packet of the input window
    // that held them was lost, or overtaken).
    const std::vector<std::uint32_t>& expected = link.expected_inputs;
    EXPECT_EQ(link.inputs_received, expected);
    const bitrep::replication::input_statistics& inputs = *link.server.input_statistics(link.id);
    EXPECT_EQ(inputs.delivered, expected.size());
    EXPECT_EQ(inputs.ticks_skipped, ticks + 120u - expected.size());
    if (GetParam() <= 0.25) {
        EXPECT_EQ(inputs.ticks_skipped, 0u) << "at most 25% loss the window of 8 loses no input";
    }
    std::cout << "loss " << GetParam() << ": inputs lost for good " << inputs.ticks_skipped << " of " << ticks + 120
              << ", reliable resent " << link.client.messages().reliable_resent << " (client) "
              << link.server.messages(link.id)->reliable_resent << " (server)\n";
    const bitrep::message_statistics& at_server = *link.server.messages(link.id);
    EXPECT_EQ(at_server.reliable_delivered, chat_serial + link.pushes_sent);
    EXPECT_EQ(link.pushes_at_server.size(), link.pushes_sent);
    if (GetParam() > 0) {
        EXPECT_GT(at_server.reliable_duplicates + link.client.messages().reliable_duplicates, 0u);
        EXPECT_GT(link.client.messages().reliable_resent, 0u);
    }
}

INSTANTIATE_TEST_SUITE_P(Loss, TwoWayUnderLoss, ::testing::Values(0.0, 0.05, 0.25, 0.5),
                         [](const auto& info) { return "loss" + std::to_string(static_cast<int>(info.param * 100)); });

TEST(TwoWay, SendRefusesAFullQueueAValueOutsideItsAnnotationAndAMessageLargerThanAPacket)
{
    bitrep::replication_options options;
    options.message_queue = 4;
    Client client(options);
    for (std::uint32_t i = 0; i < 4; ++i)
        ASSERT_TRUE(client.send(chat(i, "x"), bitrep::channel::reliable));
    EXPECT_STATUS(client.send(chat(4, "x"), bitrep::channel::reliable), bitrep::error::would_block, "Chat", 0);

    Chat bad = chat(1, "ok");
    bad.text.str() = std::string("\xff\xfe");
    EXPECT_STATUS(client.send(bad, bitrep::channel::unreliable), bitrep::error::bad_utf8, "Chat.text", 20);

    Blob blob;
    blob.bytes.resize(1300);
    EXPECT_STATUS(client.send(blob, bitrep::channel::unreliable), bitrep::error::buffer_too_small, "Blob", 0);
    EXPECT_EQ(client.messages().send_refused, 3u);
    EXPECT_EQ(client.messages().unreliable_queued, 0u);
}

TEST(TwoWay, SendInputRefusesAnOldTickAndAValueOutsideItsAnnotation)
{
    Client client;
    ASSERT_TRUE(client.send_input(10, input_for(10)));
    EXPECT_STATUS(client.send_input(10, input_for(10)), bitrep::error::out_of_range, "input", 0);
    PlayerInput bad = input_for(11);
    bad.move_x.get() = 5;
    EXPECT_STATUS(client.send_input(11, bad), bitrep::error::value_out_of_range, "PlayerInput.move_x", 0);
    EXPECT_EQ(client.inputs_waiting(), 1u);
}

namespace aiming {
struct Aim {
    bitrep::quantized<-3.1416f, 3.1416f, 0.001f> yaw;
    bitrep::quantized<0.f, 1.f, 0.01f> throttle;
};
BOOST_DESCRIBE_STRUCT(Aim, (), (yaw, throttle))
struct Shout {
    bitrep::quantized<0.f, 100.f, 0.5f> volume;
};
BOOST_DESCRIBE_STRUCT(Shout, (), (volume))
using Client = bitrep::replication_client<World, Aim, bitrep::message_set<Shout>>;
using Server = bitrep::replication_server<World, Aim, bitrep::message_set<Shout>>;
} // namespace aiming

TEST(TwoWay, QuantizedInputsAndMessagesOutsideTheirRangeAreRefusedNamingTheField)
{
    aiming::Client client;
    aiming::Aim aim;
    aim.throttle = 1.5f;
    EXPECT_STATUS(client.send_input(1, aim), bitrep::error::value_out_of_range, "aiming::Aim.throttle", 13);
    aim.throttle = 1.0f;
    aim.yaw = -std::numeric_limits<float>::infinity();
    EXPECT_STATUS(client.send_input(1, aim), bitrep::error::value_out_of_range, "aiming::Aim.yaw", 0);
    EXPECT_EQ(client.inputs_waiting(), 0u);
    aiming::Shout shout;
    shout.volume = 120.0f;
    EXPECT_STATUS(client.send(shout, bitrep::channel::reliable), bitrep::error::value_out_of_range,
                  "aiming::Shout.volume", 0);
    EXPECT_STATUS(client.send(shout, bitrep::channel::unreliable), bitrep::error::value_out_of_range,
                  "aiming::Shout.volume", 0);
    EXPECT_EQ(client.messages().send_refused, 2u);

    aiming::Server server;
    const bitrep::client_id id = server.add_client();
    EXPECT_STATUS(server.send(id, shout, bitrep::channel::reliable), bitrep::error::value_out_of_range,
                  "aiming::Shout.volume", 0);
}

TEST(TwoWay, AMalformedMessageRefusesThePacketWholeAndNamesTheMessageField)
{
    Server server;
    Client client;
    const bitrep::client_id id = server.add_client();
    std::vector<std::string> received;
    server.on_message<Chat>([&](bitrep::client_id, const Chat& c) { received.push_back(c.text.str()); });
    ASSERT_TRUE(client.send(chat(1, "hello"), bitrep::channel::reliable));
    ASSERT_TRUE(client.send_input(1, input_for(1)));
    std::vector<std::uint8_t> packet;
    {
        const auto bytes = client.packet();
        packet.assign(bytes.begin(), bytes.end());
    }
    // "hello" sits in whole bytes (strings are aligned): turn its first
    // byte into 0xFF, which no UTF-8 string holds, and reseal.
    std::vector<std::uint8_t> forged = packet;
    const auto at = std::search(forged.begin(), forged.end(), std::begin("hello"), std::end("hello") - 1);
    ASSERT_NE(at, forged.end());
    *at = 0xFF;
    bitrep::replication::seal(server.options().protocol_id, bitrep::replication::packet_kind::ack, forged);
    const bitrep::status refused = server.receive(id, forged);
    EXPECT_EQ(refused.code(), bitrep::error::bad_utf8);
    EXPECT_TRUE(oracle::contains(refused.field_path(), "Chat.text")) << refused.message();
    EXPECT_TRUE(received.empty());
    EXPECT_TRUE(server.inputs(id).empty());
    EXPECT_EQ(server.input_statistics(id)->delivered, 0u) << "the packet's input is not delivered either";

    // The genuine packet still applies, once.
    ASSERT_TRUE(server.receive(id, packet));
    ASSERT_TRUE(server.receive(id, packet));
    ASSERT_EQ(received.size(), 1u);
    EXPECT_EQ(received[0], "hello");
    EXPECT_EQ(server.input_statistics(id)->delivered, 1u);
    EXPECT_EQ(server.input_statistics(id)->duplicates, 1u);
    EXPECT_EQ(server.messages(id)->reliable_duplicates, 1u);
}

TEST(TwoWay, AStateOnlyProtocolSendsTheElevenByteAck)
{
    bitrep::replication_server<World> server;
    bitrep::replication_client<World> client;
    const bitrep::client_id id = server.add_client();
    moving_world driver(3, 10);
    driver.step(true);
    ASSERT_TRUE(client.receive(update_and_replicate(server, id, driver.world)));
    EXPECT_EQ(client.packet().size(), bitrep::replication::ack_bytes);
    EXPECT_TRUE(server.receive(id, client.ack()));
}

// ---------------------------------------------------------------- replication conditions

struct Player {
    bitrep::quantized<-100.f, 100.f, 0.01f> x;
    bitrep::ranged<std::uint32_t, 0, 15> owner;
    bitrep::owner_only<bitrep::ranged<int, 0, 100>> stamina{100};
    bitrep::skip_owner<bool> highlighted;
    bitrep::initial_only<bitrep::bounded_string<16>> name;
};
BOOST_DESCRIBE_STRUCT(Player, (), (x, owner, stamina, highlighted, name))

struct Arena {
    bitrep::ranged<std::uint32_t, 0, 1'000'000> tick;
    bitrep::entity_array<Player, 8> players;
};
BOOST_DESCRIBE_STRUCT(Arena, (), (tick, players))

namespace {

/// What client `id` may hold of `arena` (section 10.5), given the names it
/// saw when each player was created for it.
Arena as_seen_by(const Arena& arena, bitrep::client_id id, const std::map<std::uint32_t, std::string>& first_names)
{
    Arena seen = arena;
    for (auto [slot, player] : seen.players) {
        const bool owner = player.owner.get() == id;
        if (!owner)
            player.stamina = Player{}.stamina;
        if (owner)
            player.highlighted = Player{}.highlighted;
        player.name.get() = first_names.at(slot);
    }
    return seen;
}

} // namespace

TEST(TwoWayConditions, EachClientReceivesExactlyWhatItsConditionsAllow)
{
    bitrep::replication_server<Arena> server;
    server.set_owner<&Arena::players>(
        [](std::uint32_t, const Player& p) -> std::optional<bitrep::client_id> { return p.owner.get(); });
    std::vector<bitrep::replication_client<Arena>> clients(3);
    std::vector<bitrep::client_id> ids;
    for (std::size_t k = 0; k < clients.size(); ++k)
        ids.push_back(server.add_client());

    Arena arena;
    std::map<std::uint32_t, std::string> names;
    for (std::uint32_t p = 0; p < 3; ++p) {
        Player player;
        player.owner = p;
        player.x = static_cast<float>(p);
        player.stamina = 50 + static_cast<int>(p);
        player.highlighted = true;
        player.name.get() = "player" + std::to_string(p);
        names[p] = player.name.get().str();
        arena.players.emplace(p, player);
    }
    for (std::uint32_t t = 1; t <= 20; ++t) {
        arena.tick = t;
        for (auto [slot, player] : arena.players) {
            player.x = player.x.get() + 0.5f;
            player.stamina = (player.stamina.get().get() + 1) % 100;
            if (t > 1)
                player.name.get() = "renamed" + std::to_string(t); // initial_only: never sent again
        }
        for (std::size_t k = 0; k < clients.size(); ++k) {
            const auto packet = update_and_replicate(server, ids[k], arena);
            ASSERT_TRUE(clients[k].receive(packet));
            ASSERT_TRUE(server.receive(ids[k], clients[k].ack()));
            // Bit for bit what the server sent, and that is the world as
            // the conditions let this client see it.
            const std::optional<Arena> sent = server.sent_state(ids[k], clients[k].sequence());
            ASSERT_TRUE(sent.has_value());
            EXPECT_EQ(bitrep::to_bytes(clients[k].state()), bitrep::to_bytes(*sent));
            EXPECT_EQ(bitrep::to_bytes(clients[k].state()), bitrep::to_bytes(as_seen_by(arena, ids[k], names)))
                << "client " << k << " tick " << t;
        }
    }
    // The owner sees its stamina, the others the default; skip_owner the reverse.
    EXPECT_EQ(clients[1].state().players.find(1)->stamina.get().get(), arena.players.find(1)->stamina.get().get());
    EXPECT_EQ(clients[0].state().players.find(1)->stamina.get().get(), 100);
    EXPECT_FALSE(clients[1].state().players.find(1)->highlighted.get());
    EXPECT_TRUE(clients[0].state().players.find(1)->highlighted.get());
    EXPECT_EQ(clients[2].state().players.find(0)->name.get().str(), "player0");

    // A change to an owner_only member alone is news to its owner only: the
    // others get no packet content for it and no change notification.
    std::vector<int> notified(clients.size(), 0);
    for (std::size_t k = 0; k < clients.size(); ++k)
        clients[k].on_change([&notified, k](const bitrep::state_change& change, const Arena&, const Arena&) {
            if (change.what == bitrep::state_change::kind::changed && change.id == 1)
                ++notified[k];
        });
    arena.players.find(1)->stamina = 7;
    for (std::size_t k = 0; k < clients.size(); ++k) {
        ASSERT_TRUE(clients[k].receive(update_and_replicate(server, ids[k], arena)));
        ASSERT_TRUE(server.receive(ids[k], clients[k].ack()));
    }
    EXPECT_EQ(notified, (std::vector<int>{0, 1, 0}));
    EXPECT_EQ(clients[1].state().players.find(1)->stamina.get().get(), 7);

    // A client that joins now gets the entities as created for it: the current name.
    bitrep::replication_client<Arena> late;
    const bitrep::client_id late_id = server.add_client();
    ASSERT_TRUE(late.receive(update_and_replicate(server, late_id, arena)));
    EXPECT_EQ(late.state().players.find(0)->name.get().str(), "renamed20");
    EXPECT_EQ(late.state().players.find(0)->stamina.get().get(), 100);
    // Saves keep every member whatever its condition.
    Arena loaded;
    ASSERT_TRUE(bitrep::from_bytes(bitrep::to_bytes(arena), loaded));
    EXPECT_EQ(loaded.players.find(2)->stamina.get().get(), arena.players.find(2)->stamina.get().get());
    EXPECT_EQ(loaded.players.find(2)->name.get().str(), "renamed20");
}

TEST(TwoWay, EndsThatDisagreeOnTheirMessageTypesRefuseEachOthersPacketsAsCorrupt)
{
    Server server;
    bitrep::replication_client<World, PlayerInput, bitrep::message_set<Chat, Push>> other;
    const bitrep::client_id id = server.add_client();
    moving_world driver(3, 10);
    driver.step(true);
    EXPECT_EQ(other.receive(update_and_replicate(server, id, driver.world)).code(), bitrep::error::corrupt);
    EXPECT_EQ(server.receive(id, other.packet()).code(), bitrep::error::corrupt);
    // The same types on both ends: accepted.
    Client same;
    EXPECT_TRUE(same.receive(update_and_replicate(server, id, driver.world)));
    EXPECT_TRUE(server.receive(id, same.packet()));
}

// ---------------------------------------------------------------- the channels alone

namespace {

/// One end's message section through a buffer into the other end.
std::size_t exchange(bitrep::replication::message_endpoint& from, bitrep::replication::message_endpoint& to,
                     std::uint64_t packet, std::vector<std::uint32_t>& delivered)
{
    std::vector<std::uint8_t> buffer(256);
    bitrep::replication::message_write_stream out(buffer);
    from.plan_reliable(packet, 8 * buffer.size(), 8 * buffer.size());
    from.plan_unreliable(0);
    EXPECT_TRUE(from.write(out));
    from.commit(packet);
    const std::size_t size = out.flush();
    const std::span<const std::uint8_t> bytes(buffer.data(), size);
    bitrep::replication::message_read_stream in(bytes);
    const auto validate = [](void*, std::uint16_t, bitrep::replication::message_read_stream& s) {
        std::uint32_t v = 0;
        return s.serialize_bits(v, 24);
    };
    EXPECT_TRUE(to.read(in, validate, nullptr));
    const auto deliver = [](void* sink, const bitrep::replication::message_view& m) {
        bitrep::replication::message_read_stream s(m.body);
        std::uint32_t v = 0;
        EXPECT_TRUE(s.serialize_bits(v, 24));
        static_cast<std::vector<std::uint32_t>*>(sink)->push_back(v);
    };
    to.apply(bytes, deliver, &delivered);
    return size;
}

} // namespace

TEST(MessageChannel, EveryMessageArrivesOnceInOrderAcrossTheIdWrapWhateverTheQueueSize)
{
    // Slots are id % queue: a queue that does not divide the 65536 ids would
    // give two live ids one slot where the numbers wrap. It is rounded up to
    // a power of two (3 -> 4).
    bitrep::replication::message_limits limits;
    limits.queue = 3;
    limits.body_bytes = 4;
    bitrep::replication::message_endpoint a(limits), b(limits);
    EXPECT_EQ(a.limits().queue, 4u);
    std::vector<std::uint32_t> at_b, at_a;
    std::uint32_t sent = 0;
    std::uint64_t packet = 0;
    while (sent < 70000 || a.waiting(bitrep::channel::reliable) != 0) {
        // Up to three new messages a packet, while the queue has room.
        for (int k = 0; k < 3 && sent < 70000; ++k) {
            std::span<std::uint8_t> slot = a.slot(bitrep::channel::reliable);
            if (slot.empty())
                break;
            bitrep::replication::message_write_stream w(slot);
            std::uint32_t v = sent & 0xFFFFFFu;
            ASSERT_TRUE(w.serialize_bits(v, 24));
            w.flush();
            a.queue(bitrep::channel::reliable, 0, 24);
            ++sent;
        }
        exchange(a, b, packet, at_b);   // messages to b
        exchange(b, a, packet, at_a);   // b's ack back
        ++packet;
        ASSERT_LT(packet, 200000u);
    }
    ASSERT_EQ(at_b.size(), 70000u);
    for (std::uint32_t i = 0; i < 70000; ++i)
        ASSERT_EQ(at_b[i], i & 0xFFFFFFu) << "message " << i;
    EXPECT_TRUE(at_a.empty());
}

namespace {

/// The packets (of 0 .. packets - 1) that carry one reliable message the
/// peer never acknowledges.
std::vector<std::uint64_t> sends_of_an_unacknowledged_message(std::uint32_t resend_packets, std::uint64_t packets)
{
    bitrep::replication::message_limits limits;
    limits.body_bytes = 4;
    limits.resend_packets = resend_packets;
    bitrep::replication::message_endpoint a(limits);
    bitrep::replication::message_write_stream w(a.slot(bitrep::channel::reliable));
    std::uint32_t v = 7;
    EXPECT_TRUE(w.serialize_bits(v, 24));
    w.flush();
    a.queue(bitrep::channel::reliable, 0, 24);
    std::vector<std::uint64_t> sends{0}; // the first send, then each copy
    for (std::uint64_t packet = 0; packet < packets; ++packet) {
        const std::uint64_t resent = a.statistics().reliable_resent;
        static_cast<void>(a.plan_reliable(packet, 1024, 1024));
        static_cast<void>(a.plan_unreliable(0));
        a.commit(packet);
        if (a.statistics().reliable_resent != resent)
            sends.push_back(packet);
    }
    return sends;
}

} // namespace

TEST(MessageChannel, ResendBackOffNeverShortensTheIntervalInForce)
{
    // An interval above the 64-packet cap of the back-off stays as it is.
    EXPECT_EQ(sends_of_an_unacknowledged_message(100, 450), (std::vector<std::uint64_t>{0, 100, 200, 300, 400}));
    // Below it, the interval doubles while the message goes unacknowledged,
    // up to 64 packets.
    EXPECT_EQ(sends_of_an_unacknowledged_message(6, 300),
              (std::vector<std::uint64_t>{0, 6, 18, 42, 90, 154, 218, 282}));
}

// A replication_client copies with its messages: a copy of an endpoint is a
// separate end in the same state (its own queues), and a moved-to one goes
// on where the original was.
TEST(MessageChannel, ACopyIsASeparateEndInTheSameState)
{
    bitrep::replication::message_limits limits;
    limits.queue = 4;
    limits.body_bytes = 4;
    bitrep::replication::message_endpoint a(limits), b(limits);
    const auto queue_one = [](bitrep::replication::message_endpoint& end, std::uint32_t v) {
        bitrep::replication::message_write_stream w(end.slot(bitrep::channel::reliable));
        ASSERT_TRUE(w.serialize_bits(v, 24));
        w.flush();
        end.queue(bitrep::channel::reliable, 0, 24);
    };
    queue_one(a, 1);
    queue_one(a, 2);
    bitrep::replication::message_endpoint copy(a);
    queue_one(a, 3); // the original's alone
    EXPECT_EQ(a.waiting(bitrep::channel::reliable), 3u);
    EXPECT_EQ(copy.waiting(bitrep::channel::reliable), 2u);
    EXPECT_EQ(copy.statistics().reliable_queued, 2u);

    std::vector<std::uint32_t> from_a, from_copy, back;
    exchange(a, b, 0, from_a);
    bitrep::replication::message_endpoint c(limits);
    exchange(copy, c, 0, from_copy);
    EXPECT_EQ(from_a, (std::vector<std::uint32_t>{1, 2, 3}));
    EXPECT_EQ(from_copy, (std::vector<std::uint32_t>{1, 2}));

    // Assigned, then moved: the state goes with it.
    copy = a;
    exchange(b, copy, 1, back); // b's ack frees the copy's three messages
    EXPECT_EQ(copy.waiting(bitrep::channel::reliable), 0u);
    EXPECT_EQ(a.waiting(bitrep::channel::reliable), 3u);
    bitrep::replication::message_endpoint moved(std::move(a));
    EXPECT_EQ(moved.waiting(bitrep::channel::reliable), 3u);
    EXPECT_EQ(moved.limits().queue, 4u);
}

TEST(MessageChannel, AReceivedReliableMessagesCopyIsZeroedOnceDeliveredEvenByAHandlerThatThrows)
{
    // A reliable message is copied out of the (decrypted) packet body to be
    // delivered in order; the copy is wiped as the body is.
    bitrep::replication::message_limits limits;
    limits.queue = 4;
    limits.body_bytes = 4;
    bitrep::replication::message_endpoint a(limits), b(limits);
    for (std::uint32_t v : {0xA1B2C3u, 0x5A5A5Au}) {
        bitrep::replication::message_write_stream w(a.slot(bitrep::channel::reliable));
        ASSERT_TRUE(w.serialize_bits(v, 24));
        w.flush();
        a.queue(bitrep::channel::reliable, 0, 24);
    }
    std::vector<std::uint8_t> buffer(64);
    bitrep::replication::message_write_stream out(buffer);
    a.plan_reliable(0, 8 * buffer.size(), 8 * buffer.size());
    a.plan_unreliable(0);
    ASSERT_TRUE(a.write(out));
    const std::span<const std::uint8_t> bytes(buffer.data(), out.flush());
    bitrep::replication::message_read_stream in(bytes);
    const auto validate = [](void*, std::uint16_t, bitrep::replication::message_read_stream& s) {
        std::uint32_t v = 0;
        return s.serialize_bits(v, 24);
    };
    ASSERT_TRUE(b.read(in, validate, nullptr));
    std::vector<std::span<const std::uint8_t>> copies; // where each delivered body was held
    const auto deliver = [](void* sink, const bitrep::replication::message_view& m) {
        auto& seen = *static_cast<std::vector<std::span<const std::uint8_t>>*>(sink);
        EXPECT_NE(std::count(m.body.begin(), m.body.end(), std::uint8_t{0}), 3) << "delivered as sent";
        seen.push_back(m.body);
        if (seen.size() == 2)
            throw std::runtime_error("the game's handler failed");
    };
    EXPECT_THROW(b.apply(bytes, deliver, &copies), std::runtime_error);
    ASSERT_EQ(copies.size(), 2u);
    for (const std::span<const std::uint8_t> copy : copies) {
        ASSERT_EQ(copy.size(), 3u);
        // The endpoint is alive: the spans still point into its memory.
        EXPECT_EQ(std::count(copy.begin(), copy.end(), std::uint8_t{0}), 3);
    }
}

// ---------------------------------------------------------------- handlers and callbacks

TEST(TwoWay, AHandlerMayRemoveItsOwnClientDuringReceive)
{
    // A player kicked from the chat handler: the connection outlives the
    // receive() that is still reading it (ASan: no use after free).
    linked link({}, 2);
    bool kicked = false;
    link.server.on_message<Chat>([&](bitrep::client_id from, const Chat&) {
        link.server.remove_client(from);
        kicked = true;
        EXPECT_FALSE(link.server.has_client(from)) << "gone for every call at once";
        EXPECT_EQ(link.server.send(from, Chat{}, bitrep::channel::reliable).code(), bitrep::error::unknown_client);
    });
    ASSERT_TRUE(link.client.receive(update_and_replicate(link.server, link.id, link.driver.world)));
    Chat chat;
    chat.serial = 1;
    chat.text = "line 1";
    ASSERT_TRUE(link.client.send(chat, bitrep::channel::reliable));
    ASSERT_TRUE(link.server.receive(link.id, link.client.packet()));
    EXPECT_TRUE(kicked);
    EXPECT_FALSE(link.server.has_client(link.id));
    EXPECT_EQ(link.server.receive(link.id, link.client.packet()).code(), bitrep::error::unknown_client);
    EXPECT_EQ(link.server.statistics(link.id), nullptr);
}

TEST(TwoWay, AKickedClientsRemainingInputsAndMessagesAreNotDelivered)
{
    linked link({}, 2);
    std::vector<std::uint32_t> inputs;
    std::vector<std::uint32_t> chats;
    link.server.on_input([&](bitrep::client_id from, std::uint32_t tick, const PlayerInput&) {
        inputs.push_back(tick);
        link.server.remove_client(from); // the input handler runs first
    });
    link.server.on_message<Chat>([&](bitrep::client_id, const Chat& chat) { chats.push_back(chat.serial.get()); });
    ASSERT_TRUE(link.client.receive(update_and_replicate(link.server, link.id, link.driver.world)));
    for (std::uint32_t tick = 1; tick <= 2; ++tick) {
        PlayerInput input;
        input.sequence = tick;
        ASSERT_TRUE(link.client.send_input(tick, input));
        Chat chat;
        chat.serial = tick;
        ASSERT_TRUE(link.client.send(chat, tick == 1 ? bitrep::channel::reliable : bitrep::channel::unreliable));
    }
    ASSERT_TRUE(link.server.receive(link.id, link.client.packet()));
    EXPECT_EQ(inputs, (std::vector<std::uint32_t>{1}));
    EXPECT_TRUE(chats.empty());
    EXPECT_FALSE(link.server.has_client(link.id));
}

TEST(TwoWay, AClientThatCannotSealSaysWhyAndSendsNoMessage)
{
    // An AEAD client without a key (or a copy, or without libsodium)
    // cannot seal: its messages stay queued, none counted as sent.
    bitrep::replication_options options;
    options.security = bitrep::packet_security::aead;
    Client client(options);
    Chat chat;
    chat.serial = 1;
    ASSERT_TRUE(client.send(chat, bitrep::channel::unreliable));
    ASSERT_TRUE(client.send(chat, bitrep::channel::reliable));
    for (int attempt = 0; attempt < 3; ++attempt) {
        std::span<const std::uint8_t> packet;
        EXPECT_EQ(client.packet(packet).code(), bitrep::error::options_mismatch);
        EXPECT_TRUE(packet.empty());
        EXPECT_TRUE(client.packet().empty());
    }
    EXPECT_EQ(client.messages().unreliable_sent, 0u);
    EXPECT_EQ(client.messages().unreliable_expired, 0u);
    EXPECT_EQ(client.messages().reliable_resent, 0u);
}

TEST(TwoWay, AnOnChangeCallbackThatThrowsLosesNoInputAckAndNoMessage)
{
    linked link({}, 3);
    link.client.on_change([](const bitrep::state_change&, const World&, const World&) {
        throw std::runtime_error("the game's callback failed");
    });
    PlayerInput input;
    input.sequence = 1;
    ASSERT_TRUE(link.client.send_input(1, input));
    ASSERT_TRUE(link.server.receive(link.id, link.client.packet()));
    ASSERT_EQ(link.client.inputs_waiting(), 1u);
    Chat chat;
    chat.serial = 5;
    ASSERT_TRUE(link.server.send(link.id, chat, bitrep::channel::unreliable));
    const auto packet = update_and_replicate(link.server, link.id, link.driver.world);
    EXPECT_THROW(static_cast<void>(link.client.receive(packet)), std::runtime_error);
    // The packet is applied and counted, its input ack taken, its message delivered.
    EXPECT_EQ(link.client.statistics().applied, 1u);
    EXPECT_TRUE(link.client.has_state());
    EXPECT_EQ(link.client.inputs_waiting(), 0u);
    EXPECT_EQ(link.chats_at_client, (std::vector<std::uint32_t>{5}));
}

TEST(TwoWay, ReplicatedEqualComparesWhatTheClientReceivesAndNothingElse)
{
    linked link({}, 4);
    for (std::uint32_t t = 0; t < 5; ++t) {
        link.driver.step(true);
        ASSERT_TRUE(link.client.receive(update_and_replicate(link.server, link.id, link.driver.world)));
        ASSERT_TRUE(link.server.receive(link.id, link.client.packet()));
    }
    const std::optional<World> sent = link.server.sent_state(link.id, link.client.sequence());
    ASSERT_TRUE(sent.has_value());
    // The server's save_only seed is in sent_state, never on the client.
    EXPECT_NE(bitrep::to_bytes(*sent), bitrep::to_bytes(link.client.state()));
    EXPECT_TRUE(bitrep::replicated_equal(link.client.state(), *sent));
    World moved = *sent;
    moved.seed = 0x1234u;
    EXPECT_TRUE(bitrep::replicated_equal(link.client.state(), moved));
    moved.tick = moved.tick + 1;
    EXPECT_FALSE(bitrep::replicated_equal(link.client.state(), moved));
}
