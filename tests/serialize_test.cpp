// How each unannotated kind maps onto the wire (docs/formats/wire-format.md section
// 3): bool, full-width integers, raw floats, described enums, std::array,
// std::optional, aggregates, described classes, hooks and their precedence,
// and the max_bits bound.
#include <bitrep/bitrep.hpp>

#include <gtest/gtest.h>

#include "test_oracle.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace oracle::common;

template <class Int>
void expect_integer_extremes_round_trip()
{
    constexpr Int lo = std::numeric_limits<Int>::min();
    constexpr Int hi = std::numeric_limits<Int>::max();
    EXPECT_EQ(bitrep::bit_size(Int{}), sizeof(Int) * 8);
    EXPECT_EQ(bitrep::to_bytes(Int{}).size(), sizeof(Int));
    EXPECT_EQ(round_trip(lo, hi), lo);
    EXPECT_EQ(round_trip(hi, lo), hi);
    EXPECT_EQ(round_trip(static_cast<Int>(lo + 1), hi), static_cast<Int>(lo + 1));
}

} // namespace

// ---------------------------------------------------------------- bool

TEST(Bool, TrueIsASingleOneBit)
{
    EXPECT_EQ(bitrep::bit_size(true), 1u);
    EXPECT_EQ(bitrep::to_bytes(true), (bytes{0x01}));
}

TEST(Bool, FalseIsASingleZeroBit)
{
    EXPECT_EQ(bitrep::bit_size(false), 1u);
    EXPECT_EQ(bitrep::to_bytes(false), (bytes{0x00}));
}

TEST(Bool, BothValuesRoundTrip)
{
    EXPECT_TRUE(round_trip(true, false));
    EXPECT_FALSE(round_trip(false, true));
}

TEST(Bool, ConsecutiveBoolsFillABytesLowBitsFirst)
{
    const std::array<bool, 8> pattern{true, false, true, true, false, false, false, true};
    EXPECT_EQ(bitrep::to_bytes(pattern), (bytes{0x8D}));
}

// ---------------------------------------------------------------- integers

TEST(Integers, EveryWidthCostsItsFullSizeAndRoundTripsItsExtremes)
{
    expect_integer_extremes_round_trip<std::int8_t>();
    expect_integer_extremes_round_trip<std::uint8_t>();
    expect_integer_extremes_round_trip<std::int16_t>();
    expect_integer_extremes_round_trip<std::uint16_t>();
    expect_integer_extremes_round_trip<std::int32_t>();
    expect_integer_extremes_round_trip<std::uint32_t>();
    expect_integer_extremes_round_trip<std::int64_t>();
    expect_integer_extremes_round_trip<std::uint64_t>();
}

TEST(Integers, UnsignedBytesAreSentVerbatim)
{
    EXPECT_EQ(bitrep::to_bytes(std::uint8_t{0xAB}), (bytes{0xAB}));
    EXPECT_EQ(bitrep::to_bytes(char{'A'}), (bytes{0x41}));
}

TEST(Integers, NegativeValuesAreTwosComplementPatterns)
{
    EXPECT_EQ(bitrep::to_bytes(std::int8_t{-1}), (bytes{0xFF}));
    EXPECT_EQ(bitrep::to_bytes(std::int16_t{-2}), (bytes{0xFE, 0xFF}));
    EXPECT_EQ(bitrep::to_bytes(std::int32_t{std::numeric_limits<std::int32_t>::min()}), (bytes{0x00, 0x00, 0x00, 0x80}));
    EXPECT_EQ(bitrep::to_bytes(std::int64_t{-2}), (bytes{0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}));
}

TEST(Integers, MultiByteValuesAreLittleEndian)
{
    EXPECT_EQ(bitrep::to_bytes(std::uint16_t{0x1234}), (bytes{0x34, 0x12}));
    EXPECT_EQ(bitrep::to_bytes(std::uint32_t{0x12345678u}), (bytes{0x78, 0x56, 0x34, 0x12}));
    EXPECT_EQ(bitrep::to_bytes(char32_t{0x1F600}), (bytes{0x00, 0xF6, 0x01, 0x00}));
}

TEST(Integers, SixtyFourBitsAreTheLowHalfThenTheHighHalf)
{
    EXPECT_EQ(bitrep::to_bytes(std::uint64_t{0x0123456789ABCDEFull}), (bytes{0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01}));
}

TEST(Integers, AreNotAlignedAfterABool)
{
    struct Tagged {
        bool flag;
        std::uint16_t value;
    };
    Tagged t{};
    t.flag = true;
    t.value = 0x8001;
    EXPECT_EQ(bitrep::bit_size(t), 17u);
    EXPECT_EQ(bitrep::to_bytes(t), (bytes{0x03, 0x00, 0x01})); // 1 | 0x8001 << 1
    const Tagged back = round_trip(t);
    EXPECT_TRUE(back.flag);
    EXPECT_EQ(back.value, 0x8001);
}

