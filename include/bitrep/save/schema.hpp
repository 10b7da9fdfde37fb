// The schema a save file carries: every saved field's kind, bounds,
// nesting, and its name (Boost.Describe) or position (Boost.PFR). It is built
// from T's codecs (each codec's describe facet), written once per file, and
// read back without T, so that a file stays loadable after T changes and can
// be printed by a tool that has never seen T (docs/save-format.md, section 2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <bitrep/detail/checksums.hpp>
#include <bitrep/save/schema_kinds.hpp>
#include <bitrep/save/schema_node.hpp>
#include <bitrep/serialize.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/quantize.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep {

/// The 64-bit fingerprint of a schema's encoding (CRC-64/XZ, Boost.CRC):
/// equal fingerprints mean the file's layout is the program's, and the
/// payload can be decoded directly.
inline std::uint64_t schema_fingerprint(std::span<const std::uint8_t> encoded) noexcept
{
    return detail::crc64_xz(encoded);
}

namespace detail {

inline node_role role_in(const schema& tree, const schema_node& node) noexcept
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

inline bool parse_schema_node(read_stream& stream, schema& tree, std::uint32_t parent, node_role role,
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

/// Writes a schema's encoding (what a save file carries) into `out`.
inline status encode_schema(const schema& tree, std::vector<std::uint8_t>& out)
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

/// Reads a schema encoding. Refuses (corrupt, truncated, ...) anything
/// malformed, deeper than 32 levels, with more than 4096 fields or
/// enumerators in one node or 65536 nodes in all, or with bits left over.
inline status parse_schema(std::span<const std::uint8_t> encoded, schema& out)
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

/// Builds a schema from the codecs' describe facets: each codec calls the
/// member for its kind, and a container or struct wraps its children in
/// begin_... / end(). Only what a save file carries is described.
class schema_builder {
public:
    static constexpr scope field_scope = scope::save;

    void boolean() { add(schema_kind::boolean); }
    void integer(bool is_signed, std::size_t bytes)
    {
        schema_node& node = add(schema_kind::integer);
        node.is_signed = is_signed;
        node.bits = static_cast<std::uint32_t>(bytes * 8);
    }
    void ranged(bool is_signed, std::uint64_t min, std::uint64_t max)
    {
        schema_node& node = add(schema_kind::ranged);
        node.is_signed = is_signed;
        node.min = min;
        node.max = max;
    }
    void float32() { add(schema_kind::float32); }
    void float64() { add(schema_kind::float64); }
    void quantized(float min, float max, float resolution)
    {
        schema_node& node = add(schema_kind::quantized);
        node.real_min = min;
        node.real_max = max;
        node.resolution = resolution;
        detail::quantized_kind::derive(node);
    }
    void quat(int bits_per_component)
    {
        schema_node& node = add(schema_kind::quat);
        node.bits = static_cast<std::uint32_t>(bits_per_component);
        detail::quat_kind::derive(node);
    }
    void string(std::size_t max_length) { add(schema_kind::string).max = max_length; }
    void opaque(std::string_view type_name) { add(schema_kind::opaque).type_name = clipped(type_name); }

    void begin_enumeration(std::string_view type_name, bool is_signed)
    {
        schema_node& node = open(schema_kind::enumeration);
        node.type_name = clipped(type_name);
        node.is_signed = is_signed;
    }
    void enumerator(std::string_view name, std::uint64_t value)
    {
        schema_node& node = add(schema_kind::enumerator);
        node.name = clipped(name);
        node.min = value;
    }
    void begin_vector(std::size_t max_size) { open(schema_kind::vector).max = max_size; }
    void begin_array(std::size_t count) { open(schema_kind::array).max = count; }
    void begin_optional() { open(schema_kind::optional); }
    void begin_struct(std::string_view type_name) { open(schema_kind::structure).type_name = clipped(type_name); }

    /// Names the next node as a field of the open struct.
    void field(std::string_view name, std::size_t position)
    {
        pending_name_ = clipped(name);
        pending_position_ = static_cast<std::uint32_t>(position);
    }
    /// A described base class: a field named ":" and its type.
    void base(std::string_view type_name, std::size_t position)
    {
        field(std::string(":").append(type_name), position);
    }
    /// The field just named is not carried by this schema's scope.
    void drop_field() { pending_name_.clear(); }

    void end()
    {
        tree_.nodes[open_.back()].end = static_cast<std::uint32_t>(tree_.nodes.size());
        open_.pop_back();
    }

    schema take() { return std::move(tree_); }

private:
    static std::string clipped(std::string_view text)
    {
        return std::string(text.substr(0, schema_limits::max_name));
    }

    schema_node& add(schema_kind kind)
    {
        schema_node node;
        node.kind = kind;
        node.parent = open_.empty() ? schema_node::none : open_.back();
        node.end = static_cast<std::uint32_t>(tree_.nodes.size() + 1);
        if (node.parent != schema_node::none) {
            ++tree_.nodes[node.parent].children;
            if (tree_.nodes[node.parent].kind == schema_kind::structure) {
                node.name = std::move(pending_name_);
                node.position = pending_position_;
            }
        }
        pending_name_.clear();
        tree_.nodes.push_back(std::move(node));
        return tree_.nodes.back();
    }
    schema_node& open(schema_kind kind)
    {
        schema_node& node = add(kind);
        open_.push_back(static_cast<std::uint32_t>(tree_.nodes.size() - 1));
        return node;
    }

    schema tree_;
    std::vector<std::uint32_t> open_;
    std::string pending_name_;
    std::uint32_t pending_position_ = 0;
};

/// T's schema, its encoding and fingerprint, built once per program.
struct program_schema {
    schema tree;
    std::vector<std::uint8_t> encoded;
    std::uint64_t fingerprint = 0;
    status built; ///< not ok when T exceeds the schema's limits (e.g. > 4096 fields)
};

template <class T>
const program_schema& schema_of()
{
    static const program_schema built = [] {
        schema_builder builder;
        codec<T>::describe(builder);
        program_schema result;
        result.tree = builder.take();
        result.built = encode_schema(result.tree, result.encoded);
        result.fingerprint = schema_fingerprint(result.encoded);
        return result;
    }();
    return built;
}

} // namespace bitrep
