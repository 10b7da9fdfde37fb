// replication::server_core: the replication server compiled once, over the
// State's layout (include/bitrep/replication/server_core.hpp). Per client,
// the packet to send each tick, as a delta against the newest state the
// client acknowledged, within a bit budget spent on the entities of
// highest accumulated priority (docs/design/replication-server.md, "Code
// layout"). The parts are in server/: what connections share (shared.hpp),
// each connection's views, schedule and draft (connection.hpp), the
// selection and the packet writer; this file ties them together.
#include <bitrep/replication/server_core.hpp>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include <bitrep/detail/portability.hpp>

#include "server/connection.hpp"
#include "server/scratch.hpp"
#include "server/shared.hpp"
#include "server/writer.hpp"

namespace bitrep::replication {

using server_side::packet_writer;
using server_side::scratch;

/// The server's connections, with slot numbers of type SlotIndex: 2 bytes
/// when the State's entity slots fit them (the per-slot arrays a client
/// holds stay that small), else 4.
template <class SlotIndex>
class indexed_server final : public server_core::impl {
public:
    using impl::impl;
    using connection = server_side::connection<SlotIndex>;

    bool has_client(client_id id) const noexcept override { return find(id) != nullptr; }
    connection_parts* parts(client_id id) const noexcept override
    {
        const connection* c = find(id);
        return c != nullptr ? c->parts.get() : nullptr;
    }
    std::size_t client_ids() const noexcept override { return connections_.size(); }
    const server_client_statistics* statistics(client_id id) const noexcept override
    {
        const connection* c = find(id);
        return c != nullptr ? &c->figures.stats : nullptr;
    }

    client_id add_client(const packet_key& key, std::uint64_t connection_id,
                         std::unique_ptr<connection_parts> parts) override
    {
        auto c = std::make_unique<connection>(*this);
        c->parts = std::move(parts);
        c->guard = packet_guard(options_.security, key, direction::server_to_client, connection_id);
        if (options_.security == packet_security::aead && key.present() && aead_available()) {
            // A reconnection given the key again without a new id would
            // repeat the earlier connection's nonces: refuse it, loudly.
            const std::uint64_t fingerprint = connection_fingerprint(key, connection_id);
            if (std::find(used_pairs_.begin(), used_pairs_.end(), fingerprint) != used_pairs_.end())
                c->guard.refuse_reused_pair();
            else
                used_pairs_.push_back(fingerprint);
        }
        c->guard.open_up_to(largest_packet(options_));
        connections_.push_back(std::move(c));
        return static_cast<client_id>(connections_.size() - 1);
    }

    void remove_client(client_id id) noexcept override
    {
        connection* c = find(id);
        if (c == nullptr)
            return;
        if (in_use_.load(std::memory_order_acquire) == 0) {
            connections_[id].reset();
            return;
        }
        c->removed = true;
        removals_pending_.store(true, std::memory_order_release);
    }

    status replicate(client_id id, std::span<const std::uint8_t>& packet) override
    {
        packet = {};
        connection* c = find(id);
        if (c == nullptr) [[unlikely]]
            return status(error::unknown_client, 0, "client", "no such client");
        if (observed_ == nullptr) [[unlikely]]
            return status(error::no_baseline, 0, "world", "replicate(id, out) before any update(state)");
        // A state packet too large for one datagram goes first, a slice a call.
        if (c->slices.active())
            return send_slice(*c, packet);
        const void* state = observed_;
        // A callback (on_invalid_value, priority, relevancy) may remove this
        // client while its packet is being built.
        const connection_scope in_use(*this);
        scratch_lease lease(*this);
        scratch& work = *lease;
        work.start_tick(history_.tick());
        packet_writer<SlotIndex> writer(*this, *c, work, id, state);
        status result = writer.build();
        if (!result && result.code() == error::value_out_of_range) [[unlikely]] {
            // Some value cannot be encoded: find which, leave those out, and
            // build the packet again without them.
            writer.drop();
            if (mark_unsendable(*c, state))
                result = writer.build();
        }
        forget_unsendable(*c);
        if (!result) [[unlikely]] {
            writer.drop();
            return result;
        }
        if (c->removed) [[unlikely]]
            return status(error::unknown_client, 0, "client", "removed while its packet was built");
        commit(*c);
        if (c->draft.large) {
            c->slices.start(c->draft.header.sequence, c->draft.size,
                            c->packet.size() - c->guard.prefix() - c->guard.suffix() - slice_header::bytes);
            return send_slice(*c, packet);
        }
        packet = std::span<const std::uint8_t>(c->packet.data(), c->draft.size);
        return {};
    }

