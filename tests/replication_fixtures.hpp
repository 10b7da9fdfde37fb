// The GoogleTest harness of the replication tests (docs/design/replication-server.md): the
// replicated World of cubes, a seeded world that moves (moving_world), the
// wire-space checks (decoded, holds_view, holds_world), and a server with
// its clients exchanging packets directly, without link simulators (direct:
// one client; lockstep: several clients of one server). Each *_test.cpp is
// its own program, so everything here is inline or a template. The World
// itself is in replicated_worlds.hpp, which fuzz/two_way_fuzz.cpp shares.
#pragma once

#include <bitrep/annotations/entity_array.hpp>
#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>

#include <gtest/gtest.h>

#include "replicate_packet.hpp"
#include "replicated_worlds.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <random>
#include <span>
#include <vector>

namespace replication_fixtures {

using Server = bitrep::replication_server<World>;
using Client = bitrep::replication_client<World>;

using test_replication::replicate_or_fail;
using test_replication::update_and_replicate;

/// World's cube slots.
inline constexpr std::size_t capacity = 256;

/// Under AddressSanitizer the long runs are shortened.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool sanitized = true;
#else
inline constexpr bool sanitized = false;
#endif
#else
inline constexpr bool sanitized = false;
#endif

/// Options whose packets may hold `bytes` (4096 holds a whole World).
inline bitrep::replication_options with_max_packet_bytes(std::size_t bytes)
{
    bitrep::replication_options options;
    options.max_packet_bytes = bytes;
    return options;
}

// ---------------------------------------------------------------- wire-space checks

template <class T>
bool same_on_wire(const T& a, const T& b)
{
    return bitrep::same_on_wire<bitrep::scope::replication>(a, b);
}

/// What a receiver rebuilds from a value's encoding: what a client must hold,
/// float for float. Quantized floats rebuild their quantum's value,
/// quaternions their decoded components (which encode back to the same bits:
/// docs/formats/wire-format.md section 3).
template <class T>
T decoded(const T& value)
{
    std::array<std::uint8_t, (bitrep::max_bits<T> + 7) / 8> bytes; // on the stack: this runs per cube per tick
    std::size_t size = 0;
    bitrep::status result = bitrep::to_bytes(value, bytes, size);
    T out{};
    if (result)
        result = bitrep::from_bytes(std::span<const std::uint8_t>(bytes.data(), size), out);
    EXPECT_TRUE(result) << result.message();
    return out;
}

/// The client state is the server's state as a receiver rebuilds it.
template <class State>
bool holds_view(const State& mirror, const State& server)
{
    return same_on_wire(mirror, decoded(server));
}

/// A cube's values exactly: the bit patterns of its floats, and the bool.
using cube_bits = std::array<std::uint32_t, 8>;

inline cube_bits exact(const Cube& cube)
{
    return {std::bit_cast<std::uint32_t>(cube.x.value()),
            std::bit_cast<std::uint32_t>(cube.y.value()),
            std::bit_cast<std::uint32_t>(cube.z.value()),
            std::bit_cast<std::uint32_t>(cube.orientation.x),
            std::bit_cast<std::uint32_t>(cube.orientation.y),
            std::bit_cast<std::uint32_t>(cube.orientation.z),
            std::bit_cast<std::uint32_t>(cube.orientation.w),
            cube.interacting ? 1u : 0u};
}

/// The client's state is the server's world in wire space: by
/// same_on_wire against the world as a receiver rebuilds it, and
/// independently by the tick, the set of ids present, each cube's quanta
/// (against the server's own values) and exact values, and the bytes of the
/// replicated fields.
inline ::testing::AssertionResult holds_world(const World& mirror, const World& world)
{
    const World expected = decoded(world);
    if (!same_on_wire(mirror, expected))
        return ::testing::AssertionFailure() << "same_on_wire says the states differ";
    if (mirror.tick != world.tick)
        return ::testing::AssertionFailure() << "tick " << mirror.tick.value() << ", server " << world.tick.value();
    for (std::size_t id = 0; id < capacity; ++id) {
        const Cube* a = mirror.cubes.find(id);
        const Cube* b = world.cubes.find(id);
        if ((a == nullptr) != (b == nullptr))
            return ::testing::AssertionFailure() << "cube " << id << (a ? " present" : " absent") << " on the client";
        if (a == nullptr)
            continue;
        if (a->x.quantum() != b->x.quantum() || a->y.quantum() != b->y.quantum() || a->z.quantum() != b->z.quantum() ||
            a->interacting != b->interacting || exact(*a) != exact(decoded(*b)))
            return ::testing::AssertionFailure() << "cube " << id << " differs";
    }
    if (bitrep::to_bytes(mirror.cubes) != bitrep::to_bytes(expected.cubes) ||
        bitrep::to_bytes(mirror.tick) != bitrep::to_bytes(world.tick))
        return ::testing::AssertionFailure() << "the replicated fields encode differently";
    return ::testing::AssertionSuccess();
}

/// The header of a packet (after its CRC).
inline bitrep::replication::packet_header header_of(std::span<const std::uint8_t> packet)
{
    bitrep::read_stream stream(packet.subspan(bitrep::replication::crc_bytes));
    bitrep::replication::packet_header header;
    EXPECT_TRUE(header.serialize(stream));
    return header;
}

/// What a client holds, to show that something changed nothing.
struct client_snapshot {
    std::vector<std::uint8_t> state;
    std::uint16_t sequence;
    bool has_state;
    std::uint64_t applied;

