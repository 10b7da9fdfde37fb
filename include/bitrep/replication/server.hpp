// replication_server<State>: per client, the packet to send each tick, as a
// delta against the newest state the client acknowledged, within a bit
// budget spent on the entities of highest accumulated priority
// (docs/design/replication-server.md). The work is server_core's, compiled once in the
// library over the State's layout; this class template keeps what is typed:
// the callbacks' signatures, the inputs and the messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include <bitrep/bytes.hpp>
#include <bitrep/replication/conditions.hpp>
#include <bitrep/replication/ids.hpp>
#include <bitrep/replication/inputs.hpp>
#include <bitrep/replication/messages.hpp>
#include <bitrep/replication/packet.hpp>
#include <bitrep/replication/protocol.hpp>
#include <bitrep/replication/security.hpp>
#include <bitrep/replication/server_core.hpp>
#include <bitrep/replication/state_fields.hpp>
#include <bitrep/replication/state_layout.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep {

/// The server of replication_client<State, Input, Messages>: the state to
/// every client, within each one's budget, with messages both ways and the
/// clients' inputs (docs/guide/two-way.md).
template <class State, class Input = no_input, class Messages = message_set<>>
class replication_server {
    /// False when the State is refused (checked_layout_of reports it).
    static constexpr bool reflected = replication::walked_state<State>;
    static constexpr bool has_inputs = replication::has_inputs<Input>;
    static constexpr bool has_messages = Messages::count != 0;
    using port_type = replication::message_port<Messages, client_id>;

public:
    /// Called for each input delivered, in tick order, inside receive().
    using input_function = std::function<void(client_id, std::uint32_t tick, const Input&)>;

    /// The accumulated priority an entity gains per tick while the client's
    /// copy of it is out of date; the default is the entity type's
    /// `static constexpr float replication_priority`, else 1.
    using priority_function = std::function<float(client_id, entity_key, const State&)>;
    /// Whether a client gets an entity at all; an entity that stops being
    /// relevant is removed on that client, and arrives in full when it
    /// becomes relevant again.
    using relevancy_function = std::function<bool(client_id, entity_key, const State&)>;
    using invalid_value_function = std::function<void(entity_key, const status&)>;

    explicit replication_server(replication_options options = {})
        : core_(replication::checked_layout_of<State>(), with_protocol(options), &find_unencodable)
    {
        if constexpr (reflected) {
            // A condition outside the entities' members is refused naming its field.
            if constexpr (replication::conditions_only_on_entity_members<State>())
                static_assert(replication::entity_slots_before<State> < (std::size_t{1} << 31),
                              "bitrep: at most 2^31 - 1 entity slots");
        }
    }

    const replication_options& options() const noexcept { return core_.options(); }

    /// A new connection. `key` and `connection_id`: what the login handed out
    /// for it, which the client is given too (replication_client(options,
    /// key, connection_id)). The key is required when options().security is
    /// aead (without one every packet of the connection is refused,
    /// options_mismatch). A key used for one connection only may keep
    /// connection id 0; a reconnection under the same key needs a new id,
    /// or its nonces repeat and the old connection's packets open
    /// (docs/design/security.md).
    client_id add_client(const packet_key& key = {}, std::uint64_t connection_id = 0)
    {
        std::unique_ptr<replication::connection_parts> made;
        if constexpr (has_parts)
            made = std::make_unique<parts>(*this);
        return core_.add_client(key, connection_id, std::move(made));
    }

    /// Forgets the client; its id is never given out again. Safe inside
    /// receive()'s handlers (a player kicked from a chat handler) and
    /// replicate()'s callbacks: the client is gone for every call at once,
    /// none of its packet's remaining inputs and messages are delivered, and
    /// its connection is freed when the outermost call returns, as that call
    /// still reads it.
    void remove_client(client_id id) noexcept { core_.remove_client(id); }

    bool has_client(client_id id) const noexcept { return core_.has_client(id); }

