// libFuzzer target: hostile bytes into the coded delta reader
// (delta_coder::read) against fixed baseline and older states of a world
// that uses every kind. Under ASan/UBSan it proves no crash, no read outside
// the input and no undefined behaviour; the checks below prove that whatever
// decodes is a state the codecs accept, and that it codes again to a packet
// that decodes to the same state.
#include <bitrep/bitrep.hpp>
#include <bitrep/coded_delta.hpp>

#include "../replication_world.hpp"

#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace fuzz {

// The coded delta tests' body of every kind (replication_world.hpp), in a
// smaller world.
using every_kind::Body;
using every_kind::Item;
using every_kind::Kind;

/// A body with a prediction of its own (predict.hpp) that runs past its
/// ranges now and then: the reader must stay inside them whatever the
/// prediction says.
struct Mover {
    bitrep::ranged<int, -500, 500> x;
    bitrep::quantized<-10.f, 10.f, 0.01f> y;
    bitrep::quat_code<9> code;
    bitrep::quat<9> turn;
    std::optional<bitrep::ranged<int, 0, 9>> fuel;

    static Mover predict(const bitrep::history<Mover>& h, std::uint32_t ahead)
    {
        Mover p = h.baseline;
        const int steps = static_cast<int>(ahead) * (h.older_ticks == 0 ? 1 : 3);
        p.x = h.baseline.x.value() + (h.baseline.x.value() - h.older.x.value()) * steps - 7;
        p.y = h.baseline.y.value() * 1.5f - h.older.y.value();
        p.code.small[0] = static_cast<std::uint16_t>(h.baseline.code.small[0].value() + 40);
        p.fuel = h.baseline.fuel ? std::nullopt : std::optional<bitrep::ranged<int, 0, 9>>(9);
        return p;
    }
};

struct World {
    bitrep::entity_array<Body, 6> bodies;
    std::array<Mover, 2> movers{};
    std::array<bitrep::ranged<int, -1000, 1000>, 3> scores{};
    bitrep::ranged<int, 0, 1000000> tick;
    bitrep::bounded_map<std::uint8_t, bitrep::ranged<int, 0, 99>, 6, std::unordered_map<std::uint8_t, bitrep::ranged<int, 0, 99>>> bag;
    bitrep::bounded_set<bitrep::ranged<int, 0, 15>, 5> tags;
    bitrep::ranged_duration<std::chrono::milliseconds, 0, 60'000> cooldown;
};

/// An older state and a baseline that differ, so prediction and the
/// "changed before" contexts are exercised.
struct states {
    World older, base;
    states()
    {
        for (std::size_t i = 0; i < 4; ++i) {
            older.bodies.emplace(i);
            base.bodies.emplace(i);
        }
        base.bodies[0].x = 3.5f;
        base.bodies[0].items.push_back(Item{Kind::shield, 5});
        base.bodies[1].health = 40;
        base.bodies[1].code.largest = 1;
        base.bodies[1].code.small[2] = 17;
        base.bodies[2].name = "ok";
        base.scores[1] = 12;
        base.tick = 6;
        older.tick = 3;
        for (std::uint8_t k : {3, 9, 200})
            base.bag[k] = k % 100;
        older.bag[9] = 1;
        base.tags = {bitrep::ranged<int, 0, 15>(2), bitrep::ranged<int, 0, 15>(7)};
        base.cooldown = std::chrono::milliseconds(900);
        older.cooldown = std::chrono::milliseconds(916);
        base.movers[0].x = 480;
        older.movers[0].x = 400;
        base.movers[1].y = -9.5f;
        base.movers[1].fuel = 4;
    }
};

} // namespace fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const fuzz::states s;
    static bitrep::delta_coder<fuzz::World> coder;
    fuzz::World out;
    if (!coder.read(std::span<const std::uint8_t>(data, size), s.older, s.base, out).ok())
        return 0;
    std::vector<std::uint8_t> full;
    if (!bitrep::to_bytes(out, full).ok()) {
        std::fprintf(stderr, "a decoded state does not encode\n");
        std::abort();
    }
    std::vector<std::uint8_t> again(1 << 15);
    std::size_t bytes = 0;
    if (!coder.write(again, bytes, s.older, s.base, out).ok()) {
        std::fprintf(stderr, "a decoded state does not code again\n");
        std::abort();
    }
    fuzz::World twice;
    if (!coder.read(std::span<const std::uint8_t>(again.data(), bytes), s.older, s.base, twice).ok() ||
        !bitrep::same_on_wire<bitrep::scope::replication>(out, twice)) {
        std::fprintf(stderr, "a decoded state does not round-trip\n");
        std::abort();
    }
    return 0;
}

