// An arena client: its own UDP socket, a bitrep::link_simulator between
// the socket and the bitrep::replication_client (the loopback interface
// loses nothing, so the simulator supplies the bad network), and its acks.
#pragma once

#include <cstdint>
#include <span>

#include <bitrep/replication.hpp>

#include "network.hpp"
#include "world.hpp"

namespace arena {

class client {
public:
    client(asio::io_context& io, const udp::endpoint& server, const bitrep::replication_options& options,
           const bitrep::link_conditions& link, std::uint64_t seed)
        : socket_(open_loopback_socket(io)), endpoint_(socket_.local_endpoint()), server_(server),
          replication_(options), link_(link, seed)
    {
    }

    const udp::endpoint& endpoint() const noexcept { return endpoint_; }

    /// A hello until the first state arrives (the server may not know this
    /// client yet), then the ack of what was applied. Either may be lost;
    /// the next tick sends another.
    void send()
    {
        const std::span<const std::uint8_t> bytes = replication_.has_state() ? replication_.ack() : std::span<const std::uint8_t>(hello);
        static_cast<void>(send_datagram(socket_, server_, bytes));
    }

    /// Puts every datagram from the server into the link simulator at
    /// now_ms, then applies what the link delivers by now_ms, calling
    /// applied() after each packet that was applied.
    template <class Applied>
    void receive(double now_ms, Applied&& applied)
    {
        for_each_datagram(socket_, [&](const udp::endpoint& from, std::span<const std::uint8_t> bytes) {
            if (from == server_)
                link_.send(bytes, now_ms);
        });
        // A refused packet (stale, no baseline, corrupt) leaves the state as
        // it was; the client's statistics count it.
        link_.receive(now_ms, [&](std::span<const std::uint8_t> bytes) {
            if (replication_.receive(bytes))
                applied();
        });
    }

    void clear_link() { link_.set_conditions({}); }

    const bitrep::replication_client<World>& replication() const noexcept { return replication_; }
    const bitrep::link_simulator& link() const noexcept { return link_; }

private:
    udp::socket socket_;
    udp::endpoint endpoint_;
    udp::endpoint server_;
    bitrep::replication_client<World> replication_;
    bitrep::link_simulator link_;
};

} // namespace arena
