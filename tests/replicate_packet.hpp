// The tests' way to take a server's packet for a client: update(state) then
// replicate(id, out), the library's one way, with a failure reported to
// GoogleTest instead of repeated at every call site.
#pragma once

#include <bitrep/replication/packet.hpp>
#include <bitrep/status.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <span>

namespace test_replication {

/// server.replicate(id, out), the state of the last update(): the packet, or
/// an empty span and a test failure when replicate fails.
template <class Server>
std::span<const std::uint8_t> replicate_or_fail(Server& server, bitrep::client_id id)
{
    std::span<const std::uint8_t> out;
    if (const bitrep::status result = server.replicate(id, out); !result)
        ADD_FAILURE() << "replicate(" << id << "): " << result.message();
    return out;
}

/// server.update(state), then replicate_or_fail(server, id). Each call
/// records the world: for several clients of one unchanged world, update
/// once and call replicate_or_fail for each.
template <class Server, class State>
std::span<const std::uint8_t> update_and_replicate(Server& server, bitrep::client_id id, const State& state)
{
    server.update(state);
    return replicate_or_fail(server, id);
}

} // namespace test_replication