    void set_priority(priority_function f) { core_.set_priority(on_state(std::move(f))); }
    void set_relevancy(relevancy_function f) { core_.set_relevancy(on_state(std::move(f))); }

    /// The priority of the entities of one entity array of the State, e.g.
    /// `server.set_priority<&World::cubes>([](client_id, std::uint32_t id,
    /// const Cube& cube) { return cube.moving ? 4.f : 1.f; })`. It takes
    /// precedence over set_priority(f) for that array.
    template <auto Member, class F>
    void set_priority(F f)
    {
        using entity = member_entity<Member>;
        if constexpr (entity_callback<Member, F, float(client_id, std::uint32_t, const entity&)>())
            core_.set_priority(member_field<Member>(), [f = std::move(f)](client_id c, std::uint32_t id, const void* e) {
                return static_cast<float>(f(c, id, *static_cast<const entity*>(e)));
            });
    }
    /// Whether a client gets an entity of one entity array, e.g.
    /// `server.set_relevancy<&World::cubes>([&](client_id c, std::uint32_t,
    /// const Cube& cube) { return near(players[c], cube); })`. It takes
    /// precedence over set_relevancy(f) for that array.
    template <auto Member, class F>
    void set_relevancy(F f)
    {
        using entity = member_entity<Member>;
        if constexpr (entity_callback<Member, F, bool(client_id, std::uint32_t, const entity&)>())
            core_.set_relevancy(member_field<Member>(), [f = std::move(f)](client_id c, std::uint32_t id, const void* e) {
                return static_cast<bool>(f(c, id, *static_cast<const entity*>(e)));
            });
    }
    /// The client that owns each entity of one entity array, for its
    /// owner_only and skip_owner members (docs/design/replication-server.md,
    /// "Replication conditions"), e.g. `server.set_owner<&World::players>([](std::uint32_t id,
    /// const Player& p) -> std::optional<bitrep::client_id> { return
    /// p.connection; })`. Without one, entities have no owner: owner_only
    /// members go to nobody, skip_owner members to everyone.
    template <auto Member, class F>
    void set_owner(F f)
    {
        using entity = member_entity<Member>;
        if constexpr (entity_callback<Member, F, std::optional<client_id>(std::uint32_t, const entity&)>())
            core_.set_owner(member_field<Member>(), [f = std::move(f)](std::uint32_t id, const void* e) {
                return static_cast<std::optional<client_id>>(f(id, *static_cast<const entity*>(e)));
            });
    }

    /// Called when a value of the State cannot be encoded (outside its
    /// annotation: 5000 or NaN in quantized<-1024.f, 1024.f, 0.01f>, 101 in
    /// ranged<int, 0, 100>, a vector over its bound, a quaternion that is
    /// not unit length), with
    /// the status naming it, e.g. `World.cubes[12].hp`. That entity, or that
    /// top-level field (key.id == entity_key::whole_field), stays as the
    /// client last had it, and everything else goes out as usual. Reported
    /// once until the value can be encoded again, however many clients and
    /// ticks see it.
    void on_invalid_value(invalid_value_function f) { core_.on_invalid_value(std::move(f)); }

    /// Records the world of this tick (docs/design/replication-server.md,
    /// "The server at scale: one world history, views as refs"):
    /// once per tick, before the replicate(id, out) calls, which encode from
    /// it. `state` must stay alive and unchanged until they are done (the
    /// callbacks and the fields other than shared entity arrays read it).
    /// Costs one comparison per entity slot, for all clients together.
    void update(const State& state) { core_.update(&state); }

    /// The packet to send to `id` this tick, from the state of the last
    /// update(), in `out`: valid until the next call for that client. Each
    /// tick: update(world) once, then replicate(id, out) for every client.
    /// Returns a status. When it fails (no update() yet, an unknown client,
    /// a connection whose key is refused, more non-entity data than a packet
    /// holds) nothing changes: no packet counts as sent, and sequence,
    /// baselines, priorities, statistics and the byte budget stay as they
    /// were, so the next call gives what it would have given without this
    /// one. A value outside its annotation is not a failure: it is held back
    /// and reported instead (on_invalid_value).
    status replicate(client_id id, std::span<const std::uint8_t>& out) { return core_.replicate(id, out); }