TEST(Integers, SixtyFourBitValueStraddlingWordsIsContiguous)
{
    struct Straddle {
        std::array<bool, 3> head;
        std::int64_t value;
    };
    Straddle s{};
    s.head = {true, true, false};
    s.value = -0x0123456789ABCDEFll;
    EXPECT_EQ(bitrep::to_bytes(s), bit_builder{}.bits(0b011, 3).bits(static_cast<std::uint64_t>(s.value), 64).result());
    EXPECT_EQ(round_trip(s).value, s.value);
}

// ---------------------------------------------------------------- float and double

TEST(Float, IsItsIeeeBitPatternLittleEndian)
{
    EXPECT_EQ(bitrep::bit_size(1.0f), 32u);
    EXPECT_EQ(bitrep::to_bytes(1.0f), (bytes{0x00, 0x00, 0x80, 0x3F}));
    EXPECT_EQ(bitrep::to_bytes(-2.5f), (bytes{0x00, 0x00, 0x20, 0xC0}));
}

TEST(Float, NegativeZeroKeepsItsSign)
{
    EXPECT_EQ(bitrep::to_bytes(-0.0f), (bytes{0x00, 0x00, 0x00, 0x80}));
    EXPECT_EQ(bits_of(round_trip(-0.0f, 0.0f)), 0x80000000u);
}

TEST(Float, EveryBitPatternRoundTripsBitExactly)
{
    const std::uint32_t patterns[] = {
        0x7FC00000u, // quiet NaN
        0xFFC00123u, // negative quiet NaN with payload
        0x7F800001u, // signalling NaN
        0x7FA00001u, // signalling NaN with payload
        0x7F800000u, // +infinity
        0xFF800000u, // -infinity
        0x00000001u, // smallest subnormal
        0x807FFFFFu, // largest negative subnormal
        0x7F7FFFFFu, // largest finite
    };
    for (std::uint32_t pattern : patterns) {
        const float value = std::bit_cast<float>(pattern);
        const bytes wire = bitrep::to_bytes(value);
        EXPECT_EQ(wire, bit_builder{}.bits(pattern, 32).result()) << std::hex << pattern;
        EXPECT_EQ(bits_of(decode<float>(wire, 1.0f)), pattern) << std::hex << pattern;
    }
}

TEST(Float, IsNotAlignedAfterABool)
{
    struct Tagged {
        bool flag;
        float value;
    };
    Tagged t{};
    t.flag = true;
    t.value = 1.0f;
    EXPECT_EQ(bitrep::bit_size(t), 33u);
    EXPECT_EQ(bitrep::to_bytes(t), bit_builder{}.bits(1, 1).bits(0x3F800000u, 32).result());
}

TEST(Double, IsItsIeeeBitPatternLowWordFirst)
{
    EXPECT_EQ(bitrep::bit_size(1.0), 64u);
    EXPECT_EQ(bitrep::to_bytes(1.0), (bytes{0, 0, 0, 0, 0, 0, 0xF0, 0x3F}));
}

TEST(Double, EveryBitPatternRoundTripsBitExactly)
{
    const std::uint64_t patterns[] = {
        0x7FF8000000000000ull, // quiet NaN
        0x7FF0000000000001ull, // signalling NaN
        0xFFF80000DEADBEEFull, // negative NaN with payload
        0x8000000000000000ull, // -0
        0x0000000000000001ull, // smallest subnormal
        0xFFF0000000000000ull, // -infinity
    };
    for (std::uint64_t pattern : patterns) {
        const double value = std::bit_cast<double>(pattern);
        const bytes wire = bitrep::to_bytes(value);
        EXPECT_EQ(wire, bit_builder{}.bits(pattern, 64).result()) << std::hex << pattern;
        EXPECT_EQ(bits_of(decode<double>(wire, 1.0)), pattern) << std::hex << pattern;
    }
}

// ---------------------------------------------------------------- enums

enum class Team { red, blue, green };
BOOST_DESCRIBE_ENUM(Team, red, blue, green)

enum class Sparse { one = 1, ten = 10, hundred = 100 };
BOOST_DESCRIBE_ENUM(Sparse, one, ten, hundred)

enum class Single { only = 7 };
BOOST_DESCRIBE_ENUM(Single, only)

enum class Five { a, b, c, d, e };
BOOST_DESCRIBE_ENUM(Five, a, b, c, d, e)

enum Coin : std::uint8_t { heads, tails };
BOOST_DESCRIBE_ENUM(Coin, heads, tails)

enum class Sign : std::int8_t { minus = -1, zero = 0, plus = 1 };
BOOST_DESCRIBE_ENUM(Sign, minus, zero, plus)

enum class Backwards { first = 0, second = 1 };
BOOST_DESCRIBE_ENUM(Backwards, second, first) // described in the other order

