// Hostile bytes made into a packet that passes its path's check, so that
// they reach the readers behind it (the replication fuzzers and
// allocation_bound_test): on the CRC path with a right CRC over them (their
// first 4 bytes replaced); on the AEAD path as a body, sealed with the
// connection's key under `number`, as a hostile peer holding its own key
// (or a bug on the other end) would send it.
#pragma once

#include <bitrep/replication.hpp>

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

inline bitrep::status resealed(bitrep::packet_security security, const bitrep::packet_key& key,
                               std::span<const std::uint8_t> input, std::uint32_t protocol,
                               bitrep::replication::packet_kind kind, std::uint64_t number,
                               std::vector<std::uint8_t>& packet)
{
    namespace rep = bitrep::replication;
    if (security == bitrep::packet_security::crc) {
        packet.assign(input.begin(), input.end());
        packet.resize(std::max(packet.size(), rep::crc_bytes));
        rep::seal(protocol, kind, packet);
        return {};
    }
    packet.assign(rep::aead_number_bytes + input.size() + rep::aead_tag_bytes, 0);
    std::ranges::copy(input, packet.begin() + rep::aead_number_bytes);
    if (input.empty())
        return {}; // no body to seal: refused as it is
    const rep::direction way =
        kind == rep::packet_kind::state ? rep::direction::server_to_client : rep::direction::client_to_server;
    return rep::aead_seal(key, way, protocol, kind, number, packet);
}
