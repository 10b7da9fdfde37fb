// schema.hpp and the schema-driven load: what a save file says about T, and
// loading a file written by another shape of T (docs/formats/save-format.md, sections 2-3).
#include <bitrep/bitrep.hpp>

#include <gtest/gtest.h>

#include "keepsake.hpp"
#include "test_oracle.hpp"


#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace {

using bitrep::bounded_string;
using bitrep::bounded_vector;
using bitrep::quantized;
using bitrep::ranged;
using bitrep::schema_kind;

using oracle::contains;

// ---- the schema of a type ---------------------------------------------------

enum class Kind { sword, shield, potion };
BOOST_DESCRIBE_ENUM(Kind, sword, shield, potion)

enum class Sparse : std::int16_t { low = -5, mid = 10, high = 300 };
BOOST_DESCRIBE_ENUM(Sparse, low, mid, high)

struct Item {
    Kind kind = Kind::sword;
    ranged<int, 1, 64> count = 1;
    friend bool operator==(const Item&, const Item&) = default;
};
BOOST_DESCRIBE_STRUCT(Item, (), (kind, count))

struct Camera {
    float fov = 90.0f;
};

struct SaveGame {
    ranged<int, 1, 99> level = 1;
    bounded_string<24> hero;
    bounded_vector<Item, 64> inventory;
    bitrep::net_only<Camera> camera;
    bitrep::save_only<std::uint64_t> play_time_ms;
};
BOOST_DESCRIBE_STRUCT(SaveGame, (), (level, hero, inventory, camera, play_time_ms))

struct Positional {
    std::int16_t a = 0;
    bitrep::transient<int> cache = 0;
    double b = 0.0;
};

const bitrep::schema_node& child(const bitrep::schema& tree, std::uint32_t parent, std::size_t n)
{
    std::uint32_t c = parent + 1;
    for (std::size_t i = 0; i < n; ++i)
        c = tree.nodes[c].end;
    return tree.nodes[c];
}

TEST(Schema, DescribedStructListsEverySavedFieldByNameWithItsBounds)
{
    const bitrep::schema& tree = bitrep::schema_of<SaveGame>().tree;
    const auto& root = tree.nodes[0];
    EXPECT_EQ(root.kind, schema_kind::structure);
    EXPECT_EQ(root.type_name, "SaveGame");
    ASSERT_EQ(root.children, 4u); // camera is net_only: not in a save
    const auto& level = child(tree, 0, 0);
    EXPECT_EQ(level.name, "level");
    EXPECT_EQ(level.kind, schema_kind::ranged);
    EXPECT_TRUE(level.is_signed);
    EXPECT_EQ(static_cast<std::int64_t>(level.min), 1);
    EXPECT_EQ(static_cast<std::int64_t>(level.max), 99);
    const auto& hero = child(tree, 0, 1);
    EXPECT_EQ(hero.name, "hero");
    EXPECT_EQ(hero.kind, schema_kind::string);
    EXPECT_EQ(hero.max, 24u);
    const auto& inventory = child(tree, 0, 2);
    EXPECT_EQ(inventory.name, "inventory");
    EXPECT_EQ(inventory.kind, schema_kind::vector);
    EXPECT_EQ(inventory.max, 64u);
    const auto& item = tree.nodes[static_cast<std::size_t>(&inventory - tree.nodes.data()) + 1];
    EXPECT_EQ(item.kind, schema_kind::structure);
    EXPECT_EQ(item.type_name, "Item");
    const auto& play_time = child(tree, 0, 3);
    EXPECT_EQ(play_time.name, "play_time_ms");
    EXPECT_EQ(play_time.position, 4u); // its position among all fields, net_only included
    EXPECT_EQ(play_time.kind, schema_kind::integer);
    EXPECT_EQ(play_time.bits, 64u);
    EXPECT_FALSE(play_time.is_signed);
}

TEST(Schema, AggregateFieldsHaveNoNamesButTheirPositions)
{
    const bitrep::schema& tree = bitrep::schema_of<Positional>().tree;
    ASSERT_EQ(tree.nodes[0].children, 2u); // the transient field is not saved
    EXPECT_EQ(child(tree, 0, 0).name, "");
    EXPECT_EQ(child(tree, 0, 0).position, 0u);
    EXPECT_EQ(child(tree, 0, 0).bits, 16u);
    EXPECT_EQ(child(tree, 0, 1).position, 2u);
    EXPECT_EQ(child(tree, 0, 1).kind, schema_kind::float64);
}

struct Sparse_holder {
    Sparse value = Sparse::mid;
};

TEST(Schema, EnumsCarryEveryEnumeratorsNameAndValue)
{
    const bitrep::schema& tree = bitrep::schema_of<Sparse_holder>().tree;
    const auto& e = child(tree, 0, 0);
    ASSERT_EQ(e.kind, schema_kind::enumeration);
    ASSERT_EQ(e.children, 3u);
    EXPECT_TRUE(e.is_signed);
    const auto first = static_cast<std::size_t>(&e - tree.nodes.data()) + 1;
    EXPECT_EQ(tree.nodes[first].name, "low");
    EXPECT_EQ(static_cast<std::int64_t>(tree.nodes[first].min), -5);
    EXPECT_EQ(tree.nodes[first + 2].name, "high");
    EXPECT_EQ(tree.nodes[first + 2].min, 300u);
}

struct Rich {
    bool flag = false;
    std::uint8_t small = 0;
    std::int64_t big = 0;
    float f = 0;
    quantized<-10.f, 10.f, 0.5f> q;
    bitrep::quat<11> rotation;
    std::optional<Item> maybe;
    std::array<ranged<unsigned, 0, 3>, 4> four{};
    bounded_vector<bounded_string<8>, 3> tags;
    Sparse sparse = Sparse::mid;
};
BOOST_DESCRIBE_STRUCT(Rich, (), (flag, small, big, f, q, rotation, maybe, four, tags, sparse))

TEST(Schema, EncodingParsesBackToTheSameTree)
{
    const auto& mine = bitrep::schema_of<Rich>();
    ASSERT_TRUE(mine.built) << mine.built.message();
    bitrep::schema parsed;
    ASSERT_TRUE(bitrep::parse_schema(mine.encoded, parsed));
    EXPECT_TRUE(parsed == mine.tree);
    EXPECT_EQ(bitrep::schema_fingerprint(mine.encoded), mine.fingerprint);
}

TEST(Schema, EveryShorterEncodingIsRefused)
{
    const auto& encoded = bitrep::schema_of<Rich>().encoded;
    for (std::size_t size = 0; size < encoded.size(); ++size) {
        bitrep::schema parsed;
        const bitrep::status st = bitrep::parse_schema(std::span(encoded.data(), size), parsed);
        EXPECT_FALSE(st) << "size " << size;
        EXPECT_TRUE(parsed.nodes.empty());
    }
}

TEST(Schema, BytesAfterTheRootAreRefused)
{
    auto encoded = bitrep::schema_of<Rich>().encoded;
    encoded.push_back(0);
    bitrep::schema parsed;
    EXPECT_EQ(bitrep::parse_schema(encoded, parsed), bitrep::error::corrupt);
}

TEST(Schema, NestingDeeperThanTheLimitIsRefused)
{
    bitrep::schema_builder builder;
    for (int i = 0; i < 40; ++i)
        builder.begin_optional();
    builder.boolean();
    for (int i = 0; i < 40; ++i)
        builder.end();
    std::vector<std::uint8_t> encoded;
    ASSERT_TRUE(bitrep::encode_schema(builder.take(), encoded));
    bitrep::schema parsed;
    const bitrep::status st = bitrep::parse_schema(encoded, parsed);
    EXPECT_EQ(st, bitrep::error::corrupt);
    EXPECT_TRUE(contains(st.message(), "deeper")) << st.message();
}

TEST(Schema, FingerprintsDifferWhenTheLayoutDiffers)
{
    EXPECT_NE(bitrep::schema_of<SaveGame>().fingerprint, bitrep::schema_of<Rich>().fingerprint);
    EXPECT_NE(bitrep::schema_of<SaveGame>().fingerprint, bitrep::schema_of<Item>().fingerprint);
    EXPECT_EQ(bitrep::schema_of<SaveGame>().fingerprint, bitrep::schema_of<SaveGame>().fingerprint);
}

// ---- the compact encoding (format 3) -------------------------------------------

using bitrep::schema_encoding;
using oracle::bit_builder;

std::vector<std::uint8_t> encoded_as(const bitrep::schema& tree, schema_encoding encoding)
{
    std::vector<std::uint8_t> encoded;
    const bitrep::status st = bitrep::encode_schema(tree, encoded, encoding);
    EXPECT_TRUE(st) << st.message();
    return encoded;
}

bitrep::status parse_compact(const std::vector<std::uint8_t>& encoded)
{
    bitrep::schema parsed;
    const bitrep::status st = bitrep::parse_schema(encoded, parsed);
    EXPECT_EQ(st.ok(), !parsed.nodes.empty());
    return st;
}

/// `tree`, compact-encoded, is refused (corrupt) for the reason `why` names.
void expect_compact_refused(const bitrep::schema& tree, std::string_view why)
{
    const bitrep::status st = parse_compact(encoded_as(tree, schema_encoding::compact));
    EXPECT_EQ(st, bitrep::error::corrupt);
    EXPECT_TRUE(contains(st.message(), why)) << st.message();
}

struct Point {
    quantized<-500.f, 500.f, 0.01f> x, y, z;
};
BOOST_DESCRIBE_STRUCT(Point, (), (x, y, z))
struct OnePoint {
    Point at;
};
BOOST_DESCRIBE_STRUCT(OnePoint, (), (at))
struct TwoPoints {
    Point at;
    Point heading;
};
BOOST_DESCRIBE_STRUCT(TwoPoints, (), (at, heading))

TEST(CompactSchema, BothEncodingsParseBackToTheSameTree)
{
    for (const bitrep::schema* tree : {&bitrep::schema_of<Rich>().tree, &bitrep::schema_of<SaveGame>().tree,
                                       &bitrep::schema_of<keepsake::Keepsake>().tree,
                                       &bitrep::schema_of<TwoPoints>().tree}) {
        for (const schema_encoding encoding : {schema_encoding::names_inline, schema_encoding::compact}) {
            bitrep::schema parsed;
            const bitrep::status st = bitrep::parse_schema(encoded_as(*tree, encoding), parsed, encoding);
            ASSERT_TRUE(st) << st.message();
            EXPECT_TRUE(parsed == *tree) << tree->nodes[0].type_name;
        }
    }
}

