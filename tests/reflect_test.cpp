// Walking fields (reflect.hpp): the aggregate shapes g++ 12 could not compile
// through Boost.PFR's own field count (an internal compiler error on any
// aggregate holding an array of a class with a constexpr destructor, such as
// std::string or std::vector), and their neighbours. Each shape must build
// with both compilers and go through every path that walks fields: to_bytes /
// from_bytes, save files (fast and schema-driven) and deltas.
#include <bitrep/bitrep.hpp>
#include <bitrep/delta.hpp>
#include <bitrep/save/save.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace {

enum class K { a, b, c, d, e };
BOOST_DESCRIBE_ENUM(K, a, b, c, d, e)

// The shape from the report, verbatim.
struct Leaf {
    bitrep::quat<11> q;
    bitrep::quantized<-3.f, 7.f, 0.001f> f;
    std::optional<bitrep::bounded_string<5>> s;
};
struct Node {
    K k;
    std::array<Leaf, 2> leaves;
};
struct Tree {
    bitrep::bounded_vector<Node, 5> nodes;
};

// Neighbours: the array of strings is what the crash needs, alone or beside
// other fields, directly or one aggregate down, and arrays of vectors and of
// optionals of strings.
struct Names {
    std::array<bitrep::bounded_string<8>, 3> names;
};
struct NamesAfterAField {
    std::uint8_t count;
    std::array<bitrep::bounded_string<8>, 2> names;
    bool flag;
};
struct Tagged {
    bitrep::bounded_string<4> tag;
};
struct ArrayOfTaggedDeepDown {
    Names outer;
    std::array<std::array<Tagged, 2>, 2> grid;
};
struct ArrayOfVectors {
    std::array<bitrep::bounded_vector<bitrep::ranged<int, 0, 9>, 3>, 2> rows;
};
struct ArrayOfOptionalStrings {
    std::array<std::optional<bitrep::bounded_string<6>>, 2> maybe;
};
struct Everything {
    Tree tree;
    Names names;
    NamesAfterAField after;
    ArrayOfTaggedDeepDown deep;
    ArrayOfVectors vectors;
    ArrayOfOptionalStrings optionals;
};

Tree sample_tree()
{
    Tree t{};
    for (int i = 0; i < 3; ++i) {
        Node n{};
        n.k = static_cast<K>(i + 1);
        n.leaves[0].f = 0.25f * static_cast<float>(i);
        n.leaves[1].s = bitrep::bounded_string<5>(i == 1 ? "ab" : "");
        n.leaves[1].q = {0.0f, 0.6f, 0.0f, 0.8f};
        t.nodes.push_back(n);
    }
    return t;
}

Everything sample_everything()
{
    Everything e{};
    e.tree = sample_tree();
    e.names.names = {bitrep::bounded_string<8>("ann"), bitrep::bounded_string<8>("bo"), bitrep::bounded_string<8>("")};
    e.after.count = 7;
    e.after.names[1] = bitrep::bounded_string<8>("zed");
    e.after.flag = true;
    e.deep.outer.names[2] = bitrep::bounded_string<8>("deep");
    e.deep.grid[1][0].tag = bitrep::bounded_string<4>("x");
    e.vectors.rows[1].push_back(4);
    e.vectors.rows[1].push_back(9);
    e.optionals.maybe[0] = bitrep::bounded_string<6>("here");
    return e;
}

} // namespace

TEST(AggregateFieldCount, CountsFieldsOfAggregatesHoldingArraysOfStrings)
{
    EXPECT_EQ(bitrep::reflect::field_count<Leaf>, 3u);
    EXPECT_EQ(bitrep::reflect::field_count<Node>, 2u);
    EXPECT_EQ(bitrep::reflect::field_count<Tree>, 1u);
    EXPECT_EQ(bitrep::reflect::field_count<Names>, 1u);
    EXPECT_EQ(bitrep::reflect::field_count<NamesAfterAField>, 3u);
    EXPECT_EQ(bitrep::reflect::field_count<ArrayOfTaggedDeepDown>, 2u);
    EXPECT_EQ(bitrep::reflect::field_count<ArrayOfVectors>, 1u);
    EXPECT_EQ(bitrep::reflect::field_count<ArrayOfOptionalStrings>, 1u);
    EXPECT_EQ(bitrep::reflect::field_count<Everything>, 6u);
}

TEST(AggregateFieldAccess, ReachesEachFieldOfAnAggregateHoldingAnArrayOfStrings)
{
    NamesAfterAField value{};
    value.count = 3;
    value.names[0] = bitrep::bounded_string<8>("one");
    value.flag = true;
    EXPECT_EQ(bitrep::reflect::field_at<0>(value), 3);
    EXPECT_EQ(bitrep::reflect::field_at<1>(value)[0], bitrep::bounded_string<8>("one"));
    EXPECT_TRUE(bitrep::reflect::field_at<2>(value));
    const NamesAfterAField& constant = value;
    EXPECT_EQ(&bitrep::reflect::field_at<1>(constant), &value.names);
}

