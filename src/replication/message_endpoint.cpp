// The message channels of one end (include/bitrep/replication/message_channel.hpp,
// docs/guide/two-way.md): compiled once, since it handles messages
// as bits and is the same for every game. message_endpoint holds its state
// here, in message_endpoint::impl, and hands every call to it.
#include <bitrep/replication/message_channel.hpp>

#include <bitrep/replication/security.hpp>

#include <algorithm>
#include <bit>
#include <memory>
#include <utility>
#include <vector>

namespace bitrep::replication {

namespace {
constexpr std::uint32_t id_bits = 16;

/// Upper bound of a message's bits in a section after its "another
/// follows" bit and id: its type index, the alignment before its body
/// (7 at most) and the body.
std::size_t framed_bits(const message_limits& limits, std::size_t body_bits) noexcept
{
    return static_cast<std::size_t>(limits.type_bits) + 7 + body_bits;
}

std::size_t whole_bytes(std::size_t bits) noexcept { return (bits + 7) / 8; }

/// Zeroes its bytes when it ends, however it is left.
class wiped_when_done {
public:
    explicit wiped_when_done(std::span<std::uint8_t> bytes) noexcept : bytes_(bytes) {}
    wiped_when_done(const wiped_when_done&) = delete;
    wiped_when_done& operator=(const wiped_when_done&) = delete;
    ~wiped_when_done() { wipe_secret(bytes_); }

private:
    std::span<std::uint8_t> bytes_;
};
} // namespace

class message_endpoint::impl {
public:
    explicit impl(const message_limits& limits);
    impl(const impl&) = default;
    impl& operator=(const impl&) = delete;
    /// Zeroes every message body it holds: queued to send, and received.
    ~impl();

    const message_limits& limits() const noexcept { return limits_; }
    const message_statistics& statistics() const noexcept { return stats_; }

