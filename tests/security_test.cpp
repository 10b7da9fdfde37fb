// replication/security.hpp: sealing and opening packets with
// ChaCha20-Poly1305, and the replay window (docs/formats/packets.md, section 1).
// Every tampered bit, every truncation, a replay, reordering within the
// window, a packet too old, another key, the other direction, the other
// kind, another protocol id, and a CRC-path packet.
#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>
#include <bitrep/replication/security.hpp>

#include <gtest/gtest.h>

#include "allocation_counter.hpp"
#include "replicate_packet.hpp"
#include "replicated_worlds.hpp"
#include "test_oracle.hpp"

#include <algorithm>
#include <cstdint>
#include <new>
#include <numeric>
#include <span>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <vector>

namespace {

using bitrep::packet_key;
using bitrep::replication::direction;
using bitrep::replication::packet_kind;
namespace rep = bitrep::replication;
using bytes = std::vector<std::uint8_t>;
using test_replication::update_and_replicate;

constexpr std::uint32_t protocol = 0x62726570;

bytes body_of(std::size_t size, std::uint8_t seed)
{
    bytes b(size);
    std::iota(b.begin(), b.end(), seed);
    return b;
}

/// A sealed packet holding `body`.
bytes sealed(const packet_key& key, direction way, packet_kind kind, std::uint64_t number, const bytes& body)
{
    bytes packet(rep::aead_overhead_bytes + body.size());
    std::copy(body.begin(), body.end(), packet.begin() + rep::aead_prefix_bytes);
    EXPECT_TRUE(rep::aead_seal(key, way, 0x5A17, protocol, kind, number, packet));
    return packet;
}

bitrep::status open(const packet_key& key, direction way, packet_kind kind, const bytes& packet, bytes& body,
                    std::uint32_t id = protocol)
{
    body.assign(packet.size() > rep::aead_overhead_bytes ? packet.size() - rep::aead_overhead_bytes : 0, 0xEE);
    return rep::aead_open(key, way, id, kind, packet, body);
}

class Aead : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (!rep::aead_available())
            GTEST_SKIP() << "bitrep built without libsodium";
        key = packet_key::random();
        other = packet_key::random();
    }
    packet_key key;
    packet_key other;
};

} // namespace

TEST_F(Aead, ASealedPacketOpensToItsBodyAndHidesIt)
{
    const bytes body = body_of(300, 7);
    const bytes packet = sealed(key, direction::server_to_client, packet_kind::state, 41, body);
    EXPECT_EQ(packet.size(), body.size() + 32);
    // The connection id and the number are in clear, little-endian; the body is not.
    std::uint64_t connection = 0;
    std::uint64_t number = 0;
    ASSERT_TRUE(rep::aead_prefix(packet, connection, number));
    EXPECT_EQ(connection, 0x5A17u);
    EXPECT_EQ(number, 41u);
    EXPECT_EQ(packet[0], 0x17);
    EXPECT_EQ(packet[8], 41);
    EXPECT_FALSE(std::equal(body.begin(), body.end(), packet.begin() + 16));
    bytes opened;
    ASSERT_TRUE(open(key, direction::server_to_client, packet_kind::state, packet, opened));
    EXPECT_EQ(opened, body);
    // Keys differ, and the same body under another number seals differently.
    EXPECT_NE(key, other);
    EXPECT_NE(sealed(key, direction::server_to_client, packet_kind::state, 42, body), packet);
}