    status receive(client_id id, std::span<const std::uint8_t> bytes) override
    {
        connection* c = find(id);
        if (c == nullptr) [[unlikely]]
            return status(error::unknown_client, 0, "client", "no such client");
        // Left by return or by a handler's exception alike, so that a throwing
        // handler cannot keep removed connections alive.
        const connection_scope in_use(*this);
        const receiving_flag::scope inside(c->receiving);
        if (status entered = inside.entered(); !entered) [[unlikely]]
            return entered;
        status result;
        {
            const packet_guard::body_scope wiped(c->guard);
            result = apply_client_packet(*c, id, bytes);
        }
        (result ? c->figures.stats.acks_received : c->figures.stats.acks_refused) += 1;
        return result;
    }

    bool sent_state(client_id id, std::uint16_t sequence, void* out) const override
    {
        const connection* c = find(id);
        return c != nullptr && c->views.sent_state(sequence, out);
    }

    std::size_t client_bytes(client_id id) const noexcept override
    {
        const connection* c = find(id);
        return c != nullptr ? c->bytes() : 0;
    }

    std::size_t shared_bytes() const noexcept override
    {
        std::size_t bytes = sizeof(*this) + history_.history_bytes();
        std::lock_guard<std::mutex> lock(scratch_mutex_);
        for (const auto& sc : scratch_free_)
            bytes += sc->bytes(slot_count);
        return bytes;
    }

private:
    /// Takes a scratch from the pool (one per thread replicating at once;
    /// made on first use) and gives it back.
    class scratch_lease {
    public:
        explicit scratch_lease(indexed_server& server) : server_(server)
        {
            std::lock_guard<std::mutex> lock(server_.scratch_mutex_);
            if (server_.scratch_free_.empty()) {
                held_ = std::make_unique<scratch>(server_);
            } else {
                held_ = std::move(server_.scratch_free_.back());
                server_.scratch_free_.pop_back();
            }
        }
        ~scratch_lease()
        {
            std::lock_guard<std::mutex> lock(server_.scratch_mutex_);
            server_.scratch_free_.push_back(std::move(held_));
        }
        scratch_lease(const scratch_lease&) = delete;
        scratch_lease& operator=(const scratch_lease&) = delete;
        scratch& operator*() noexcept { return *held_; }

    private:
        indexed_server& server_;
        std::unique_ptr<scratch> held_;
    };

    /// A receive() or replicate() under way, whose callbacks may remove
    /// clients: the outermost call frees the removed connections when it
    /// ends. Counted atomically, as replicate() runs on several threads.
    class connection_scope {
    public:
        explicit connection_scope(indexed_server& server) noexcept : server_(server)
        {
            server_.in_use_.fetch_add(1, std::memory_order_acq_rel);
        }
        connection_scope(const connection_scope&) = delete;
        connection_scope& operator=(const connection_scope&) = delete;
        ~connection_scope()
        {
            if (server_.in_use_.fetch_sub(1, std::memory_order_acq_rel) != 1 ||
                !server_.removals_pending_.load(std::memory_order_acquire)) [[likely]]
                return;
            server_.removals_pending_.store(false, std::memory_order_relaxed);
            for (auto& removed : server_.connections_)
                if (removed != nullptr && removed->removed)
                    removed.reset();
        }