    explicit client_snapshot(const Client& client)
        : state(bitrep::to_bytes(client.state())), sequence(client.sequence()), has_state(client.has_state()),
          applied(client.statistics().applied)
    {
    }
    bool operator==(const client_snapshot&) const = default;
};

// ---------------------------------------------------------------- a moving world

/// A world of cubes, seeded: each tick a share of the cubes move (and now and
/// then turn or start interacting), and now and then one is destroyed and
/// another created in an empty slot.
class moving_world {
public:
    explicit moving_world(std::uint32_t seed, std::size_t population = 200) : random_(seed)
    {
        world.seed = 0x5eed'0000'0000'0000ull + seed; // save_only: never replicated
        std::vector<std::size_t> ids(capacity);
        std::iota(ids.begin(), ids.end(), std::size_t{0});
        std::shuffle(ids.begin(), ids.end(), random_);
        for (std::size_t i = 0; i < population; ++i)
            world.cubes.emplace(ids[i], random_cube());
    }

    World world;

    /// The next tick: when moving, each cube moves with probability `share`,
    /// and with probability `churn` one cube is destroyed and one created.
    void step(bool moving, double share = 0.15, double churn = 0.3)
    {
        world.tick = world.tick + 1;
        if (!moving)
            return;
        std::uniform_real_distribution<float> offset(-1.0f, 1.0f);
        for (auto [id, cube] : world.cubes) {
            if (!chance(share))
                continue;
            move(cube, offset);
        }
        if (chance(churn)) {
            destroy_one();
            create_one();
        }
    }

    void move(Cube& cube)
    {
        std::uniform_real_distribution<float> offset(-1.0f, 1.0f);
        move(cube, offset);
    }

    std::size_t destroy_one()
    {
        const std::size_t id = pick(true);
        world.cubes.erase(id);
        return id;
    }

    std::size_t create_one()
    {
        const std::size_t id = pick(false);
        world.cubes.emplace(id, random_cube());
        return id;
    }

    Cube random_cube()
    {
        std::uniform_real_distribution<float> where(-200.0f, 200.0f);
        Cube cube;
        cube.x = where(random_);
        cube.y = where(random_);
        cube.z = where(random_);
        cube.orientation = random_orientation();
        cube.interacting = chance(0.5);
        return cube;
    }

private:
    bool chance(double p) { return std::uniform_real_distribution<double>(0.0, 1.0)(random_) < p; }

