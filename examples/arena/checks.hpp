// What the arena verifies while it runs: every state a client applies is a
// view the server sent (no torn states), and every save loads back equal.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>

#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>

#include "client.hpp"
#include "server.hpp"
#include "world.hpp"

namespace arena {

/// The world as a receiver rebuilds it from its bits: what a client or a
/// load must hold exactly. Comparing with the sender's own values in wire
/// space is not enough, because a rebuilt quaternion whose two largest
/// components are nearly equal may take the other one as the largest, and
/// so re-encode to other bits than those it was decoded from (about 0.4% of
/// random quat<9> values do).
inline World rebuilt(const World& world)
{
    World image{};
    if (const bitrep::status read = bitrep::from_bytes(bitrep::to_bytes(world), image); !read)
        throw std::runtime_error("the world does not decode from its own encoding: " + read.message());
    return image;
}

/// The world as client `id` may hold it: other players' stamina is
/// owner_only, so it keeps its default there
/// (docs/design/replication-server.md, "Replication conditions").
inline World as_seen_by(const World& world, bitrep::client_id id)
{
    World seen = world;
    for (auto [slot, player] : seen.players)
        if (player.owner.get() != id)
            player.stamina = Player{}.stamina;
    return seen;
}

/// Whether a client holds exactly `world` as the server would send it.
inline bool holds(const client& c, const World& rebuilt_world)
{
    return c.replication().has_state() &&
           bitrep::same_on_wire<bitrep::scope::replication>(c.replication().state(), rebuilt_world);
}

/// After each packet a client applies, its state must be the view the server
/// recorded for that packet: each entity as of one tick or another, never a
/// mix (a torn state).
struct view_check {
    std::uint64_t checked = 0;
    std::uint64_t torn = 0;
    std::uint64_t outside_window = 0; ///< the server no longer held the view

    void run(const server& host, const client& c)
    {
        const server::peer* peer = host.find(c.endpoint());
        const std::optional<World> sent =
            peer != nullptr ? host.replication().sent_state(peer->id, c.replication().sequence()) : std::nullopt;
        if (!sent) {
            ++outside_window;
            return;
        }
        ++checked;
        torn += holds(c, rebuilt(*sent)) ? 0 : 1;
    }
};

/// Saves the world, loads the file into a fresh World, and compares that
/// with the world rebuilt from its encoding (every field, the save_only seed
/// included).
struct save_check {
    std::uint64_t runs = 0;
    std::uint64_t failures = 0;
    std::uintmax_t file_bytes = 0;
    std::string first_failure;

    void run(const World& world, const std::filesystem::path& path)
    {
        ++runs;
        std::string failure;
        World loaded{};
        if (const bitrep::status saved = bitrep::save(path, world); !saved)
            failure = "save: " + saved.message();
        else if (const bitrep::status read = bitrep::load(path, loaded); !read)
            failure = "load: " + read.message();
        else if (bitrep::to_bytes(loaded) != bitrep::to_bytes(rebuilt(world)))
            failure = "the loaded world differs from the saved one";
        if (!failure.empty() && failures++ == 0)
            first_failure = failure;
        std::error_code error;
        file_bytes = std::filesystem::file_size(path, error);
    }
};

} // namespace arena
