// Walking whole values of a save file's payload by its own schema, without
// the program's types, through a visitor: bitrep-inspect builds JSON with
// it, and the schema-driven load skips fields the program no longer has
// (skip_value, src/schema_reader.cpp). Each value is read by its kind's entry
// in the table of kinds (schema_kinds.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <bitrep/annotations/quat.hpp>
#include "schema_kinds.hpp"
#include <bitrep/save/schema_node.hpp>
#include <bitrep/save/schema_reader.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep::detail {

/// What a kind's walk reads with: the stream, the file's schema, the
/// visitor, and value() for the parts of a composite.
template <class Visitor>
struct schema_walker {
    save_read_stream& stream;
    const schema& tree;
    Visitor& visitor;
    walk_budget& budget;

    bool value(std::uint32_t index)
    {
        if (budget.values_left == 0) [[unlikely]]
            return stream.fail(error::corrupt, stream.position(), "more values than the payload could hold");
        --budget.values_left;
        return with_kind(tree.nodes[index].kind, [&](auto entry) { return entry.walk(*this, index); });
    }
};

/// Walks one value of node `index` and hands each part to `visitor`:
///   scalar(node, integer_value) / real(node, double) / text(node, std::string&)
///   enumerator(node, enumerator_node) / rotation(node, quat<3>&)
///   begin_struct(node) field(field_node) end_struct()
///   begin_list(node, count) end_list() / absent(node)
///   begin_variant(node, alternative_node) end_variant()
///   opaque(node): a hook-serialized value, which cannot be read without
///   its program (its length is the hook's), so the walk stops there with
///   schema_mismatch.
template <class Visitor>
bool walk_value(save_read_stream& stream, const schema& tree, std::uint32_t index, Visitor& visitor,
                walk_budget& budget)
{
    schema_walker<Visitor> walker{stream, tree, visitor, budget};
    return walker.value(index);
}

/// Reads a value and drops it (a field the program no longer has).
struct skipping_visitor {
    void scalar(const schema_node&, const integer_value&) {}
    void real(const schema_node&, double) {}
    void rotation(const schema_node&, const quat<3>&) {}
    void enumerator(const schema_node&, const schema_node&) {}
    void text(const schema_node&, std::string&) {}
    void begin_list(const schema_node&, std::uint64_t) {}
    void end_list() {}
    void absent(const schema_node&) {}
    void begin_struct(const schema_node&) {}
    void field(const schema_node&) {}
    void end_struct() {}
    void begin_variant(const schema_node&, const schema_node&) {}
    void end_variant() {}
    void opaque(const schema_node&) {}
};

} // namespace bitrep::detail
