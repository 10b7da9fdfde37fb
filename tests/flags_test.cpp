// codecs/flags.hpp: flag enums as a bit per flag (docs/formats/wire-format.md,
// section 3): golden bits from the test oracle's own packer, unknown bits
// refused on write, deltas, and saves loading after flags were added,
// removed or renumbered.
#include <bitrep/bitrep.hpp>
#include <bitrep/delta.hpp>

#include <gtest/gtest.h>

#include "test_oracle.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

enum class Access : std::uint8_t { none = 0, read = 1, write = 2, execute = 4, all = 7 };
BOOST_DESCRIBE_ENUM(Access, none, read, write, execute, all)
constexpr bool bitrep_flags(Access) { return true; }
constexpr Access operator|(Access a, Access b) { return static_cast<Access>(static_cast<int>(a) | static_cast<int>(b)); }

/// The next version: write removed, admin added, the bits renumbered.
enum class AccessV2 : std::uint16_t { read = 1, execute = 2, admin = 0x100 };
BOOST_DESCRIBE_ENUM(AccessV2, read, execute, admin)
constexpr bool bitrep_flags(AccessV2) { return true; }
constexpr AccessV2 operator|(AccessV2 a, AccessV2 b)
{
    return static_cast<AccessV2>(static_cast<int>(a) | static_cast<int>(b));
}

namespace {

using bitrep::ranged;
using namespace oracle::common;

struct Door {
    Access access = Access::none;
    ranged<int, 0, 3> level = 0;
};
BOOST_DESCRIBE_STRUCT(Door, (), (access, level))

struct DoorV2 {
    static constexpr std::string_view bitrep_name = "Door";
    AccessV2 access = AccessV2::admin;
    ranged<int, 0, 3> level = 0;
};
BOOST_DESCRIBE_STRUCT(DoorV2, (), (access, level))

} // namespace

TEST(Flags, ABitPerFlagInDeclarationOrderAndNoneForCombinationsOrZero)
{
    EXPECT_EQ(bitrep::max_bits<Access>, 3u); // read, write, execute; none and all are no flags
    bytes out;
    ASSERT_TRUE(bitrep::to_bytes(Door{Access::read | Access::execute, 2}, out));
    EXPECT_EQ(out, bit_builder{}.bits(0b101, 3).bits(2, 2).result());
    EXPECT_EQ(out, (bytes{0x15})); // as docs/formats/wire-format.md lists it
    for (int bits = 0; bits < 8; ++bits) {
        const Door sent{static_cast<Access>(bits), 1};
        Door got{Access::write, 3};
        ASSERT_TRUE(bitrep::from_bytes(bitrep::to_bytes(sent), got));
        EXPECT_EQ(got.access, sent.access);
    }
}

TEST(Flags, AValueWithABitThatIsNoFlagIsRefusedOnWriteNamingTheField)
{
    bytes out;
    const bitrep::status st = bitrep::to_bytes(Door{static_cast<Access>(8 | 1), 0}, out);
    EXPECT_EQ(st.code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(st.field_path(), "Door.access");
}

TEST(Flags, ADeltaSendsTheFlagsWhole)
{
    EXPECT_EQ(bitrep::delta_bit_size(Door{Access::read, 0}, Door{Access::read | Access::write, 0}), 1u + 1u + 3u + 1u);
    EXPECT_EQ(bitrep::delta_bit_size(Door{Access::all, 0}, Door{Access::all, 0}), 1u);
}

TEST(FlagsSave, TheSchemaIsAStructOfABoolPerFlagByName)
{
    const bitrep::schema& tree = bitrep::schema_of<Door>().tree;
    ASSERT_EQ(tree.nodes[1].kind, bitrep::schema_kind::structure);
    EXPECT_EQ(tree.nodes[1].children, 3u);
    EXPECT_EQ(tree.nodes[2].name, "read");
    EXPECT_EQ(tree.nodes[3].name, "write");
    EXPECT_EQ(tree.nodes[4].kind, bitrep::schema_kind::boolean);
}

TEST(FlagsSave, FlagsMatchByNameWhateverTheirBitsAndAMissingOneIsClear)
{
    DoorV2 loaded;
    bitrep::load_info info;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(Door{Access::read | Access::execute, 3}), loaded, info));
    EXPECT_EQ(info.path, bitrep::load_info::route::schema);
    EXPECT_EQ(loaded.access, AccessV2::read | AccessV2::execute); // admin: not in the file, clear
    EXPECT_EQ(loaded.level, 3);
}

