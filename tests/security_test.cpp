// replication/security.hpp: sealing and opening packets with
// ChaCha20-Poly1305, and the replay window (docs/security.md, section 1).
// Every tampered bit, every truncation, a replay, reordering within the
// window, a packet too old, another key, the other direction, the other
// kind, another protocol id, and a CRC-path packet.
#include <bitrep/replication/security.hpp>

#include <gtest/gtest.h>

#include "test_oracle.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

namespace {

using bitrep::packet_key;
using bitrep::replication::direction;
using bitrep::replication::packet_kind;
namespace rep = bitrep::replication;
using bytes = std::vector<std::uint8_t>;

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
    bytes packet(rep::aead_number_bytes + body.size() + rep::aead_tag_bytes);
    std::copy(body.begin(), body.end(), packet.begin() + rep::aead_number_bytes);
    EXPECT_TRUE(rep::aead_seal(key, way, protocol, kind, number, packet));
    return packet;
}

bitrep::status open(const packet_key& key, direction way, packet_kind kind, const bytes& packet, bytes& body,
                    std::uint32_t id = protocol)
{
    body.assign(packet.size() > 24 ? packet.size() - 24 : 0, 0xEE);
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
    EXPECT_EQ(packet.size(), body.size() + 24);
    // The number is in clear, little-endian; the body is not.
    std::uint64_t number = 0;
    ASSERT_TRUE(rep::aead_number(packet, number));
    EXPECT_EQ(number, 41u);
    EXPECT_EQ(packet[0], 41);
    EXPECT_FALSE(std::equal(body.begin(), body.end(), packet.begin() + 8));
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
