// Forwarding header, kept for one release (bitrep 0.1 → 0.2): this header
// moved to <bitrep/save/path_view.hpp>.
#pragma once

#include <bitrep/save/path_view.hpp>