TEST(Enum, WidthIsBitsRequiredForTheEnumeratorCount)
{
    EXPECT_EQ(bitrep::bit_size(Single::only), 0u);
    EXPECT_EQ(bitrep::bit_size(Coin::tails), 1u);
    EXPECT_EQ(bitrep::bit_size(Team::blue), 2u);
    EXPECT_EQ(bitrep::bit_size(Sparse::ten), 2u);
    EXPECT_EQ(bitrep::bit_size(Five::e), 3u);
}

TEST(Enum, SendsTheDeclarationIndexNotTheValue)
{
    EXPECT_EQ(bitrep::to_bytes(Sparse::one), (bytes{0x00}));
    EXPECT_EQ(bitrep::to_bytes(Sparse::ten), (bytes{0x01}));
    EXPECT_EQ(bitrep::to_bytes(Sparse::hundred), (bytes{0x02}));
}

TEST(Enum, IndexIsThePositionInTheDescription)
{
    EXPECT_EQ(bitrep::to_bytes(Backwards::second), (bytes{0x00}));
    EXPECT_EQ(bitrep::to_bytes(Backwards::first), (bytes{0x01}));
    EXPECT_EQ(decode<Backwards>(bytes{0x00}, Backwards::first), Backwards::second);
}

TEST(Enum, NegativeEnumeratorsAreSentByIndex)
{
    EXPECT_EQ(bitrep::to_bytes(Sign::minus), (bytes{0x00}));
    EXPECT_EQ(bitrep::to_bytes(Sign::plus), (bytes{0x02}));
}

TEST(Enum, EveryEnumeratorRoundTrips)
{
    for (Team v : {Team::red, Team::blue, Team::green})
        EXPECT_EQ(round_trip(v, Team::green == v ? Team::red : Team::green), v);
    for (Sparse v : {Sparse::one, Sparse::ten, Sparse::hundred})
        EXPECT_EQ(round_trip(v, Sparse::hundred == v ? Sparse::one : Sparse::hundred), v);
    for (Five v : {Five::a, Five::b, Five::c, Five::d, Five::e})
        EXPECT_EQ(round_trip(v, Five::e == v ? Five::a : Five::e), v);
    for (Sign v : {Sign::minus, Sign::zero, Sign::plus})
        EXPECT_EQ(round_trip(v, Sign::plus == v ? Sign::minus : Sign::plus), v);
    for (Coin v : {heads, tails})
        EXPECT_EQ(round_trip(v, v == tails ? heads : tails), v);
}

TEST(Enum, SingleEnumeratorReadsItsOnlyValueFromNoBits)
{
    EXPECT_TRUE(bitrep::to_bytes(Single::only).empty());
    EXPECT_EQ(decode<Single>(bytes{}, static_cast<Single>(3)), Single::only);
}

TEST(Enum, FieldsAreIndexBitsBetweenOtherFields)
{
    struct Row {
        bool a;
        Team team;
        Five five;
    };
    Row r{};
    r.a = true;
    r.team = Team::green;
    r.five = Five::d;
    EXPECT_EQ(bitrep::to_bytes(r), (bytes{1 | (2 << 1) | (3 << 3)}));
}

// ---------------------------------------------------------------- std::array

using small_t = bitrep::ranged<int, 0, 7>;

TEST(Array, IsItsElementsBackToBackWithoutALength)
{
    const std::array<small_t, 3> values{1, 2, 3};
    EXPECT_EQ(bitrep::bit_size(values), 9u);
    EXPECT_EQ(bitrep::to_bytes(values), (bytes{0xD1, 0x00})); // 1 | 2 << 3 | 3 << 6
}

TEST(Array, OfArraysIsFlattenedInOrder)
{
    const std::array<std::array<bool, 3>, 2> grid{{{true, false, false}, {false, true, true}}};
    EXPECT_EQ(bitrep::bit_size(grid), 6u);
    EXPECT_EQ(bitrep::to_bytes(grid), (bytes{0b110001}));
    EXPECT_EQ(round_trip(grid), grid);
}

TEST(Array, OfStructsRoundTrips)
{
    struct Cell {
        small_t height;
        bool wet;
        bool operator==(const Cell&) const = default;
    };
    std::array<Cell, 4> cells{};
    cells[0] = {7, true};
    cells[3] = {2, false};
    EXPECT_EQ(bitrep::bit_size(cells), 16u);
    EXPECT_EQ(round_trip(cells), cells);
}

namespace {
// Constant-initialized with static storage: the compilers place it in
// read-only memory, where any store, even of the value already there, faults.
constexpr std::array<bool, 10> read_only_flags{true, false, true, true, false, false, true, false, false, true};
} // namespace

