// delta.hpp: values written against a baseline the receiver holds
// (docs/formats/wire-format.md, section 6). Round trips of every kind in wire space,
// exact bit counts derived from the encoding rules (never copied from the
// library's output), the index-list / bitmask choice, quantized comparisons
// and the absence of drift, scopes, delta_small, entity_array (also through
// saves and schemas), and readers given truncated, forged or random bytes.
#include <bitrep/annotations/delta_small.hpp>
#include <bitrep/annotations/entity_array.hpp>
#include <bitrep/bitrep.hpp>
#include <bitrep/delta.hpp>

#include <gtest/gtest.h>

#include "delta_helpers.hpp"
#include "test_oracle.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// ---------------------------------------------------------------- types

enum class Team : std::uint8_t { red, blue, green }; // 2 bits
BOOST_DESCRIBE_ENUM(Team, red, blue, green)

namespace {

using bitrep::bounded_string;
using bitrep::bounded_vector;
using bitrep::delta_small;
using bitrep::entity_array;
using bitrep::quantized;
using bitrep::ranged;
using bitrep::scope;
using namespace oracle::common;
using oracle::encode_delta;
using oracle::encoded;
using oracle::read_delta_status;
using oracle::replicate;

using Health = ranged<int, 0, 100>;              // 7 bits
using Coord = quantized<-100.f, 100.f, 0.01f>;   // 20000 quanta: 15 bits
using Unit = quantized<0.f, 10.f, 0.01f>;        // 1000 quanta: 10 bits
using Temperature = ranged<int, -50, 50>;        // span 100: 7 bits
using Quat = bitrep::quat<9>;                    // 29 bits

} // namespace

// One field of every leaf kind (10 fields).
struct Leaves {
    bool flag = false;
    std::int32_t score = 0;
    std::uint8_t level = 0;
    Team team = Team::red;
    Health health = 100;
    Coord x;
    Quat orientation;
    float speed = 0.0f;
    double mass = 0.0;
    bounded_string<16> name;
};
BOOST_DESCRIBE_STRUCT(Leaves, (), (flag, score, level, team, health, x, orientation, speed, mass, name))

// Boost.PFR aggregates.
struct Item {
    ranged<int, 0, 255> kind;    // 8 bits
    ranged<int, 1, 64> count = 1; // 6 bits
};

struct Containers {
    bounded_vector<Item, 8> items;              // size in 4 bits
    std::array<ranged<int, 0, 7>, 6> slots{};   // 3 bits each
    std::optional<Item> held;
    std::optional<Leaves> extra;
};

struct Nested {
    Leaves leaves;
    Containers containers;
    Team team = Team::red;
};
BOOST_DESCRIBE_STRUCT(Nested, (), (leaves, containers, team))

// An entity of 8 bits in full: 7 + 1.
struct Slot {
    Health hp = 100;
    bool alive = true;
};

struct Cube {
    Coord x, y, z;
    Quat orientation;
    bool interacting = false;
};
BOOST_DESCRIBE_STRUCT(Cube, (), (x, y, z, orientation, interacting))

struct Player {
    Health hp = 100;
    bitrep::save_only<std::uint64_t> seed = 0;
    bitrep::net_only<ranged<int, 0, 15>> ping = 0;
    bitrep::transient<int> cache = 0;
};
BOOST_DESCRIBE_STRUCT(Player, (), (hp, seed, ping, cache))

struct World {
    ranged<std::uint32_t, 0, 1000000> tick;
    entity_array<Cube, 16> cubes;
    bounded_vector<Item, 6> items;
    std::optional<Leaves> boss;
    delta_small<Unit, 4> wind;
    delta_small<Temperature, 2> temperature;
    Team team = Team::red;
    bitrep::save_only<std::uint64_t> seed = 0;
    bitrep::transient<std::string> cache; // never encoded, so need not be encodable
};
BOOST_DESCRIBE_STRUCT(World, (), (tick, cubes, items, boss, wind, temperature, team, seed, cache))

namespace {

// ---------------------------------------------------------------- helpers

/// bits_required(0, span), written from the wire reference: the bit length
/// of the span (0 for a span of 0).
constexpr std::size_t width(std::uint64_t span) { return static_cast<std::size_t>(std::bit_width(span)); }

/// The alignment padding after `bits` bits from an aligned start.
constexpr std::size_t pad(std::size_t bits) { return (8 - bits % 8) % 8; }

/// int_relative's cost per docs/formats/wire-format.md section 2: the tier flags
/// tried, then the tier's payload; the final tier sends 32 bits.
constexpr std::size_t int_relative_cost(std::uint64_t d)
{
    if (d == 1)
        return 1;
    if (d <= 6)
        return 2 + width(6 - 2);
    if (d <= 23)
        return 3 + width(23 - 7);
    if (d <= 280)
        return 4 + width(280 - 24);
    if (d <= 4377)
        return 5 + width(4377 - 281);
    if (d <= 69914)
        return 6 + width(69914 - 4378);
    return 6 + 32;
}

/// Equal in wire space: the same full encoding, and same_on_wire agrees.
template <class T>
::testing::AssertionResult equal_on_wire(const T& a, const T& b)
{
    const bytes wire_a = bitrep::to_bytes(a);
    const bytes wire_b = bitrep::to_bytes(b);
    if (wire_a != wire_b)
        return ::testing::AssertionFailure() << "the full encodings differ";
    if (!bitrep::same_on_wire<scope::all>(a, b))
        return ::testing::AssertionFailure() << "same_on_wire says they differ";
    return ::testing::AssertionSuccess();
}

/// The round trip every kind must pass: out equals current in wire space.
template <class T>
void expect_round_trip(const T& base, const T& current, const T& start)
{
    const T out = replicate(base, current, start);
    EXPECT_TRUE(equal_on_wire(out, current));
}

bool bit_at(const bytes& data, std::size_t i) { return ((data.at(i / 8) >> (i % 8)) & 1u) != 0; }

Quat about_z(float radians) { return Quat{0.0f, 0.0f, std::sin(radians / 2), std::cos(radians / 2)}; }

Leaves some_leaves()
{
    Leaves l;
    l.flag = true;
    l.score = -123456;
    l.level = 7;
    l.team = Team::blue;
    l.health = 42;
    l.x = 12.34f;
    l.orientation = about_z(0.5f);
    l.speed = 3.5f;
    l.mass = 80.25;
    l.name = bounded_string<16>(std::string_view("Ada"));
    return l;
}

Leaves other_leaves()
{
    Leaves l;
    l.flag = false;
    l.score = 99;
    l.level = 200;
    l.team = Team::green;
    l.health = 3;
    l.x = -50.0f;
    l.orientation = about_z(-1.0f);
    l.speed = -7.0f;
    l.mass = 1e9;
    l.name = bounded_string<16>(std::string_view("Grace Hopper"));
    return l;
}

Cube cube_at(float x)
{
    Cube c;
    c.x = x;
    c.y = -x / 2;
    c.z = 1.0f;
    c.orientation = about_z(x / 100);
    return c;
}

World some_world()
{
    World w;
    w.tick = 1000;
    for (std::size_t i = 0; i < 16; i += 3)
        w.cubes.emplace(i, cube_at(static_cast<float>(i)));
    w.items.push_back(Item{4, 2});
    w.items.push_back(Item{9, 64});
    w.boss = some_leaves();
    w.wind = 2.5f;
    w.temperature = 20;
    w.team = Team::blue;
    w.seed = 77;
    return w;
}

World changed_world()
{
    World w = some_world();
    w.tick = 1001;
    w.cubes.erase(3);                          // destroyed
    w.cubes.emplace(4, cube_at(40.0f));        // created
    w.cubes[6].x = 8.5f;                       // changed
    w.cubes[15].interacting = true;            // changed
    w.items[1].count = 10;                     // element changed
    w.items.push_back(Item{200, 5});           // grown
    w.boss->health = 17;                       // optional, both present
    w.boss->name = bounded_string<16>(std::string_view("Lovelace"));
    w.wind = 2.52f;                            // a small step
    w.temperature = -40;                       // a large step
    w.team = Team::green;
    return w;
}

} // namespace

// ---------------------------------------------------------------- unchanged values

TEST(DeltaUnchanged, AStructEqualToItsBaselineCostsOneBit)
{
    const Nested n{some_leaves(), {}, Team::green};
    EXPECT_EQ(bitrep::delta_bit_size(n, n), 1u);
    EXPECT_EQ(bitrep::delta_bit_size(some_world(), some_world()), 1u);
    EXPECT_EQ(bitrep::delta_bit_size(Leaves{}, Leaves{}), 1u);
    // The one bit is a 0, and reading it copies the baseline.
    const encoded e = encode_delta(n, n);
    EXPECT_EQ(e.data, (bytes{0x00}));
    Nested start;
    start.leaves = other_leaves();
    start.containers.held = Item{1, 1};
    EXPECT_TRUE(equal_on_wire(replicate(n, n, start), n));
}

TEST(DeltaUnchanged, EveryLeafKindUnchangedCostsOneBitOnItsOwn)
{
    EXPECT_EQ(bitrep::delta_bit_size(true, true), 1u);
    EXPECT_EQ(bitrep::delta_bit_size(std::int64_t{-5}, std::int64_t{-5}), 1u);
    EXPECT_EQ(bitrep::delta_bit_size(Team::green, Team::green), 1u);
    EXPECT_EQ(bitrep::delta_bit_size(Health{4}, Health{4}), 1u);
    EXPECT_EQ(bitrep::delta_bit_size(Coord{1.5f}, Coord{1.5f}), 1u);
    EXPECT_EQ(bitrep::delta_bit_size(about_z(0.3f), about_z(0.3f)), 1u);
    EXPECT_EQ(bitrep::delta_bit_size(2.0f, 2.0f), 1u);
    EXPECT_EQ(bitrep::delta_bit_size(2.0, 2.0), 1u);
    EXPECT_EQ(bitrep::delta_bit_size(bounded_string<16>(std::string_view("x")), bounded_string<16>(std::string_view("x"))), 1u);
}

