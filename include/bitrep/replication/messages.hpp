// Message types: a game's set of messages (message_set), how one is encoded
// into a channel's slot and decoded from a packet, and the handlers that
// receive them (docs/guide/two-way.md).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <bitrep/bytes.hpp>
#include <bitrep/codec.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/replication/message_channel.hpp>
#include <bitrep/replication/packet.hpp>
#include <bitrep/serialize.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/bits.hpp>

namespace bitrep {

/// The message types a game sends, declared once for both directions; a
/// message travels as its index here and its encoding.
template <class... M>
struct message_set;

namespace replication {
// Never true: the refusal of a message type, with the type in it.
template <class M>
inline constexpr bool default_constructible_message = false;

/// How many types a message_set has, once they are known to be a set's;
/// 0 after a refusal, so that no endpoint is compiled for the types. (A
/// function, not static_asserts in the class, which clang would then refuse
/// in every constant expression that reads the class.)
template <class... M>
constexpr std::size_t checked_message_count() noexcept
{
    static_assert(sizeof...(M) <= 65536, "bitrep: a message_set holds at most 65536 types");
    (
        [] {
            if constexpr (!std::is_default_constructible_v<M>)
                static_assert(default_constructible_message<M>,
                              "bitrep: message types must be default constructible (a receiver makes one, then "
                              "reads into it)");
        }(),
        ...);
    return (std::is_default_constructible_v<M> && ...) && sizeof...(M) <= 65536 ? sizeof...(M) : 0;
}
} // namespace replication

template <class... M>
struct message_set {
    static constexpr std::size_t count = replication::checked_message_count<M...>();
};

namespace replication {

template <class Set>
class message_codec;

/// Encodes a message of the set into a slot and decodes one from a packet.
/// Holds one scratch value per type, which decoding reuses (so that a
/// steady stream of messages allocates nothing once strings have grown).
template <class... M>
class message_codec<message_set<M...>> {
public:
    using types = boost::mp11::mp_list<M...>;
    static constexpr std::size_t count = sizeof...(M);
    static constexpr int type_bits = count <= 1 ? 0 : bits_required_for_span(count - 1);

    template <class T>
    static constexpr bool contains = boost::mp11::mp_contains<types, T>::value;
    template <class T>
    static constexpr std::uint16_t index_of = static_cast<std::uint16_t>(boost::mp11::mp_find<types, T>::value);

    /// The most bits any message body of the set takes (unbounded_bits when
    /// one has no bound).
    static constexpr std::size_t max_body_bits = [] {
        std::size_t most = 0;
        ((most = std::max(most, max_bits<M>)), ...);
        return most;
    }();

    /// Encodes `message` into `slot`; `bits` is its length. A value outside
    /// its annotation fails with its path (`Chat.text`), a message larger
    /// than the slot with buffer_too_small.
    template <class T>
    static status encode(const T& message, std::span<std::uint8_t> slot, std::size_t& bits)
    {
        static_assert(contains<T>, "bitrep: this type is not in the message_set");
        failure_record failure;
        message_write_stream stream(slot, failure);
        if (!detail::write_value<detail::path_of<T>>(stream, message)) [[unlikely]] {
            status why = stream.failure_status(reflect::type_name<T>());
            if (why == error::buffer_too_small)
                return status(error::buffer_too_small, 0, reflect::type_name<T>(),
                              "message larger than a packet can carry");
            return why;
        }
        bits = stream.bit_position();
        stream.flush(); // the last partial word, into the slot
        return {};
    }

    /// A message_validator: decodes the body of message type `type` into
    /// its scratch value, failing with the path under the type's name.
    static bool validate(void* self, std::uint16_t type, message_read_stream& stream)
    {
        return static_cast<message_codec*>(self)->decode(type, stream);
    }

    /// Decodes `message` (checked by validate() when it arrived) into its
    /// type's scratch value and calls f(value). False if it does not decode.
    template <class F>
    bool visit(const message_view& message, F&& f)
    {
        failure_record failure;
        message_read_stream stream(message.body, failure);
        if (!decode(message.type, stream))
            return false;
        return with_scratch(message.type, [&](auto& value) { f(value); });
    }

private:
    bool decode(std::uint16_t type, message_read_stream& stream)
    {
        if (type >= count) [[unlikely]]
            return stream.fail(error::out_of_range, stream.bit_position(), "message type index past the message set");
        bool ok = false;
        with_scratch(type, [&]<class T>(T& value) {
            ok = detail::read_value<detail::path_of<T>>(stream, value);
            if (!ok)
                stream.enter_member(reflect::type_name<T>());
        });
        return ok;
    }

    template <class F>
    bool with_scratch(std::uint16_t type, F&& f)
    {
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return ((type == I ? (f(std::get<I>(scratch_)), true) : false) || ...);
        }(std::index_sequence_for<M...>{});
    }

    std::tuple<M...> scratch_;
};

/// The game's handlers of received messages, one per type at most; each is
/// called with `Context...` (the server: the client's id) and the message.
template <class Set, class... Context>
class message_handlers;

template <class... M, class... Context>
class message_handlers<message_set<M...>, Context...> {
public:
    template <class T, class F>
    void set(F&& f)
    {
        static_assert(message_codec<message_set<M...>>::template contains<T>,
                      "bitrep: on_message<T>: T is not in the message_set");
        std::get<std::function<void(Context..., const T&)>>(handlers_) = std::forward<F>(f);
    }

