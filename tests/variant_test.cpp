// codecs/variant.hpp: std::variant as the alternative's index, then the
// alternative (docs/formats/wire-format.md, section 3): golden bits written with
// the test oracle's own packer, refusals with their paths, deltas on the
// bit-packed and coded streams, and saves loaded after the alternatives
// changed (by name for classes and enums, by order for the unnamed).
#include <bitrep/bitrep.hpp>
#include <bitrep/coded_delta.hpp>
#include <bitrep/delta.hpp>
#include <bitrep/replication.hpp>

#include <gtest/gtest.h>

#include "delta_helpers.hpp"
#include "replicate_packet.hpp"
#include "test_oracle.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <variant>
#include <vector>

enum class Key : std::uint8_t { bronze, silver, gold }; // 2 bits
BOOST_DESCRIBE_ENUM(Key, bronze, silver, gold)

namespace {

using bitrep::ranged;
using bitrep::scope;
using namespace oracle::common;

struct Weapon {
    ranged<int, 0, 100> damage = 0; // 7 bits
    bool two_handed = false;
};
BOOST_DESCRIBE_STRUCT(Weapon, (), (damage, two_handed))

struct Potion {
    ranged<int, 0, 15> strength = 0; // 4 bits
};
BOOST_DESCRIBE_STRUCT(Potion, (), (strength))

using Item = std::variant<Weapon, Potion, Key>; // index: 2 bits

struct Pickup {
    ranged<int, 0, 1023> id = 0; // 10 bits
    Item item;
};
BOOST_DESCRIBE_STRUCT(Pickup, (), (id, item))

bool same(const Pickup& a, const Pickup& b) { return bitrep::same_on_wire<scope::all>(a, b); }

} // namespace

// ---------------------------------------------------------------- encoding

TEST(Variant, TheIndexTakesTheBitsItsAlternativesNeedThenTheAlternative)
{
    EXPECT_EQ(bitrep::max_bits<Item>, 2u + 8u);            // index, then the largest (Weapon)
    EXPECT_EQ(bitrep::codec<Item>::min_bits(), 2u + 2u);   // index, then the smallest (Key)
    EXPECT_EQ((bitrep::max_bits<std::variant<bool, ranged<int, 0, 100>>>), 1u + 7u);
    EXPECT_EQ(bitrep::max_bits<std::variant<Potion>>, 4u); // one alternative: no index bits

    EXPECT_EQ(oracle::encode<Pickup>({5, Weapon{42, true}}),
              bit_builder{}.bits(5, 10).bits(0, 2).bits(42, 7).bits(1, 1).result());
    EXPECT_EQ(oracle::encode<Pickup>({6, Potion{9}}), bit_builder{}.bits(6, 10).bits(1, 2).bits(9, 4).result());
    EXPECT_EQ(oracle::encode<Pickup>({7, Key::gold}), bit_builder{}.bits(7, 10).bits(2, 2).bits(2, 2).result());
    // The same, as docs/formats/wire-format.md lists them.
    EXPECT_EQ(oracle::encode<Pickup>({5, Weapon{42, true}}), (bytes{0x05, 0xa0, 0x0a}));
    EXPECT_EQ(oracle::encode<Pickup>({6, Potion{9}}), (bytes{0x06, 0x94}));
    EXPECT_EQ(oracle::encode<Pickup>({7, Key::gold}), (bytes{0x07, 0x28}));
}

TEST(Variant, EveryAlternativeRoundTripsWhateverTheTargetHeld)
{
    for (const Pickup& sent : {Pickup{1, Weapon{100, false}}, Pickup{2, Potion{15}}, Pickup{3, Key::silver}}) {
        for (const Pickup& held : {Pickup{9, Weapon{7, true}}, Pickup{9, Potion{1}}, Pickup{9, Key::gold}}) {
            Pickup got = held;
            ASSERT_TRUE(bitrep::from_bytes(oracle::encode<Pickup>(sent), got));
            EXPECT_EQ(got.item.index(), sent.item.index());
            EXPECT_TRUE(same(got, sent));
        }
    }
}

TEST(Variant, AnIndexPastTheAlternativesIsRefusedWithItsPathAndChangesNothing)
{
    const bytes forged = bit_builder{}.bits(5, 10).bits(3, 2).bits(0, 4).result();
    Pickup target{77, Potion{3}};
    const bitrep::status st = bitrep::from_bytes(forged, target);
    EXPECT_STATUS(st, bitrep::error::bad_enum, "Pickup.item", 10);
    EXPECT_TRUE(oracle::contains(st.message(), "variant index is not an alternative")) << st.message();
    EXPECT_EQ(target.id, 77);
    ASSERT_EQ(target.item.index(), 1u);
    EXPECT_EQ(std::get<Potion>(target.item).strength, 3);
}

