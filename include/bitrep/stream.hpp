// Forwarding header, kept for one release (bitrep 0.1 → 0.2): this header
// moved to <bitrep/wire/stream.hpp>.
#pragma once

#include <bitrep/wire/stream.hpp>
