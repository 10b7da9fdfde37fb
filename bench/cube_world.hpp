// The replication benchmarks' world (docs/benchmarks.md, "Replication"): the
// design's example (quantized positions, quat<9>, a flag) in an
// entity_array<Cube, 1024> holding 901 cubes, of which 90 (10%) move and turn
// a little each tick. Shared by replication_bench.cpp and
// replication_soak.cpp, so that their figures are of the same world.
#pragma once

#include <bitrep/bitrep.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <vector>

struct Cube {
    bitrep::quantized<-256.f, 256.f, 0.01f> x, y, z;
    bitrep::quat<9> orientation;
    bool interacting = false;
};
BOOST_DESCRIBE_STRUCT(Cube, (), (x, y, z, orientation, interacting))

struct World {
    bitrep::ranged<std::uint32_t, 0, 1'000'000> tick;
    bitrep::entity_array<Cube, 1024> cubes;
    bitrep::save_only<std::uint64_t> seed;
};
BOOST_DESCRIBE_STRUCT(World, (), (tick, cubes, seed))

namespace cube_world {

constexpr std::size_t cube_count = 901;
constexpr std::size_t moving_per_tick = 90;
constexpr std::uint32_t world_seed = 901u;

[[noreturn, gnu::cold]] inline void fail(const char* what)
{
    std::fprintf(stderr, "CHECK FAILED: %s\n", what);
    std::abort();
}

inline void check(bool condition, const char* what)
{
    if (!condition)
        fail(what);
}

/// The seeded world and its motion: each tick, 90 distinct cubes step by up
/// to 0.25 m per axis (clamped inside the quantized range), turn by up to
/// 0.05 rad about a random axis (renormalised, so always unit length), and
/// one in sixteen of them toggles its flag. Random numbers come from raw
/// std::mt19937 output, so every standard library gives the same world.
class moving_world {
public:
    explicit moving_world(std::uint32_t seed) : world_(std::make_unique<World>()), random_(seed), ids_(cube_count)
    {
        std::iota(ids_.begin(), ids_.end(), std::uint16_t{0});
        world_->seed = seed;
        for (std::size_t id = 0; id < cube_count; ++id) {
            Cube& cube = world_->cubes.emplace(id);
            cube.x = between(-200.0f, 200.0f);
            cube.y = between(-200.0f, 200.0f);
            cube.z = between(0.0f, 100.0f);
            float q[4];
            float norm2;
            do {
                for (float& component : q)
                    component = between(-1.0f, 1.0f);
                norm2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
            } while (norm2 < 0.01f || norm2 > 1.0f);
            const float scale = 1.0f / std::sqrt(norm2);
            cube.orientation = {q[0] * scale, q[1] * scale, q[2] * scale, q[3] * scale};
            cube.interacting = (random_() & 1u) != 0;
        }
    }

    const World& state() const noexcept { return *world_; }

    /// The next tick; with `move` false only the tick counter changes.
    void advance(bool move)
    {
        world_->tick = (world_->tick.value() + 1) % 1'000'000u;
        if (!move)
            return;
        for (std::size_t k = 0; k < moving_per_tick; ++k) {
            // A partial Fisher-Yates shuffle: ids_[0, k] are distinct.
            std::swap(ids_[k], ids_[k + random_() % (cube_count - k)]);
            move_cube(world_->cubes[ids_[k]]);
        }
    }

private:
    float between(float low, float high) { return low + (high - low) * static_cast<float>(random_() >> 8) * 0x1p-24f; }

    template <class Quantized>
    void step(Quantized& coordinate, float low, float high)
    {
        coordinate = std::clamp(coordinate.value() + between(-0.25f, 0.25f), low, high);
    }

    void move_cube(Cube& cube)
    {
        step(cube.x, -250.0f, 250.0f);
        step(cube.y, -250.0f, 250.0f);
        step(cube.z, 0.0f, 250.0f);

        float axis[3];
        float length2;
        do {
            for (float& component : axis)
                component = between(-1.0f, 1.0f);
            length2 = axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2];
        } while (length2 < 0.01f || length2 > 1.0f);
        const float half = 0.5f * between(-0.05f, 0.05f);
        const float s = std::sin(half) / std::sqrt(length2);
        const float bx = axis[0] * s, by = axis[1] * s, bz = axis[2] * s, bw = std::cos(half);
        bitrep::quat<9>& q = cube.orientation;
        const float w = q.w * bw - q.x * bx - q.y * by - q.z * bz;
        const float x = q.w * bx + q.x * bw + q.y * bz - q.z * by;
        const float y = q.w * by - q.x * bz + q.y * bw + q.z * bx;
        const float z = q.w * bz + q.x * by - q.y * bx + q.z * bw;
        const float scale = 1.0f / std::sqrt(w * w + x * x + y * y + z * z);
        q = {x * scale, y * scale, z * scale, w * scale};

