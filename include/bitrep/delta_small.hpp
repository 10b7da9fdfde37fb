// Forwarding header, kept for one release (bitrep 0.1 → 0.2): this header
// moved to <bitrep/annotations/delta_small.hpp>.
#pragma once

#include <bitrep/annotations/delta_small.hpp>