TEST(Array, OfBoolsIsWrittenAndMeasuredWithoutStoringIntoTheValue)
{
    EXPECT_EQ(bitrep::bit_size(read_only_flags), 10u);
    EXPECT_EQ(bitrep::to_bytes(read_only_flags), (bytes{0b01001101, 0b10}));
    std::array<std::uint8_t, 8> buffer{};
    std::size_t written = 0;
    EXPECT_TRUE(bitrep::to_bytes(read_only_flags, buffer, written));
    EXPECT_EQ(written, 2u);
}

struct Grid {
    std::array<small_t, 3> cells;
};
BOOST_DESCRIBE_STRUCT(Grid, (), (cells))

TEST(Array, ElementFailureNamesItsIndex)
{
    Grid g{};
    g.cells[2] = 8;
    const bitrep::status st = write_status(g);
    EXPECT_STATUS(st, bitrep::error::value_out_of_range, "Grid.cells[2]", 6u);
}

// ---------------------------------------------------------------- std::optional

TEST(Optional, EmptyIsASingleZeroBit)
{
    const std::optional<std::uint8_t> none;
    EXPECT_EQ(bitrep::bit_size(none), 1u);
    EXPECT_EQ(bitrep::to_bytes(none), (bytes{0x00}));
}

TEST(Optional, PresentIsAOneBitThenTheValue)
{
    const std::optional<std::uint8_t> full = 0xFF;
    EXPECT_EQ(bitrep::bit_size(full), 9u);
    EXPECT_EQ(bitrep::to_bytes(full), (bytes{0xFF, 0x01}));
    const std::optional<small_t> five = small_t{5};
    EXPECT_EQ(bitrep::to_bytes(five), (bytes{0x01 | (5 << 1)}));
}

TEST(Optional, ReadingAnEmptyOneResetsAPresentTarget)
{
    EXPECT_FALSE(round_trip(std::optional<small_t>{}, std::optional<small_t>{small_t{3}}).has_value());
}

TEST(Optional, ReadingAPresentOneFillsAnEmptyTarget)
{
    const auto back = round_trip(std::optional<small_t>{small_t{6}}, std::optional<small_t>{});
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, 6);
}

TEST(Optional, OfAStructRoundTrips)
{
    struct Pose {
        small_t a;
        Team team;
        bool operator==(const Pose&) const = default;
    };
    std::optional<Pose> pose = Pose{4, Team::blue};
    EXPECT_EQ(bitrep::bit_size(pose), 6u);
    EXPECT_EQ(round_trip(pose), pose);
}

// ---------------------------------------------------------------- aggregates

struct Inner {
    std::uint8_t x;
    bool y;
};
struct Outer {
    bool a;
    Inner inner;
    bool b;
};
struct Flat {
    bool a;
    std::uint8_t x;
    bool y;
    bool b;
};

TEST(Aggregate, NestingAddsNoFraming)
{
    Outer outer{};
    outer.a = true;
    outer.inner.x = 0xC3;
    outer.inner.y = true;
    outer.b = false;
    Flat flat{};
    flat.a = true;
    flat.x = 0xC3;
    flat.y = true;
    flat.b = false;
    EXPECT_EQ(bitrep::bit_size(outer), 11u);
    EXPECT_EQ(bitrep::to_bytes(outer), bitrep::to_bytes(flat));
    EXPECT_EQ(bitrep::to_bytes(outer), bit_builder{}.bits(1, 1).bits(0xC3, 8).bits(1, 1).bits(0, 1).result());
}

TEST(Aggregate, FieldsGoInDeclarationOrder)
{
    struct Pair {
        small_t first;
        small_t second;
    };
    Pair p{};
    p.first = 1;
    p.second = 6;
    EXPECT_EQ(bitrep::to_bytes(p), (bytes{0x31})); // 1 | 6 << 3
}

TEST(Aggregate, EmptyAggregateCostsNothing)
{
    struct Nothing {};
    EXPECT_EQ(bitrep::bit_size(Nothing{}), 0u);
    EXPECT_TRUE(bitrep::to_bytes(Nothing{}).empty());
    Nothing target{};
    EXPECT_TRUE(bitrep::from_bytes(bytes{}, target));
}

struct Slot {
    bool used;
    small_t count;
};
struct Shelf {
    bool open;
    Slot slot;
};

TEST(Aggregate, FailurePathUsesZeroBasedFieldPositions)
{
    Shelf shelf{};
    shelf.slot.count = 9;
    const bitrep::status st = write_status(shelf);
    EXPECT_STATUS(st, bitrep::error::value_out_of_range, "Shelf.#1.#1", 2u);
}

// ---------------------------------------------------------------- described classes

struct Swapped {
    small_t a;
    small_t b;
};
BOOST_DESCRIBE_STRUCT(Swapped, (), (b, a))

TEST(Described, StructFieldsGoInDescriptionOrder)
{
    Swapped s{};
    s.a = 1;
    s.b = 6;
    EXPECT_EQ(bitrep::to_bytes(s), (bytes{0x0E})); // b first: 6 | 1 << 3
    const Swapped back = round_trip(s);
    EXPECT_EQ(back.a, 1);
    EXPECT_EQ(back.b, 6);
}

