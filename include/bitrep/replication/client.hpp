// replication_client<State>: applies the server's packets (all or nothing),
// keeps the states it applied as baselines, and says what it applied in its
// acks (docs/replication.md).
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include <bitrep/coded_delta.hpp>
#include <bitrep/delta.hpp>
#include <bitrep/replication/inputs.hpp>
#include <bitrep/replication/messages.hpp>
#include <bitrep/replication/packet.hpp>
#include <bitrep/replication/security.hpp>
#include <bitrep/replication/protocol.hpp>
#include <bitrep/replication/state_fields.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep {

/// Whether two states are equal in the replication scope: every field a
/// client receives, compared as the wire carries it (a quantized value by
/// its quantum), and nothing else (save_only fields, fields of other
/// scopes). The check that a client holds what the server sent:
/// `replicated_equal(client.state(), *server.sent_state(id,
/// client.sequence()))`, where comparing bytes would fail on the server's
/// save_only values.
template <class State>
bool replicated_equal(const State& a, const State& b)
{
    return bitrep::same_on_wire<scope::replication>(a, b);
}

/// One change a packet brought, for change notifications.
struct state_change {
    enum class kind : std::uint8_t {
        field,     ///< a top-level field other than an entity array changed
        created,   ///< an entity slot was filled (the entity is new or became relevant)
        destroyed, ///< an entity slot was emptied (destroyed or no longer relevant)
        changed,   ///< an entity changed
    };
    kind what = kind::field;
    std::uint16_t field = 0;      ///< the top-level field's index
    std::string_view field_name;  ///< its name (empty for an aggregate's field)
    std::uint32_t id = 0;         ///< the entity slot, for entity changes
};

struct client_statistics {
    std::uint64_t applied = 0;
    std::uint64_t stale = 0;       ///< duplicates and packets older than the newest applied
    std::uint64_t no_baseline = 0; ///< encoded against a state this client no longer holds
    std::uint64_t refused = 0;     ///< corrupt, forged or malformed
};

/// The client of a replication_server<State, Input, Messages> with the same
/// arguments: applies its state packets, and sends one packet a tick
/// (packet()) with the ack, the inputs and the messages.
template <class State, class Input = no_input, class Messages = message_set<>>
class replication_client {
    static constexpr bool has_inputs = replication::has_inputs<Input>;
    static constexpr bool has_messages = Messages::count != 0;
    using port_type = replication::message_port<Messages>;

public:
    /// Called once per change after a packet is applied, with the state
    /// before and after it (state() is already the new one); the first
    /// packet reports everything that differs from a default State.
    using change_function = std::function<void(const state_change&, const State& before, const State& after)>;

    /// `key` and `connection_id`: what the login handed out for this
    /// connection, the same the server was given for this client
    /// (add_client(key, connection_id)). The key is required when
    /// options.security is aead (without one every packet is refused,
    /// options_mismatch). A key used for one connection only may keep
    /// connection id 0; a key used again needs a new id for each connection,
    /// or its nonces repeat (docs/security.md). A copy applies packets as its
    /// original does, and on the AEAD path sends none: it would seal them
    /// under its original's nonces.
    explicit replication_client(replication_options options = {}, const packet_key& key = {},
                                std::uint64_t connection_id = 0)
        : options_(options), inputs_(replication::make_part<inputs_type>(options)),
          messages_(replication::make_part<port_holder>(options, message_other_bits(options))),
          packet_(std::max(options.max_packet_bytes, replication::ack_bytes + replication::suffix_bytes(options.security) +
                                                         replication::prefix_bytes(options.security) -
                                                         replication::crc_bytes)),
          guard_(options.security, key, replication::direction::client_to_server, connection_id)
    {
        replication::require_reflected_state<State>();
        options_.window = replication::ring_size(options_.window);
        options_.protocol_id = replication::protocol_id_for<Input, Messages>(options_.protocol_id);
        ring_.resize(options_.window);
        if (options_.security == packet_security::aead)
            guard_.reserve_body(options_.max_packet_bytes);
    }