TEST(CompactSchema, AProgramsSchemaIsCompactEncoded)
{
    EXPECT_EQ(bitrep::schema_of<Rich>().encoded, encoded_as(bitrep::schema_of<Rich>().tree, schema_encoding::compact));
}

// Two structs of one field each, the second's field named `second_name`.
bitrep::schema two_fields(std::string_view second_name)
{
    bitrep::schema_builder builder;
    builder.begin_struct("T");
    builder.field("first", 0);
    builder.begin_struct("S");
    builder.field("a_long_field_name", 0);
    builder.ranged(false, 0, 5);
    builder.end();
    builder.field("second", 1);
    builder.begin_struct("U");
    builder.field(second_name, 0);
    builder.ranged(false, 0, 9);
    builder.end();
    builder.end();
    return builder.take();
}

TEST(CompactSchema, EachNameIsWrittenOnce)
{
    const bitrep::schema same = two_fields("a_long_field_name");
    const bitrep::schema other = two_fields("b_long_field_name");
    EXPECT_EQ(encoded_as(same, schema_encoding::names_inline).size(),
              encoded_as(other, schema_encoding::names_inline).size());
    // The second name costs its 17 characters (5 bits each, and its end)
    // only when it is another name.
    EXPECT_GE(encoded_as(other, schema_encoding::compact).size(), encoded_as(same, schema_encoding::compact).size() + 11);
}

TEST(CompactSchema, ARepeatedStructIsWrittenOnceAndReadBackInFull)
{
    const std::size_t one = encoded_as(bitrep::schema_of<OnePoint>().tree, schema_encoding::compact).size();
    const std::size_t two = encoded_as(bitrep::schema_of<TwoPoints>().tree, schema_encoding::compact).size();
    const std::size_t inline_one = encoded_as(bitrep::schema_of<OnePoint>().tree, schema_encoding::names_inline).size();
    const std::size_t inline_two = encoded_as(bitrep::schema_of<TwoPoints>().tree, schema_encoding::names_inline).size();
    // The name "heading" in the string table (7 name symbols and its end),
    // then its index, its position, a kind and the index of the node it
    // copies.
    EXPECT_LE(two - one, 8u + 3u);
    EXPECT_GT(inline_two - inline_one, 3 * 12u); // three quantized floats again
    bitrep::schema parsed;
    ASSERT_TRUE(bitrep::parse_schema(bitrep::schema_of<TwoPoints>().encoded, parsed));
    ASSERT_EQ(parsed.nodes.size(), 9u);
    EXPECT_EQ(child(parsed, 0, 1).name, "heading");
    EXPECT_EQ(child(parsed, 0, 1).type_name, "Point");
    EXPECT_EQ(parsed.nodes[8].name, "z");
    EXPECT_EQ(parsed.nodes[8].parent, 5u);
    EXPECT_FLOAT_EQ(parsed.nodes[8].real_max, 500.f);
}

TEST(CompactSchema, TheKeepsakesSchemaIsAtMostHalfItsInlineEncoding)
{
    const bitrep::schema& tree = bitrep::schema_of<keepsake::Keepsake>().tree;
    EXPECT_LE(2 * encoded_as(tree, schema_encoding::compact).size(),
              encoded_as(tree, schema_encoding::names_inline).size());
}

// Forged schemas: bit_builder writes the compact encoding's fields as
// docs/formats/save-format.md gives them (varints in groups of 2 bits and a
// more-bit).
bit_builder& varint(bit_builder& bits, std::uint64_t value)
{
    do {
        bits.bits(value & 3, 2).bits(value > 3 ? 1 : 0, 1);
        value >>= 2;
    } while (value != 0);
    return bits;
}

TEST(CompactSchema, ACopyOfANodeNotYetCompleteIsRefused)
{
    bit_builder bits;
    varint(bits, 0);              // no strings
    bits.bits(12, 4);             // the root: an optional
    bits.bits(8, 4);              // its element: a copy of node 0 (0 bits), still open
    const bitrep::status st = parse_compact(bits.result());
    EXPECT_EQ(st, bitrep::error::corrupt);
    EXPECT_TRUE(contains(st.message(), "not a complete value")) << st.message();
}

TEST(CompactSchema, ACopyOfAnEnumeratorIsRefused)
{
    bit_builder bits;
    varint(bits, 0);
    varint(bits.bits(13, 4), 2);  // a struct (no name) of two fields
    varint(bits, 0).bits(7, 4);   // field 0: an enum
    varint(bits.bits(0, 1), 0);   // unsigned, one enumerator
    varint(bits, 0);              // enumerator: value 0
    varint(bits, 0).bits(8, 4);   // field 1: a copy of node 2, the enumerator
    bits.bits(2, 2);
    const bitrep::status st = parse_compact(bits.result());
    EXPECT_EQ(st, bitrep::error::corrupt);
    EXPECT_TRUE(contains(st.message(), "not a complete value")) << st.message();
}

TEST(CompactSchema, ACopyThatNestsPastTheDepthLimitIsRefused)
{
    // Field a: 20 optionals deep; field b: 15 optionals around a copy of a.
    bitrep::schema_builder builder;
    builder.begin_struct("Deep");
    for (const int levels : {20, 15}) {
        builder.field(levels == 20 ? "a" : "b", levels == 20 ? 0 : 1);
        for (int i = 0; i < levels; ++i)
            builder.begin_optional();
        if (levels == 15) {
            for (int i = 0; i < 20; ++i)
                builder.begin_optional();
            builder.boolean();
            for (int i = 0; i < 20; ++i)
                builder.end();
        } else {
            builder.boolean();
        }
        for (int i = 0; i < levels; ++i)
            builder.end();
    }
    builder.end();
    expect_compact_refused(builder.take(), "deeper");
}

TEST(CompactSchema, CopiesPastTheNodeLimitAreRefused)
{
    // A struct of 4,000 fields, then 16 copies of it: 68,000 nodes.
    bitrep::schema_builder builder;
    builder.begin_struct("Wide");
    for (int copy = 0; copy < 17; ++copy) {
        builder.field("f", static_cast<std::size_t>(copy));
        builder.begin_struct("Part");
        for (int i = 0; i < 4000; ++i) {
            builder.field("", static_cast<std::size_t>(i));
            builder.boolean();
        }
        builder.end();
    }
    builder.end();
    expect_compact_refused(builder.take(), "65536");
}

TEST(CompactSchema, ANumberLongerThanSixtyFourBitsIsRefused)
{
    bit_builder bits;
    for (int group = 0; group < 33; ++group)
        bits.bits(3, 2).bits(1, 1);
    bits.bits(0, 8);
    const bitrep::status st = parse_compact(bits.result());
    EXPECT_EQ(st, bitrep::error::corrupt);
    EXPECT_TRUE(contains(st.message(), "64 bits")) << st.message();
}

TEST(CompactSchema, AStringTableLongerThanTheSchemaIsRefusedBeforeItIsAllocated)
{
    bit_builder bits;
    varint(bits, 100000).bits(0, 64);
    const bitrep::status st = parse_compact(bits.result());
    EXPECT_EQ(st, bitrep::error::corrupt);
    EXPECT_TRUE(contains(st.message(), "strings")) << st.message();
}

// A string of the table: bytes shared with the one before, then the rest
// in name symbols (5-bit codes) and the end symbol.
bit_builder& table_string(bit_builder& bits, std::uint64_t shared, std::string_view rest)
{
    varint(bits, shared);
    for (const char c : rest) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 'a' && byte <= 'z')
            bits.bits(byte - 'a', 5);
        else if (byte == '_')
            bits.bits(26, 5);
        else if (byte >= 'A' && byte <= 'Z')
            bits.bits(27, 5).bits(byte - 'A', 5);
        else if (byte >= '0' && byte <= '9')
            bits.bits(28, 5).bits(byte - '0', 4);
        else if (byte == ':')
            bits.bits(29, 5);
        else
            bits.bits(30, 5).bits(byte, 8);
    }
    return bits.bits(31, 5);
}

TEST(CompactSchema, TheStringTableSharesEachStringsStartWithTheOneBefore)
{
    bit_builder bits;
    table_string(table_string(varint(bits, 2), 0, "game::Item"), 6, "Player"); // "game::Player"
    bits.bits(13, 4).bits(2, 2);  // a struct named by string 2
    varint(bits, 0);              // with no fields
    bitrep::schema parsed;
    const bitrep::status st = bitrep::parse_schema(bits.result(), parsed);
    ASSERT_TRUE(st) << st.message();
    EXPECT_EQ(parsed.nodes[0].type_name, "game::Player");
}

TEST(CompactSchema, ANameIndexPastTheStringTableIsRefused)
{
    // Two strings: an index takes 2 bits, and 3 is past them.
    for (const std::uint64_t name : {2, 3}) {
        bit_builder bits;
        table_string(table_string(varint(bits, 2), 0, "A"), 0, "B");
        bits.bits(13, 4).bits(name, 2); // a struct named by string `name`, with no fields
        varint(bits, 0);
        bitrep::schema parsed;
        const bitrep::status st = bitrep::parse_schema(bits.result(), parsed);
        EXPECT_EQ(st.ok(), name == 2) << st.message();
        EXPECT_EQ(parsed.nodes.empty() ? "" : parsed.nodes[0].type_name, name == 2 ? "B" : "");
    }
}

TEST(CompactSchema, AStringTableOutOfOrderOrSharingMoreThanThePreviousIsRefused)
{
    for (const auto& [shared, second] : {std::pair<std::uint64_t, std::string_view>{0, "A"}, {0, "0"}, {2, "x"}}) {
        bit_builder bits;
        table_string(table_string(varint(bits, 2), 0, "B"), shared, second);
        bits.bits(13, 4).bits(1, 2);
        varint(bits, 0);
        EXPECT_EQ(parse_compact(bits.result()), bitrep::error::corrupt) << second;
    }
}

