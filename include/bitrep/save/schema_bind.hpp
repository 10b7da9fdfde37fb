// The first pass of the schema-driven load (docs/formats/save-format.md, section 3):
// bind() compares a file's schema with the program's once per load, without
// reading a value. It matches struct fields (by name, else by position) and
// enumerators (by name), refuses kinds that cannot be converted
// (schema_mismatch, naming the field), and marks the subtrees the program
// encodes exactly as the file does. What it works out, per node of the
// file's schema, is the load_plan (save/load_plan.hpp) that load_by_plan()
// reads by. Compiled once, in src/schema_bind.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <bitrep/failure_record.hpp>
#include <bitrep/save/load_plan.hpp>
#include <bitrep/save/schema.hpp>
#include <bitrep/save/schema_reader.hpp>

namespace bitrep::detail {

/// Where a node of a file's schema sits, for load_info and messages, e.g.
/// `Hero.inventory[].weight` (a vector's or array's element is `[]`).
std::string schema_path(const schema& file, std::uint32_t node, std::string_view root);

/// Matches the file's node `f` with the program's node `p` (see the top),
/// filling the plan; on a mismatch records schema_mismatch, naming the
/// field, and returns false. A struct or hook type the file holds in a newer
/// version than the program's is refused (newer_version, naming it); the
/// root's version is the caller's to check.
bool bind(load_plan& plan, std::uint32_t f, const schema& program, std::uint32_t p, failure_record& failure);

} // namespace bitrep::detail