    /// Applies a packet from the server. All or nothing: on any error
    /// (corrupt, stale, no_baseline, truncated, out_of_range, ...) the
    /// state is unchanged, and the status says what and where.
    status receive(std::span<const std::uint8_t> bytes)
    {
        const State* before = nullptr;
        status result;
        {
            const replication::packet_guard::body_scope wiped(guard_);
            result = apply(bytes, before);
        }
        if (result)
            stats_.applied += 1;
        else if (result == error::stale)
            stats_.stale += 1;
        else if (result == error::no_baseline)
            stats_.no_baseline += 1;
        else
            stats_.refused += 1;
        // Last, so that a callback that throws leaves nothing of the packet
        // undone but the notifications after it.
        if (result && on_change_)
            notify(*before, state());
        return result;
    }

    /// The newest state applied (a default State before the first packet).
    const State& state() const noexcept { return current_ != no_state ? *ring_[current_].view : default_; }
    bool has_state() const noexcept { return current_ != no_state; }
    /// The sequence of the newest packet applied (meaningful once has_state()).
    std::uint16_t sequence() const noexcept { return acks_.any ? acks_.newest : shown_sequence_; }

    /// The packet to send to the server once a tick (valid until the next
    /// call): the ack of the state packets applied, the inputs the server
    /// has not acknowledged, and messages (reliable ones first). Without
    /// inputs and messages it is the 11-byte ack of docs/replication.md
    /// section 4. Empty when no packet can be sealed: packet(out) says why.
    std::span<const std::uint8_t> packet()
    {
        std::span<const std::uint8_t> out;
        static_cast<void>(packet(out));
        return out;
    }

    /// packet() that reports failure as a status: a copy of an AEAD client
    /// (which must not seal), one without a key or without libsodium, or one
    /// whose packet numbers are used up. When it fails `out` is empty and
    /// nothing changes: no message counts as sent.
    status packet(std::span<const std::uint8_t>& out)
    {
        out = {};
        if (packet_.empty()) [[unlikely]]
            return status(error::options_mismatch, 0, "client", "moved from: its buffers and its key went with the move");
        if (status able = guard_.can_seal(); !able) [[unlikely]]
            return able;
        failure_record failure;
        const std::size_t prefix = guard_.prefix();
        replication::message_write_stream stream(
            std::span<std::uint8_t>(packet_).subspan(prefix, packet_.size() - prefix - guard_.suffix()), failure);
        replication::ack_record record = acks_;
        static_cast<void>(record.serialize(stream)); // 49 bits always fit
        if constexpr (has_inputs)
            write_inputs(stream);
        if constexpr (has_messages) {
            const std::size_t room = 8 * (packet_.size() - prefix - guard_.suffix()) - stream.bit_position();
            replication::message_endpoint& channels = messages_.endpoint();
            const std::size_t reliable = channels.plan_reliable(packets_, room, room);
            channels.plan_unreliable(room - std::min(room, reliable));
            // The plans are bounds of what they write, within the room.
            [[maybe_unused]] const bool written = channels.write(stream);
            assert(written);
        }
        const std::size_t size = prefix + stream.flush() + guard_.suffix();
        const std::span<std::uint8_t> sealed(packet_.data(), size);
        if (status result = guard_.seal(options_.protocol_id, replication::packet_kind::ack, sealed); !result)
            [[unlikely]] {
            if constexpr (has_messages)
                messages_.endpoint().cancel();
            return result;
        }
        if constexpr (has_messages)
            messages_.endpoint().commit(packets_);
        ++packets_;
        out = sealed;
        return {};
    }

    /// packet(), by its name from before the client sent anything but acks.
    std::span<const std::uint8_t> ack() { return packet(); }

    /// Queues the input for `tick` (newer than the previous one's); every
    /// packet() carries it until the server acknowledges it. Refused, and
    /// nothing queued, for an old tick or a value outside its annotation.
    status send_input(std::uint32_t tick, const Input& input)
        requires has_inputs
    {
        return inputs_.push(tick, input);
    }