TEST(CompactSchema, NamesOfEveryCharacterClassComeBackAsWritten)
{
    bitrep::schema_builder builder;
    builder.begin_struct("std::chrono::duration<1/1000>");
    for (const char* name : {"snake_case", "CamelCase42", "naïve", "with space", "a"}) {
        builder.field(name, 0);
        builder.boolean();
    }
    builder.end();
    const bitrep::schema tree = builder.take();
    bitrep::schema parsed;
    ASSERT_TRUE(bitrep::parse_schema(encoded_as(tree, schema_encoding::compact), parsed));
    EXPECT_TRUE(parsed == tree);
    bit_builder bits; // the same by hand: "Ab9:" as four symbols, then a struct named by it
    varint(varint(bits, 1), 0).bits(27, 5).bits(0, 5).bits(1, 5).bits(28, 5).bits(9, 4).bits(29, 5).bits(31, 5);
    bits.bits(13, 4).bits(1, 1);
    varint(bits, 0);
    ASSERT_TRUE(bitrep::parse_schema(bits.result(), parsed));
    EXPECT_EQ(parsed.nodes[0].type_name, "Ab9:");
}

TEST(CompactSchema, ACharacterCodeOutOfRangeIsRefused)
{
    for (const auto& [code, bits_after, value] : {std::tuple{27, 5, 26}, std::tuple{28, 4, 10}}) {
        bit_builder bits;
        varint(varint(bits, 1), 0).bits(static_cast<std::uint64_t>(code), 5);
        bits.bits(static_cast<std::uint64_t>(value), bits_after).bits(31, 5).bits(13, 4).bits(1, 1);
        varint(bits, 0);
        const bitrep::status st = parse_compact(bits.result());
        EXPECT_EQ(st, bitrep::error::corrupt) << code;
        EXPECT_TRUE(contains(st.message(), "character code out of range")) << st.message();
    }
}

TEST(CompactSchema, AStringThatIsNotUtf8IsRefused)
{
    bit_builder bits;
    table_string(varint(bits, 1), 0, "\xC3\x28");
    bits.bits(13, 4).bits(1, 1);
    varint(bits, 0);
    EXPECT_EQ(parse_compact(bits.result()), bitrep::error::corrupt);
}

TEST(CompactSchema, ANamesInlineSchemaIsReadOnlyAsOne)
{
    // The same tree in the other encoding is not mistaken for it: a load
    // takes the encoding from the file's format.
    const auto inline_bytes = encoded_as(bitrep::schema_of<SaveGame>().tree, schema_encoding::names_inline);
    bitrep::schema parsed;
    EXPECT_FALSE(bitrep::parse_schema(inline_bytes, parsed, schema_encoding::compact));
    EXPECT_TRUE(bitrep::parse_schema(inline_bytes, parsed, schema_encoding::names_inline));
}

// ---- loading after the game changed ------------------------------------------

/// Saves `from` and loads it into `to`; the load must take the schema path.
template <class From, class To>
bitrep::status carry_over(const From& from, To& to)
{
    bitrep::load_info info;
    const bitrep::status st = bitrep::load_from_bytes(bitrep::save_to_bytes(from), to, info);
    if (st) {
        EXPECT_EQ(info.path, bitrep::load_info::route::schema);
    }
    return st;
}

namespace v1 {
struct Hero {
    static constexpr std::uint32_t save_version = 1;
    ranged<int, 1, 99> level = 1;
    bounded_string<24> name;
    bounded_vector<Item, 8> inventory;
    ranged<int, 0, 100> removed = 0;
    float speed = 1.0f;
};
BOOST_DESCRIBE_STRUCT(Hero, (), (level, name, inventory, removed, speed))
} // namespace v1

namespace v2 {
struct Hero {
    static constexpr std::uint32_t save_version = 2;
    bounded_vector<Item, 8> inventory; // reordered
    bounded_string<24> name;
    ranged<int, 1, 200> level = 1;     // widened
    ranged<int, 0, 9999> gold = 50;    // added
    quantized<0.f, 10.f, 0.01f> speed; // float -> quantized
    std::uint32_t migrated_from = 0;
    void migrate(std::uint32_t from) { migrated_from = from; }
};
BOOST_DESCRIBE_STRUCT(Hero, (), (inventory, name, level, gold, speed, migrated_from))
} // namespace v2

v1::Hero old_hero()
{
    v1::Hero hero;
    hero.level = 42;
    hero.name = "Ada";
    hero.inventory.push_back({Kind::potion, 3});
    hero.inventory.push_back({Kind::shield, 1});
    hero.removed = 77;
    hero.speed = 2.25f;
    return hero;
}

TEST(SchemaLoad, AFileOfTheSameLayoutTakesTheFastPath)
{
    v1::Hero loaded;
    bitrep::load_info info;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(old_hero()), loaded, info));
    EXPECT_EQ(info.path, bitrep::load_info::route::fast);
    EXPECT_EQ(loaded.level, 42);
}

TEST(SchemaLoad, FieldsAreMatchedByNameWhateverTheirOrder)
{
    v2::Hero hero;
    ASSERT_TRUE(carry_over(old_hero(), hero));
    EXPECT_EQ(hero.level, 42);
    EXPECT_EQ(std::string(hero.name.str()), "Ada");
    ASSERT_EQ(hero.inventory.size(), 2u);
    EXPECT_EQ(hero.inventory[0], (Item{Kind::potion, 3}));
    EXPECT_EQ(hero.inventory[1], (Item{Kind::shield, 1}));
}

TEST(SchemaLoad, AnAddedFieldGetsItsDefaultValue)
{
    v2::Hero hero;
    hero.gold = 1234; // the destination's value is not what a new field should get
    ASSERT_TRUE(carry_over(old_hero(), hero));
    EXPECT_EQ(hero.gold, 50);
}

TEST(SchemaLoad, AFloatBecomesAQuantizedFloatWithinItsResolution)
{
    v2::Hero hero;
    ASSERT_TRUE(carry_over(old_hero(), hero));
    EXPECT_NEAR(hero.speed, 2.25f, 0.005f);
}

TEST(SchemaLoad, MigrateRunsAfterLoadingAnOlderSaveVersionWithThatVersion)
{
    v2::Hero hero;
    ASSERT_TRUE(carry_over(old_hero(), hero));
    EXPECT_EQ(hero.migrated_from, 1u);
}

namespace v3 {
struct Hero {
    static constexpr std::uint32_t save_version = 3;
    ranged<int, 1, 50> level = 1; // narrowed
    bounded_string<24> name;
};
BOOST_DESCRIBE_STRUCT(Hero, (), (level, name))

struct HeroShortName {
    ranged<int, 1, 99> level = 1;
    bounded_string<2> name; // narrowed
};
BOOST_DESCRIBE_STRUCT(HeroShortName, (), (level, name))

struct HeroNameIsNumber {
    ranged<int, 1, 99> level = 1;
    ranged<int, 0, 10> name = 0; // string -> integer: no value carries over
};
BOOST_DESCRIBE_STRUCT(HeroNameIsNumber, (), (level, name))

struct HeroItemCountIsText {
    struct Thing {
        Kind kind = Kind::sword;
        bounded_string<4> count;
    };
    bounded_vector<Thing, 8> inventory;
};
BOOST_DESCRIBE_STRUCT(HeroItemCountIsText::Thing, (), (kind, count))
BOOST_DESCRIBE_STRUCT(HeroItemCountIsText, (), (inventory))
} // namespace v3

TEST(SchemaLoad, ANarrowedRangeCarriesAValueThatFits)
{
    v1::Hero hero = old_hero();
    hero.level = 50;
    v3::Hero loaded;
    ASSERT_TRUE(carry_over(hero, loaded));
    EXPECT_EQ(loaded.level, 50);
}

TEST(SchemaLoad, ANarrowedRangeRefusesAValueThatDoesNotFitNamingTheFieldAndChangesNothing)
{
    v1::Hero hero = old_hero();
    hero.level = 60;
    v3::Hero untouched;
    untouched.level = 7;
    untouched.name = "before";
    const bitrep::status refused = carry_over(hero, untouched);
    EXPECT_EQ(refused, bitrep::error::out_of_range);
    EXPECT_TRUE(contains(refused.message(), "v3::Hero.level")) << refused.message();
    EXPECT_EQ(untouched.level, 7);
    EXPECT_EQ(std::string(untouched.name.str()), "before");
}

TEST(SchemaLoad, AShorterStringBoundCarriesOnlyStringsThatFit)
{
    v3::HeroShortName loaded;
    const bitrep::status st = carry_over(old_hero(), loaded); // "Ada" is 3 bytes
    EXPECT_EQ(st, bitrep::error::out_of_range);
    EXPECT_TRUE(contains(st.message(), ".name")) << st.message();
    v1::Hero short_name = old_hero();
    short_name.name = "Al";
    ASSERT_TRUE(carry_over(short_name, loaded));
    EXPECT_EQ(std::string(loaded.name.str()), "Al");
}

TEST(SchemaLoad, AnIncompatibleTypeChangeIsASchemaMismatchNamingTheFieldAndBothKinds)
{
    v3::HeroNameIsNumber loaded;
    const bitrep::status st = carry_over(old_hero(), loaded);
    EXPECT_EQ(st, bitrep::error::schema_mismatch);
    EXPECT_TRUE(contains(st.message(), "HeroNameIsNumber.name")) << st.message();
    EXPECT_TRUE(contains(st.message(), "file has string, program has ranged integer")) << st.message();
}

TEST(SchemaLoad, AMismatchInsideAVectorElementNamesThePath)
{
    v3::HeroItemCountIsText loaded;
    const bitrep::status st = carry_over(old_hero(), loaded);
    EXPECT_EQ(st, bitrep::error::schema_mismatch);
    EXPECT_TRUE(contains(st.message(), ".inventory[0].count")) << st.message();
}

namespace positional {
struct V1 {
    std::int16_t hp = 0;
    float speed = 0;
};
struct V2 {
    std::int32_t hp = 0; // wider integer
    float speed = 0;
    int appended = 9;
};
} // namespace positional

TEST(SchemaLoad, PositionalFieldsMatchByPositionAndAnAppendedFieldGetsItsDefault)
{
    positional::V2 loaded;
    loaded.appended = -1;
    ASSERT_TRUE(carry_over(positional::V1{-300, 1.5f}, loaded));
    EXPECT_EQ(loaded.hp, -300);
    EXPECT_EQ(loaded.speed, 1.5f);
    EXPECT_EQ(loaded.appended, 9);
}

TEST(SchemaLoad, ARemovedTrailingPositionalFieldIsSkipped)
{
    positional::V1 loaded;
    ASSERT_TRUE(carry_over(positional::V2{1000, 2.5f, 4}, loaded));
    EXPECT_EQ(loaded.hp, 1000);
    EXPECT_EQ(loaded.speed, 2.5f);
}

