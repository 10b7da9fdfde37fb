// The arena's server: one UDP socket, a bitrep::replication_server, and
// what it sent to and received from each client it learned of.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include <bitrep/replication.hpp>

#include "network.hpp"
#include "world.hpp"

namespace arena {

/// Counts of a reliable stream that carries a running serial: every message
/// must arrive once and in order.
struct ordered_count {
    std::uint64_t delivered = 0;
    std::uint64_t duplicated = 0;   ///< a serial seen before
    std::uint64_t out_of_order = 0; ///< a serial past the next one expected
    std::uint32_t next = 0;

    void arrived(std::uint32_t serial)
    {
        ++delivered;
        if (serial < next)
            ++duplicated;
        else if (serial > next)
            ++out_of_order;
        next = std::max(next, serial + 1);
    }
};

using replication_server = bitrep::replication_server<World, PlayerInput, Messages>;

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
        std::uint64_t bytes_received = 0;     ///< UDP payload from the client
        std::optional<PlayerInput> input;     ///< the newest input delivered
        ordered_count chats;                  ///< the client's chat lines
        ordered_count pushes;                 ///< the client's pushes
        std::uint32_t relayed = 0;            ///< chat lines relayed to this client
    };

    server(asio::io_context& io, const bitrep::replication_options& options)
        : socket_(open_loopback_socket(io)), replication_(options),
          ticks_per_second_(static_cast<std::uint32_t>(options.tick_rate))
    {
        replication_.set_owner<&World::players>(
            [](std::uint32_t, const Player& p) -> std::optional<bitrep::client_id> { return p.owner.get(); });
        replication_.on_input([this](bitrep::client_id id, std::uint32_t, const PlayerInput& input) {
            peer_of(id).input = input;
        });
        // Chat lines are relayed to every other client, reliably; pushes
        // count on the target's player.
        replication_.on_message<Chat>([this](bitrep::client_id id, const Chat& chat) {
            peer_of(id).chats.arrived(chat.serial.get());
            for (peer& other : peers_) {
                if (other.id == id)
                    continue;
                Chat relay = chat;
                relay.serial = other.relayed;
                if (replication_.send(other.id, relay, bitrep::channel::reliable))
                    ++other.relayed;
            }
        });
        replication_.on_message<Push>([this](bitrep::client_id id, const Push& push) {
            peer_of(id).pushes.arrived(push.serial.get());
            pending_pushes_.push_back(push.target.get());
        });
    }

    udp::endpoint endpoint() const { return socket_.local_endpoint(); }

    /// The packet key the game's login agreed with the client at `from`
    /// (this example hands it over in-process, the channel it trusts): its
    /// hello then makes it a client sealed with that key. Without keys
    /// (packet_security::crc) any hello is taken.
    void admit(const udp::endpoint& from, const bitrep::packet_key& key) { keys_.emplace_back(from, key); }

    /// Reads what the clients sent: a hello from a new endpoint makes it a
    /// client with a player of its own; anything else from a client is its
    /// packet (ack, inputs, messages).
    void receive(World& world)
    {
        for_each_datagram(socket_, [&](const udp::endpoint& from, std::span<const std::uint8_t> bytes) {
            if (peer* known = find(from)) {
                known->bytes_received += bytes.size();
                if (!is_hello(bytes)) // the statistics count a packet that is refused
                    static_cast<void>(replication_.receive(known->id, bytes));
            } else if (is_hello(bytes) && peers_.size() < decltype(World::players)::capacity) {
                bitrep::packet_key key{};
                if (replication_.options().security == bitrep::packet_security::aead) {
                    const auto admitted = std::find_if(keys_.begin(), keys_.end(),
                                                       [&](const auto& entry) { return entry.first == from; });
                    if (admitted == keys_.end())
                        return; // nobody the login let in
                    key = admitted->second;
                }
                const bitrep::client_id id = replication_.add_client(key);
                peer joined;
                joined.endpoint = from;
                joined.id = id;
                peers_.push_back(joined);
                Player& player = world.players.emplace(id);
                player.owner = id;
                player.x = -200.0f + 40.0f * static_cast<float>(id % 10);
            }
        });
        for (const std::uint32_t target : pending_pushes_)
            if (Player* player = world.players.find(target))
                player->pushed = (player->pushed.get() + 1) % 1'000'000;
        pushes_ += pending_pushes_.size();
        pending_pushes_.clear();
    }

    /// Moves each player by its client's newest input.
    void simulate(World& world)
    {
        for (peer& p : peers_)
            if (Player* player = world.players.find(p.id); player != nullptr && p.input)
                apply_input(*player, *p.input);
    }

    /// Sends every client its packet for this tick, and once a second the
    /// score, unreliably.
    void send(const World& world)
    {
        const bool new_second = ticks_ % ticks_per_second_ == 0;
        if (new_second && ticks_ != 0) {
            Score score;
            score.second = static_cast<std::uint32_t>(ticks_ / ticks_per_second_);
            score.pushes = static_cast<std::uint32_t>(pushes_ % 1'000'000);
            static_cast<void>(replication_.broadcast(score, bitrep::channel::unreliable));
        }
        ++ticks_;
        replication_.update(world);
        for (peer& p : peers_) {
            if (new_second)
                p.second_bytes = 0;
            const std::uint64_t deferred = replication_.statistics(p.id)->entities_deferred;
            std::span<const std::uint8_t> packet;
            if (const bitrep::status made = replication_.replicate(p.id, packet); !made)
                throw std::runtime_error("replicate: " + made.message());
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
    peer* find(const udp::endpoint& endpoint)
    {
        return const_cast<peer*>(static_cast<const server&>(*this).find(endpoint));
    }

    /// Reliable messages waiting for a client's ack.
    std::size_t waiting(const peer& p) const
    {
        return replication_.messages(p.id)->reliable_queued - replication_.messages(p.id)->reliable_acked;
    }

    const std::vector<peer>& peers() const noexcept { return peers_; }
    const replication_server& replication() const noexcept { return replication_; }

private:
    peer& peer_of(bitrep::client_id id)
    {
        return *std::find_if(peers_.begin(), peers_.end(), [&](const peer& p) { return p.id == id; });
    }

    udp::socket socket_;
    replication_server replication_;
    std::vector<peer> peers_;
    std::vector<std::pair<udp::endpoint, bitrep::packet_key>> keys_;
    std::vector<std::uint32_t> pending_pushes_;
    std::uint64_t pushes_ = 0;
    std::uint32_t ticks_per_second_;
    std::uint64_t ticks_ = 0;
};

} // namespace arena