TEST(ReportedShape, RoundTripsThroughToBytesAndFromBytes)
{
    const Tree original = sample_tree();
    const auto bytes = bitrep::to_bytes(original);
    Tree copy{};
    ASSERT_TRUE(bitrep::from_bytes(bytes, copy));
    ASSERT_EQ(copy.nodes.size(), 3u);
    EXPECT_EQ(copy.nodes[2].k, K::d);
    EXPECT_EQ(copy.nodes[1].leaves[1].s, bitrep::bounded_string<5>("ab"));
    EXPECT_EQ(bitrep::to_bytes(copy), bytes);
}

TEST(ArraysOfStringsInAggregates, RoundTripEveryNeighbourShape)
{
    const Everything original = sample_everything();
    const auto bytes = bitrep::to_bytes(original);
    Everything copy{};
    ASSERT_TRUE(bitrep::from_bytes(bytes, copy));
    EXPECT_EQ(copy.names.names[0], bitrep::bounded_string<8>("ann"));
    EXPECT_EQ(copy.after.names[1], bitrep::bounded_string<8>("zed"));
    EXPECT_EQ(copy.deep.grid[1][0].tag, bitrep::bounded_string<4>("x"));
    ASSERT_EQ(copy.vectors.rows[1].size(), 2u);
    EXPECT_EQ(copy.vectors.rows[1][1], 9);
    EXPECT_EQ(copy.optionals.maybe[0], bitrep::bounded_string<6>("here"));
    EXPECT_EQ(bitrep::to_bytes(copy), bytes);
}

TEST(ArraysOfStringsInAggregates, SaveAndLoadOnTheFastPath)
{
    const Everything original = sample_everything();
    const auto file = bitrep::save_to_bytes(original);
    Everything loaded{};
    bitrep::load_info info;
    ASSERT_TRUE(bitrep::load_from_bytes(file, loaded, info));
    EXPECT_EQ(info.path, bitrep::load_info::route::fast);
    EXPECT_EQ(bitrep::to_bytes(loaded), bitrep::to_bytes(original));
}

namespace {
// The same tree with a field added to the node: its files load by schema.
struct NodeV2 {
    K k;
    std::array<Leaf, 2> leaves;
    std::array<bitrep::bounded_string<3>, 2> labels;
};
struct TreeV2 {
    bitrep::bounded_vector<NodeV2, 5> nodes;
};
} // namespace

TEST(ArraysOfStringsInAggregates, LoadThroughTheSchemaAfterAFieldWasAdded)
{
    const auto file = bitrep::save_to_bytes(sample_tree());
    TreeV2 loaded{};
    bitrep::load_info info;
    ASSERT_TRUE(bitrep::load_from_bytes(file, loaded, info));
    EXPECT_EQ(info.path, bitrep::load_info::route::schema);
    ASSERT_EQ(loaded.nodes.size(), 3u);
    EXPECT_EQ(loaded.nodes[1].k, K::c);
    EXPECT_EQ(loaded.nodes[1].leaves[1].s, bitrep::bounded_string<5>("ab"));
    EXPECT_EQ(loaded.nodes[1].labels[0], bitrep::bounded_string<3>(""));
}

TEST(ArraysOfStringsInAggregates, DeltaAgainstABaselineRoundTrips)
{
    const Everything base = sample_everything();
    Everything current = base;
    current.names.names[1] = bitrep::bounded_string<8>("bob");
    current.tree.nodes[0].leaves[0].f = 1.5f;
    std::array<std::uint8_t, 4096> buffer{};
    bitrep::write_stream writer(buffer);
    ASSERT_TRUE(bitrep::write_delta(writer, base, current));
    const std::size_t used = writer.flush();
    bitrep::read_stream reader(std::span<const std::uint8_t>(buffer.data(), used));
    Everything decoded{};
    ASSERT_TRUE(bitrep::read_delta(reader, base, decoded));
    EXPECT_EQ(bitrep::to_bytes(decoded), bitrep::to_bytes(current));
}

