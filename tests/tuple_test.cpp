// codecs/tuple.hpp: std::pair and std::tuple as their members in order
// (docs/formats/wire-format.md, section 3): golden bits from the test oracle's own
// packer, refusals naming the member's position, deltas on the bit-packed
// and coded streams, and saves loaded after members were added or removed.
#include <bitrep/bitrep.hpp>
#include <bitrep/coded_delta.hpp>
#include <bitrep/delta.hpp>

#include <gtest/gtest.h>

#include "delta_helpers.hpp"
#include "test_oracle.hpp"

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

enum class Lane : std::uint8_t { left, middle, right }; // 2 bits
BOOST_DESCRIBE_ENUM(Lane, left, middle, right)

namespace {

using bitrep::quantized;
using bitrep::ranged;
using bitrep::scope;
using namespace oracle::common;

struct Route {
    std::pair<ranged<int, 0, 7>, bool> start;                 // 3 + 1 bits
    std::tuple<ranged<int, 0, 100>, Lane, ranged<int, 0, 7>> leg; // 7 + 2 + 3 bits
};
BOOST_DESCRIBE_STRUCT(Route, (), (start, leg))

bool same(const Route& a, const Route& b) { return bitrep::same_on_wire<scope::all>(a, b); }

Route sample() { return {{5, true}, {42, Lane::right, 6}}; }

} // namespace

TEST(Tuple, MembersAreWrittenInOrderAsAnAggregatesFieldsAre)
{
    EXPECT_EQ(bitrep::max_bits<Route>, 4u + 12u);
    EXPECT_EQ((bitrep::max_bits<std::tuple<>>), 0u);
    EXPECT_EQ(oracle::encode<Route>(sample()),
              bit_builder{}.bits(5, 3).bits(1, 1).bits(42, 7).bits(2, 2).bits(6, 3).result());
    EXPECT_EQ(oracle::encode<Route>(sample()), (bytes{0xad, 0xd2})); // as docs/formats/wire-format.md lists it
    Route got;
    ASSERT_TRUE(bitrep::from_bytes(oracle::encode<Route>(sample()), got));
    EXPECT_TRUE(same(got, sample()));
    EXPECT_EQ(std::get<1>(got.leg), Lane::right);
}

TEST(Tuple, AFailureNamesTheMembersPositionAndChangesNothing)
{
    // The leg's first member: 127 in 7 bits, past its range of [0, 100].
    const bytes forged = bit_builder{}.bits(5, 3).bits(1, 1).bits(127, 7).bits(2, 2).bits(6, 3).result();
    Route target = sample();
    std::get<0>(target.leg) = 9;
    EXPECT_STATUS(bitrep::from_bytes(forged, target), bitrep::error::out_of_range, "Route.leg.#0", 4);
    EXPECT_EQ(std::get<0>(target.leg), 9);
    // The lane: index 3 of 3 enumerators.
    const bytes bad_lane = bit_builder{}.bits(5, 3).bits(1, 1).bits(42, 7).bits(3, 2).bits(6, 3).result();
    EXPECT_STATUS(bitrep::from_bytes(bad_lane, target), bitrep::error::bad_enum, "Route.leg.#1", 11);
}

TEST(TupleDelta, EachMemberHasItsChangedBit)
{
    Route base = sample();
    Route current = base;
    std::get<2>(current.leg) = 1;
    // Route changed; start unchanged; leg changed: #0 unchanged, #1 unchanged, #2 changed + 3 bits.
    EXPECT_EQ(bitrep::delta_bit_size(base, current), 1u + 1u + 1u + (1u + 1u + 1u + 3u));
    EXPECT_EQ(bitrep::delta_bit_size(base, base), 1u);
}