TEST_F(Aead, EveryTamperedBitIsRefusedAndNothingOfThePacketIsHandedOn)
{
    const bytes packet = sealed(key, direction::client_to_server, packet_kind::ack, 9, body_of(40, 1));
    for (std::size_t bit = 0; bit < packet.size() * 8; ++bit) {
        bytes damaged = packet;
        damaged[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
        bytes opened;
        const bitrep::status st = open(key, direction::client_to_server, packet_kind::ack, damaged, opened);
        EXPECT_EQ(st.code(), bitrep::error::corrupt) << "bit " << bit;
        EXPECT_TRUE(std::all_of(opened.begin(), opened.end(), [](std::uint8_t b) { return b == 0; })) << "bit " << bit;
    }
}

TEST_F(Aead, EveryTruncationIsRefused)
{
    const bytes packet = sealed(key, direction::client_to_server, packet_kind::ack, 3, body_of(20, 5));
    for (std::size_t n = 0; n < packet.size(); ++n) {
        const bytes cut(packet.begin(), packet.begin() + static_cast<std::ptrdiff_t>(n));
        bytes opened;
        const bitrep::status st = open(key, direction::client_to_server, packet_kind::ack, cut, opened);
        EXPECT_FALSE(st) << n;
        EXPECT_TRUE(st.code() == bitrep::error::truncated || st.code() == bitrep::error::corrupt) << n;
    }
}

TEST_F(Aead, AnotherKeyDirectionKindOrProtocolDoesNotOpen)
{
    const bytes packet = sealed(key, direction::server_to_client, packet_kind::state, 5, body_of(64, 3));
    bytes opened;
    EXPECT_EQ(open(other, direction::server_to_client, packet_kind::state, packet, opened).code(),
              bitrep::error::corrupt);
    // Reflected back at the server as if the client had sent it.
    EXPECT_EQ(open(key, direction::client_to_server, packet_kind::state, packet, opened).code(),
              bitrep::error::corrupt);
    // A state packet passed off as an ack.
    EXPECT_EQ(open(key, direction::server_to_client, packet_kind::ack, packet, opened).code(), bitrep::error::corrupt);
    // Another game's (or version's) protocol id.
    EXPECT_EQ(open(key, direction::server_to_client, packet_kind::state, packet, opened, protocol + 1).code(),
              bitrep::error::corrupt);
    // A packet from an end on the CRC path: it does not authenticate, and
    // the message says why that may be.
    bytes crc_packet = body_of(68, 0);
    rep::seal(protocol, packet_kind::state, crc_packet);
    const bitrep::status st = open(key, direction::server_to_client, packet_kind::state, crc_packet, opened);
    EXPECT_EQ(st.code(), bitrep::error::corrupt);
    EXPECT_TRUE(oracle::contains(st.message(), "replication_options::security")) << st.message();
}

TEST(ReplayWindow, ANumberSeenOrTooOldIsRefusedAndReorderingWithinTheWindowIsNot)
{
    rep::replay_window window;
    EXPECT_TRUE(window.fresh(0));
    window.accept(10);
    EXPECT_FALSE(window.fresh(10)); // replayed
    EXPECT_TRUE(window.fresh(11));
    EXPECT_TRUE(window.fresh(9)); // late, not seen
    window.accept(9);
    EXPECT_FALSE(window.fresh(9));
    window.accept(12); // 11 skipped, may still come
    EXPECT_TRUE(window.fresh(11));
    EXPECT_FALSE(window.fresh(10));
    EXPECT_FALSE(window.fresh(12));
    window.accept(11);
    EXPECT_FALSE(window.fresh(11));
    // The window's edge: 64 below the highest is too old, 63 below is not.
    window.accept(100);
    EXPECT_FALSE(window.fresh(36));
    EXPECT_TRUE(window.fresh(37));
    EXPECT_FALSE(window.fresh(12)); // seen long ago, and too old anyway
    // Jumps of exactly 64 and more leave nothing below marked wrongly.
    window.accept(164);
    EXPECT_FALSE(window.fresh(100)); // 64 below
    EXPECT_TRUE(window.fresh(101));
    window.accept(1000);
    EXPECT_TRUE(window.fresh(999));
    EXPECT_FALSE(window.fresh(1000));
    EXPECT_FALSE(window.fresh(936));
}

TEST(ReplayWindow, AgreesWithASetOfSeenNumbersOnRandomArrivals)
{
    std::vector<std::uint64_t> seen;
    rep::replay_window window;
    std::uint64_t highest = 0;
    std::uint64_t state = 12345;
    for (int i = 0; i < 20000; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        const std::uint64_t base = highest > 80 ? highest - 80 : 0;
        const std::uint64_t n = base + (state >> 33) % 100;
        const bool was_seen = std::find(seen.begin(), seen.end(), n) != seen.end();
        const bool expected = seen.empty() || (!was_seen && (n > highest || highest - n < 64));
        ASSERT_EQ(window.fresh(n), expected) << "packet " << n << " with highest " << highest;
        if (expected) {
            window.accept(n);
            seen.push_back(n);
            highest = std::max(highest, n);
        }
    }
}

// ---------------------------------------------------------------- server and client

namespace {

// The replication tests' Tiny world (replicated_worlds.hpp): the packets
// here are about their seals, not their state.

bitrep::replication_options on(bitrep::packet_security security)
{
    bitrep::replication_options options;
    options.security = security;
    return options;
}

Tiny tiny_at(std::uint32_t tick)
{
    Tiny f;
    f.tick = tick;
    for (std::size_t i = 0; i < 4; ++i) {
        f.dots.emplace(i);
        f.dots[i].x = tick * 10 + static_cast<std::uint32_t>(i);
    }
    return f;
}

/// An ack saying the client applied `sequence`, made by an attacker on
/// the connection's path: CRC-sealed, or sealed with a key of their own
/// under a packet number the server has not seen.
bytes forged_ack(bitrep::packet_security security, std::uint16_t sequence)
{
    const std::size_t prefix = rep::prefix_bytes(security);
    bytes packet(64, 0);
    bitrep::failure_record failure;
    rep::message_write_stream stream(std::span<std::uint8_t>(packet).subspan(prefix, 32), failure);
    rep::ack_record ack;
    ack.applied(sequence);
    EXPECT_TRUE(ack.serialize(stream));
    EXPECT_TRUE(stream.serialize_align());
    packet.resize(prefix + stream.flush() + rep::suffix_bytes(security));
    if (security == bitrep::packet_security::crc)
        rep::seal(protocol, packet_kind::ack, packet);
    else
        EXPECT_TRUE(rep::aead_seal(packet_key::random(), direction::client_to_server, 1, protocol, packet_kind::ack,
                                   1000, packet));
    return packet;
}

} // namespace

TEST_F(Aead, AServerAndClientWithOneKeyReplicateAndEachPacketCosts28BytesMore)
{
    bitrep::replication_server<Tiny> crc_server(on(bitrep::packet_security::crc));
    bitrep::replication_client<Tiny> crc_client(on(bitrep::packet_security::crc));
    bitrep::replication_server<Tiny> server(on(bitrep::packet_security::aead));
    bitrep::replication_client<Tiny> client(on(bitrep::packet_security::aead), key);
    const auto crc_id = crc_server.add_client();
    const auto id = server.add_client(key);
    for (std::uint32_t tick = 1; tick <= 30; ++tick) {
        const Tiny world = tiny_at(tick);
        const auto crc_packet = update_and_replicate(crc_server, crc_id, world);
        const std::size_t crc_size = crc_packet.size();
        ASSERT_TRUE(crc_client.receive(crc_packet));
        const auto packet = update_and_replicate(server, id, world);
        EXPECT_EQ(packet.size(), crc_size + 28) << tick;
        const bitrep::status st = client.receive(packet);
        ASSERT_TRUE(st) << st.message();
        EXPECT_EQ(client.state().tick, tick);
        const auto ack = client.packet();
        EXPECT_EQ(ack.size(), crc_client.packet().size() + 28);
        ASSERT_TRUE(server.receive(id, ack));
        ASSERT_TRUE(crc_server.receive(crc_id, crc_client.packet()));
    }
    // Replayed: the same state packet, or ack, again is refused.
    const Tiny world = tiny_at(31);
    const auto sent = update_and_replicate(server, id, world);
    const bytes packet(sent.begin(), sent.end());
    ASSERT_TRUE(client.receive(packet));
    EXPECT_EQ(client.receive(packet).code(), bitrep::error::stale);
    const auto acked = client.packet();
    const bytes ack(acked.begin(), acked.end());
    ASSERT_TRUE(server.receive(id, ack));
    EXPECT_EQ(server.receive(id, ack).code(), bitrep::error::stale);
    // Another key is refused on both sides: as stale while its numbers are
    // ones the receiver has seen (before any decryption), then as corrupt.
    bitrep::replication_client<Tiny> stranger(on(bitrep::packet_security::aead), other);
    EXPECT_EQ(stranger.receive(update_and_replicate(server, id, tiny_at(32))).code(), bitrep::error::corrupt);
    EXPECT_EQ(server.receive(id, stranger.packet()).code(), bitrep::error::stale);
    for (int i = 0; i < 40; ++i)
        static_cast<void>(stranger.packet());
    EXPECT_EQ(server.receive(id, stranger.packet()).code(), bitrep::error::corrupt);
    // A peer on the CRC path: its packets do not authenticate (or are too
    // short to), and it cannot read ours.
    const bitrep::status from_crc = server.receive(id, crc_client.packet());
    EXPECT_TRUE(from_crc.code() == bitrep::error::truncated || from_crc.code() == bitrep::error::corrupt)
        << from_crc.message();
    EXPECT_FALSE(crc_client.receive(update_and_replicate(server, id, tiny_at(33))));
    // The real client keeps going through all of it.
    ASSERT_TRUE(client.receive(update_and_replicate(server, id, tiny_at(34))));
    EXPECT_EQ(client.state().tick, 34u);
}

TEST_F(Aead, AForgedAckCanNoLongerMoveAClientsBaseline)
{
    // On each path: packet 0 arrives and is acked, packet 1 is lost, and an
    // attacker acks packet 1 in the client's name. On the CRC path the
    // server believes it and encodes against a state the client never had;
    // on the AEAD path the forgery is refused and the client keeps up.
    for (const auto security : {bitrep::packet_security::crc, bitrep::packet_security::aead}) {
        bitrep::replication_server<Tiny> server(on(security));
        bitrep::replication_client<Tiny> client(on(security), key);
        const auto id = server.add_client(key);
        ASSERT_TRUE(client.receive(update_and_replicate(server, id, tiny_at(1))));
        ASSERT_TRUE(server.receive(id, client.packet()));
        static_cast<void>(update_and_replicate(server, id, tiny_at(2))); // lost
        const bitrep::status forged = server.receive(id, forged_ack(security, 1));
        const bitrep::status next = client.receive(update_and_replicate(server, id, tiny_at(3)));
        if (security == bitrep::packet_security::crc) {
            EXPECT_TRUE(forged) << "the CRC path cannot tell a forged ack";
            EXPECT_EQ(next.code(), bitrep::error::no_baseline) << next.message();
        } else {
            EXPECT_EQ(forged.code(), bitrep::error::corrupt);
            EXPECT_EQ(server.statistics(id)->acks_refused, 1u);
            EXPECT_TRUE(next) << next.message();
            EXPECT_EQ(client.state().tick, 3u);
        }
    }
}

// ------------------------------------------------ one nonce, one packet

// A server cannot be copied at all; a copied guard or client seals nothing
// (NoTwoPacketsShareANonceAcrossCopiesMovesAndReconnections).
static_assert(!std::is_copy_constructible_v<bitrep::replication_server<Tiny>> &&
                  !std::is_copy_assignable_v<bitrep::replication_server<Tiny>>,
              "a copied server would seal under its original's next nonces");
static_assert(std::is_nothrow_move_constructible_v<rep::packet_guard>);

namespace {

/// Which nonce (direction, then the connection id and number) and key a
/// sealed packet used: one per packet, ever, under one long-term key.
using nonce_record = std::tuple<direction, std::uint64_t, std::uint64_t>;

void record(std::vector<nonce_record>& seen, direction way, std::span<const std::uint8_t> packet)
{
    std::uint64_t connection = 0;
    std::uint64_t number = 0;
    ASSERT_TRUE(rep::aead_prefix(packet, connection, number));
    seen.emplace_back(way, connection, number);
}

bool all_distinct(std::vector<nonce_record> seen)
{
    std::sort(seen.begin(), seen.end());
    return std::adjacent_find(seen.begin(), seen.end()) == seen.end();
}

} // namespace

TEST_F(Aead, NoTwoPacketsShareANonceAcrossCopiesMovesAndReconnections)
{
    using client_type = bitrep::replication_client<Tiny>;
    std::vector<nonce_record> seen;
    bitrep::replication_server<Tiny> server(on(bitrep::packet_security::aead));
    client_type first(on(bitrep::packet_security::aead), key);
    auto id = server.add_client(key);
    for (std::uint32_t tick = 1; tick <= 3; ++tick) {
        const auto packet = update_and_replicate(server, id, tiny_at(tick));
        record(seen, direction::server_to_client, packet);
        ASSERT_TRUE(first.receive(packet));
        record(seen, direction::client_to_server, first.packet());
    }
    // Copied: the copy applies what the original does, and seals nothing.
    client_type copy(first);
    EXPECT_TRUE(copy.packet().empty());
    const auto next = update_and_replicate(server, id, tiny_at(4));
    record(seen, direction::server_to_client, next);
    ASSERT_TRUE(copy.receive(next));
    EXPECT_EQ(copy.state().tick, 4u);
    EXPECT_TRUE(copy.packet().empty());
    // Moved: the new owner goes on numbering, the old one seals nothing.
    client_type moved(std::move(first));
    EXPECT_TRUE(first.packet().empty()); // NOLINT(bugprone-use-after-move): a moved-from client must not seal
    for (int i = 0; i < 3; ++i)
        record(seen, direction::client_to_server, moved.packet());
    // Reconnected under the same key, with the next connection id.
    server.remove_client(id);
    id = server.add_client(key, 1);
    client_type again(on(bitrep::packet_security::aead), key, 1);
    for (std::uint32_t tick = 5; tick <= 7; ++tick) {
        const auto packet = update_and_replicate(server, id, tiny_at(tick));
        record(seen, direction::server_to_client, packet);
        ASSERT_TRUE(again.receive(packet));
        record(seen, direction::client_to_server, again.packet());
    }
    // A guard copied and moved by assignment, too.
    rep::packet_guard guard(bitrep::packet_security::aead, key, direction::client_to_server, 2);
    rep::packet_guard other_guard;
    bytes packet = body_of(40, 1);
    ASSERT_TRUE(guard.seal(protocol, packet_kind::ack, packet));
    record(seen, direction::client_to_server, packet);
    other_guard = guard;
    EXPECT_EQ(other_guard.seal(protocol, packet_kind::ack, packet).code(), bitrep::error::options_mismatch);
    other_guard = std::move(guard);
    EXPECT_EQ(guard.seal(protocol, packet_kind::ack, packet).code(), // NOLINT(bugprone-use-after-move)
              bitrep::error::options_mismatch);
    ASSERT_TRUE(other_guard.seal(protocol, packet_kind::ack, packet));
    record(seen, direction::client_to_server, packet);
    EXPECT_EQ(seen.size(), 18u);
    EXPECT_TRUE(all_distinct(seen));
}

namespace {
/// An old connection's traffic under `key`, id 0: its state packets and
/// client packets, each applied by the other end.
struct old_connection {
    std::vector<bytes> states;
    std::vector<bytes> acks;
};

old_connection run_old_connection(bitrep::replication_server<Tiny>& server, const packet_key& key)
{
    old_connection old;
    bitrep::replication_client<Tiny> old_client(on(bitrep::packet_security::aead), key);
    const auto old_id = server.add_client(key);
    for (std::uint32_t tick = 1; tick <= 6; ++tick) {
        const auto packet = update_and_replicate(server, old_id, tiny_at(tick));
        old.states.emplace_back(packet.begin(), packet.end());
        EXPECT_TRUE(old_client.receive(packet));
        const auto ack = old_client.packet();
        old.acks.emplace_back(ack.begin(), ack.end());
        EXPECT_TRUE(server.receive(old_id, ack));
    }
    server.remove_client(old_id);
    return old;
}
} // namespace

TEST_F(Aead, AnEarlierConnectionsPacketsAreRefusedByTheNextEvenBeforeItsPeerIsHeard)
{
    // The same key again, with the next connection id: a reconnection. The
    // old connection's packets reach each new end before anything of its
    // new peer, and are refused without being decrypted.
    bitrep::replication_server<Tiny> server(on(bitrep::packet_security::aead));
    const old_connection old = run_old_connection(server, key);
    bitrep::replication_client<Tiny> client(on(bitrep::packet_security::aead), key, 1);
    const auto id = server.add_client(key, 1);
    for (std::size_t i = 0; i < old.states.size(); ++i) {
        const bitrep::status st = client.receive(old.states[i]);
        EXPECT_EQ(st.code(), bitrep::error::corrupt) << i;
        EXPECT_TRUE(oracle::contains(st.message(), "another connection")) << st.message();
        EXPECT_EQ(server.receive(id, old.acks[i]).code(), bitrep::error::corrupt) << i;
    }
    EXPECT_FALSE(client.has_state());
    EXPECT_EQ(client.statistics().refused, old.states.size());
    EXPECT_EQ(server.statistics(id)->acks_refused, old.acks.size());
    // The real peers are heard afterwards, and the old packets stay refused.
    ASSERT_TRUE(client.receive(update_and_replicate(server, id, tiny_at(10))));
    ASSERT_TRUE(server.receive(id, client.packet()));
    EXPECT_EQ(client.receive(old.states.back()).code(), bitrep::error::corrupt);
    EXPECT_EQ(server.receive(id, old.acks.back()).code(), bitrep::error::corrupt);
    ASSERT_TRUE(client.receive(update_and_replicate(server, id, tiny_at(11))));
    ASSERT_TRUE(server.receive(id, client.packet()));
    EXPECT_EQ(client.state().tick, 11u);
}

TEST_F(Aead, AServerRefusesAKeyAndConnectionIdItGaveAnEarlierConnection)
{
    // add_client(key) again after remove_client, without a new id, would
    // seal from number 0 again under the earlier connection's keys.
    bitrep::replication_server<Tiny> server(on(bitrep::packet_security::aead));
    const old_connection old = run_old_connection(server, key);
    const auto again = server.add_client(key);
    std::span<const std::uint8_t> packet;
    const Tiny world = tiny_at(7);
    server.update(world);
    const bitrep::status refused = server.replicate(again, packet);
    EXPECT_EQ(refused.code(), bitrep::error::options_mismatch);
    EXPECT_TRUE(oracle::contains(refused.message(), "earlier connection")) << refused.message();
    EXPECT_TRUE(packet.empty());
    EXPECT_EQ(server.receive(again, old.acks.back()).code(), bitrep::error::options_mismatch);
    // With the next id the same key serves the reconnection.
    bitrep::replication_client<Tiny> client(on(bitrep::packet_security::aead), key, 1);
    const auto id = server.add_client(key, 1);
    ASSERT_TRUE(client.receive(update_and_replicate(server, id, tiny_at(8))));
    ASSERT_TRUE(server.receive(id, client.packet()));
}

TEST_F(Aead, EndsGivenDifferentConnectionIdsHearNothingOfEachOther)
{
    bitrep::replication_server<Tiny> server(on(bitrep::packet_security::aead));
    bitrep::replication_client<Tiny> client(on(bitrep::packet_security::aead), key, 7);
    const auto id = server.add_client(key, 8);
    EXPECT_EQ(client.receive(update_and_replicate(server, id, tiny_at(1))).code(), bitrep::error::corrupt);
    EXPECT_EQ(server.receive(id, client.packet()).code(), bitrep::error::corrupt);
}

namespace {
/// The body `receiver` opened from a packet of `size` body bytes of `fill`
/// that `sender` sealed (empty if it did not open).
std::span<const std::uint8_t> opened_filled(rep::packet_guard& sender, rep::packet_guard& receiver, std::size_t size,
                                            std::uint8_t fill)
{
    bytes packet(rep::aead_overhead_bytes + size, 0);
    std::fill(packet.begin() + rep::aead_prefix_bytes, packet.end() - rep::aead_tag_bytes, fill);
    std::span<const std::uint8_t> body;
    EXPECT_TRUE(sender.seal(protocol, packet_kind::state, packet));
    EXPECT_TRUE(receiver.open(protocol, packet_kind::state, packet, body));
    EXPECT_EQ(static_cast<std::size_t>(std::count(body.begin(), body.end(), fill)), size);
    return body;
}
} // namespace

TEST_F(Aead, ADecryptedBodyIsWipedHoweverItsReaderLeaves)
{
    rep::packet_guard sender(bitrep::packet_security::aead, key, direction::server_to_client, 1);
    rep::packet_guard receiver(bitrep::packet_security::aead, key, direction::client_to_server, 1);
    receiver.open_up_to(1200);
    const std::span<const std::uint8_t> body = opened_filled(sender, receiver, 64, 0xA5);
    ASSERT_EQ(body.size(), 64u);
    try {
        const rep::packet_guard::body_scope wiped(receiver);
        throw std::runtime_error("a handler failed");
    } catch (const std::runtime_error&) {
    }
    // The span still points into the receiver's buffer: nothing is left.
    EXPECT_EQ(std::count(body.begin(), body.end(), std::uint8_t{0}), 64);
}

TEST_F(Aead, OpeningPacketsUpToTheLargestAllocatesNothing)
{
    rep::packet_guard sender(bitrep::packet_security::aead, key, direction::server_to_client, 1);
    rep::packet_guard receiver(bitrep::packet_security::aead, key, direction::client_to_server, 1);
    receiver.open_up_to(1200);
    std::vector<bytes> packets;
    for (std::size_t size : {40u, 1200u, 300u}) {
        packets.emplace_back(size, std::uint8_t{7});
        ASSERT_TRUE(sender.seal(protocol, packet_kind::state, packets.back()));
    }
    const std::size_t allocations = allocation_counter::allocations_during([&] {
        for (const bytes& packet : packets) {
            std::span<const std::uint8_t> body;
            EXPECT_TRUE(receiver.open(protocol, packet_kind::state, packet, body));
            receiver.clear_body();
        }
    });
    EXPECT_EQ(allocations, 0u);
}

TEST_F(Aead, APacketLongerThanTheLargestIsRefusedBeforeAnythingIsAllocatedOrWritten)
{
    // Only the connection id and number are needed to reach open(): both
    // travel in clear, so anyone can send a packet this long.
    rep::packet_guard sender(bitrep::packet_security::aead, key, direction::server_to_client, 1);
    rep::packet_guard receiver(bitrep::packet_security::aead, key, direction::client_to_server, 1);
    receiver.open_up_to(1200);
    const std::span<const std::uint8_t> held = opened_filled(sender, receiver, 100, 0x5A);
    bytes longer(1201, std::uint8_t{9});
    ASSERT_TRUE(sender.seal(protocol, packet_kind::state, longer)); // authentic, even
    bitrep::status opened;
    const std::size_t allocations = allocation_counter::allocations_during([&] {
        std::span<const std::uint8_t> body;
        opened = receiver.open(protocol, packet_kind::state, longer, body);
        EXPECT_TRUE(body.empty());
    });
    EXPECT_EQ(opened.code(), bitrep::error::corrupt) << opened.message();
    EXPECT_TRUE(oracle::contains(opened.message(), "max_packet_bytes")) << opened.message();
    EXPECT_EQ(allocations, 0u);
    EXPECT_EQ(std::count(held.begin(), held.end(), std::uint8_t{0x5A}), 100) << "the body held is untouched";
}

TEST_F(Aead, AnEndWithoutAKeyRefusesToSealOrOpen)
{
    // No key, or the all-zero one, which every keyless connection would share.
    bitrep::replication_server<Tiny> server(on(bitrep::packet_security::aead));
    const auto keyless = server.add_client();
    std::span<const std::uint8_t> packet;
    const Tiny world = tiny_at(1);
    server.update(world);
    const bitrep::status replicated = server.replicate(keyless, packet);
    EXPECT_EQ(replicated.code(), bitrep::error::options_mismatch);
    EXPECT_TRUE(oracle::contains(replicated.message(), "packet_key")) << replicated.message();
    EXPECT_TRUE(packet.empty());
    EXPECT_EQ(server.statistics(keyless)->packets_sent, 0u);
    bitrep::replication_client<Tiny> client(on(bitrep::packet_security::aead), packet_key{});
    EXPECT_TRUE(client.packet().empty());
    // A packet of a keyed connection is not opened either.
    const auto keyed = server.add_client(key);
    EXPECT_EQ(client.receive(update_and_replicate(server, keyed, tiny_at(2))).code(), bitrep::error::options_mismatch);
    bitrep::replication_client<Tiny> keyed_client(on(bitrep::packet_security::aead), key);
    EXPECT_EQ(server.receive(keyless, keyed_client.packet()).code(), bitrep::error::options_mismatch);
    // On the CRC path no key is needed.
    bitrep::replication_server<Tiny> crc_server(on(bitrep::packet_security::crc));
    bitrep::replication_client<Tiny> crc_client(on(bitrep::packet_security::crc));
    EXPECT_TRUE(crc_client.receive(update_and_replicate(crc_server, crc_server.add_client(), tiny_at(3))));
}

// ------------------------------------------------ wiping secrets

TEST(Secrets, ADestroyedKeyLeavesZerosWhereItWas)
{
    alignas(packet_key) std::array<std::uint8_t, sizeof(packet_key)> storage{};
    auto* key = new (storage.data()) packet_key{};
    key->bytes.fill(0xA5);
    key->~packet_key();
    // The storage outlives the key; the barrier keeps the compiler from
    // taking its bytes as indeterminate once the key's lifetime ended
    // (g++ -O3 warns otherwise), so what is read is what the destructor left.
    asm volatile("" ::: "memory");
    EXPECT_TRUE(std::all_of(storage.begin(), storage.end(), [](std::uint8_t b) { return b == 0; }));
}

TEST_F(Aead, ADestroyedGuardLeavesNoKeyWhereItWas)
{
    // The keys derived from the long-term key, none found afterwards; the
    // long-term key itself is never kept.
    alignas(rep::packet_guard) std::array<std::uint8_t, sizeof(rep::packet_guard)> storage{};
    auto* guard =
        new (storage.data()) rep::packet_guard(bitrep::packet_security::aead, key, direction::server_to_client, 3);
    const packet_key sealing = rep::connection_key(key, direction::server_to_client, guard->connection());
    const packet_key opening = rep::connection_key(key, direction::client_to_server, guard->connection());
    const auto holds = [&](const packet_key& k) {
        return std::search(storage.begin(), storage.end(), k.bytes.begin(), k.bytes.end()) != storage.end();
    };
    ASSERT_TRUE(holds(sealing) && holds(opening)) << "the test looks for the keys where the guard keeps them";
    EXPECT_FALSE(holds(key));
    guard->~packet_guard();
    asm volatile("" ::: "memory"); // as for the key above
    EXPECT_FALSE(holds(sealing));
    EXPECT_FALSE(holds(opening));
}

TEST_F(Aead, AnOpenedBodyIsZeroedOnceCleared)
{
    rep::packet_guard sender(bitrep::packet_security::aead, key, direction::server_to_client);
    rep::packet_guard receiver(bitrep::packet_security::aead, key, direction::client_to_server);
    receiver.open_up_to(1200);
    const std::span<const std::uint8_t> body = opened_filled(sender, receiver, 50, 0x3C);
    ASSERT_EQ(body.size(), 50u);
    receiver.clear_body();
    EXPECT_TRUE(std::all_of(body.begin(), body.end(), [](std::uint8_t b) { return b == 0; }));
}