TEST(DeltaUnchanged, UnchangedChildrenCostOneBitEachInsideAChangedParent)
{
    // Containers: items, slots, held, extra. Only `held` changes, its count
    // from 1 to 2: held costs changed 1 + presence 1 + kind unchanged 1 +
    // count changed 1 + 6; every other child 1 bit; the struct 1 bit.
    Containers base;
    base.items.push_back(Item{1, 2});
    base.slots = {1, 2, 3, 4, 5, 6};
    base.held = Item{3, 1};
    base.extra = some_leaves();
    Containers current = base;
    current.held->count = 2;
    const std::size_t held = 1 + 1 + 1 + (1 + 6);
    EXPECT_EQ(bitrep::delta_bit_size(base, current), 1 + 1 + 1 + held + 1);
    Containers start;
    start.extra = other_leaves();
    expect_round_trip(base, current, start);

    // Nested: leaves changes one field, containers and team do not.
    const Nested n_base{some_leaves(), base, Team::red};
    Nested n_current = n_base;
    n_current.leaves.health = 43;
    EXPECT_EQ(bitrep::delta_bit_size(n_base, n_current), 1 + (1 + 10 + 7) + 1 + 1);
}

// ---------------------------------------------------------------- leaves

TEST(DeltaLeaves, AChangedRangedFieldCostsItsChangedBitAndItsSevenBitsPlusTheParents)
{
    // Leaves has 10 fields: 1 (struct) + 9 unchanged fields + (1 + 7).
    const Leaves base = some_leaves();
    Leaves current = base;
    current.health = 0;
    EXPECT_EQ(bitrep::delta_bit_size(base, current), 1 + 9 + (1 + 7));
    current.health = 100;
    EXPECT_EQ(bitrep::delta_bit_size(base, current), 1 + 9 + (1 + 7));
    expect_round_trip(base, current, other_leaves());
}

TEST(DeltaLeaves, TheBitsAreTheChangedBitsThenTheOrdinaryEncoding)
{
    // {bool, ranged<int, 0, 100>}: struct changed, bool unchanged, ranged
    // changed and its offset 51 in 7 bits.
    struct Pair {
        bool a;
        Health h;
    };
    const Pair base{false, 50};
    const Pair current{false, 51};
    EXPECT_EQ(encode_delta(base, current).data, bit_builder{}.bits(1, 1).bits(0, 1).bits(1, 1).bits(51, 7).result());
    const Pair both{true, 0};
    EXPECT_EQ(encode_delta(base, both).data,
              bit_builder{}.bits(1, 1).bits(1, 1).bits(1, 1).bits(1, 1).bits(0, 7).result());
}

TEST(DeltaLeaves, EachFieldOfEachKindRoundTripsAlone)
{
    const Leaves base = some_leaves();
    const Leaves target = other_leaves();
    // Sizes of each field's ordinary encoding, in description order (the
    // string's depends on where it starts: below).
    const std::array<std::size_t, 9> sizes = {1, 32, 8, 2, 7, 15, 29, 32, 64};
    for (std::size_t field = 0; field < 10; ++field) {
        Leaves current = base;
        switch (field) {
        case 0: current.flag = target.flag; break;
        case 1: current.score = target.score; break;
        case 2: current.level = target.level; break;
        case 3: current.team = target.team; break;
        case 4: current.health = target.health; break;
        case 5: current.x = target.x; break;
        case 6: current.orientation = target.orientation; break;
        case 7: current.speed = target.speed; break;
        case 8: current.mass = target.mass; break;
        case 9: current.name = target.name; break;
        }
        SCOPED_TRACE(field);
        if (field != 9) {
            EXPECT_EQ(bitrep::delta_bit_size(base, current), 1 + 9 + 1 + sizes[field]);
        } else {
            // The length in width(16) = 5 bits after 1 + 9 + 1 bits ends at
            // bit 16, already aligned: no padding, then the bytes.
            EXPECT_EQ(bitrep::delta_bit_size(base, current), 1 + 9 + 1 + 5 + pad(16) + 8 * target.name.size());
        }
        Leaves start = target;
        start.flag = !current.flag;
        expect_round_trip(base, current, start);
    }
    // Everything at once.
    expect_round_trip(base, target, Leaves{});
    expect_round_trip(target, base, Leaves{});
}

TEST(DeltaLeaves, WhatAReceiverDecodedIsUnchangedOnTheWireAndEncodesAlike)
{
    // A receiver's copy must count as the sender's value (no resend, a
    // one-bit delta) and encode to the same delta, or replicated state
    // hashed on both ends would differ. Near ties of a quaternion's two
    // largest components are where that used to fail.
    std::mt19937_64 rng(2211);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_real_distribution<float> spread(-4.0f, 4.0f);
    const float quantum = 2.0f * 0.707106781f / 510.0f;
    const Cube base{};
    for (int i = 0; i < 4000; ++i) {
        std::array<float, 4> c{normal(rng), normal(rng), normal(rng), normal(rng)};
        const std::size_t a = static_cast<std::size_t>(rng() % 4);
        const std::size_t b = (a + 1 + static_cast<std::size_t>(rng() % 3)) % 4;
        c[a] = std::fabs(c[a]) + 1.0f;
        c[b] = (rng() % 2 ? -1.0f : 1.0f) * (c[a] + spread(rng) * quantum);
        const float length = std::sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3]);
        Cube current{};
        current.x = spread(rng) * 20.0f;
        current.orientation = Quat{c[0] / length, c[1] / length, c[2] / length, c[3] / length};
        const encoded sent = encode_delta(base, current);
        Cube received{};
        ASSERT_TRUE(read_delta_status(sent.data, base, received));
        ASSERT_EQ(encode_delta(base, received).data, sent.data) << "rotation " << i;
        ASSERT_TRUE(bitrep::same_on_wire<scope::all>(current, received)) << "rotation " << i;
        ASSERT_EQ(bitrep::delta_bit_size(current, received), 1u) << "rotation " << i;
    }
}

TEST(DeltaLeaves, EnumsSendTheirIndex)
{
    const encoded e = encode_delta(Team::red, Team::green);
    EXPECT_EQ(e.bits, 1u + 2u);
    EXPECT_EQ(e.data, bit_builder{}.bits(1, 1).bits(2, 2).result());
    EXPECT_EQ(replicate(Team::red, Team::green, Team::blue), Team::green);
    EXPECT_EQ(replicate(Team::green, Team::green, Team::blue), Team::green);
}

TEST(DeltaLeaves, FloatsCompareBitPatternsSoNegativeZeroIsAChange)
{
    struct F {
        float f;
        double d;
    };
    const F positive{0.0f, 0.0};
    const F negative{-0.0f, -0.0};
    EXPECT_EQ(bitrep::delta_bit_size(positive, negative), 1 + (1 + 32) + (1 + 64));
    EXPECT_EQ(bitrep::delta_bit_size(negative, positive), 1 + (1 + 32) + (1 + 64));
    const F back = replicate(positive, negative, F{1.0f, 1.0});
    EXPECT_EQ(std::bit_cast<std::uint32_t>(back.f), 0x80000000u);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(back.d), 0x8000000000000000ull);
    const F forth = replicate(negative, positive, F{1.0f, 1.0});
    EXPECT_EQ(std::bit_cast<std::uint32_t>(forth.f), 0u);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(forth.d), 0u);
}

TEST(DeltaLeaves, NanIsComparedAndSentByItsBitPattern)
{
    struct F {
        float f;
        double d;
    };
    const F quiet{std::bit_cast<float>(0x7FC00000u), std::bit_cast<double>(0x7FF8000000000000ull)};
    const F payload{std::bit_cast<float>(0x7FC00123u), std::bit_cast<double>(0xFFF8000000000456ull)};
    // The same NaN pattern is unchanged (NaN != NaN does not matter).
    EXPECT_EQ(bitrep::delta_bit_size(quiet, quiet), 1u);
    const F same = replicate(quiet, quiet, F{1.0f, 1.0});
    EXPECT_EQ(std::bit_cast<std::uint32_t>(same.f), 0x7FC00000u);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(same.d), 0x7FF8000000000000ull);
    // Another payload is a change, delivered bit-exactly.
    EXPECT_EQ(bitrep::delta_bit_size(quiet, payload), 1 + (1 + 32) + (1 + 64));
    const F back = replicate(quiet, payload, F{1.0f, 1.0});
    EXPECT_EQ(std::bit_cast<std::uint32_t>(back.f), 0x7FC00123u);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(back.d), 0xFFF8000000000456ull);
    // A number becoming NaN, and back.
    const F number{1.5f, 2.5};
    EXPECT_EQ(std::bit_cast<std::uint32_t>(replicate(number, payload).f), 0x7FC00123u);
    EXPECT_EQ(replicate(payload, number).d, 2.5);
}

TEST(DeltaLeaves, QuaternionsCompareTheirSmallestThree)
{
    const Quat a = about_z(0.5f);
    const Quat b = about_z(0.9f);
    EXPECT_EQ(bitrep::delta_bit_size(a, b), 1u + 29u);
    const Quat back = replicate(a, b, about_z(2.0f));
    EXPECT_TRUE(equal_on_wire(back, b));
    // q and -q are one rotation and encode identically: unchanged.
    const Quat negated{-a.x, -a.y, -a.z, -a.w};
    EXPECT_EQ(bitrep::delta_bit_size(a, negated), 1u);
    // A rotation by far less than half a component quantum (2^-8 * 0.707
    // per step) changes no quantum: unchanged, and the reader keeps a.
    const Quat nudged = about_z(0.5f + 1e-5f);
    ASSERT_NE(nudged, a);
    EXPECT_EQ(bitrep::delta_bit_size(a, nudged), 1u);
    const Quat kept = replicate(a, nudged, b);
    EXPECT_EQ(kept, a);
}

TEST(DeltaLeaves, BoundedStringsChangeAsAWhole)
{
    using S = bounded_string<16>;
    const S empty;
    const S text(std::string_view("hello"));
    // length in width(16) = 5 bits: 1 + 5 = 6, padding to 8, 5 bytes. The
    // bytes primitive aligns even for no bytes.
    EXPECT_EQ(bitrep::delta_bit_size(empty, text), 1u + 5u + pad(6) + 40u);
    EXPECT_EQ(pad(6), 2u);
    EXPECT_EQ(bitrep::delta_bit_size(text, empty), 1u + 5u + pad(6));
    EXPECT_EQ(replicate(empty, text, S(std::string_view("zzz"))), text);
    EXPECT_EQ(replicate(text, empty, S(std::string_view("zzz"))), empty);
}

// ---------------------------------------------------------------- quantized