// Leaves a member out on purpose, so it says so (else it would not compile).
struct Partial {
    std::uint8_t sent;
    std::uint8_t not_described;
    std::uint8_t also_sent;
    static constexpr bool bitrep_partial_description = true;
};
BOOST_DESCRIBE_STRUCT(Partial, (), (sent, also_sent))

TEST(Described, MembersLeftOutOfTheDescriptionAreNotSent)
{
    Partial p{};
    p.sent = 1;
    p.not_described = 2;
    p.also_sent = 3;
    EXPECT_EQ(bitrep::to_bytes(p), (bytes{1, 3}));
    Partial target{};
    target.not_described = 9;
    target = decode(bytes{4, 5}, target);
    EXPECT_EQ(target.sent, 4);
    EXPECT_EQ(target.not_described, 9);
    EXPECT_EQ(target.also_sent, 5);
}

TEST(Described, MembersLeftOutOfTheDescriptionKeepTheirValuesThroughADecoderToo)
{
    // They are never read, so a decoder must start from a copy of the
    // target, not from whatever its working object holds.
    bitrep::decoder<Partial> decoder;
    Partial first{};
    first.not_described = 9;
    ASSERT_TRUE(decoder.decode(bytes{4, 5}, first));
    Partial second{};
    second.not_described = 7;
    ASSERT_TRUE(decoder.decode(bytes{6, 8}, second));
    EXPECT_EQ(first.not_described, 9);
    EXPECT_EQ(second.not_described, 7);
    EXPECT_EQ(second.sent, 6);
    EXPECT_EQ(second.also_sent, 8);
}

TEST(Described, DescriptionNamesFieldsInsteadOfPositions)
{
    Swapped s{};
    s.a = 8;
    const bitrep::status st = write_status(s);
    EXPECT_EQ(st.field_path(), "Swapped.a");
    EXPECT_EQ(st.bit_offset(), 3u);
}

struct Creature {
    small_t level;
    bool operator==(const Creature&) const = default;
};
BOOST_DESCRIBE_STRUCT(Creature, (), (level))

class Character : public Creature {
public:
    Character() = default;
    Character(int level_value, int hp_value, bool hidden_value, int secret_value)
        : Creature{level_value}, hp(hp_value), hidden_(hidden_value), secret_(secret_value)
    {
    }
    int secret() const { return secret_; }
    bool hidden() const { return hidden_; }
    bool operator==(const Character&) const = default;

    bitrep::ranged<int, 0, 3> hp;

protected:
    bool hidden_ = false;

private:
    bitrep::ranged<int, 0, 15> secret_;

    BOOST_DESCRIBE_CLASS(Character, (Creature), (hp), (hidden_), (secret_))
};

TEST(Described, ClassWritesItsBaseFieldsFirst)
{
    const Character c(5, 2, true, 9);
    EXPECT_EQ(bitrep::bit_size(c), 10u);
    // level 3 bits, hp 2, hidden 1, secret 4: 5 | 2 << 3 | 1 << 5 | 9 << 6 = 0x275
    EXPECT_EQ(bitrep::to_bytes(c), (bytes{0x75, 0x02}));
}

TEST(Described, ClassPrivateAndProtectedMembersRoundTrip)
{
    const Character c(7, 3, true, 15);
    const Character back = round_trip(c);
    EXPECT_EQ(back, c);
    EXPECT_EQ(back.secret(), 15);
    EXPECT_TRUE(back.hidden());
    EXPECT_EQ(back.level, 7);
}

TEST(Described, FailureInAPrivateMemberNamesIt)
{
    const bitrep::status st = write_status(Character(1, 1, false, 16));
    EXPECT_STATUS(st, bitrep::error::value_out_of_range, "Character.secret_", 6u);
    EXPECT_NE(st.message().find("Character.secret_"), std::string::npos);
    EXPECT_NE(st.message().find("bit 6"), std::string::npos);
}

TEST(Described, FailureInABaseMemberNamesTheMemberWithoutTheBase)
{
    const bitrep::status st = write_status(Character(8, 1, false, 1));
    EXPECT_EQ(st.field_path(), "Character.level");
    EXPECT_EQ(st.bit_offset(), 0u);
}

struct Tagged {
    bool tag;
};
BOOST_DESCRIBE_STRUCT(Tagged, (), (tag))
struct Counted {
    small_t count;
};
BOOST_DESCRIBE_STRUCT(Counted, (), (count))
struct Both : Tagged, Counted {
    std::uint8_t own;
};
BOOST_DESCRIBE_STRUCT(Both, (Tagged, Counted), (own))

