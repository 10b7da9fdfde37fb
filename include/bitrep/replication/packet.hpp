// What replication_server and replication_client exchange: state packets
// (server to client) and acks (client to server), their header, their
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
#include <bitrep/wire/delta_ticks.hpp>
#include <bitrep/replication/options.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep::replication {

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
/// A slice is one datagram of a state packet too large for one
/// (docs/formats/packets.md, section 4).
enum class packet_kind : std::uint8_t { state = 'S', ack = 'A', slice = 'L' };

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

/// Whether `sequence` is the ack's newest or one of the 32 before it that
/// its mask names.
constexpr bool acknowledges(const ack_record& ack, std::uint16_t sequence) noexcept
{
    if (!ack.any)
        return false;
    const unsigned behind = static_cast<std::uint16_t>(ack.newest - sequence);
    return behind == 0 || (behind <= 32 && (ack.mask >> (behind - 1) & 1u) != 0);
}

/// How a large state packet's body of `total` bytes is cut into `count`
/// slices: each ceil(total / count) bytes, the last one the rest.
struct slicing {
    std::uint32_t total = 0;
    std::uint32_t count = 0;

    /// The fewest slices of at most `room` bytes each (room > 0).
    static slicing for_room(std::size_t total, std::size_t room) noexcept
    {
        return {static_cast<std::uint32_t>(total), static_cast<std::uint32_t>((total + room - 1) / room)};
    }
    std::size_t slice_bytes() const noexcept { return (std::size_t{total} + count - 1) / count; }
    std::size_t offset(std::uint32_t index) const noexcept { return index * slice_bytes(); }
    std::size_t size(std::uint32_t index) const noexcept
    {
        return std::min(slice_bytes(), std::size_t{total} - offset(index));
    }
    /// Every slice holds at least one byte (count and total agree).
    bool valid() const noexcept { return count != 0 && total != 0 && offset(count - 1) < total; }
};

/// A slice's header, after the CRC (or connection id and number): which
/// state packet it is part of, how that packet is cut, and which part this
/// is. Its bytes follow, to the end of the datagram.
struct slice_header {
    std::uint16_t sequence = 0; ///< the large state packet's sequence
    slicing cut;
    std::uint32_t index = 0;

    static constexpr std::size_t bits = 16 + 16 + 16 + 32;
    static constexpr std::size_t bytes = bits / 8;

    template <class Stream>
    bool serialize(Stream& stream)
    {
        std::uint32_t s = sequence;
        std::uint32_t last = cut.count - 1;
        if (!stream.serialize_bits(s, 16) || !stream.serialize_bits(last, 16) || !stream.serialize_bits(index, 16) ||
            !stream.serialize_bits(cut.total, 32))
            return false;
        sequence = static_cast<std::uint16_t>(s);
        cut.count = last + 1;
        return true;
    }
};

/// The client's acknowledgement of a large state packet's slices, in its
/// packets while it holds some but not all of them: every slice below
/// `first_missing`, the newest one received and those of the 64 below it
/// that `mask` names (bit i: newest - 1 - i).
struct slice_ack {
    static constexpr std::size_t bits = 1 + 16 + 16 + 16 + 64; ///< with a packet to acknowledge

    bool any = false;
    std::uint16_t sequence = 0;
    std::uint32_t first_missing = 0;
    std::uint32_t newest = 0;
    std::uint64_t mask = 0;

    template <class Stream>
    bool serialize(Stream& stream)
    {
        if (!stream.serialize_bool(any))
            return false;
        if (!any)
            return true;
        std::uint32_t s = sequence;
        std::uint32_t low = static_cast<std::uint32_t>(mask);
        std::uint32_t high = static_cast<std::uint32_t>(mask >> 32);
        if (!stream.serialize_bits(s, 16) || !stream.serialize_bits(first_missing, 16) ||
            !stream.serialize_bits(newest, 16) || !stream.serialize_bits(low, 32) || !stream.serialize_bits(high, 32))
            return false;
        sequence = static_cast<std::uint16_t>(s);
        mask = std::uint64_t{high} << 32 | low;
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

/// How far apart a coded packet's states are, for a prediction of the
/// game's own (predict.hpp): in packets, which are ticks when the server
/// sends a packet every tick. Without an older state the prediction is
/// given none, whatever this says.
inline delta_ticks ticks_of(const packet_header& header) noexcept
{
    return {header.has_older ? static_cast<std::uint16_t>(header.baseline - header.older) : 0u,
            static_cast<std::uint16_t>(header.sequence - header.baseline)};
}

} // namespace bitrep::replication
