// schema_builder: how a schema tree is built, one call per value in
// depth-first order (engine::describe makes the calls from a type's entry,
// a proxy's traits may make their own). Apart from schema.hpp so that the
// engine's tables can point to a proxy's describe without the schema's
// encoding.
#pragma once

#include <cstdint>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <bitrep/renames.hpp>
#include <bitrep/save/schema_node.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep {

namespace detail {
/// Fills what a node derives from its bits (the quantizers of quantized
/// floats and quaternions).
void derive_node(schema_node& node) noexcept;
} // namespace detail

/// Builds a schema: engine::describe (and a proxy's own describe) calls the
/// member for each value's kind, and a container or struct wraps its
/// children in begin_... / end(). Only what a save file carries is
/// described.
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
    void opaque(std::string_view type_name, std::uint32_t version = 1)
    {
        schema_node& node = add(schema_kind::opaque);
        node.type_name = clipped(type_name);
        node.version = version;
    }

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
    void begin_struct(std::string_view type_name, std::uint32_t version = 1)
    {
        schema_node& node = open(schema_kind::structure);
        node.type_name = clipped(type_name);
        node.version = version;
    }
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

} // namespace bitrep
