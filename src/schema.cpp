// The schema's encoding and parsing (docs/formats/save-format.md, section 2),
// compiled once: every kind's part of a node is its entry in the table of
// kinds.
#include <bitrep/save/schema.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "schema_kinds.hpp"

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

/// One node's head: as a field, its name and position; as an enumerator,
/// its name and value; else its kind. `expected` is what its position or
/// value would be if it followed the previous sibling's by one.
template <class Stream, class Code>
bool serialize_node_head(Stream& stream, Code& code, schema_node& node, node_role role, std::uint64_t expected)
{
    if (role == node_role::field) {
        std::uint64_t position = node.position;
        if (!code.text(stream, node.name) ||
            !code.next(stream, position, expected, schema_limits::max_children - 1))
            return false;
        node.position = static_cast<std::uint32_t>(position);
    }
    if (role == node_role::enumerator) {
        node.kind = schema_kind::enumerator;
        return code.text(stream, node.name) && code.next(stream, node.min, expected, ~std::uint64_t{0});
    }
    std::uint64_t kind = static_cast<std::uint64_t>(node.kind);
    if (!stream.serialize_ranged_offset(kind, schema_kind_count - 1))
        return false;
    node.kind = static_cast<schema_kind>(kind);
    return true;
}

/// What the next sibling's position (or value) is expected to be.
std::uint64_t after(const schema_node& node, node_role role) noexcept
{
    return role == node_role::enumerator ? node.min + 1 : std::uint64_t{node.position} + 1;
}

/// The kind that no node writes as its own (an enumerator's is implied by
/// its parent) marks, in the compact encoding, a copy of an earlier subtree.
constexpr schema_kind copy_marker = schema_kind::enumerator;

/// For each node, the earlier node whose subtree it repeats and that is
/// worth referring to instead (itself when none): only the compact
/// encoding refers to copies.
using copy_table = std::vector<std::uint32_t>;

/// Appends a copy of the complete subtree at `original` as node `head`'s
/// subtree (the copy takes head's name and position), refusing a copy that
/// would break the limits a reader keeps.
bool append_copy(read_stream& stream, schema& tree, const schema_node& head, std::uint64_t original,
                 std::size_t depth, std::size_t start)
{
    std::vector<schema_node>& nodes = tree.nodes;
    const auto from = static_cast<std::uint32_t>(original);
    if (nodes[from].end <= from || nodes[from].kind == schema_kind::enumerator) [[unlikely]]
        return stream.fail(error::corrupt, start, "schema: a copy of a node that is not a complete value");
    const std::uint32_t size = nodes[from].end - from;
    if (nodes.size() + size > schema_limits::max_nodes) [[unlikely]]
        return stream.fail(error::corrupt, start, "schema: more than 65536 nodes");
    const auto base = static_cast<std::uint32_t>(nodes.size());
    std::vector<std::uint8_t> depths(size, 0);
    for (std::uint32_t k = 0; k < size; ++k) {
        schema_node node = nodes[from + k];
        if (k == 0) {
            node.parent = head.parent;
            node.name = head.name;
            node.position = head.position;
        } else {
            depths[k] = static_cast<std::uint8_t>(depths[node.parent - from] + 1);
            if (depth + depths[k] > schema_limits::max_depth) [[unlikely]]
                return stream.fail(error::corrupt, start, "schema: nested deeper than 32 levels");
            node.parent = node.parent - from + base;
        }
        node.end = node.end - from + base;
        nodes.push_back(std::move(node));
    }
    return true;
}

