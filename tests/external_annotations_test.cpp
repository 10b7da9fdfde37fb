// Annotations given outside a type (bitrep::annotate<T>, reflect.hpp): a
// plain struct from an existing codebase is sent, saved and delta-encoded
// exactly as the same struct with the annotations written inside it.
#include <bitrep/bitrep.hpp>
#include <bitrep/coded_delta.hpp>
#include <bitrep/delta.hpp>

#include <boost/describe/class.hpp>

#include <gtest/gtest.h>

#include "test_oracle.hpp"

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace {

using oracle::bytes;
using pos = bitrep::quantized<-512.f, 512.f, 0.01f>;
using height = bitrep::quantized<0.f, 64.f, 0.01f>;

// What a game already has, untouched: no bitrep type inside.
struct Transform {
    float x = 0, y = 0, z = 0;
};
struct Stats {
    int hp = 100;
    bool alive = true;
    std::uint8_t team = 0;
    std::string debug_name; // never sent
};
BOOST_DESCRIBE_STRUCT(Stats, (), (hp, alive, team, debug_name))

struct Unit {
    Transform at;
    Stats stats;
    std::optional<Transform> target;
    std::uint32_t id = 0; // as it is
};
BOOST_DESCRIBE_STRUCT(Unit, (), (at, stats, target, id))

// The same structs with the annotations inside: the bytes must be theirs.
struct InsideTransform {
    pos x, y;
    height z;
};
struct InsideStats {
    bitrep::ranged<int, 0, 100> hp = 100;
    bool alive = true;
    bitrep::ranged<std::uint8_t, 0, 3> team = 0;
    bitrep::transient<std::string> debug_name;
};
struct InsideUnit {
    InsideTransform at;
    InsideStats stats;
    std::optional<InsideTransform> target;
    std::uint32_t id = 0;
};

InsideTransform inside(const Transform& t) { return {t.x, t.y, t.z}; }
InsideStats inside(const Stats& s) { return {s.hp, s.alive, s.team, {s.debug_name}}; }
InsideUnit inside(const Unit& u)
{
    return {inside(u.at), inside(u.stats), u.target ? std::optional(inside(*u.target)) : std::nullopt, u.id};
}

Unit random_unit(std::mt19937& rng)
{
    std::uniform_real_distribution<float> coordinate(-512.f, 512.f);
    std::uniform_real_distribution<float> up(0.f, 64.f);
    std::uniform_int_distribution<int> hp(0, 100);
    Unit u;
    u.at = {coordinate(rng), coordinate(rng), up(rng)};
    u.stats = {hp(rng), hp(rng) % 2 == 0, static_cast<std::uint8_t>(hp(rng) % 4), "unit" + std::to_string(hp(rng))};
    if (hp(rng) % 3 != 0)
        u.target = Transform{coordinate(rng), coordinate(rng), up(rng)};
    u.id = static_cast<std::uint32_t>(rng());
    return u;
}

template <class T>
bytes encoded(const T& value)
{
    bytes out;
    const bitrep::status st = bitrep::to_bytes(value, out);
    EXPECT_TRUE(st.ok()) << st.message();
    return out;
}

template <class T>
bytes delta_bytes(const T& base, const T& current)
{
    bytes out((bitrep::max_delta_bits<T> + 7) / 8 + 8, 0);
    bitrep::write_stream stream(out);
    EXPECT_TRUE(bitrep::write_delta(stream, base, current));
    out.resize(stream.flush());
    return out;
}

} // namespace

template <>
struct bitrep::annotate<Transform> {
    using fields = std::tuple<pos, pos, height>;
};
template <>
struct bitrep::annotate<Stats> {
    using fields = std::tuple<bitrep::ranged<int, 0, 100>, bitrep::as_is, bitrep::ranged<std::uint8_t, 0, 3>,
                              bitrep::transient<std::string>>;
};

TEST(ExternalAnnotations, WireTypesAreTheAnnotationsOrTheFieldsOwn)
{
    static_assert(std::is_same_v<bitrep::reflect::wire_type_at<Transform, 2>, height>);
    static_assert(std::is_same_v<bitrep::reflect::wire_type_at<Stats, 1>, bool>);
    static_assert(std::is_same_v<bitrep::reflect::wire_type_at<Unit, 3>, std::uint32_t>);
    EXPECT_EQ(bitrep::max_bits<Transform>, 2u * pos::bits + height::bits);
    EXPECT_EQ(bitrep::max_bits<Transform>, bitrep::max_bits<InsideTransform>);
    EXPECT_EQ(bitrep::max_bits<Stats>, 7u + 1u + 2u);
    EXPECT_EQ(bitrep::max_bits<Unit>, bitrep::max_bits<InsideUnit>);
}