    /// Queues a message for the server (docs/replication.md, section 10.3):
    /// would_block when the channel's queue is full, and the value's path
    /// when it cannot be encoded or is larger than a packet can carry.
    template <class T>
    status send(const T& message, channel ch)
        requires has_messages
    {
        return messages_.send(message, ch);
    }

    /// `f(const T&)` receives the server's messages of type T, inside
    /// receive(), after the state of their packet is applied.
    template <class T, class F>
    void on_message(F&& f)
        requires has_messages
    {
        handlers_.template set<T>(std::forward<F>(f));
    }

    /// Inputs waiting for the server's acknowledgement.
    std::size_t inputs_waiting() const noexcept
    {
        if constexpr (has_inputs)
            return inputs_.waiting();
        else
            return 0;
    }

    const message_statistics& messages() const noexcept
        requires has_messages
    {
        return messages_.endpoint().statistics();
    }

    /// `f` is called last in receive(), after the packet's messages went to
    /// their handlers. One that throws leaves the packet applied and to be
    /// acknowledged, its inputs acknowledged and its messages delivered;
    /// only the changes after the throwing call go unreported.
    void on_change(change_function f) { on_change_ = std::move(f); }

    const client_statistics& statistics() const noexcept { return stats_; }

private:
    /// A State on the heap, copied by value, exchanged by pointer (a swap
    /// of two States would copy a large one, an array of entities, three
    /// times). Moving copies, so that no client is left without a State.
    class boxed_state {
    public:
        boxed_state() : state_(std::make_unique<State>()) {}
        boxed_state(const boxed_state& other) : state_(std::make_unique<State>(*other.state_)) {}
        boxed_state& operator=(const boxed_state& other)
        {
            if (this != &other)
                *state_ = *other.state_;
            return *this;
        }
        ~boxed_state() = default;
        State& operator*() const noexcept { return *state_; }
        State* get() const noexcept { return state_.get(); }
        void swap(boxed_state& other) noexcept { state_.swap(other.state_); }

    private:
        std::unique_ptr<State> state_;
    };

    struct applied_view {
        std::uint16_t sequence = 0;
        bool valid = false;
        boxed_state view;
    };

    /// Applies a packet; `before` receives the state it replaced (valid
    /// until the next packet).
    status apply(std::span<const std::uint8_t> packet, const State*& before)
    {
        if (ring_.empty()) [[unlikely]]
            return status(error::options_mismatch, 0, "client", "moved from: the client that took it receives now");
        // The packet's body: after the CRC, or decrypted once authentic.
        std::span<const std::uint8_t> bytes;
        if (status opened = guard_.open(options_.protocol_id, replication::packet_kind::state, packet, bytes); !opened)
            return opened;
        failure_record failure;
        basic_read_stream<scope::replication> stream(bytes, failure);
        const std::size_t head = 8 * guard_.prefix(); // bit offsets below count from the packet's start
        replication::packet_header header;
        if (!header.serialize(stream)) [[unlikely]]
            return stream.failure_status("packet");
        if (header.has_check_value != options_.check_value) [[unlikely]]
            return status(error::options_mismatch, head + 33, "packet",
                          header.has_check_value ? "the server sends a check value, and this client expects none"
                                                 : "this client expects a check value, and the server sends none");
        if (acks_.any && !replication::sequence_newer(header.sequence, acks_.newest)) {
            // Packet after packet a whole window or more behind are no late
            // copies: the server's sequence numbers went round while this
            // client heard nothing, and its states can no longer be told
            // from the server's new packets of the same numbers. It then
            // forgets them as baselines (the state shown stays) and takes
            // the next full state. One such packet alone changes nothing.
            if (static_cast<std::uint16_t>(acks_.newest - header.sequence) >= options_.window &&
                ++far_behind_ >= far_behind_limit)
                forget_baselines();
            return status(error::stale, head, "packet", "not newer than the newest packet applied");
        }
        if (header.coded && options_.encoding != replication_encoding::coded) [[unlikely]]
            return status(error::options_mismatch, head + 34, "packet",
                          "the server sends coded packets, and this client expects bit-packed ones");
        replication::input_ack input_ack;
        if constexpr (has_inputs) {
            if (!input_ack.serialize(stream)) [[unlikely]]
                return stream.failure_status("packet");
        }
        if constexpr (has_messages) {
            if (!messages_.read(stream) || !stream.serialize_align()) [[unlikely]]
                return stream.failure_status("packet");
        }
        if (status decoded = decode_state(header, stream, bytes); !decoded) [[unlikely]]
            return decoded;
        const std::size_t index = header.sequence % options_.window;
        applied_view& slot = ring_[index];
        slot.view.swap(scratch_);
        slot.sequence = header.sequence;
        slot.valid = true;
        // When the new state took the current one's slot, the old one is in scratch_ now.
        before = current_ == no_state ? &default_ : (current_ == index ? scratch_.get() : ring_[current_].view.get());
        current_ = index;
        acks_.applied(header.sequence);
        far_behind_ = 0;
        if constexpr (has_inputs) {
            inputs_.acknowledged(input_ack);
        }
        if constexpr (has_messages)
            messages_.apply(bytes, handlers_);
        return {};
    }