TEST(SchemaLoad, ANarrowerIntegerRefusesAValueThatDoesNotFit)
{
    positional::V1 loaded;
    EXPECT_EQ(carry_over(positional::V2{100000, 2.5f, 4}, loaded), bitrep::error::out_of_range);
}

namespace reals {
struct Wide {
    double distance = 0.0;
    std::int64_t ticks = 0;
};
BOOST_DESCRIBE_STRUCT(Wide, (), (distance, ticks))
struct Floats { // both fields became floats
    float distance = 7.0f;
    float ticks = 7.0f;
};
BOOST_DESCRIBE_STRUCT(Floats, (), (distance, ticks))
struct Doubles { // the integer became a double
    double distance = 7.0;
    double ticks = 7.0;
};
BOOST_DESCRIBE_STRUCT(Doubles, (), (distance, ticks))
} // namespace reals

TEST(SchemaLoad, ADoubleTooLargeForAFloatIsRefusedNamingTheFieldAndChangesNothing)
{
    for (const double huge : {1e300, -1e39}) {
        reals::Floats loaded;
        const bitrep::status st = carry_over(reals::Wide{huge, 0}, loaded);
        EXPECT_EQ(st, bitrep::error::out_of_range) << huge;
        EXPECT_EQ(st.field_path(), "reals::Floats.distance") << st.message();
        EXPECT_EQ(loaded.distance, 7.0f);
    }
}

TEST(SchemaLoad, ADoubleWithinAFloatsRangeLoadsAsTheNearestFloat)
{
    reals::Floats loaded;
    ASSERT_TRUE(carry_over(reals::Wide{0.1, 0}, loaded));
    EXPECT_EQ(loaded.distance, 0.1f);
    // Above the largest float by less than half its last step: rounds to it.
    const double edge = static_cast<double>(std::numeric_limits<float>::max()) * (1.0 + 0x1p-30);
    ASSERT_TRUE(carry_over(reals::Wide{edge, 0}, loaded));
    EXPECT_EQ(loaded.distance, std::numeric_limits<float>::max());
}

TEST(SchemaLoad, AnInfiniteDoubleLoadsIntoAFloatAsInfinity)
{
    reals::Floats loaded;
    ASSERT_TRUE(carry_over(reals::Wide{-std::numeric_limits<double>::infinity(), 0}, loaded));
    EXPECT_EQ(loaded.distance, -std::numeric_limits<float>::infinity());
}

TEST(SchemaLoad, AnIntegerAFloatCannotHoldExactlyIsRefused)
{
    reals::Floats loaded;
    const bitrep::status st = carry_over(reals::Wide{0.0, (1 << 24) + 1}, loaded);
    EXPECT_EQ(st, bitrep::error::out_of_range);
    EXPECT_EQ(st.field_path(), "reals::Floats.ticks") << st.message();
    EXPECT_EQ(loaded.ticks, 7.0f);
}

TEST(SchemaLoad, AnIntegerAFloatHoldsExactlyLoadsWhateverItsSize)
{
    reals::Floats loaded;
    ASSERT_TRUE(carry_over(reals::Wide{0.0, 1 << 24}, loaded));
    EXPECT_EQ(loaded.ticks, 16777216.0f);
    ASSERT_TRUE(carry_over(reals::Wide{0.0, -(std::int64_t{3} << 60)}, loaded));
    EXPECT_EQ(loaded.ticks, -0x3p60f);
}

TEST(SchemaLoad, AnIntegerADoubleCannotHoldExactlyIsRefused)
{
    reals::Doubles loaded;
    const bitrep::status st = carry_over(reals::Wide{0.0, (std::int64_t{1} << 53) + 1}, loaded);
    EXPECT_EQ(st, bitrep::error::out_of_range);
    EXPECT_EQ(st.field_path(), "reals::Doubles.ticks") << st.message();
    EXPECT_EQ(loaded.ticks, 7.0);
}

namespace enums {
enum class Old { red, green, blue, purple };
BOOST_DESCRIBE_ENUM(Old, red, green, blue, purple)
enum class New { blue = 7, cyan, red, green }; // reordered, purple removed, cyan added
BOOST_DESCRIBE_ENUM(New, blue, cyan, red, green)
struct A {
    bounded_vector<Old, 4> colours;
};
BOOST_DESCRIBE_STRUCT(A, (), (colours))
struct B {
    bounded_vector<New, 4> colours;
};
BOOST_DESCRIBE_STRUCT(B, (), (colours))
} // namespace enums

TEST(SchemaLoad, EnumeratorsAreMatchedByName)
{
    enums::B loaded;
    ASSERT_TRUE(carry_over(enums::A{{enums::Old::green, enums::Old::blue, enums::Old::red}}, loaded));
    ASSERT_EQ(loaded.colours.size(), 3u);
    EXPECT_EQ(loaded.colours[0], enums::New::green);
    EXPECT_EQ(loaded.colours[1], enums::New::blue);
    EXPECT_EQ(loaded.colours[2], enums::New::red);
}

TEST(SchemaLoad, AnEnumeratorThatNoLongerExistsIsOutOfRange)
{
    enums::B loaded;
    const bitrep::status st = carry_over(enums::A{{enums::Old::red, enums::Old::purple}}, loaded);
    EXPECT_EQ(st, bitrep::error::out_of_range);
    EXPECT_TRUE(contains(st.message(), "colours[1]")) << st.message();
}

namespace shapes {
struct Before {
    std::optional<ranged<int, 0, 10>> maybe;
    ranged<int, 0, 10> plain = 0;
    bitrep::quat<9> rotation;
    std::array<std::uint8_t, 2> pair{};
    quantized<-100.f, 100.f, 0.01f> x;
};
BOOST_DESCRIBE_STRUCT(Before, (), (maybe, plain, rotation, pair, x))
struct After {
    ranged<int, 0, 10> maybe = 5;             // optional -> plain
    std::optional<ranged<int, 0, 20>> plain;  // plain -> optional
    bitrep::quat<14> rotation;                // more bits per component
    std::array<std::uint16_t, 4> pair{1, 1, 1, 1}; // longer array
    quantized<-50.f, 50.f, 0.1f> x;           // narrower, coarser
};
BOOST_DESCRIBE_STRUCT(After, (), (maybe, plain, rotation, pair, x))
} // namespace shapes

TEST(SchemaLoad, OptionalsQuaternionsArraysAndQuantizedFloatsConvert)
{
    shapes::Before before;
    before.maybe = 4;
    before.plain = 9;
    before.rotation = {0.5f, -0.5f, 0.5f, 0.5f};
    before.pair = {200, 201};
    before.x = 12.34f;
    shapes::After after;
    ASSERT_TRUE(carry_over(before, after));
    EXPECT_EQ(after.maybe, 4);
    ASSERT_TRUE(after.plain.has_value());
    EXPECT_EQ(*after.plain, 9);
    EXPECT_NEAR(std::abs(after.rotation.x), 0.5f, 0.003f);
    EXPECT_NEAR(std::abs(after.rotation.y), 0.5f, 0.003f);
    EXPECT_NEAR(std::abs(after.rotation.w), 0.5f, 0.003f);
    EXPECT_EQ(after.pair, (std::array<std::uint16_t, 4>{200, 201, 0, 0}));
    EXPECT_NEAR(after.x, 12.34f, 0.06f);
}

TEST(SchemaLoad, AnAbsentOptionalIntoAPlainFieldGivesItsDefault)
{
    shapes::After after;
    after.maybe = 8;
    ASSERT_TRUE(carry_over(shapes::Before{}, after));
    EXPECT_EQ(after.maybe, 0); // ranged<int, 0, 10>{} is 0
}

TEST(SchemaLoad, AQuantizedValueOutsideTheNarrowedRangeIsRefused)
{
    shapes::Before before;
    before.x = 75.0f;
    shapes::After after;
    const bitrep::status st = carry_over(before, after);
    EXPECT_EQ(st, bitrep::error::out_of_range);
    EXPECT_TRUE(contains(st.message(), "After.x")) << st.message();
}

TEST(SchemaLoad, AQuantizedValueWithinHalfAStepOfTheNarrowedRangeLoadsAsTheEdgeAndSavesAgain)
{
    shapes::Before before;
    before.x = 50.04f; // [-50, 50] at 0.1 takes it as 50, the quantum a save of it sends
    shapes::After after;
    ASSERT_TRUE(carry_over(before, after));
    EXPECT_EQ(after.x.value(), 50.0f);
    std::vector<std::uint8_t> saved;
    EXPECT_TRUE(bitrep::save_to_bytes(after, saved));
    before.x = -50.04f;
    ASSERT_TRUE(carry_over(before, after));
    EXPECT_EQ(after.x.value(), -50.0f);
}

namespace containers {
struct Thing {
    ranged<int, 0, 100> hp = 0;
    bounded_string<8> name;
};
BOOST_DESCRIBE_STRUCT(Thing, (), (hp, name))
struct Plain {
    bounded_vector<ranged<int, 0, 9>, 4> numbers;
    std::array<Thing, 3> things;
    std::array<std::optional<ranged<int, 0, 9>>, 3> maybes;
    ranged<int, 0, 1000> marker = 0; // after the containers: any misread shifts it
};
BOOST_DESCRIBE_STRUCT(Plain, (), (numbers, things, maybes, marker))
struct Optional {
    bounded_vector<std::optional<ranged<int, 0, 9>>, 4> numbers; // T -> optional<T> inside a vector
    bitrep::entity_array<Thing, 3> things;                       // array<T> -> entity_array<T> (optional slots)
    std::array<ranged<int, 0, 9>, 3> maybes{7, 7, 7};            // optional<T> -> T inside an array
    ranged<int, 0, 1000> marker = 0;
};
BOOST_DESCRIBE_STRUCT(Optional, (), (numbers, things, maybes, marker))
struct Nested {
    bounded_vector<std::optional<std::optional<ranged<int, 0, 9>>>, 4> numbers; // two optionals deep
    std::array<Thing, 3> things;
    std::array<std::optional<ranged<int, 0, 9>>, 3> maybes;
    ranged<int, 0, 1000> marker = 0;
};
BOOST_DESCRIBE_STRUCT(Nested, (), (numbers, things, maybes, marker))

Plain sample()
{
    Plain p;
    p.numbers.push_back(1);
    p.numbers.push_back(2);
    p.things[0] = {10, bounded_string<8>("ann")};
    p.things[2] = {30, bounded_string<8>("cy")};
    p.maybes[1] = 5;
    p.marker = 777;
    return p;
}
} // namespace containers