namespace {
// Descriptions of aggregates must list every member (or opt out). These are
// the shapes that compile; tests/compile_fail/partial_description.cpp is the
// one that must not.
struct Enemy {
    int hit_points = 0;
};
struct Shot {
    bitrep::ranged<int, 0, 100> damage;
    bitrep::transient<Enemy*> target; // listed, never serialized
};
BOOST_DESCRIBE_STRUCT(Shot, (), (damage, target))

struct CachedPath {
    bitrep::ranged<int, 0, 999> goal;
    int cached_length = 0; // rebuilt after loading: deliberately not listed
    static constexpr bool bitrep_partial_description = true;
};
BOOST_DESCRIBE_STRUCT(CachedPath, (), (goal))

struct Body {
    bitrep::ranged<int, 0, 9> mass;
};
BOOST_DESCRIBE_STRUCT(Body, (), (mass))
struct Rock : Body {
    bitrep::ranged<int, 0, 9> hardness;
};
BOOST_DESCRIBE_STRUCT(Rock, (Body), (hardness))

// Not an aggregate (private members): its members cannot be counted, so what
// BOOST_DESCRIBE_CLASS leaves out is left out.
class Wallet {
public:
    Wallet() = default;
    Wallet(int coins, int cached_total) : coins_(coins), cached_total_(cached_total) {}
    int coins() const { return coins_; }
    int cached_total() const { return cached_total_; }

private:
    bitrep::ranged<int, 0, 9999> coins_ = 0;
    int cached_total_ = 0;
    BOOST_DESCRIBE_CLASS(Wallet, (), (), (), (coins_))
};

// A member that cannot be copied must not end the count of an aggregate's
// fields: the fields after it would be left out without a word.
struct Hull {
    std::uint8_t armour = 0;
    std::unique_ptr<int> crew;
    std::uint8_t fuel = 0;
};
} // namespace

TEST(DescribedAggregates, TransientMemberListedInTheDescriptionIsNeverSerialized)
{
    Enemy enemy;
    Shot shot;
    shot.damage = 40;
    shot.target = &enemy;
    const auto bytes = bitrep::to_bytes(shot);
    EXPECT_EQ(bitrep::to_bytes(Shot{.damage = 40, .target = nullptr}), bytes);
    Shot loaded;
    loaded.target = &enemy;
    ASSERT_TRUE(bitrep::from_bytes(bytes, loaded));
    EXPECT_EQ(loaded.damage, 40);
    EXPECT_EQ(loaded.target.get(), &enemy); // reads leave a transient field untouched
}

TEST(DescribedAggregates, PartialDescriptionOptOutLeavesTheUnlistedMemberOut)
{
    EXPECT_EQ(bitrep::reflect::field_count<CachedPath>, 1u);
    const auto bytes = bitrep::to_bytes(CachedPath{.goal = 12, .cached_length = 77});
    EXPECT_EQ(bitrep::to_bytes(CachedPath{.goal = 12, .cached_length = 0}), bytes);
    CachedPath loaded{.goal = 0, .cached_length = 5};
    ASSERT_TRUE(bitrep::from_bytes(bytes, loaded));
    EXPECT_EQ(loaded.goal, 12);
    EXPECT_EQ(loaded.cached_length, 5);
}

TEST(DescribedAggregates, DescribedBaseCountsAsAListedMember)
{
    EXPECT_EQ(bitrep::reflect::field_count<Rock>, 2u);
    Rock rock;
    rock.mass = 3;
    rock.hardness = 8;
    Rock loaded;
    ASSERT_TRUE(bitrep::from_bytes(bitrep::to_bytes(rock), loaded));
    EXPECT_EQ(loaded.mass, 3);
    EXPECT_EQ(loaded.hardness, 8);
}

TEST(DescribedClasses, MembersADescribedClassDoesNotListAreLeftOutWithoutAnError)
{
    EXPECT_EQ(bitrep::reflect::field_count<Wallet>, 1u);
    const auto bytes = bitrep::to_bytes(Wallet(250, 17));
    EXPECT_EQ(bitrep::to_bytes(Wallet(250, 0)), bytes);
    Wallet loaded(0, 3);
    ASSERT_TRUE(bitrep::from_bytes(bytes, loaded));
    EXPECT_EQ(loaded.coins(), 250);
    EXPECT_EQ(loaded.cached_total(), 3);
}

TEST(DescribedAggregates, DescriptionCheckCountsTheListedAgainstTheAggregatesFields)
{
    // Shot lists both members; a description of one of its two would not.
    EXPECT_TRUE((bitrep::reflect::lists_every_member<Shot, 2, 2>));
    EXPECT_FALSE((bitrep::reflect::lists_every_member<Shot, 1, 2>));
    EXPECT_TRUE((bitrep::reflect::lists_every_member<CachedPath, 1, 2>)); // opted out
}

TEST(AggregateFieldCount, CountsEveryFieldAroundAMemberThatCannotBeCopied)
{
    EXPECT_EQ(bitrep::reflect::field_count<Hull>, 3u);
    Hull hull;
    hull.fuel = 9;
    EXPECT_EQ(bitrep::reflect::field_at<2>(hull), 9);
}
