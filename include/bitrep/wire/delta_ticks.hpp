// How far apart, in ticks, the three states of a coded delta are: what a
// type's own prediction (predict.hpp) is given besides the states.
#pragma once

#include <cstdint>

namespace bitrep {

/// In replication: packets, one per tick when the server sends every tick.
struct delta_ticks {
    /// From the older state to the baseline; unused when there is no older state.
    std::uint32_t older_to_baseline = 1;
    /// From the baseline to the value sent.
    std::uint32_t baseline_to_value = 1;
};

} // namespace bitrep