TEST(SchemaLoad, ElementsOfAVectorBecomePresentOptionals)
{
    containers::Optional loaded;
    ASSERT_TRUE(carry_over(containers::sample(), loaded));
    ASSERT_EQ(loaded.numbers.size(), 2u);
    ASSERT_TRUE(loaded.numbers[0].has_value() && loaded.numbers[1].has_value());
    EXPECT_EQ(*loaded.numbers[0], 1);
    EXPECT_EQ(*loaded.numbers[1], 2);
    EXPECT_EQ(loaded.marker, 777);
}

TEST(SchemaLoad, AnArrayOfEntitiesBecomesAnEntityArrayWithEverySlotFilled)
{
    containers::Optional loaded;
    ASSERT_TRUE(carry_over(containers::sample(), loaded));
    const auto& slots = loaded.things.slots();
    for (std::size_t i = 0; i < 3; ++i)
        ASSERT_TRUE(slots[i].has_value()) << i;
    EXPECT_EQ(slots[0]->hp, 10);
    EXPECT_EQ(slots[0]->name, bounded_string<8>("ann"));
    EXPECT_EQ(slots[1]->hp, 0);
    EXPECT_EQ(slots[2]->name, bounded_string<8>("cy"));
    EXPECT_EQ(loaded.marker, 777);
}

TEST(SchemaLoad, OptionalElementsOfAnArrayBecomePlainWithDefaultsForTheAbsent)
{
    containers::Optional loaded;
    ASSERT_TRUE(carry_over(containers::sample(), loaded));
    EXPECT_EQ(loaded.maybes, (std::array<ranged<int, 0, 9>, 3>{0, 5, 0}));
    EXPECT_EQ(loaded.marker, 777);
}

TEST(SchemaLoad, ElementsOfAVectorBecomeOptionalsTwoLevelsDeep)
{
    containers::Nested loaded;
    ASSERT_TRUE(carry_over(containers::sample(), loaded));
    ASSERT_EQ(loaded.numbers.size(), 2u);
    ASSERT_TRUE(loaded.numbers[1].has_value() && loaded.numbers[1]->has_value());
    EXPECT_EQ(**loaded.numbers[1], 2);
    EXPECT_EQ(loaded.marker, 777);
}

TEST(SchemaLoad, AnEntityArrayLoadsBackIntoAnArrayWithDefaultsForEmptySlots)
{
    containers::Optional before;
    before.things.emplace(1, containers::Thing{42, bounded_string<8>("bo")});
    before.marker = 5;
    containers::Plain loaded;
    loaded.things[0].hp = 99;
    ASSERT_TRUE(carry_over(before, loaded));
    EXPECT_EQ(loaded.things[0].hp, 0);
    EXPECT_EQ(loaded.things[1].hp, 42);
    EXPECT_EQ(loaded.things[1].name, bounded_string<8>("bo"));
    EXPECT_EQ(loaded.marker, 5);
}

namespace hooks {
struct Blob {
    std::uint32_t a = 0;
    template <class Stream>
    bool serialize(Stream& stream)
    {
        return bitrep::serialize(stream, a);
    }
};
struct WithBlob {
    Blob blob;
    ranged<int, 0, 10> n = 0;
};
BOOST_DESCRIBE_STRUCT(WithBlob, (), (blob, n))
struct WithBlobWider {
    ranged<int, 0, 100> n = 0;
    Blob blob;
};
BOOST_DESCRIBE_STRUCT(WithBlobWider, (), (n, blob))
struct WithoutBlob {
    ranged<int, 0, 10> n = 0;
};
BOOST_DESCRIBE_STRUCT(WithoutBlob, (), (n))
} // namespace hooks

TEST(SchemaLoad, AHookSerializedFieldLoadsIntoTheSameHookType)
{
    hooks::WithBlobWider loaded;
    ASSERT_TRUE(carry_over(hooks::WithBlob{{0xDEADBEEF}, 3}, loaded));
    EXPECT_EQ(loaded.blob.a, 0xDEADBEEFu);
    EXPECT_EQ(loaded.n, 3);
}

TEST(SchemaLoad, ARemovedHookSerializedFieldCannotBeSkippedAndSaysSo)
{
    hooks::WithoutBlob loaded;
    const bitrep::status st = carry_over(hooks::WithBlob{{1}, 3}, loaded);
    EXPECT_EQ(st, bitrep::error::schema_mismatch);
    EXPECT_TRUE(contains(st.message(), "blob")) << st.message();
}

// ---- stable names: renamed classes, dropped data ---------------------------

namespace ids {
struct Inventory {
    ranged<int, 0, 99> gold = 0;
};
BOOST_DESCRIBE_STRUCT(Inventory, (), (gold))
struct Hero : Inventory {
    ranged<int, 1, 99> level = 1;
};
BOOST_DESCRIBE_STRUCT(Hero, (Inventory), (level))

namespace moved {
struct Purse { // Inventory, renamed and moved into a namespace
    ranged<int, 0, 99> gold = 0;
};
BOOST_DESCRIBE_STRUCT(Purse, (), (gold))
} // namespace moved
struct HeroWithPurse : moved::Purse {
    ranged<int, 1, 99> level = 1;
};
BOOST_DESCRIBE_STRUCT(HeroWithPurse, (moved::Purse), (level))

struct Wallet { // renamed too, but keeps the old name as its id
    static constexpr std::string_view bitrep_name = "ids::Inventory";
    ranged<int, 0, 99> gold = 0;
};
BOOST_DESCRIBE_STRUCT(Wallet, (), (gold))
struct HeroWithWallet : Wallet {
    static constexpr std::string_view bitrep_name = "ids::Hero";
    ranged<int, 1, 99> level = 1;
};
BOOST_DESCRIBE_STRUCT(HeroWithWallet, (Wallet), (level))

Hero sample()
{
    Hero hero;
    hero.gold = 42;
    hero.level = 7;
    return hero;
}

template <const char* Name>
struct NamedBlob {
    static constexpr std::string_view bitrep_name = Name;
    std::uint32_t a = 0;
    template <class Stream>
    bool serialize(Stream& stream)
    {
        return bitrep::serialize(stream, a);
    }
};
inline constexpr char blob_name[] = "blob";
inline constexpr char old_blob_name[] = "blob"; // another type of the same id: a renamed class
inline constexpr char other_name[] = "other";
struct WithOldBlob {
    NamedBlob<old_blob_name> blob;
};
BOOST_DESCRIBE_STRUCT(WithOldBlob, (), (blob))
struct WithBlob {
    NamedBlob<blob_name> blob;
    ranged<int, 0, 3> added = 3;
};
BOOST_DESCRIBE_STRUCT(WithBlob, (), (blob, added))
struct WithOtherBlob {
    NamedBlob<other_name> blob;
};
BOOST_DESCRIBE_STRUCT(WithOtherBlob, (), (blob))
} // namespace ids

TEST(StableNames, ARenamedAndMovedBaseClassLoadsItsValues)
{
    ids::HeroWithPurse loaded;
    bitrep::load_info info;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(ids::sample()), loaded, info));
    EXPECT_EQ(info.path, bitrep::load_info::route::schema);
    EXPECT_EQ(loaded.gold, 42);
    EXPECT_EQ(loaded.level, 7);
    EXPECT_TRUE(info.dropped_fields.empty());
}

TEST(StableNames, ARenamedClassThatKeepsItsOldNameAsItsIdLoadsOnTheFastPath)
{
    ids::HeroWithWallet loaded;
    bitrep::load_info info;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(ids::sample()), loaded, info));
    EXPECT_EQ(info.path, bitrep::load_info::route::fast);
    EXPECT_EQ(loaded.gold, 42);
    EXPECT_EQ(loaded.level, 7);
}

TEST(StableNames, TheSchemaNamesABaseByItsIdWhenItHasOne)
{
    const bitrep::schema& tree = bitrep::schema_of<ids::HeroWithWallet>().tree;
    EXPECT_EQ(tree.nodes[0].type_name, "ids::Hero");
    EXPECT_EQ(tree.nodes[1].name, ":ids::Inventory");
}

TEST(StableNames, AHookTypeRenamedWithItsIdKeptLoads)
{
    ids::WithBlob loaded;
    loaded.added = 1;
    ASSERT_TRUE(carry_over(ids::WithOldBlob{{0xBEEF}}, loaded));
    EXPECT_EQ(loaded.blob.a, 0xBEEFu);
    EXPECT_EQ(loaded.added, 3); // added since: its default
}

TEST(StableNames, AHookOfAnotherIdIsRefusedNamingBoth)
{
    ids::WithOtherBlob loaded;
    loaded.blob.a = 5;
    const bitrep::status st = carry_over(ids::WithOldBlob{{1}}, loaded);
    EXPECT_EQ(st, bitrep::error::schema_mismatch);
    EXPECT_TRUE(contains(st.message(), "file has blob, program has other")) << st.message();
    EXPECT_TRUE(contains(st.message(), "WithOtherBlob.blob")) << st.message();
    EXPECT_EQ(loaded.blob.a, 5u);
}

TEST(DroppedData, ARemovedFieldIsListedInTheLoadInfo)
{
    v2::Hero loaded;
    bitrep::load_info info;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(old_hero()), loaded, info));
    EXPECT_EQ(info.dropped_fields, (std::vector<std::string>{"v2::Hero.removed"}));
}

TEST(DroppedData, ALoadThatWouldDropDataIsRefusedWhenTheCallerAsksAndChangesNothing)
{
    v2::Hero loaded;
    loaded.gold = 1234;
    bitrep::load_info info;
    bitrep::load_options options;
    options.refuse_dropped_fields = true;
    const bitrep::status st = bitrep::load_from_bytes(bitrep::save_to_bytes(old_hero()), loaded, info, options);
    EXPECT_EQ(st, bitrep::error::schema_mismatch);
    EXPECT_EQ(st.field_path(), "v2::Hero.removed");
    EXPECT_TRUE(contains(st.message(), "refuse_dropped_fields")) << st.message();
    EXPECT_EQ(loaded.gold, 1234);
    EXPECT_EQ(info.dropped_fields, (std::vector<std::string>{"v2::Hero.removed"}));
}