/// Node `index` and its subtree, written from `tree` or read and appended
/// to it in depth-first order (node `index` then being the next one, a
/// child of `parent`): the one description of the schema encoding for both
/// codes (docs/formats/save-format.md, section 2). A node is its head; then, in the
/// compact code, either a reference to the earlier subtree it repeats (the
/// copy marker and that node's index) or its kind's body and its children,
/// each in the role its kind gives them and expected to follow its previous
/// sibling's position by one.
template <class Stream, class Code, class Tree>
bool serialize_subtree(Stream& stream, Code& code, Tree& tree, const copy_table& copies, std::uint32_t index,
                       std::uint32_t parent, node_role role, std::uint64_t expected, std::size_t depth)
{
    constexpr bool reading = Stream::is_reading;
    if constexpr (reading) {
        if (depth > schema_limits::max_depth) [[unlikely]]
            return stream.fail(error::corrupt, stream.position(), "schema: nested deeper than 32 levels");
        if (tree.nodes.size() >= schema_limits::max_nodes) [[unlikely]]
            return stream.fail(error::corrupt, stream.position(), "schema: more than 65536 nodes");
    }
    const std::size_t start = stream.position();
    schema_node node; // the streams take the node by reference, for reading
    if constexpr (reading)
        node.parent = parent;
    else
        node = tree.nodes[index];
    if (!reading && !copies.empty() && copies[index] != index)
        node.kind = copy_marker;
    if (!serialize_node_head(stream, code, node, role, expected))
        return false;
    if (role != node_role::enumerator && node.kind == copy_marker) {
        if constexpr (reading && !std::is_same_v<Code, compact_schema_code>) {
            return stream.fail(error::corrupt, start, "schema: enumerator outside an enum");
        } else {
            std::uint64_t original = reading ? 0 : copies[index];
            if (index == 0) [[unlikely]]
                return stream.fail(error::corrupt, start, "schema: the root is a copy");
            if (!stream.serialize_ranged_offset(original, index - 1))
                return false;
            if constexpr (reading)
                return append_copy(stream, tree, node, original, depth, start);
            return true;
        }
    }
    if (role != node_role::enumerator &&
        !with_kind(node.kind, [&](auto entry) { return entry.serialize_node(stream, code, node, start); }))
        return false;
    const node_role child_role = with_kind(node.kind, [](auto entry) { return decltype(entry)::child_role; });
    const std::uint32_t children = node.children;
    if constexpr (reading) {
        node.end = 0; // open until its children are read: no copy of it can be made
        tree.nodes.push_back(std::move(node));
    }
    std::uint64_t next = 0;
    for (std::uint32_t i = 0, child = index + 1; i < children; ++i, child = tree.nodes[child].end) {
        if (!serialize_subtree(stream, code, tree, copies, child, index, child_role, next, depth + 1))
            return false;
        next = after(tree.nodes[child], child_role);
    }
    if constexpr (reading)
        tree.nodes[index].end = static_cast<std::uint32_t>(tree.nodes.size());
    return true;
}

/// Writes node `index` and its subtree as a value (with a copy table only in
/// the compact code).
template <class Stream, class Code>
bool write_subtree(Stream& stream, Code& code, const schema& tree, const copy_table& copies, std::uint32_t index)
{
    return serialize_subtree(stream, code, tree, copies, index, schema_node::none, node_role::value, 0, 0);
}

/// What makes two subtrees alike, given the shapes of the node's children
/// (their names and positions are part of their parent's shape; the node's
/// own are not, since a copy takes them from where it is used), and, where
/// the encoding records them, versions.
std::string shape_key(const schema& tree, std::uint32_t index, const std::vector<std::uint32_t>& shapes,
                      bool versions)
{
    const schema_node& node = tree.nodes[index];
    std::string key;
    auto number = [&key](std::uint64_t value) { key.append(reinterpret_cast<const char*>(&value), sizeof value); };
    auto text = [&](const std::string& value) {
        number(value.size());
        key.append(value);
    };
    number(static_cast<std::uint64_t>(node.kind) | std::uint64_t{node.is_signed} << 8 | std::uint64_t{node.bits} << 16);
    number(node.min);
    number(node.max);
    number(std::bit_cast<std::uint32_t>(node.real_min) | std::uint64_t{std::bit_cast<std::uint32_t>(node.real_max)} << 32);
    number(std::bit_cast<std::uint32_t>(node.resolution) | (versions ? std::uint64_t{node.version} << 32 : 0));
    text(node.type_name);
    for (std::uint32_t child = index + 1; child < node.end; child = tree.nodes[child].end) {
        text(tree.nodes[child].name);
        number(std::uint64_t{tree.nodes[child].position} << 32 | shapes[child]);
    }
    return key;
}