TEST(Described, SeveralBasesGoInDescriptionOrderBeforeOwnMembers)
{
    Both b{};
    b.tag = true;
    b.count = 5;
    b.own = 0xFF;
    EXPECT_EQ(bitrep::to_bytes(b), bit_builder{}.bits(1, 1).bits(5, 3).bits(0xFF, 8).result());
    Both back{};
    back = decode(bitrep::to_bytes(b), back);
    EXPECT_TRUE(back.tag);
    EXPECT_EQ(back.count, 5);
    EXPECT_EQ(back.own, 0xFF);
}

// ---------------------------------------------------------------- hooks

struct OnlyFirst {
    std::uint8_t sent;
    std::uint8_t kept;
    template <class Stream>
    bool serialize(Stream& stream)
    {
        return bitrep::serialize(stream, sent);
    }
};

TEST(Hooks, MemberHookReplacesFieldByFieldReflection)
{
    OnlyFirst value{};
    value.sent = 0x5A;
    value.kept = 0x11;
    EXPECT_EQ(bitrep::bit_size(value), 8u);
    EXPECT_EQ(bitrep::to_bytes(value), (bytes{0x5A}));
    OnlyFirst target{};
    target.kept = 0x22;
    target = decode(bytes{0x77}, target);
    EXPECT_EQ(target.sent, 0x77);
    EXPECT_EQ(target.kept, 0x22);
}

namespace geo {
struct Vec2 {
    std::int32_t x;
    std::int32_t y;
};
template <class Stream>
bool bitrep_serialize(Stream& stream, Vec2& v)
{
    return stream.serialize_int(v.x, -1000, 1000) && stream.serialize_int(v.y, -1000, 1000);
}
} // namespace geo

TEST(Hooks, FreeHookIsFoundByArgumentDependentLookup)
{
    const geo::Vec2 v{-1000, 1000};
    EXPECT_EQ(bitrep::bit_size(v), 22u); // 11 bits each
    EXPECT_EQ(bitrep::to_bytes(v), bit_builder{}.bits(0, 11).bits(2000, 11).result());
    const geo::Vec2 back = round_trip(v);
    EXPECT_EQ(back.x, -1000);
    EXPECT_EQ(back.y, 1000);
}

