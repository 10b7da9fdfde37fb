// What a replication server and its clients agree on: how packets are
// protected and encoded, their size, window and budget, and the two-way
// traffic's queues (replication_options).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace bitrep {

/// How a connection's packets are protected; both ends must agree.
enum class packet_security : std::uint8_t {
    /// A CRC-32 over the protocol id: catches damage and other games'
    /// traffic, not an attacker. For transports that already authenticate.
    crc,
    /// ChaCha20-Poly1305 with a per-connection key: packets are encrypted,
    /// authenticated and numbered, and replays are refused.
    aead,
};

/// How state packets carry the state (docs/design/coded-deltas.md).
enum class replication_encoding : std::uint8_t {
    /// The serialize 1.0-based bit-packed delta (docs/formats/wire-format.md, section 6).
    bit_packed,
    /// The same delta through adaptive binary models and a range coder,
    /// predicted from the baseline's own history (docs/formats/wire-format.md,
    /// section 7): far fewer bits than bit_packed for moving entities
    /// (docs/benchmarks.md, "Bytes per packet"), for more CPU time per
    /// entity on both ends.
    coded,
};

/// Settings both ends must agree on (protocol_id, window, check_value,
/// encoding) and the server's budget.
struct replication_options {
    /// Hashed into every packet's CRC-32 but never sent: packets of another
    /// game, protocol or version are dropped as corrupt.
    std::uint32_t protocol_id = 0x62726570;
    /// How packets are protected (docs/design/security.md): `crc` (a CRC-32 over
    /// the protocol id), or `aead` (encrypted and authenticated with each
    /// connection's packet_key, replays refused; 28 bytes more a packet: an
    /// 8-byte connection id, an 8-byte packet number and a 16-byte tag in
    /// place of the 4-byte CRC, security.hpp's prefix_bytes + suffix_bytes).
    /// Both ends must agree: an end on the other path refuses every packet.
    packet_security security = packet_security::crc;
    /// The largest packet replicate(id, out) gives, header included (at least
    /// 16).
    std::size_t max_packet_bytes = 1200;
    /// The largest state packet, header and fields included, when they do
    /// not fit max_packet_bytes (a joining client's first state, or a change
    /// of the fields other than entities larger than a packet): it goes in
    /// slices of max_packet_bytes, one per replicate(id, out) call, until
    /// the client holds them all (docs/formats/packets.md, section 4). The
    /// client reserves up to this much to put it together; a larger one
    /// fails replicate() with buffer_too_small. Both ends must agree.
    std::size_t max_state_bytes = 1 << 20;
    /// Per client; 0 for no limit. Spent at `tick_rate` replicate(id, out)
    /// calls a second, so a tick may use what earlier ticks left over (up
    /// to one full packet).
    std::size_t bytes_per_second = 0;
    double tick_rate = 60.0;
    /// Packets kept per client, on each side, as baselines: in [2, 1024],
    /// rounded up to a power of two (see replication::ring_size).
    std::size_t window = 64;
    /// A 32-bit check value at the end of each state packet, which catches a
    /// reader that stopped elsewhere than the writer (two builds that
    /// disagree on the State). Off by default in every build mode: the CRC
    /// already catches damage, and options must not differ between builds
    /// of one program. A header bit says whether a packet carries it, so ends
    /// that disagree fail with options_mismatch rather than garbage.
    bool check_value = false;
    /// A server set to coded sends full states (no baseline) bit-packed, and
    /// a packet whose coded form would not fit the budget; a coded client
    /// applies both. A bit_packed client refuses coded packets with
    /// options_mismatch.
    replication_encoding encoding = replication_encoding::coded;
    /// Server only: the world history's depth, in ticks whose update()
    /// changed something (docs/design/replication-server.md,
    /// "The server at scale: one world history, views as refs"). A client's
    /// packet view names values by the tick they appeared; a view whose
    /// values the history no longer has cannot become a baseline (the one
    /// before stays), so this bounds how long an entity may go unsent to a
    /// client without costing it a fresher baseline. Shared memory: about
    /// history x (entities changed per tick) x (entity size + 4 bytes).
    std::size_t history = 1024;

    // Two-way traffic (docs/guide/two-way.md); both ends must agree.

    /// Inputs each client packet repeats until the server acknowledges them.
    std::size_t input_window = 8;
    /// Messages waiting per channel and direction of a connection, and the
    /// reliable receive window (at most 32768).
    std::size_t message_queue = 64;
    /// Packets (one a tick) after which an unacknowledged reliable message
    /// goes again, at the least (the interval follows the measured round
    /// trip: docs/design/replication-server.md, "Messages"), and after which an
    /// unreliable one that found no room is dropped.
    std::uint32_t message_resend_ticks = 6;
    /// The share of a state packet's budget reliable messages may take
    /// before the state (the oldest waiting one may always go when it fits).
    double reliable_share = 0.25;
};

namespace replication {

/// The ring of views both sides keep for `window`: clamped to [2, 1024] and
/// rounded up to a power of two, which divides the 65536 sequence numbers, so
/// that sequence % size gives packets fewer than `size` apart different
/// slots even where the numbers wrap.
constexpr std::size_t ring_size(std::size_t window) noexcept
{
    return std::bit_ceil(std::clamp<std::size_t>(window, 2, 1024));
}

} // namespace replication
} // namespace bitrep
