// The schema's encoding and parsing (docs/save-format.md, section 2),
// compiled once: every kind's part of a node is its entry in the table of
// kinds.
#include <bitrep/save/schema.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include <bitrep/save/schema_kinds.hpp>

namespace bitrep {

std::string_view to_string(schema_kind kind) noexcept
{
    return detail::with_kind(kind, [](auto entry) { return decltype(entry)::name; });
}

namespace detail {

void derive_node(schema_node& node) noexcept
{
    with_kind(node.kind, [&](auto entry) { entry.derive(node); });
}

node_role role_in(const schema& tree, const schema_node& node) noexcept
{
    if (node.parent == schema_node::none)
        return node_role::value;
    return with_kind(tree.nodes[node.parent].kind, [](auto parent) { return decltype(parent)::child_role; });
}

/// One node's own bits (not its children), for every stream: the one
/// description of the schema encoding (docs/save-format.md, section 2).
/// What follows the kind is the kind's own (schema_kinds.hpp).
template <class Stream>
bool serialize_schema_node(Stream& stream, schema_node& node, node_role role)
{
    const std::size_t start = stream.position();
    if (role == node_role::field) {
        std::uint64_t position = node.position;
        if (!serialize_schema_text(stream, node.name) ||
            !stream.serialize_ranged_offset(position, schema_limits::max_children - 1))
            return false;
        node.position = static_cast<std::uint32_t>(position);
    }
    if (role == node_role::enumerator) {
        node.kind = schema_kind::enumerator;
        return serialize_schema_text(stream, node.name) && stream.serialize_bits(node.min, 64);
    }
    std::uint64_t kind = static_cast<std::uint64_t>(node.kind);
    if (!stream.serialize_ranged_offset(kind, schema_kind_count - 1))
        return false;
    node.kind = static_cast<schema_kind>(kind);
    return with_kind(node.kind, [&](auto entry) { return entry.serialize_node(stream, node, start); });
}

bool parse_schema_node(read_stream& stream, schema& tree, std::uint32_t parent, node_role role,
                              std::size_t depth)
{
    if (depth > schema_limits::max_depth) [[unlikely]]
        return stream.fail(error::corrupt, stream.position(), "schema: nested deeper than 32 levels");
    if (tree.nodes.size() >= schema_limits::max_nodes) [[unlikely]]
        return stream.fail(error::corrupt, stream.position(), "schema: more than 65536 nodes");
    schema_node node;
    node.parent = parent;
    if (!serialize_schema_node(stream, node, role))
        return false;
    const auto index = static_cast<std::uint32_t>(tree.nodes.size());
    const node_role child_role = with_kind(node.kind, [](auto entry) { return decltype(entry)::child_role; });
    const std::uint32_t children = node.children;
    tree.nodes.push_back(std::move(node));
    for (std::uint32_t i = 0; i < children; ++i)
        if (!parse_schema_node(stream, tree, index, child_role, depth + 1))
            return false;
    tree.nodes[index].end = static_cast<std::uint32_t>(tree.nodes.size());
    return true;
}

} // namespace detail

status encode_schema(const schema& tree, std::vector<std::uint8_t>& out)
{
    auto each_node = [&tree](auto& stream) {
        for (const schema_node& node : tree.nodes) {
            schema_node copy = node; // the streams take the node by reference, for reading
            if (!detail::serialize_schema_node(stream, copy, detail::role_in(tree, node)))
                return false;
        }
        return true;
    };
    measure_stream measure;
    static_cast<void>(each_node(measure));
    out.assign((measure.exact_bits() + 7) / 8, 0);
    write_stream stream(out);
    if (!each_node(stream)) {
        out.clear();
        return stream.failure_status("schema");
    }
    out.resize(stream.flush());
    return {};
}

std::uint64_t max_payload_bits(const schema& tree) noexcept
{
    // Bottom up: a node's children come after it in depth-first order.
    const std::vector<schema_node>& nodes = tree.nodes;
    std::vector<std::uint64_t> most(nodes.size());
    constexpr std::uint64_t count = 64 + 7; // a count or index, and an alignment
    for (std::size_t i = nodes.size(); i-- > 0;) {
        const schema_node& node = nodes[i];
        std::uint64_t children = 0;
        std::uint64_t largest_child = 0;
        for (std::size_t c = i + 1; c < node.end && c < nodes.size(); c = std::max<std::size_t>(nodes[c].end, c + 1)) {
            children = detail::add_bits(children, most[c]);
            largest_child = std::max(largest_child, most[c]);
        }
        switch (node.kind) {
        case schema_kind::boolean: most[i] = 1; break;
        case schema_kind::integer:
        case schema_kind::ranged:
        case schema_kind::float32:
        case schema_kind::float64:
        case schema_kind::quantized:
        case schema_kind::enumeration: most[i] = 64; break;
        case schema_kind::quat: most[i] = 2 + 3 * 64; break;
        case schema_kind::enumerator: most[i] = 0; break;
        case schema_kind::string: most[i] = detail::add_bits(count, detail::multiply_bits(node.max, 8)); break;
        case schema_kind::vector:
            most[i] = detail::add_bits(count, detail::multiply_bits(node.max, largest_child));
            break;
        case schema_kind::array: most[i] = detail::add_bits(7, detail::multiply_bits(node.max, largest_child)); break;
        case schema_kind::optional: most[i] = detail::add_bits(1, largest_child); break;
        case schema_kind::structure: most[i] = children; break;
        case schema_kind::variant: most[i] = detail::add_bits(count, largest_child); break;
        case schema_kind::opaque: most[i] = unbounded_bits; break;
        }
    }
    return nodes.empty() ? 0 : most[0];
}

status parse_schema(std::span<const std::uint8_t> encoded, schema& out)
{
    out.nodes.clear();
    read_stream stream(encoded);
    if (!detail::parse_schema_node(stream, out, schema_node::none, detail::node_role::value, 0)) {
        out.nodes.clear();
        // Whatever primitive refused (a length, padding, a name's UTF-8), a
        // schema that does not parse is a damaged file: one code for callers.
        const status refused = stream.failure_status("schema");
        return status(error::corrupt, refused.bit_offset(), refused.field_path(), refused.detail());
    }
    if ((stream.bit_position() + 7) / 8 != encoded.size()) {
        out.nodes.clear();
        return status(error::corrupt, stream.bit_position(), "schema", "schema: bytes left after the root node");
    }
    return {};
}

} // namespace bitrep