TEST(TupleDelta, RandomRunsRoundTripOnTheBitPackedAndCodedStreams)
{
    using Pose = std::tuple<quantized<-10.f, 10.f, 0.01f>, quantized<-10.f, 10.f, 0.01f>, std::pair<Lane, bool>>;
    std::mt19937 random(11);
    auto same_pose = [](const Pose& a, const Pose& b) { return bitrep::same_on_wire<scope::all>(a, b); };
    bitrep::delta_coder<Pose, scope::all> coder;
    Pose older, base, current;
    for (int step = 0; step < 300; ++step) {
        older = base;
        base = current;
        if (random() % 2 == 0)
            std::get<0>(current) = static_cast<float>(static_cast<int>(random() % 2001) - 1000) / 100.f;
        if (random() % 3 == 0)
            std::get<1>(current) = static_cast<float>(static_cast<int>(random() % 2001) - 1000) / 100.f;
        if (random() % 4 == 0)
            std::get<2>(current) = {static_cast<Lane>(random() % 3), random() % 2 == 0};
        const Pose got = oracle::replicate(base, current);
        ASSERT_TRUE(same_pose(got, current)) << "step " << step;
        const oracle::coded<Pose> decoded = oracle::coded_round_trip(coder, older, base, current, 256);
        ASSERT_TRUE(decoded.ok) << "step " << step;
        ASSERT_TRUE(same_pose(decoded.value, current)) << "step " << step;
    }
}

// ---------------------------------------------------------------- saves

namespace saves {
struct RouteV2 {
    static constexpr std::string_view bitrep_name = "Route";
    std::pair<ranged<int, 0, 99>, bool> start;                                // widened
    std::tuple<ranged<int, 0, 100>, Lane> leg;                                // last member removed
    std::tuple<bool, ranged<int, 0, 7>, ranged<int, 0, 7>> extra{true, 3, 4}; // added
};
BOOST_DESCRIBE_STRUCT(RouteV2, (), (start, leg, extra))
struct RouteV3 {
    static constexpr std::string_view bitrep_name = "Route";
    std::pair<ranged<int, 0, 7>, bool> start;
    std::tuple<ranged<int, 0, 100>, Lane, ranged<int, 0, 7>, ranged<int, 0, 9>> leg{0, Lane::left, 0, 8}; // one added
};
BOOST_DESCRIBE_STRUCT(RouteV3, (), (start, leg))
} // namespace saves

TEST(TupleSave, TheSchemaListsMembersByPositionUnderOneNameForEveryCompiler)
{
    const bitrep::schema& tree = bitrep::schema_of<Route>().tree;
    ASSERT_EQ(tree.nodes[1].kind, bitrep::schema_kind::structure);
    EXPECT_EQ(tree.nodes[1].type_name, "std::pair");
    EXPECT_EQ(tree.nodes[1].children, 2u);
    EXPECT_EQ(tree.nodes[2].name, "");
    EXPECT_EQ(tree.nodes[3].position, 1u);
    EXPECT_EQ(tree.nodes[4].type_name, "std::tuple");
    EXPECT_EQ(tree.nodes[4].children, 3u);
}

TEST(TupleSave, MembersConvertByPositionAndAMemberTheFileLacksGetsItsDefault)
{
    Route saved = sample();
    saves::RouteV3 loaded;
    bitrep::load_info info;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(saved), loaded, info));
    EXPECT_EQ(info.path, bitrep::load_info::route::schema);
    EXPECT_EQ(std::get<0>(loaded.leg), 42);
    EXPECT_EQ(std::get<2>(loaded.leg), 6);
    EXPECT_EQ(std::get<3>(loaded.leg), 0); // a member's default: the member type's, as for a struct field
    Route fast;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(saved), fast, info));
    EXPECT_EQ(info.path, bitrep::load_info::route::fast);
    EXPECT_TRUE(same(fast, saved));
}

TEST(TupleSave, ARemovedMemberIsListedAsDroppedAndAWidenedOneConverts)
{
    saves::RouteV2 loaded;
    bitrep::load_info info;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(sample()), loaded, info));
    EXPECT_EQ(loaded.start.first, 5);
    EXPECT_TRUE(loaded.start.second);
    EXPECT_EQ(std::get<1>(loaded.leg), Lane::right);
    EXPECT_EQ(std::get<2>(loaded.extra), 4); // not in the file: as a default-constructed RouteV2 has it
    ASSERT_EQ(info.dropped_fields.size(), 1u);
    EXPECT_EQ(info.dropped_fields[0], "saves::RouteV2.leg.#2");
}
