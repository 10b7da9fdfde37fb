// The schema-driven load's first pass (docs/formats/save-format.md, section 3):
// bind() (schema_bind.hpp) and the load plan it fills (load_plan.hpp). Every
// kind's part is its entry in the table of kinds.
#include <bitrep/save/schema_bind.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <bitrep/detail/portability.hpp>

#include "schema_kinds.hpp"

namespace bitrep::detail {

load_plan::load_plan(const schema& file_schema)
    : file(file_schema), target(file_schema.nodes.size(), -1), missing(file_schema.nodes.size(), {0, 0}),
      identical(file_schema.nodes.size(), 0), min_bits(file_schema.nodes.size(), 0)
{
    // Depth-first order puts children after their parent: walking
    // backwards finishes every child before its parent needs it.
    for (std::size_t i = file.nodes.size(); i-- > 0;) {
        const auto index = static_cast<std::uint32_t>(i);
        min_bits[i] = with_kind(file.nodes[i].kind,
                                [&](auto entry) { return entry.fewest_bits(file, index, min_bits); });
    }
}

std::string schema_path(const schema& file, std::uint32_t node, std::string_view root)
{
    std::vector<std::string> parts;
    for (std::uint32_t at = node; file.nodes[at].parent != schema_node::none; at = file.nodes[at].parent) {
        const schema_node& here = file.nodes[at];
        const schema_node& parent = file.nodes[here.parent];
        if (parent.kind == schema_kind::structure)
            parts.push_back(here.name.empty() ? ".#" + std::to_string(here.position) : "." + here.name);
        else if (parent.kind == schema_kind::variant)
            parts.push_back(std::string("<")
                                .append(here.name.empty() ? std::string("#").append(std::to_string(here.position))
                                                          : here.name)
                                .append(">"));
        else if (parent.kind == schema_kind::vector || parent.kind == schema_kind::array)
            parts.emplace_back("[]");
    }
    std::string path(root);
    for (auto it = parts.rbegin(); it != parts.rend(); ++it)
        path += *it;
    return path;
}


namespace {

/// A node as a mismatch names it: its kind, a struct with its type name, a
/// duration with its unit ("duration in 1/1000 s"), since a bare "struct"
/// says nothing of a cooldown.
std::string shown(const schema_node& node)
{
    if (node.kind != schema_kind::structure || node.type_name.empty())
        return std::string(to_string(node.kind));
    duration_period period;
    if (!parse_duration_period(node.type_name, period))
        return std::string(to_string(node.kind)).append(" ").append(node.type_name);
    std::string text = "duration in " + std::to_string(period.num);
    if (period.den != 1)
        text.append("/").append(std::to_string(period.den));
    return text.append(" s");
}

/// Records a schema_mismatch whose detail names both sides, e.g. "file has
/// string, program has ranged integer" (a status keeps its own copy). No bit
/// of the payload is to blame: the schemas disagree.
BITREP_COLD void record_mismatch(failure_record& failure, std::string_view what, std::string_view file,
                                   std::string_view program)
{
    std::string detail(what);
    detail.append("file has ").append(file).append(", program has ").append(program);
    failure.record(error::schema_mismatch, status::no_bit, detail);
}

/// Whether a value of the file's kind can be carried into the program's
/// (when it fits, which is checked per value).
bool convertible(schema_kind file, schema_kind program) noexcept
{
    return (with_kind(program, [](auto entry) { return decltype(entry)::loads_from; }) & kind_bit(file)) != 0;
}

/// Whether two nodes encode alike and match alike, their children aside.
/// Type names do not change an encoding (a renamed struct reads the same),
/// except a hook's; an enumerator's value does not either (the index is
/// sent), but its name decides what it means.
bool same_node(const schema_node& a, const schema_node& b) noexcept
{
    if (a.kind != b.kind || a.children != b.children || a.name != b.name || a.position != b.position)
        return false;
    return with_kind(a.kind, [&](auto entry) { return entry.same_encoding(a, b); });
}

/// Whether the program's node goes by `name` in a file: its name, or one it
/// had before (bitrep_renames).
bool known_as(const schema_node& program_node, std::string_view name) noexcept
{
    if (program_node.name == name)
        return true;
    for (const std::string& former : program_node.former_names)
        if (former == name)
            return true;
    return false;
}

bool same_subtree(const schema& file, std::uint32_t f, const schema& program, std::uint32_t p) noexcept
{
    const std::uint32_t size = file.nodes[f].end - f;
    if (program.nodes[p].end - p != size)
        return false;
    for (std::uint32_t i = 0; i < size; ++i)
        if (!same_node(file.nodes[f + i], program.nodes[p + i]))
            return false;
    return true;
}

/// A struct's or hook type's version in the file against the program's:
/// a newer one is refused, since the program cannot know what it means; an
/// older one is noted (its values' migrate runs as they are read). The
/// root's is the section's, which the load checks.
bool bind_version(load_plan& plan, std::uint32_t f, const schema_node& program_node, failure_record& failure)
{
    const schema_node& file_node = plan.file.nodes[f];
    if (f == 0 || file_node.version == program_node.version)
        return true;
    if (file_node.version > program_node.version) {
        const std::string detail = "written by save_version " + std::to_string(file_node.version) +
                                   " of this type; the program's is " + std::to_string(program_node.version);
        failure.record(error::newer_version, status::no_bit, detail);
        return false;
    }
    plan.versions_differ = true;
    return true;
}

} // namespace

namespace {

/// Which of the program's fields (`fields`, in order) the file's field is:
/// fields.size() when none. A described base is a field named ":" and its
/// stable name. The name may change with the class's (without a
/// bitrep_name), so a base no program field is named like is matched with
/// the program's base at the same position among the bases: renaming or
/// moving a base class loses nothing.
std::size_t matching_field(const schema_node& file_field, const schema& program,
                           const std::vector<std::uint32_t>& fields, const std::vector<bool>& matched) noexcept
{
    auto is_base = [](const schema_node& field) { return field.name.starts_with(':'); };
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const schema_node& program_field = program.nodes[fields[i]];
        if (!file_field.name.empty() && !program_field.name.empty() ? known_as(program_field, file_field.name)
                                                                    : file_field.position == program_field.position)
            return i;
    }
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const schema_node& program_field = program.nodes[fields[i]];
        if (!matched[i] && is_base(file_field) && is_base(program_field) &&
            file_field.position == program_field.position)
            return i;
    }
    return fields.size();
}