    private:
        indexed_server& server_;
    };

    /// The client's connection; none once removed (even while a call still
    /// holds it).
    connection* find(client_id id) const noexcept
    {
        connection* c = id < connections_.size() ? connections_[id].get() : nullptr;
        return c != nullptr && !c->removed ? c : nullptr;
    }

    /// The next slice of the connection's large state packet, sealed.
    status send_slice(connection& c, std::span<const std::uint8_t>& packet)
    {
        const std::size_t prefix = c.guard.prefix();
        const std::size_t size = prefix + c.slices.write_next(std::span<std::uint8_t>(c.packet).subspan(prefix)) +
                                 c.guard.suffix();
        const std::span<std::uint8_t> sealed(c.packet.data(), size);
        if (status result = c.guard.seal(options_.protocol_id, packet_kind::slice, sealed); !result) [[unlikely]]
            return result;
        c.figures.stats.slices_sent += 1;
        c.figures.count_bytes(size);
        packet = sealed;
        return {};
    }

    /// The packet exists: its draft becomes the connection's, whole.
    void commit(connection& c) noexcept
    {
        const server_side::packet_draft<SlotIndex>& draft = c.draft;
        const std::uint64_t number = c.figures.stats.packets_sent;
        if (message_endpoint* messages = c.parts ? c.parts->messages() : nullptr)
            messages->commit(number);
        c.views.commit_view(c.draft.view, draft.header);
        c.schedule.keep_waiting(number);
        c.figures = draft.figures;
        c.figures.count_sent(draft.large ? 0 : draft.size, draft.header.has_baseline);
        c.figures.stats.large_states += draft.large ? 1 : 0;
        for (const std::uint32_t index : draft.mended)
            reported_[index].store(false, std::memory_order_relaxed);
    }

    void forget_unsendable(connection& c) noexcept
    {
        if (c.any_unsendable)
            std::fill(c.unsendable.begin(), c.unsendable.end(), std::uint8_t{0});
        c.any_unsendable = false;
    }

    /// After a packet failed on a value outside its annotation: marks every
    /// top-level field and entity of `state` whose value cannot be encoded,
    /// and reports each once. Runs only then, so its cost (an encoding of
    /// every entity) is paid only while some value is broken. Returns
    /// whether it found any.
    BITREP_COLD bool mark_unsendable(connection& c, const void* state)
    {
        forget_unsendable(c);
        struct context {
            indexed_server* server;
            connection* c;
        } marking{this, &c};
        find_unencodable_(state, &marking, [](void* p, std::size_t index, entity_key key, const status& why) {
            auto& to = *static_cast<context*>(p);
            to.server->mark(*to.c, index, key, why);
        });
        return c.any_unsendable;
    }

    void mark(connection& c, std::size_t index, entity_key key, const status& why)
    {
        c.unsendable[index] = 1;
        c.any_unsendable = true;
        if (!reported_[index].exchange(true, std::memory_order_relaxed) && on_invalid_)
            on_invalid_(key, why);
    }

    /// A client's packet: its ack, then its inputs and messages. All or
    /// nothing: every part is checked before any is applied.
    status apply_client_packet(connection& c, client_id id, std::span<const std::uint8_t> bytes)
    {
        // The packet's body: after the CRC, or decrypted once authentic.
        std::span<const std::uint8_t> body;
        if (status opened = c.guard.open(options_.protocol_id, packet_kind::ack, bytes, body); !opened)
            return opened;
        failure_record failure;
        message_read_stream stream(body, failure);
        ack_record ack;
        slice_ack slices;
        if (!ack.serialize(stream) || !slices.serialize(stream)) [[unlikely]]
            return stream.failure_status("ack");
        if (c.parts && !c.parts->read(stream)) [[unlikely]]
            return stream.failure_status("packet");
        if (!stream.serialize_align()) [[unlikely]]
            return stream.failure_status("packet");
        if (stream.bit_position() / 8 != body.size()) [[unlikely]]
            return status(error::trailing_data, 8 * c.guard.prefix() + stream.bit_position(), "packet",
                          "whole bytes left over after the client's packet");
        if (status acked = c.views.apply_ack(ack, c.figures.stats.packets_sent); !acked) [[unlikely]]
            return acked;
        if (c.slices.active() && acknowledges(ack, c.slices.sequence()))
            c.slices.finish(); // the client applied the large packet
        c.slices.acknowledged(slices);
        if (c.parts)
            c.parts->apply(id, c.removed, body);
        return {};
    }