TEST(ExternalAnnotations, BytesAreThoseOfTheSameStructAnnotatedInside)
{
    std::mt19937 rng(12);
    for (int i = 0; i < 200; ++i) {
        const Unit u = random_unit(rng);
        const bytes plain = encoded(u);
        ASSERT_EQ(plain, encoded(inside(u))) << "unit " << i;
        EXPECT_EQ(bitrep::bit_size(u), bitrep::bit_size(inside(u)));
    }
}

TEST(ExternalAnnotations, ReadingGivesTheQuantizedValuesAndLeavesUnsentFieldsAlone)
{
    std::mt19937 rng(13);
    for (int i = 0; i < 100; ++i) {
        const Unit u = random_unit(rng);
        const bytes data = encoded(u);
        Unit back;
        back.stats.debug_name = "kept";
        ASSERT_TRUE(bitrep::from_bytes(data, back).ok());
        InsideUnit expected;
        ASSERT_TRUE(bitrep::from_bytes(data, expected).ok());
        EXPECT_EQ(back.at.x, expected.at.x.value());
        EXPECT_EQ(back.at.y, expected.at.y.value());
        EXPECT_EQ(back.at.z, expected.at.z.value());
        EXPECT_EQ(back.stats.hp, expected.stats.hp);
        EXPECT_EQ(back.stats.alive, expected.stats.alive);
        EXPECT_EQ(back.stats.team, expected.stats.team);
        EXPECT_EQ(back.stats.debug_name, "kept");
        ASSERT_EQ(back.target.has_value(), expected.target.has_value());
        if (back.target) {
            EXPECT_EQ(back.target->x, expected.target->x.value());
        }
        EXPECT_EQ(back.id, u.id);
        EXPECT_EQ(encoded(back), data) << "a decoded value re-encodes to its own bytes";
    }
}

TEST(ExternalAnnotations, AnOutOfRangeValueIsRefusedOnWriteNamingTheField)
{
    Stats s;
    s.hp = 150;
    bytes out;
    const bitrep::status st = bitrep::to_bytes(s, out);
    EXPECT_STATUS(st, bitrep::error::value_out_of_range, "Stats.hp", 0u);
}

TEST(ExternalAnnotations, AQuantizedValueOutsideItsAnnotationIsRefusedNamingTheField)
{
    Transform t;
    t.y = 600.0f; // pos is [-512, 512]
    bytes out;
    EXPECT_STATUS(bitrep::to_bytes(t, out), bitrep::error::value_out_of_range, "Transform.#1", 17u);
    t.y = 0.0f;
    t.z = -1.0f; // height is [0, 64]
    EXPECT_EQ(bitrep::to_bytes(t, out).code(), bitrep::error::value_out_of_range);
}

TEST(ExternalAnnotations, AnOutOfRangeOffsetIsRefusedOnReadAndTheTargetKept)
{
    // hp's 7-bit offset 127 is above its span of 100; then alive, team.
    const bytes data = oracle::bit_builder{}.bits(127, 7).bits(1, 1).bits(2, 2).result();
    Stats target;
    target.hp = 42;
    const bitrep::status st = bitrep::from_bytes(data, target);
    EXPECT_STATUS(st, bitrep::error::out_of_range, "Stats.hp", 0u);
    EXPECT_EQ(target.hp, 42);
}

TEST(ExternalAnnotations, DeltasAreThoseOfTheSameStructAnnotatedInside)
{
    std::mt19937 rng(14);
    Unit base = random_unit(rng);
    for (int i = 0; i < 200; ++i) {
        Unit current = base;
        if (i % 3 == 0)
            current = random_unit(rng);
        else
            current.at.x += 1.5f;
        const bytes plain = delta_bytes(base, current);
        ASSERT_EQ(plain, delta_bytes(inside(base), inside(current))) << "step " << i;

        // The receiver holds the baseline as decoded, and gets the current value as decoded.
        Unit held;
        ASSERT_TRUE(bitrep::from_bytes(encoded(base), held).ok());
        Unit out = held;
        bitrep::read_stream in(plain);
        ASSERT_TRUE(bitrep::read_delta(in, held, out));
        Unit expected;
        ASSERT_TRUE(bitrep::from_bytes(encoded(current), expected).ok());
        EXPECT_EQ(encoded(out), encoded(expected));
        base = current;
    }
}