TEST(Hooks, FreeHookRefusalsReachTheStatus)
{
    const bitrep::status st = write_status(geo::Vec2{0, 1001});
    EXPECT_EQ(st.code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(st.bit_offset(), 11u);
    geo::Vec2 target{3, 4};
    const bitrep::status read = bitrep::from_bytes(bit_builder{}.bits(2001, 11).bits(0, 11).result(), target);
    EXPECT_EQ(read.code(), bitrep::error::out_of_range);
    EXPECT_EQ(target.x, 3);
}

struct DescribedWithHook {
    std::uint8_t a;
    std::uint8_t b;
    template <class Stream>
    bool serialize(Stream& stream)
    {
        return bitrep::serialize(stream, b);
    }
};
BOOST_DESCRIBE_STRUCT(DescribedWithHook, (), (a, b))

TEST(Hooks, MemberHookWinsOverADescription)
{
    DescribedWithHook v{};
    v.a = 1;
    v.b = 2;
    EXPECT_EQ(bitrep::to_bytes(v), (bytes{0x02}));
}

struct HookedBase {
    std::uint8_t a;
    template <class Stream>
    bool serialize(Stream& stream)
    {
        return bitrep::serialize_field(stream, "a", a);
    }
};

// A described class whose base has a hook: the description lists the base,
// which goes through its hook, then the class's own members.
struct DescribedChild : HookedBase {
    std::uint8_t b;
};
BOOST_DESCRIBE_STRUCT(DescribedChild, (HookedBase), (b))

TEST(Hooks, AnInheritedHookDoesNotHideADescribedClassesOwnMembers)
{
    DescribedChild v{};
    v.a = 0x12;
    v.b = 0x34;
    EXPECT_EQ(bitrep::bit_size(v), 16u);
    EXPECT_EQ(bitrep::to_bytes(v), (bytes{0x12, 0x34}));
    EXPECT_EQ(bitrep::max_bits<DescribedChild>, bitrep::unbounded_bits); // the base's hook declares no bound
    DescribedChild back{};
    back = decode(bytes{0x56, 0x78}, back);
    EXPECT_EQ(back.a, 0x56);
    EXPECT_EQ(back.b, 0x78);
}

// A class that adds no data may use its base's hook as its own.
struct TagChild : HookedBase {};

TEST(Hooks, AClassAddingNoDataUsesItsBasesHook)
{
    TagChild v{};
    v.a = 0x42;
    EXPECT_EQ(bitrep::to_bytes(v), (bytes{0x42}));
    TagChild back{};
    back = decode(bytes{0x24}, back);
    EXPECT_EQ(back.a, 0x24);
}

namespace geo {
struct Pair {
    std::uint8_t a;
    std::uint8_t b;
};
BOOST_DESCRIBE_STRUCT(Pair, (), (a, b))
template <class Stream>
bool bitrep_serialize(Stream& stream, Pair& p)
{
    return bitrep::serialize(stream, p.a); // b is deliberately not sent
}
} // namespace geo

TEST(Hooks, FreeHookWinsOverADescription)
{
    geo::Pair p{};
    p.a = 9;
    p.b = 8;
    EXPECT_EQ(bitrep::to_bytes(p), (bytes{0x09}));
}

struct Hooked {
    small_t level;
    bitrep::ranged<int, 1, 50> count; // 6 bits: offsets 50..63 are refused on read
    template <class Stream>
    bool serialize(Stream& stream)
    {
        return bitrep::serialize_field(stream, "level", level) && bitrep::serialize_field(stream, "count", count);
    }
};

TEST(Hooks, SerializeFieldNamesTheFieldInThePath)
{
    Hooked h{};
    h.level = 3;
    h.count = 65;
    const bitrep::status st = write_status(h);
    EXPECT_STATUS(st, bitrep::error::value_out_of_range, "Hooked.count", 3u);
}

TEST(Hooks, SerializeFieldNamesTheFieldOnRead)
{
    Hooked target{};
    const bitrep::status st = bitrep::from_bytes(bit_builder{}.bits(1, 3).bits(60, 6).result(), target);
    EXPECT_STATUS(st, bitrep::error::out_of_range, "Hooked.count", 3u);
}

struct Route {
    geo::Vec2 from;
    geo::Vec2 to;
};

TEST(Hooks, HookTypeInsideAnAggregateIsUsedForThatField)
{
    Route r{};
    r.from = {0, 0};
    r.to = {1, -1};
    EXPECT_EQ(bitrep::bit_size(r), 44u);
    EXPECT_EQ(bitrep::to_bytes(r), bit_builder{}.bits(1000, 11).bits(1000, 11).bits(1001, 11).bits(999, 11).result());
    r.to.y = -1001;
    EXPECT_EQ(write_status(r).field_path(), "Route.#1");
}

TEST(Hooks, ToBytesSizesUnboundedHookTypesByMeasuring)
{
    const Route r{};
    ASSERT_EQ(bitrep::max_bits<Route>, bitrep::unbounded_bits);
    EXPECT_EQ(bitrep::to_bytes(r).size(), 6u); // ceil(44 / 8)
}

struct Bounded {
    std::uint16_t value;
    static constexpr std::size_t bitrep_max_bits = 16;
    template <class Stream>
    bool serialize(Stream& stream)
    {
        return bitrep::serialize(stream, value);
    }
};

TEST(Hooks, HookWithoutADeclaredBoundIsUnbounded)
{
    EXPECT_EQ(bitrep::max_bits<OnlyFirst>, bitrep::unbounded_bits);
    EXPECT_EQ(bitrep::max_bits<geo::Vec2>, bitrep::unbounded_bits);
}

TEST(Hooks, HookWithADeclaredBoundReportsIt)
{
    EXPECT_EQ(bitrep::max_bits<Bounded>, 16u);
    EXPECT_EQ((bitrep::max_bits<std::array<Bounded, 3>>), 48u);
}

// ---------------------------------------------------------------- max_bits

TEST(MaxBits, ScalarsCostTheirWidth)
{
    EXPECT_EQ(bitrep::max_bits<bool>, 1u);
    EXPECT_EQ(bitrep::max_bits<std::uint8_t>, 8u);
    EXPECT_EQ(bitrep::max_bits<std::int16_t>, 16u);
    EXPECT_EQ(bitrep::max_bits<std::uint32_t>, 32u);
    EXPECT_EQ(bitrep::max_bits<std::int64_t>, 64u);
    EXPECT_EQ(bitrep::max_bits<float>, 32u);
    EXPECT_EQ(bitrep::max_bits<double>, 64u);
}

TEST(MaxBits, EnumsCostTheirIndexWidth)
{
    EXPECT_EQ(bitrep::max_bits<Single>, 0u);
    EXPECT_EQ(bitrep::max_bits<Coin>, 1u);
    EXPECT_EQ(bitrep::max_bits<Team>, 2u);
    EXPECT_EQ(bitrep::max_bits<Five>, 3u);
}

TEST(MaxBits, AnnotationsCostTheirDeclaredBound)
{
    EXPECT_EQ((bitrep::max_bits<bitrep::ranged<int, 0, 100>>), 7u);
    EXPECT_EQ((bitrep::max_bits<bitrep::ranged<int, 3, 3>>), 0u);
    EXPECT_EQ((bitrep::max_bits<bitrep::quantized<-100.f, 100.f, 0.01f>>), 15u);
    EXPECT_EQ(bitrep::max_bits<bitrep::quat<9>>, 29u);
    EXPECT_EQ(bitrep::max_bits<bitrep::bounded_string<16>>, 5u + 7u + 128u);
    EXPECT_EQ((bitrep::max_bits<bitrep::bounded_vector<small_t, 4>>), 3u + 4u * 3u);
}

TEST(MaxBits, ContainersMultiplyAndOptionalsAddOne)
{
    EXPECT_EQ((bitrep::max_bits<std::array<bool, 4>>), 4u);
    EXPECT_EQ((bitrep::max_bits<std::array<small_t, 5>>), 15u);
    EXPECT_EQ(bitrep::max_bits<std::optional<small_t>>, 4u);
    EXPECT_EQ((bitrep::max_bits<std::optional<bitrep::bounded_string<3>>>), 1u + 2u + 7u + 24u);
}

TEST(MaxBits, StructsSumTheirFieldsIncludingBases)
{
    EXPECT_EQ(bitrep::max_bits<Outer>, 11u);
    EXPECT_EQ(bitrep::max_bits<Character>, 10u);
    EXPECT_EQ(bitrep::max_bits<Both>, 12u);
    EXPECT_EQ(bitrep::max_bits<Partial>, 16u);
}

TEST(MaxBits, UnboundedSaturatesThroughContainers)
{
    EXPECT_EQ((bitrep::max_bits<bitrep::bounded_vector<OnlyFirst, 3>>), bitrep::unbounded_bits);
    EXPECT_EQ((bitrep::max_bits<std::optional<geo::Vec2>>), bitrep::unbounded_bits);
    EXPECT_EQ(bitrep::max_bits<Route>, bitrep::unbounded_bits);
}

TEST(MaxBits, IsAtLeastTheSizeOfTheLargestValue)
{
    bitrep::bounded_vector<bitrep::bounded_string<4>, 3> full;
    for (int i = 0; i < 3; ++i)
        full.push_back("abcd");
    EXPECT_LE(bitrep::bit_size(full), bitrep::max_bits<decltype(full)>);
    EXPECT_EQ((bitrep::max_bits<decltype(full)>), 2u + 3u * (3u + 7u + 32u));
}

// ---------------------------------------------------------------- regressions

namespace {
enum class Toggle : bool { off, on };
BOOST_DESCRIBE_ENUM(Toggle, off, on)

struct Switchboard {
    bitrep::bounded_vector<bool, 10> lamps;
    Toggle main;
};
} // namespace

TEST(BoundedVector, OfBoolCostsOneBitPerElementAndRoundTrips)
{
    Switchboard board{};
    board.lamps = {true, false, true, true, false};
    board.main = Toggle::on;
    // 4 bits of length (bits_required(0, 10)) + 5 lamps + 1 bit of Toggle.
    EXPECT_EQ(bitrep::bit_size(board), 4u + 5u + 1u);
    const auto wire = bitrep::to_bytes(board);
    Switchboard decoded{};
    ASSERT_TRUE(bitrep::from_bytes(wire, decoded));
    EXPECT_EQ(decoded.lamps, board.lamps);
    EXPECT_EQ(decoded.main, Toggle::on);
}

TEST(Enum, WithBoolUnderlyingTypeSendsItsIndexInOneBit)
{
    const auto wire = bitrep::to_bytes(Toggle::on);
    ASSERT_EQ(wire.size(), 1u);
    EXPECT_EQ(wire[0], 0x01);
    Toggle decoded = Toggle::off;
    ASSERT_TRUE(bitrep::from_bytes(wire, decoded));
    EXPECT_EQ(decoded, Toggle::on);
}

// ---------------------------------------------------------------- hooks that refuse

namespace {
struct Refusing {
    std::int32_t x = 0;
    // Refuses negative values in the usual serialize style: return false,
    // without recording why.
    template <class Stream>
    bool serialize(Stream& stream)
    {
        if constexpr (Stream::is_writing) {
            if (x < 0)
                return false;
        }
        if (!stream.serialize_int(x, -10, 10))
            return false;
        return !(Stream::is_reading && x < 0);
    }
};
} // namespace

TEST(Hooks, ReturningFalseWithoutRecordingIsAFailureOnWrite)
{
    const Refusing value{-5};
    bytes out;
    const bitrep::status st = bitrep::to_bytes(value, out);
    EXPECT_FALSE(st);
    EXPECT_EQ(st.code(), bitrep::error::hook_failed);
    EXPECT_TRUE(out.empty());
    EXPECT_THROW((void)bitrep::to_bytes(value), bitrep::write_error);
}

TEST(Hooks, ReturningFalseWithoutRecordingIsAFailureOnReadAndLeavesTheTarget)
{
    // -5 in [-10, 10] is offset 5 in 5 bits.
    const bytes wire{0x05};
    Refusing target{7};
    const bitrep::status st = bitrep::from_bytes(wire, target);
    EXPECT_FALSE(st);
    EXPECT_EQ(st.code(), bitrep::error::hook_failed);
    EXPECT_EQ(target.x, 7);
}