        if (random_() % 16 == 0)
            cube.interacting = !cube.interacting;
    }

    std::unique_ptr<World> world_; // 37 KB
    std::mt19937 random_;
    std::vector<std::uint16_t> ids_;
};

/// The world as any receiver decodes it (quantized positions, rebuilt
/// quaternions), through a plain full encoding.
inline std::unique_ptr<World> as_decoded(const World& world)
{
    std::vector<std::uint8_t> bytes;
    check(bitrep::to_bytes(world, bytes).ok(), "the world encodes");
    auto decoded = std::make_unique<World>();
    check(bitrep::from_bytes(bytes, *decoded).ok(), "the world decodes");
    return decoded;
}

inline bool same_cube(const Cube& a, const Cube& b)
{
    const bitrep::quat<9>& p = a.orientation;
    const bitrep::quat<9>& q = b.orientation;
    return a.x == b.x && a.y == b.y && a.z == b.z && p == q && a.interacting == b.interacting;
}

/// `mirror` holds exactly `expected`, a world as decoded (as_decoded), float
/// for float: stricter than bitrep::same_on_wire, which compares what
/// the bits say. The seed is save_only: never replicated, never compared.
inline bool holds_decoded(const World& mirror, const World& expected)
{
    if (mirror.tick != expected.tick)
        return false;
    for (std::size_t id = 0; id < decltype(World::cubes)::capacity; ++id) {
        const std::optional<Cube>& a = mirror.cubes.slots()[id];
        const std::optional<Cube>& b = expected.cubes.slots()[id];
        if (a.has_value() != b.has_value() || (a.has_value() && !same_cube(*a, *b)))
            return false;
    }
    return true;
}

/// `mirror` holds exactly what a receiver decodes of `world`.
inline bool holds(const World& mirror, const World& world) { return holds_decoded(mirror, *as_decoded(world)); }

/// A world of Count cubes (Count + Count / 40 slots) of which 100 move a
/// tick: with Count = 1,000 and 10,000, the same changes in a world ten
/// times larger (docs/benchmarks.md, "Server at scale: large worlds").
template <std::size_t Count>
struct LargeWorld {
    bitrep::ranged<std::uint32_t, 0, 1'000'000> tick;
    bitrep::entity_array<Cube, Count + Count / 40> cubes;
};

/// LargeWorld<Count>, seeded, and its motion: each tick `moving` cubes
/// (100 unless told) drawn at random (repeats allowed) step along x by up to
/// 0.25 m.
template <std::size_t Count>
class moving_large_world {
public:
    explicit moving_large_world(std::size_t moving = 100)
        : world_(std::make_unique<LargeWorld<Count>>()), random_(Count), moving_(moving)
    {
        for (std::size_t id = 0; id < Count; ++id) {
            Cube& cube = world_->cubes.emplace(id);
            cube.x = between(-200.0f, 200.0f);
            cube.y = between(-200.0f, 200.0f);
            cube.z = between(0.0f, 100.0f);
        }
    }

    const LargeWorld<Count>& state() const noexcept { return *world_; }

    /// Tick `tick` of the world: its counter, and 100 cubes moved.
    void advance(std::size_t tick)
    {
        world_->tick = static_cast<std::uint32_t>(tick % 1'000'000);
        for (std::size_t k = 0; k < moving_; ++k) {
            Cube& cube = world_->cubes[random_() % Count];
            cube.x = std::clamp(cube.x.get() + between(-0.25f, 0.25f), -250.0f, 250.0f);
        }
    }

private:
    float between(float low, float high) { return low + (high - low) * static_cast<float>(random_() >> 8) * 0x1p-24f; }

    std::unique_ptr<LargeWorld<Count>> world_;
    std::mt19937 random_;
    std::size_t moving_;
};

} // namespace cube_world