    /// Applies an ack from the client: the packets it names become
    /// baselines. Malformed or forged acks change nothing. A handler may
    /// call receive() for another client; for its own client (whose packet
    /// is still being read) it reads nothing and returns would_block.
    status receive(client_id id, std::span<const std::uint8_t> bytes) { return core_.receive(id, bytes); }

    const server_client_statistics* statistics(client_id id) const noexcept { return core_.statistics(id); }

    /// Called inside receive() for each new input, in tick order (each
    /// input once; redundant copies are dropped). When it throws, the
    /// exception leaves receive() and the packet's later inputs are not
    /// acknowledged: the client sends them again, and they are delivered
    /// with its next packet.
    void on_input(input_function f)
        requires has_inputs
    {
        on_input_ = std::move(f);
    }

    /// The inputs the client's latest accepted packet delivered, in tick
    /// order (a refused packet leaves them as they were).
    std::span<const received_input<Input>> inputs(client_id id) const noexcept
        requires has_inputs
    {
        const parts* c = parts_of(id);
        return c != nullptr ? c->inputs.delivered() : std::span<const received_input<Input>>();
    }

    const replication::input_statistics* input_statistics(client_id id) const noexcept
        requires has_inputs
    {
        const parts* c = parts_of(id);
        return c != nullptr ? &c->inputs.statistics() : nullptr;
    }

    /// Queues a message for one client (docs/design/replication-server.md, "Messages"):
    /// would_block when that client's queue of the channel is full, the
    /// value's path when it cannot be encoded or is larger than a packet
    /// can carry.
    template <class T>
    status send(client_id id, const T& message, channel ch)
        requires has_messages
    {
        parts* c = parts_of(id);
        if (c == nullptr) [[unlikely]]
            return status(error::unknown_client, 0, "client", "no such client");
        return c->port.send(message, ch);
    }

    /// send() to every client; the first failure is returned, and the
    /// clients it did not fail for have the message queued.
    template <class T>
    status broadcast(const T& message, channel ch)
        requires has_messages
    {
        status first;
        for (std::size_t id = 0; id < core_.client_ids(); ++id) {
            parts* c = parts_of(static_cast<client_id>(id));
            if (c == nullptr)
                continue;
            status result = c->port.send(message, ch);
            if (!result && first)
                first = result;
        }
        return first;
    }

    /// `f(client_id, const T&)` receives the clients' messages of type T,
    /// inside receive().
    template <class T, class F>
    void on_message(F&& f)
        requires has_messages
    {
        handlers_.template set<T>(std::forward<F>(f));
    }

    const message_statistics* messages(client_id id) const noexcept
        requires has_messages
    {
        const parts* c = parts_of(id);
        return c != nullptr ? &c->port.endpoint().statistics() : nullptr;
    }

    /// The state packet `sequence` brought the client to, while it is in the
    /// window and the world history still holds its values (for tests and
    /// tools: what the client must hold after it). It holds the client's
    /// view of every replicated field (its conditions applied) and the
    /// world's values of the rest (save_only fields), which the client never
    /// receives: compare it with the client's state by replicated_equal(),
    /// not by bytes.
    std::optional<State> sent_state(client_id id, std::uint16_t sequence) const
    {
        std::optional<State> out(std::in_place);
        if (!core_.sent_state(id, sequence, &*out))
            return std::nullopt;
        return out;
    }

