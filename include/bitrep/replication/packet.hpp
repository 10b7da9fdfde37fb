// What replication_server and replication_client exchange: state packets
// (server to client) and acks (client to server), their options, their
// integrity check and sequence arithmetic (docs/formats/packets.md, section 2).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>


#include <bitrep/detail/checksums.hpp>
#include <bitrep/detail/little_endian.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/stream.hpp>

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
    /// section 7): 0.3-0.4x the bits of bit_packed for moving entities in
    /// the benchmarks, for more CPU time per entity on both ends.
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

/// A connection on the server; never reused after remove_client.
using client_id = std::uint32_t;

/// An entity slot of the State: which top-level entity_array field (its
/// index among the State's fields) and which slot.
struct entity_key {
    /// The id of a top-level field that is not an entity array, as a whole.
    static constexpr std::uint32_t whole_field = 0xFFFFFFFFu;
    std::uint16_t field = 0;
    std::uint32_t id = 0;
    friend bool operator==(const entity_key&, const entity_key&) = default;
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

/// 16-bit wrapping sequence numbers: a is newer than b when it is ahead by
/// less than half the range.
constexpr bool sequence_newer(std::uint16_t a, std::uint16_t b) noexcept
{
    return a != b && static_cast<std::uint16_t>(a - b) < 0x8000;
}

constexpr std::uint32_t check_value = 0x62726570; ///< "brep", at the end of a state packet with check_value
constexpr std::size_t crc_bytes = 4;
constexpr std::size_t ack_bits = 1 + 16 + 32;
constexpr std::size_t ack_bytes = crc_bytes + (ack_bits + 7) / 8;
/// What a packet is, hashed into its CRC with the protocol id (never sent),
/// so that an ack can never pass for a state packet or the reverse.
enum class packet_kind : std::uint8_t { state = 'S', ack = 'A' };

/// CRC-32 (Boost.CRC) of the protocol id and kind followed by the bytes.
inline std::uint32_t packet_crc(std::uint32_t protocol_id, packet_kind kind, std::span<const std::uint8_t> bytes)
{
    std::array<std::uint8_t, 5> prefix{};
    bitrep::detail::store_le(prefix.data(), protocol_id);
    prefix[4] = static_cast<std::uint8_t>(kind);
    return bitrep::detail::crc32(prefix, bytes);
}

/// Writes the CRC of packet[4..] into packet[0..4], little-endian.
inline void seal(std::uint32_t protocol_id, packet_kind kind, std::span<std::uint8_t> packet)
{
    const std::uint32_t crc = packet_crc(protocol_id, kind, packet.subspan(crc_bytes));
    bitrep::detail::store_le(packet.data(), crc);
}

/// The packet's CRC checks out (it is long enough to hold one, and more).
inline status check_seal(std::uint32_t protocol_id, packet_kind kind, std::span<const std::uint8_t> packet)
{
    if (packet.size() <= crc_bytes) [[unlikely]]
        return status(error::truncated, packet.size() * 8, "packet", "shorter than its CRC and header");
    const auto sent = bitrep::detail::load_le<std::uint32_t>(packet.data());
    if (sent != packet_crc(protocol_id, kind, packet.subspan(crc_bytes))) [[unlikely]]
        return status(error::corrupt, 0, "packet", "CRC mismatch: corrupted, or another protocol id");
    return {};
}

/// The client's acknowledgement: the newest state packet it applied and a
/// bit per each of the 32 before it (bit i: newest - 1 - i was applied).
struct ack_record {
    bool any = false;
    std::uint16_t newest = 0;
    std::uint32_t mask = 0;

    /// Records that `sequence` was applied; it is newer than `newest`.
    void applied(std::uint16_t sequence) noexcept
    {
        if (any) {
            const unsigned ahead = static_cast<std::uint16_t>(sequence - newest);
            const std::uint64_t shifted = ahead > 32 ? 0 : ((std::uint64_t{mask} << ahead) | (std::uint64_t{1} << (ahead - 1)));
            mask = static_cast<std::uint32_t>(shifted);
        }
        any = true;
        newest = sequence;
    }

    template <class Stream>
    bool serialize(Stream& stream)
    {
        if (!stream.serialize_bool(any))
            return false;
        std::uint32_t sequence = newest;
        if (!stream.serialize_bits(sequence, 16) || !stream.serialize_bits(mask, 32))
            return false;
        newest = static_cast<std::uint16_t>(sequence);
        return true;
    }
};

/// A state packet's header, after the CRC. A coded packet's header also
/// names the state its prediction starts from (the older state), and its
/// coded bytes start at the next whole byte.
struct packet_header {
    std::uint16_t sequence = 0;
    bool has_baseline = false;
    std::uint16_t baseline = 0;
    bool has_check_value = false;
    bool coded = false;
    bool has_older = false;
    std::uint16_t older = 0;

    /// Its layout, which serialize() writes and a reader's errors point
    /// into: where each field starts, in bits from the header's first.
    /// Sequence numbers (sequence, baseline, older) take 16 bits.
    static constexpr int number_bits = 16;
    static constexpr std::size_t sequence_at = 0;
    static constexpr std::size_t has_baseline_at = sequence_at + number_bits;
    static constexpr std::size_t baseline_at = has_baseline_at + 1;
    static constexpr std::size_t has_check_value_at = baseline_at + number_bits;
    static constexpr std::size_t coded_at = has_check_value_at + 1;
    /// Every header's bits; a coded packet's adds `coded_bits` (has-older
    /// bit and older), and its coded bytes start at the next byte.
    static constexpr std::size_t bits = coded_at + 1;
    static constexpr std::size_t has_older_at = bits;
    static constexpr std::size_t older_at = has_older_at + 1;
    static constexpr std::size_t coded_bits = older_at + number_bits - bits;

    template <class Stream>
    bool serialize(Stream& stream)
    {
        std::uint32_t s = sequence;
        std::uint32_t b = baseline;
        std::uint32_t o = older;
        if (!stream.serialize_bits(s, number_bits) || !stream.serialize_bool(has_baseline) ||
            !stream.serialize_bits(b, number_bits) || !stream.serialize_bool(has_check_value) ||
            !stream.serialize_bool(coded))
            return false;
        if (coded && (!stream.serialize_bool(has_older) || !stream.serialize_bits(o, number_bits)))
            return false;
        sequence = static_cast<std::uint16_t>(s);
        baseline = static_cast<std::uint16_t>(b);
        older = static_cast<std::uint16_t>(o);
        return true;
    }
};

} // namespace replication
} // namespace bitrep
