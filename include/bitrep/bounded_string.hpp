// Forwarding header, kept for one release (bitrep 0.1 → 0.2): this header
// moved to <bitrep/annotations/bounded_string.hpp>.
#pragma once

#include <bitrep/annotations/bounded_string.hpp>
