// The names replication gives a connection (client_id) and an entity slot
// of the State (entity_key).
#pragma once

#include <cstdint>

namespace bitrep {

/// A connection on the server; never reused after remove_client.
using client_id = std::uint32_t;

/// An entity slot of the State: which top-level entity_array field (its
/// index among the State's fields) and which slot.
struct entity_key {
    /// The id of a top-level field that is not an entity array, as a whole.
    static constexpr std::uint32_t whole_field = 0xFFFFFFFFu;
    std::uint16_t field = 0;
    std::uint32_t id = 0;
    friend bool operator==(const entity_key&, const entity_key&) = default;
};

} // namespace bitrep