TEST(DeltaQuantized, AChangeWithinTheSameQuantumIsUnchangedAndTheReaderKeepsTheBaseline)
{
    const oracle::quantizer q(0.0f, 10.0f, 0.01f);
    ASSERT_EQ(q.max_integer, 1000u);
    const Unit base = q.dequantize(500);
    const Unit current = base.value() + 0.003f; // less than half a quantum
    ASSERT_NE(current.value(), base.value());
    ASSERT_EQ(q.quantize(current.value()), 500u);
    EXPECT_EQ(bitrep::delta_bit_size(base, current), 1u);
    const Unit out = replicate(base, current, Unit{9.0f});
    EXPECT_EQ(std::bit_cast<std::uint32_t>(out.value()), std::bit_cast<std::uint32_t>(base.value()));
}

TEST(DeltaQuantized, AValueOutsideTheRangeIsRefusedNamingTheField)
{
    struct Body {
        Coord x;
        Coord y;
    };
    const Body base{Coord{1.0f}, Coord{2.0f}};
    Body current = base;
    current.y = 250.0f;
    bytes out(16);
    bitrep::write_stream stream(out);
    EXPECT_FALSE(bitrep::write_delta(stream, base, current));
    const bitrep::status st = stream.failure_status("Body");
    EXPECT_EQ(st.code(), bitrep::error::value_out_of_range) << st.message();
    EXPECT_EQ(st.field_path(), "Body.#1") << st.message(); // a local struct: positions
}

TEST(DeltaQuantized, AValueBeyondTheTopIsAChangeThatIsRefusedNotTheBaselinesQuantum)
{
    // 5000 and 100 would both be sent as the top quantum of [-100, 100]:
    // comparing quanta alone would call it unchanged and the receiver would
    // keep 100 without a word.
    const Coord top{100.0f};
    for (float outside : {5000.0f, std::numeric_limits<float>::infinity()}) {
        bytes out(16);
        bitrep::write_stream stream(out);
        EXPECT_FALSE(bitrep::write_delta(stream, top, Coord{outside})) << outside;
        EXPECT_EQ(stream.failure_status("x").code(), bitrep::error::value_out_of_range) << outside;
    }
    using ClampedCoord = bitrep::clamped<Coord>;
    EXPECT_EQ(bitrep::delta_bit_size(ClampedCoord{100.0f}, ClampedCoord{5000.0f}), 1u); // the same quantum
}

TEST(DeltaQuantized, AChangeOfOneQuantumIsSentAsTheNewQuantum)
{
    const oracle::quantizer q(0.0f, 10.0f, 0.01f);
    const Unit base = q.dequantize(500);
    const Unit current = base.value() + 0.007f;
    ASSERT_EQ(q.quantize(current.value()), 501u);
    const encoded e = encode_delta(base, current);
    EXPECT_EQ(e.bits, 1u + 10u);
    EXPECT_EQ(e.data, bit_builder{}.bits(1, 1).bits(501, 10).result());
    EXPECT_EQ(replicate(base, current).value(), q.dequantize(501));
}

TEST(DeltaQuantized, SubQuantumDriftNeverAccumulatesAgainstTheReceiversReconstruction)
{
    struct Body {
        Coord x;
        delta_small<Unit, 4> speed;
    };
    const oracle::quantizer qx(-100.0f, 100.0f, 0.01f);
    const oracle::quantizer qs(0.0f, 10.0f, 0.01f);

    Body sender;
    sender.x = -3.0f;
    sender.speed = 1.0f;
    // The receiver starts from the full encoding, as a first snapshot would.
    Body receiver = oracle::round_trip(sender);
    std::size_t sends = 0;
    std::size_t quantum_changes = 0;
    std::uint32_t previous_x = qx.quantize(sender.x.value());
    std::uint32_t previous_s = qs.quantize(sender.speed.value());
    for (int tick = 0; tick < 2000; ++tick) {
        // Steps of 0.4 and 0.3 quanta: never a whole quantum at once.
        sender.x += 0.004f;
        sender.speed += (tick / 500) % 2 == 0 ? 0.003f : -0.003f;
        const std::uint32_t now_x = qx.quantize(sender.x.value());
        const std::uint32_t now_s = qs.quantize(sender.speed.value());
        const bool moved = now_x != previous_x || now_s != previous_s;
        quantum_changes += moved ? 1 : 0;
        previous_x = now_x;
        previous_s = now_s;

        const encoded e = encode_delta<scope::replication>(receiver, sender);
        sends += e.bits > 1 ? 1 : 0;
        Body next;
        ASSERT_TRUE(read_delta_status<scope::replication>(e.data, receiver, next));
        receiver = next;
        ASSERT_EQ(receiver.x.value(), qx.dequantize(now_x)) << "tick " << tick;
        ASSERT_EQ(receiver.speed.value(), qs.dequantize(now_s)) << "tick " << tick;
    }
    // A delta went out exactly on the ticks where a quantum changed.
    EXPECT_EQ(sends, quantum_changes);
    EXPECT_GT(sends, 700u);
    EXPECT_LT(sends, 2000u);
    // After 2000 steps of 0.004 the receiver is where quantizing the sender puts it.
    EXPECT_NEAR(receiver.x.value(), -3.0f + 8.0f, 0.01f);
}

// ---------------------------------------------------------------- optionals

TEST(DeltaOptional, AbsentToPresentSendsThePresenceBitAndTheValueInFull)
{
    const std::optional<Item> absent;
    const std::optional<Item> present = Item{5, 3};
    const encoded e = encode_delta(absent, present);
    EXPECT_EQ(e.bits, 1u + 1u + 8u + 6u);
    EXPECT_EQ(e.data, bit_builder{}.bits(1, 1).bits(1, 1).bits(5, 8).bits(3 - 1, 6).result());
    EXPECT_TRUE(equal_on_wire(replicate(absent, present), present));
    EXPECT_TRUE(equal_on_wire(replicate(absent, present, std::optional<Item>(Item{9, 9})), present));
}

TEST(DeltaOptional, PresentToAbsentIsTwoBits)
{
    const std::optional<Item> present = Item{5, 3};
    const std::optional<Item> absent;
    const encoded e = encode_delta(present, absent);
    EXPECT_EQ(e.bits, 2u);
    EXPECT_EQ(e.data, bit_builder{}.bits(1, 1).bits(0, 1).result());
    EXPECT_FALSE(replicate(present, absent, std::optional<Item>(Item{1, 1})).has_value());
}

TEST(DeltaOptional, BothPresentSendsTheValuesDeltaAgainstTheBaselines)
{
    const std::optional<Item> base = Item{5, 3};
    const std::optional<Item> current = Item{5, 4};
    // changed, present, kind unchanged, count changed + 6 bits.
    const encoded e = encode_delta(base, current);
    EXPECT_EQ(e.bits, 1u + 1u + 1u + 1u + 6u);
    EXPECT_EQ(e.data, bit_builder{}.bits(1, 1).bits(1, 1).bits(0, 1).bits(1, 1).bits(4 - 1, 6).result());
    EXPECT_TRUE(equal_on_wire(replicate(base, current), current));
    // A nested struct inside an optional.
    std::optional<Leaves> lb = some_leaves();
    std::optional<Leaves> lc = lb;
    lc->score = 5;
    EXPECT_EQ(bitrep::delta_bit_size(lb, lc), 1u + 1u + (9u + 1u + 32u));
    EXPECT_TRUE(equal_on_wire(replicate(lb, lc, std::optional<Leaves>(other_leaves())), lc));
    EXPECT_EQ(bitrep::delta_bit_size(lb, lb), 1u);
}

// ---------------------------------------------------------------- std::array

TEST(DeltaArray, OneChangeUsesTheShorterOfTheIndexListAndTheBitmask)
{
    using A = std::array<ranged<int, 0, 7>, 6>;
    const A base{1, 2, 3, 4, 5, 6};
    const struct {
        const char* name;
        std::size_t index;
        int value;
        std::size_t bits;
        bytes data;
    } cases[] = {
        // list: count (offset from 1, span 5: 3 bits) + int_relative(1) = 1
        // -> 4 bits < 6 for a bitmask.
        {"an early change uses the index list", 0, 7, 1u + 1u + 3u + 1u + 3u,
         bit_builder{}.bits(1, 1).bits(1, 1).bits(0, 3).bits(1, 1).bits(7, 3).result()},
        // list: 3 + int_relative(6) = 3 + 5 = 8 > 6: bitmask.
        {"a late change uses the bitmask", 5, 0, 1u + 1u + 6u + 3u,
         bit_builder{}.bits(1, 1).bits(0, 1).bits(0, 5).bits(1, 1).bits(0, 3).result()},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        A current = base;
        current[c.index] = c.value;
        const encoded e = encode_delta(base, current);
        EXPECT_EQ(e.bits, c.bits);
        EXPECT_EQ(e.data, c.data);
        EXPECT_TRUE(equal_on_wire(replicate(base, current, A{}), current));
    }
}

TEST(DeltaArray, IndexListInterleavesEachIndexWithItsElement)
{
    using A = std::array<std::uint8_t, 16>;
    A base{};
    A current{};
    current[5] = 0xAB;
    current[9] = 0xCD;
    // count 2 (offset 1, span 15: 4 bits); index 5 = int_relative(-1 -> 5),
    // d = 6: flags 0 1 and d - 2 = 4 in 3 bits; element; index 9, d = 4:
    // 0 1 and 2 in 3 bits; element. List 4 + 5 + 5 = 14 < 16.
    const bytes expected = bit_builder{}
                               .bits(1, 1)
                               .bits(1, 1)
                               .bits(1, 4)
                               .bits(0, 1).bits(1, 1).bits(4, 3)
                               .bits(0xAB, 8)
                               .bits(0, 1).bits(1, 1).bits(2, 3)
                               .bits(0xCD, 8)
                               .result();
    const encoded e = encode_delta(base, current);
    EXPECT_EQ(e.bits, 1u + 1u + 14u + 16u);
    EXPECT_EQ(e.data, expected);
    A start;
    start.fill(0x11);
    EXPECT_EQ(replicate(base, current, start), current);
}

TEST(DeltaArray, BitmaskFollowsEachSetBitWithItsElement)
{
    using A = std::array<std::uint8_t, 4>;
    const A base{1, 2, 3, 4};
    const A current{1, 9, 3, 8};
    // list: count (span 3: 2 bits) + int_relative(2) 5 + int_relative(2) 5 = 12 > 4.
    const bytes expected =
        bit_builder{}.bits(1, 1).bits(0, 1).bits(0, 1).bits(1, 1).bits(9, 8).bits(0, 1).bits(1, 1).bits(8, 8).result();
    const encoded e = encode_delta(base, current);
    EXPECT_EQ(e.bits, 1u + 1u + 4u + 16u);
    EXPECT_EQ(e.data, expected);
    EXPECT_EQ(replicate(base, current, A{7, 7, 7, 7}), current);
}