TEST(DroppedData, AFileWithoutDroppedFieldsLoadsWhenTheCallerRefusesDroppedData)
{
    bitrep::load_options options;
    options.refuse_dropped_fields = true;
    ids::HeroWithPurse loaded;
    EXPECT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(ids::sample()), loaded, options));
    EXPECT_EQ(loaded.gold, 42);
}

namespace dropped {
struct ItemV1 {
    ranged<int, 1, 64> count = 1;
    ranged<int, 0, 500> weight = 0;
};
BOOST_DESCRIBE_STRUCT(ItemV1, (), (count, weight))
struct BagV1 {
    bounded_vector<ItemV1, 4> items;
};
BOOST_DESCRIBE_STRUCT(BagV1, (), (items))
struct ItemV2 {
    ranged<int, 1, 64> count = 1;
    bitrep::transient<int> weight = 0; // no longer saved
};
BOOST_DESCRIBE_STRUCT(ItemV2, (), (count, weight))
struct BagV2 {
    bounded_vector<ItemV2, 4> items;
};
BOOST_DESCRIBE_STRUCT(BagV2, (), (items))
} // namespace dropped

TEST(DroppedData, AFieldOfAVectorElementThatIsNoLongerSavedIsListedOnce)
{
    dropped::BagV1 bag;
    bag.items.push_back({3, 250});
    bag.items.push_back({4, 100});
    dropped::BagV2 loaded;
    bitrep::load_info info;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(bag), loaded, info));
    ASSERT_EQ(loaded.items.size(), 2u);
    EXPECT_EQ(loaded.items[1].count, 4);
    EXPECT_EQ(info.dropped_fields, (std::vector<std::string>{"dropped::BagV2.items[].weight"}));
}

namespace clamping {
namespace v1 {
struct Enemy {
    ranged<int, 0, 500> health = 0;
    quantized<0.f, 100.f, 0.5f> speed;
};
BOOST_DESCRIBE_STRUCT(Enemy, (), (health, speed))
struct World {
    static constexpr std::uint32_t save_version = 1;
    bounded_vector<Enemy, 8> enemies;
    ranged<int, -100, 100> wind = 0;
    std::int32_t gold = 0;
    double distance = 0.0;
    std::int64_t ticks = 0;
};
BOOST_DESCRIBE_STRUCT(World, (), (enemies, wind, gold, distance, ticks))
} // namespace v1
namespace v2 { // every range narrower
struct Enemy {
    ranged<int, 0, 100> health = 0;
    quantized<0.f, 10.f, 0.5f> speed;
};
BOOST_DESCRIBE_STRUCT(Enemy, (), (health, speed))
struct World {
    static constexpr std::uint32_t save_version = 2;
    bounded_vector<Enemy, 8> enemies;
    ranged<int, -10, 10> wind = 0;
    std::int16_t gold = 0;
    float distance = 0.0f;
    float ticks = 0.0f;
};
BOOST_DESCRIBE_STRUCT(World, (), (enemies, wind, gold, distance, ticks))
} // namespace v2

v1::World world(std::initializer_list<int> healths)
{
    v1::World w;
    for (const int health : healths)
        w.enemies.push_back({health, 5.0f});
    return w;
}

/// Loads `file` into `loaded` with load_options::clamp_out_of_range.
bitrep::status load_clamping(const v1::World& file, v2::World& loaded, bitrep::load_info& info)
{
    bitrep::load_options options;
    options.clamp_out_of_range = true;
    return bitrep::load_from_bytes(bitrep::save_to_bytes(file), loaded, info, options);
}
} // namespace clamping

TEST(ClampedValues, ByDefaultAValueOutsideANarrowedRangeIsRefusedNamingTheElement)
{
    clamping::v2::World loaded;
    const bitrep::status st = carry_over(clamping::world({50, 300}), loaded);
    EXPECT_EQ(st, bitrep::error::out_of_range);
    EXPECT_EQ(st.field_path(), "clamping::v2::World.enemies[1].health") << st.message();
    EXPECT_TRUE(loaded.enemies.empty());
}

TEST(ClampedValues, AValueOutsideANarrowedRangeLoadsAsTheNearestBoundWhenTheCallerAsks)
{
    clamping::v1::World file = clamping::world({300, 50});
    file.wind = -50;
    clamping::v2::World loaded;
    bitrep::load_info info;
    const bitrep::status st = clamping::load_clamping(file, loaded, info);
    ASSERT_TRUE(st) << st.message();
    ASSERT_EQ(loaded.enemies.size(), 2u);
    EXPECT_EQ(loaded.enemies[0].health, 100);
    EXPECT_EQ(loaded.enemies[1].health, 50);
    EXPECT_EQ(loaded.wind, -10);
}

TEST(ClampedValues, EachClampedFieldIsListedOnceWithItsCountInTheSchemasOrder)
{
    clamping::v1::World file = clamping::world({300, 50, 400});
    file.wind = 50;
    clamping::v2::World loaded;
    bitrep::load_info info;
    ASSERT_TRUE(clamping::load_clamping(file, loaded, info));
    EXPECT_EQ(info.clamped_fields, (std::vector<bitrep::clamped_field>{{"clamping::v2::World.enemies[].health", 2},
                                                                        {"clamping::v2::World.wind", 1}}));
}

TEST(ClampedValues, ALoadThatClampsNothingListsNothing)
{
    clamping::v2::World loaded;
    bitrep::load_info info;
    ASSERT_TRUE(clamping::load_clamping(clamping::world({100, 0}), loaded, info));
    EXPECT_EQ(info.path, bitrep::load_info::route::schema);
    EXPECT_TRUE(info.clamped_fields.empty());
}

TEST(ClampedValues, AQuantizedValueOutsideANarrowedRangeLoadsAsTheNearestBound)
{
    clamping::v1::World file = clamping::world({1});
    file.enemies[0].speed = 60.0f;
    clamping::v2::World loaded;
    bitrep::load_info info;
    ASSERT_TRUE(clamping::load_clamping(file, loaded, info));
    EXPECT_EQ(loaded.enemies[0].speed.value(), 10.0f);
    EXPECT_EQ(info.clamped_fields,
              (std::vector<bitrep::clamped_field>{{"clamping::v2::World.enemies[].speed", 1}}));
}

TEST(ClampedValues, AnIntegerOutsideANarrowerTypeLoadsAsItsLimit)
{
    clamping::v1::World file;
    file.gold = -100000;
    clamping::v2::World loaded;
    bitrep::load_info info;
    ASSERT_TRUE(clamping::load_clamping(file, loaded, info));
    EXPECT_EQ(loaded.gold, std::numeric_limits<std::int16_t>::min());
    EXPECT_EQ(info.clamped_fields, (std::vector<bitrep::clamped_field>{{"clamping::v2::World.gold", 1}}));
}

TEST(ClampedValues, ADoubleOutsideAFloatsRangeLoadsAsTheLargestFloat)
{
    clamping::v1::World file;
    file.distance = -1e300;
    clamping::v2::World loaded;
    bitrep::load_info info;
    ASSERT_TRUE(clamping::load_clamping(file, loaded, info));
    EXPECT_EQ(loaded.distance, -std::numeric_limits<float>::max());
    EXPECT_EQ(info.clamped_fields, (std::vector<bitrep::clamped_field>{{"clamping::v2::World.distance", 1}}));
}

TEST(ClampedValues, AnIntegerAFloatCannotHoldExactlyIsStillRefused)
{
    clamping::v1::World file;
    file.ticks = (1 << 24) + 1; // not outside a float's range: between two floats
    clamping::v2::World loaded;
    bitrep::load_info info;
    const bitrep::status st = clamping::load_clamping(file, loaded, info);
    EXPECT_EQ(st, bitrep::error::out_of_range);
    EXPECT_EQ(st.field_path(), "clamping::v2::World.ticks") << st.message();
}

namespace migration {
struct Before {
    static constexpr std::uint32_t save_version = 1;
    ranged<int, 0, 1000> hp_tenths = 0;
};
BOOST_DESCRIBE_STRUCT(Before, (), (hp_tenths))

// Same layout, new meaning: the fast path, then migrate.
struct After {
    static constexpr std::uint32_t save_version = 2;
    ranged<int, 0, 1000> hp_tenths = 0;
};
BOOST_DESCRIBE_STRUCT(After, (), (hp_tenths))
bool migrate(std::uint32_t from, After& after)
{
    if (from == 1) {
        if (after.hp_tenths * 10 > 1000)
            return false; // a migration may refuse what it cannot carry over
        after.hp_tenths = after.hp_tenths * 10;
    }
    return true;
}

/// The same layout saved by an older version: After's file with its header's
/// save_version set to `version` (and the CRC made right again).
std::vector<std::uint8_t> saved_as_version(const After& value, std::uint32_t version)
{
    std::vector<std::uint8_t> file = bitrep::save_to_bytes(value);
    bitrep::save_header header;
    EXPECT_TRUE(bitrep::read_save_header(file, header));
    header.save_version = version;
    bitrep::detail::seal_save(file, header); // both CRCs cover the version
    return file;
}
} // namespace migration

TEST(SchemaLoad, AFreeMigrateRunsForAnOlderVersionEvenOnTheFastPath)
{
    migration::After after;
    bitrep::load_info info;
    ASSERT_TRUE(bitrep::load_from_bytes(migration::saved_as_version(migration::After{7}, 1), after, info));
    EXPECT_EQ(info.path, bitrep::load_info::route::fast);
    EXPECT_EQ(info.header.save_version, 1u);
    EXPECT_EQ(after.hp_tenths, 70);
}

TEST(SchemaLoad, MigrateDoesNotRunForTheCurrentVersion)
{
    migration::After after;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(migration::After{7}), after));
    EXPECT_EQ(after.hp_tenths, 7);
}

TEST(SchemaLoad, AMigrateThatRefusesLeavesTheObjectUnchanged)
{
    migration::After after{5};
    const bitrep::status st = bitrep::load_from_bytes(bitrep::save_to_bytes(migration::Before{999}), after);
    EXPECT_EQ(st, bitrep::error::hook_failed);
    EXPECT_TRUE(contains(st.message(), "migrate")) << st.message();
    EXPECT_EQ(after.hp_tenths, 5);
    // and the same file shape with a value migrate accepts loads
    EXPECT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(migration::Before{99}), after));
    EXPECT_EQ(after.hp_tenths, 990);
}