    // message_endpoint's calls, as it documents them.
    std::span<std::uint8_t> slot(channel ch) noexcept;
    void queue(channel ch, std::uint16_t type, std::size_t bits) noexcept;
    void refused() noexcept { stats_.send_refused += 1; }
    std::size_t waiting(channel ch) const noexcept;
    std::size_t plan_reliable(std::uint64_t packet, std::size_t budget_bits, std::size_t whole_bits) noexcept;
    std::size_t plan_unreliable(std::size_t budget_bits) noexcept;
    std::size_t empty_section_bits() const noexcept { return 1 + (ack_due() ? 16 : 0) + 2; }
    bool write(message_write_stream& stream) const;
    void commit(std::uint64_t packet) noexcept;
    void cancel() noexcept;
    bool read(message_read_stream& stream, message_validator validate, void* context);
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

message_endpoint::impl::impl(const message_limits& limits)
    : limits_(limits), resend_interval_(static_cast<double>(limits.resend_packets))
{
    // A power of two, which divides the 65536 ids: the slot id % queue then
    // never holds two live ids where the numbers wrap.
    limits_.queue = std::bit_ceil(std::clamp<std::size_t>(limits_.queue, 1, 32768));
    reliable_.resize(limits_.queue);
    unreliable_.resize(limits_.queue);
    received_.resize(limits_.queue);
    reliable_memory_.resize(limits_.queue * limits_.body_bytes);
    unreliable_memory_.resize(limits_.queue * limits_.body_bytes);
    received_memory_.resize(limits_.queue * limits_.body_bytes);
    planned_reliable_.reserve(limits_.queue);
    planned_unreliable_.reserve(limits_.queue);
    read_.reserve(2 * limits_.queue);
}

std::span<std::uint8_t> message_endpoint::impl::slot(channel ch) noexcept
{
    if (ch == channel::reliable) {
        if (static_cast<std::uint16_t>(send_next_ - send_head_) >= limits_.queue)
            return {};
        return slot_in(reliable_memory_, send_next_ % limits_.queue);
    }
    if (unreliable_count_ >= limits_.queue)
        return {};
    return slot_in(unreliable_memory_, (unreliable_head_ + unreliable_count_) % limits_.queue);
}

void message_endpoint::impl::queue(channel ch, std::uint16_t type, std::size_t bits) noexcept
{
    if (ch == channel::reliable) {
        reliable_[send_next_ % limits_.queue] = send_entry{type, bits, 0, false, false};
        ++send_next_;
        stats_.reliable_queued += 1;
    } else {
        // An unreliable entry's last_sent holds the packet count when it was
        // queued, from which it expires.
        unreliable_[(unreliable_head_ + unreliable_count_) % limits_.queue] =
            send_entry{type, bits, packets_written_, false, false};
        ++unreliable_count_;
        stats_.unreliable_queued += 1;
    }
}

std::size_t message_endpoint::impl::waiting(channel ch) const noexcept
{
    return ch == channel::reliable ? static_cast<std::uint16_t>(send_next_ - send_head_) : unreliable_count_;
}

std::size_t message_endpoint::impl::plan_reliable(std::uint64_t packet, std::size_t budget_bits, std::size_t whole_bits) noexcept
{
    const auto interval = static_cast<std::uint64_t>(resend_interval_);
    planned_reliable_.clear();
    // The unreliable part's end bit always follows: keep it out of both.
    whole_bits = whole_bits > 0 ? whole_bits - 1 : 0;
    budget_bits = std::min(budget_bits, whole_bits);
    std::size_t bits = 1 + (ack_due() ? id_bits : 0) + 1;
    bool have_previous = false;
    std::uint16_t previous = 0;
    for (std::uint16_t id = send_head_; id != send_next_; ++id) {
        const send_entry& entry = reliable_[id % limits_.queue];
        if (entry.sent && packet - entry.last_sent < interval)
            continue;
        const std::size_t id_cost = !have_previous ? id_bits : (id == static_cast<std::uint16_t>(previous + 1) ? 1 : 1 + id_bits);
        const std::size_t cost = 1 + id_cost + framed_bits(limits_, entry.bits);
        const bool first = planned_reliable_.empty();
        if (bits + cost > budget_bits && !(first && bits + cost <= whole_bits))
            break;
        planned_reliable_.push_back(id);
        bits += cost;
        have_previous = true;
        previous = id;
    }
    return bits;
}

std::size_t message_endpoint::impl::plan_unreliable(std::size_t budget_bits) noexcept
{
    planned_unreliable_.clear();
    std::size_t bits = 1;
    for (std::size_t i = 0; i < unreliable_count_; ++i) {
        const std::size_t position = (unreliable_head_ + i) % limits_.queue;
        const send_entry& entry = unreliable_[position];
        if (entry.sent)
            continue;
        const std::size_t cost = 1 + framed_bits(limits_, entry.bits);
        if (bits + cost > budget_bits)
            continue; // a smaller one further on may fit
        planned_unreliable_.push_back(position);
        bits += cost;
    }
    return bits;
}

bool message_endpoint::impl::write_body(message_write_stream& stream, std::span<const std::uint8_t> body, std::size_t bits)
{
    // Bodies were encoded from a whole byte, where they start again here, so
    // that a string's alignment inside them falls where it did.
    if (!stream.serialize_align())
        return false;
    const std::size_t whole = bits / 8;
    if (whole != 0 && !stream.serialize_bytes(const_cast<std::uint8_t*>(body.data()), whole))
        return false;
    const int rest = static_cast<int>(bits % 8);
    if (rest == 0)
        return true;
    std::uint32_t last = body[whole] & ((1u << rest) - 1u);
    return stream.serialize_bits(last, rest);
}

bool message_endpoint::impl::write(message_write_stream& stream) const
{
    bool has_ack = ack_due();
    if (!stream.serialize_bool(has_ack))
        return false;
    if (has_ack) {
        std::uint32_t ack = receive_next_;
        if (!stream.serialize_bits(ack, id_bits))
            return false;
    }
    bool have_previous = false;
    std::uint16_t previous = 0;
    for (const std::uint16_t id : planned_reliable_) {
        const send_entry& entry = reliable_[id % limits_.queue];
        bool another = true;
        if (!stream.serialize_bool(another))
            return false;
        std::uint32_t id_value = id;
        if (have_previous) {
            bool next = id == static_cast<std::uint16_t>(previous + 1);
            if (!stream.serialize_bool(next))
                return false;
            if (!next && !stream.serialize_bits(id_value, id_bits))
                return false;
        } else if (!stream.serialize_bits(id_value, id_bits)) {
            return false;
        }
        std::uint32_t type = entry.type;
        if ((limits_.type_bits != 0 && !stream.serialize_bits(type, limits_.type_bits)) ||
            !write_body(stream, slot_in(reliable_memory_, id % limits_.queue), entry.bits))
            return false;
        have_previous = true;
        previous = id;
    }
    bool end = false;
    if (!stream.serialize_bool(end))
        return false;
    for (const std::size_t position : planned_unreliable_) {
        const send_entry& entry = unreliable_[position];
        bool another = true;
        std::uint32_t type = entry.type;
        if (!stream.serialize_bool(another) ||
            (limits_.type_bits != 0 && !stream.serialize_bits(type, limits_.type_bits)) ||
            !write_body(stream, slot_in(unreliable_memory_, position), entry.bits))
            return false;
    }
    return stream.serialize_bool(end);
}

void message_endpoint::impl::commit(std::uint64_t packet) noexcept
{
    packets_written_ = packet;
    bool resent = false;
    for (const std::uint16_t id : planned_reliable_) {
        send_entry& entry = reliable_[id % limits_.queue];
        resent = resent || entry.sent;
        stats_.reliable_resent += entry.sent ? 1 : 0;
        entry.resent = entry.sent;
        entry.sent = true;
        entry.last_sent = packet;
    }
    // Acks later than the interval: back off until a message sent once is
    // acknowledged and times the round trip again. Doubling stops at 64
    // packets, or at the configured interval when that is longer; it never
    // shortens the interval in force.
    if (resent) {
        const double cap = std::max(64.0, static_cast<double>(limits_.resend_packets));
        resend_interval_ = std::max(resend_interval_, std::min(2 * resend_interval_, cap));
    }
    for (const std::size_t position : planned_unreliable_) {
        unreliable_[position].sent = true;
        stats_.unreliable_sent += 1;
    }
    // Unreliable messages that found no room in time are dropped; sent and
    // dropped ones leave the ring from its head.
    for (std::size_t i = 0; i < unreliable_count_; ++i) {
        send_entry& entry = unreliable_[(unreliable_head_ + i) % limits_.queue];
        if (!entry.sent && packet - entry.last_sent >= limits_.resend_packets) {
            entry.sent = true;
            stats_.unreliable_expired += 1;
        }
    }
    while (unreliable_count_ != 0 && unreliable_[unreliable_head_].sent) {
        unreliable_head_ = (unreliable_head_ + 1) % limits_.queue;
        --unreliable_count_;
    }
    if (ack_packets_left_ > 0)
        --ack_packets_left_;
    cancel();
}

void message_endpoint::impl::cancel() noexcept
{
    planned_reliable_.clear();
    planned_unreliable_.clear();
}

bool message_endpoint::impl::read_body(message_read_stream& stream, std::uint16_t type, message_validator validate,
                                 void* context, read_message& message)
{
    if (!stream.serialize_align())
        return false;
    message.type = type;
    message.start_bit = stream.bit_position();
    if (!validate(context, type, stream))
        return false;
    message.bits = stream.bit_position() - message.start_bit;
    if (whole_bytes(message.bits) > limits_.body_bytes) [[unlikely]]
        return stream.fail(error::out_of_range, message.start_bit, "message larger than any this end sends");
    return true;
}

bool message_endpoint::impl::read(message_read_stream& stream, message_validator validate, void* context)
{
    read_.clear();
    read_has_ack_ = false;
    return read_ack(stream) && read_reliable(stream, validate, context) && read_unreliable(stream, validate, context);
}

bool message_endpoint::impl::read_ack(message_read_stream& stream)
{
    const std::size_t ack_at = stream.bit_position();
    bool has_ack = false;
    if (!stream.serialize_bool(has_ack))
        return false;
    if (!has_ack)
        return true;
    std::uint32_t ack = 0;
    if (!stream.serialize_bits(ack, id_bits))
        return false;
    const auto acked = static_cast<std::uint16_t>(ack);
    const auto ahead = static_cast<std::uint16_t>(acked - send_head_);
    if (ahead <= static_cast<std::uint16_t>(send_next_ - send_head_)) {
        read_has_ack_ = true;
        read_ack_ = acked;
    } else if (static_cast<std::uint16_t>(send_head_ - acked) > 0x8000u) [[unlikely]] {
        return stream.fail(error::out_of_range, ack_at, "acknowledges a message never sent");
    } // else an older ack than one already applied: nothing new
    return true;
}

bool message_endpoint::impl::read_reliable(message_read_stream& stream, message_validator validate, void* context)
{
    std::size_t reliable_count = 0;
    bool have_previous = false;
    std::uint16_t previous = 0;
    bool another = false;
    while (read_another(stream, reliable_count, "more reliable messages than a queue holds", another) && another) {
        const std::size_t at = stream.bit_position();
        std::uint32_t id = static_cast<std::uint16_t>(previous + 1);
        bool next = false;
        if (have_previous && !stream.serialize_bool(next))
            return false;
        if (!next && !stream.serialize_bits(id, id_bits))
            return false;
        const auto message_id = static_cast<std::uint16_t>(id);
        const auto ahead = static_cast<std::uint16_t>(message_id - receive_next_);
        if (ahead >= limits_.queue && static_cast<std::uint16_t>(receive_next_ - message_id) > 0x8000u) [[unlikely]]
            return stream.fail(error::out_of_range, at, "message id past the receive window");
        std::uint32_t type = 0;
        if (limits_.type_bits != 0 && !stream.serialize_bits(type, limits_.type_bits))
            return false;
        read_message message;
        message.ch = channel::reliable;
        message.id = message_id;
        if (!read_body(stream, static_cast<std::uint16_t>(type), validate, context, message))
            return false;
        read_.push_back(message);
        have_previous = true;
        previous = message_id;
    }
    return !stream.failure().failed();
}

bool message_endpoint::impl::read_unreliable(message_read_stream& stream, message_validator validate, void* context)
{
    std::size_t unreliable_count = 0;
    bool another = false;
    while (read_another(stream, unreliable_count, "more unreliable messages than a queue holds", another) && another) {
        std::uint32_t type = 0;
        if (limits_.type_bits != 0 && !stream.serialize_bits(type, limits_.type_bits))
            return false;
        read_message message;
        message.ch = channel::unreliable;
        if (!read_body(stream, static_cast<std::uint16_t>(type), validate, context, message))
            return false;
        read_.push_back(message);
    }
    return !stream.failure().failed();
}

bool message_endpoint::impl::read_another(message_read_stream& stream, std::size_t& count, const char* too_many,
                                    bool& another) const
{
    const std::size_t at = stream.bit_position();
    if (!stream.serialize_bool(another))
        return false;
    if (another && ++count > limits_.queue) [[unlikely]]
        return stream.fail(error::out_of_range, at, too_many);
    return true;
}

void message_endpoint::impl::apply(std::span<const std::uint8_t> bytes, message_deliverer deliver, void* context)
{
    if (read_has_ack_) {
        const auto freed = static_cast<std::uint16_t>(read_ack_ - send_head_);
        stats_.reliable_acked += freed;
        // Messages sent once time the round trip: from the packet that
        // carried them to the one this end writes next.
        for (std::uint16_t id = send_head_; id != read_ack_; ++id) {
            const send_entry& entry = reliable_[id % limits_.queue];
            if (!entry.sent || entry.resent)
                continue;
            const double sample = static_cast<double>(packets_written_ + 1 - entry.last_sent);
            round_trip_ = have_round_trip_ ? round_trip_ + (sample - round_trip_) / 8 : sample;
            have_round_trip_ = true;
            resend_interval_ = std::max(static_cast<double>(limits_.resend_packets), 1.25 * round_trip_ + 1.0);
        }
        send_head_ = read_ack_;
        read_has_ack_ = false;
    }
    for (const read_message& message : read_) {
        if (message.ch != channel::reliable)
            continue;
        // The peer may still be waiting for an ack of this one (or of one
        // it resent because the ack was lost).
        ack_packets_left_ = limits_.ack_packets;
        receive_entry& entry = received_[message.id % limits_.queue];
        const auto ahead = static_cast<std::uint16_t>(message.id - receive_next_);
        if (ahead >= limits_.queue || entry.held) {
            stats_.reliable_duplicates += 1;
            continue;
        }
        const std::size_t size = whole_bytes(message.bits);
        std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(message.start_bit / 8), size,
                    slot_in(received_memory_, message.id % limits_.queue).begin());
        entry = receive_entry{true, message.type, message.bits};
    }
    deliver_in_order(deliver, context);
    for (const read_message& message : read_) {
        if (message.ch != channel::unreliable)
            continue;
        stats_.unreliable_delivered += 1;
        deliver(context, message_view{message.type, bytes.subspan(message.start_bit / 8, whole_bytes(message.bits)),
                                      message.bits});
    }
    read_.clear();
}

void message_endpoint::impl::deliver_in_order(message_deliverer deliver, void* context)
{
    for (;;) {
        receive_entry& entry = received_[receive_next_ % limits_.queue];
        if (!entry.held)
            return;
        entry.held = false;
        const std::span<std::uint8_t> body =
            slot_in(received_memory_, receive_next_ % limits_.queue).first(whole_bytes(entry.bits));
        ++receive_next_;
        stats_.reliable_delivered += 1;
        // The copy of a decrypted body is wiped once delivered, as the
        // packet's own body is, whether the handler returns or throws.
        const wiped_when_done wiped(body);
        deliver(context, message_view{entry.type, body, entry.bits});
    }
}

message_endpoint::impl::~impl()
{
    wipe_secret(received_memory_);
    wipe_secret(reliable_memory_);
    wipe_secret(unreliable_memory_);
}

// message_endpoint: its state in one allocation, made at construction and
// copied whole with the endpoint.

message_endpoint::message_endpoint(const message_limits& limits) : impl_(std::make_unique<impl>(limits)) {}

message_endpoint::message_endpoint(const message_endpoint& other)
    : impl_(other.impl_ ? std::make_unique<impl>(*other.impl_) : nullptr)
{
}

message_endpoint& message_endpoint::operator=(const message_endpoint& other)
{
    if (this != &other) {
        message_endpoint copy(other);
        *this = std::move(copy);
    }
    return *this;
}

message_endpoint::message_endpoint(message_endpoint&& other) noexcept = default;
message_endpoint& message_endpoint::operator=(message_endpoint&& other) noexcept = default;
message_endpoint::~message_endpoint() = default;

const message_limits& message_endpoint::limits() const noexcept { return impl_->limits(); }
const message_statistics& message_endpoint::statistics() const noexcept { return impl_->statistics(); }
std::span<std::uint8_t> message_endpoint::slot(channel ch) noexcept { return impl_->slot(ch); }
void message_endpoint::queue(channel ch, std::uint16_t type, std::size_t bits) noexcept { impl_->queue(ch, type, bits); }
void message_endpoint::refused() noexcept { impl_->refused(); }
std::size_t message_endpoint::waiting(channel ch) const noexcept { return impl_->waiting(ch); }

std::size_t message_endpoint::plan_reliable(std::uint64_t packet, std::size_t budget_bits, std::size_t whole_bits) noexcept
{
    return impl_->plan_reliable(packet, budget_bits, whole_bits);
}

std::size_t message_endpoint::plan_unreliable(std::size_t budget_bits) noexcept
{
    return impl_->plan_unreliable(budget_bits);
}

std::size_t message_endpoint::empty_section_bits() const noexcept { return impl_->empty_section_bits(); }
bool message_endpoint::write(message_write_stream& stream) const { return impl_->write(stream); }
void message_endpoint::commit(std::uint64_t packet) noexcept { impl_->commit(packet); }
void message_endpoint::cancel() noexcept { impl_->cancel(); }

bool message_endpoint::read(message_read_stream& stream, message_validator validate, void* context)
{
    return impl_->read(stream, validate, context);
}

void message_endpoint::apply(std::span<const std::uint8_t> bytes, message_deliverer deliver, void* context)
{
    impl_->apply(bytes, deliver, context);
}

} // namespace bitrep::replication