TEST(DeltaArray, ATieBetweenTheFormsGoesToTheBitmask)
{
    using A = std::array<std::uint8_t, 8>;
    const A base{};
    // Indices 0..3 changed: list 3 (count) + 4 x 1 = 7 < 8: list.
    A four{};
    for (std::size_t i = 0; i < 4; ++i)
        four[i] = 1;
    const encoded list = encode_delta(base, four);
    EXPECT_TRUE(bit_at(list.data, 1));
    EXPECT_EQ(list.bits, 1u + 1u + 7u + 4u * 8u);
    EXPECT_EQ(replicate(base, four), four);
    // Indices 0..4 changed: list 3 + 5 = 8 = bitmask 8: bitmask.
    A five = four;
    five[4] = 1;
    const encoded mask = encode_delta(base, five);
    EXPECT_FALSE(bit_at(mask.data, 1));
    EXPECT_EQ(mask.bits, 1u + 1u + 8u + 5u * 8u);
    EXPECT_EQ(replicate(base, five), five);
}

TEST(DeltaArray, OfStructsSendsEachChangedElementAsItsFieldDeltas)
{
    using A = std::array<Item, 3>;
    const A base{Item{1, 1}, Item{2, 2}, Item{3, 3}};
    A current = base;
    current[1].kind = 20;
    // list: count (span 2: 2 bits) + int_relative(2) = 5 -> 7 > 3: bitmask
    // 3 bits, then the element: kind changed 1 + 8, count unchanged 1.
    EXPECT_EQ(bitrep::delta_bit_size(base, current), 1u + 1u + 3u + (1u + 8u + 1u));
    A start{Item{9, 9}, Item{9, 9}, Item{9, 9}};
    EXPECT_TRUE(equal_on_wire(replicate(base, current, start), current));
}

// ---------------------------------------------------------------- bounded_vector

TEST(DeltaVector, GrowingSendsTheSizeAndTheNewElementsInFull)
{
    using V = bounded_vector<std::uint8_t, 8>; // size: 4 bits
    const V base{1, 2};
    const V current{1, 2, 3};
    // size, then the 2 common elements (list count 2 bits + nothing = 2, a
    // tie with the 2-bit mask: bitmask, both 0), then element 2 in full.
    const encoded e = encode_delta(base, current);
    EXPECT_EQ(e.bits, 1u + 4u + 1u + 2u + 8u);
    EXPECT_EQ(e.data, bit_builder{}.bits(1, 1).bits(3, 4).bits(0, 1).bits(0, 2).bits(3, 8).result());
    EXPECT_EQ(replicate(base, current, V{9, 9, 9, 9, 9}), current);
}

TEST(DeltaVector, ShrinkingSendsTheSizeAndNoElements)
{
    using V = bounded_vector<std::uint8_t, 8>;
    const V base{1, 2, 3};
    const V current{1, 2};
    EXPECT_EQ(bitrep::delta_bit_size(base, current), 1u + 4u + 1u + 2u);
    EXPECT_EQ(replicate(base, current, V{9, 9, 9, 9, 9}), current);
    // Shrinking and changing a kept element: list (count over [0, 2]:
    // 2 bits, int_relative(1) = 1) is 3 bits, more than the 2-bit mask.
    const V changed{7};
    EXPECT_EQ(bitrep::delta_bit_size(base, changed), 1u + 4u + 1u + 1u + 8u);
    EXPECT_EQ(replicate(base, changed, V{9, 9, 9, 9, 9}), changed);
}

TEST(DeltaVector, SameSizeWithChangesPicksTheCheaperForm)
{
    using V = bounded_vector<std::uint8_t, 8>;
    const V base{1, 2, 3, 4, 5, 6, 7, 8};
    V late = base;
    late[7] = 80;
    // list: count over [0, 8] 4 bits + int_relative(8) = 8 -> 12 > 8: bitmask.
    const encoded mask = encode_delta(base, late);
    EXPECT_FALSE(bit_at(mask.data, 5));
    EXPECT_EQ(mask.bits, 1u + 4u + 1u + 8u + 8u);
    EXPECT_EQ(replicate(base, late), late);
    V early = base;
    early[0] = 10;
    // list: 4 + 1 = 5 < 8.
    const encoded list = encode_delta(base, early);
    EXPECT_TRUE(bit_at(list.data, 5));
    EXPECT_EQ(list.bits, 1u + 4u + 1u + 4u + 1u + 8u);
    EXPECT_EQ(list.data, bit_builder{}.bits(1, 1).bits(8, 4).bits(1, 1).bits(1, 4).bits(1, 1).bits(10, 8).result());
    EXPECT_EQ(replicate(base, early, V{}), early);
}

TEST(DeltaVector, EmptyToNonEmptyHasNoChoiceBitAndBackIsTheSizeAlone)
{
    using V = bounded_vector<Item, 8>;
    const V empty;
    const V full{Item{1, 2}, Item{3, 4}, Item{5, 6}};
    // No element in common: no choice bit, the elements in full (14 bits each).
    EXPECT_EQ(bitrep::delta_bit_size(empty, full), 1u + 4u + 3u * 14u);
    EXPECT_TRUE(equal_on_wire(replicate(empty, full, V{Item{9, 9}}), full));
    EXPECT_EQ(bitrep::delta_bit_size(full, empty), 1u + 4u);
    EXPECT_TRUE(replicate(full, empty, full).empty());
}

TEST(DeltaVector, ElementsAreStructDeltasAndUnchangedVectorsOneBit)
{
    using V = bounded_vector<Item, 8>;
    const V base{Item{1, 2}, Item{3, 4}, Item{5, 6}};
    V current = base;
    current[2].count = 60;
    // common 3: list = count 2 bits + int_relative(3) 5 = 7 > 3: bitmask 3,
    // then kind unchanged 1 + count changed 1 + 6.
    EXPECT_EQ(bitrep::delta_bit_size(base, current), 1u + 4u + 1u + 3u + (1u + 1u + 6u));
    EXPECT_TRUE(equal_on_wire(replicate(base, current, V{Item{9, 9}}), current));
    EXPECT_EQ(bitrep::delta_bit_size(base, base), 1u);
}

// ---------------------------------------------------------------- nested structs

TEST(DeltaNested, DeepChangesRoundTripInWireSpace)
{
    Nested base{some_leaves(), {}, Team::red};
    base.containers.items.push_back(Item{1, 1});
    base.containers.extra = other_leaves();
    Nested current = base;
    current.leaves.x = -99.99f;
    current.containers.items.push_back(Item{2, 2});
    current.containers.slots[3] = 5;
    current.containers.held = Item{7, 7};
    current.containers.extra->orientation = about_z(1.25f);
    current.team = Team::blue;
    Nested start;
    start.containers.items = bounded_vector<Item, 8>{Item{4, 4}, Item{4, 4}, Item{4, 4}};
    start.containers.held = Item{8, 8};
    expect_round_trip(base, current, start);
    expect_round_trip(current, base, start);
    expect_round_trip(Nested{}, current, start);
}

// ---------------------------------------------------------------- entity_array

TEST(DeltaEntities, CreateDestroyAndChangeRoundTrip)
{
    using E = entity_array<Cube, 16>;
    E base;
    base.emplace(2, cube_at(2.0f));
    base.emplace(5, cube_at(5.0f));
    base.emplace(9, cube_at(9.0f));
    E current = base;
    current.emplace(0, cube_at(1.0f)); // created
    current.erase(5);                  // destroyed
    current[9].y = 33.0f;              // changed
    E start;
    start.emplace(5, cube_at(50.0f));
    start.emplace(7, cube_at(70.0f));
    const E out = replicate(base, current, start);
    EXPECT_TRUE(equal_on_wire(out, current));
    EXPECT_TRUE(out.contains(0));
    EXPECT_FALSE(out.contains(5));
    EXPECT_FALSE(out.contains(7));
    EXPECT_EQ(out.count(), 3u);
    EXPECT_EQ(out[9].y.value(), oracle::quantizer(-100.0f, 100.0f, 0.01f).dequantize(13300));
    EXPECT_EQ(bitrep::delta_bit_size(current, current), 1u);
}

TEST(DeltaEntities, ACreatedEntityIsSentInFullAndADestroyedOneAsItsPresenceBit)
{
    using E = entity_array<Slot, 4>;
    E base;
    base.emplace(0, Slot{50, true});
    E created = base;
    created.emplace(1, Slot{70, false});
    // list: count (span 3: 2 bits) + int_relative(2) 5 = 7 > 4: bitmask,
    // then presence 1 + the Slot in full (7 + 1).
    const encoded c = encode_delta(base, created);
    EXPECT_EQ(c.bits, 1u + 1u + 4u + (1u + 8u));
    EXPECT_EQ(c.data,
              bit_builder{}.bits(1, 1).bits(0, 1).bits(0, 1).bits(1, 1).bits(1, 1).bits(70, 7).bits(0, 1).bits(0, 2).result());
    EXPECT_TRUE(equal_on_wire(replicate(base, created), created));
    // Destroying slot 0: list 2 + 1 = 3 < 4, then the cleared presence bit.
    E destroyed;
    const encoded d = encode_delta(base, destroyed);
    EXPECT_EQ(d.bits, 1u + 1u + 2u + 1u + 1u);
    EXPECT_EQ(d.data, bit_builder{}.bits(1, 1).bits(1, 1).bits(0, 2).bits(1, 1).bits(0, 1).result());
    EXPECT_EQ(replicate(base, destroyed, created).count(), 0u);
}

TEST(DeltaEntities, OneChangeAmongAThousandSlotsUsesTheIndexListAtItsDocumentedCost)
{
    using E = entity_array<Slot, 1024>;
    E base;
    for (std::size_t i = 0; i < 1024; i += 2)
        base.emplace(i, Slot{static_cast<int>(i % 100), true});
    for (std::size_t index : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{22}, std::size_t{700},
                              std::size_t{1023}}) {
        SCOPED_TRACE(index);
        E current = base;
        std::size_t element = 0;
        if (current.contains(index)) {
            current[index].hp = 99 - static_cast<int>(index % 100); // changed: presence 1 + hp (1 + 7) + alive 1
            element = 1 + (1 + 7) + 1;
        } else {
            current.emplace(index, Slot{1, false}); // created: presence 1 + 8 in full
            element = 1 + 8;
        }
        const std::size_t count_bits = width(1024 - 1);
        ASSERT_EQ(count_bits, 10u);
        const std::size_t expected = 1 + 1 + count_bits + int_relative_cost(index + 1) + element;
        EXPECT_EQ(bitrep::detail::int_relative_bits(index + 1), int_relative_cost(index + 1));
        const encoded e = encode_delta(base, current);
        EXPECT_EQ(e.bits, expected);
        EXPECT_TRUE(bit_at(e.data, 1)) << "the choice bit should say: index list";
        EXPECT_TRUE(equal_on_wire(replicate(base, current), current));
    }
}

