// Hostile bytes made into a packet that passes its path's check, so that
// they reach the readers behind it (the replication fuzzers and
// allocation_bound_test): on the CRC path with a right CRC over them (their
// first 4 bytes replaced); on the AEAD path as a body, sealed with the
// connection's key under its `connection` id and the sender's `number`, as a hostile
// peer holding its own key (or a bug on the other end) would send it. And
// the way back: an honest packet's body.
#pragma once

#include <bitrep/replication.hpp>

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

/// Which way a packet of `kind` goes.
inline bitrep::replication::direction way_of(bitrep::replication::packet_kind kind)
{
    namespace rep = bitrep::replication;
    return kind == rep::packet_kind::ack ? rep::direction::client_to_server : rep::direction::server_to_client;
}

inline bitrep::status resealed(bitrep::packet_security security, const bitrep::packet_key& key,
                               std::span<const std::uint8_t> input, std::uint32_t protocol,
                               bitrep::replication::packet_kind kind, std::uint64_t connection, std::uint64_t number,
                               std::vector<std::uint8_t>& packet)
{
    namespace rep = bitrep::replication;
    if (security == bitrep::packet_security::crc) {
        packet.assign(input.begin(), input.end());
        packet.resize(std::max(packet.size(), rep::crc_bytes));
        rep::seal(protocol, kind, packet);
        return {};
    }
    packet.assign(rep::aead_overhead_bytes + input.size(), 0);
    std::ranges::copy(input, packet.begin() + rep::aead_prefix_bytes);
    if (input.empty())
        return {}; // no body to seal: refused as it is
    const rep::direction way = way_of(kind);
    return rep::aead_seal(rep::connection_key(key, way, connection), way, connection, protocol, kind, number, packet);
}

/// The body of an honest AEAD `packet`, opened under the key its connection
/// id and direction derive from the long-term `key`.
inline bitrep::status unsealed(const bitrep::packet_key& key, std::span<const std::uint8_t> packet,
                               std::uint32_t protocol, bitrep::replication::packet_kind kind,
                               std::vector<std::uint8_t>& body)
{
    namespace rep = bitrep::replication;
    std::uint64_t connection = 0;
    std::uint64_t number = 0;
    if (bitrep::status st = rep::aead_prefix(packet, connection, number); !st)
        return st;
    body.assign(packet.size() - rep::aead_overhead_bytes, 0);
    return rep::aead_open(rep::connection_key(key, way_of(kind), connection), way_of(kind), protocol, kind, packet, body);
}
