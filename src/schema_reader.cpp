// Reading values of a save file by the file's own nodes (schema_reader.hpp),
// for the schema-driven load and bitrep-inspect. Every kind's part is its
// entry in the table of kinds.
#include <bitrep/save/schema_reader.hpp>

#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "schema_kinds.hpp"
#include "schema_walk.hpp"

namespace bitrep::detail {

bool read_integer(save_read_stream& stream, const schema_node& node, integer_value& out)
{
    return with_kind(node.kind, [&](auto entry) {
        if constexpr (requires { entry.read_integer(stream, node, out); })
            return entry.read_integer(stream, node, out);
        else
            return stream.fail(error::schema_mismatch, stream.position(), "not an integer in the file");
    });
}

bool read_real(save_read_stream& stream, const schema_node& node, real_value& out)
{
    out = {};
    return with_kind(node.kind, [&](auto entry) {
        if constexpr (requires { entry.read_real(stream, node, out.value); }) {
            return entry.read_real(stream, node, out.value);
        } else {
            if (!read_integer(stream, node, out.whole))
                return false;
            out.integral = true;
            out.value = out.whole.to_double();
            return true;
        }
    });
}

bool read_enum_index(save_read_stream& stream, const schema_node& node, std::uint64_t& index)
{
    return with_kind(node.kind, [&](auto entry) {
        if constexpr (requires { entry.read_index(stream, node, index); })
            return entry.read_index(stream, node, index);
        else // bind() let only enums into a program's enum
            return stream.fail(error::schema_mismatch, stream.position(), "not an enum in the file");
    });
}

bool read_alternative(save_read_stream& stream, const schema& tree, std::uint32_t variant, std::uint32_t& alternative,
                      walk_budget& budget)
{
    if (tree.nodes[variant].kind != schema_kind::variant) // bind() let only variants into a program's variant
        return stream.fail(error::schema_mismatch, stream.position(), "not a variant in the file");
    return variant_kind::read_alternative(stream, tree, variant, alternative, budget);
}

bool read_list_count(save_read_stream& stream, const schema_node& node, std::uint64_t& count)
{
    return with_kind(node.kind, [&](auto entry) {
        if constexpr (requires { entry.read_count(stream, node, count); })
            return entry.read_count(stream, node, count);
        else
            return stream.fail(error::schema_mismatch, stream.position(), "not a vector or array in the file");
    });
}

bool skip_value(save_read_stream& stream, const schema& tree, std::uint32_t index, walk_budget& budget)
{
    skipping_visitor skip;
    return walk_value(stream, tree, index, skip, budget);
}

void enter_schema_field(failure_record& record, const schema_node& field) noexcept
{
    if (field.name.empty())
        record.enter_position(field.position);
    else
        record.enter_member(field.name);
}

void enter_schema_alternative(failure_record& record, const schema_node& alternative) noexcept
{
    if (alternative.name.empty()) {
        // "#" and the index: at most 1 + 10 characters.
        std::array<char, 12> text{'#'};
        const auto written = std::to_chars(text.data() + 1, text.data() + text.size(), alternative.position);
        record.enter_alternative(std::string_view(text.data(), static_cast<std::size_t>(written.ptr - text.data())));
    } else {
        record.enter_alternative(alternative.name);
    }
}

} // namespace bitrep::detail