    /// Decodes the packet's state, after its header and sections, into
    /// scratch_ (the ring is untouched until the whole packet is accepted).
    status decode_state(const replication::packet_header& header, basic_read_stream<scope::replication>& stream,
                        std::span<const std::uint8_t> bytes)
    {
        const std::size_t head = 8 * guard_.prefix(); // bit offsets count from the packet's start
        const State* base = &default_;
        if (header.has_baseline) {
            base = held(header.baseline);
            if (base == nullptr)
                return status(error::no_baseline, head + 17, "packet", "the packet's baseline is not held");
        }
        if (header.coded) {
            const State* older = base;
            if (header.has_older) {
                older = held(header.older);
                if (older == nullptr)
                    return status(error::no_baseline, head + 36, "packet", "the state the packet predicts from is not held");
            }
            return decode_coded(*older, *base, bytes.subspan(std::min((stream.bit_position() + 7) / 8, bytes.size())),
                                head + 8 * bytes.size());
        }
        if (!read_delta(stream, *base, *scratch_)) [[unlikely]]
            return stream.failure_status(reflect::type_name<State>());
        if (options_.check_value) {
            const std::size_t at = stream.bit_position();
            std::uint32_t check = 0;
            if (!stream.serialize_bits(check, 32)) [[unlikely]]
                return stream.failure_status("packet");
            if (check != replication::check_value) [[unlikely]]
                return status(error::corrupt, head + at, "packet", "end-of-packet check value is wrong");
        }
        const std::size_t used = (stream.bit_position() + 7) / 8;
        if (used != bytes.size()) [[unlikely]]
            return status(error::trailing_data, head + used * 8, "packet", "whole bytes left over after the state");
        return {};
    }

    /// The coded state in `coded` (from the byte after the header to the
    /// packet's end, bit `end` of the packet), predicted from `older`.
    status decode_coded(const State& older, const State& base, std::span<const std::uint8_t> coded, std::size_t end)
    {
        bool check_ok = true;
        status decoded = coder_.read_with(coded, [&](auto& coder) {
            if (!read_delta(coder, older, base, *scratch_))
                return false;
            std::uint32_t check = replication::check_value;
            if (options_.check_value && !coder.serialize_bits(check, 32))
                return false;
            check_ok = check == replication::check_value;
            return true;
        });
        if (!decoded) [[unlikely]]
            return decoded;
        if (!check_ok) [[unlikely]]
            return status(error::corrupt, end, "packet", "end-of-packet check value is wrong");
        return {};
    }