#ifdef BITREP_SEED_GENERATOR
namespace fuzz {

/// The state after the baseline number `i` of the seeds: each changes
/// other kinds, from nothing to every slot, field and container at once.
World seed_state(const states& s, int i)
{
    World w = i == 1 ? s.older : s.base;
    switch (i) {
    case 0: // unchanged
    case 1: // back to the older state
        break;
    case 2: // small moves and turns, as most ticks bring
        for (std::size_t id = 0; id < 4; ++id) {
            Body& b = w.bodies[id];
            b.x = b.x.value() + 0.37f * static_cast<float>(id + 1);
            b.y = b.y.value() - 0.05f;
            b.z = 0.2f * static_cast<float>(id);
            b.orientation = bitrep::quat<9>{0.0f, std::sin(0.1f * static_cast<float>(id)), 0.0f,
                                            std::cos(0.1f * static_cast<float>(id))};
            b.code.small[id % 3] = static_cast<std::uint16_t>(b.code.small[id % 3].value() + 3);
        }
        w.bodies[3].code.largest = 0;
        w.tick = 7;
        w.movers[0].x = 500;
        w.movers[1].y = -9.9f;
        w.movers[1].code.small[0] = 300;
        w.movers[1].fuel = std::nullopt;
        break;
    case 3: // every other field of a body
        for (std::size_t id = 0; id < 4; ++id) {
            Body& b = w.bodies[id];
            b.health = static_cast<int>(25 * id);
            b.gold = id % 2 == 0 ? -5'000'000'000 : 5'000'000'000;
            b.score = -123456 * static_cast<int>(id);
            b.id = 0xFEDCBA9876543210u >> id;
            b.raw = -1.5e6f * static_cast<float>(id);
            b.alive = id % 2 == 0;
            b.name = std::string(2 * id, 'n');
            if (id % 2 == 0)
                b.items.push_back(Item{Kind::potion, 64});
            else
                b.items.clear();
            b.mood = id == 0 ? std::nullopt : std::optional<bitrep::ranged<int, -3, 3>>(static_cast<int>(id) - 3);
            b.flags[id % 3] = true;
        }
        break;
    case 4: // entities destroyed and created, containers changed
        w.bodies.erase(1);
        w.bodies.erase(2);
        w.bodies.emplace(4).x = -100.0f;
        w.bodies.emplace(5).name = "newcomer";
        w.scores = {-1000, 1000, 0};
        w.tick = 1'000'000;
        w.bag.erase(3);
        w.bag[9] = 99;
        for (std::uint8_t k : {0, 1, 255})
            w.bag[k] = k % 100;
        w.tags = {bitrep::ranged<int, 0, 15>(0), bitrep::ranged<int, 0, 15>(7), bitrep::ranged<int, 0, 15>(15)};
        w.cooldown = std::chrono::milliseconds(60'000);
        break;
    case 5: // everything gone
        w = World{};
        break;
    default: // every slot and container full, at the bounds
        for (std::size_t id = 0; id < 6; ++id) {
            Body& b = w.bodies.contains(id) ? w.bodies[id] : w.bodies.emplace(id);
            b.x = id % 2 == 0 ? 100.0f : -100.0f;
            b.z = 50.0f;
            b.code.largest = static_cast<std::uint8_t>(id % 4);
            b.name = "eightch" + std::to_string(id);
            while (b.items.size() < 4)
                b.items.push_back(Item{static_cast<Kind>(b.items.size()), 1 + static_cast<int>(id)});
            b.mood = 3;
            b.flags = {true, true, true};
        }
        for (std::uint8_t k = 0; w.bag.size() < 6; ++k)
            w.bag[k] = 99;
        for (int k = 0; w.tags.size() < 5; ++k)
            w.tags.insert(15 - k);
        break;
    }
    return w;
}

} // namespace fuzz

/// Seeds: the coded deltas from the harness's baseline (predicted from its
/// older state) to states that change each kind, each read back as it was
/// written.
void bitrep_fuzz_seeds(std::vector<std::vector<std::uint8_t>>& seeds)
{
    const fuzz::states s;
    bitrep::delta_coder<fuzz::World> coder;
    for (int i = 0; i < 7; ++i) {
        const fuzz::World current = fuzz::seed_state(s, i);
        std::vector<std::uint8_t> packet(1 << 15);
        std::size_t bytes = 0;
        fuzz::World decoded;
        if (!coder.write(packet, bytes, s.older, s.base, current) ||
            !coder.read(std::span<const std::uint8_t>(packet.data(), bytes), s.older, s.base, decoded) ||
            !bitrep::same_on_wire<bitrep::scope::replication>(decoded, current)) {
            std::fprintf(stderr, "coded_delta_seeds: state %d does not code and decode\n", i);
            std::abort();
        }
        packet.resize(bytes);
        seeds.push_back(std::move(packet));
    }
}
#endif
