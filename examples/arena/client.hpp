// An arena client: its own UDP socket, a bitrep::replication_client, and a
// bitrep::link_simulator each way between them and the network (the
// loopback interface loses nothing, so the simulators supply the bad
// network). Each tick it sends one packet: its ack, its scripted input, and
// now and then a chat line or a push.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include <bitrep/replication.hpp>

#include "network.hpp"
#include "server.hpp"
#include "world.hpp"

namespace arena {

using replication_client = bitrep::replication_client<World, PlayerInput, Messages>;

class client {
public:
    client(asio::io_context& io, const udp::endpoint& server, const bitrep::replication_options& options,
           const bitrep::packet_key& key, const bitrep::link_conditions& link, std::uint64_t seed, std::uint32_t index)
        : socket_(open_loopback_socket(io)), endpoint_(socket_.local_endpoint()), server_(server),
          replication_(options, key), down_(link, seed), up_(link, seed ^ 0x5eed0000u), index_(index)
    {
        replication_.on_message<Chat>([this](const Chat& chat) { relayed_.arrived(chat.serial.get()); });
        replication_.on_message<Score>([this](const Score&) { ++scores_; });
    }

    const udp::endpoint& endpoint() const noexcept { return endpoint_; }

    /// A hello until the first state arrives (the server may not know this
    /// client yet), then the client's packet. Either may be lost; the next
    /// tick sends another. While `playing`, the packet carries this tick's
    /// input, a chat line every 30 ticks and a push every 90.
    void send(std::uint64_t tick, double now_ms, bool playing)
    {
        if (!replication_.has_state()) {
            up_.send(hello, now_ms);
        } else {
            if (playing) {
                if (replication_.send_input(static_cast<std::uint32_t>(tick), scripted_input(index_, tick)))
                    ++inputs_sent_;
                if (tick % 30 == index_ % 30)
                    queue_chat();
                if (tick % 90 == index_ % 90)
                    queue_push();
            }
            const std::span<const std::uint8_t> packet = replication_.packet();
            up_.send(packet, now_ms);
        }
        up_.receive(now_ms, [&](std::span<const std::uint8_t> bytes) {
            if (send_datagram(socket_, server_, bytes))
                bytes_sent_ += bytes.size();
        });
    }

    /// Puts every datagram from the server into the link simulator at
    /// now_ms, then applies what the link delivers by now_ms, calling
    /// applied() after each packet that was applied.
    template <class Applied>
    void receive(double now_ms, Applied&& applied)
    {
        for_each_datagram(socket_, [&](const udp::endpoint& from, std::span<const std::uint8_t> bytes) {
            if (from == server_)
                down_.send(bytes, now_ms);
        });
        // A refused packet (stale, no baseline, corrupt) leaves the state as
        // it was; the client's statistics count it.
        down_.receive(now_ms, [&](std::span<const std::uint8_t> bytes) {
            if (replication_.receive(bytes))
                applied();
        });
    }

    void clear_link()
    {
        down_.set_conditions({});
        up_.set_conditions({});
    }

    /// Nothing of this client's is waiting for the server: every input and
    /// reliable message it sent was acknowledged.
    bool drained() const
    {
        const bitrep::message_statistics& m = replication_.messages();
        return replication_.inputs_waiting() == 0 && m.reliable_queued == m.reliable_acked;
    }

    const replication_client& replication() const noexcept { return replication_; }
    const bitrep::link_simulator& link() const noexcept { return down_; }
    const bitrep::link_simulator& uplink() const noexcept { return up_; }
    std::uint64_t inputs_sent() const noexcept { return inputs_sent_; }
    std::uint64_t bytes_sent() const noexcept { return bytes_sent_; }
    std::uint32_t chats_sent() const noexcept { return chats_; }
    std::uint32_t pushes_sent() const noexcept { return pushes_; }
    const ordered_count& relayed() const noexcept { return relayed_; }
    std::uint64_t scores() const noexcept { return scores_; }

private:
    void queue_chat()
    {
        Chat chat;
        chat.from = index_;
        chat.serial = chats_;
        chat.text = "gg from " + std::to_string(index_) + " #" + std::to_string(chats_);
        if (replication_.send(chat, bitrep::channel::reliable))
            ++chats_;
    }

    void queue_push()
    {
        Push push;
        push.target = (index_ + 1) % 64;
        push.serial = pushes_;
        if (replication_.send(push, bitrep::channel::reliable))
            ++pushes_;
    }

    udp::socket socket_;
    udp::endpoint endpoint_;
    udp::endpoint server_;
    replication_client replication_;
    bitrep::link_simulator down_; ///< server to client
    bitrep::link_simulator up_;   ///< client to server
    std::uint32_t index_;
    std::uint64_t inputs_sent_ = 0;
    std::uint64_t bytes_sent_ = 0;
    std::uint32_t chats_ = 0;
    std::uint32_t pushes_ = 0;
    ordered_count relayed_;
    std::uint64_t scores_ = 0;
};

} // namespace arena
