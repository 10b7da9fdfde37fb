// A packet being built: everything building it changes of its connection,
// kept apart until the packet exists. indexed_server::commit applies it
// whole; a failed build drops it whole, and the next build starts it again
// from the connection.
#pragma once

#include <cstdint>
#include <vector>

#include "views.hpp"

namespace bitrep::replication::server_side {

/// A connection's figures: its statistics, its byte tokens, and the coded
/// bits per bit-packed bit of the entity selection's estimate, learnt from
/// its full packets (the selection may plan budget / coded_ratio
/// bit-packed bits).
struct connection_figures {
    server_client_statistics stats;
    double tokens = 0;
    double coded_ratio = 1.0;

    /// Counts a packet of `size` bytes sent (a full state unless it had a
    /// baseline); a large one's bytes are counted slice by slice.
    void count_sent(std::size_t size, bool has_baseline) noexcept
    {
        stats.packets_sent += 1;
        stats.full_states += has_baseline ? 0 : 1;
        count_bytes(size);
    }
    void count_bytes(std::size_t size) noexcept
    {
        stats.bytes_sent += size;
        stats.last_packet_bytes = size;
        tokens -= static_cast<double>(size);
    }
};

/// What a build writes outside the draft holds whatever becomes of the
/// packet: the baseline made into values and what the selection learnt of
/// it (the slots found to differ or not), the candidates' places, the
/// scratch.
template <class SlotIndex>
struct packet_draft {
    packet_header header;
    std::size_t size = 0;
    /// Too large for one datagram: its body is in the connection's slice
    /// sender, `size` bytes, to go in slices.
    bool large = false;
    /// The view the packet brings the client to.
    view_draft<SlotIndex> view;
    /// The connection's figures as they are once the packet is sent.
    connection_figures figures;
    std::vector<std::uint32_t> mended; ///< reported values the packet sends as they are

    /// A new draft on the connection's figures (`ratio`: the coded ratio to
    /// plan with; `rebuilds`: the coded packets built again so far).
    void start(const connection_figures& now, double ratio, std::uint64_t rebuilds)
    {
        header = {};
        size = 0;
        large = false;
        figures = now;
        figures.coded_ratio = ratio;
        figures.stats.coded_rebuilds = rebuilds;
        mended.clear();
    }
};

} // namespace bitrep::replication::server_side