TEST(Variant, AFailureInsideAnAlternativeNamesTheAlternative)
{
    // Weapon's damage: 127 in 7 bits, past its range of [0, 100].
    const bytes forged = bit_builder{}.bits(5, 10).bits(0, 2).bits(127, 7).bits(0, 1).result();
    Pickup target{77, Key::bronze};
    EXPECT_STATUS(bitrep::from_bytes(forged, target), bitrep::error::out_of_range, "Pickup.item<Weapon>.damage", 12);
    EXPECT_EQ(target.item.index(), 2u);
}

TEST(Variant, EveryTruncationIsRefused)
{
    const bytes whole = oracle::encode<Pickup>({1000, Weapon{99, true}}); // 20 bits: 3 bytes
    for (std::size_t n = 0; n < whole.size(); ++n) {
        Pickup target;
        EXPECT_FALSE(bitrep::from_bytes(std::span(whole).first(n), target)) << n << " bytes";
    }
}

namespace {
/// Not trivially copyable, so that std::variant may be left valueless.
struct Banner {
    bitrep::bounded_string<8> text;
};
BOOST_DESCRIBE_STRUCT(Banner, (), (text))
struct Armoury {
    std::variant<std::int8_t, Banner> held;
};
/// Converts to a Banner by throwing, which leaves a variant valueless.
struct ThrowsOnConversion {
    operator Banner() const { throw 1; }
};
} // namespace

TEST(Variant, AValuelessVariantIsRefusedOnWrite)
{
    Armoury armoury;
    try {
        armoury.held.emplace<Banner>(ThrowsOnConversion{});
    } catch (int) {
    }
    ASSERT_TRUE(armoury.held.valueless_by_exception());
    bytes out;
    EXPECT_EQ(bitrep::to_bytes(armoury, out).code(), bitrep::error::value_out_of_range);
}

TEST(Variant, MonostateIsAnEmptyAlternative)
{
    struct Slot {
        std::variant<std::monostate, Potion> content;
    };
    EXPECT_EQ(bitrep::max_bits<Slot>, 1u + 4u);
    const Slot empty;
    bytes out;
    ASSERT_TRUE(bitrep::to_bytes(empty, out));
    EXPECT_EQ(out, bit_builder{}.bits(0, 1).result());
    Slot got{Potion{3}};
    ASSERT_TRUE(bitrep::from_bytes(out, got));
    EXPECT_TRUE(std::holds_alternative<std::monostate>(got.content));
    EXPECT_EQ(bitrep::delta_bit_size(Slot{Potion{3}}, empty), 1u + 1u + 1u); // struct changed, variant changed, switched
}

// ---------------------------------------------------------------- deltas

namespace {

bool same_item(const Item& a, const Item& b) { return bitrep::same_on_wire<scope::all>(a, b); }

} // namespace

TEST(VariantDelta, AnUnchangedVariantCostsOneBit)
{
    const Item weapon = Weapon{42, true};
    EXPECT_EQ(bitrep::delta_bit_size(weapon, weapon), 1u);
    EXPECT_TRUE(same_item(oracle::replicate<bitrep::scope::all, Item>(weapon, weapon, Key::gold), weapon));
}

TEST(VariantDelta, TheSameAlternativeSendsItsOwnDelta)
{
    const Item base = Weapon{42, false};
    const Item current = Weapon{42, true};
    // changed, not switched, then Weapon's delta: damage unchanged, two_handed changed and its bit.
    const oracle::encoded e = oracle::encode_delta(base, current);
    EXPECT_EQ(e.bits, 1u + 1u + 1u + 2u);
    EXPECT_EQ(e.data, bit_builder{}.bits(1, 1).bits(0, 1).bits(0, 1).bits(1, 1).bits(1, 1).result());
    for (const Item& start : {Item{Key::bronze}, Item{Potion{4}}, Item{Weapon{1, false}}})
        EXPECT_TRUE(same_item(oracle::replicate<bitrep::scope::all, Item>(base, current, start), current));
}