/// Which subtrees the compact encoding writes as a copy of an earlier one:
/// those whose own encoding takes more bits than the reference (its kind
/// and the earlier node's index). Struct types used in several places
/// (a position and a velocity of one vector type) are written once.
copy_table find_copies(const schema& tree, compact_schema_code& code)
{
    const std::vector<schema_node>& nodes = tree.nodes;
    std::vector<std::uint32_t> shapes(nodes.size());
    std::unordered_map<std::string, std::uint32_t> known;
    for (std::size_t i = nodes.size(); i-- > 0;)
        shapes[i] = known.emplace(shape_key(tree, static_cast<std::uint32_t>(i), shapes, code.records_versions()),
                                  known.size())
                        .first->second;
    copy_table copies(nodes.size());
    std::unordered_map<std::uint32_t, std::uint32_t> first_of_shape;
    std::unordered_map<std::uint32_t, std::size_t> bits_of_shape;
    for (std::uint32_t i = 0; i < nodes.size(); ++i) {
        copies[i] = i;
        const auto [first, fresh] = first_of_shape.emplace(shapes[i], i);
        if (fresh || nodes[i].kind == schema_kind::enumerator)
            continue;
        auto [bits, unmeasured] = bits_of_shape.emplace(shapes[i], 0);
        if (unmeasured) {
            measure_stream measure;
            static_cast<void>(write_subtree(measure, code, tree, copies, first->second));
            bits->second = measure.exact_bits();
        }
        const std::size_t reference_bits = 4 + static_cast<std::size_t>(bits_required_for_span(i - 1));
        if (bits->second > reference_bits)
            copies[i] = first->second;
    }
    return copies;
}

} // namespace detail

status encode_schema(const schema& tree, std::vector<std::uint8_t>& out, schema_encoding encoding)
{
    out.clear();
    if (tree.nodes.empty())
        return {};
    detail::inline_schema_code names_inline;
    const bool compact = encoding != schema_encoding::names_inline;
    const bool versions = encoding == schema_encoding::compact_versioned;
    detail::compact_schema_code code =
        compact ? detail::compact_schema_code(tree, versions) : detail::compact_schema_code(versions);
    const detail::copy_table copies = compact ? detail::find_copies(tree, code) : detail::copy_table();
    auto encode = [&](auto& stream) {
        if (!compact)
            return detail::write_subtree(stream, names_inline, tree, copies, 0);
        return code.serialize_table(stream) &&
               detail::write_subtree(stream, code, tree, copies, 0);
    };
    measure_stream measure;
    static_cast<void>(encode(measure));
    out.assign((measure.exact_bits() + 7) / 8, 0);
    write_stream stream(out);
    if (!encode(stream)) {
        out.clear();
        return stream.failure_status("schema");
    }
    out.resize(stream.flush());
    return {};
}

namespace detail {
bool has_nested_versions(const schema& tree) noexcept
{
    return std::any_of(tree.nodes.begin() + (tree.nodes.empty() ? 0 : 1), tree.nodes.end(),
                       [](const schema_node& node) { return node.version != 1; });
}
} // namespace detail

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

status parse_schema(std::span<const std::uint8_t> encoded, schema& out, schema_encoding encoding)
{
    out.nodes.clear();
    read_stream stream(encoded);
    auto parse = [&](auto& code) {
        return detail::serialize_subtree(stream, code, out, detail::copy_table(), 0, schema_node::none,
                                         detail::node_role::value, 0, 0);
    };
    detail::compact_schema_code compact(encoding == schema_encoding::compact_versioned);
    detail::inline_schema_code names_inline;
    const bool parsed = encoding != schema_encoding::names_inline ? compact.serialize_table(stream) && parse(compact)
                                                                  : parse(names_inline);
    if (!parsed) {
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
