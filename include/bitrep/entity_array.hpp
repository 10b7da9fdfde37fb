// Forwarding header, kept for one release (bitrep 0.1 → 0.2): this header
// moved to <bitrep/annotations/entity_array.hpp>.
#pragma once

#include <bitrep/annotations/entity_array.hpp>
