// Every field annotation.
#pragma once

#include <bitrep/annotations/adapted.hpp>
#include <bitrep/annotations/bounded_map.hpp>
#include <bitrep/annotations/bounded_string.hpp>
#include <bitrep/annotations/bounded_vector.hpp>
#include <bitrep/annotations/delta_small.hpp>
#include <bitrep/annotations/duration.hpp>
#include <bitrep/annotations/entity_array.hpp>
#include <bitrep/annotations/field_flags.hpp>
#include <bitrep/annotations/quantized.hpp>
#include <bitrep/annotations/quat.hpp>
#include <bitrep/annotations/ranged.hpp>
#include <bitrep/format.hpp>
#include <bitrep/quat_code.hpp>
