// The worlds the replication tests and fuzz/two_way_fuzz.cpp replicate,
// declared once: World (cubes) and Tiny (dots). Apart from
// replication_world.hpp, whose Cube and every_kind::Body are also included by
// files that declare a World of their own (allocation_bound_test.cpp,
// coded_delta_test.cpp, the coded_delta and replication fuzzers): a second
// World at namespace scope would make theirs ambiguous.
//
// Worlds declared elsewhere differ on purpose:
// - world_history_test.cpp's Field: its recorded packet hashes pin those
//   exact bytes, so its Rock stays its own.
// - fuzz/replication_fuzz.cpp's: fewer slots and a field of each container
//   kind for the fuzzer to reach.
// - allocation_bound_test.cpp's: fields that hold heap memory, for the bound.
// - replication_test.cpp's Wide (4,096 slots: views compared by hash),
//   Logged, LabelledWorld and Noise: each tests what its fields are.
#pragma once

#include <bitrep/annotations/entity_array.hpp>
#include <bitrep/bitrep.hpp>

#include "replication_world.hpp"

#include <cstdint>

// At namespace scope, as the worlds are: error paths name the root type
// ("World.cubes[2].x"), and reflect::type_name keeps a namespace.

/// 256 cube slots: a one-byte slot index.
struct World {
    bitrep::ranged<std::uint32_t, 0, 1'000'000> tick;
    bitrep::entity_array<Cube, 256> cubes;
    bitrep::save_only<std::uint64_t> seed;
};
BOOST_DESCRIBE_STRUCT(World, (), (tick, cubes, seed))

/// A state cheap enough to replicate past the 16-bit sequence range in a
/// test: four slots of one small field.
struct Dot {
    bitrep::ranged<std::uint32_t, 0, 100'000> x;
};
BOOST_DESCRIBE_STRUCT(Dot, (), (x))

struct Tiny {
    bitrep::ranged<std::uint32_t, 0, 1'000'000> tick;
    bitrep::entity_array<Dot, 4> dots;
};
BOOST_DESCRIBE_STRUCT(Tiny, (), (tick, dots))