    template <class T>
    void call(Context... context, const T& message) const
    {
        const auto& handler = std::get<std::function<void(Context..., const T&)>>(handlers_);
        if (handler)
            handler(context..., message);
    }

private:
    std::tuple<std::function<void(Context..., const M&)>...> handlers_;
};

/// Everything one end of a connection needs for the messages of `Set`: the
/// channels, the codec, and the game's handlers, which receive
/// `Context...` (the server: the client's id) with each message. Client and
/// server hold one per connection.
template <class Set, class... Context>
class message_port {
public:
    using codec_type = message_codec<Set>;

    explicit message_port(const message_limits& limits) : endpoint_(limits) {}

    /// The port both ends build from their (agreeing) options: acks go out
    /// for a window's worth of packets after the last reliable message.
    /// `other_bits` bounds what this end's packets carry besides one message
    /// (headers, framing, inputs, state fields always sent): send() refuses a
    /// message larger than the rest, which could never go.
    static message_port from_options(const replication_options& options, std::size_t other_bits)
    {
        message_limits limits = limits_for(options.max_packet_bytes, options.message_queue, options.message_resend_ticks,
                                           static_cast<std::uint32_t>(ring_size(options.window)));
        const std::size_t packet_bits = 8 * options.max_packet_bytes;
        limits.send_limit_bits = packet_bits > other_bits ? packet_bits - other_bits : 0;
        return message_port(limits);
    }

    /// The limits for packets of `max_packet_bytes`: a body larger than
    /// the set can produce, or than leaves a packet room for its headers,
    /// is never kept.
    static message_limits limits_for(std::size_t max_packet_bytes, std::size_t queue, std::uint32_t resend_packets,
                                     std::uint32_t ack_packets)
    {
        message_limits limits;
        limits.queue = queue;
        limits.resend_packets = resend_packets < 1 ? 1 : resend_packets;
        limits.ack_packets = ack_packets;
        limits.type_bits = codec_type::type_bits;
        const std::size_t packet_room = max_packet_bytes > crc_bytes ? max_packet_bytes - crc_bytes : 1;
        const std::size_t set_bytes =
            codec_type::max_body_bits == unbounded_bits ? packet_room : (codec_type::max_body_bits + 7) / 8;
        limits.body_bytes = std::max<std::size_t>(1, std::min(packet_room, set_bytes));
        return limits;
    }

    template <class T>
    status send(const T& message, channel ch)
    {
        std::span<std::uint8_t> slot = endpoint_.slot(ch);
        if (slot.empty()) {
            endpoint_.refused();
            return status(error::would_block, 0, reflect::type_name<T>(),
                          ch == channel::reliable ? "the reliable queue is full (messages wait for their acks)"
                                                  : "the unreliable queue is full");
        }
        std::size_t bits = 0;
        status encoded = codec_type::encode(message, slot, bits);
        if (encoded && bits > endpoint_.limits().send_limit_bits)
            encoded = status(error::buffer_too_small, 0, reflect::type_name<T>(),
                             "message larger than a packet can carry with its headers");
        if (!encoded) {
            endpoint_.refused();
            return encoded;
        }
        endpoint_.queue(ch, codec_type::template index_of<T>, bits);
        return {};
    }

    /// Reads the peer's message section (message_endpoint::read).
    bool read(message_read_stream& stream) { return endpoint_.read(stream, &codec_type::validate, &codec_); }

    using handlers_type = message_handlers<Set, Context...>;

    /// Acts on what read() found once the packet is accepted: `handlers`
    /// run here, with `context...`.
    void apply(std::span<const std::uint8_t> bytes, const handlers_type& handlers, Context... context)
    {
        static constexpr bool never = false;
        apply_until(never, bytes, handlers, context...);
    }
    /// apply() that calls no more handlers once `stopped` is true (a
    /// handler removed the peer): the packet's remaining messages are
    /// consumed undelivered.
    void apply_until(const bool& stopped, std::span<const std::uint8_t> bytes, const handlers_type& handlers,
                     Context... context)
    {
        delivery target{this, &handlers, &stopped, std::tuple<Context...>(context...)};
        endpoint_.apply(bytes, &deliver, &target);
    }

    message_endpoint& endpoint() noexcept { return endpoint_; }
    const message_endpoint& endpoint() const noexcept { return endpoint_; }

private:
    struct delivery {
        message_port* port;
        const handlers_type* handlers;
        const bool* stopped;
        std::tuple<Context...> context;
    };

    static void deliver(void* target, const message_view& message)
    {
        delivery& to = *static_cast<delivery*>(target);
        if (*to.stopped)
            return;
        to.port->codec_.visit(message, [&]<class T>(const T& value) {
            std::apply([&](Context... context) { to.handlers->template call<T>(context..., value); }, to.context);
        });
    }

    message_endpoint endpoint_;
    codec_type codec_;
};

} // namespace replication
} // namespace bitrep