TEST(VariantDelta, ASwitchSendsTheIndexAmongTheOtherAlternativesThenTheValueInFull)
{
    // From Weapon (0) to Key (2): among the other two (Potion, Key) Key is 1, in 1 bit.
    const Item base = Weapon{42, false};
    const Item current = Key::gold;
    const oracle::encoded e = oracle::encode_delta(base, current);
    EXPECT_EQ(e.bits, 1u + 1u + 1u + 2u);
    EXPECT_EQ(e.data, bit_builder{}.bits(1, 1).bits(1, 1).bits(1, 1).bits(2, 2).result());
    EXPECT_TRUE(same_item(oracle::replicate<bitrep::scope::all, Item>(base, current, Weapon{3, true}), current));
    // From Key (2) to Potion (1): among Weapon and Potion, Potion is 1.
    const oracle::encoded back = oracle::encode_delta(current, Item{Potion{9}});
    EXPECT_EQ(back.data, bit_builder{}.bits(1, 1).bits(1, 1).bits(1, 1).bits(9, 4).result());
    EXPECT_TRUE(same_item(oracle::replicate<bitrep::scope::all, Item>(current, Potion{9}, Key::gold), Potion{9}));
    // Two alternatives: a switch needs no index at all.
    using Two = std::variant<bool, Potion>;
    EXPECT_EQ(bitrep::delta_bit_size(Two{true}, Two{Potion{9}}), 1u + 1u + 4u);
}

TEST(VariantDelta, ASwitchOfTwoAlternativesReadsIntoATargetHoldingTheBaselinesAlternative)
{
    // Two alternatives: the switch sends no index, so the reader must not
    // work one out from what its target happens to hold.
    using Two = std::variant<std::monostate, Potion>;
    const Two base;
    const Two current = Potion{9};
    bytes data((bitrep::delta_bit_size(base, current) + 7) / 8);
    bitrep::write_stream writer(data);
    ASSERT_TRUE(bitrep::write_delta(writer, base, current));
    data.resize(writer.flush());
    for (const Two& start : {Two{}, base, Two{Potion{1}}}) {
        bitrep::read_stream reader(data);
        Two out = start;
        ASSERT_TRUE(bitrep::read_delta(reader, base, out)) << reader.failure_status("Two").message();
        ASSERT_TRUE(std::holds_alternative<Potion>(out));
        EXPECT_EQ(std::get<Potion>(out).strength, 9);
    }
    // And back, from a target that holds the new alternative already.
    bytes back((bitrep::delta_bit_size(current, base) + 7) / 8);
    bitrep::write_stream writer_back(back);
    ASSERT_TRUE(bitrep::write_delta(writer_back, current, base));
    back.resize(writer_back.flush());
    bitrep::read_stream reader(back);
    Two out = current;
    ASSERT_TRUE(bitrep::read_delta(reader, current, out));
    EXPECT_TRUE(std::holds_alternative<std::monostate>(out));
}

TEST(VariantDelta, AForgedSwitchPastTheAlternativesIsRefused)
{
    using Four = std::variant<bool, Potion, Key, Weapon>;
    // changed, switched, then index 3 among the three others: there are only 3.
    const bytes forged = bit_builder{}.bits(1, 1).bits(1, 1).bits(3, 2).bits(0, 8).result();
    bitrep::read_stream stream(forged);
    Four out = Key::silver;
    EXPECT_FALSE(bitrep::read_delta(stream, Four{true}, out));
    EXPECT_STATUS(stream.failure_status("Four"), bitrep::error::bad_enum, "Four", 2);
}

