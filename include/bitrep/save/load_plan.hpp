// The plan of the schema-driven load (docs/formats/save-format.md, section
// 3): what bind() (save/schema_bind.hpp) works out once per load, per node
// of the file's schema, and load_by_plan(), the second pass, which reads the
// file's values into the program's by it, walking the engine's entries.
// Below the engine (tools/check_house.py, rule 3): the engine defines
// load_by_plan (src/engine/load.cpp) without any header of save/'s own
// layer, and save/ (bind(), save.hpp's load) fills the plan.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <bitrep/save/schema_node.hpp>
#include <bitrep/save/schema_reader.hpp>

namespace bitrep::engine {
struct field_entry;
}

namespace bitrep::detail {

/// What bind() worked out, per node of the file's schema.
struct load_plan {
    const schema& file;
    /// For a struct's field: the program's field position it loads into;
    /// for an enumerator: the program's enumerator index; -1 for none
    /// (a field the program no longer has, an enumerator it dropped).
    std::vector<std::int32_t> target;
    /// For a struct node: the program's fields the file lacks, which get
    /// their default values ([begin, end) in missing_fields).
    std::vector<std::pair<std::uint32_t, std::uint32_t>> missing;
    std::vector<std::uint32_t> missing_fields;
    /// Nodes whose whole subtree the program encodes exactly as the file
    /// does (same kinds, bounds, names and order): read with the program's
    /// own codecs, as on the fast path. Most of a changed struct is such
    /// subtrees (a transform, an item), so the schema path costs little more
    /// than the fast one where nothing changed.
    std::vector<std::uint8_t> identical;
    /// Per node: the fewest bits any value of it takes, so that a vector's
    /// count can be checked against what is left of the payload before
    /// anything is allocated for it.
    std::vector<std::uint64_t> min_bits;
    /// The file's struct fields the program does not load (removed, or no
    /// longer saved): data the file holds that the load leaves behind.
    std::vector<std::uint32_t> dropped;
    /// The file's struct nodes whose fields, matched by name, stand in
    /// another order than the program's: each value reaches its own field,
    /// but the layout changed (positional fields cannot be seen so).
    std::vector<std::uint32_t> reordered;
    /// With load_options::clamp_out_of_range, per node: how many of its
    /// values lay outside the program's range and loaded as the nearest
    /// bound. Empty without it: such a value is refused.
    std::vector<std::uint64_t> clamped;
    /// A struct or hook type (the root aside) has another version in the
    /// file than in the program: an older one, since bind() refuses a newer
    /// (newer_version). load_by_plan runs the migrate of each of its values.
    bool versions_differ = false;
    walk_budget budget;

    explicit load_plan(const schema& file_schema);
};

/// The second pass: reads the file's node `f` into `object`, a value of
/// `value`'s type, by the plan bind() made, converting each value and
/// refusing one that does not fit (out_of_range; a number outside the
/// program's range is clamped and counted instead when `plan.clamped` is
/// sized). Each value of a struct or hook type, the root aside, whose
/// version in the file is older than the program's gets its migrate as soon
/// as it is read (inner before outer); one that refuses fails the load
/// (hook_failed, naming the value). Compiled once, in src/engine/load.cpp.
/// `object` is garbage on failure.
bool load_by_plan(save_read_stream& stream, load_plan& plan, std::uint32_t f, const engine::field_entry& value,
                  void* object);

} // namespace bitrep::detail
