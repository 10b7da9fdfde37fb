// The schema a save file carries: every saved field's kind, bounds,
// nesting, and its name (Boost.Describe) or position (Boost.PFR). It is built
// from T's entry in the engine's tables (engine::describe), written once per
// file, and read back without T, so that a file stays loadable after T
// changes and can be printed by a tool that has never seen T
// (docs/save-format.md, section 2). Building, encoding and parsing are
// compiled once, in src/engine/describe.cpp and src/schema.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <bitrep/detail/checksums.hpp>
#include <bitrep/engine/entries.hpp>
#include <bitrep/renames.hpp>
#include <bitrep/save/schema_node.hpp>
#include <bitrep/serialize.hpp>
#include <bitrep/status.hpp>
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

node_role role_in(const schema& tree, const schema_node& node) noexcept;

/// Fills what a node derives from its bits (the quantizers of quantized
/// floats and quaternions).
void derive_node(schema_node& node) noexcept;
} // namespace detail

/// How a save file's schema section is encoded (docs/save-format.md,
/// section 2): formats 1 and 2 write every name where it is used and every
/// number at a fixed width; format 3 writes each name once, in a string
/// table, numbers as varints, and a repeated subtree as a reference.
enum class schema_encoding : std::uint8_t { names_inline, compact };

/// Writes a schema's encoding (what a save file carries) into `out`.
status encode_schema(const schema& tree, std::vector<std::uint8_t>& out,
                     schema_encoding encoding = schema_encoding::compact);

/// Reads a schema encoding. Refuses (corrupt, truncated, ...) anything
/// malformed, deeper than 32 levels, with more than 4096 fields or
/// enumerators in one node or 65536 nodes in all, or with bits left over.
status parse_schema(std::span<const std::uint8_t> encoded, schema& out,
                    schema_encoding encoding = schema_encoding::compact);

/// An upper bound, in bits, of the payload a value of the schema's root can
/// take: generous for each kind (64 bits for any count, index or integer,
/// 7 for each alignment), so that it never refuses a save the schema
/// describes; unbounded_bits when a serialization hook (opaque) is in it.
/// A compressed payload that claims more is refused before anything is
/// allocated for it (docs/save-format.md, section 5).
std::uint64_t max_payload_bits(const schema& tree) noexcept;

/// Builds a schema: engine::describe (and a proxy's own describe, and the
/// codecs' describe facets) calls the member for each value's kind, and a
/// container or struct wraps its children in begin_... / end(). Only what a
/// save file carries is described.
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
        detail::derive_node(node);
    }
    void quat(int bits_per_component)
    {
        schema_node& node = add(schema_kind::quat);
        node.bits = static_cast<std::uint32_t>(bits_per_component);
        detail::derive_node(node);
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
    void begin_variant() { open(schema_kind::variant); }

    /// Names the next node as a field of the open struct.
    void field(std::string_view name, std::size_t position)
    {
        pending_name_ = clipped(name);
        pending_position_ = static_cast<std::uint32_t>(position);
    }
    /// Names the next node as alternative `index` of the open variant.
    void alternative(std::string_view name, std::size_t index) { field(name, index); }
    /// A described base class: a field named ":" and its type.
    void base(std::string_view type_name, std::size_t position)
    {
        field(std::string(":").append(type_name), position);
    }
    /// The field just named is not carried by this schema's scope.
    void drop_field() { pending_name_.clear(); }

    /// For the open struct or enumeration: its child named `to` (a field,
    /// an enumerator) was named `from` before; or, when `to` is its own type
    /// name, the type was, which matters where it is a variant's
    /// alternative (bitrep_renames).
    void renamed(std::string_view from, std::string_view to)
    {
        const std::uint32_t owner = open_.back();
        schema_node& node = tree_.nodes[owner];
        if (reflect::names_type(to, node.type_name)) {
            if (node.parent != schema_node::none && tree_.nodes[node.parent].kind == schema_kind::variant)
                node.former_names.push_back(clipped(from));
            return;
        }
        renames_.push_back({owner, clipped(from), clipped(to)});
    }

    void end()
    {
        const std::uint32_t closed = open_.back();
        tree_.nodes[closed].end = static_cast<std::uint32_t>(tree_.nodes.size());
        open_.pop_back();
        attach_renames(closed);
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
            const schema_kind parent = tree_.nodes[node.parent].kind;
            if (parent == schema_kind::structure || parent == schema_kind::variant) {
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

    /// Gives the children of a node just closed their earlier names.
    void attach_renames(std::uint32_t owner)
    {
        std::erase_if(renames_, [&](const pending_rename& rename) {
            if (rename.owner != owner)
                return false;
            for (std::uint32_t c = owner + 1; c < tree_.nodes[owner].end; c = tree_.nodes[c].end)
                if (tree_.nodes[c].name == rename.to)
                    tree_.nodes[c].former_names.push_back(rename.from);
            return true;
        });
    }

    struct pending_rename {
        std::uint32_t owner;
        std::string from;
        std::string to;
    };

    schema tree_;
    std::vector<std::uint32_t> open_;
    std::vector<pending_rename> renames_;
    std::string pending_name_;
    std::uint32_t pending_position_ = 0;
};

namespace engine {
/// Describes a value of the entry's type to `builder`, as its codec's
/// describe facet does (the same calls in the same order), from the
/// tables: what the scope of saves carries.
void describe(const field_entry& value, schema_builder& builder);
} // namespace engine

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
        engine::describe(engine::entry_v<T>, builder);
        program_schema result;
        result.tree = builder.take();
        result.built = encode_schema(result.tree, result.encoded);
        result.fingerprint = schema_fingerprint(result.encoded);
        return result;
    }();
    return built;
}

} // namespace bitrep
