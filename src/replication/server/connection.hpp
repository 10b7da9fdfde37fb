// One client's connection on the server, in its parts: the views it holds
// (client_views), the scheduler's state (client_schedule), the packet being
// built (packet_draft), its figures, and the transport's (guard, packet,
// inputs and messages).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "../slices.hpp"
#include "draft.hpp"
#include "schedule.hpp"
#include "views.hpp"
#include <bitrep/replication/security.hpp>

namespace bitrep::replication::server_side {

/// Everything replicate() touches belongs to one connection (or is read
/// only, or atomic), so replicate() for different clients may run on
/// different threads (docs/design/threads.md, "Replication").
template <class SlotIndex>
struct connection {
    explicit connection(const server_shared& s) : views(s), schedule(s), unsendable(s.slot_count + s.field_count, 0)
    {
        draft.view.fields = s.default_fields_;
        draft.view.refs.assign(s.slot_count, empty_ref);
        draft.view.sent.assign(s.difference_limit + 1, 0);
        draft.mended.reserve(s.slot_count + s.field_count);
        packet.assign(s.options_.max_packet_bytes, 0);
        figures.tokens = static_cast<double>(s.options_.max_packet_bytes);
        // The client's own copies of the entities of arrays with conditions.
        conditioned.resize(s.field_count);
        for (const entity_array_layout& array : s.layout_.arrays)
            if (!array.shared)
                conditioned[array.field] = server_shared::kept_object(s.layout_.kept[array.kept_index]);
    }

    bool removed = false; ///< by remove_client() during a call: freed when the outermost returns
    client_views<SlotIndex> views;
    client_schedule<SlotIndex> schedule;
    packet_draft<SlotIndex> draft;
    connection_figures figures;
    /// Per entity slot, then per top-level field: its current value cannot
    /// be encoded, so this replicate() call keeps the client's last one
    /// (cleared when the call ends).
    std::vector<std::uint8_t> unsendable;
    bool any_unsendable = false;
    std::vector<std::uint8_t> packet;
    packet_guard guard; ///< seals its state packets, opens its client's packets
    slice_sender slices; ///< a state packet too large for one datagram, on its way
    receiving_flag receiving; ///< inside receive() for this client
    /// Per entity array whose entity has replication conditions, an object
    /// of its type holding this client's copies.
    std::vector<std::shared_ptr<void>> conditioned; ///< by top-level field, made by the field's ops
    /// The client's inputs, and the messages both ways (nullptr: none).
    std::unique_ptr<connection_parts> parts;

    /// Whether value `index` (entity slot, then top-level field) is kept as
    /// the client has it in this call.
    bool keeps(std::size_t index) const noexcept { return any_unsendable && unsendable[index] != 0; }

    /// A value reported as unencodable went out as it is: once the packet
    /// exists (commit), it counts as mended and is reported again if it
    /// breaks again.
    void note_sent_as_is(const server_shared& s, std::size_t index)
    {
        if (s.reported_[index].load(std::memory_order_relaxed)) [[unlikely]]
            draft.mended.push_back(static_cast<std::uint32_t>(index));
    }

    std::size_t bytes() const noexcept
    {
        std::size_t bytes = sizeof(connection) + views.bytes() + schedule.bytes();
        bytes += draft.view.sent.capacity() * sizeof(SlotIndex) + draft.view.refs.capacity() * sizeof(value_ref);
        bytes += unsendable.capacity() + draft.mended.capacity() * sizeof(std::uint32_t) + packet.capacity() +
                 slices.bytes();
        return bytes;
    }
};

} // namespace bitrep::replication::server_side