TEST(VariantDelta, RandomRunsRoundTripOnTheBitPackedAndCodedStreams)
{
    struct Shelf {
        std::array<Item, 6> items{};
        std::optional<std::variant<ranged<int, -5, 5>, Potion>> maybe;
    };
    std::mt19937 random(7);
    auto random_item = [&]() -> Item {
        switch (random() % 3) {
        case 0: return Weapon{static_cast<int>(random() % 101), random() % 2 == 0};
        case 1: return Potion{static_cast<int>(random() % 16)};
        default: return static_cast<Key>(random() % 3);
        }
    };
    auto same_shelf = [](const Shelf& a, const Shelf& b) { return bitrep::same_on_wire<scope::all>(a, b); };
    bitrep::delta_coder<Shelf, scope::all> coder;
    Shelf older, base, current;
    std::size_t switches = 0;
    for (int step = 0; step < 400; ++step) {
        older = base;
        base = current;
        for (Item& item : current.items) {
            if (random() % 4 == 0) {
                const std::size_t was = item.index();
                item = random_item();
                switches += item.index() != was ? 1 : 0;
            } else if (random() % 3 == 0 && std::holds_alternative<Weapon>(item)) {
                std::get<Weapon>(item).damage = static_cast<int>(random() % 101);
            }
        }
        if (random() % 5 == 0)
            current.maybe = random() % 3 == 0 ? std::nullopt
                                              : std::optional<std::variant<ranged<int, -5, 5>, Potion>>(
                                                    ranged<int, -5, 5>(static_cast<int>(random() % 11) - 5));
        // Bit-packed, into a target holding something else entirely.
        const Shelf got = oracle::replicate(base, current);
        ASSERT_TRUE(same_shelf(got, current)) << "step " << step;
        // Coded, predicted from the state before the baseline.
        const oracle::coded<Shelf> decoded = oracle::coded_round_trip(coder, older, base, current, 1024);
        ASSERT_TRUE(decoded.ok) << "step " << step;
        ASSERT_TRUE(same_shelf(decoded.value, current)) << "step " << step;
    }
    EXPECT_GT(switches, 200u);
}

// ---------------------------------------------------------------- saves

namespace saves {
using Loot = std::variant<Weapon, Potion, Key, ranged<int, 0, 99>>;
struct Chest {
    static constexpr std::string_view bitrep_name = "Chest";
    ranged<int, 0, 1023> id = 0;
    Loot loot;
};
BOOST_DESCRIBE_STRUCT(Chest, (), (id, loot))

/// The next version of Weapon: a field added, the damage widened.
struct WeaponV2 {
    static constexpr std::string_view bitrep_name = "Weapon";
    ranged<int, 0, 1000> damage = 0;
    bool two_handed = false;
    ranged<int, 0, 3> enchantment = 2;
};
BOOST_DESCRIBE_STRUCT(WeaponV2, (), (damage, two_handed, enchantment))

struct Shield {
    ranged<int, 0, 50> block = 0;
};
BOOST_DESCRIBE_STRUCT(Shield, (), (block))

/// The alternatives reordered, Potion removed, Shield added, the unnamed
/// number kept last among the unnamed and widened.
using LootV2 = std::variant<Key, Shield, ranged<int, 0, 9999>, WeaponV2>;
struct ChestV2 {
    static constexpr std::string_view bitrep_name = "Chest";
    LootV2 loot;
    ranged<int, 0, 1023> id = 0;
};
BOOST_DESCRIBE_STRUCT(ChestV2, (), (loot, id))
} // namespace saves

TEST(VariantSave, EveryAlternativeSavesAndLoadsOnTheFastPath)
{
    for (const saves::Loot& loot : {saves::Loot{Weapon{5, true}}, saves::Loot{Potion{2}}, saves::Loot{Key::gold},
                                    saves::Loot{ranged<int, 0, 99>(98)}}) {
        saves::Chest loaded{1, Potion{15}};
        bitrep::load_info info;
        ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(saves::Chest{7, loot}), loaded, info));
        EXPECT_EQ(info.path, bitrep::load_info::route::fast);
        EXPECT_EQ(loaded.id, 7);
        EXPECT_TRUE((bitrep::same_on_wire<scope::save>(loaded.loot, loot)));
    }
}

TEST(VariantSave, TheSchemaNamesClassAndEnumAlternativesAndGivesEachItsIndex)
{
    const bitrep::schema& tree = bitrep::schema_of<saves::Chest>().tree;
    // Chest, id, loot (variant), Weapon (+2 fields), Potion (+1), Key (+3 enumerators), the ranged.
    const bitrep::schema_node& loot = tree.nodes[2];
    ASSERT_EQ(loot.kind, bitrep::schema_kind::variant);
    EXPECT_EQ(loot.name, "loot");
    EXPECT_EQ(loot.children, 4u);
    std::vector<std::string> names;
    std::vector<std::uint32_t> positions;
    for (std::uint32_t c = 3; c < loot.end; c = tree.nodes[c].end) {
        names.push_back(tree.nodes[c].name);
        positions.push_back(tree.nodes[c].position);
    }
    EXPECT_EQ(names, (std::vector<std::string>{"Weapon", "Potion", "Key", ""}));
    EXPECT_EQ(positions, (std::vector<std::uint32_t>{0, 1, 2, 3}));
    // The schema encodes and parses back to the same tree.
    bitrep::schema parsed;
    ASSERT_TRUE(bitrep::parse_schema(bitrep::schema_of<saves::Chest>().encoded, parsed));
    EXPECT_EQ(parsed, tree);
}

