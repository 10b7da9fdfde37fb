// The schema a save file carries: every saved field's kind, bounds,
// nesting, and its name (Boost.Describe) or position (Boost.PFR). It is built
// from T's entry in the engine's tables (engine::describe), written once per
// file, and read back without T, so that a file stays loadable after T
// changes and can be printed by a tool that has never seen T
// (docs/formats/save-format.md, section 2). Building, encoding and parsing are
// compiled once, in src/engine/describe.cpp (engine::describe, declared in
// engine/schema_info.hpp) and src/schema.cpp.
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
#include <bitrep/save/schema_builder.hpp>
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

} // namespace detail

/// How a save file's schema section is encoded (docs/formats/save-format.md,
/// section 2): formats 1 and 2 write every name where it is used and every
/// number at a fixed width; format 3 writes each name once, in a string
/// table, numbers as varints, and a repeated subtree as a reference; format
/// 4 is format 3 with each struct's and hook type's save_version.
enum class schema_encoding : std::uint8_t { names_inline, compact, compact_versioned };

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
/// allocated for it (docs/formats/save-format.md, section 5).
std::uint64_t max_payload_bits(const schema& tree) noexcept;

/// T's schema, its encodings and their fingerprints, built once per program.
struct program_schema {
    schema tree;
    /// Format 3's encoding (compact), which records no version.
    std::vector<std::uint8_t> encoded;
    std::uint64_t fingerprint = 0;
    /// Format 4's (compact_versioned): each struct's and hook type's version.
    std::vector<std::uint8_t> versioned;
    std::uint64_t versioned_fingerprint = 0;
    /// A struct or hook type inside T (T itself aside, whose version a
    /// save's header holds) declares a save_version other than 1, which
    /// only format 4 records.
    bool nested_versions = false;
    status built; ///< not ok when T exceeds the schema's limits (e.g. > 4096 fields)

    /// The encoding in a file of `format` (3 or 4), and its fingerprint.
    std::span<const std::uint8_t> encoding(std::uint16_t format) const noexcept
    {
        return format >= 4 ? std::span<const std::uint8_t>(versioned) : std::span<const std::uint8_t>(encoded);
    }
    std::uint64_t fingerprint_in(std::uint16_t format) const noexcept
    {
        return format >= 4 ? versioned_fingerprint : fingerprint;
    }
    /// The version of T's own node: T's save_version for a struct or hook
    /// type, else 1.
    std::uint32_t root_version() const noexcept { return tree.nodes.empty() ? 1 : tree.nodes.front().version; }
};

namespace detail {
/// Whether a node other than the root declares a version other than 1.
bool has_nested_versions(const schema& tree) noexcept;
} // namespace detail

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
        if (result.built)
            result.built = encode_schema(result.tree, result.versioned, schema_encoding::compact_versioned);
        result.versioned_fingerprint = schema_fingerprint(result.versioned);
        result.nested_versions = detail::has_nested_versions(result.tree);
        return result;
    }();
    return built;
}

} // namespace bitrep