TEST(DeltaEntities, AllSlotsChangedUsesTheBitmaskAtItsDocumentedCost)
{
    using E = entity_array<Slot, 1024>;
    const E base;
    E created;
    for (std::size_t i = 0; i < 1024; ++i)
        created.emplace(i, Slot{static_cast<int>(i % 101), i % 3 == 0});
    // Every slot created: presence 1 + 8 in full.
    const encoded e = encode_delta(base, created);
    EXPECT_EQ(e.bits, 1u + 1u + 1024u + 1024u * (1u + 8u));
    EXPECT_FALSE(bit_at(e.data, 1)) << "the choice bit should say: bitmask";
    EXPECT_TRUE(equal_on_wire(replicate(base, created), created));
    // Every slot's hp changed: presence 1 + hp (1 + 7) + alive 1.
    E changed = created;
    for (std::size_t i = 0; i < 1024; ++i)
        changed[i].hp = (changed[i].hp + 1) % 101;
    EXPECT_EQ(bitrep::delta_bit_size(created, changed), 1u + 1u + 1024u + 1024u * (1u + 1u + 7u + 1u));
    // Every slot destroyed: presence 0 each.
    EXPECT_EQ(bitrep::delta_bit_size(created, base), 1u + 1u + 1024u + 1024u);
    EXPECT_EQ(replicate(created, base, changed).count(), 0u);
}

TEST(DeltaEntities, InsideAParentTheUnchangedFieldsCostOneBitEach)
{
    World base = some_world();
    World current = base;
    current.cubes[6].interacting = true;
    // World's carried fields in scope::all: 8 (cache is transient). cubes:
    // changed 1, 16 slots, list = count 4 bits + int_relative(7) = 8 ->
    // 12 < 16: list; element: presence 1, x, y, z, orientation unchanged
    // 1 each, interacting 1 + 1.
    const std::size_t cubes = 1 + 1 + 4 + 8 + (1 + 4 + 2);
    EXPECT_EQ(bitrep::delta_bit_size(base, current), 1 + 7 + cubes);
    World start = changed_world();
    EXPECT_TRUE(equal_on_wire(replicate(base, current, start), current));
}

// Capacities above 4096 find changed elements again while writing instead
// of remembering their indices: both forms, every position.
TEST(DeltaEntities, ContainersAboveFourThousandElementsUseBothFormsCorrectly)
{
    using V = bounded_vector<std::uint8_t, 5000>; // size: 13 bits
    V base;
    for (int i = 0; i < 5000; ++i)
        base.push_back(static_cast<std::uint8_t>(i));
    V all = base;
    for (auto& b : all)
        b = static_cast<std::uint8_t>(b + 1);
    EXPECT_EQ(bitrep::delta_bit_size(base, all), 1u + 13u + 1u + 5000u + 5000u * 8u);
    EXPECT_EQ(replicate(base, all), all);
    for (std::size_t index : {std::size_t{0}, std::size_t{4097}, std::size_t{4999}}) {
        SCOPED_TRACE(index);
        V one = base;
        one[index] = static_cast<std::uint8_t>(one[index] ^ 0xFF);
        const encoded e = encode_delta(base, one);
        EXPECT_EQ(e.bits, 1u + 13u + 1u + width(5000) + int_relative_cost(index + 1) + 8u);
        EXPECT_EQ(replicate(base, one), one);
    }
    // The last element changed, with the bitmask (a change every 4th element).
    V spread = base;
    for (std::size_t i = 3; i < 5000; i += 4)
        spread[i] = 0;
    spread[4999] = 1;
    EXPECT_EQ(replicate(base, spread), spread);

    using E = entity_array<Slot, 5000>;
    E slots;
    for (std::size_t i = 0; i < 5000; ++i)
        slots.emplace(i, Slot{static_cast<int>(i % 100), true});
    E none;
    EXPECT_EQ(bitrep::delta_bit_size(slots, none), 1u + 1u + 5000u + 5000u);
    EXPECT_EQ(replicate(slots, none).count(), 0u);
}

