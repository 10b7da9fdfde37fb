// The arena's world (what the server simulates, replicates and saves), what
// the players send (their input and messages), and the seeded simulation
// that moves it.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>

#include <bitrep/annotations.hpp>
#include <bitrep/replication/messages.hpp>
#include <boost/describe/class.hpp>

namespace arena {

struct Cube {
    // 16 bits each in full. In a delta, a move of at most 63 quanta (0.63
    // units: cubes move 2 to 8 units a second, so this covers several ticks
    // since the client's acknowledged baseline) costs a flag and 7 bits.
    bitrep::delta_small<bitrep::quantized<-256.f, 256.f, 0.01f>, 63> x, y, z;
    bitrep::quat<9> orientation;                     // 29 bits
    bool moving;
};
BOOST_DESCRIBE_STRUCT(Cube, (), (x, y, z, orientation, moving))

/// A client's own cube, driven by its input. Its stamina is private: only
/// the owning client receives it (the others see the default).
struct Player {
    bitrep::quantized<-256.f, 256.f, 0.01f> x, y;
    bitrep::ranged<std::uint32_t, 0, 63> owner;                 // the client's id
    bitrep::owner_only<bitrep::ranged<int, 0, 1000>> stamina{1000};
    bitrep::ranged<std::uint32_t, 0, 1'000'000> pushed;         // pushes received
};
BOOST_DESCRIBE_STRUCT(Player, (), (x, y, owner, stamina, pushed))

struct World {
    bitrep::ranged<std::uint32_t, 0, 1'000'000> tick; // 20 bits: about 4.6 hours at 60 Hz
    bitrep::entity_array<Cube, 1024> cubes;            // slot index = entity id
    bitrep::entity_array<Player, 64> players;          // slot index = client id
    bitrep::save_only<std::uint64_t> seed;             // in the save file, never replicated
};
BOOST_DESCRIBE_STRUCT(World, (), (tick, cubes, players, seed))

/// What a client sends every tick (4 bits, and about 3 in a delta).
struct PlayerInput {
    bitrep::ranged<int, -1, 1> move_x, move_y;
    bool sprint = false;
};
BOOST_DESCRIBE_STRUCT(PlayerInput, (), (move_x, move_y, sprint))

// Messages, declared once for both directions. Each carries its sender's
// running count, so that receivers check exactly-once and in order.
struct Chat {
    bitrep::ranged<std::uint32_t, 0, 63> from;
    bitrep::ranged<std::uint32_t, 0, 1'000'000> serial;
    bitrep::bounded_string<48> text;
};
BOOST_DESCRIBE_STRUCT(Chat, (), (from, serial, text))

struct Push {
    bitrep::ranged<std::uint32_t, 0, 63> target;
    bitrep::ranged<std::uint32_t, 0, 1'000'000> serial;
};
BOOST_DESCRIBE_STRUCT(Push, (), (target, serial))

struct Score {
    bitrep::ranged<std::uint32_t, 0, 100'000> second;
    bitrep::ranged<std::uint32_t, 0, 1'000'000> pushes; // all players' pushes so far
};
BOOST_DESCRIBE_STRUCT(Score, (), (second, pushes))

using Messages = bitrep::message_set<Chat, Push, Score>;

/// Client k's scripted input at `tick`: it walks a square, sprinting now
/// and then.
inline PlayerInput scripted_input(std::uint32_t k, std::uint64_t tick)
{
    PlayerInput input;
    const std::uint64_t leg = (tick / 45 + k) % 4;
    input.move_x = leg == 0 ? 1 : (leg == 2 ? -1 : 0);
    input.move_y = leg == 1 ? 1 : (leg == 3 ? -1 : 0);
    input.sprint = (tick / 20 + k) % 5 == 0;
    return input;
}

/// The server's rule for one input: a step of 0.1 units (0.2 sprinting,
/// which costs stamina; resting restores it).
inline void apply_input(Player& player, const PlayerInput& input)
{
    const bool sprint = input.sprint && player.stamina.get().get() >= 5;
    const float step = sprint ? 0.2f : 0.1f;
    player.x = std::clamp(player.x.get() + step * static_cast<float>(input.move_x.get()), -250.0f, 250.0f);
    player.y = std::clamp(player.y.get() + step * static_cast<float>(input.move_y.get()), -250.0f, 250.0f);
    const int stamina = player.stamina.get().get();
    player.stamina = sprint ? stamina - 5 : std::min(1000, stamina + 1);
}

/// Cubes rest for 1 to 5.7 s, then move for 0.2 to 1 s (mean 3.3 s and
/// 0.6 s), so about 15% of them move on any tick; about once a second one
/// cube is despawned and another spawned in a free slot. Every number comes
/// from one seeded std::mt19937_64, drawn without the standard's
/// distributions (whose output differs between standard libraries).
class simulation {
public:
    static constexpr std::size_t capacity = decltype(World::cubes)::capacity;

