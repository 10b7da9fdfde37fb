// The replication server compiled once in the library: everything
// replication_server<State, Input, Messages> does, run over the State's
// layout (state_layout.hpp). The class template keeps only what is typed:
// its callbacks' signatures, the inputs and the messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>

#include <bitrep/replication/ids.hpp>
#include <bitrep/replication/inputs.hpp>
#include <bitrep/replication/message_channel.hpp>
#include <bitrep/replication/packet.hpp>
#include <bitrep/replication/security.hpp>
#include <bitrep/status.hpp>

namespace bitrep {

/// What the server did for one client so far.
struct server_client_statistics {
    std::uint64_t packets_sent = 0;
    std::uint64_t bytes_sent = 0;
    std::uint64_t full_states = 0;       ///< packets encoded against the default state (no acked baseline)
    std::uint64_t entities_sent = 0;     ///< entity slots written (created, changed or removed)
    std::uint64_t entities_deferred = 0; ///< entity slots that needed sending but did not fit, summed over ticks
    std::uint64_t in_flight_dropped = 0; ///< of those, slots sent since the baseline: the client steps back to the baseline's
    std::uint64_t acks_received = 0;
    std::uint64_t acks_refused = 0;
    std::size_t last_packet_bytes = 0;
    /// With the coded encoding: packets built a second time because the
    /// coded packet overflowed its budget, and packets sent bit-packed
    /// after that too failed (both rare; see replication_options::encoding).
    std::uint64_t coded_rebuilds = 0;
    std::uint64_t bit_packed_fallbacks = 0;
    /// Coded packets whose state section was copied from another client's
    /// packet of the same tick built from the same views, and entity deltas
    /// copied rather than encoded in bit-packed packets (docs/design/replication-server.md,
    /// "The server at scale: one world history, views as refs").
    std::uint64_t shared_sections = 0;
    std::uint64_t shared_entity_deltas = 0;
    /// Acknowledged packets that could not become the baseline because the
    /// world history no longer had a value of their view (the baseline
    /// before stayed; see replication_options::history).
    std::uint64_t baselines_skipped = 0;
    /// State packets too large for one datagram (a joining client's first,
    /// say), and the slices they went in, resent ones included
    /// (replication_options::max_state_bytes).
    std::uint64_t large_states = 0;
    std::uint64_t slices_sent = 0;
};

namespace replication {

struct state_layout;

/// What a client's packets carry besides the state: its inputs and the
/// messages both ways, typed by the server's Input and Messages.
class connection_parts {
public:
    connection_parts() = default;
    connection_parts(const connection_parts&) = delete;
    connection_parts& operator=(const connection_parts&) = delete;
    virtual ~connection_parts() = default;
    /// The input ack the next state packet carries; nullopt without inputs.
    virtual std::optional<input_ack> inputs_ack() const noexcept = 0;
    /// The messages both ways; nullptr without messages.
    virtual message_endpoint* messages() noexcept = 0;
    /// Reads the inputs and messages of a client's packet (after its ack),
    /// applying nothing yet.
    virtual bool read(message_read_stream& stream) = 0;
    /// Delivers what read() found, once the packet is accepted; stops once
    /// `removed` turns true (a handler removed the client).
    virtual void apply(client_id id, const bool& removed, std::span<const std::uint8_t> body) = 0;
};

/// The failure of encoding one top-level field of a State, or one entity:
/// report(context, index, key, why) for each, where index is the entity's
/// slot, or the slot count plus the field.
using unencodable_report = void (*)(void* context, std::size_t index, entity_key key, const status& why);
/// Calls report for every top-level field and entity of `state` that
/// cannot be encoded.
using find_unencodable_function = void (*)(const void* state, void* context, unencodable_report report);

/// replication_server's work, on the State as data (docs/design/replication-server.md).
class server_core {
public:
    using priority_function = std::function<float(client_id, entity_key, const void* state)>;
    using relevancy_function = std::function<bool(client_id, entity_key, const void* state)>;
    using entity_priority_function = std::function<float(client_id, std::uint32_t id, const void* entity)>;
    using entity_relevancy_function = std::function<bool(client_id, std::uint32_t id, const void* entity)>;
    using entity_owner_function = std::function<std::optional<client_id>(std::uint32_t id, const void* entity)>;
    using invalid_value_function = std::function<void(entity_key, const status&)>;

    server_core(const state_layout& layout, const replication_options& options, find_unencodable_function find);
    ~server_core();
    server_core(const server_core&) = delete;
    server_core& operator=(const server_core&) = delete;

    const replication_options& options() const noexcept;
    /// What a state packet holds besides one message, at the most: the
    /// bound a message must leave room for (message framing bits given).
    std::size_t message_other_bits(std::size_t framing_bits, bool inputs) const noexcept;

    client_id add_client(const packet_key& key, std::uint64_t connection_id, std::unique_ptr<connection_parts> parts);
    void remove_client(client_id id) noexcept;
    bool has_client(client_id id) const noexcept;
    /// The client's inputs and messages (nullptr: no such client, or none).
    connection_parts* parts(client_id id) const noexcept;
    /// Ids below this may name clients.
    std::size_t client_ids() const noexcept;

    void set_priority(priority_function f);
    void set_relevancy(relevancy_function f);
    void set_priority(std::size_t field, entity_priority_function f);
    void set_relevancy(std::size_t field, entity_relevancy_function f);
    void set_owner(std::size_t field, entity_owner_function f);
    void on_invalid_value(invalid_value_function f);

    void update(const void* state);
    status replicate(client_id id, std::span<const std::uint8_t>& packet);
    status receive(client_id id, std::span<const std::uint8_t> bytes);
    const server_client_statistics* statistics(client_id id) const noexcept;
    /// Makes `out`, a default State, the view packet `sequence` brought the
    /// client to; false when it cannot (see replication_server::sent_state).
    bool sent_state(client_id id, std::uint16_t sequence, void* out) const;
    std::size_t client_bytes(client_id id) const noexcept;
    std::size_t shared_bytes() const noexcept;

    class impl;

private:
    std::unique_ptr<impl> impl_;
};

} // namespace replication
} // namespace bitrep
