// engine::describe: a save file's schema from the engine's tables is the one
// recorded in schema_goldens.hpp, byte for byte (the fingerprint decides
// whether an old save loads by the fast route), for what engine_test's zoo
// does not hold: renames, hooks, flags, a proxy describing itself, and a
// type past the schema's limits. (engine_test.cpp compares its zoo.)
#include <bitrep/bitrep.hpp>

#include <gtest/gtest.h>

#include "schema_comparison.hpp"

#include <array>
#include <bitset>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <variant>

namespace described_schema {

using bitrep::bounded_string;
using bitrep::bounded_vector;
using bitrep::quantized;
using bitrep::ranged;

enum class Gem { ruby, jade, sapphire };
BOOST_DESCRIBE_ENUM(Gem, ruby, jade, sapphire)
constexpr auto bitrep_renames(Gem) { return std::array{bitrep::renamed{.from = "azure", .to = "sapphire"}}; }

/// Renamed itself (a variant's alternative is matched by its former name).
enum class Elixir : std::int8_t { weak = -3, strong = 40 };
BOOST_DESCRIBE_ENUM(Elixir, weak, strong)
constexpr auto bitrep_renames(Elixir) { return std::array{bitrep::renamed{.from = "Potion", .to = "Elixir"}}; }

enum class Access : std::uint16_t { none = 0, look = 1, take = 4, both = 5, give = 0x8000 };
BOOST_DESCRIBE_ENUM(Access, none, look, take, both, give)
constexpr bool bitrep_flags(Access) { return true; }
constexpr auto bitrep_renames(Access) { return std::array{bitrep::renamed{.from = "grab", .to = "take"}}; }

enum class Wide : std::uint64_t { small = 1, huge = 0xFFFF'FFFF'FFFF'FFF0u };
BOOST_DESCRIBE_ENUM(Wide, small, huge)

struct Purse {
    static constexpr std::string_view bitrep_name = "Purse";
    static constexpr bitrep::renamed bitrep_renames[] = {{.from = "gold", .to = "coins"}, {.from = "Wallet", .to = "Purse"}};
    ranged<int, 0, 9999> coins = 0;
    Gem gem = Gem::ruby;
};
BOOST_DESCRIBE_STRUCT(Purse, (), (coins, gem))

/// A class with its own encoding: opaque in the schema.
struct Blob {
    static constexpr std::string_view bitrep_name = "blob";
    std::uint32_t a = 0;
    template <class Stream>
    bool serialize(Stream& stream)
    {
        return bitrep::serialize(stream, a);
    }
};
struct FreeBlob {
    std::uint16_t b = 0;
};
template <class Stream>
bool bitrep_serialize(Stream& stream, FreeBlob& value)
{
    return bitrep::serialize(stream, value.b);
}

/// A described class whose base has a hook: the base through it, then the
/// members.
struct Hooked {
    std::uint8_t h = 0;
    template <class Stream>
    bool serialize(Stream& stream)
    {
        return bitrep::serialize(stream, h);
    }
};
struct OnHooked : Hooked {
    ranged<int, 0, 3> more = 0;
};
BOOST_DESCRIBE_STRUCT(OnHooked, (Hooked), (more))

struct Root {
    ranged<int, -4, 4> r = 0;
};
BOOST_DESCRIBE_STRUCT(Root, (), (r))
struct Middle : Root {
    bool m = false;
};
BOOST_DESCRIBE_STRUCT(Middle, (Root), (m))
/// Two levels of bases, and a second base.
struct Leaf : Middle, Purse {
    static constexpr std::string_view bitrep_name = "leaf_type";
    static constexpr bitrep::renamed bitrep_renames[] = {{.from = "old_leaf", .to = "leaf"}};
    bounded_string<3> leaf;
};
BOOST_DESCRIBE_STRUCT(Leaf, (Middle, Purse), (leaf))

struct Camera {
    float fov = 90;
};

/// Every flag, on scalars, classes and inside containers and tuples.
struct Scoped {
    bitrep::net_only<Camera> camera;
    bitrep::save_only<std::uint64_t> play_time;
    bitrep::transient<std::string> cache;
    bitrep::owner_only<ranged<int, 0, 7>> secret;
    bitrep::skip_owner<bool> shown;
    bitrep::initial_only<Gem> first;
    std::tuple<bitrep::net_only<int>, bool, bitrep::save_only<float>> mixed;
    std::optional<bitrep::save_only<Purse>> maybe_saved;
    std::variant<bitrep::net_only<Purse>, bitrep::save_only<Purse>, Camera> which;
};
BOOST_DESCRIBE_STRUCT(Scoped, (), (camera, play_time, cache, secret, shown, first, mixed, maybe_saved, which))

/// A positional aggregate with flags: positions keep their numbers.
struct Positional {
    std::int16_t a = 0;
    bitrep::transient<int> cache = 0;
    bitrep::net_only<float> sent = 0;
    bool b = false;
};

/// Alternatives of every naming rule: classes, hooks and enums by stable
/// name, the rest unnamed.
using Loot = std::variant<std::monostate, Purse, Blob, FreeBlob, Elixir, Access, std::pair<int, bool>,
                          bounded_vector<Gem, 2>, std::chrono::seconds, bitrep::save_only<Purse>,
                          bitrep::delta_small<ranged<int, 0, 9>, 1>, Camera>;

struct Chest {
    Loot loot;
    std::optional<Loot> spare;
    bitrep::bounded_map<Gem, Loot, 3> by_gem;
    bitrep::bounded_set<Elixir, 2> elixirs;
    std::bitset<12> lid;
    bounded_vector<bool, 40> marks;
    std::array<Access, 2> doors;
    Wide wide = Wide::small;
};
BOOST_DESCRIBE_STRUCT(Chest, (), (loot, spare, by_gem, elixirs, lid, marks, doors, wide))

/// A game's own type whose traits describe its schema themselves.
struct Colour {
    std::uint32_t rgb = 0;
};

} // namespace described_schema

template <>
struct bitrep::detail::proxy_traits<described_schema::Colour> : std::true_type {
    using wire = std::array<std::uint8_t, 3>;
    static wire to_wire(const described_schema::Colour& c)
    {
        return {static_cast<std::uint8_t>(c.rgb >> 16), static_cast<std::uint8_t>(c.rgb >> 8),
                static_cast<std::uint8_t>(c.rgb)};
    }
    static void from_wire(described_schema::Colour& c, const wire& w)
    {
        c.rgb = std::uint32_t{w[0]} << 16 | std::uint32_t{w[1]} << 8 | w[2];
    }
    template <class Schema>
    static void describe(Schema& schema)
    {
        schema.begin_struct("colour");
        const std::array<std::string_view, 3> names{"red", "green", "blue"};
        for (std::size_t i = 0; i < names.size(); ++i) {
            schema.field(names[i], i);
            schema.integer(false, 1);
        }
        schema.end();
    }
};

namespace described_schema {

struct Painted {
    Colour colour;
    bounded_vector<Colour, 4> palette;
    std::optional<Colour> accent;
};
BOOST_DESCRIBE_STRUCT(Painted, (), (colour, palette, accent))

/// A bound above what a schema holds (2^32 - 1): refused alike.
struct Vast {
    bool before = false;
    bounded_vector<std::uint8_t, (std::size_t{1} << 33)> bytes;
};

/// Longer names than a schema keeps (255 bytes): cut alike.
struct Long {
    static constexpr std::string_view bitrep_name =
        "a_type_name_longer_than_a_schema_keeps_0123456789_0123456789_0123456789_0123456789_0123456789_"
        "0123456789_0123456789_0123456789_0123456789_0123456789_0123456789_0123456789_0123456789_0123456789_"
        "0123456789_0123456789_0123456789_0123456789_0123456789_0123456789";
    quantized<-1.f, 1.f, 0.001f> x;
};

} // namespace described_schema

namespace {

using namespace described_schema;

TEST(EngineSchema, RenamesOfFieldsEnumeratorsFlagsAndTypesAreAsRecorded)
{
    schema_comparison::expect_same_schema<Gem>("Gem");
    schema_comparison::expect_same_schema<Elixir>("Elixir");
    schema_comparison::expect_same_schema<Access>("Access");
    schema_comparison::expect_same_schema<Wide>("Wide");
    schema_comparison::expect_same_schema<Purse>("Purse");
    schema_comparison::expect_same_schema<Leaf>("Leaf");
    const bitrep::schema& purse = bitrep::schema_of<Purse>().tree;
    ASSERT_EQ(purse.nodes.size(), 6u);
    EXPECT_EQ(purse.nodes[1].former_names, std::vector<std::string>{"gold"});
}

TEST(EngineSchema, AVariantsAlternativesAreNamedAndRenamedAsRecorded)
{
    schema_comparison::expect_same_schema<Loot>("Loot");
    schema_comparison::expect_same_schema<Chest>("Chest");
    // The former names of Purse and Elixir, as alternatives (Purse twice:
    // save_only<Purse> is saved as Purse).
    const bitrep::schema& loot = bitrep::schema_of<Loot>().tree;
    std::size_t renamed_types = 0;
    for (const bitrep::schema_node& node : loot.nodes)
        renamed_types += node.former_names == std::vector<std::string>{"Wallet"} ||
                         node.former_names == std::vector<std::string>{"Potion"};
    EXPECT_EQ(renamed_types, 3u);
}

TEST(EngineSchema, HooksAreOpaqueAndABaseWithAHookIsAField)
{
    schema_comparison::expect_same_schema<Blob>("Blob");
    schema_comparison::expect_same_schema<FreeBlob>("FreeBlob");
    schema_comparison::expect_same_schema<OnHooked>("OnHooked");
}

TEST(EngineSchema, FieldsTheSavesDoNotCarryAreLeftOutAtTheirPositions)
{
    schema_comparison::expect_same_schema<Scoped>("schema::Scoped");
    schema_comparison::expect_same_schema<Positional>("Positional");
}

TEST(EngineSchema, AProxyWhoseTraitsDescribeItKeepsItsOwnSchema)
{
    schema_comparison::expect_same_schema<Colour>("Colour");
    schema_comparison::expect_same_schema<Painted>("Painted");
    EXPECT_EQ(bitrep::schema_of<Colour>().tree.nodes[0].type_name, "colour");
}

TEST(EngineSchema, ATypePastTheSchemasLimitsIsRefusedAlike)
{
    schema_comparison::expect_same_schema<Vast>("Vast");
    EXPECT_FALSE(bitrep::schema_of<Vast>().built.ok());
    schema_comparison::expect_same_schema<Long>("Long");
    EXPECT_EQ(bitrep::schema_of<Long>().tree.nodes[0].type_name.size(), bitrep::schema_limits::max_name);
}

} // namespace
