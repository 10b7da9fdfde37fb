// Forwarding header, kept for one release (bitrep 0.1 → 0.2): this header
// moved to <bitrep/annotations/ranged.hpp>.
#pragma once

#include <bitrep/annotations/ranged.hpp>
