// The schema the engine's tables give a type (engine::describe, what
// schema_of<T>() builds) against the bytes recorded for it in
// schema_goldens.hpp: the same encodings, byte for byte, in both of the
// file's schema encodings, with the same status.
#pragma once

#include <bitrep/bitrep.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "schema_goldens.hpp"

namespace schema_comparison {

struct built {
    bitrep::schema tree;
    std::vector<std::uint8_t> compact;
    std::vector<std::uint8_t> names_inline;
    bitrep::status compact_status;
    bitrep::status names_inline_status;
};

inline built encoded(bitrep::schema tree)
{
    built result;
    result.tree = std::move(tree);
    result.compact_status = bitrep::encode_schema(result.tree, result.compact, bitrep::schema_encoding::compact);
    result.names_inline_status =
        bitrep::encode_schema(result.tree, result.names_inline, bitrep::schema_encoding::names_inline);
    return result;
}

template <class T>
built from_tables()
{
    bitrep::schema_builder builder;
    bitrep::engine::describe(bitrep::engine::entry_v<T>, builder);
    return encoded(builder.take());
}

inline std::string hex(const std::vector<std::uint8_t>& bytes)
{
    std::string text;
    char digits[3];
    for (std::uint8_t b : bytes) {
        std::snprintf(digits, sizeof digits, "%02x", b);
        text += digits;
    }
    return text;
}

/// Expects T's schema from the tables to be the one recorded under `name`
/// in schema_goldens.hpp, and schema_of<T>() to be that schema.
template <class T>
void expect_same_schema(std::string_view name)
{
    SCOPED_TRACE(name);
    const schema_goldens::golden* recorded = nullptr;
    for (const schema_goldens::golden& g : schema_goldens::schemas)
        if (g.name == name)
            recorded = &g;
    ASSERT_NE(recorded, nullptr) << "no schema recorded for " << name;
    const built tables = from_tables<T>();
    EXPECT_EQ(hex(tables.compact), recorded->compact);
    EXPECT_EQ(hex(tables.names_inline), recorded->names_inline);
    EXPECT_EQ(static_cast<int>(tables.compact_status.code()), recorded->compact_status);
    EXPECT_EQ(static_cast<int>(tables.names_inline_status.code()), recorded->names_inline_status);

    const bitrep::program_schema& program = bitrep::schema_of<T>();
    EXPECT_TRUE(program.tree == tables.tree);
    EXPECT_EQ(program.encoded, tables.compact);
    EXPECT_EQ(program.built.code(), tables.compact_status.code());
    EXPECT_EQ(program.fingerprint, bitrep::schema_fingerprint(tables.compact));
}

} // namespace schema_comparison