/// A struct's fields, each matched at most once: the file's fields the
/// program lacks are dropped, the program's the file lacks are missing.
bool bind_structure(load_plan& plan, std::uint32_t f, const schema& program, std::uint32_t p, failure_record& failure)
{
    const schema& file = plan.file;
    const schema_node& file_node = file.nodes[f];
    const schema_node& program_node = program.nodes[p];
    // A duration (a struct named after its period) loads from a duration of
    // any period, converted per value, and from nothing else; a struct from
    // no duration.
    duration_period period;
    const bool program_duration = program_node.type_name.starts_with(duration_name_prefix);
    if (parse_duration_period(file_node.type_name, period) != program_duration) {
        record_mismatch(failure, "", shown(file_node), shown(program_node));
        return false;
    }
    std::vector<std::uint32_t> program_fields; // in order
    for (std::uint32_t q = p + 1; q < program_node.end; q = program.nodes[q].end)
        program_fields.push_back(q);
    std::vector<bool> matched(program_fields.size(), false);
    std::size_t previous = 0; // the program's index of the file's previous matched field
    bool in_order = true;
    for (std::uint32_t c = f + 1; c < file_node.end; c = file.nodes[c].end) {
        const schema_node& file_field = file.nodes[c];
        const std::size_t found = matching_field(file_field, program, program_fields, matched);
        if (found == program_fields.size()) {
            plan.dropped.push_back(c);
            continue;
        }
        if (matched[found]) {
            failure.record(error::corrupt, status::no_bit, "schema: two fields of one struct match the same field");
            enter_schema_field(failure, file_field);
            return false;
        }
        matched[found] = true;
        in_order = in_order && found >= previous;
        previous = found;
        plan.target[c] = static_cast<std::int32_t>(program.nodes[program_fields[found]].position);
        if (!bind(plan, c, program, program_fields[found], failure)) {
            enter_schema_field(failure, file_field);
            return false;
        }
    }
    if (!in_order)
        plan.reordered.push_back(f);
    const auto begin = static_cast<std::uint32_t>(plan.missing_fields.size());
    for (std::size_t i = 0; i < program_fields.size(); ++i)
        if (!matched[i])
            plan.missing_fields.push_back(program.nodes[program_fields[i]].position);
    plan.missing[f] = {begin, static_cast<std::uint32_t>(plan.missing_fields.size())};
    return true;
}

