// replication_client<State>: applies the server's packets (all or nothing),
// keeps the states it applied as baselines, and says what it applied in its
// acks (docs/design/replication-server.md).
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include <bitrep/delta.hpp>
#include <bitrep/replication/client_core.hpp>
#include <bitrep/replication/inputs.hpp>
#include <bitrep/replication/messages.hpp>
#include <bitrep/replication/packet.hpp>
#include <bitrep/replication/protocol.hpp>
#include <bitrep/replication/security.hpp>
#include <bitrep/replication/state_fields.hpp>
#include <bitrep/replication/state_layout.hpp>
#include <bitrep/status.hpp>

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
    /// or its nonces repeat (docs/design/security.md). A copy applies packets as its
    /// original does, and on the AEAD path sends none: it would seal them
    /// under its original's nonces.
    explicit replication_client(replication_options options = {}, const packet_key& key = {},
                                std::uint64_t connection_id = 0)
        : core_(replication::checked_layout_of<State>(), with_protocol(options), key, connection_id),
          inputs_(replication::make_part<inputs_type>(options)),
          messages_(replication::make_part<port_holder>(options, message_other_bits(options)))
    {
    }

    /// Applies a packet from the server. All or nothing: on any error
    /// (corrupt, stale, no_baseline, truncated, out_of_range, ...) the
    /// state is unchanged, and the status says what and where. Called from
    /// one of its own handlers (on_message, on_change) it reads nothing and
    /// returns would_block: pass the packet once the call returns.
    status receive(std::span<const std::uint8_t> bytes)
    {
        // Its handlers and on_change run inside: one that calls receive()
        // again is refused, as the packet and states they are given are
        // still in use.
        const replication::receiving_flag::scope inside(receiving_);
        if (status entered = inside.entered(); !entered) [[unlikely]]
            return entered;
        const void* before = nullptr;
        sections parts(*this);
        const status result = core_.receive(bytes, has_sections ? &parts : nullptr, before);
        // Last, so that a callback that throws leaves nothing of the packet
        // undone but the notifications after it.
        if (result && before != nullptr && on_change_) // a slice alone applies no state
            notify(*static_cast<const State*>(before), state());
        return result;
    }

    /// The newest state applied (a default State before the first packet).
    const State& state() const noexcept { return *static_cast<const State*>(core_.state()); }
    bool has_state() const noexcept { return core_.has_state(); }
    /// The sequence of the newest packet applied (meaningful once has_state()).
    std::uint16_t sequence() const noexcept { return core_.sequence(); }

    /// The packet to send to the server once a tick (valid until the next
    /// call): the ack of the state packets applied, the inputs the server
    /// has not acknowledged, and messages (reliable ones first). Without
    /// inputs and messages it is the 11-byte ack of docs/formats/packets.md,
    /// section 2. Empty when no packet can be sealed: packet(out) says why.
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
        sections parts(*this);
        return core_.packet(out, has_sections ? &parts : nullptr);
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

    /// Queues a message for the server (docs/design/replication-server.md, "Messages"):
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

    const client_statistics& statistics() const noexcept { return core_.statistics(); }

private:
    static constexpr bool has_sections = has_inputs || has_messages;

    static replication_options with_protocol(replication_options options) noexcept
    {
        options.protocol_id = replication::protocol_id_for<Input, Messages>(options.protocol_id);
        return options;
    }

    /// The client's inputs and messages, for one call of the core.
    class sections final : public replication::client_sections {
    public:
        explicit sections(replication_client& owner) noexcept : client_(owner) {}
        bool read(replication::message_read_stream& stream) override
        {
            if constexpr (has_inputs) {
                if (!ack_.serialize(stream)) [[unlikely]]
                    return false;
            }
            if constexpr (has_messages) {
                if (!client_.messages_.read(stream) || !stream.serialize_align()) [[unlikely]]
                    return false;
            }
            static_cast<void>(stream);
            return true;
        }
        void apply(std::span<const std::uint8_t> bytes) override
        {
            if constexpr (has_inputs)
                client_.inputs_.acknowledged(ack_);
            if constexpr (has_messages)
                client_.messages_.apply(bytes, client_.handlers_);
            static_cast<void>(bytes);
        }
        void write(replication::message_write_stream& stream, std::size_t room, std::uint64_t packet) override
        {
            const std::size_t start = stream.bit_position();
            if constexpr (has_inputs) {
                // The inputs leave the messages at least their empty section:
                // the oldest go unsent when the window does not fit a packet
                // (they were in earlier ones).
                std::size_t inputs_room = room;
                if constexpr (has_messages)
                    inputs_room -= std::min(inputs_room, client_.messages_.endpoint().empty_section_bits());
                client_.inputs_.fit(inputs_room);
                static_cast<void>(client_.inputs_.write(stream));
            }
            if constexpr (has_messages) {
                const std::size_t left = room - (stream.bit_position() - start);
                replication::message_endpoint& channels = client_.messages_.endpoint();
                const std::size_t reliable = channels.plan_reliable(packet, left, left);
                channels.plan_unreliable(left - std::min(left, reliable));
                // The plans are bounds of what they write, within the room.
                [[maybe_unused]] const bool written = channels.write(stream);
                assert(written);
            }
            static_cast<void>(room), static_cast<void>(packet), static_cast<void>(start);
        }
        void commit(std::uint64_t packet) noexcept override
        {
            if constexpr (has_messages)
                client_.messages_.endpoint().commit(packet);
            static_cast<void>(packet);
        }
        void cancel() noexcept override
        {
            if constexpr (has_messages)
                client_.messages_.endpoint().cancel();
        }

    private:
        replication_client& client_;
        replication::input_ack ack_;
    };

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

    void notify(const State& before, const State& after)
    {
        struct reporting {
            const change_function& f;
            const State& before;
            const State& after;
        } to{on_change_, before, after};
        core_.changes(&before, &after, &to, [](void* context, const state_change& change) {
            const auto& r = *static_cast<const reporting*>(context);
            r.f(change, r.before, r.after);
        });
    }

    replication::client_core core_;
    replication::receiving_flag receiving_;
    [[no_unique_address]] inputs_type inputs_;
    [[no_unique_address]] port_holder messages_;
    [[no_unique_address]] handlers_holder handlers_;
    change_function on_change_;
};

} // namespace bitrep