    std::vector<std::unique_ptr<connection>> connections_;
    /// receive() and replicate() calls under way (a handler may call them
    /// again, receive() for another client only).
    std::atomic<int> in_use_{0};
    std::atomic<bool> removals_pending_{false}; ///< some connection is marked removed
    /// connection_fingerprint of every (key, connection id) pair given to
    /// add_client on the AEAD path: 8 bytes per connection ever added.
    std::vector<std::uint64_t> used_pairs_;
    /// Scratch states lent to replicate() calls (see scratch_lease).
    mutable std::mutex scratch_mutex_;
    std::vector<std::unique_ptr<scratch>> scratch_free_;
};

server_core::server_core(const state_layout& layout, const replication_options& options, find_unencodable_function find)
    : impl_(layout.slot_count <= 0xFFFF
                ? std::unique_ptr<impl>(std::make_unique<indexed_server<std::uint16_t>>(layout, options, find))
                : std::unique_ptr<impl>(std::make_unique<indexed_server<std::uint32_t>>(layout, options, find)))
{
}
server_core::~server_core() = default;

const replication_options& server_core::options() const noexcept { return impl_->options_; }
std::size_t server_core::message_other_bits(std::size_t framing_bits, bool inputs) const noexcept
{
    return impl_->message_other_bits(framing_bits, inputs);
}
client_id server_core::add_client(const packet_key& key, std::uint64_t connection_id,
                                  std::unique_ptr<connection_parts> parts)
{
    return impl_->add_client(key, connection_id, std::move(parts));
}
void server_core::remove_client(client_id id) noexcept { impl_->remove_client(id); }
bool server_core::has_client(client_id id) const noexcept { return impl_->has_client(id); }
connection_parts* server_core::parts(client_id id) const noexcept { return impl_->parts(id); }
std::size_t server_core::client_ids() const noexcept { return impl_->client_ids(); }
void server_core::set_priority(priority_function f) { impl_->priority_ = std::move(f); }
void server_core::set_relevancy(relevancy_function f) { impl_->relevant_ = std::move(f); }
void server_core::set_priority(std::size_t field, entity_priority_function f)
{
    impl_->typed_priority_[field] = std::move(f);
}
void server_core::set_relevancy(std::size_t field, entity_relevancy_function f)
{
    impl_->typed_relevant_[field] = std::move(f);
}
void server_core::set_owner(std::size_t field, entity_owner_function f) { impl_->typed_owner_[field] = std::move(f); }
void server_core::on_invalid_value(invalid_value_function f) { impl_->on_invalid_ = std::move(f); }
void server_core::update(const void* state) { impl_->update(state); }
status server_core::replicate(client_id id, std::span<const std::uint8_t>& packet)
{
    return impl_->replicate(id, packet);
}
status server_core::receive(client_id id, std::span<const std::uint8_t> bytes) { return impl_->receive(id, bytes); }
const server_client_statistics* server_core::statistics(client_id id) const noexcept
{
    return impl_->statistics(id);
}
bool server_core::sent_state(client_id id, std::uint16_t sequence, void* out) const
{
    return impl_->sent_state(id, sequence, out);
}
std::size_t server_core::client_bytes(client_id id) const noexcept { return impl_->client_bytes(id); }
std::size_t server_core::shared_bytes() const noexcept { return impl_->shared_bytes(); }

} // namespace bitrep::replication