/// The program's alternative (under `p`) named like the file's: none when
/// it has none; false, with the failure recorded, when two are.
bool named_alternative(const schema_node& file_alternative, const schema& program, std::uint32_t p,
                       std::uint32_t& found, failure_record& failure)
{
    found = schema_node::none;
    for (std::uint32_t q = p + 1; q < program.nodes[p].end; q = program.nodes[q].end) {
        if (!known_as(program.nodes[q], file_alternative.name))
            continue;
        if (found != schema_node::none) {
            // Stable names cut to 255 bytes, or one bitrep_name given
            // twice: which alternative is meant is unknown.
            record_mismatch(failure, "two of the program's alternatives have one name: ", file_alternative.name,
                            file_alternative.name);
            return false;
        }
        found = q;
    }
    return true;
}

/// Alternatives with names (classes, enums) match by name; those without
/// match in their order among the unnamed ones. A file's alternative the
/// program no longer has is refused per value, when a value holds it (the
/// load never drops what a player saved).
bool bind_variant(load_plan& plan, std::uint32_t f, const schema& program, std::uint32_t p, failure_record& failure)
{
    const schema& file = plan.file;
    std::vector<std::uint32_t> program_unnamed;
    for (std::uint32_t q = p + 1; q < program.nodes[p].end; q = program.nodes[q].end)
        if (program.nodes[q].name.empty())
            program_unnamed.push_back(q);
    std::size_t unnamed = 0;
    for (std::uint32_t c = f + 1; c < file.nodes[f].end; c = file.nodes[c].end) {
        const schema_node& file_alternative = file.nodes[c];
        std::uint32_t found = schema_node::none;
        if (file_alternative.name.empty()) {
            if (unnamed < program_unnamed.size())
                found = program_unnamed[unnamed];
            ++unnamed;
        } else if (!named_alternative(file_alternative, program, p, found, failure)) {
            return false;
        }
        if (found == schema_node::none)
            continue;
        plan.target[c] = static_cast<std::int32_t>(program.nodes[found].position);
        if (!bind(plan, c, program, found, failure)) {
            enter_schema_alternative(failure, file_alternative);
            return false;
        }
    }
    return true;
}

} // namespace

bool bind(load_plan& plan, std::uint32_t f, const schema& program, std::uint32_t p, failure_record& failure)
{
    const schema& file = plan.file;
    const schema_node& file_node = file.nodes[f];
    const schema_node& program_node = program.nodes[p];
    if (same_subtree(file, f, program, p)) {
        plan.identical[f] = 1;
        return true;
    }
    // An optional on either side wraps the same value: the reader steps in.
    if (program_node.kind == schema_kind::optional)
        return bind(plan, file_node.kind == schema_kind::optional ? f + 1 : f, program, p + 1, failure);
    if (file_node.kind == schema_kind::optional)
        return bind(plan, f + 1, program, p, failure);
    if (!convertible(file_node.kind, program_node.kind)) {
        record_mismatch(failure, "", shown(file_node), shown(program_node));
        return false;
    }
    switch (program_node.kind) {
    case schema_kind::enumeration:
        for (std::uint32_t e = f + 1; e < file_node.end; ++e)
            for (std::uint32_t q = p + 1; q < program_node.end; ++q)
                if (known_as(program.nodes[q], file.nodes[e].name))
                    plan.target[e] = static_cast<std::int32_t>(q - p - 1);
        return true;
    case schema_kind::vector:
    case schema_kind::array:
        if (!bind(plan, f + 1, program, p + 1, failure)) {
            failure.enter_index(0); // any element: shown as [0]
            return false;
        }
        return true;
    case schema_kind::structure:
        return bind_version(plan, f, program_node, failure) && bind_structure(plan, f, program, p, failure);
    case schema_kind::variant:
        return bind_variant(plan, f, program, p, failure);
    case schema_kind::opaque:
        // A hook's bits can only be read by the same hook: its type is known
        // by its stable name (bitrep_name, else the compiler's spelling).
        if (file_node.type_name != program_node.type_name) {
            record_mismatch(failure, "another hook type (see bitrep_name): ", file_node.type_name,
                            program_node.type_name);
            return false;
        }
        return bind_version(plan, f, program_node, failure);
    default:
        return true;
    }
}

} // namespace bitrep::detail
