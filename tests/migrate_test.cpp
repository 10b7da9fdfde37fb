// detail/migrate.hpp and the loads that run it: every struct (and hook type)
// may declare a save_version and a migrate, and a load runs the migrate of
// each value of it that a file of an older version holds, inner before
// outer, with the file's version of that type (docs/guide/save.md, "When the
// structs change"; docs/formats/save-format.md, format 4).
#include <bitrep/bitrep.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace {

using bitrep::ranged;

/// The migrate calls of a load, in order: "Hero 1" is Hero's migrate run
/// with from_version 1.
std::vector<std::string> calls;

void called(std::string_view type, std::uint32_t from)
{
    calls.push_back(std::string(type) + " " + std::to_string(from));
}

/// A hero whose hit points were whole points before version 2 and tenths
/// since: its migrate multiplies them by 10 from version 1, and refuses a
/// hero of 666 (as a game would refuse what it cannot carry over).
template <std::uint32_t Version>
struct Hero {
    static constexpr std::string_view bitrep_name = "Hero";
    static constexpr std::uint32_t save_version = Version;
    ranged<int, 0, 10000> hp = 0;

    bool migrate(std::uint32_t from)
    {
        called("Hero", from);
        if (hp == 666)
            return false;
        if (from == 1)
            hp = hp * 10;
        return true;
    }
    friend bool operator==(const Hero&, const Hero&) = default;
    BOOST_DESCRIBE_CLASS(Hero, (), (hp), (), ())
};

template <std::uint32_t HeroVersion, std::uint32_t Version>
struct Party {
    static constexpr std::string_view bitrep_name = "Party";
    static constexpr std::uint32_t save_version = Version;
    Hero<HeroVersion> leader;
    ranged<int, 0, 9> size = 0;

    void migrate(std::uint32_t from) { called("Party", from); }
    friend bool operator==(const Party&, const Party&) = default;
    BOOST_DESCRIBE_CLASS(Party, (), (leader, size), (), ())
};

/// Heroes in every kind of place a struct can be: a field of a field, a
/// vector's elements, an optional, a map's values, an entity array's slots,
/// a variant's alternative.
template <std::uint32_t HeroVersion, std::uint32_t PartyVersion, std::uint32_t Version>
struct World {
    using hero = Hero<HeroVersion>;
    static constexpr std::string_view bitrep_name = "World";
    static constexpr std::uint32_t save_version = Version;
    Party<HeroVersion, PartyVersion> party;
    bitrep::bounded_vector<hero, 4> heroes;
    std::optional<hero> guest;
    bitrep::bounded_map<ranged<int, 0, 9>, hero, 4> posts;
    bitrep::entity_array<hero, 4> slots;
    std::variant<ranged<int, 0, 9>, hero> pick;

    void migrate(std::uint32_t from) { called("World", from); }
    friend bool operator==(const World&, const World&) = default;
    BOOST_DESCRIBE_CLASS(World, (), (party, heroes, guest, posts, slots, pick), (), ())
};

/// Hero, Party and World at versions 1, 1, 1 (as a game shipped them), and
/// the later versions of each.
using world_v1 = World<1, 1, 1>;
using world_v2 = World<2, 2, 2>;
using world_v3 = World<3, 2, 3>;

/// A world whose heroes have 1 to 7 hit points, one in each place.
template <class W>
W sample()
{
    W w;
    w.party.leader.hp = 1;
    w.party.size = 3;
    w.heroes.push_back({2});
    w.heroes.push_back({3});
    w.guest = typename W::hero{4};
    w.posts.emplace(5, typename W::hero{5});
    w.slots.emplace(2, typename W::hero{6});
    w.pick = typename W::hero{7};
    return w;
}

/// Every hit point of `w` in the order of sample().
template <class W>
std::vector<int> hit_points(const W& w)
{
    std::vector<int> hp{w.party.leader.hp, w.heroes[0].hp, w.heroes[1].hp, w.guest->hp,
                        w.posts.find(5)->second.hp, w.slots[2].hp, std::get<1>(w.pick).hp};
    return hp;
}

/// Loads `file` into `into`, the calls it made in `calls`.
template <class W>
bitrep::status load(const std::vector<std::uint8_t>& file, W& into, bitrep::load_info& info)
{
    calls.clear();
    return bitrep::load_from_bytes(file, into, info);
}

template <class W>
bitrep::status load(const std::vector<std::uint8_t>& file, W& into)
{
    bitrep::load_info info;
    return load(file, into, info);
}

} // namespace

