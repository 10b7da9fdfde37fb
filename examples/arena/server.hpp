// The arena's server: one UDP socket, a bitrep::replication_server, and
// what it sent to each client it learned of.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include <bitrep/replication.hpp>

#include "network.hpp"
#include "world.hpp"

namespace arena {

class server {
public:
    struct peer {
        udp::endpoint endpoint;
        bitrep::client_id id = 0;
        std::uint64_t bytes = 0;              ///< UDP payload sent
        std::uint64_t peak_second_bytes = 0;  ///< the most sent in one second (tick_rate ticks)
        std::uint64_t second_bytes = 0;       ///< sent in the current second
        std::uint64_t send_failures = 0;      ///< datagrams the socket had no room for
        std::uint64_t full_packets = 0;       ///< packets that left out entities for want of room
        std::uint64_t last_full_tick = 0;     ///< the last tick such a packet was sent
    };

    server(asio::io_context& io, const bitrep::replication_options& options)
        : socket_(open_loopback_socket(io)), replication_(options),
          ticks_per_second_(static_cast<std::uint32_t>(options.tick_rate))
    {
    }

    udp::endpoint endpoint() const { return socket_.local_endpoint(); }

    /// Reads what the clients sent: a hello from a new endpoint makes it a
    /// client; anything else from a client is its ack.
    void receive()
    {
        for_each_datagram(socket_, [this](const udp::endpoint& from, std::span<const std::uint8_t> bytes) {
            if (const peer* known = find(from)) {
                if (!is_hello(bytes)) // the statistics count an ack that is refused
                    static_cast<void>(replication_.receive(known->id, bytes));
            } else if (is_hello(bytes)) {
                peers_.push_back({from, replication_.add_client()});
            }
        });
    }

    /// Sends every client its packet for this tick.
    void send(const World& world)
    {
        const bool new_second = ticks_ % ticks_per_second_ == 0;
        ++ticks_;
        for (peer& p : peers_) {
            if (new_second)
                p.second_bytes = 0;
            const std::uint64_t deferred = replication_.statistics(p.id)->entities_deferred;
            const std::span<const std::uint8_t> packet = replication_.replicate(p.id, world);
            if (replication_.statistics(p.id)->entities_deferred != deferred) {
                ++p.full_packets;
                p.last_full_tick = ticks_;
            }
            if (!send_datagram(socket_, p.endpoint, packet)) {
                ++p.send_failures;
                continue;
            }
            p.bytes += packet.size();
            p.second_bytes += packet.size();
            p.peak_second_bytes = std::max(p.peak_second_bytes, p.second_bytes);
        }
    }

    const peer* find(const udp::endpoint& endpoint) const
    {
        const auto at = std::find_if(peers_.begin(), peers_.end(), [&](const peer& p) { return p.endpoint == endpoint; });
        return at != peers_.end() ? &*at : nullptr;
    }

    const std::vector<peer>& peers() const noexcept { return peers_; }
    const bitrep::replication_server<World>& replication() const noexcept { return replication_; }

private:
    udp::socket socket_;
    bitrep::replication_server<World> replication_;
    std::vector<peer> peers_;
    std::uint32_t ticks_per_second_;
    std::uint64_t ticks_ = 0;
};

} // namespace arena