    void move(Cube& cube, std::uniform_real_distribution<float>& offset)
    {
        auto nudge = [&](Coordinate& c) { c = std::clamp(c.value() + offset(random_), -250.0f, 250.0f); };
        nudge(cube.x);
        nudge(cube.y);
        nudge(cube.z);
        if (chance(0.3))
            cube.orientation = random_orientation();
        if (chance(0.05))
            cube.interacting = !cube.interacting;
    }

    bitrep::quat<9> random_orientation()
    {
        std::normal_distribution<float> normal;
        float x = normal(random_), y = normal(random_), z = normal(random_), w = normal(random_);
        const float norm = std::sqrt(x * x + y * y + z * z + w * w);
        if (norm < 1e-3f)
            return {};
        return {x / norm, y / norm, z / norm, w / norm};
    }

    /// A random occupied (or empty) slot; there is always one of each.
    std::size_t pick(bool occupied)
    {
        std::uniform_int_distribution<std::size_t> any(0, capacity - 1);
        for (;;) {
            const std::size_t id = any(random_);
            if (world.cubes.contains(id) == occupied)
                return id;
        }
    }

    std::mt19937 random_;
};

// ---------------------------------------------------------------- servers and clients without simulators

/// A server and a client joined without a simulator.
struct direct {
    explicit direct(bitrep::replication_options options = {}, std::size_t population = 40, std::uint32_t seed = 3)
        : driver(seed, population), server(options), client(options), id(server.add_client())
    {
    }

    moving_world driver;
    Server server;
    Client client;
    bitrep::client_id id;

    World& world() { return driver.world; }

    std::vector<std::uint8_t> packet() { return copy(update_and_replicate(server, id, driver.world)); }

    /// One tick: the world steps, the packet is applied, and acked when `ack`.
    bitrep::status exchange(bool moving = true, bool ack = true)
    {
        driver.step(moving);
        const bitrep::status result = client.receive(update_and_replicate(server, id, driver.world));
        if (ack && client.has_state()) {
            EXPECT_TRUE(server.receive(id, client.ack()));
        }
        return result;
    }

    static std::vector<std::uint8_t> copy(std::span<const std::uint8_t> bytes) { return {bytes.begin(), bytes.end()}; }
};

/// One server and several clients of a moving world in lockstep: each tick()
/// the world steps, and every client applies its packet and (when `ack`)
/// acknowledges it at once. A refusal is a fatal failure: call tick() inside
/// ASSERT_NO_FATAL_FAILURE to stop the test there.
struct lockstep {
    lockstep(bitrep::replication_options server_options, bitrep::replication_options client_options,
             std::size_t client_count, std::uint32_t seed, std::size_t population)
        : driver(seed, population), server(server_options)
    {
        clients.reserve(client_count);
        for (std::size_t i = 0; i < client_count; ++i) {
            ids.push_back(server.add_client());
            clients.emplace_back(client_options);
        }
    }

    /// Both ends with the same options.
    lockstep(bitrep::replication_options options, std::size_t client_count, std::uint32_t seed, std::size_t population)
        : lockstep(options, options, client_count, seed, population)
    {
    }

    moving_world driver;
    Server server;
    std::vector<bitrep::client_id> ids; ///< ids[k] is clients[k] on the server
    std::vector<Client> clients;

    World& world() { return driver.world; }

    void tick(bool moving = true, bool ack = true)
    {
        driver.step(moving);
        for (std::size_t k = 0; k < clients.size(); ++k) {
            const bitrep::status result = clients[k].receive(update_and_replicate(server, ids[k], driver.world));
            ASSERT_TRUE(result) << "client " << k << ": " << result.message();
            if (ack) {
                ASSERT_TRUE(server.receive(ids[k], clients[k].ack())) << "client " << k;
            }
        }
    }
};

} // namespace replication_fixtures