    /// The bytes the server holds for one client (its views, baseline,
    /// priorities and buffers), and for all clients together (the world
    /// history), as docs/design/replication-server.md,
    /// "The server at scale: one world history, views as refs", counts them.
    std::size_t client_bytes(client_id id) const noexcept
    {
        const std::size_t bytes = core_.client_bytes(id);
        return bytes != 0 && has_parts ? bytes + sizeof(parts) : bytes;
    }
    std::size_t shared_bytes() const noexcept { return sizeof(*this) + core_.shared_bytes(); }

private:
    static constexpr bool has_parts = has_inputs || has_messages;

    /// A callback on the State as server_core takes it: on the State's
    /// address (an empty one stays empty).
    template <class R>
    static std::function<R(client_id, entity_key, const void*)>
    on_state(std::function<R(client_id, entity_key, const State&)> f)
    {
        if (!f)
            return nullptr;
        return [f = std::move(f)](client_id c, entity_key key, const void* state) {
            return f(c, key, *static_cast<const State*>(state));
        };
    }

    static replication_options with_protocol(replication_options options) noexcept
    {
        options.protocol_id = replication::protocol_id_for<Input, Messages>(options.protocol_id);
        return options;
    }

    /// A client's inputs, and its messages both ways.
    struct parts final : replication::connection_parts {
        using inputs_type = replication::optional_part<has_inputs, replication::input_receiver<Input>>;
        using port_holder = replication::optional_part<has_messages, port_type>;

        explicit parts(const replication_server& owner)
            : server(owner), inputs(replication::make_part<inputs_type>(owner.core_.options())),
              port(replication::make_part<port_holder>(
                  owner.core_.options(), owner.core_.message_other_bits(replication::message_framing_bits<Messages>,
                                                                        has_inputs)))
        {
        }
        std::optional<replication::input_ack> inputs_ack() const noexcept override
        {
            if constexpr (has_inputs)
                return inputs.ack();
            else
                return std::nullopt;
        }
        replication::message_endpoint* messages() noexcept override
        {
            if constexpr (has_messages)
                return &port.endpoint();
            else
                return nullptr;
        }
        bool read(replication::message_read_stream& stream) override
        {
            if constexpr (has_inputs) {
                if (!inputs.read(stream)) [[unlikely]]
                    return false;
            }
            if constexpr (has_messages) {
                if (!port.read(stream)) [[unlikely]]
                    return false;
            }
            static_cast<void>(stream);
            return true;
        }
        void apply(client_id id, const bool& removed, std::span<const std::uint8_t> body) override
        {
            if constexpr (has_inputs) {
                inputs.apply();
                if (!server.on_input_)
                    inputs.deliver_all();
                // One at a time, each acknowledged as it is handed over: the
                // inputs after one whose handler throws come again with the
                // client's next packet. A handler that removed the client
                // ends its deliveries.
                while (server.on_input_ && !removed)
                    if (const received_input<Input>* input = inputs.next())
                        server.on_input_(id, input->tick, input->input);
                    else
                        break;
            }
            if constexpr (has_messages)
                port.apply_until(removed, body, server.handlers_, id);
            static_cast<void>(id), static_cast<void>(removed), static_cast<void>(body);
        }

        const replication_server& server;
        [[no_unique_address]] inputs_type inputs;
        [[no_unique_address]] port_holder port;
    };
    parts* parts_of(client_id id) const noexcept { return static_cast<parts*>(core_.parts(id)); }

    /// The entity type of `Member`, a pointer to an entity array of State
    /// (not_an_entity for anything else, which entity_callback refuses).
    template <auto Member>
    using member_entity = typename replication::entity_array_traits<
        typename replication::member_pointer_traits<decltype(Member)>::member_type>::entity;