namespace unsaved {
struct V1 {
    ranged<int, 0, 10> a = 0;
    bitrep::net_only<int> net = 0;
};
BOOST_DESCRIBE_STRUCT(V1, (), (a, net))
struct V2 {
    ranged<int, 0, 20> a = 0;
    bitrep::net_only<int> net = 0;
    bitrep::transient<std::string> cache;
};
BOOST_DESCRIBE_STRUCT(V2, (), (a, net, cache))
} // namespace unsaved

TEST(SchemaLoad, FieldsASaveDoesNotCarryKeepTheDestinationsValues)
{
    unsaved::V2 loaded;
    loaded.net = 31;
    loaded.cache.get() = "kept";
    ASSERT_TRUE(carry_over(unsaved::V1{4, 99}, loaded));
    EXPECT_EQ(loaded.a, 4);
    EXPECT_EQ(loaded.net, 31);
    EXPECT_EQ(loaded.cache.get(), "kept");
}

namespace elements {
struct ItemV2 {
    Kind kind = Kind::sword;
    ranged<int, 1, 99> count = 1;
    bool cursed = true; // added
};
BOOST_DESCRIBE_STRUCT(ItemV2, (), (kind, count, cursed))
struct HeroV2 {
    bounded_vector<ItemV2, 16> inventory;
};
BOOST_DESCRIBE_STRUCT(HeroV2, (), (inventory))
} // namespace elements

TEST(SchemaLoad, EveryVectorElementGetsTheDefaultOfAFieldAddedToTheElementType)
{
    elements::HeroV2 loaded;
    loaded.inventory.resize(5); // existing elements must not keep stale values
    for (auto& item : loaded.inventory)
        item.cursed = false;
    ASSERT_TRUE(carry_over(old_hero(), loaded));
    ASSERT_EQ(loaded.inventory.size(), 2u);
    EXPECT_EQ(loaded.inventory[0].kind, Kind::potion);
    EXPECT_EQ(loaded.inventory[0].count, 3);
    EXPECT_TRUE(loaded.inventory[0].cursed);
    EXPECT_TRUE(loaded.inventory[1].cursed);
}

namespace stale {
struct V1 {
    ranged<int, 0, 10> a = 0;
    std::array<ranged<int, 0, 9>, 2> slots{};
    std::optional<ranged<int, 0, 20>> maybe;
    bounded_vector<Item, 8> inventory;
    bitrep::net_only<int> net = 0;
};
BOOST_DESCRIBE_STRUCT(V1, (), (a, slots, maybe, inventory, net))
struct V2 {
    ranged<int, 0, 10> a = 0;
    std::array<ranged<int, 0, 9>, 4> slots{};      // longer
    ranged<int, 0, 20> maybe = 5;                  // no longer optional
    bounded_vector<elements::ItemV2, 8> inventory; // an element field added
    ranged<int, 0, 9999> gold = 50;                // added
    bitrep::net_only<int> net = 0;
};
BOOST_DESCRIBE_STRUCT(V2, (), (a, slots, maybe, inventory, gold, net))
} // namespace stale

// A loader decodes a type with a field saves do not carry into a copy of
// the destination: what the file lacks must not keep the destination's value.
TEST(SchemaLoad, WhatTheFileLacksGetsItsDefaultWhateverTheDestinationHeld)
{
    stale::V1 old;
    old.a = 3;
    old.slots = {1, 2};
    old.inventory.push_back({Kind::potion, 3});
    old.net = 99;
    stale::V2 loaded;
    loaded.slots = {9, 9, 9, 9};
    loaded.maybe = 7;
    loaded.inventory.resize(5);
    for (auto& item : loaded.inventory)
        item.cursed = false;
    loaded.gold = 1234;
    loaded.net = 31;
    bitrep::loader<stale::V2> loader;
    bitrep::load_info info;
    ASSERT_TRUE(loader.load_from_bytes(bitrep::save_to_bytes(old), loaded, info));
    EXPECT_EQ(info.path, bitrep::load_info::route::schema);
    EXPECT_EQ(loaded.a, 3);
    EXPECT_EQ(loaded.slots[0], 1);
    EXPECT_EQ(loaded.slots[1], 2);
    EXPECT_EQ(loaded.slots[2], 0); // an element the file lacks: a default-made one
    EXPECT_EQ(loaded.slots[3], 0);
    EXPECT_EQ(loaded.maybe, (ranged<int, 0, 20>{})); // absent: a default-made value
    ASSERT_EQ(loaded.inventory.size(), 1u);
    EXPECT_EQ(loaded.inventory[0].count, 3);
    EXPECT_TRUE(loaded.inventory[0].cursed); // the element type's default
    EXPECT_EQ(loaded.gold, 50);              // the struct's default
    EXPECT_EQ(loaded.net, 31);               // not saved: the destination's
}

namespace narrowed {
struct TinyItem {
    Kind kind = Kind::sword;
    ranged<int, 1, 10> count = 1;
};
BOOST_DESCRIBE_STRUCT(TinyItem, (), (kind, count))
struct Tiny {
    bounded_vector<TinyItem, 8> inventory;
    bounded_string<24> name;
};
BOOST_DESCRIBE_STRUCT(Tiny, (), (inventory, name))
} // namespace narrowed

TEST(SchemaLoad, AValueThatDoesNotFitLateInTheFileLeavesTheObjectUnchanged)
{
    v1::Hero hero = old_hero();
    hero.inventory.push_back({Kind::sword, 64});
    narrowed::Tiny loaded;
    loaded.name = "unchanged";
    loaded.inventory.resize(1);
    const bitrep::status st = carry_over(hero, loaded);
    EXPECT_EQ(st, bitrep::error::out_of_range);
    EXPECT_TRUE(contains(st.message(), "Tiny.inventory[2].count")) << st.message();
    EXPECT_EQ(std::string(loaded.name.str()), "unchanged");
    EXPECT_EQ(loaded.inventory.size(), 1u);
}

} // namespace

namespace renamed {
struct OldName {
    ranged<int, 0, 10> a = 0;
    bounded_vector<Item, 4> items;
};
BOOST_DESCRIBE_STRUCT(OldName, (), (a, items))
struct NewName {
    ranged<int, 0, 10> a = 0;
    bounded_vector<Item, 4> items;
};
BOOST_DESCRIBE_STRUCT(NewName, (), (a, items))
} // namespace renamed

TEST(SchemaLoad, ARenamedStructLoadsThroughItsSchemaWithEveryValue)
{
    renamed::NewName loaded;
    ASSERT_TRUE(carry_over(renamed::OldName{7, {{Kind::shield, 2}, {Kind::potion, 9}}}, loaded));
    EXPECT_EQ(loaded.a, 7);
    ASSERT_EQ(loaded.items.size(), 2u);
    EXPECT_EQ(loaded.items[1], (Item{Kind::potion, 9}));
}

TEST(SchemaLoad, KnowsWhichTypesASaveCarriesCompletely)
{
    using bitrep::scope;
    using bitrep::detail::every_field_carried;
    EXPECT_TRUE((every_field_carried<v1::Hero, scope::save>::value));
    EXPECT_TRUE((every_field_carried<Rich, scope::save>::value));
    EXPECT_FALSE((every_field_carried<SaveGame, scope::save>::value));       // a net_only camera
    EXPECT_TRUE((every_field_carried<SaveGame, scope::all>::value));         // which to_bytes carries
    EXPECT_FALSE((every_field_carried<Positional, scope::save>::value));     // a transient cache
    EXPECT_FALSE((every_field_carried<Positional, scope::all>::value));      // which nothing carries
    EXPECT_FALSE((every_field_carried<hooks::WithBlob, scope::save>::value)); // a hook may skip fields
}

TEST(Loader, LoadsAgainAndAgainIntoTheSameObject)
{
    bitrep::loader<v2::Hero> loader;
    v2::Hero hero;
    for (int level = 1; level <= 3; ++level) {
        v1::Hero saved = old_hero();
        saved.level = level;
        saved.inventory.resize(static_cast<std::size_t>(level));
        bitrep::load_info info;
        ASSERT_TRUE(loader.load_from_bytes(bitrep::save_to_bytes(saved), hero, info));
        EXPECT_EQ(info.path, bitrep::load_info::route::schema);
        EXPECT_EQ(hero.level, level);
        EXPECT_EQ(hero.inventory.size(), static_cast<std::size_t>(level));
        EXPECT_EQ(hero.gold, 50); // the default, also when the working object held an old value
    }
}

TEST(Loader, AFailedLoadLeavesTheObjectUnchanged)
{
    bitrep::loader<v3::Hero> loader;
    v3::Hero hero;
    hero.level = 9;
    ASSERT_TRUE(loader.load_from_bytes(bitrep::save_to_bytes(old_hero()), hero)); // level 42 fits [1, 50]
    EXPECT_EQ(hero.level, 42);
    v1::Hero too_high = old_hero();
    too_high.level = 60;
    EXPECT_EQ(loader.load_from_bytes(bitrep::save_to_bytes(too_high), hero), bitrep::error::out_of_range);
    EXPECT_EQ(hero.level, 42);
}

TEST(Loader, FieldsASaveDoesNotCarryKeepTheDestinationsValues)
{
    bitrep::loader<unsaved::V2> loader;
    unsaved::V2 loaded;
    loaded.net = 31;
    ASSERT_TRUE(loader.load_from_bytes(bitrep::save_to_bytes(unsaved::V1{4, 99}), loaded));
    ASSERT_TRUE(loader.load_from_bytes(bitrep::save_to_bytes(unsaved::V1{5, 98}), loaded));
    EXPECT_EQ(loaded.a, 5);
    EXPECT_EQ(loaded.net, 31);
}

// ---- renames (bitrep_renames) --------------------------------------------

namespace renames_v1 {
enum class Gem { ruby, azure, jade };
BOOST_DESCRIBE_ENUM(Gem, ruby, azure, jade)

struct Purse {
    static constexpr std::string_view bitrep_name = "Purse";
    ranged<int, 0, 999> gold = 0;
    Gem gem = Gem::ruby;
};
BOOST_DESCRIBE_STRUCT(Purse, (), (gold, gem))
} // namespace renames_v1