TEST(FlagsSave, ASetFlagTheProgramNoLongerHasIsRefusedAndChangesNothing)
{
    DoorV2 loaded{AccessV2::admin, 1};
    bitrep::load_info info;
    const bitrep::status st =
        bitrep::load_from_bytes(bitrep::save_to_bytes(Door{Access::read | Access::write, 3}), loaded, info);
    EXPECT_EQ(st.code(), bitrep::error::out_of_range);
    EXPECT_TRUE(oracle::contains(st.message(), "DoorV2.access.write")) << st.message();
    EXPECT_EQ(st.detail(), "no `write` in the program's flag enum: if renamed, list the old name in bitrep_renames");
    EXPECT_EQ(loaded.access, AccessV2::admin);
    EXPECT_EQ(loaded.level, 1);
}

enum class LampState : std::uint8_t { lit = 1, locked = 2 };
BOOST_DESCRIBE_ENUM(LampState, lit, locked)
constexpr bool bitrep_flags(LampState) { return true; }
constexpr LampState operator|(LampState a, LampState b)
{
    return static_cast<LampState>(static_cast<int>(a) | static_cast<int>(b));
}

namespace {

/// A struct of switches, before it became a flag enum: a number sits
/// between the two bools, and the flag enum has no flag for it.
struct Switches {
    bool lit = false;
    ranged<int, 0, 1000> fuel = 0;
    bool locked = false;
};
BOOST_DESCRIBE_STRUCT(Switches, (), (lit, fuel, locked))

struct Lamp {
    Switches state;
};
BOOST_DESCRIBE_STRUCT(Lamp, (), (state))

struct LampV2 {
    static constexpr std::string_view bitrep_name = "Lamp";
    LampState state = LampState::lit;
};
BOOST_DESCRIBE_STRUCT(LampV2, (), (state))

} // namespace

TEST(FlagsSave, AStructWithANumberBetweenItsBoolsLoadsIntoAFlagEnumSkippingTheNumber)
{
    for (const int fuel : {0, 1, 2, 3, 777, 1000}) {
        for (const bool lit : {false, true}) {
            LampV2 loaded{LampState::lit | LampState::locked};
            bitrep::load_info info;
            const bitrep::status st =
                bitrep::load_from_bytes(bitrep::save_to_bytes(Lamp{{lit, fuel, !lit}}), loaded, info);
            ASSERT_TRUE(st) << st.message() << " fuel " << fuel;
            EXPECT_EQ(loaded.state, lit ? LampState::lit : LampState::locked) << "fuel " << fuel;
            EXPECT_EQ(info.dropped_fields, std::vector<std::string>{"LampV2.state.fuel"});
        }
    }
}

TEST(FlagsSave, ADroppedNumberBetweenFlagsIsRefusedWithRefuseDroppedFields)
{
    LampV2 loaded{LampState::locked};
    bitrep::load_options options;
    options.refuse_dropped_fields = true;
    const bitrep::status st = bitrep::load_from_bytes(bitrep::save_to_bytes(Lamp{{true, 5, false}}), loaded, options);
    EXPECT_EQ(st.code(), bitrep::error::schema_mismatch);
    EXPECT_EQ(st.field_path(), "LampV2.state.fuel");
    EXPECT_EQ(loaded.state, LampState::locked);
}

enum class AccessV3 : std::uint8_t { read = 1, modify = 2, execute = 4 };
BOOST_DESCRIBE_ENUM(AccessV3, read, modify, execute)
constexpr bool bitrep_flags(AccessV3) { return true; }
constexpr auto bitrep_renames(AccessV3) { return std::array{bitrep::renamed{.from = "write", .to = "modify"}}; }

namespace {

struct DoorV3 {
    static constexpr std::string_view bitrep_name = "Door";
    AccessV3 access = AccessV3::read;
    ranged<int, 0, 3> level = 0;
};
BOOST_DESCRIBE_STRUCT(DoorV3, (), (access, level))
} // namespace

TEST(FlagsSave, ARenamedFlagLoadsFromItsOldName)
{
    DoorV3 loaded;
    bitrep::load_info info;
    const bitrep::status st =
        bitrep::load_from_bytes(bitrep::save_to_bytes(Door{Access::read | Access::write, 2}), loaded, info);
    ASSERT_TRUE(st) << st.message();
    EXPECT_EQ(static_cast<int>(loaded.access), static_cast<int>(AccessV3::read) | static_cast<int>(AccessV3::modify));
    EXPECT_TRUE(info.dropped_fields.empty());
}
