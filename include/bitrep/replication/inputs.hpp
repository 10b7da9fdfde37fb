// Player input, client to server: the client keeps the newest inputs the
// server has not acknowledged and sends them all in every packet, each
// delta-encoded against the one before it, so a lost packet loses no input
// while a later one arrives; the server delivers each once, in tick order
// (docs/design/replication-server.md, "Inputs").
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <bitrep/bytes.hpp>
#include <bitrep/delta.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/replication/message_channel.hpp>
#include <bitrep/replication/packet.hpp>
#include <bitrep/serialize.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/bits.hpp>

namespace bitrep {

/// The Input of a game that sends none (the default): its packets carry no
/// input section at all.
struct no_input {};

/// One input as the server delivers it.
template <class Input>
struct received_input {
    std::uint32_t tick = 0;
    Input input{};
};

namespace replication {

template <class Input>
inline constexpr bool has_inputs = !std::is_same_v<Input, no_input>;

/// The server's acknowledgement of inputs, in its state packets: the low
/// 16 bits of the newest input tick delivered, once one has been.
struct input_ack {
    bool any = false;
    std::uint16_t low_bits = 0;

    template <class Stream>
    bool serialize(Stream& stream)
    {
        std::uint32_t low = low_bits;
        if (!stream.serialize_bool(any) || (any && !stream.serialize_bits(low, 16)))
            return false;
        low_bits = static_cast<std::uint16_t>(low);
        return true;
    }
};

/// The bits of an input packet's count for a window of `window` inputs.
constexpr int input_count_bits(std::size_t window) noexcept { return bits_required_for_span(window); }

/// An upper bound of a full input section's bits, or 0 when Input has no
/// bound (the client then leaves out the oldest inputs that do not fit).
template <class Input>
constexpr std::size_t input_section_bound(std::size_t window) noexcept
{
    constexpr std::size_t full = max_bits<Input>;
    constexpr std::size_t delta = bitrep::max_delta_bits<Input>;
    if (full == unbounded_bits || delta == unbounded_bits)
        return 0;
    const std::size_t later = window > 1 ? window - 1 : 0;
    return detail::add_bits(static_cast<std::size_t>(input_count_bits(window)) + 32 + full,
                            detail::multiply_bits(later, 1 + 32 + delta));
}

/// The client's side: the window of unacknowledged inputs.
template <class Input>
class input_sender {
public:
    explicit input_sender(std::size_t window)
        : window_(window < 1 ? 1 : window), inputs_(window_), scratch_(scratch_bytes())
    {
    }
    static input_sender from_options(const replication_options& options) { return input_sender(options.input_window); }

    /// Queues `input` for `tick`, newer than the previous one. Refused
    /// (and nothing queued) when the tick is not newer, or a value is
    /// outside its annotation (the status names it). A full window drops
    /// its oldest input, which went out in `window` packets.
    status push(std::uint32_t tick, const Input& input)
    {
        if (any_ && static_cast<std::int32_t>(tick - newest_) <= 0) [[unlikely]]
            return status(error::out_of_range, 0, "input", "tick not newer than the previous input's");
        failure_record failure;
        message_write_stream check(scratch_, failure);
        if (!detail::write_value<detail::path_of<Input>>(check, input)) [[unlikely]]
            return check.failure_status(reflect::type_name<Input>());
        if (count_ == window_) {
            first_ = (first_ + 1) % window_;
            --count_;
        }
        received_input<Input>& slot = inputs_[(first_ + count_) % window_];
        slot.tick = tick;
        slot.input = input;
        ++count_;
        any_ = true;
        newest_ = tick;
        return {};
    }

    /// The server delivered every input up to the one whose tick ends in
    /// the ack's low bits: they leave the window. The full tick is the
    /// newest sent with those low bits (acks name recent inputs).
    void acknowledged(const input_ack& ack) noexcept
    {
        if (!any_ || !ack.any)
            return;
        const std::uint16_t low_bits = ack.low_bits;
        const std::uint32_t acked = newest_ - static_cast<std::uint16_t>(static_cast<std::uint16_t>(newest_) - low_bits);
        while (count_ != 0 && static_cast<std::int32_t>(inputs_[first_].tick - acked) <= 0) {
            first_ = (first_ + 1) % window_;
            --count_;
        }
    }

    std::size_t waiting() const noexcept { return count_; }

    /// Drops the oldest inputs until the section takes at most `room_bits`
    /// (they went out in earlier packets); returns how many.
    std::size_t fit(std::size_t room_bits)
    {
        std::size_t dropped = 0;
        while (count_ != 0 && bound_bits() > room_bits) {
            first_ = (first_ + 1) % window_;
            --count_;
            ++dropped;
        }
        return dropped;
    }

    /// The input section: count, then the inputs oldest first.
    template <class Stream>
    bool write(Stream& stream) const
    {
        std::uint32_t count = static_cast<std::uint32_t>(count_);
        if (!stream.serialize_bits(count, input_count_bits(window_)))
            return false;
        const received_input<Input>* previous = nullptr;
        for (std::size_t i = 0; i < count_; ++i) {
            const received_input<Input>& entry = inputs_[(first_ + i) % window_];
            std::uint32_t tick = entry.tick;
            if (previous == nullptr) {
                if (!stream.serialize_bits(tick, 32) || !detail::write_value<detail::path_of<Input>>(stream, entry.input))
                    return false;
            } else {
                bool next = entry.tick == previous->tick + 1;
                if (!stream.serialize_bool(next) || (!next && !stream.serialize_bits(tick, 32)) ||
                    !write_delta(stream, previous->input, entry.input))
                    return false;
            }
            previous = &entry;
        }
        return true;
    }

private:
    static std::size_t scratch_bytes() noexcept
    {
        constexpr std::size_t bits = max_bits<Input>;
        return bits == unbounded_bits ? 65536 : bits / 8 + 8;
    }

