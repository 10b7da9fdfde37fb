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
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

namespace fuzz {

// The coded delta tests' body of every kind (replication_world.hpp), in a
// smaller world.
using every_kind::Body;
using every_kind::Item;
using every_kind::Kind;

struct World {
    bitrep::entity_array<Body, 6> bodies;
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
        !bitrep::delta_codec<fuzz::World>::same<bitrep::scope::replication>(out, twice)) {
        std::fprintf(stderr, "a decoded state does not round-trip\n");
        std::abort();
    }
    return 0;
}
