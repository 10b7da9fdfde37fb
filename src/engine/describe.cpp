// A save file's schema from the engine's tables (docs/formats/save-format.md,
// section 2): one walk over a type's entries, making the builder's calls
// for each kind. The schemas are on disk, so they must not change:
// tests/engine_schema_test.cpp holds them to the bytes recorded in
// tests/schema_goldens.hpp.
#include <bitrep/engine/schema_info.hpp>

#include <cstddef>
#include <cstdint>

#include <bitrep/codecs/field_flags.hpp>
#include <bitrep/engine/entries.hpp>

namespace bitrep::engine {

namespace {

void describe_value(const field_entry& value, schema_builder& builder);

void describe_renames(const schema_info& info, schema_builder& builder)
{
    for (std::size_t i = 0; i < info.rename_count; ++i)
        builder.renamed(info.renames[i].from, info.renames[i].to);
}

/// A reflected class, a std::pair or a std::tuple: its version, its fields
/// by name (or position), a base class as ":" and its name.
void describe_structure(const field_entry& value, schema_builder& builder)
{
    const schema_info& info = *value.schema;
    const type_table& table = *value.nested;
    builder.begin_struct(info.type_name, info.save_version);
    describe_renames(info, builder);
    for (std::uint32_t i = 0; i < table.count; ++i) {
        if (table.ids[i].is_base)
            builder.base(info.names[i], i);
        else
            builder.field(table.ids[i].name, i);
        describe_value(table.fields[i], builder);
    }
    builder.end();
}

/// Enumerators by name and value (a load matches them by name).
void describe_enumeration(const field_entry& value, schema_builder& builder)
{
    const schema_info& info = *value.schema;
    builder.begin_enumeration(info.type_name, value.is_signed);
    describe_renames(info, builder);
    const enumeration_params& enumerators = value.enumeration;
    for (std::uint64_t i = 0; i < enumerators.count; ++i)
        builder.enumerator(info.names[i], enumerators.values == nullptr ? i : enumerators.values[i]);
    builder.end();
}

/// A flag enum: a struct of one bool per flag, named like the flags.
void describe_flags(const field_entry& value, schema_builder& builder)
{
    const schema_info& info = *value.schema;
    builder.begin_struct(info.type_name);
    describe_renames(info, builder);
    for (std::uint64_t i = 0; i < value.flags.count; ++i) {
        builder.field(info.names[i], i);
        builder.boolean();
    }
    builder.end();
}

/// A container of `count` (or at most `count`) elements of `element`.
void describe_elements(bool counted, std::uint64_t count, const field_entry& element, schema_builder& builder)
{
    if (counted)
        builder.begin_vector(count);
    else
        builder.begin_array(count);
    describe_value(element, builder);
    builder.end();
}

void describe_variant(const field_entry& value, schema_builder& builder)
{
    builder.begin_variant();
    for (std::uint64_t i = 0; i < value.fixed.count; ++i) {
        builder.alternative(value.schema->names[i], i);
        describe_value(value.element[i], builder);
    }
    builder.end();
}

/// A proxy is its wire type, unless its traits describe it: a duration is
/// a struct named after its period whose one field is the count.
void describe_proxy(const field_entry& value, schema_builder& builder)
{
    const schema_info* info = value.schema;
    if (info != nullptr && info->describe != nullptr) {
        info->describe(builder);
    } else if (info != nullptr) {
        builder.begin_struct(info->type_name);
        builder.field("count", 0);
        describe_value(*value.element, builder);
        builder.end();
    } else {
        describe_value(*value.element, builder);
    }
}

void describe_number(const field_entry& value, schema_builder& builder)
{
    switch (value.kind) {
    case kind::boolean: builder.boolean(); break;
    case kind::integer: builder.integer(value.is_signed, value.width); break;
    case kind::ranged: builder.ranged(value.is_signed, value.ranged.min, value.ranged.min + value.ranged.span); break;
    case kind::float32: builder.float32(); break;
    case kind::float64: builder.float64(); break;
    case kind::quantized: builder.quantized(value.schema->min, value.schema->max, value.schema->resolution); break;
    case kind::quat: builder.quat(value.quat.component.bits); break;
    default: break;
    }
}

void describe_value(const field_entry& value, schema_builder& builder)
{
    if (value.flag != 0 &&
        !bitrep::detail::flag_carried(static_cast<field_flag>(value.flag - 1), schema_builder::field_scope)) {
        builder.drop_field();
        return;
    }
    switch (value.kind) {
    case kind::enumeration: describe_enumeration(value, builder); break;
    case kind::flags: describe_flags(value, builder); break;
    case kind::bitset: describe_elements(false, value.fixed.count, entry_v<bool>, builder); break;
    case kind::string: builder.string(value.bounded.max); break;
    case kind::vector:
    case kind::bit_vector:
    case kind::map: describe_elements(true, value.bounded.max, *value.element, builder); break;
    case kind::array: describe_elements(false, value.fixed.count, *value.element, builder); break;
    case kind::optional:
        builder.begin_optional();
        describe_value(*value.element, builder);
        builder.end();
        break;
    case kind::variant: describe_variant(value, builder); break;
    case kind::proxy: describe_proxy(value, builder); break;
    case kind::structure: describe_structure(value, builder); break;
    case kind::codec: builder.opaque(value.schema->type_name, value.schema->save_version); break;
    case kind::boolean:
    case kind::integer:
    case kind::ranged:
    case kind::float32:
    case kind::float64:
    case kind::quantized:
    case kind::quat: describe_number(value, builder); break;
    }
}

} // namespace

void describe(const field_entry& value, schema_builder& builder)
{
    describe_value(value, builder);
}

} // namespace bitrep::engine