    explicit simulation(std::uint64_t seed) : engine_(seed) {}

    /// Fills slots 0 to count - 1 (count <= capacity).
    void populate(World& world, std::size_t count)
    {
        world.cubes.clear();
        for (std::size_t id = 0; id < count; ++id)
            spawn(world, id);
    }

    /// One tick: moving cubes move and turn, a phase that ends flips the
    /// cube between resting and moving, and now and then one cube is
    /// replaced by a new one elsewhere.
    void step(World& world)
    {
        ++world.tick;
        for (std::size_t id = 0; id < capacity; ++id) {
            Cube* cube = world.cubes.find(id);
            if (cube == nullptr)
                continue;
            motion& m = motions_[id];
            if (cube->moving)
                advance(*cube, m);
            if (--m.ticks_left <= 0)
                start_phase(*cube, m, !cube->moving);
        }
        if (unit() < 1.0 / 60.0)
            respawn(world);
    }

private:
    static constexpr float wall = 250.0f; // inside the quantized range, with room for one step
    static constexpr float pi = 3.14159265f;

    struct motion {
        float vx = 0, vy = 0, vz = 0; // units per tick
        float ax = 0, ay = 0, az = 1; // rotation axis (unit)
        float angle = 0, spin = 0;    // radians, radians per tick
        int ticks_left = 0;
    };

    double unit() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; } // [0, 1), 53 bits
    float between(float low, float high) { return low + static_cast<float>(unit()) * (high - low); }
    int between(int low, int high) { return low + static_cast<int>(engine_() % static_cast<std::uint64_t>(high - low + 1)); }

    void spawn(World& world, std::size_t id)
    {
        Cube& cube = world.cubes.emplace(id);
        cube.x = between(-wall, wall);
        cube.y = between(-wall, wall);
        cube.z = between(0.0f, 20.0f);
        motion& m = motions_[id];
        m = {};
        float ax = 0, ay = 0, az = 0, length = 0;
        while (length < 0.1f) {
            ax = between(-1.0f, 1.0f), ay = between(-1.0f, 1.0f), az = between(-1.0f, 1.0f);
            length = std::sqrt(ax * ax + ay * ay + az * az);
        }
        m.ax = ax / length, m.ay = ay / length, m.az = az / length;
        m.angle = between(0.0f, 2 * pi);
        turn(cube, m);
        start_phase(cube, m, unit() < 0.15);
        m.ticks_left = between(1, m.ticks_left); // spread the first phase changes out
    }

    void start_phase(Cube& cube, motion& m, bool moving)
    {
        cube.moving = moving;
        if (!moving) {
            m.ticks_left = between(60, 340);
            return;
        }
        m.ticks_left = between(12, 60);
        const float heading = between(0.0f, 2 * pi);
        const float speed = between(2.0f, 8.0f) / 60.0f; // 2 to 8 units a second
        m.vx = speed * std::cos(heading);
        m.vy = speed * std::sin(heading);
        m.vz = between(-0.5f, 0.5f) / 60.0f;
        m.spin = between(-pi, pi) / 60.0f; // up to half a turn a second
    }

    static void bounce(bitrep::quantized<-256.f, 256.f, 0.01f>& position, float& velocity, float low, float high)
    {
        position += velocity;
        if (position < low || position > high) {
            velocity = -velocity;
            position = position < low ? low : high;
        }
    }

    static void advance(Cube& cube, motion& m)
    {
        bounce(cube.x, m.vx, -wall, wall);
        bounce(cube.y, m.vy, -wall, wall);
        bounce(cube.z, m.vz, 0.0f, 20.0f);
        m.angle += m.spin;
        turn(cube, m);
    }

    static void turn(Cube& cube, const motion& m)
    {
        const float s = std::sin(m.angle / 2), c = std::cos(m.angle / 2);
        cube.orientation = {m.ax * s, m.ay * s, m.az * s, c};
    }

    /// Despawns a random cube and spawns a new one in a random free slot
    /// (which may be the one just freed), so the count stays the same.
    void respawn(World& world)
    {
        std::size_t id = engine_() % capacity;
        while (!world.cubes.contains(id))
            id = (id + 1) % capacity;
        world.cubes.erase(id);
        id = engine_() % capacity;
        while (world.cubes.contains(id))
            id = (id + 1) % capacity;
        spawn(world, id);
    }

    std::mt19937_64 engine_;
    std::array<motion, capacity> motions_{};
};

} // namespace arena