    std::size_t bound_bits() const
    {
        basic_measure_stream<scope::replication> measure;
        static_cast<void>(write(measure));
        return measure.bits();
    }

    std::size_t window_;
    std::vector<received_input<Input>> inputs_; ///< a ring: count_ from first_
    std::vector<std::uint8_t> scratch_;         ///< checks an input encodes before it is queued
    std::size_t first_ = 0;
    std::size_t count_ = 0;
    bool any_ = false;
    std::uint32_t newest_ = 0;
};

/// Counters of the server's input receiver, per client.
struct input_statistics {
    std::uint64_t delivered = 0;
    std::uint64_t duplicates = 0;    ///< inputs received again (redundant copies), dropped
    std::uint64_t ticks_skipped = 0; ///< ticks between two delivered inputs that none arrived for
};

/// The server's side, per client: reads a packet's inputs, then delivers
/// the new ones once the packet is accepted, acknowledging each as it is
/// handed over.
template <class Input>
class input_receiver {
public:
    explicit input_receiver(std::size_t window) : window_(window < 1 ? 1 : window), read_(window_)
    {
        arrived_.reserve(window_);
    }
    static input_receiver from_options(const replication_options& options) { return input_receiver(options.input_window); }

    /// Reads the input section. False on malformed or forged input (the
    /// failure record says what and where); nothing changes.
    template <class Stream>
    bool read(Stream& stream)
    {
        read_count_ = 0;
        const std::size_t at = stream.bit_position();
        std::uint32_t count = 0;
        if (!stream.serialize_bits(count, input_count_bits(window_)))
            return false;
        if (count > window_) [[unlikely]]
            return stream.fail(error::out_of_range, at, "more inputs than the input window");
        for (std::size_t i = 0; i < count; ++i) {
            received_input<Input>& entry = read_[i];
            const std::size_t tick_at = stream.bit_position();
            bool ok;
            if (i == 0) {
                ok = stream.serialize_bits(entry.tick, 32) &&
                     detail::read_value<detail::path_of<Input>>(stream, entry.input);
            } else {
                const received_input<Input>& previous = read_[i - 1];
                bool next = false;
                entry.tick = previous.tick + 1;
                ok = stream.serialize_bool(next) && (next || stream.serialize_bits(entry.tick, 32));
                if (ok && static_cast<std::int32_t>(entry.tick - previous.tick) <= 0) [[unlikely]]
                    return stream.fail(error::out_of_range, tick_at, "input ticks not increasing");
                ok = ok && read_delta(stream, previous.input, entry.input);
            }
            if (!ok) {
                stream.enter_index(i);
                stream.enter_member("inputs");
                return false;
            }
        }
        read_count_ = count;
        return true;
    }

    /// Takes the inputs read that are newer than every one delivered, in
    /// tick order, as the packet's to deliver (replacing the previous
    /// packet's). None counts as delivered, nor is acknowledged, until
    /// next() or deliver_all() hands it over: an input a throwing handler
    /// never received stays in the client's window, and its next packet
    /// brings it again.
    void apply()
    {
        arrived_.clear();
        handed_ = 0;
        // Each against the newest taken so far: ticks compare by their
        // difference, which is not transitive across half the range.
        bool any = any_;
        std::uint32_t newest = newest_;
        for (std::size_t i = 0; i < read_count_; ++i) {
            const received_input<Input>& entry = read_[i];
            if (any && static_cast<std::int32_t>(entry.tick - newest) <= 0) {
                stats_.duplicates += 1;
                continue;
            }
            arrived_.push_back(entry);
            any = true;
            newest = entry.tick;
        }
        read_count_ = 0;
    }

    /// Hands over the packet's next input (nullptr once all are): it counts
    /// as delivered, and the next state packet acknowledges it.
    const received_input<Input>* next() noexcept
    {
        if (handed_ == arrived_.size())
            return nullptr;
        const received_input<Input>& entry = arrived_[handed_++];
        if (any_)
            stats_.ticks_skipped += entry.tick - newest_ - 1;
        any_ = true;
        newest_ = entry.tick;
        stats_.delivered += 1;
        return &entry;
    }
    void deliver_all() noexcept
    {
        while (next() != nullptr) {
        }
    }

    /// The inputs of the latest accepted packet handed over so far.
    std::span<const received_input<Input>> delivered() const noexcept { return {arrived_.data(), handed_}; }
    bool any() const noexcept { return any_; }
    std::uint32_t newest() const noexcept { return newest_; }
    /// What the next state packet acknowledges.
    input_ack ack() const noexcept { return {any_, static_cast<std::uint16_t>(newest_)}; }
    const input_statistics& statistics() const noexcept { return stats_; }

private:
    std::size_t window_;
    std::vector<received_input<Input>> read_;
    std::size_t read_count_ = 0;
    std::vector<received_input<Input>> arrived_; ///< the latest accepted packet's new inputs
    std::size_t handed_ = 0;                     ///< how many of them next() handed over
    bool any_ = false;
    std::uint32_t newest_ = 0;
    input_statistics stats_;
};

} // namespace replication
} // namespace bitrep