TEST(ExternalAnnotations, AChangeBelowOneQuantumIsNoChange)
{
    Transform a{10.f, 20.f, 30.f};
    Transform b = a;
    b.x += 0.001f; // resolution 0.01
    EXPECT_EQ(bitrep::delta_bit_size(a, b), 1u);
    b.x += 0.5f;
    EXPECT_GT(bitrep::delta_bit_size(a, b), 1u);
}

TEST(ExternalAnnotations, CodedDeltasUseTheAnnotationsModels)
{
    EXPECT_EQ(bitrep::delta_coder<Unit>::slot_count, bitrep::delta_coder<InsideUnit>::slot_count);
    std::mt19937 rng(15);
    bitrep::delta_coder<Unit> plain_writer, plain_reader;
    bitrep::delta_coder<InsideUnit> inside_writer;
    Unit older = random_unit(rng);
    older.at.x = -300.0f; // x walks up by 306 in all, and must stay in [-512, 512]
    Unit base = older;
    for (int i = 0; i < 50; ++i) {
        Unit current = base;
        current.at.x += 0.25f * static_cast<float>(i);
        current.stats.hp = i % 101;
        bytes plain(4096), in(4096);
        std::size_t plain_size = 0, in_size = 0;
        ASSERT_TRUE(plain_writer.write(plain, plain_size, older, base, current).ok());
        ASSERT_TRUE(inside_writer.write(in, in_size, inside(older), inside(base), inside(current)).ok());
        plain.resize(plain_size);
        in.resize(in_size);
        ASSERT_EQ(plain, in) << "step " << i;
        Unit out = base;
        ASSERT_TRUE(plain_reader.read(plain, older, base, out).ok());
        EXPECT_EQ(out.stats.hp, current.stats.hp);
        older = base;
        base = out;
    }
}

TEST(ExternalAnnotations, SavesRoundTripAndDescribeTheAnnotations)
{
    std::mt19937 rng(16);
    const Unit u = random_unit(rng);
    bytes file;
    ASSERT_TRUE(bitrep::save_to_bytes(u, file).ok());
    Unit back;
    ASSERT_TRUE(bitrep::load_from_bytes(file, back).ok());
    EXPECT_EQ(encoded(back), encoded(u));

    // The schema is the inside-annotated struct's, node for node (names and
    // type names aside: the plain structs are described, the others not).
    const auto& plain = bitrep::schema_of<Unit>().tree.nodes;
    const auto& annotated = bitrep::schema_of<InsideUnit>().tree.nodes;
    ASSERT_EQ(plain.size(), annotated.size());
    bool hp_seen = false;
    for (std::size_t i = 0; i < plain.size(); ++i) {
        EXPECT_EQ(plain[i].kind, annotated[i].kind) << "node " << i;
        EXPECT_EQ(plain[i].bits, annotated[i].bits) << "node " << i;
        EXPECT_EQ(plain[i].min, annotated[i].min) << "node " << i;
        EXPECT_EQ(plain[i].max, annotated[i].max) << "node " << i;
        EXPECT_EQ(plain[i].resolution, annotated[i].resolution) << "node " << i;
        EXPECT_NE(plain[i].name, "debug_name");
        if (plain[i].name == "hp") {
            hp_seen = true;
            EXPECT_EQ(plain[i].kind, bitrep::schema_kind::ranged);
            EXPECT_EQ(plain[i].max, 100u);
        }
    }
    EXPECT_TRUE(hp_seen);
}

namespace v2 {
// The game widened hp after shipping: its old saves still load, through the
// schema-driven path, into the new annotation.
struct Stats {
    int hp = 100;
    bool alive = true;
    std::uint8_t team = 0;
    std::string debug_name;
    static constexpr std::string_view bitrep_name = "Stats";
};
BOOST_DESCRIBE_STRUCT(Stats, (), (hp, alive, team, debug_name))
} // namespace v2

template <>
struct bitrep::annotate<v2::Stats> {
    using fields = std::tuple<bitrep::ranged<int, 0, 1000>, bitrep::as_is, bitrep::ranged<std::uint8_t, 0, 7>,
                              bitrep::transient<std::string>>;
};

TEST(ExternalAnnotations, AnOldSaveLoadsIntoWiderAnnotations)
{
    Stats old;
    old.hp = 77;
    old.team = 3;
    bytes file;
    ASSERT_TRUE(bitrep::save_to_bytes(old, file).ok());
    v2::Stats now;
    now.hp = 999;
    now.debug_name = "kept";
    bitrep::load_info info;
    const bitrep::status st = bitrep::load_from_bytes(file, now, info);
    ASSERT_TRUE(st.ok()) << st.message();
    EXPECT_EQ(now.hp, 77);
    EXPECT_EQ(now.team, 3);
    EXPECT_EQ(now.debug_name, "kept");
}
