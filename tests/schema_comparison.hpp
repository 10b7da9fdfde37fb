// The schema the engine's tables give a type (engine::describe, what
// schema_of<T>() builds) against the one its codec's describe facet gives:
// the same tree (names, renames, bounds) and the same encodings, byte for
// byte, in both of the file's schema encodings, with the same status.
#pragma once

#include <bitrep/bitrep.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

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
built from_codec()
{
    bitrep::schema_builder builder;
    bitrep::codec<T>::describe(builder);
    return encoded(builder.take());
}

template <class T>
built from_tables()
{
    bitrep::schema_builder builder;
    bitrep::engine::describe(bitrep::engine::entry_v<T>, builder);
    return encoded(builder.take());
}

/// Expects T's schema from the tables to be its codec's, and schema_of<T>()
/// to be that schema. `name` says which type failed.
template <class T>
void expect_same_schema(std::string_view name)
{
    SCOPED_TRACE(name);
    const built codec = from_codec<T>();
    const built tables = from_tables<T>();
    ASSERT_FALSE(codec.tree.nodes.empty());
    EXPECT_TRUE(codec.tree == tables.tree) << "nodes: " << codec.tree.nodes.size() << " from the codec, "
                                           << tables.tree.nodes.size() << " from the tables";
    EXPECT_EQ(codec.compact, tables.compact);
    EXPECT_EQ(codec.names_inline, tables.names_inline);
    EXPECT_EQ(codec.compact_status.code(), tables.compact_status.code());
    EXPECT_EQ(codec.names_inline_status.code(), tables.names_inline_status.code());

    const bitrep::program_schema& program = bitrep::schema_of<T>();
    EXPECT_TRUE(program.tree == codec.tree);
    EXPECT_EQ(program.encoded, codec.compact);
    EXPECT_EQ(program.built.code(), codec.compact_status.code());
    EXPECT_EQ(program.fingerprint, bitrep::schema_fingerprint(codec.compact));
}

} // namespace schema_comparison
