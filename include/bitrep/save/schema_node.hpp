// The nodes of a save file's schema: every saved value's kind, bounds,
// nesting, and its name or position as a field (docs/formats/save-format.md,
// section 2). What each kind means and how it is encoded is in
// src/schema_kinds.hpp; how a tree is built, encoded and parsed in schema.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <bitrep/wire/quantize.hpp>

namespace bitrep {

enum class schema_kind : std::uint8_t {
    boolean,
    integer,     ///< full-width two's complement
    ranged,      ///< int64(value, min, max)
    float32,
    float64,
    quantized,   ///< compressed float
    quat,        ///< smallest three
    enumeration, ///< declaration index; its children are the enumerators
    enumerator,  ///< a name and a value (only as a child of an enumeration)
    string,      ///< bounded string
    vector,      ///< bounded vector: size, then elements (one child: the element)
    array,       ///< fixed count of elements (one child)
    optional,    ///< presence bit, then the value (one child)
    structure,   ///< fields in order (children)
    opaque,      ///< a serialization hook's own bits
    variant,     ///< the alternative's index, then its value (children: the alternatives, named)
};
/// 16 fills the 4 bits a node's kind takes in the schema encoding (the
/// compact encoding marks a copy of a subtree with the enumerator's, which
/// is never written as a kind): another kind would change the encoding of
/// every save, so it needs a new file format (save_header::current_format)
/// that still reads the old one.
inline constexpr std::uint64_t schema_kind_count = 16;

/// One node of a schema tree. A schema is its nodes in depth-first order,
/// so a node's subtree is the range [index, end) and its children are found
/// by hopping from index + 1 to each child's `end`.
struct schema_node {
    static constexpr std::uint32_t none = 0xFFFFFFFFu;

    schema_kind kind = schema_kind::boolean;
    bool is_signed = false;            ///< integer, ranged, enumeration
    std::uint32_t parent = none;       ///< the enclosing node, none for the root
    std::uint32_t end = 0;             ///< one past this subtree's last node
    std::uint32_t children = 0;        ///< direct children
    std::uint32_t position = 0;        ///< as a field: its position among its struct's fields; as an alternative: its index
    std::uint32_t bits = 0;            ///< integer: width; quat: bits per component
    std::uint32_t version = 1;         ///< structure, opaque: its type's save_version (files record it from format 4)
    std::uint64_t min = 0;             ///< ranged: minimum (two's complement); enumerator: value
    std::uint64_t max = 0;             ///< ranged: maximum; string: max length; vector: max size; array: count
    float real_min = 0.0f;             ///< quantized
    float real_max = 0.0f;             ///< quantized
    float resolution = 0.0f;           ///< quantized
    bitrep::quantizer quantizer{};     ///< quantized, quat (derived from the above)
    std::string name;                  ///< as a field: its name (empty for a position); enumerator: its name;
                                       ///< as an alternative: its type's stable name (empty for a kind that has none)
    std::string type_name;             ///< structure, enumeration, opaque
    /// The program's schema only (never in a file): the earlier names of a
    /// field, an enumerator, or a variant's alternative (bitrep_renames),
    /// by which bind() matches a file's node of such a name.
    std::vector<std::string> former_names;

    friend bool operator==(const schema_node&, const schema_node&) = default;
};

/// What a reader accepts, so that a forged schema can neither recurse nor
/// allocate without bound.
struct schema_limits {
    static constexpr std::size_t max_depth = 32;
    static constexpr std::size_t max_children = 4096; ///< fields of a struct, enumerators of an enum
    static constexpr std::size_t max_nodes = 65536;
    static constexpr std::size_t max_name = 255;      ///< bytes of a name or type name
};

struct schema {
    std::vector<schema_node> nodes; ///< depth-first; nodes[0] is the root

    friend bool operator==(const schema&, const schema&) = default;
};

/// The name of a kind, as messages and bitrep-inspect print it.
std::string_view to_string(schema_kind kind) noexcept;

namespace detail {
/// How a node sits in its parent: a struct's fields and a variant's
/// alternatives carry a name and a position; an enumeration's children are
/// enumerators (kind implied).
enum class node_role : std::uint8_t { value, field, enumerator };
} // namespace detail

} // namespace bitrep