TEST(VariantSave, AlternativesAreMatchedByNameAndConvertedLikeFields)
{
    saves::ChestV2 loaded;
    bitrep::load_info info;
    const bitrep::status st = bitrep::load_from_bytes(bitrep::save_to_bytes(saves::Chest{7, Weapon{99, true}}), loaded, info);
    ASSERT_TRUE(st) << st.message();
    EXPECT_EQ(info.path, bitrep::load_info::route::schema);
    EXPECT_EQ(loaded.id, 7);
    ASSERT_TRUE(std::holds_alternative<saves::WeaponV2>(loaded.loot));
    EXPECT_EQ(std::get<saves::WeaponV2>(loaded.loot).damage, 99);
    EXPECT_TRUE(std::get<saves::WeaponV2>(loaded.loot).two_handed);
    EXPECT_EQ(std::get<saves::WeaponV2>(loaded.loot).enchantment, 2); // added: its default

    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(saves::Chest{8, Key::silver}), loaded, info));
    EXPECT_EQ(std::get<Key>(loaded.loot), Key::silver);
    // The unnamed alternative matches the program's unnamed one, wherever it stands.
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(saves::Chest{9, ranged<int, 0, 99>(42)}), loaded, info));
    EXPECT_EQ((std::get<ranged<int, 0, 9999>>(loaded.loot)), 42);
}

TEST(VariantSave, AValueOfAnAlternativeTheProgramDroppedIsRefusedNamingItAndChangesNothing)
{
    saves::ChestV2 loaded{saves::Shield{12}, 3};
    bitrep::load_info info;
    const bitrep::status st =
        bitrep::load_from_bytes(bitrep::save_to_bytes(saves::Chest{7, Potion{4}}), loaded, info);
    EXPECT_EQ(st.code(), bitrep::error::out_of_range);
    EXPECT_EQ(st.field_path(), "saves::ChestV2.loot<Potion>");
    EXPECT_EQ(st.detail(), "no `Potion` in the program's variant: if renamed, list the old name in bitrep_renames");
    EXPECT_EQ(loaded.id, 3);
    EXPECT_EQ(std::get<saves::Shield>(loaded.loot).block, 12);
}

namespace saves {
/// Potion renamed Elixir: its stable name changes with it, so it lists the
/// old one.
struct Elixir {
    static constexpr bitrep::renamed bitrep_renames[] = {{.from = "Potion", .to = "Elixir"}};
    ranged<int, 0, 15> strength = 0;
};
BOOST_DESCRIBE_STRUCT(Elixir, (), (strength))

struct ChestWithElixir {
    static constexpr std::string_view bitrep_name = "Chest";
    ranged<int, 0, 1023> id = 0;
    std::variant<Weapon, Elixir, Key, ranged<int, 0, 99>> loot;
};
BOOST_DESCRIBE_STRUCT(ChestWithElixir, (), (id, loot))
} // namespace saves

TEST(VariantSave, ARenamedAlternativeLoadsFromTheOldNameInItsBitrepRenames)
{
    saves::ChestWithElixir loaded;
    bitrep::load_info info;
    const bitrep::status st = bitrep::load_from_bytes(bitrep::save_to_bytes(saves::Chest{7, Potion{9}}), loaded, info);
    ASSERT_TRUE(st) << st.message();
    EXPECT_EQ(info.path, bitrep::load_info::route::schema);
    ASSERT_TRUE(std::holds_alternative<saves::Elixir>(loaded.loot));
    EXPECT_EQ(std::get<saves::Elixir>(loaded.loot).strength, 9);
}

namespace saves {
struct WeaponV3 {
    static constexpr std::string_view bitrep_name = "Weapon";
    ranged<int, 0, 50> damage = 0; // narrowed
};
BOOST_DESCRIBE_STRUCT(WeaponV3, (), (damage))
struct ChestV3 {
    static constexpr std::string_view bitrep_name = "Chest";
    ranged<int, 0, 1023> id = 0;
    std::variant<WeaponV3, Key> loot;
};
BOOST_DESCRIBE_STRUCT(ChestV3, (), (id, loot))
} // namespace saves