TEST(DeltaVector, AVectorOverItsBoundIsRefusedByEveryWritingStreamWithoutOverrunningAnything)
{
    // Both sides over the bound (40 > 4 elements), every element different:
    // the measure that delta_bit_size (and a replication server's budget)
    // runs must refuse it as the writer does, not walk 40 changed elements
    // through room for 4.
    using V = bounded_vector<std::uint8_t, 4>;
    V base;
    V current;
    for (int i = 0; i < 40; ++i) {
        base.push_back(static_cast<std::uint8_t>(i));
        current.push_back(static_cast<std::uint8_t>(i + 1));
    }
    bytes out(64);
    bitrep::write_stream writer(out);
    EXPECT_FALSE(bitrep::write_delta(writer, base, current));
    EXPECT_EQ(writer.failure_status("V").code(), bitrep::error::value_out_of_range);
    bitrep::measure_stream measure;
    EXPECT_FALSE(bitrep::write_delta(measure, base, current));
    EXPECT_EQ(measure.failure_status("V").code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(bitrep::delta_bit_size(base, current), 1u); // the changed bit, then the refusal
}

// ---------------------------------------------------------------- delta_small

namespace {
using SmallUnit = delta_small<Unit, 4>;         // codes 0..7: 3 bits
using SmallTemperature = delta_small<Temperature, 2>; // codes 0..3: 2 bits

const oracle::quantizer unit_quanta(0.0f, 10.0f, 0.01f);

SmallUnit unit_at(std::uint32_t quantum) { return SmallUnit(unit_quanta.dequantize(quantum)); }

/// The code of a step: -K..-1 -> 0..K-1, 1..K -> K..2K-1.
std::uint64_t code_of(int step, int k) { return step < 0 ? static_cast<std::uint64_t>(k + step) : static_cast<std::uint64_t>(k - 1 + step); }
} // namespace

TEST(DeltaSmall, AStepWithinMaxStepCostsChangedFlagAndTheCode)
{
    const std::size_t step_cost = 1 + 1 + width(2 * 4 - 1);
    ASSERT_EQ(step_cost, 5u);
    const SmallUnit base = unit_at(500);
    for (int step : {-4, -3, -2, -1, 1, 2, 3, 4}) {
        SCOPED_TRACE(step);
        const SmallUnit current = unit_at(static_cast<std::uint32_t>(500 + step));
        const encoded e = encode_delta(base, current);
        EXPECT_EQ(e.bits, step_cost);
        EXPECT_EQ(e.data, bit_builder{}.bits(1, 1).bits(1, 1).bits(code_of(step, 4), 3).result());
        const SmallUnit out = replicate(base, current, unit_at(0));
        EXPECT_EQ(out.value(), unit_quanta.dequantize(static_cast<std::uint32_t>(500 + step)));
    }
}

TEST(DeltaSmall, CodesMapTheExtremeStepsToTheEndsOfTheirRange)
{
    // -K is code 0, +K is code 2K - 1, -1 is K - 1, +1 is K.
    EXPECT_EQ(encode_delta(unit_at(500), unit_at(496)).data, bit_builder{}.bits(1, 1).bits(1, 1).bits(0, 3).result());
    EXPECT_EQ(encode_delta(unit_at(500), unit_at(504)).data, bit_builder{}.bits(1, 1).bits(1, 1).bits(7, 3).result());
    EXPECT_EQ(encode_delta(unit_at(500), unit_at(499)).data, bit_builder{}.bits(1, 1).bits(1, 1).bits(3, 3).result());
    EXPECT_EQ(encode_delta(unit_at(500), unit_at(501)).data, bit_builder{}.bits(1, 1).bits(1, 1).bits(4, 3).result());
}

TEST(DeltaSmall, MaxStepPlusOneFallsBackToTheAbsoluteValue)
{
    for (int step : {-5, 5, -300, 300}) {
        SCOPED_TRACE(step);
        const auto to = static_cast<std::uint32_t>(500 + step);
        const encoded e = encode_delta(unit_at(500), unit_at(to));
        EXPECT_EQ(e.bits, 1u + 1u + 10u);
        EXPECT_EQ(e.data, bit_builder{}.bits(1, 1).bits(0, 1).bits(to, 10).result());
        EXPECT_EQ(replicate(unit_at(500), unit_at(to)).value(), unit_quanta.dequantize(to));
    }
}

TEST(DeltaSmall, StepsAtTheEdgesOfTheRange)
{
    // Reaching each end and leaving it; beyond the range, a clamped
    // annotation steps to the last quantum (a step of 1 from 999).
    const std::pair<std::uint32_t, std::uint32_t> moves[] = {{3, 0}, {0, 4}, {996, 1000}, {1000, 996}, {1, 0}, {1000, 999}};
    for (const auto& [from, to] : moves) {
        SCOPED_TRACE(testing::Message() << from << " -> " << to);
        EXPECT_EQ(bitrep::delta_bit_size(unit_at(from), unit_at(to)), 5u);
        EXPECT_EQ(replicate(unit_at(from), unit_at(to)).value(), unit_quanta.dequantize(to));
    }
    using ClampedSmallUnit = delta_small<bitrep::clamped<Unit>, 4>;
    const auto clamped_at = [](std::uint32_t q) { return ClampedSmallUnit(unit_quanta.dequantize(q)); };
    const ClampedSmallUnit beyond(12.0f);
    EXPECT_EQ(bitrep::delta_bit_size(clamped_at(999), beyond), 5u);
    EXPECT_EQ(replicate(clamped_at(999), beyond).value(), 10.0f);
    const ClampedSmallUnit below(-1.0f);
    EXPECT_EQ(bitrep::delta_bit_size(clamped_at(2), below), 5u);
    EXPECT_EQ(replicate(clamped_at(2), below).value(), 0.0f);
}

TEST(DeltaSmall, AValueBeyondTheRangeIsRefusedEvenOneStepAway)
{
    bytes out(16);
    bitrep::write_stream above(out);
    EXPECT_FALSE(bitrep::write_delta(above, unit_at(999), SmallUnit(12.0f)));
    EXPECT_EQ(above.failure_status("x").code(), bitrep::error::value_out_of_range);
    bitrep::write_stream below(out);
    EXPECT_FALSE(bitrep::write_delta(below, unit_at(2), SmallUnit(-1.0f)));
    EXPECT_EQ(below.failure_status("x").code(), bitrep::error::value_out_of_range);
}

TEST(DeltaSmall, OverRangedIntegers)
{
    const std::size_t step_cost = 1 + 1 + width(2 * 2 - 1);
    ASSERT_EQ(step_cost, 4u);
    const std::pair<int, int> small_moves[] = {{0, 1}, {0, 2}, {0, -1}, {0, -2}, {-48, -50}, {-50, -48}, {48, 50}, {50, 48}};
    for (const auto& [from, to] : small_moves) {
        SCOPED_TRACE(testing::Message() << from << " -> " << to);
        const encoded e = encode_delta(SmallTemperature(from), SmallTemperature(to));
        EXPECT_EQ(e.bits, step_cost);
        EXPECT_EQ(e.data, bit_builder{}.bits(1, 1).bits(1, 1).bits(code_of(to - from, 2), 2).result());
        EXPECT_EQ(replicate(SmallTemperature(from), SmallTemperature(to), SmallTemperature(7)).value(), to);
    }
    // MaxStep + 1 and beyond: flag 0, then the offset from -50 in 7 bits.
    const std::pair<int, int> large_moves[] = {{0, 3}, {0, -3}, {-50, 50}, {50, -50}};
    for (const auto& [from, to] : large_moves) {
        SCOPED_TRACE(testing::Message() << from << " -> " << to);
        const encoded e = encode_delta(SmallTemperature(from), SmallTemperature(to));
        EXPECT_EQ(e.bits, 1u + 1u + 7u);
        EXPECT_EQ(e.data, bit_builder{}.bits(1, 1).bits(0, 1).bits(static_cast<std::uint64_t>(to + 50), 7).result());
        EXPECT_EQ(replicate(SmallTemperature(from), SmallTemperature(to), SmallTemperature(7)).value(), to);
    }
    EXPECT_EQ(bitrep::delta_bit_size(SmallTemperature(9), SmallTemperature(9)), 1u);
}

TEST(DeltaSmall, AMaxStepOfOneSendsTheDirectionInOneBit)
{
    using One = delta_small<ranged<std::uint8_t, 0, 255>, 1>;
    EXPECT_EQ(encode_delta(One(10), One(9)).data, bit_builder{}.bits(1, 1).bits(1, 1).bits(0, 1).result());
    EXPECT_EQ(encode_delta(One(10), One(11)).data, bit_builder{}.bits(1, 1).bits(1, 1).bits(1, 1).result());
    EXPECT_EQ(bitrep::delta_bit_size(One(10), One(12)), 1u + 1u + 8u);
    EXPECT_EQ(replicate(One(255), One(254)).value(), 254);
    EXPECT_EQ(replicate(One(0), One(1)).value(), 1);
}

TEST(DeltaSmall, IsTransparentToToBytesFromBytesAndMaxBits)
{
    for (float v : {0.0f, 0.005f, 3.14159f, 9.999f, 10.0f}) {
        SCOPED_TRACE(v);
        EXPECT_EQ(bitrep::to_bytes(SmallUnit(v)), bitrep::to_bytes(Unit(v)));
        EXPECT_EQ(bitrep::bit_size(SmallUnit(v)), bitrep::bit_size(Unit(v)));
        const SmallUnit back = oracle::decode(bitrep::to_bytes(Unit(v)), SmallUnit(7.0f));
        EXPECT_EQ(back.value(), oracle::round_trip(Unit(v)).value());
    }
    for (int v : {-50, -1, 0, 49, 50}) {
        EXPECT_EQ(bitrep::to_bytes(SmallTemperature(v)), bitrep::to_bytes(Temperature(v)));
        EXPECT_EQ(oracle::round_trip(SmallTemperature(v), SmallTemperature(3)).value(), v);
    }
    EXPECT_EQ(bitrep::max_bits<SmallUnit>, bitrep::max_bits<Unit>);
    EXPECT_EQ(bitrep::max_bits<SmallTemperature>, bitrep::max_bits<Temperature>);
    // NaN is refused as for the annotated type; out of range likewise.
    EXPECT_EQ(oracle::write_status(SmallUnit(std::numeric_limits<float>::quiet_NaN())).code(),
              bitrep::error::value_out_of_range);
    EXPECT_EQ(oracle::write_status(SmallTemperature(51)).code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(oracle::write_status(SmallUnit(25.0f)).code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(oracle::write_status(SmallUnit(-3.0f)).code(), bitrep::error::value_out_of_range);
}

TEST(DeltaSmall, InsideAStructItsEncodingEqualsTheAnnotatedTypes)
{
    struct WithSmall {
        SmallUnit a;
        SmallTemperature b;
    };
    struct Plain {
        Unit a;
        Temperature b;
    };
    const WithSmall s{SmallUnit(4.56f), SmallTemperature(-7)};
    const Plain p{Unit(4.56f), Temperature(-7)};
    EXPECT_EQ(bitrep::to_bytes(s), bitrep::to_bytes(p));
    const WithSmall back = oracle::decode(bitrep::to_bytes(p), WithSmall{});
    EXPECT_EQ(back.b.value(), -7);
    EXPECT_EQ(back.a.value(), unit_quanta.dequantize(456));
}

TEST(DeltaSmall, RefusesNanAndOutOfRangeValuesInADelta)
{
    bytes out(16);
    bitrep::write_stream nan_stream(out);
    EXPECT_FALSE(bitrep::write_delta(nan_stream, unit_at(5), SmallUnit(std::numeric_limits<float>::quiet_NaN())));
    EXPECT_EQ(nan_stream.failure_status("x").code(), bitrep::error::value_out_of_range);
    bitrep::write_stream range_stream(out);
    EXPECT_FALSE(bitrep::write_delta(range_stream, SmallTemperature(50), SmallTemperature(51)));
    EXPECT_EQ(range_stream.failure_status("x").code(), bitrep::error::value_out_of_range);
}

// ---------------------------------------------------------------- scopes

TEST(DeltaScopes, SaveOnlyFieldsAreNotReplicatedAndTakeTheBaselinesValue)
{
    const Player base{50, 1, 3, 7};
    Player seed_only = base;
    seed_only.seed = 2;
    seed_only.cache = 8;
    // In replication scope neither seed nor cache is carried: unchanged.
    EXPECT_EQ(bitrep::delta_bit_size<scope::replication>(base, seed_only), 1u);

    Player hp = base;
    hp.hp = 60;
    Player hp_and_seed = hp;
    hp_and_seed.seed = 999;
    hp_and_seed.cache = 123;
    // hp changed 1 + 7, ping unchanged 1; seed and cache cost nothing.
    const std::size_t expected = 1 + (1 + 7) + 1;
    EXPECT_EQ(bitrep::delta_bit_size<scope::replication>(base, hp), expected);
    EXPECT_EQ(bitrep::delta_bit_size<scope::replication>(base, hp_and_seed), expected);
    EXPECT_EQ(encode_delta<scope::replication>(base, hp).data, encode_delta<scope::replication>(base, hp_and_seed).data);

    const Player out = replicate<scope::replication>(base, hp_and_seed, Player{0, 55, 0, 66});
    EXPECT_EQ(out.hp.value(), 60);
    EXPECT_EQ(out.seed.get(), 1u); // the baseline's
    EXPECT_EQ(out.ping.value(), 3);
    EXPECT_EQ(out.cache.get(), 7); // the baseline's
}

TEST(DeltaScopes, SaveOnlyFieldsAreSentInScopeAllButTransientNever)
{
    const Player base{50, 1, 3, 7};
    Player current = base;
    current.seed = 2;
    current.cache = 8;
    // hp 1, seed 1 + 64, ping 1; cache nothing.
    EXPECT_EQ(bitrep::delta_bit_size<scope::all>(base, current), 1u + 1u + 65u + 1u);
    const Player out = replicate<scope::all>(base, current, Player{0, 55, 0, 66});
    EXPECT_EQ(out.seed.get(), 2u);
    EXPECT_EQ(out.cache.get(), 7); // transient: the baseline's
    Player cache_only = base;
    cache_only.cache = 1000;
    EXPECT_EQ(bitrep::delta_bit_size<scope::all>(base, cache_only), 1u);
    EXPECT_EQ(bitrep::delta_bit_size<scope::save>(base, cache_only), 1u);
}

namespace {
struct Labelled {
    Health hp = 100;
    bitrep::transient<std::string> label; // a cache: never encoded, need not be encodable
};
BOOST_DESCRIBE_STRUCT(Labelled, (), (hp, label))
struct LabelledWorld {
    entity_array<Labelled, 4> things;
};
} // namespace

TEST(DeltaScopes, AnEntityWithATransientUnencodableMemberHasBoundsAndDeltas)
{
    // The bounds a replication server asks of each entity type: 1 + 7 for hp.
    EXPECT_EQ(bitrep::max_changed_bits<Labelled>, 8u);
    EXPECT_EQ(bitrep::max_delta_bits<Labelled>, 9u);
    EXPECT_GT(bitrep::max_delta_bits<LabelledWorld>, 4u * 9u);

    LabelledWorld base{};
    base.things.emplace(1, Labelled{40, {}});
    base.things[1].label.get() = "old";
    LabelledWorld current = base;
    current.things[1].hp = 41;
    current.things[1].label.get() = "new";
    const LabelledWorld out = replicate<scope::replication>(base, current, LabelledWorld{});
    ASSERT_TRUE(out.things.slots()[1].has_value());
    EXPECT_EQ(out.things[1].hp.value(), 41);
    EXPECT_EQ(out.things[1].label.get(), "old"); // transient: the baseline's
}

TEST(DeltaScopes, NetOnlyFieldsAreLeftOutOfTheSaveScope)
{
    const Player base{50, 1, 3, 7};
    Player current = base;
    current.ping = 9;
    EXPECT_EQ(bitrep::delta_bit_size<scope::save>(base, current), 1u);
    EXPECT_EQ(bitrep::delta_bit_size<scope::replication>(base, current), 1u + 1u + (1u + 4u));
    EXPECT_EQ(replicate<scope::replication>(base, current).ping.value(), 9);
    EXPECT_EQ(replicate<scope::save>(base, current, current).ping.value(), 3);
}

// ---------------------------------------------------------------- int_relative_bits

TEST(DeltaIntRelative, TiersAreTheDocumentedTable)
{
    const std::pair<std::uint32_t, std::uint32_t> documented[] = {{1, 1}, {2, 6}, {7, 23}, {24, 280}, {281, 4377}, {4378, 69914}};
    ASSERT_EQ(std::size(bitrep::detail::int_relative_tiers), std::size(documented));
    for (std::size_t i = 0; i < std::size(documented); ++i) {
        EXPECT_EQ(bitrep::detail::int_relative_tiers[i].min, documented[i].first);
        EXPECT_EQ(bitrep::detail::int_relative_tiers[i].max, documented[i].second);
    }
    // The total bits column of docs/formats/wire-format.md section 2.
    const std::pair<std::uint64_t, std::size_t> totals[] = {{1, 1},      {2, 5},       {6, 5},       {7, 8},
                                                            {23, 8},     {24, 13},     {280, 13},    {281, 18},
                                                            {4377, 18},  {4378, 23},   {69914, 23},  {69915, 38},
                                                            {1000000, 38}};
    for (const auto& [d, bits] : totals) {
        EXPECT_EQ(bitrep::detail::int_relative_bits(d), bits) << d;
        EXPECT_EQ(int_relative_cost(d), bits) << d;
    }
}

TEST(DeltaIntRelative, BitsMatchWhatTheWriterWritesForEveryDifferenceUpToEightyThousand)
{
    std::array<std::uint8_t, 8> buffer{};
    for (std::uint32_t d = 1; d <= 80000; ++d) {
        for (std::int32_t previous : {-1, 1000}) {
            buffer.fill(0);
            bitrep::write_stream stream(buffer);
            std::int32_t current = previous + static_cast<std::int32_t>(d);
            ASSERT_TRUE(stream.serialize_int_relative(previous, current));
            ASSERT_EQ(bitrep::detail::int_relative_bits(d), stream.bit_position()) << "d = " << d;
            if (d % 997 == 0 || d < 30 || (d > 69900 && d < 69930)) {
                stream.flush();
                bitrep::read_stream reader(buffer);
                std::int32_t back = 0;
                ASSERT_TRUE(reader.serialize_int_relative(previous, back));
                ASSERT_EQ(back, current);
                ASSERT_EQ(reader.bit_position(), stream.bit_position());
            }
        }
    }
}

// ---------------------------------------------------------------- saves and schemas

TEST(DeltaSaves, DeltaSmallAndEntityArraySaveAndLoad)
{
    World world = some_world();
    world.cache = std::string(3, 'c');
    const bytes file = bitrep::save_to_bytes(world);
    World loaded;
    loaded.cache = std::string(2, 'k');
    bitrep::load_info info;
    const bitrep::status st = bitrep::load_from_bytes(file, loaded, info);
    ASSERT_TRUE(st) << st.message();
    EXPECT_EQ(info.path, bitrep::load_info::route::fast);
    EXPECT_EQ(loaded.tick, 1000u);
    EXPECT_TRUE(equal_on_wire(loaded.cubes, world.cubes));
    EXPECT_EQ(loaded.cubes.count(), world.cubes.count());
    EXPECT_EQ(loaded.wind.value(), unit_quanta.dequantize(250));
    EXPECT_EQ(loaded.temperature.value(), 20);
    EXPECT_EQ(loaded.seed.get(), 77u);
    EXPECT_EQ(std::string(loaded.cache), std::string(2, 'k')); // transient: the destination's

    const entity_array<Slot, 8> slots = [] {
        entity_array<Slot, 8> s;
        s.emplace(1, Slot{10, true});
        s.emplace(7, Slot{99, false});
        return s;
    }();
    entity_array<Slot, 8> slots_back;
    slots_back.emplace(3, Slot{1, true});
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(slots), slots_back));
    EXPECT_TRUE(equal_on_wire(slots_back, slots));
    EXPECT_FALSE(slots_back.contains(3));

    SmallUnit small_back;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(unit_at(321)), small_back));
    EXPECT_EQ(small_back.value(), unit_quanta.dequantize(321));
}