namespace renames_v2 {
enum class Gem { ruby, jade, sapphire };
BOOST_DESCRIBE_ENUM(Gem, ruby, jade, sapphire)
constexpr auto bitrep_renames(Gem) { return std::array{bitrep::renamed{.from = "azure", .to = "sapphire"}}; }

struct Purse {
    static constexpr std::string_view bitrep_name = "Purse";
    static constexpr bitrep::renamed bitrep_renames[] = {{.from = "gold", .to = "coins"}};
    ranged<int, 0, 9999> coins = 0; // renamed, and its range widened
    Gem gem = Gem::ruby;
};
BOOST_DESCRIBE_STRUCT(Purse, (), (coins, gem))

/// The same rename without bitrep_renames: the old behaviour, for contrast.
struct PurseWithoutRenames {
    static constexpr std::string_view bitrep_name = "Purse";
    ranged<int, 0, 9999> coins = 0;
};
BOOST_DESCRIBE_STRUCT(PurseWithoutRenames, (), (coins))
} // namespace renames_v2

TEST(SchemaRenames, ARenamedFieldLoadsItsValueFromTheOldNameAndIsNotDropped)
{
    renames_v2::Purse loaded;
    bitrep::load_info info;
    const bitrep::status st = bitrep::load_from_bytes(
        bitrep::save_to_bytes(renames_v1::Purse{500, renames_v1::Gem::jade}), loaded, info);
    ASSERT_TRUE(st) << st.message();
    EXPECT_EQ(info.path, bitrep::load_info::route::schema);
    EXPECT_EQ(loaded.coins, 500);
    EXPECT_EQ(loaded.gem, renames_v2::Gem::jade);
    EXPECT_TRUE(info.dropped_fields.empty());
}

TEST(SchemaRenames, WithoutBitrepRenamesTheOldFieldIsDroppedAndListed)
{
    renames_v2::PurseWithoutRenames loaded;
    bitrep::load_info info;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(renames_v1::Purse{500, renames_v1::Gem::jade}), loaded,
                                        info));
    EXPECT_EQ(loaded.coins, 0);
    EXPECT_EQ(info.dropped_fields, (std::vector<std::string>{"renames_v2::PurseWithoutRenames.gold",
                                                             "renames_v2::PurseWithoutRenames.gem"}));
}

TEST(SchemaRenames, ARenamedEnumeratorLoadsFromItsOldName)
{
    renames_v2::Purse loaded;
    const bitrep::status st =
        bitrep::load_from_bytes(bitrep::save_to_bytes(renames_v1::Purse{1, renames_v1::Gem::azure}), loaded);
    ASSERT_TRUE(st) << st.message();
    EXPECT_EQ(loaded.gem, renames_v2::Gem::sapphire);
}

TEST(SchemaRenames, TheProgramsSchemaKeepsFormerNamesOutOfTheFile)
{
    const bitrep::program_schema& mine = bitrep::schema_of<renames_v2::Purse>();
    EXPECT_EQ(mine.tree.nodes[1].name, "coins");
    EXPECT_EQ(mine.tree.nodes[1].former_names, std::vector<std::string>{"gold"});
    bitrep::schema parsed;
    ASSERT_TRUE(bitrep::parse_schema(mine.encoded, parsed));
    EXPECT_TRUE(parsed.nodes[1].former_names.empty());
    EXPECT_EQ(parsed.nodes[1].name, "coins");
}

namespace renames_v3 {
enum class Gem { ruby, jade };
BOOST_DESCRIBE_ENUM(Gem, ruby, jade)

struct Purse {
    static constexpr std::string_view bitrep_name = "Purse";
    ranged<int, 0, 999> gold = 0;
    Gem gem = Gem::ruby;
};
BOOST_DESCRIBE_STRUCT(Purse, (), (gold, gem))
} // namespace renames_v3

TEST(SchemaRenames, AnEnumeratorTheProgramLacksIsRefusedNamingItAndTheFix)
{
    renames_v3::Purse loaded{7, renames_v3::Gem::jade};
    const bitrep::status st =
        bitrep::load_from_bytes(bitrep::save_to_bytes(renames_v1::Purse{1, renames_v1::Gem::azure}), loaded);
    EXPECT_EQ(st.code(), bitrep::error::out_of_range);
    EXPECT_EQ(st.field_path(), "renames_v3::Purse.gem");
    EXPECT_EQ(st.detail(), "no `azure` in the program's enum: if renamed, list the old name in bitrep_renames");
    EXPECT_EQ(loaded.gold, 7);
}

// ---- reordered fields and layouts changed without a new save_version --------

namespace order_v1 {
struct Stats {
    static constexpr std::string_view bitrep_name = "Stats";
    ranged<int, 0, 100> hp = 0;
    ranged<int, 0, 100> mana = 0;
};
BOOST_DESCRIBE_STRUCT(Stats, (), (hp, mana))
struct Hero {
    static constexpr std::string_view bitrep_name = "Hero";
    Stats stats;
};
BOOST_DESCRIBE_STRUCT(Hero, (), (stats))

/// Undescribed aggregates: their fields are positions in the file.
struct Body {
    ranged<int, 0, 100> hp = 0;
    ranged<int, 0, 100> mana = 0;
};
} // namespace order_v1

namespace order_v2 {
struct Stats {
    static constexpr std::string_view bitrep_name = "Stats";
    ranged<int, 0, 100> mana = 0;
    ranged<int, 0, 100> hp = 0;
};
BOOST_DESCRIBE_STRUCT(Stats, (), (mana, hp))
struct Hero {
    static constexpr std::string_view bitrep_name = "Hero";
    Stats stats;
};
BOOST_DESCRIBE_STRUCT(Hero, (), (stats))

/// hp and mana swapped, and a field added: the same save_version.
struct Body {
    ranged<int, 0, 100> mana = 0;
    ranged<int, 0, 100> hp = 0;
    ranged<int, 0, 10> level = 1;
};
/// The same change with a new save_version.
struct BodyVersioned {
    static constexpr std::uint32_t save_version = 2;
    ranged<int, 0, 100> mana = 0;
    ranged<int, 0, 100> hp = 0;
    ranged<int, 0, 10> level = 1;
};
} // namespace order_v2

TEST(LayoutChanges, ADescribedStructWhoseFieldsWereReorderedLoadsByNameAndSaysSo)
{
    order_v2::Hero loaded;
    bitrep::load_info info;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(order_v1::Hero{{80, 20}}), loaded, info));
    EXPECT_EQ(loaded.stats.hp, 80);
    EXPECT_EQ(loaded.stats.mana, 20);
    EXPECT_EQ(info.reordered_structs, std::vector<std::string>{"order_v2::Hero.stats"});
    EXPECT_TRUE(info.unversioned_layout_change);
}

TEST(LayoutChanges, ReorderedFieldsAreRefusedWhenTheCallerAsksAndChangeNothing)
{
    order_v2::Hero loaded{{7, 9}};
    bitrep::load_options options;
    options.refuse_reordered_fields = true;
    const bitrep::status st = bitrep::load_from_bytes(bitrep::save_to_bytes(order_v1::Hero{{80, 20}}), loaded, options);
    EXPECT_EQ(st, bitrep::error::schema_mismatch);
    EXPECT_EQ(st.field_path(), "order_v2::Hero.stats");
    EXPECT_EQ(st.message(), "schema_mismatch at order_v2::Hero.stats: the file holds these fields in another order "
                            "(refuse_reordered_fields)");
    EXPECT_EQ(loaded.stats.mana, 7);
    EXPECT_EQ(loaded.stats.hp, 9);
}

TEST(LayoutChanges, AFileInTheProgramsOwnOrderReportsNoReorderAndNoLayoutChange)
{
    order_v1::Hero loaded;
    bitrep::load_info info;
    bitrep::load_options options;
    options.refuse_reordered_fields = true;
    options.refuse_unversioned_layout_change = true;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(order_v1::Hero{{80, 20}}), loaded, info, options));
    EXPECT_TRUE(info.reordered_structs.empty());
    EXPECT_FALSE(info.unversioned_layout_change);
}

TEST(LayoutChanges, AnAggregateChangedWithoutANewSaveVersionIsReportedAndRefusedOnRequest)
{
    order_v2::Body loaded{1, 2, 3};
    bitrep::load_info info;
    const std::vector<std::uint8_t> file = bitrep::save_to_bytes(order_v1::Body{80, 20});
    ASSERT_TRUE(bitrep::load_from_bytes(file, loaded, info));
    // Matched by position: the swap is invisible, the changed layout is not.
    EXPECT_TRUE(info.unversioned_layout_change);
    EXPECT_TRUE(info.reordered_structs.empty());
    order_v2::Body kept{1, 2, 3};
    bitrep::load_options options;
    options.refuse_unversioned_layout_change = true;
    const bitrep::status st = bitrep::load_from_bytes(file, kept, info, options);
    EXPECT_EQ(st, bitrep::error::schema_mismatch);
    EXPECT_TRUE(contains(st.message(), "refuse_unversioned_layout_change")) << st.message();
    EXPECT_FALSE(contains(st.message(), "bit ")) << st.message();
    EXPECT_EQ(kept.mana, 1);
}

TEST(LayoutChanges, ANewSaveVersionMarksTheChangeAsIntended)
{
    order_v2::BodyVersioned loaded;
    bitrep::load_info info;
    bitrep::load_options options;
    options.refuse_unversioned_layout_change = true;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(order_v1::Body{80, 20}), loaded, info, options));
    EXPECT_FALSE(info.unversioned_layout_change);
    EXPECT_EQ(info.path, bitrep::load_info::route::schema);
}

// ---- messages of refusals that no bit is to blame for --------------------

TEST(SchemaMessages, ARefusedDroppedFieldNamesNoBit)
{
    v2::Hero loaded;
    bitrep::load_options options;
    options.refuse_dropped_fields = true;
    const bitrep::status st = bitrep::load_from_bytes(bitrep::save_to_bytes(old_hero()), loaded, options);
    EXPECT_EQ(st.message(),
              "schema_mismatch at v2::Hero.removed: the file holds a field the program does not load "
              "(refuse_dropped_fields)");
}

TEST(SchemaMessages, AKindMismatchNamesNoBit)
{
    v3::HeroNameIsNumber loaded;
    const bitrep::status st = bitrep::load_from_bytes(bitrep::save_to_bytes(old_hero()), loaded);
    EXPECT_EQ(st, bitrep::error::schema_mismatch);
    EXPECT_FALSE(contains(st.message(), "bit ")) << st.message();
}
