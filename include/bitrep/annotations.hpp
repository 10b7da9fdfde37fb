// Every field annotation.
#pragma once

#include <bitrep/bounded_string.hpp>
#include <bitrep/bounded_vector.hpp>
#include <bitrep/delta_small.hpp>
#include <bitrep/entity_array.hpp>
#include <bitrep/field_flags.hpp>
#include <bitrep/format.hpp>
#include <bitrep/quantized.hpp>
#include <bitrep/quat.hpp>
#include <bitrep/quat_code.hpp>
#include <bitrep/ranged.hpp>
