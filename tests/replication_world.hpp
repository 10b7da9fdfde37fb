// The entities the replication tests and the libFuzzer targets share,
// declared once: the Cube and a body of every annotation kind. No GoogleTest
// here: the fuzz targets (tests/fuzz/) include it too. The shared worlds of
// cubes and dots are replicated_worlds.hpp's; the GoogleTest harness around
// them (a moving world, a server and clients in lockstep, the wire-space
// checks) is replication_fixtures.hpp.
#pragma once

#include <bitrep/annotations/delta_small.hpp>
#include <bitrep/annotations/entity_array.hpp>
#include <bitrep/bitrep.hpp>
#include <bitrep/quat_code.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>

// ---------------------------------------------------------------- the cube

// A cube of the replicated worlds (replication_test.cpp, fuzz/replication_fuzz.cpp).
// At namespace scope like the worlds holding it: error paths name the root
// type ("World.cubes[2].x"), and reflect::type_name keeps a namespace.
using Coordinate = bitrep::quantized<-256.f, 256.f, 0.01f>; // 51200 quanta: 16 bits

struct Cube {
    Coordinate x, y, z;
    bitrep::quat<9> orientation;
    bool interacting = false;
};
BOOST_DESCRIBE_STRUCT(Cube, (), (x, y, z, orientation, interacting))

// ---------------------------------------------------------------- a body of every kind

// An entity with a field of every annotation kind, for the coded deltas
// (coded_delta_test.cpp, fuzz/coded_delta_fuzz.cpp); each file holds its
// bodies in a world of its own size. Boost.PFR aggregates: error paths name
// their fields by index ("World.#0[0].#5" is bodies[0].health).
namespace every_kind {

enum class Kind { none, sword, shield, potion };
BOOST_DESCRIBE_ENUM(Kind, none, sword, shield, potion)

struct Item {
    Kind kind = Kind::none;
    bitrep::ranged<int, 1, 64> count{1};
};

struct Body {
    bitrep::quantized<-100.f, 100.f, 0.01f> x, y;
    bitrep::delta_small<bitrep::quantized<0.f, 50.f, 0.05f>, 7> z;
    bitrep::quat<9> orientation;
    bitrep::quat_code<9> code;
    bitrep::ranged<int, 0, 100> health{100};
    bitrep::ranged<std::int64_t, -5000000000, 5000000000> gold;
    std::int32_t score = 0;
    std::uint64_t id = 0;
    float raw = 0;
    bool alive = true;
    bitrep::bounded_string<8> name;
    bitrep::bounded_vector<Item, 4> items;
    std::optional<bitrep::ranged<int, -3, 3>> mood;
    std::array<bool, 3> flags{};
    bitrep::save_only<int> saved;           // not on the replication wire
    bitrep::transient<std::string> cache;   // never encoded
};

} // namespace every_kind
