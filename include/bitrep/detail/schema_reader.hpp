// Reading a save file's payload by its own schema, without the program's
// types: each value is read by the file's node for it, with the same stream
// primitives the codecs use. Serves the schema-driven load (skipping fields
// the program no longer has, converting values whose kind or bounds changed)
// and bitrep-inspect (every value as JSON).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include <bitrep/codecs/quat.hpp>
#include <bitrep/quat.hpp>
#include <bitrep/schema.hpp>
#include <bitrep/status.hpp>
#include <bitrep/stream.hpp>

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
};

/// A bool, integer or ranged integer by its node.
inline bool read_integer(save_read_stream& stream, const schema_node& node, integer_value& out)
{
    out.is_signed = node.is_signed;
    switch (node.kind) {
    case schema_kind::boolean: {
        bool bit = false;
        out.is_signed = false;
        if (!stream.serialize_bool(bit))
            return false;
        out.pattern = bit ? 1 : 0;
        return true;
    }
    case schema_kind::integer: {
        std::uint64_t bits = 0;
        if (!stream.serialize_bits(bits, static_cast<int>(node.bits)))
            return false;
        if (node.is_signed && node.bits < 64 && (bits >> (node.bits - 1)) != 0)
            bits |= ~std::uint64_t{0} << node.bits; // sign-extend
        out.pattern = bits;
        return true;
    }
    case schema_kind::ranged: {
        std::uint64_t offset = 0;
        if (!stream.serialize_ranged_offset(offset, node.max - node.min))
            return false;
        out.pattern = node.min + offset;
        return true;
    }
    default:
        return stream.fail(error::schema_mismatch, stream.position(), "not an integer in the file");
    }
}

/// A float, double, quantized float or integer by its node, as a double.
inline bool read_real(save_read_stream& stream, const schema_node& node, double& out)
{
    switch (node.kind) {
    case schema_kind::float32: {
        float value = 0.0f;
        if (!stream.serialize_float(value))
            return false;
        out = value;
        return true;
    }
    case schema_kind::float64:
        return stream.serialize_double(out);
    case schema_kind::quantized: {
        float value = 0.0f;
        if (!stream.serialize_quantized(value, node.quantizer))
            return false;
        out = value;
        return true;
    }
    default: {
        integer_value value;
        if (!read_integer(stream, node, value))
            return false;
        out = value.to_double();
        return true;
    }
    }
}

/// An enum's declaration index in the file's enumeration.
inline bool read_enumerator_index(save_read_stream& stream, const schema_node& node, std::uint64_t& index)
{
    const std::size_t start = stream.position();
    index = 0;
    const int bits = bits_required_for_span(node.children - 1);
    if (bits > 0 && !stream.serialize_bits(index, bits))
        return false;
    if (index >= node.children) [[unlikely]]
        return stream.fail(error::bad_enum, start, "enum index is not an enumerator");
    return true;
}

/// How many elements a vector or array node holds in this value.
inline bool read_element_count(save_read_stream& stream, const schema_node& node, std::uint64_t& count)
{
    if (node.kind == schema_kind::array) {
        count = node.max;
        return true;
    }
    return stream.serialize_ranged_offset(count, node.max);
}

/// Names a file's field in a failure path: by name, else by position.
[[gnu::cold, gnu::noinline]] inline void enter_schema_field(failure_record& record, const schema_node& field) noexcept
{
    if (field.name.empty())
        record.enter_position(field.position);
    else
        record.enter_member(field.name);
}

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

/// Walks one value of node `index` and hands each part to `visitor`:
///   scalar(node, integer_value) / real(node, double) / text(node, std::string&)
///   enumerator(node, enumerator_node) / rotation(node, quat<3>&)
///   begin_struct(node) field(field_node) end_struct()
///   begin_list(node, count) end_list() / absent(node)
///   opaque(node): a hook-serialized value, which cannot be read without
///   its program (its length is the hook's), so the walk stops there with
///   schema_mismatch.
template <class Visitor>
bool walk_value(save_read_stream& stream, const schema& tree, std::uint32_t index, Visitor& visitor,
                walk_budget& budget)
{
    const schema_node& node = tree.nodes[index];
    const std::size_t start = stream.position();
    if (budget.values_left == 0) [[unlikely]]
        return stream.fail(error::corrupt, start, "more values than the payload could hold");
    --budget.values_left;
    switch (node.kind) {
    case schema_kind::boolean:
    case schema_kind::integer:
    case schema_kind::ranged: {
        integer_value value;
        if (!read_integer(stream, node, value))
            return false;
        visitor.scalar(node, value);
        return true;
    }
    case schema_kind::float32:
    case schema_kind::float64:
    case schema_kind::quantized: {
        double value = 0.0;
        if (!read_real(stream, node, value))
            return false;
        visitor.real(node, value);
        return true;
    }
    case schema_kind::quat: {
        quat<3> rotation; // any bit count: the layout is the same
        if (!serialize_smallest_three(stream, rotation, node.quantizer))
            return false;
        visitor.rotation(node, rotation);
        return true;
    }
    case schema_kind::enumeration: {
        std::uint64_t i = 0;
        if (!read_enumerator_index(stream, node, i))
            return false;
        visitor.enumerator(node, tree.nodes[index + 1 + i]);
        return true;
    }
    case schema_kind::string: {
        std::string text;
        if (!stream.serialize_string(text, node.max + 1))
            return false;
        visitor.text(node, text);
        return true;
    }
    case schema_kind::vector:
    case schema_kind::array: {
        std::uint64_t count = 0;
        if (!read_element_count(stream, node, count))
            return false;
        visitor.begin_list(node, count);
        for (std::uint64_t i = 0; i < count; ++i) {
            if (!walk_value(stream, tree, index + 1, visitor, budget)) {
                stream.enter_index(static_cast<std::size_t>(i));
                return false;
            }
        }
        visitor.end_list();
        return true;
    }
    case schema_kind::optional: {
        bool present = false;
        if (!stream.serialize_bool(present))
            return false;
        if (!present) {
            visitor.absent(node);
            return true;
        }
        return walk_value(stream, tree, index + 1, visitor, budget);
    }
    case schema_kind::structure: {
        visitor.begin_struct(node);
        for (std::uint32_t child = index + 1; child < node.end; child = tree.nodes[child].end) {
            visitor.field(tree.nodes[child]);
            if (!walk_value(stream, tree, child, visitor, budget)) {
                enter_schema_field(stream.failure(), tree.nodes[child]);
                return false;
            }
        }
        visitor.end_struct();
        return true;
    }
    case schema_kind::opaque:
        visitor.opaque(node);
        break;
    case schema_kind::enumerator: // parse_schema puts enumerators only inside enums
        break;
    }
    return stream.fail(error::schema_mismatch, start,
                       "a hook-serialized value cannot be read without the program that wrote it");
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
    void opaque(const schema_node&) {}
};

} // namespace bitrep::detail