TEST(NestedMigrate, ASaveIsFormatFourWhenAStructInsideTheSavedTypeDeclaresAVersion)
{
    bitrep::load_info info;
    world_v2 loaded;
    ASSERT_TRUE(load(bitrep::save_to_bytes(sample<world_v2>()), loaded, info));
    EXPECT_EQ(info.header.format, 4u);
    ASSERT_TRUE(load(bitrep::save_to_bytes(sample<world_v1>()), loaded, info));
    EXPECT_EQ(info.header.format, 3u); // nothing the header does not hold: readable by every bitrep since format 3
}

TEST(NestedMigrate, ANestedStructsMigrateRunsWithTheFilesVersionOfThatStruct)
{
    // The file: Hero 2, Party 2, World 2. The program: Hero 3, Party 2, World 3.
    world_v3 loaded;
    ASSERT_TRUE(load(bitrep::save_to_bytes(sample<world_v2>()), loaded));
    EXPECT_EQ(std::count(calls.begin(), calls.end(), "Hero 2"), 7);
    EXPECT_EQ(std::count(calls.begin(), calls.end(), "Party 2"), 0); // the program's version: nothing to migrate
    EXPECT_EQ(calls.back(), "World 2");
    EXPECT_EQ(calls.size(), 8u);
}

TEST(NestedMigrate, InnerStructsMigrateBeforeTheStructsHoldingThem)
{
    world_v2 loaded;
    ASSERT_TRUE(load(bitrep::save_to_bytes(sample<world_v1>()), loaded));
    const std::vector<std::string> expected{"Hero 1", "Party 1", "Hero 1", "Hero 1", "Hero 1",
                                            "Hero 1", "Hero 1",  "Hero 1", "World 1"};
    EXPECT_EQ(calls, expected);
}

TEST(NestedMigrate, ItRunsForEveryValueOfTheStructWhereverItIs)
{
    // a field's field, a vector's elements, an optional, a map's value, an
    // entity array's slot and a variant's alternative
    world_v2 loaded;
    ASSERT_TRUE(load(bitrep::save_to_bytes(sample<world_v1>()), loaded));
    EXPECT_EQ(hit_points(loaded), (std::vector<int>{10, 20, 30, 40, 50, 60, 70}));
}

TEST(NestedMigrate, NoMigrateRunsWhenTheFilesVersionsAreTheProgramsAndTheLoadTakesTheFastPath)
{
    world_v2 loaded;
    bitrep::load_info info;
    ASSERT_TRUE(load(bitrep::save_to_bytes(sample<world_v2>()), loaded, info));
    EXPECT_EQ(info.header.format, 4u);
    EXPECT_EQ(info.path, bitrep::load_info::route::fast);
    EXPECT_TRUE(calls.empty());
    EXPECT_EQ(hit_points(loaded), (std::vector<int>{1, 2, 3, 4, 5, 6, 7}));
}

TEST(NestedMigrate, ANestedStructOfANewerVersionIsRefusedNamingItAndTheObjectIsUnchanged)
{
    // The file: Hero 3, World 3. The program: Hero 2, World 3.
    using older_heroes = World<2, 2, 3>;
    older_heroes loaded = sample<older_heroes>();
    const older_heroes before = loaded;
    const bitrep::status st = load(bitrep::save_to_bytes(sample<world_v3>()), loaded);
    EXPECT_EQ(st, bitrep::error::newer_version);
    EXPECT_TRUE(std::string(st.field_path()).ends_with(">.party.leader")) << st.message(); // World<...>
    EXPECT_NE(st.message().find("save_version 3"), std::string::npos) << st.message();
    EXPECT_TRUE(loaded == before);
    EXPECT_TRUE(calls.empty());
}

TEST(NestedMigrate, AMigrateThatRefusesFailsTheLoadNamingTheValueAndTheObjectIsUnchanged)
{
    world_v1 file = sample<world_v1>();
    file.heroes[1].hp = 666;
    world_v2 loaded = sample<world_v2>();
    const world_v2 before = loaded;
    const bitrep::status st = load(bitrep::save_to_bytes(file), loaded);
    EXPECT_EQ(st, bitrep::error::hook_failed);
    EXPECT_TRUE(std::string(st.field_path()).ends_with(">.heroes[1]")) << st.message();
    EXPECT_NE(st.message().find("migrate"), std::string::npos) << st.message();
    EXPECT_TRUE(loaded == before);
}

