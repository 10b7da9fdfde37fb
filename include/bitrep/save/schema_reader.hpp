// Reading a save file's payload by its own schema, without the program's
// types: each value is read by the file's node for it, by its kind's entry
// in the table of kinds (src/schema_kinds.hpp), with the same functions the
// codecs use. These are compiled once, in src/schema_reader.cpp: the
// schema-driven load calls them per value (src/engine/load.cpp), and
// bitrep-inspect walks whole values with src/schema_walk.hpp.
#pragma once

#include <bit>
#include <cstdint>

#include <bitrep/detail/portability.hpp>
#include <bitrep/save/schema_node.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep::detail {

/// Save payloads carry what scope::save carries.
using save_read_stream = basic_read_stream<scope::save>;

/// An integer as the file holds it: a two's complement pattern, signed or not.
struct integer_value {
    std::uint64_t pattern = 0;
    bool is_signed = false;

    bool negative() const noexcept { return is_signed && static_cast<std::int64_t>(pattern) < 0; }
    double to_double() const noexcept
    {
        return is_signed ? static_cast<double>(static_cast<std::int64_t>(pattern)) : static_cast<double>(pattern);
    }
    /// Whether a binary floating-point type of `digits` significand bits
    /// (std::numeric_limits<F>::digits: 24 for float, 53 for double) holds
    /// the value exactly: its magnitude, trailing zero bits aside, fits them.
    bool exact_in(int digits) const noexcept
    {
        std::uint64_t magnitude = negative() ? ~pattern + 1 : pattern;
        if (magnitude == 0)
            return true;
        magnitude >>= std::countr_zero(magnitude);
        return static_cast<int>(std::bit_width(magnitude)) <= digits;
    }
};

/// A number the file holds, read for a program's float, double or quantized
/// float: its value as a double and, when the file held an integer, that
/// integer (which a float or double must then hold exactly).
struct real_value {
    double value = 0.0;
    bool integral = false;
    integer_value whole; ///< the file's integer, when integral
};

/// Bounds the values a schema-driven walk visits, so that a forged file of
/// zero-bit values (an array of 2^32 one-enumerator enums) cannot make it
/// loop for hours: one per value, and the payload's bits plus 2^20 in all.
struct walk_budget {
    std::uint64_t values_left = 0;

    static walk_budget for_payload(std::uint64_t payload_bits) noexcept
    {
        return {payload_bits + (std::uint64_t{1} << 20)};
    }
};

/// A bool, integer or ranged integer by its node (schema_mismatch for
/// another kind).
bool read_integer(save_read_stream& stream, const schema_node& node, integer_value& out);

/// A float, double, quantized float or integer by its node.
bool read_real(save_read_stream& stream, const schema_node& node, real_value& out);

/// An enumeration node's value: the enumerator's declaration index in the
/// file's enumeration (bad_enum past its enumerators).
bool read_enum_index(save_read_stream& stream, const schema_node& node, std::uint64_t& index);

/// A variant node's value: which alternative it holds, as the node of that
/// alternative (bad_enum past its alternatives; finding it is charged to
/// `budget`).
bool read_alternative(save_read_stream& stream, const schema& tree, std::uint32_t variant, std::uint32_t& alternative,
                      walk_budget& budget);

/// How many elements a vector or array node holds in this value.
bool read_list_count(save_read_stream& stream, const schema_node& node, std::uint64_t& count);

/// Reads a value of node `index` and drops it (a field the program no
/// longer has).
bool skip_value(save_read_stream& stream, const schema& tree, std::uint32_t index, walk_budget& budget);

/// Names a file's field in a failure path: by name, else by position.
BITREP_COLD void enter_schema_field(failure_record& record, const schema_node& field) noexcept;

/// Names a file's variant alternative in a failure path: `<Weapon>`, or
/// `<#2>` for one without a name.
BITREP_COLD void enter_schema_alternative(failure_record& record, const schema_node& alternative) noexcept;

} // namespace bitrep::detail