    /// Whether f of type F is a callback for the entities of the entity
    /// array Member names, called as Signature. When Member is not an entity
    /// array of the State, or F cannot be called so, the refusal (naming it)
    /// and false, so that nothing more is compiled for it.
    template <auto Member, class F, class Signature>
    static constexpr bool entity_callback()
    {
        using traits = replication::member_pointer_traits<decltype(Member)>;
        if constexpr (!std::is_same_v<typename traits::class_type, State>) {
            static_assert(replication::state_field<Member>,
                          "bitrep: a per-entity callback takes a field of the State, e.g. "
                          "set_priority<&World::cubes>(f)");
            return false;
        } else if constexpr (!replication::entity_array_traits<typename traits::member_type>::value) {
            static_assert(replication::entity_array_field<Member>,
                          "bitrep: a per-entity callback (set_priority, set_relevancy, set_owner<&State::field>) "
                          "takes an entity_array field of the State; set_priority(f) and set_relevancy(f) without a "
                          "field take every entity");
            return false;
        } else {
            static_assert(replication::callable_as<F, Signature>,
                          "bitrep: this per-entity callback cannot be called as the condition's function type: "
                          "set_priority<&State::field>(f) needs f(client_id, std::uint32_t id, const Entity&) "
                          "returning a float, set_relevancy<&State::field>(f) the same returning a bool, "
                          "set_owner<&State::field>(f) needs f(std::uint32_t id, const Entity&) returning a "
                          "std::optional<client_id>");
            return replication::callable_as<F, Signature>;
        }
    }

    template <auto Member>
    static std::size_t member_field() noexcept
    {
        return replication::field_index_of(*static_cast<const State*>(replication::layout_of<State>().state_defaults),
                                           Member);
    }

    /// Reports every top-level field and entity of `state` whose value
    /// cannot be encoded (server_core's find_unencodable).
    static void find_unencodable(const void* state, void* context, replication::unencodable_report report)
    {
        if constexpr (reflected)
            find_unencodable_fields(*static_cast<const State*>(state), context, report);
    }
    static void find_unencodable_fields(const State& world, void* context, replication::unencodable_report report)
    {
        std::vector<std::uint8_t> scratch;
        replication::for_each_field_index<State>([&](auto index) {
            constexpr std::size_t I = decltype(index)::value;
            const auto& field = reflect::field_at<I>(world);
            if constexpr (replication::is_entity_field<State, I>) {
                constexpr std::size_t first = replication::entity_slots_before<State, I>;
                const auto& slots = field.slots();
                for (std::size_t slot = 0; slot < slots.size(); ++slot) {
                    if (!slots[slot].has_value())
                        continue;
                    const entity_key key{static_cast<std::uint16_t>(I), static_cast<std::uint32_t>(slot)};
                    if (status why = encodable<I>(*slots[slot], key.id, scratch); !why)
                        report(context, first + slot, key, why);
                }
            } else {
                const entity_key key{static_cast<std::uint16_t>(I), entity_key::whole_field};
                if (status why = encodable<I>(field, key.id, scratch); !why)
                    report(context, replication::entity_slots_before<State> + I, key, why);
            }
        });
    }

    /// The failure of encoding `value`, top-level field I of the State (or
    /// its entity `slot`), in the replication scope, with the path from the
    /// State's root (`World.cubes[12].hp`); ok when it encodes.
    template <std::size_t I, class T>
    static status encodable(const T& value, std::uint32_t slot, std::vector<std::uint8_t>& scratch)
    {
        failure_record measured;
        basic_measure_stream<scope::replication> measure(measured);
        static_cast<void>(detail::write_value<detail::path_of<T>>(measure, value));
        scratch.resize((measure.exact_bits() + 7) / 8 + 8);
        failure_record failure;
        basic_write_stream<scope::replication> stream(scratch, failure);
        if (detail::write_value<detail::path_of<T>>(stream, value))
            return {};
        if (slot != entity_key::whole_field)
            failure.enter_index(slot);
        detail::enter_field(failure, reflect::field_id_at<State, I>());
        return stream.failure_status(reflect::type_name<State>());
    }

    replication::server_core core_;
    [[no_unique_address]] replication::optional_part<has_inputs, input_function> on_input_;
    [[no_unique_address]] replication::optional_part<has_messages, typename port_type::handlers_type> handlers_;
};

} // namespace bitrep