TEST(VariantSave, AConvertedAlternativeThatDoesNotFitNamesItsPath)
{
    saves::ChestV3 loaded;
    bitrep::load_info info;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(saves::Chest{1, Weapon{50, false}}), loaded, info));
    EXPECT_EQ(std::get<saves::WeaponV3>(loaded.loot).damage, 50);
    const bitrep::status st = bitrep::load_from_bytes(bitrep::save_to_bytes(saves::Chest{1, Weapon{51, false}}), loaded, info);
    EXPECT_EQ(st.code(), bitrep::error::out_of_range);
    EXPECT_TRUE(oracle::contains(st.message(), "ChestV3.loot<Weapon>.damage")) << st.message();
}

// ---------------------------------------------------------------- replication

namespace {
std::vector<std::uint8_t> copy(std::span<const std::uint8_t> bytes) { return {bytes.begin(), bytes.end()}; }

struct Floor {
    bitrep::entity_array<Pickup, 16> pickups;
};
BOOST_DESCRIBE_STRUCT(Floor, (), (pickups))
} // namespace

TEST(VariantReplication, PickupsThatChangeWhatTheyHoldReachAClientThroughLossInBothEncodings)
{
    for (const bitrep::replication_encoding encoding :
         {bitrep::replication_encoding::coded, bitrep::replication_encoding::bit_packed}) {
        bitrep::replication_options options;
        options.encoding = encoding;
        bitrep::replication_server<Floor> server(options);
        bitrep::replication_client<Floor> client(options);
        const bitrep::client_id id = server.add_client();
        std::mt19937 random(3);
        Floor floor;
        std::size_t switches = 0;
        for (int tick = 0; tick < 300; ++tick) {
            if (tick < 280) { // then the floor settles, and the client must catch up
                for (std::uint32_t slot = 0; slot < 16; ++slot) {
                    if (random() % 5 != 0)
                        continue;
                    if (floor.pickups.find(slot) == nullptr) {
                        floor.pickups.emplace(slot).id = static_cast<int>(slot);
                        continue;
                    }
                    Pickup& p = *floor.pickups.find(slot);
                    const std::size_t was = p.item.index();
                    switch (random() % 4) {
                    case 0: p.item = Weapon{static_cast<int>(random() % 101), random() % 2 == 0}; break;
                    case 1: p.item = Potion{static_cast<int>(random() % 16)}; break;
                    case 2: p.item = static_cast<Key>(random() % 3); break;
                    default: floor.pickups.erase(slot); continue;
                    }
                    switches += p.item.index() != was ? 1 : 0;
                }
            }
            const std::vector<std::uint8_t> packet = copy(test_replication::update_and_replicate(server, id, floor));
            if (random() % 8 != 0) { // 1 in 8 packets lost
                ASSERT_TRUE(client.receive(packet));
            }
            if (random() % 8 != 0) { // and 1 in 8 acks
                ASSERT_TRUE(server.receive(id, copy(client.ack())));
            }
        }
        EXPECT_GT(switches, 100u);
        EXPECT_TRUE(bitrep::same_on_wire<scope::replication>(client.state(), floor));
    }
}

namespace saves {
struct Gem {
    static constexpr std::string_view bitrep_name = "Treasure";
    ranged<int, 0, 9> carats = 0;
};
BOOST_DESCRIBE_STRUCT(Gem, (), (carats))
struct Coin {
    static constexpr std::string_view bitrep_name = "Treasure"; // the same name: which is meant is unknown
    ranged<int, 0, 9> value = 0;
};
BOOST_DESCRIBE_STRUCT(Coin, (), (value))
struct HoardV1 {
    static constexpr std::string_view bitrep_name = "Hoard";
    std::variant<Gem, Coin> treasure;
    bool cursed = false;
};
BOOST_DESCRIBE_STRUCT(HoardV1, (), (treasure, cursed))
struct HoardV2 {
    static constexpr std::string_view bitrep_name = "Hoard";
    std::variant<Gem, Coin, bool> treasure; // an alternative added: matched by name, not read as the same subtree
};
BOOST_DESCRIBE_STRUCT(HoardV2, (), (treasure))
} // namespace saves

TEST(VariantSave, TwoAlternativesOfOneNameAreASchemaMismatchNotAGuess)
{
    saves::HoardV2 loaded;
    bitrep::load_info info;
    const bitrep::status st =
        bitrep::load_from_bytes(bitrep::save_to_bytes(saves::HoardV1{saves::Coin{7}, true}), loaded, info);
    EXPECT_EQ(st.code(), bitrep::error::schema_mismatch);
    EXPECT_TRUE(oracle::contains(st.message(), "two of the program's alternatives have one name")) << st.message();
}
