// A type whose codecs are compiled once, in instantiation_unit.cpp, and used
// from instantiation_test.cpp through BITREP_EXTERN.
#pragma once

#include <bitrep/bitrep.hpp>

#include <boost/describe/class.hpp>

#include <cstdint>

namespace game {
struct Probe {
    bitrep::ranged<int, 0, 100> health = 100;
    bitrep::quantized<-100.f, 100.f, 0.01f> x;
    bool alive = true;
    bitrep::bounded_string<12> name;
    bitrep::save_only<std::uint32_t> seed = 0;
};
BOOST_DESCRIBE_STRUCT(Probe, (), (health, x, alive, name, seed))
} // namespace game

BITREP_EXTERN(game::Probe)
