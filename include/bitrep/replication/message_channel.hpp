// One end of the message channels between a client and the server: the
// reliable-ordered and unreliable messages it sends, and the peer's it
// receives (docs/guide/two-way.md). It handles messages as encoded
// bits and never sees their types: messages.hpp encodes and decodes them,
// and this file's code is compiled once, in src/message_channel.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

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

class message_endpoint {
public:
    explicit message_endpoint(const message_limits& limits);

    const message_limits& limits() const noexcept { return limits_; }
    const message_statistics& statistics() const noexcept { return stats_; }

    // Sending. A message is encoded by the caller straight into a slot:
    // slot() gives its memory (empty when the channel's queue is full), and
    // queue() takes it.

    /// The memory of the next free slot of `ch`, `limits().body_bytes`
    /// long; empty when the queue is full.
    std::span<std::uint8_t> slot(channel ch) noexcept;
    /// Queues the message just encoded into slot(ch).
    void queue(channel ch, std::uint16_t type, std::size_t bits) noexcept;
    /// Counts a send() that was refused.
    void refused() noexcept { stats_.send_refused += 1; }
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
    std::size_t empty_section_bits() const noexcept { return 1 + (ack_due() ? 16 : 0) + 2; }
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
    struct send_entry {
        std::uint16_t type = 0;
        std::size_t bits = 0;
        std::uint64_t last_sent = 0; ///< packet number; meaningful once sent
        bool sent = false;
        bool resent = false; ///< its ack then says nothing of the round trip (Karn)
    };
    struct receive_entry {
        bool held = false;
        std::uint16_t type = 0;
        std::size_t bits = 0;
    };
    /// A message read from a packet, until apply().
    struct read_message {
        channel ch = channel::reliable;
        std::uint16_t id = 0;
        std::uint16_t type = 0;
        std::size_t start_bit = 0;
        std::size_t bits = 0;
    };

    bool ack_due() const noexcept { return ack_packets_left_ > 0; }
    /// Slot `index` of one of the three memories, body_bytes long.
    template <class Memory>
    auto slot_in(Memory& memory, std::size_t index) const noexcept
    {
        return std::span(memory).subspan(index * limits_.body_bytes, limits_.body_bytes);
    }
    static bool write_body(message_write_stream& stream, std::span<const std::uint8_t> body, std::size_t bits);
    bool read_body(message_read_stream& stream, std::uint16_t type, message_validator validate, void* context,
                   read_message& message);
    /// A message's "another follows" bit; more than a queue's worth in one
    /// packet is refused (no honest end sends them).
    bool read_another(message_read_stream& stream, std::size_t& count, const char* too_many, bool& another) const;
    /// The three parts of a packet's messages, in wire order: the optional
    /// acknowledgement, then the reliable and the unreliable messages.
    bool read_ack(message_read_stream& stream);
    bool read_reliable(message_read_stream& stream, message_validator validate, void* context);
    bool read_unreliable(message_read_stream& stream, message_validator validate, void* context);
    void deliver_in_order(message_deliverer deliver, void* context);

    message_limits limits_;
    message_statistics stats_;

    // Reliable, sending: ids [send_head_, send_next_) wait for their ack, in
    // slots id % queue.
    std::vector<send_entry> reliable_;
    std::vector<std::uint8_t> reliable_memory_;
    std::uint16_t send_head_ = 0;
    std::uint16_t send_next_ = 0;
    // Unreliable, sending: a ring of queued messages in send order.
    std::vector<send_entry> unreliable_; ///< last_sent holds the packet count when queued
    std::vector<std::uint8_t> unreliable_memory_;
    std::size_t unreliable_head_ = 0;
    std::size_t unreliable_count_ = 0;
    std::uint64_t packets_written_ = 0; ///< the newest packet number committed
    /// The smoothed round trip in packets, from acks of messages sent once,
    /// and the resend interval it gives (doubled while resends go out).
    double round_trip_ = 0;
    bool have_round_trip_ = false;
    double resend_interval_;

    // The current plan: reliable ids and unreliable ring positions.
    std::vector<std::uint16_t> planned_reliable_;
    std::vector<std::size_t> planned_unreliable_;

    // Reliable, receiving: the next id to deliver, and a window of `queue`
    // ids from it, in slots id % queue.
    std::uint16_t receive_next_ = 0;
    std::vector<receive_entry> received_;
    std::vector<std::uint8_t> received_memory_;
    std::uint32_t ack_packets_left_ = 0;

    // What read() found, for apply().
    bool read_has_ack_ = false;
    std::uint16_t read_ack_ = 0;
    std::vector<read_message> read_;
};

} // namespace replication
} // namespace bitrep
