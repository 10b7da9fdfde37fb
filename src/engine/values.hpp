// Whole values on the engine's entries, for the library's other walks (the
// schema-driven load): assign_value in compare.cpp, read_whole in delta.cpp.
#pragma once

#include <bitrep/engine/table.hpp>

namespace bitrep::engine {

/// to = from, part by part, as a delta's reader takes a baseline's value.
void assign_value(const field_entry& entry, void* to, const void* from);

/// A whole value read by its kind's rule from a save payload.
bool read_whole(basic_read_stream<scope::save>& stream, const field_entry& entry, void* value);

} // namespace bitrep::engine