TEST(NestedMigrate, ALoaderRunsItOnItsWorkingObjectAndKeepsTheDestinationOnARefusal)
{
    world_v1 file = sample<world_v1>();
    file.guest->hp = 666;
    bitrep::loader<world_v2> loader;
    world_v2 loaded = sample<world_v2>();
    const world_v2 before = loaded;
    calls.clear();
    EXPECT_EQ(loader.load_from_bytes(bitrep::save_to_bytes(file), loaded), bitrep::error::hook_failed);
    EXPECT_TRUE(loaded == before);
    ASSERT_TRUE(loader.load_from_bytes(bitrep::save_to_bytes(sample<world_v1>()), loaded));
    EXPECT_EQ(hit_points(loaded), (std::vector<int>{10, 20, 30, 40, 50, 60, 70}));
}

TEST(NestedMigrate, AChangedInnerVersionIsNoUnversionedLayoutChange)
{
    // World's own version is the same; only Hero's changed.
    using same_world = World<2, 1, 1>;
    same_world loaded;
    bitrep::load_info info;
    ASSERT_TRUE(load(bitrep::save_to_bytes(sample<world_v1>()), loaded, info));
    EXPECT_EQ(info.path, bitrep::load_info::route::schema);
    EXPECT_FALSE(info.unversioned_layout_change);
    EXPECT_EQ(std::count(calls.begin(), calls.end(), "Hero 1"), 7);
}

namespace {

/// A save slot's metadata whose play time was minutes before version 2 and
/// seconds since.
template <std::uint32_t Version>
struct Slot {
    static constexpr std::string_view bitrep_name = "Slot";
    static constexpr std::uint32_t save_version = Version;
    ranged<int, 0, 100000> played = 0;
    void migrate(std::uint32_t from)
    {
        called("Slot", from);
        played = played * 60;
    }
    BOOST_DESCRIBE_CLASS(Slot, (), (played), (), ())
};

} // namespace

TEST(NestedMigrate, TheMetadatasMigrateRunsWhenReadSaveInfoReadsAnOlderVersion)
{
    std::vector<std::uint8_t> file;
    ASSERT_TRUE(bitrep::save_to_bytes(sample<world_v1>(), Slot<2>{90}, file));
    bitrep::load_info info;
    Slot<2> same;
    ASSERT_TRUE(bitrep::read_save_info_from_bytes(file, same, info));
    EXPECT_EQ(info.header.format, 4u); // the metadata's version is recorded: the header holds the value's only
    Slot<3> slot;
    calls.clear();
    ASSERT_TRUE(bitrep::read_save_info_from_bytes(file, slot, info));
    EXPECT_EQ(calls, std::vector<std::string>{"Slot 2"});
    EXPECT_EQ(slot.played, 5400);
}

TEST(NestedMigrate, AMetadataOfANewerVersionIsRefused)
{
    std::vector<std::uint8_t> file;
    ASSERT_TRUE(bitrep::save_to_bytes(sample<world_v1>(), Slot<3>{90}, file));
    Slot<2> slot{7};
    bitrep::load_info info;
    EXPECT_EQ(bitrep::read_save_info_from_bytes(file, slot, info), bitrep::error::newer_version);
    EXPECT_EQ(slot.played, 7);
}

namespace {

/// A hook type (its own bits) with a version: its migrate runs like a
/// struct's.
template <std::uint32_t Version>
struct Seed {
    static constexpr std::string_view bitrep_name = "Seed";
    static constexpr std::uint32_t save_version = Version;
    static constexpr std::size_t bitrep_max_bits = 16;
    std::uint16_t value = 0;
    template <class Stream>
    bool serialize(Stream& stream)
    {
        return bitrep::serialize(stream, value);
    }
    void migrate(std::uint32_t from)
    {
        called("Seed", from);
        value = static_cast<std::uint16_t>(value + 1);
    }
};

template <std::uint32_t SeedVersion>
struct Map {
    static constexpr std::string_view bitrep_name = "Map";
    Seed<SeedVersion> seed;
    ranged<int, 0, 9> size = 0;
    BOOST_DESCRIBE_CLASS(Map, (), (seed, size), (), ())
};

} // namespace

TEST(NestedMigrate, AHookTypesMigrateRunsWithTheFilesVersionOfIt)
{
    Map<3> loaded;
    calls.clear();
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(Map<2>{{41}, 3}), loaded));
    EXPECT_EQ(calls, std::vector<std::string>{"Seed 2"});
    EXPECT_EQ(loaded.seed.value, 42);
    EXPECT_EQ(loaded.size, 3);
}
