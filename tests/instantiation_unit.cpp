// The one file that compiles game::Probe's codecs (see instantiation_types.hpp).
#include "instantiation_types.hpp"

BITREP_INSTANTIATE(game::Probe)