TEST(DeltaSaves, SchemasEqualThoseOfTheEncodedTypes)
{
    using E = entity_array<Cube, 16>;
    using A = std::array<std::optional<Cube>, 16>;
    EXPECT_TRUE(bitrep::schema_of<E>().built);
    EXPECT_EQ(bitrep::schema_of<E>().encoded, bitrep::schema_of<A>().encoded);
    EXPECT_EQ(bitrep::schema_of<E>().fingerprint, bitrep::schema_of<A>().fingerprint);
    EXPECT_NE(bitrep::schema_of<E>().fingerprint, (bitrep::schema_of<std::array<std::optional<Cube>, 15>>().fingerprint));
    EXPECT_EQ(bitrep::schema_of<SmallUnit>().encoded, bitrep::schema_of<Unit>().encoded);
    EXPECT_EQ(bitrep::schema_of<SmallTemperature>().encoded, bitrep::schema_of<Temperature>().encoded);
    EXPECT_NE(bitrep::schema_of<SmallUnit>().fingerprint, bitrep::schema_of<Temperature>().fingerprint);
    // to_bytes too.
    E e;
    e.emplace(4, cube_at(4.0f));
    A a;
    a[4] = cube_at(4.0f);
    EXPECT_EQ(bitrep::to_bytes(e), bitrep::to_bytes(a));
}

TEST(DeltaSaves, AnEntityArraySaveLoadsAsAnArrayOfOptionalsAndBack)
{
    using E = entity_array<Slot, 8>;
    using A = std::array<std::optional<Slot>, 8>;
    E e;
    e.emplace(2, Slot{22, true});
    e.emplace(5, Slot{55, false});
    A a;
    bitrep::load_info info;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(e), a, info));
    EXPECT_EQ(info.path, bitrep::load_info::route::fast);
    ASSERT_TRUE(a[2].has_value());
    EXPECT_EQ(a[2]->hp, 22);
    EXPECT_FALSE(a[3].has_value());
    E back;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(a), back, info));
    EXPECT_EQ(info.path, bitrep::load_info::route::fast);
    EXPECT_EQ(back[5].hp, 55);
    EXPECT_EQ(back.count(), 2u);
}

namespace fleet_v1 {
struct Fleet {
    entity_array<Slot, 8> ships;
    SmallUnit wind;
    ranged<int, 0, 9> removed = 0;
};
BOOST_DESCRIBE_STRUCT(Fleet, (), (ships, wind, removed))
} // namespace fleet_v1

namespace fleet_v2 {
struct Fleet {
    ranged<int, 0, 99> added = 42;
    Unit wind;                                // delta_small removed
    std::array<std::optional<Slot>, 8> ships; // entity_array as its encoding
};
BOOST_DESCRIBE_STRUCT(Fleet, (), (added, wind, ships))

struct Fleet3 {
    SmallUnit wind;                   // delta_small added
    entity_array<Slot, 8> ships;      // back to entity slots
};
BOOST_DESCRIBE_STRUCT(Fleet3, (), (wind, ships))
} // namespace fleet_v2

TEST(DeltaSaves, TheSchemaPathLoadsEntityArraysAndDeltaSmallAsTheirEncodings)
{
    fleet_v1::Fleet old;
    old.ships.emplace(0, Slot{10, true});
    old.ships.emplace(6, Slot{60, false});
    old.wind = unit_at(777);
    old.removed = 5;

    fleet_v2::Fleet next;
    bitrep::load_info info;
    const bitrep::status st = bitrep::load_from_bytes(bitrep::save_to_bytes(old), next, info);
    ASSERT_TRUE(st) << st.message();
    EXPECT_EQ(info.path, bitrep::load_info::route::schema);
    EXPECT_EQ(next.added, 42);
    EXPECT_EQ(next.wind.value(), unit_quanta.dequantize(777));
    ASSERT_TRUE(next.ships[6].has_value());
    EXPECT_EQ(next.ships[6]->hp, 60);
    EXPECT_FALSE(next.ships[6]->alive);
    EXPECT_FALSE(next.ships[1].has_value());

    fleet_v2::Fleet3 third;
    third.ships.emplace(3, Slot{1, true});
    const bitrep::status st3 = bitrep::load_from_bytes(bitrep::save_to_bytes(next), third, info);
    ASSERT_TRUE(st3) << st3.message();
    EXPECT_EQ(info.path, bitrep::load_info::route::schema);
    EXPECT_EQ(third.wind.value(), unit_quanta.dequantize(777));
    EXPECT_EQ(third.ships.count(), 2u);
    EXPECT_FALSE(third.ships.contains(3));
    EXPECT_EQ(third.ships[0].hp, 10);
}

// ---------------------------------------------------------------- hostile input

namespace {
using ReplicationRead = bitrep::basic_read_stream<scope::replication>;

template <class T>
bitrep::status read_replication(const bytes& data, const T& base, T& out)
{
    ReplicationRead stream{std::span<const std::uint8_t>(data)};
    if (!bitrep::read_delta(stream, base, out))
        return stream.failure_status("delta");
    return {};
}
} // namespace

TEST(DeltaHostile, EveryTruncationOfAValidDeltaIsRefusedAsTruncated)
{
    const World base = some_world();
    const World current = changed_world();
    const encoded e = encode_delta<scope::replication>(base, current);
    ASSERT_GT(e.data.size(), 20u);
    {
        World out;
        ASSERT_TRUE(read_replication(e.data, base, out));
        EXPECT_TRUE(equal_on_wire(out.cubes, current.cubes));
        EXPECT_EQ(out.temperature.value(), -40);
        EXPECT_EQ(out.seed.get(), base.seed.get());
    }
    for (std::size_t n = 0; n < e.data.size(); ++n) {
        // A copy of exactly n bytes, so that the sanitizer sees any read past it.
        const bytes prefix(e.data.begin(), e.data.begin() + static_cast<std::ptrdiff_t>(n));
        World out;
        const bitrep::status st = read_replication(prefix, base, out);
        EXPECT_EQ(st.code(), bitrep::error::truncated) << "prefix of " << n << " bytes: " << st.message();
    }
    // Each truncation of each single-kind delta too.
    const Nested n_base{some_leaves(), {}, Team::red};
    Nested n_current{other_leaves(), {}, Team::green};
    n_current.containers.items.push_back(Item{1, 1});
    n_current.containers.held = Item{2, 2};
    n_current.containers.extra = some_leaves();
    const encoded ne = encode_delta<scope::replication>(n_base, n_current);
    for (std::size_t n = 0; n < ne.data.size(); ++n) {
        const bytes prefix(ne.data.begin(), ne.data.begin() + static_cast<std::ptrdiff_t>(n));
        Nested out;
        EXPECT_EQ(read_replication(prefix, n_base, out).code(), bitrep::error::truncated) << n;
    }
}

