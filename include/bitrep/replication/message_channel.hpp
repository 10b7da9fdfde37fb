// One end of the message channels between a client and the server: the
// reliable-ordered and unreliable messages it sends, and the peer's it
// receives (docs/guide/two-way.md). It handles messages as encoded
// bits and never sees their types: messages.hpp encodes and decodes them,
// and the endpoint's code and state are compiled once, in
// src/replication/message_endpoint.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include <bitrep/status.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep {

/// Which guarantee a message travels with.
enum class channel : std::uint8_t {
    /// Arrives exactly once and in send order; resent until acknowledged.
    reliable,
    /// Sent once, in the next packet with room after the state; may be lost.
    unreliable,
};

/// One end's message counters (per connection on the server).
struct message_statistics {
    std::uint64_t reliable_queued = 0;      ///< accepted by send()
    std::uint64_t reliable_resent = 0;      ///< copies sent after the first
    std::uint64_t reliable_acked = 0;       ///< acknowledged by the peer, and freed
    std::uint64_t reliable_delivered = 0;   ///< the peer's, handed to the game in order
    std::uint64_t reliable_duplicates = 0;  ///< the peer's, received again and dropped
    std::uint64_t unreliable_queued = 0;
    std::uint64_t unreliable_sent = 0;
    std::uint64_t unreliable_expired = 0;   ///< never found room within message_resend_packets
    std::uint64_t unreliable_delivered = 0;
    std::uint64_t send_refused = 0;         ///< send() calls refused (full queue, too large, bad value)
};

namespace replication {

/// The stream every message section is written and read with.
using message_write_stream = basic_write_stream<scope::replication>;
using message_read_stream = basic_read_stream<scope::replication>;

/// Sizes and timings of one end, fixed at construction (nothing grows
/// later).
struct message_limits {
    /// Messages waiting per channel, and the reliable receive window:
    /// rounded up to a power of two, at most 32768 (half the 16-bit ids).
    std::size_t queue = 64;
    /// The largest encoded message body this end sends or keeps: what a
    /// packet can carry, or less when no message of the set can be larger.
    std::size_t body_bytes = 1024;
    /// A reliable message unacknowledged this many packets after it was
    /// last sent goes again, at the least: the interval follows the
    /// measured round trip (1.25 round trips and one packet) and doubles
    /// while messages have to be resent (up to 64 packets), as TCP's does.
    /// An unreliable message that found no room within this many packets
    /// is dropped.
    std::uint32_t resend_packets = 6;
    /// Packets that carry the reliable ack after the last reliable message
    /// received (the peer may still be waiting for it).
    std::uint32_t ack_packets = 64;
    /// Bits of a message's type index.
    int type_bits = 0;
    /// The largest body send() accepts: what this end's packets can carry
    /// beside everything else they always hold.
    std::size_t send_limit_bits = static_cast<std::size_t>(-1);
};

/// The type index and body of a message that is to be delivered.
struct message_view {
    std::uint16_t type = 0;
    std::span<const std::uint8_t> body; ///< starts at a whole byte; `bits` of it are the message
    std::size_t bits = 0;
};

/// Checks one message body in a stream and leaves the stream after it; on
/// failure the stream's failure record says what and where (its path
/// starting at the message type).
using message_validator = bool (*)(void* context, std::uint16_t type, message_read_stream& stream);
/// Hands one message to the game.
using message_deliverer = void (*)(void* context, const message_view& message);

/// One end's message queues: what it sends until it goes (reliable messages
/// until acknowledged) and what it receives until it is delivered. Its
/// memory is taken at construction, from the limits; sending and receiving
/// allocate nothing. A received reliable message is copied into its memory
/// until it is delivered, and zeroed then (bitrep::wipe_secret); all of its
/// memory, queued and received messages alike, is zeroed when it is
/// destroyed. A copy is a separate end in the same state; a moved-from end
/// may only be assigned to or destroyed.
class message_endpoint {
public:
    explicit message_endpoint(const message_limits& limits);
    message_endpoint(const message_endpoint& other);
    message_endpoint& operator=(const message_endpoint& other);
    message_endpoint(message_endpoint&& other) noexcept;
    message_endpoint& operator=(message_endpoint&& other) noexcept;
    ~message_endpoint();

    const message_limits& limits() const noexcept;
    const message_statistics& statistics() const noexcept;

    // Sending. A message is encoded by the caller straight into a slot:
    // slot() gives its memory (empty when the channel's queue is full), and
    // queue() takes it.

    /// The memory of the next free slot of `ch`, `limits().body_bytes`
    /// long; empty when the queue is full.
    std::span<std::uint8_t> slot(channel ch) noexcept;
    /// Queues the message just encoded into slot(ch).
    void queue(channel ch, std::uint16_t type, std::size_t bits) noexcept;
    /// Counts a send() that was refused.
    void refused() noexcept;
    /// Messages waiting (reliable ones until acknowledged).
    std::size_t waiting(channel ch) const noexcept;

    // Writing a packet: plan the reliable part, then (after the state) the
    // unreliable part in the room left, write the section, and commit once
    // the packet exists. A packet that is not sent after all: cancel().

    /// Chooses the reliable messages for packet number `packet` (a count of
    /// this end's packets) within `budget_bits`, oldest first; the oldest
    /// due one is taken whenever it fits `whole_bits` (the room for the
    /// whole section, the unreliable part's end bit included) even over
    /// the budget, so a large message is never starved by the share.
    /// Returns an upper bound of the bits of the ack and reliable part.
    std::size_t plan_reliable(std::uint64_t packet, std::size_t budget_bits, std::size_t whole_bits) noexcept;
    /// Chooses unreliable messages within `budget_bits`, oldest first;
    /// returns an upper bound of the bits of the unreliable part.
    std::size_t plan_unreliable(std::size_t budget_bits) noexcept;
    /// The bits the section takes with nothing planned.
    std::size_t empty_section_bits() const noexcept;
    /// Writes the section: ack, planned reliable messages, planned
    /// unreliable messages. False when the stream's buffer is full.
    bool write(message_write_stream& stream) const;
    /// The packet went out: planned messages count as sent in it.
    void commit(std::uint64_t packet) noexcept;
    void cancel() noexcept;

    // Receiving a packet: read() checks the peer's section and remembers
    // what it holds; apply() acts on it once the whole packet is accepted;
    // a packet refused later needs nothing undone.

    /// Reads the section at the stream's position; every message body goes
    /// through `validate`. False on malformed or forged input (the stream's
    /// failure record says what and where); nothing changes either way.
    bool read(message_read_stream& stream, message_validator validate, void* context);
    /// Applies what read() found in `bytes` (the span the stream read):
    /// frees acknowledged messages, delivers reliable messages in order and
    /// then unreliable ones.
    void apply(std::span<const std::uint8_t> bytes, message_deliverer deliver, void* context);

private:
    /// The queues, the plan and what read() found
    /// (src/replication/message_endpoint.cpp).
    class impl;
    std::unique_ptr<impl> impl_;
};

} // namespace replication
} // namespace bitrep
