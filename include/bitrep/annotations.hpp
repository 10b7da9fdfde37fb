// Every field annotation but the durations: ranged_duration and
// quantized_duration are in <bitrep/annotations/duration.hpp> (which
// <bitrep/bitrep.hpp> includes): <chrono>, and the <sstream> it pulls in
// C++20, are large headers that a file declaring only other annotated
// types need not parse (bench/compile_time).
#pragma once

#include <bitrep/annotations/adapted.hpp>
#include <bitrep/annotations/bounded_map.hpp>
#include <bitrep/annotations/bounded_string.hpp>
#include <bitrep/annotations/bounded_vector.hpp>
#include <bitrep/annotations/delta_small.hpp>
#include <bitrep/annotations/entity_array.hpp>
#include <bitrep/annotations/field_flags.hpp>
#include <bitrep/annotations/quantized.hpp>
#include <bitrep/annotations/quat.hpp>
#include <bitrep/annotations/ranged.hpp>
#include <bitrep/format.hpp>
#include <bitrep/quat_code.hpp>