TEST(DeltaHostile, AnIndexPastTheEndOfTheListIsOutOfRange)
{
    using E = entity_array<Slot, 1024>;
    const E base;
    // changed, list, count 1 (offset 0 in 10 bits), then the index as
    // int_relative from -1, then a created Slot.
    auto forge = [](std::uint32_t index) {
        const std::uint32_t d = index + 1; // both in tier 5: [281, 4377]
        return bit_builder{}
            .bits(1, 1)
            .bits(1, 1)
            .bits(0, 10)
            .bits(0, 4).bits(1, 1).bits(d - 281, 13)
            .bits(1, 1).bits(33, 7).bits(1, 1)
            .result();
    };
    E out;
    const bitrep::status last = read_replication(forge(1023), base, out);
    ASSERT_TRUE(last) << last.message(); // the forged form is right
    ASSERT_TRUE(out.contains(1023));
    EXPECT_EQ(out[1023].hp, 33);
    EXPECT_EQ(out.count(), 1u);

    const bitrep::status past = read_replication(forge(1024), base, out);
    EXPECT_EQ(past.code(), bitrep::error::out_of_range);
    EXPECT_EQ(past.bit_offset(), 12u); // where the index starts
    const bitrep::status far = read_replication(forge(3000), base, out);
    EXPECT_EQ(far.code(), bitrep::error::out_of_range);

    // The final tier: an absolute index of 2^31 - 1.
    const bytes absolute = bit_builder{}.bits(1, 1).bits(1, 1).bits(0, 10).bits(0, 6).bits(0x7FFFFFFF, 32).result();
    EXPECT_EQ(read_replication(absolute, base, out).code(), bitrep::error::out_of_range);
    // The final tier going backwards (index 2 after index 5).
    const bytes backwards = bit_builder{}
                                .bits(1, 1).bits(1, 1).bits(1, 10)
                                .bits(0, 1).bits(1, 1).bits(6 - 2, 3) // index 5
                                .bits(0, 1)                           // slot 5 destroyed (already empty)
                                .bits(0, 6).bits(2, 32)
                                .bits(0, 1)
                                .result();
    EXPECT_EQ(read_replication(backwards, base, out).code(), bitrep::error::out_of_range);
}

TEST(DeltaHostile, AVectorIndexPastTheCommonElementsIsOutOfRange)
{
    using V = bounded_vector<std::uint8_t, 8>;
    const V base{1, 2, 3, 4};
    // changed, size 4 (4 bits), list, count 1 over [0, 4] (3 bits), index
    // as int_relative (tier 2), element.
    auto forge = [](std::uint32_t index) {
        return bit_builder{}.bits(1, 1).bits(4, 4).bits(1, 1).bits(1, 3).bits(0, 1).bits(1, 1).bits(index + 1 - 2, 3).bits(0xEE, 8).result();
    };
    V out;
    ASSERT_TRUE(read_replication(forge(3), base, out));
    EXPECT_EQ(out, (V{1, 2, 3, 0xEE}));
    // Index 4 is below the bound (8) but past the elements both sides have.
    EXPECT_EQ(read_replication(forge(4), base, out).code(), bitrep::error::out_of_range);
}

TEST(DeltaHostile, ACountAboveTheElementsIsOutOfRange)
{
    using A = std::array<std::uint8_t, 5>;
    const A base{};
    // count offset over [0, 4] in 3 bits: 5, 6 and 7 are refused. After it,
    // indices 0..4 (int_relative d = 1: one bit each), each with an element.
    for (std::uint64_t offset : {4u, 5u, 6u, 7u}) {
        bit_builder builder;
        builder.bits(1, 1).bits(1, 1).bits(offset, 3);
        for (std::uint64_t i = 0; i < 5; ++i)
            builder.bits(1, 1).bits(10 + i, 8);
        const bytes& forged = builder.result();
        A out{};
        const bitrep::status st = read_replication(forged, base, out);
        if (offset == 4) {
            EXPECT_TRUE(st) << st.message(); // 5 changed: indices 0..4
            EXPECT_EQ(out, (A{10, 11, 12, 13, 14}));
        } else {
            EXPECT_EQ(st.code(), bitrep::error::out_of_range) << offset;
        }
    }
}

TEST(DeltaHostile, ASmallStepOutOfTheRangeIsOutOfRange)
{
    // Temperature [-50, 50], K = 2: +1 is code 2, -1 is code 1.
    const bytes up = bit_builder{}.bits(1, 1).bits(1, 1).bits(2, 2).result();
    const bytes down = bit_builder{}.bits(1, 1).bits(1, 1).bits(1, 2).result();
    SmallTemperature out(0);
    ASSERT_TRUE(read_replication(up, SmallTemperature(49), out));
    EXPECT_EQ(out.value(), 50);
    EXPECT_EQ(read_replication(up, SmallTemperature(50), out).code(), bitrep::error::out_of_range);
    ASSERT_TRUE(read_replication(down, SmallTemperature(-49), out));
    EXPECT_EQ(out.value(), -50);
    EXPECT_EQ(read_replication(down, SmallTemperature(-50), out).code(), bitrep::error::out_of_range);
    // Quantized, K = 4: +4 is code 7, -4 is code 0.
    const bytes up4 = bit_builder{}.bits(1, 1).bits(1, 1).bits(7, 3).result();
    const bytes down4 = bit_builder{}.bits(1, 1).bits(1, 1).bits(0, 3).result();
    SmallUnit u;
    ASSERT_TRUE(read_replication(up4, unit_at(996), u));
    EXPECT_EQ(u.value(), 10.0f);
    EXPECT_EQ(read_replication(up4, unit_at(997), u).code(), bitrep::error::out_of_range);
    ASSERT_TRUE(read_replication(down4, unit_at(4), u));
    EXPECT_EQ(u.value(), 0.0f);
    EXPECT_EQ(read_replication(down4, unit_at(3), u).code(), bitrep::error::out_of_range);
}

TEST(DeltaHostile, AVectorSizeAboveItsBoundIsOutOfRange)
{
    using V = bounded_vector<std::uint8_t, 5>; // size: 3 bits
    const V base{1, 2};
    for (std::uint64_t size : {6u, 7u}) {
        const bytes forged = bit_builder{}.bits(1, 1).bits(size, 3).bits(0, 64).bits(0, 64).result();
        V out;
        EXPECT_EQ(read_replication(forged, base, out).code(), bitrep::error::out_of_range) << size;
    }
    // A size within the bound whose new elements are not there: truncated.
    const bytes short_input = bit_builder{}.bits(1, 1).bits(5, 3).bits(0, 1).bits(0, 2).result();
    V out;
    EXPECT_EQ(read_replication(short_input, base, out).code(), bitrep::error::truncated);
}

TEST(DeltaHostile, AnEnumIndexThatIsNoEnumeratorIsRefused)
{
    const bytes forged = bit_builder{}.bits(1, 1).bits(3, 2).result();
    Team out = Team::red;
    EXPECT_EQ(read_replication(forged, Team::blue, out).code(), bitrep::error::bad_enum);
}

TEST(DeltaHostile, RandomBytesNeverCrashAndEitherFailOrDecodeValidValues)
{
    std::mt19937 random(20240611);
    const World bases[] = {World{}, some_world(), changed_world()};
    std::size_t accepted = 0;
    std::size_t refused = 0;
    for (int trial = 0; trial < 4000; ++trial) {
        std::uniform_int_distribution<std::size_t> length(0, 96);
        bytes data(length(random));
        for (auto& b : data)
            b = static_cast<std::uint8_t>(random());
        if (!data.empty() && trial % 2 == 0)
            data[0] |= 1; // mostly "changed", so that the reader goes deep
        const World& base = bases[static_cast<std::size_t>(trial) % std::size(bases)];
        World out = changed_world();
        const bitrep::status st = read_replication(data, base, out);
        if (st) {
            ++accepted;
            // Whatever was accepted is a value the writer can send again.
            bytes again;
            const bitrep::status written = bitrep::to_bytes(out, again);
            ASSERT_TRUE(written) << "trial " << trial << ": " << written.message();
            EXPECT_EQ(out.seed.get(), base.seed.get());
        } else {
            ++refused;
            EXPECT_NE(st.code(), bitrep::error::none);
        }
    }
    EXPECT_GT(accepted, 0u);
    EXPECT_GT(refused, 0u);
}

TEST(DeltaHostile, EverySingleBitFlipOfAValidDeltaFailsCleanlyOrDecodesValidValues)
{
    const World base = some_world();
    const encoded e = encode_delta<scope::replication>(base, changed_world());
    std::size_t refused = 0;
    for (std::size_t bit = 0; bit < e.data.size() * 8; ++bit) {
        bytes flipped = e.data;
        flipped[bit / 8] = static_cast<std::uint8_t>(flipped[bit / 8] ^ (1u << (bit % 8)));
        World out;
        const bitrep::status st = read_replication(flipped, base, out);
        if (st) {
            bytes again;
            ASSERT_TRUE(bitrep::to_bytes(out, again)) << "bit " << bit;
        } else {
            ++refused;
        }
    }
    EXPECT_GT(refused, 0u);
}

TEST(DeltaHostile, RandomEntityListsNeverCrash)
{
    // A large entity array read from random bytes after a forced "changed,
    // list" prefix: the reader walks counts and indices that are mostly wrong.
    using E = entity_array<Slot, 1024>;
    E base;
    for (std::size_t i = 0; i < 1024; i += 7)
        base.emplace(i, Slot{static_cast<int>(i % 100), true});
    std::mt19937 random(7);
    std::size_t refused = 0;
    for (int trial = 0; trial < 2000; ++trial) {
        bytes data(1 + random() % 300);
        for (auto& b : data)
            b = static_cast<std::uint8_t>(random());
        data[0] = static_cast<std::uint8_t>(data[0] | (trial % 2 == 0 ? 0x03 : 0x01));
        E out;
        const bitrep::status st = read_replication(data, base, out);
        refused += st ? 0 : 1;
        if (st) {
            for (std::size_t i = 0; i < 1024; ++i) {
                if (out.contains(i)) {
                    ASSERT_TRUE(out[i].hp.in_range());
                }
            }
        }
    }
    EXPECT_GT(refused, 0u);
}