    /// What a client packet holds besides one message: CRC, ack, the input
    /// window at its largest, the message section's framing.
    static std::size_t message_other_bits(const replication_options& options)
    {
        std::size_t bits = 8 * (replication::prefix_bytes(options.security) + replication::suffix_bytes(options.security)) +
                           replication::ack_bits + replication::message_framing_bits<Messages>;
        if constexpr (has_inputs)
            bits += replication::input_section_bound<Input>(options.input_window);
        return bits;
    }

    using inputs_type = replication::optional_part<has_inputs, replication::input_sender<Input>>;
    using port_holder = replication::optional_part<has_messages, port_type>;
    using handlers_holder = replication::optional_part<has_messages, typename port_type::handlers_type>;

    /// The inputs, leaving the messages at least their empty section: the
    /// oldest go unsent when the window does not fit a packet (they were
    /// in earlier ones).
    void write_inputs(replication::message_write_stream& stream)
    {
        std::size_t room = 8 * (packet_.size() - guard_.prefix() - guard_.suffix()) - stream.bit_position();
        if constexpr (has_messages)
            room -= std::min(room, messages_.endpoint().empty_section_bits());
        inputs_.fit(room);
        static_cast<void>(inputs_.write(stream));
    }

    /// The state packet `sequence` brought, while this client holds it.
    const State* held(std::uint16_t sequence) const noexcept
    {
        const applied_view& slot = ring_[sequence % options_.window];
        return slot.valid && slot.sequence == sequence ? slot.view.get() : nullptr;
    }

    void forget_baselines() noexcept
    {
        for (applied_view& slot : ring_)
            slot.valid = false;
        shown_sequence_ = acks_.newest;
        acks_ = {};
        far_behind_ = 0;
    }

    void notify(const State& before, const State& after)
    {
        replication::for_each_field_index<State>([&](auto index) {
            constexpr std::size_t I = decltype(index)::value;
            state_change change;
            change.field = static_cast<std::uint16_t>(I);
            change.field_name = reflect::field_id_at<State, I>().name;
            const auto& old_value = reflect::field_at<I>(before);
            const auto& new_value = reflect::field_at<I>(after);
            if constexpr (replication::is_entity_field<State, I>) {
                const auto& old_slots = old_value.slots();
                const auto& new_slots = new_value.slots();
                for (std::size_t id = 0; id < old_slots.size(); ++id) {
                    const bool was = old_slots[id].has_value();
                    const bool is = new_slots[id].has_value();
                    if (!was && !is)
                        continue;
                    if (was && is &&
                        (detail::identical_bytes(*old_slots[id], *new_slots[id]) ||
                         bitrep::same_on_wire<scope::replication>(*old_slots[id], *new_slots[id])))
                        continue;
                    change.what = !was ? state_change::kind::created
                                       : (!is ? state_change::kind::destroyed : state_change::kind::changed);
                    change.id = static_cast<std::uint32_t>(id);
                    on_change_(change, before, after);
                }
            } else if (!bitrep::same_on_wire<scope::replication>(old_value, new_value)) {
                change.what = state_change::kind::field;
                on_change_(change, before, after);
            }
        });
    }

    replication_options options_;
    std::vector<applied_view> ring_;
    boxed_state scratch_;
    delta_coder<State> coder_;
    const State default_{};
    static constexpr std::size_t no_state = static_cast<std::size_t>(-1);
    /// The ring slot of the newest state applied: an index, not a pointer,
    /// so that a copy of the client holds its own state.
    std::size_t current_ = no_state;
    replication::ack_record acks_;
    static constexpr int far_behind_limit = 8;
    int far_behind_ = 0;              ///< packets in a row a window or more behind
    std::uint16_t shown_sequence_ = 0; ///< sequence() after forget_baselines()
    [[no_unique_address]] inputs_type inputs_;
    [[no_unique_address]] port_holder messages_;
    [[no_unique_address]] handlers_holder handlers_;
    std::vector<std::uint8_t> packet_;
    replication::packet_guard guard_; ///< seals packet() and opens receive()'s packets
    std::uint64_t packets_ = 0; ///< packets written, which number the message channels' packets
    change_function on_change_;
    client_statistics stats_;
};

} // namespace bitrep
