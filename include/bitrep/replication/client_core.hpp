// The replication client compiled once in the library: everything
// replication_client<State, Input, Messages> does, run over the State's
// layout (state_layout.hpp). The class template keeps only what is typed:
// the State it hands out, the inputs and the messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include <bitrep/replication/message_channel.hpp>
#include <bitrep/replication/packet.hpp>
#include <bitrep/replication/security.hpp>
#include <bitrep/status.hpp>

namespace bitrep {

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
    /// Slices taken of state packets too large for one datagram, before
    /// the one that completed each (counted as applied).
    std::uint64_t slices = 0;
};

namespace replication {

struct state_layout;

/// What a client's packets carry besides the state and the acks: its
/// inputs and the messages both ways, typed by the client's Input and
/// Messages. Handed to each call, as a client is copied and moved with its
/// typed parts.
class client_sections {
public:
    /// A state packet's sections after its header (the input ack, the
    /// messages), read and checked; nothing is applied yet.
    virtual bool read(message_read_stream& stream) = 0;
    /// Acts on what read() found, once the packet is applied; `bytes` is
    /// the span the stream read.
    virtual void apply(std::span<const std::uint8_t> bytes) = 0;
    /// Writes the client packet's inputs and messages after its ack, within
    /// `room` bits; `packet` numbers the packet for the message channels.
    virtual void write(message_write_stream& stream, std::size_t room, std::uint64_t packet) = 0;
    /// The packet written last was sealed (commit) or not (cancel).
    virtual void commit(std::uint64_t packet) noexcept = 0;
    virtual void cancel() noexcept = 0;

protected:
    client_sections() = default;
    client_sections(const client_sections&) = default;
    client_sections& operator=(const client_sections&) = default;
    ~client_sections() = default;
};

/// replication_client's work, on the State as data (docs/design/replication-server.md).
/// Copied, it applies packets as its original does and seals none on the
/// AEAD path; moved from, it refuses every call.
class client_core {
public:
    client_core(const state_layout& layout, const replication_options& options, const packet_key& key,
                std::uint64_t connection_id);
    client_core(const client_core& other);
    client_core& operator=(const client_core& other);
    client_core(client_core&& other) noexcept;
    client_core& operator=(client_core&& other) noexcept;
    ~client_core();

    /// Applies a state packet, all or nothing; `before` receives the state
    /// it replaced (valid until the next packet).
    status receive(std::span<const std::uint8_t> bytes, client_sections* sections, const void*& before);
    /// The client's packet: the acks, then the sections' inputs and messages.
    status packet(std::span<const std::uint8_t>& out, client_sections* sections);
    /// The newest state applied (the default State before the first packet).
    const void* state() const noexcept;
    bool has_state() const noexcept;
    std::uint16_t sequence() const noexcept;
    const client_statistics& statistics() const noexcept;
    /// Calls report(context, change) for each change from `before` to
    /// `after`, in field order (entities by slot).
    void changes(const void* before, const void* after, void* context,
                 void (*report)(void* context, const state_change& change)) const;

    class impl;

private:
    const state_layout* layout_;
    std::unique_ptr<impl> impl_;
};

} // namespace replication
} // namespace bitrep
