// to_bytes / from_bytes / bit_size end to end: golden bytes, exact sizes,
// every error code with its field path and bit offset, all-or-nothing reads
// under truncation and hostile input, and randomized round trips.
#include <bitrep/bitrep.hpp>

#include <gtest/gtest.h>

#include "test_oracle.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <new>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using namespace oracle::common;

using oracle::contains;

} // namespace

enum class Team { red, blue, green };
BOOST_DESCRIBE_ENUM(Team, red, blue, green)

enum class Small : std::int8_t { a, b, c };
BOOST_DESCRIBE_ENUM(Small, a, b, c)

enum class Sparse { low = -5, mid = 40, high = 1000 };
BOOST_DESCRIBE_ENUM(Sparse, low, mid, high)

using position_t = bitrep::quantized<-100.f, 100.f, 0.01f>;
using angle_t = bitrep::quantized<0.f, 360.f, 0.1f>;
using speed_t = bitrep::quantized<0.f, 10.f, 0.01f>;

// ---------------------------------------------------------------- golden bytes

struct Golden {
    bitrep::ranged<int, 0, 100> health;
    bool alive;
    Team team;
    bitrep::ranged<int, -100, 100> delta;
    speed_t speed;
    bitrep::bounded_string<16> tag;
    std::uint16_t code;
    bool operator==(const Golden&) const = default;
};

namespace {
Golden golden_value()
{
    Golden g{};
    g.health = 87;
    g.alive = true;
    g.team = Team::blue;
    g.delta = -3;
    g.speed = 0.025f; // quantum 3 (serialize 1.0 section 6 example)
    g.tag = "ok";
    g.code = 0xBEEF;
    return g;
}
} // namespace

TEST(Golden, StructBytesAreItsFieldsPrimitivesInOrder)
{
    // health 87 (7) | alive 1 (1) | blue 1 (2) | -3 -> 97 (8) | quantum 3 (10) |
    // length 2 (5) | pad 7 | 'o' 'k' | 0xBEEF (16) = 72 bits
    EXPECT_EQ(bitrep::to_bytes(golden_value()), (bytes{0xD7, 0x85, 0x0D, 0x20, 0x00, 0x6F, 0x6B, 0xEF, 0xBE}));
}

TEST(Golden, StructBytesMatchAnIndependentBitPacker)
{
    const bytes expected = bit_builder{}
                               .bits(87, 7)
                               .bits(1, 1)
                               .bits(1, 2)
                               .bits(97, 8)
                               .bits(3, 10)
                               .bits(2, 5)
                               .text("ok")
                               .bits(0xBEEF, 16)
                               .result();
    EXPECT_EQ(bitrep::to_bytes(golden_value()), expected);
}

TEST(Golden, StructBytesEqualTheStreamPrimitivesCalledByHand)
{
    std::array<std::uint8_t, 32> buffer{};
    bitrep::write_stream stream(buffer);
    std::int32_t health = 87;
    bool alive = true;
    std::int32_t team = 1;
    std::int32_t delta = -3;
    float speed = 0.025f;
    std::string tag = "ok";
    std::uint64_t code = 0xBEEF;
    ASSERT_TRUE(stream.serialize_int(health, 0, 100));
    ASSERT_TRUE(stream.serialize_bool(alive));
    ASSERT_TRUE(stream.serialize_int(team, 0, 2));
    ASSERT_TRUE(stream.serialize_int(delta, -100, 100));
    ASSERT_TRUE(stream.serialize_compressed_float(speed, 0.0f, 10.0f, 0.01f));
    ASSERT_TRUE(stream.serialize_string(tag, 17));
    ASSERT_TRUE(stream.serialize_bits(code, 16));
    const std::size_t size = stream.flush();
    EXPECT_EQ(bitrep::to_bytes(golden_value()), bytes(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(size)));
}

TEST(Golden, BitSizeIsTheExactBitCount)
{
    EXPECT_EQ(bitrep::bit_size(golden_value()), 72u);
}

TEST(Golden, BytesDecodeBackToTheSameFields)
{
    Golden back{};
    ASSERT_TRUE(bitrep::from_bytes(bytes{0xD7, 0x85, 0x0D, 0x20, 0x00, 0x6F, 0x6B, 0xEF, 0xBE}, back));
    EXPECT_EQ(back.health, 87);
    EXPECT_TRUE(back.alive);
    EXPECT_EQ(back.team, Team::blue);
    EXPECT_EQ(back.delta, -3);
    EXPECT_EQ(back.speed.quantum(), 3u);
    EXPECT_EQ(back.tag, "ok");
    EXPECT_EQ(back.code, 0xBEEF);
}

struct StandardExample {
    bool flag;
    bitrep::ranged<int, 0, 7> value;
    bitrep::bounded_string<0> aligner; // string(s, 1): no length bits, just align
    bool operator==(const StandardExample&) const = default;
};

TEST(Golden, StandardBoolIntAlignExampleIsOneByte0x0B)
{
    StandardExample e{};
    e.flag = true;
    e.value = 5;
    EXPECT_EQ(bitrep::to_bytes(e), (bytes{0x0B}));
}

// ---------------------------------------------------------------- errors and paths

struct Item {
    bitrep::ranged<int, 0, 100> count;
    bitrep::ranged<int, 0, 3> kind;
    bool operator==(const Item&) const = default;
};
BOOST_DESCRIBE_STRUCT(Item, (), (count, kind))

struct Player {
    bitrep::ranged<int, 0, 100> health;
    bitrep::bounded_vector<Item, 8> items; // size in 4 bits, 9 bits per item
    bitrep::bounded_string<8> name;        // length in 4 bits
    Team team;
    bool operator==(const Player&) const = default;
};
BOOST_DESCRIBE_STRUCT(Player, (), (health, items, name, team))

namespace {

Player sample_player()
{
    Player p{};
    p.health = 50;
    for (int i = 0; i < 5; ++i)
        p.items.push_back({10 * i, i % 4});
    p.name = "hero";
    p.team = Team::green;
    return p;
}

/// health, item count and the first `valid` items (count 10 * i, kind 1).
bit_builder player_prefix(std::uint64_t item_count, int valid)
{
    bit_builder b;
    b.bits(50, 7).bits(item_count, 4);
    for (int i = 0; i < valid; ++i)
        b.bits(static_cast<std::uint64_t>(10 * i), 7).bits(1, 2);
    return b;
}

/// Reads into a copy of `start` and checks that a failure left it untouched.
template <class T>
bitrep::status read_keeping(const bytes& data, const T& start)
{
    T target = start;
    const bitrep::status st = bitrep::from_bytes(data, target);
    if (!st) {
        EXPECT_TRUE(target == start) << "a failed read changed the target: " << st.message();
    }
    return st;
}

} // namespace

TEST(Errors, DecodedValueAboveItsRangeIsOutOfRangeWithNamedPathAndBit)
{
    bit_builder b = player_prefix(4, 3);
    b.bits(101, 7).bits(0, 2).bits(0, 4).align().bits(0, 2);
    const bitrep::status st = read_keeping(b.result(), sample_player());
    EXPECT_STATUS(st, bitrep::error::out_of_range, "Player.items[3].count", 38u); // 7 + 4 + 3 * 9
    EXPECT_TRUE(contains(st.message(), "out_of_range"));
    EXPECT_TRUE(contains(st.message(), "Player.items[3].count"));
    EXPECT_TRUE(contains(st.message(), "bit 38"));
}

TEST(Errors, ValueOutsideItsAnnotationIsRefusedOnWriteWithNamedPathAndBit)
{
    Player p = sample_player();
    p.items[3].count = 101;
    bytes out{1, 2, 3};
    const bitrep::status st = bitrep::to_bytes(p, out);
    EXPECT_STATUS(st, bitrep::error::value_out_of_range, "Player.items[3].count", 38u);
    EXPECT_TRUE(contains(st.message(), "value_out_of_range at Player.items[3].count, bit 38"));
    EXPECT_TRUE(out.empty());
}

TEST(Errors, ConvenienceToBytesThrowsWriteErrorCarryingTheStatus)
{
    Player p = sample_player();
    p.health = 101;
    try {
        (void)bitrep::to_bytes(p);
        FAIL() << "to_bytes accepted health 101";
    } catch (const bitrep::write_error& e) {
        EXPECT_EQ(e.status().code(), bitrep::error::value_out_of_range);
        EXPECT_EQ(e.status().field_path(), "Player.health");
        EXPECT_EQ(std::string(e.what()), e.status().message());
    }
}

TEST(Errors, VectorSizeAboveItsBoundIsOutOfRange)
{
    const bitrep::status st = read_keeping(player_prefix(9, 9).result(), sample_player());
    EXPECT_STATUS(st, bitrep::error::out_of_range, "Player.items", 7u);
}

TEST(Errors, InputEndingInsideAValueIsTruncated)
{
    const bytes full = bitrep::to_bytes(golden_value());
    const bytes cut(full.begin(), full.end() - 1);
    const bitrep::status st = read_keeping(cut, Golden{});
    EXPECT_STATUS(st, bitrep::error::truncated, "Golden.#6", 56u);
    EXPECT_TRUE(contains(st.message(), "Golden.#6"));
    EXPECT_TRUE(contains(st.message(), "bit 56"));
}

namespace {
/// Arrays of fixed-width leaves on either side of the length the engine
/// compiles without a loop, and short ones inside a vector's elements.
struct Arrays {
    std::array<bitrep::ranged<int, 0, 9>, 1> one;
    std::array<bitrep::ranged<int, 0, 9>, 16> sixteen;
    std::array<bitrep::ranged<int, 0, 9>, 17> seventeen;
    bitrep::bounded_vector<std::array<bitrep::ranged<int, 0, 9>, 3>, 4> triples;
    friend bool operator==(const Arrays&, const Arrays&) = default;
};
} // namespace

TEST(Errors, AnArrayElementIsNamedByItsIndexWhateverTheArraysLength)
{
    // Each element is 4 bits: one[0] at bit 0, sixteen[i] at 4 + 4i,
    // seventeen[i] at 68 + 4i, the triples' count (3 bits) at 136, then
    // triples[j][k] at 139 + 12j + 4k.
    using digit = bitrep::ranged<int, 0, 9>;
    struct element {
        std::string path;
        std::size_t bit;
        std::function<digit&(Arrays&)> of;
    };
    std::vector<element> elements{{"Arrays.#0[0]", 0, [](Arrays& a) -> digit& { return a.one[0]; }}};
    for (std::size_t i = 0; i < 16; ++i)
        elements.push_back({"Arrays.#1[" + std::to_string(i) + "]", 4 + 4 * i,
                            [i](Arrays& a) -> digit& { return a.sixteen[i]; }});
    for (std::size_t i = 0; i < 17; ++i)
        elements.push_back({"Arrays.#2[" + std::to_string(i) + "]", 68 + 4 * i,
                            [i](Arrays& a) -> digit& { return a.seventeen[i]; }});
    for (std::size_t j = 0; j < 4; ++j)
        for (std::size_t k = 0; k < 3; ++k)
            elements.push_back({"Arrays.#3[" + std::to_string(j) + "][" + std::to_string(k) + "]",
                                139 + 12 * j + 4 * k, [j, k](Arrays& a) -> digit& { return a.triples[j][k]; }});
    Arrays sent{};
    sent.triples.resize(4);
    for (std::size_t n = 0; n < elements.size(); ++n)
        elements[n].of(sent) = static_cast<int>(n % 10);
    const bytes wire = bitrep::to_bytes(sent);
    ASSERT_EQ(wire.size(), (139u + 48u + 7u) / 8u);
    Arrays back{};
    ASSERT_TRUE(bitrep::from_bytes(wire, back));
    for (const element& e : elements)
        EXPECT_EQ(e.of(back), e.of(sent)) << e.path;
    for (const element& e : elements) {
        // Refused on write where it stands...
        Arrays wrong = sent;
        e.of(wrong) = 10;
        bytes out;
        EXPECT_STATUS(bitrep::to_bytes(wrong, out), bitrep::error::value_out_of_range, e.path, e.bit);
        // ...and on read: a 10 in its bits (bit p is bit p % 8 of byte p / 8)...
        bytes ten = wire;
        for (std::size_t k = 0; k < 4; ++k) {
            const auto mask = static_cast<std::uint8_t>(1u << ((e.bit + k) % 8));
            std::uint8_t& byte = ten[(e.bit + k) / 8];
            byte = static_cast<std::uint8_t>(((10u >> k) & 1u) != 0 ? byte | mask : byte & ~mask);
        }
        EXPECT_STATUS(read_keeping(ten, Arrays{}), bitrep::error::out_of_range, e.path, e.bit);
        // ...and the input ending inside it, where a whole byte can (a
        // vector whose elements the input cannot hold is refused at its
        // count, before its elements).
        if (e.bit % 8 == 0 || e.bit % 8 > 4) {
            const bytes cut(wire.begin(), wire.begin() + static_cast<std::ptrdiff_t>((e.bit + 7) / 8));
            if (e.bit < 136)
                EXPECT_STATUS(read_keeping(cut, Arrays{}), bitrep::error::truncated, e.path, e.bit);
            else
                EXPECT_STATUS(read_keeping(cut, Arrays{}), bitrep::error::truncated, "Arrays.#3", 139u);
        }
    }
}

struct LateWide {
    bool flag;
    std::uint64_t value;
    bool operator==(const LateWide&) const = default;
};

TEST(Errors, TruncatedSixtyFourBitValueReportsItsFirstBit)
{
    LateWide w{};
    w.value = 0x0123456789ABCDEFull;
    const bytes full = bitrep::to_bytes(w);
    ASSERT_EQ(full.size(), 9u);
    const bitrep::status st = read_keeping(bytes(full.begin(), full.begin() + 5), LateWide{});
    EXPECT_STATUS(st, bitrep::error::truncated, "LateWide.#1", 1u); // the low 32 bits were there: the 64-bit primitive still started at bit 1
}

TEST(Errors, EmptyInputIsTruncatedAtTheFirstField)
{
    const bitrep::status st = read_keeping(bytes{}, Golden{});
    EXPECT_STATUS(st, bitrep::error::truncated, "Golden.#0", 0u);
}

TEST(Errors, NonZeroAlignmentPaddingIsBadPadding)
{
    // flag 1, value 5, then padding bits 4..7 of which bit 4 is set.
    const bitrep::status st = read_keeping(bytes{0x0B | 0x10}, StandardExample{});
    EXPECT_STATUS(st, bitrep::error::bad_padding, "StandardExample.#2", 4u);
    EXPECT_EQ(read_keeping(bytes{0x0B | 0x80}, StandardExample{}).code(), bitrep::error::bad_padding);
}

TEST(Errors, MalformedUtf8IsBadUtf8AtTheString)
{
    // health, no items, name of 2 bytes (C0 80: overlong NUL), team red
    const bytes data = player_prefix(0, 0).bits(2, 4).text("\xC0\x80").bits(0, 2).result();
    const bitrep::status st = read_keeping(data, sample_player());
    EXPECT_STATUS(st, bitrep::error::bad_utf8, "Player.name", 11u); // the string primitive starts after health (7) and the item count (4)
    EXPECT_TRUE(contains(st.message(), "bad_utf8 at Player.name, bit 11"));
}

TEST(Errors, ZeroByteInAStringIsInteriorNul)
{
    const bytes data = player_prefix(0, 0).bits(3, 4).text(std::string_view("a\0b", 3)).bits(0, 2).result();
    const bitrep::status st = read_keeping(data, sample_player());
    EXPECT_EQ(st.code(), bitrep::error::interior_nul);
    EXPECT_EQ(st.field_path(), "Player.name");
}

TEST(Errors, StringRefusalsOnReadReportTheStringsStartBitAsWritesDo)
{
    // The name starts at bit 11 (health 7 + item count 4). A write of the
    // same malformed name reports bit 11; a read must point at the same primitive.
    Player bad = sample_player();
    bad.items.clear();
    bad.name = std::string("a\0b", 3);
    bytes sink;
    const bitrep::status written = bitrep::to_bytes(bad, sink);
    EXPECT_EQ(written.code(), bitrep::error::interior_nul);
    EXPECT_EQ(written.bit_offset(), 11u);
    const bytes data = player_prefix(0, 0).bits(3, 4).text(std::string_view("a\0b", 3)).bits(0, 2).result();
    const bitrep::status read = read_keeping(data, sample_player());
    EXPECT_EQ(read.code(), bitrep::error::interior_nul);
    EXPECT_EQ(read.bit_offset(), written.bit_offset());
}

TEST(Errors, EnumIndexBeyondTheEnumeratorsIsBadEnumOnRead)
{
    const bytes data = player_prefix(0, 0).bits(0, 4).align().bits(3, 2).result(); // team index 3 of 3
    const bitrep::status st = read_keeping(data, sample_player());
    EXPECT_STATUS(st, bitrep::error::bad_enum, "Player.team", 16u);
    EXPECT_TRUE(contains(st.message(), "bit 16"));
}

TEST(Errors, EnumIndexBeyondAnIndexValuedEnumIsBadEnumOnRead)
{
    Small target = Small::b;
    EXPECT_EQ(bitrep::from_bytes(bytes{0x03}, target).code(), bitrep::error::bad_enum);
    EXPECT_EQ(target, Small::b);
    Sparse sparse = Sparse::mid;
    EXPECT_EQ(bitrep::from_bytes(bytes{0x03}, sparse).code(), bitrep::error::bad_enum);
    EXPECT_EQ(sparse, Sparse::mid);
}

TEST(Errors, NonEnumeratorValueIsBadEnumOnWrite)
{
    Player p = sample_player();
    p.team = static_cast<Team>(3);
    bytes out;
    const bitrep::status st = bitrep::to_bytes(p, out);
    EXPECT_EQ(st.code(), bitrep::error::bad_enum);
    EXPECT_EQ(st.field_path(), "Player.team");
    EXPECT_EQ(bitrep::to_bytes(static_cast<Small>(-1), out).code(), bitrep::error::bad_enum);
    EXPECT_EQ(bitrep::to_bytes(static_cast<Small>(3), out).code(), bitrep::error::bad_enum);
    EXPECT_EQ(bitrep::to_bytes(static_cast<Sparse>(41), out).code(), bitrep::error::bad_enum);
    EXPECT_EQ(bitrep::to_bytes(static_cast<Sparse>(2), out).code(), bitrep::error::bad_enum);
}

TEST(Errors, WholeExtraByteIsTrailingData)
{
    bytes data = bitrep::to_bytes(golden_value());
    data.push_back(0x00);
    const bitrep::status st = read_keeping(data, Golden{});
    EXPECT_EQ(st.code(), bitrep::error::trailing_data);
    EXPECT_EQ(st.bit_offset(), 72u);
    EXPECT_EQ(st.field_path(), "Golden");
}

struct Eighteen {
    bitrep::ranged<int, 0, 100> health;
    bool alive;
    Team team;
    bitrep::ranged<int, -100, 100> delta;
    bool operator==(const Eighteen&) const = default;
};

TEST(Errors, NonZeroUnusedBitsOfTheLastByteAreAccepted)
{
    Eighteen e{};
    e.health = 87;
    e.alive = true;
    e.team = Team::blue;
    e.delta = -3;
    bytes data = bitrep::to_bytes(e);
    ASSERT_EQ(data, (bytes{0xD7, 0x85, 0x01}));
    data[2] = static_cast<std::uint8_t>(data[2] | 0xFC); // bits 18..23 are not part of the value
    Eighteen back{};
    const bitrep::status st = bitrep::from_bytes(data, back);
    EXPECT_TRUE(st) << st.message();
    EXPECT_EQ(back, e);
}

TEST(Errors, CallerBufferTooSmallIsBufferTooSmall)
{
    std::array<std::uint8_t, 16> storage{};
    storage.fill(0xEE);
    std::size_t written = 99;
    const bitrep::status st = bitrep::to_bytes(golden_value(), std::span<std::uint8_t>(storage.data(), 8), written);
    EXPECT_EQ(st.code(), bitrep::error::buffer_too_small);
    EXPECT_EQ(st.field_path(), "Golden.#6");
    EXPECT_EQ(written, 0u);
    for (std::size_t i = 8; i < storage.size(); ++i)
        EXPECT_EQ(storage[i], 0xEE) << "byte " << i << " lies outside the span";
}

TEST(Errors, EmptyCallerBufferIsBufferTooSmall)
{
    std::size_t written = 99;
    EXPECT_EQ(bitrep::to_bytes(true, std::span<std::uint8_t>(), written).code(), bitrep::error::buffer_too_small);
    EXPECT_EQ(written, 0u);
}

TEST(Errors, ZeroBitValueFitsAnEmptyBuffer)
{
    std::size_t written = 99;
    EXPECT_TRUE(bitrep::to_bytes(bitrep::ranged<int, 4, 4>{4}, std::span<std::uint8_t>(), written));
    EXPECT_EQ(written, 0u);
}

TEST(Errors, StatusOfASuccessIsOk)
{
    Golden g{};
    const bitrep::status st = bitrep::from_bytes(bitrep::to_bytes(golden_value()), g);
    EXPECT_TRUE(st.ok());
    EXPECT_EQ(st.code(), bitrep::error::none);
    EXPECT_EQ(st.message(), "ok");
}

struct Slot {
    bool used;
    bitrep::ranged<int, 0, 100> count;
};
struct Inventory {
    bitrep::ranged<int, 0, 7> owner;
    bitrep::bounded_vector<Slot, 4> slots; // size in 3 bits, 8 bits per slot
};

TEST(Errors, AggregatePathsUseFieldPositions)
{
    const bytes data = bit_builder{}.bits(1, 3).bits(2, 3).bits(1, 1).bits(5, 7).bits(1, 1).bits(120, 7).result();
    Inventory target{};
    const bitrep::status st = bitrep::from_bytes(data, target);
    EXPECT_STATUS(st, bitrep::error::out_of_range, "Inventory.#1[1].#1", 15u);
    EXPECT_TRUE(contains(st.message(), "Inventory.#1[1].#1, bit 15"));
}

template <int Depth>
struct Nest {
    Nest<Depth - 1> inner;
};
template <>
struct Nest<0> {
    bitrep::ranged<int, 0, 1> leaf;
};

template <int Depth>
Nest<0>& innermost(Nest<Depth>& nest)
{
    if constexpr (Depth == 0)
        return nest;
    else
        return innermost(nest.inner);
}

TEST(Errors, VeryDeepPathsKeepTheInnermostSegmentsAndMarkTheCut)
{
    Nest<30> deep{};
    innermost(deep).leaf = 2;
    const bitrep::status st = [&] {
        bytes out;
        return bitrep::to_bytes(deep, out);
    }();
    EXPECT_EQ(st.code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(st.bit_offset(), 0u);
    const std::string path(st.field_path());
    EXPECT_TRUE(contains(path, "\xE2\x80\xA6")) << path; // the cut is marked with an ellipsis
    std::string kept; // the 24 innermost of 31 segments
    for (int i = 0; i < 24; ++i)
        kept += ".#0";
    ASSERT_GE(path.size(), kept.size());
    EXPECT_EQ(path.substr(path.size() - kept.size()), kept) << path;
    EXPECT_EQ(path.find(".#0"), path.size() - kept.size()) << "more than 24 segments kept: " << path;
}

// ---------------------------------------------------------------- to_bytes overloads

TEST(ToBytes, VectorOverloadReplacesTheContents)
{
    bytes out(100, 0xAA);
    ASSERT_TRUE(bitrep::to_bytes(golden_value(), out));
    EXPECT_EQ(out, bitrep::to_bytes(golden_value()));
}

TEST(ToBytes, SpanOverloadWritesExactlyTheMeaningfulBytes)
{
    std::array<std::uint8_t, 16> storage{};
    storage.fill(0xEE);
    std::size_t written = 0;
    ASSERT_TRUE(bitrep::to_bytes(golden_value(), std::span<std::uint8_t>(storage.data(), 9), written));
    EXPECT_EQ(written, 9u);
    EXPECT_EQ(bytes(storage.begin(), storage.begin() + 9), bitrep::to_bytes(golden_value()));
    for (std::size_t i = 9; i < storage.size(); ++i)
        EXPECT_EQ(storage[i], 0xEE);
}

TEST(ToBytes, UnusedHighBitsOfTheLastByteAreZero)
{
    Eighteen e{};
    e.health = 100;
    e.alive = true;
    e.team = Team::green;
    e.delta = 100; // offset 200: bits 10..17 = 11001000
    const bytes data = bitrep::to_bytes(e);
    ASSERT_EQ(data.size(), 3u);
    EXPECT_EQ(data[2] & 0xFC, 0);
}

struct Library {
    bitrep::bounded_vector<bitrep::bounded_string<255>, 1000> books;
    bool operator==(const Library&) const = default;
};

TEST(ToBytes, TypesWithAHugeBoundAreSizedByMeasuring)
{
    static_assert(bitrep::max_bits<Library> > 64u * 1024u * 8u);
    Library library{};
    library.books = {"Dune", "", std::string(255, 'x')};
    const bytes data = bitrep::to_bytes(library);
    // size 10 bits | 8 + pad 6 + 32 | 8 + pad 0 | 8 + pad 0 + 2040
    EXPECT_EQ(bitrep::bit_size(library), 10u + 8u + 6u + 32u + 8u + 8u + 2040u);
    EXPECT_EQ(data.size(), (bitrep::bit_size(library) + 7) / 8);
    Library back{};
    ASSERT_TRUE(bitrep::from_bytes(data, back));
    EXPECT_EQ(back, library);
}

// ---------------------------------------------------------------- the complex struct

struct Transform {
    position_t x, y, z;
    angle_t yaw;
    bool operator==(const Transform&) const = default;
};

struct Gear {
    bitrep::ranged<std::uint16_t, 0, 999> id;
    bitrep::ranged<int, 1, 64> count;
    Small grade;
    bool operator==(const Gear&) const = default;
};

struct Base {
    bitrep::ranged<int, 0, 15> level;
    bool operator==(const Base&) const = default;
};
BOOST_DESCRIBE_STRUCT(Base, (), (level))

class Stats : public Base {
public:
    bitrep::ranged<std::int64_t, -5'000'000'000, 5'000'000'000> gold;
    Sparse rank = Sparse::low;

    double luck() const { return luck_; }
    void set_luck(double v) { luck_ = v; }
    const std::optional<bitrep::ranged<int, -3, 3>>& mood() const { return mood_; }
    void set_mood(std::optional<bitrep::ranged<int, -3, 3>> m) { mood_ = m; }
    bool operator==(const Stats&) const = default;

private:
    double luck_ = 0.0;
    std::optional<bitrep::ranged<int, -3, 3>> mood_;

    BOOST_DESCRIBE_CLASS(Stats, (Base), (gold, rank), (), (luck_, mood_))
};

struct Complex {
    bitrep::ranged<int, 0, 100> health;
    bool alive;
    Team team;
    Transform transform;
    bitrep::quat<9> orientation;
    bitrep::bounded_string<16> name;
    bitrep::bounded_vector<Gear, 8> gear;
    std::optional<bitrep::ranged<int, 0, 7>> emote;
    std::array<bool, 4> flags;
    Stats stats;
    std::optional<Transform> target;
    bitrep::bounded_vector<bitrep::bounded_string<4>, 3> tags;
    float raw;
    double precise;
    std::int64_t big;
    std::uint8_t level;
    bitrep::ranged<int, 7, 7> constant;
    bitrep::transient<int> cache;
    bitrep::save_only<std::uint16_t> saved;
    bitrep::net_only<bitrep::ranged<int, 0, 3>> lane;
    bool operator==(const Complex&) const = default;
};

namespace {

template <class Int>
Int random_int(std::mt19937_64& rng, Int lo, Int hi)
{
    if constexpr (std::is_signed_v<Int>)
        return static_cast<Int>(std::uniform_int_distribution<long long>(lo, hi)(rng));
    else
        return static_cast<Int>(std::uniform_int_distribution<unsigned long long>(lo, hi)(rng));
}

template <class Ranged>
Ranged random_ranged(std::mt19937_64& rng)
{
    return Ranged{random_int<typename Ranged::value_type>(rng, Ranged::min, Ranged::max)};
}

template <class Quantized>
Quantized random_quantized(std::mt19937_64& rng)
{
    // The bounds themselves now and then (values outside are refused, see
    // annotations_test).
    switch (rng() % 16) {
    case 0: return Quantized{Quantized::min};
    case 1: return Quantized{Quantized::max};
    default: return Quantized{std::uniform_real_distribution<float>(Quantized::min, Quantized::max)(rng)};
    }
}

bool coin(std::mt19937_64& rng) { return (rng() & 1u) != 0; }

template <std::size_t N>
bitrep::bounded_string<N> random_text(std::mt19937_64& rng)
{
    std::string text;
    const std::size_t length = random_int<std::size_t>(rng, 0, N);
    while (text.size() < length) {
        if (length - text.size() >= 2 && rng() % 5 == 0)
            text += "\xC3\xA9"; // é, two bytes
        else
            text += static_cast<char>('a' + rng() % 26);
    }
    return bitrep::bounded_string<N>{text};
}

Transform random_transform(std::mt19937_64& rng)
{
    return {random_quantized<position_t>(rng), random_quantized<position_t>(rng), random_quantized<position_t>(rng),
            random_quantized<angle_t>(rng)};
}

bitrep::quat<9> random_quat(std::mt19937_64& rng)
{
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const float x = normal(rng), y = normal(rng), z = normal(rng), w = normal(rng);
    const float length = std::sqrt(x * x + y * y + z * z + w * w);
    return {x / length, y / length, z / length, w / length};
}

Complex random_complex(std::mt19937_64& rng)
{
    Complex c{};
    c.health = random_ranged<decltype(c.health)>(rng);
    c.alive = coin(rng);
    c.team = static_cast<Team>(rng() % 3);
    c.transform = random_transform(rng);
    c.orientation = random_quat(rng);
    c.name = random_text<16>(rng);
    const std::size_t gear_count = rng() % 9;
    for (std::size_t i = 0; i < gear_count; ++i)
        c.gear.push_back({random_ranged<bitrep::ranged<std::uint16_t, 0, 999>>(rng), random_ranged<bitrep::ranged<int, 1, 64>>(rng),
                          static_cast<Small>(rng() % 3)});
    if (coin(rng))
        c.emote = random_ranged<bitrep::ranged<int, 0, 7>>(rng);
    for (bool& flag : c.flags)
        flag = coin(rng);
    c.stats.level = random_ranged<bitrep::ranged<int, 0, 15>>(rng);
    c.stats.gold = random_ranged<decltype(c.stats.gold)>(rng);
    c.stats.rank = std::array{Sparse::low, Sparse::mid, Sparse::high}[rng() % 3];
    c.stats.set_luck(std::uniform_real_distribution<double>(-1e6, 1e6)(rng));
    if (coin(rng))
        c.stats.set_mood(random_ranged<bitrep::ranged<int, -3, 3>>(rng));
    if (coin(rng))
        c.target = random_transform(rng);
    const std::size_t tag_count = rng() % 4;
    for (std::size_t i = 0; i < tag_count; ++i)
        c.tags.push_back(random_text<4>(rng));
    c.raw = std::uniform_real_distribution<float>(-1e9f, 1e9f)(rng);
    c.precise = std::uniform_real_distribution<double>(-1e300, 1e300)(rng);
    c.big = static_cast<std::int64_t>(rng());
    c.level = static_cast<std::uint8_t>(rng());
    c.cache = static_cast<int>(rng() % 1000);
    c.saved = static_cast<std::uint16_t>(rng());
    c.lane = random_ranged<bitrep::ranged<int, 0, 3>>(rng);
    return c;
}

template <class Q>
void expect_same_quantum(const Q& sent, const Q& received)
{
    EXPECT_EQ(received.quantum(), sent.quantum());
    EXPECT_EQ(bits_of(received.value()), bits_of(sent.quantized_value()));
}

void expect_same_transform(const Transform& sent, const Transform& received)
{
    expect_same_quantum(sent.x, received.x);
    expect_same_quantum(sent.y, received.y);
    expect_same_quantum(sent.z, received.z);
    expect_same_quantum(sent.yaw, received.yaw);
}

void expect_same_rotation(const bitrep::quat<9>& sent, const bitrep::quat<9>& received)
{
    std::array<float, 4> s{sent.x, sent.y, sent.z, sent.w};
    const std::array<float, 4> r{received.x, received.y, received.z, received.w};
    std::size_t largest = 0;
    for (std::size_t i = 1; i < 4; ++i)
        if (std::fabs(s[i]) > std::fabs(s[largest]))
            largest = i;
    if (s[largest] < 0.0f)
        for (float& c : s)
            c = -c;
    const float quantum = 2.0f * 0.707106781f / 510.0f;
    for (std::size_t i = 0; i < 4; ++i)
        EXPECT_LE(std::fabs(r[i] - s[i]), i == largest ? 3.0f * quantum : 0.5f * quantum + 1e-6f) << "component " << i;
}

/// Every carried field equal (quantized in quantized space, rotations
/// within the quantization bound); transient left as the target had it.
void expect_round_trip(const Complex& sent, const Complex& received, const Complex& start)
{
    EXPECT_EQ(received.health, sent.health);
    EXPECT_EQ(received.alive, sent.alive);
    EXPECT_EQ(received.team, sent.team);
    expect_same_transform(sent.transform, received.transform);
    expect_same_rotation(sent.orientation, received.orientation);
    EXPECT_EQ(received.name, sent.name);
    EXPECT_EQ(received.gear, sent.gear);
    EXPECT_EQ(received.emote, sent.emote);
    EXPECT_EQ(received.flags, sent.flags);
    EXPECT_EQ(received.stats, sent.stats);
    ASSERT_EQ(received.target.has_value(), sent.target.has_value());
    if (sent.target)
        expect_same_transform(*sent.target, *received.target);
    EXPECT_EQ(received.tags, sent.tags);
    EXPECT_EQ(bits_of(received.raw), bits_of(sent.raw));
    EXPECT_EQ(bits_of(received.precise), bits_of(sent.precise));
    EXPECT_EQ(received.big, sent.big);
    EXPECT_EQ(received.level, sent.level);
    EXPECT_EQ(received.constant, 7);
    EXPECT_EQ(received.cache.get(), start.cache.get());
    EXPECT_EQ(received.saved.get(), sent.saved.get());
    EXPECT_EQ(received.lane, sent.lane);
}

/// Unchanged means equal field by field and encoding to the same bytes.
void expect_unchanged(const Complex& target, const Complex& before, const bitrep::status& st)
{
    EXPECT_TRUE(target == before) << "a failed read changed the target: " << st.message();
    EXPECT_EQ(bitrep::to_bytes(target), bitrep::to_bytes(before)) << st.message();
}

} // namespace

TEST(RoundTrip, RandomComplexValuesComeBackFieldByField)
{
    std::mt19937_64 rng(20240601);
    for (int i = 0; i < 300; ++i) {
        SCOPED_TRACE("value " + std::to_string(i));
        const Complex sent = random_complex(rng);
        const Complex start = random_complex(rng);
        Complex received = start;
        const bitrep::status st = bitrep::from_bytes(bitrep::to_bytes(sent), received);
        ASSERT_TRUE(st) << st.message();
        expect_round_trip(sent, received, start);
    }
}

namespace {
/// A rotation whose two largest components lie within two quanta of each
/// other: where a rebuilt largest can come out below a sent component.
bitrep::quat<9> near_tie_quat(std::mt19937_64& rng)
{
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::array<float, 4> c{normal(rng), normal(rng), normal(rng), normal(rng)};
    const std::size_t a = static_cast<std::size_t>(rng() % 4);
    const std::size_t b = (a + 1 + static_cast<std::size_t>(rng() % 3)) % 4;
    c[a] = std::fabs(c[a]) + 1.0f;
    const float quantum = 2.0f * 0.707106781f / 510.0f;
    c[b] = (coin(rng) ? 1.0f : -1.0f) * (c[a] + std::uniform_real_distribution<float>(-4.0f, 4.0f)(rng) * quantum);
    const float length = std::sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3]);
    return {c[0] / length, c[1] / length, c[2] / length, c[3] / length};
}
} // namespace

TEST(ReEncoding, DecodedValuesEncodeToTheBytesTheyWereDecodedFrom)
{
    std::mt19937_64 rng(1109);
    for (int i = 0; i < 5000; ++i) {
        Complex value = random_complex(rng);
        if (i % 2 == 0)
            value.orientation = near_tie_quat(rng);
        value.raw = std::bit_cast<float>(static_cast<std::uint32_t>(rng())); // NaNs and all
        value.precise = std::bit_cast<double>(static_cast<std::uint64_t>(rng()));
        const bytes first = bitrep::to_bytes(value);
        Complex decoded{};
        ASSERT_TRUE(bitrep::from_bytes(first, decoded));
        ASSERT_EQ(bitrep::to_bytes(decoded), first) << "value " << i;
    }
}

TEST(RoundTrip, EmptyAndFullContainersComeBack)
{
    std::mt19937_64 rng(7);
    Complex full = random_complex(rng);
    full.name = "0123456789abcdef";
    full.gear.clear();
    for (int i = 0; i < 8; ++i)
        full.gear.push_back({999, 64, Small::c});
    full.tags = {"abcd", "efgh", "ijkl"};
    full.emote = bitrep::ranged<int, 0, 7>{7};
    full.target = random_transform(rng);
    Complex empty = full;
    empty.name = "";
    empty.gear.clear();
    empty.tags.clear();
    empty.emote.reset();
    empty.target.reset();
    for (const Complex* sent : {&full, &empty}) {
        Complex received = random_complex(rng);
        const Complex start = received;
        ASSERT_TRUE(bitrep::from_bytes(bitrep::to_bytes(*sent), received));
        expect_round_trip(*sent, received, start);
    }
}

TEST(BitSize, EqualsTheBitsActuallyWrittenForRandomValues)
{
    std::mt19937_64 rng(99);
    std::vector<std::uint8_t> buffer(bitrep::max_bits<Complex> / 8 + 8);
    for (int i = 0; i < 500; ++i) {
        const Complex value = random_complex(rng);
        bitrep::write_stream stream(buffer);
        ASSERT_TRUE(bitrep::serialize(stream, value));
        const std::size_t bits = bitrep::bit_size(value);
        EXPECT_EQ(stream.position(), bits);
        EXPECT_EQ(stream.flush(), (bits + 7) / 8);
        EXPECT_EQ(bitrep::to_bytes(value).size(), (bits + 7) / 8);
    }
}

TEST(BitSize, SpanOverloadReportsCeilOfBitSizeBytes)
{
    std::mt19937_64 rng(100);
    std::vector<std::uint8_t> buffer(bitrep::max_bits<Complex> / 8 + 1);
    for (int i = 0; i < 200; ++i) {
        const Complex value = random_complex(rng);
        std::size_t written = 0;
        ASSERT_TRUE(bitrep::to_bytes(value, buffer, written));
        EXPECT_EQ(written, (bitrep::bit_size(value) + 7) / 8);
    }
}

TEST(BitSize, IsExactForKnownLayouts)
{
    EXPECT_EQ(bitrep::bit_size(bitrep::ranged<int, 0, 100>{1}), 7u);
    EXPECT_EQ(bitrep::bit_size(true), 1u);
    EXPECT_EQ(bitrep::bit_size(Team::green), 2u);
    EXPECT_EQ(bitrep::bit_size(position_t{1.0f}), 15u);
    EXPECT_EQ(bitrep::bit_size(std::optional<position_t>{}), 1u);
    EXPECT_EQ(bitrep::bit_size(std::optional<position_t>{position_t{1.0f}}), 16u);
    EXPECT_EQ(bitrep::bit_size(bitrep::bounded_string<16>{"hi"}), 24u);
}

TEST(MaxBits, BoundsBitSizeForRandomValues)
{
    std::mt19937_64 rng(101);
    for (int i = 0; i < 500; ++i) {
        const Complex value = random_complex(rng);
        bitrep::measure_stream measure;
        ASSERT_TRUE(bitrep::serialize(measure, value));
        EXPECT_LE(bitrep::bit_size(value), measure.bits());
        EXPECT_LE(measure.bits(), bitrep::max_bits<Complex>);
    }
}

// ---------------------------------------------------------------- all-or-nothing reads

TEST(Truncation, EveryShorterByteLengthIsTruncatedAndLeavesTheTargetUnchanged)
{
    std::mt19937_64 rng(5);
    for (int round = 0; round < 20; ++round) {
        const bytes full = bitrep::to_bytes(random_complex(rng));
        const Complex before = random_complex(rng);
        for (std::size_t length = 0; length < full.size(); ++length) {
            Complex target = before;
            const bitrep::status st = bitrep::from_bytes(std::span<const std::uint8_t>(full.data(), length), target);
            EXPECT_EQ(st.code(), bitrep::error::truncated) << "length " << length << ": " << st.message();
            expect_unchanged(target, before, st);
        }
    }
}

struct FixedLayout {
    bitrep::ranged<int, 0, 100> health;
    Team team;
    position_t x;
    bitrep::quat<9> orientation;
    std::int64_t big;
    std::array<bool, 3> flags;
    float raw;
    bool operator==(const FixedLayout&) const = default;
};

TEST(Truncation, EveryShorterBitLengthFailsAndLeavesTheTargetUnchanged)
{
    FixedLayout value{};
    value.health = 77;
    value.team = Team::green;
    value.x = 12.5f;
    value.orientation = {0.0f, 0.6f, 0.0f, 0.8f};
    value.big = -123456789012345;
    value.flags = {true, true, true};
    value.raw = -1.5f;
    const bytes full = bitrep::to_bytes(value);
    const std::size_t total_bits = bitrep::bit_size(value);
    ASSERT_EQ(total_bits, 7u + 2u + 15u + 29u + 64u + 3u + 32u);
    FixedLayout before{};
    before.health = 3;
    for (std::size_t kept = 0; kept < total_bits; ++kept) {
        const std::size_t length = (kept + 7) / 8;
        if (length == full.size())
            break; // the same bytes with some bits cleared: a different value, not a truncation
        bytes cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(length));
        if (kept % 8 != 0)
            cut.back() = static_cast<std::uint8_t>(cut.back() & ((1u << (kept % 8)) - 1u));
        FixedLayout target = before;
        const bitrep::status st = bitrep::from_bytes(cut, target);
        EXPECT_FALSE(st) << "kept " << kept << " bits";
        EXPECT_EQ(target, before) << "kept " << kept << " bits";
    }
}

TEST(Truncation, MaskedPrefixesOfAComplexValueNeverChangeAFailedTarget)
{
    std::mt19937_64 rng(6);
    for (int round = 0; round < 5; ++round) {
        const Complex value = random_complex(rng);
        const bytes full = bitrep::to_bytes(value);
        const Complex before = random_complex(rng);
        for (std::size_t kept = 0; kept < full.size() * 8; ++kept) {
            bytes cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>((kept + 7) / 8));
            if (kept % 8 != 0)
                cut.back() = static_cast<std::uint8_t>(cut.back() & ((1u << (kept % 8)) - 1u));
            Complex target = before;
            const bitrep::status st = bitrep::from_bytes(cut, target);
            if (!st)
                expect_unchanged(target, before, st);
            else
                EXPECT_EQ((bitrep::bit_size(target) + 7) / 8, cut.size());
        }
    }
}

TEST(Robustness, RandomBytesNeverCrashAndFailuresLeaveTheTargetUnchanged)
{
    std::mt19937_64 rng(0xB17EB);
    const Complex before = random_complex(rng);
    int accepted = 0;
    for (int i = 0; i < 4000; ++i) {
        bytes data(rng() % 96);
        for (std::uint8_t& b : data)
            b = static_cast<std::uint8_t>(rng());
        Complex target = before;
        const bitrep::status st = bitrep::from_bytes(data, target);
        if (st) {
            ++accepted;
            // Whatever is accepted is exactly as long as its own encoding.
            EXPECT_EQ((bitrep::bit_size(target) + 7) / 8, data.size());
            EXPECT_EQ(target.cache.get(), before.cache.get());
        } else {
            EXPECT_NE(st.code(), bitrep::error::value_out_of_range);
            EXPECT_NE(st.code(), bitrep::error::buffer_too_small);
            expect_unchanged(target, before, st);
        }
    }
    EXPECT_LT(accepted, 4000);
}

TEST(Robustness, FlippedBitsInValidEncodingsNeverChangeAFailedTarget)
{
    std::mt19937_64 rng(0xF11B);
    int failures = 0;
    for (int i = 0; i < 3000; ++i) {
        bytes data = bitrep::to_bytes(random_complex(rng));
        const int flips = 1 + static_cast<int>(rng() % 3);
        for (int f = 0; f < flips; ++f) {
            const std::size_t bit = rng() % (data.size() * 8);
            data[bit / 8] = static_cast<std::uint8_t>(data[bit / 8] ^ (1u << (bit % 8)));
        }
        const Complex before = random_complex(rng);
        Complex target = before;
        const bitrep::status st = bitrep::from_bytes(data, target);
        if (!st) {
            ++failures;
            expect_unchanged(target, before, st);
        } else {
            EXPECT_EQ((bitrep::bit_size(target) + 7) / 8, data.size());
        }
    }
    EXPECT_GT(failures, 0);
}

TEST(Robustness, LengthsBeyondTheInputFailCleanly)
{
    // A string length of 8 with only 2 payload bytes, and a vector of 8 items
    // with none present: both fail cleanly.
    Player target = sample_player();
    const Player before = target;
    const bytes long_name = player_prefix(0, 0).bits(8, 4).text("ab").result();
    EXPECT_EQ(bitrep::from_bytes(long_name, target).code(), bitrep::error::truncated);
    EXPECT_EQ(target, before);
    const bytes many_items = player_prefix(8, 0).result();
    EXPECT_EQ(bitrep::from_bytes(many_items, target).code(), bitrep::error::truncated);
    EXPECT_EQ(target, before);
}

// ---------------------------------------------------------------- decoder

namespace {

struct Cached {
    bitrep::ranged<int, 0, 100> health;
    bitrep::bounded_vector<Item, 8> items;
    bitrep::transient<int> frame_cache;
};

} // namespace

TEST(Decoder, DecodesLikeFromBytesAcrossManyMessages)
{
    bitrep::decoder<Player> decoder;
    Player target{};
    for (int round = 0; round < 20; ++round) {
        Player sent = sample_player();
        sent.health = round;
        sent.items.resize(static_cast<std::size_t>(round % 9));
        const bytes wire = bitrep::to_bytes(sent);
        ASSERT_TRUE(decoder.decode(wire, target)) << "round " << round;
        EXPECT_EQ(target, sent) << "round " << round;
    }
}

TEST(Decoder, FailedDecodeLeavesTheTargetUntouchedAndTheNextOneWorks)
{
    bitrep::decoder<Player> decoder;
    Player target = sample_player();
    const Player before = target;
    bytes wire = bitrep::to_bytes(before);
    wire.pop_back();
    const bitrep::status st = decoder.decode(wire, target);
    EXPECT_EQ(st.code(), bitrep::error::truncated);
    EXPECT_EQ(target, before);

    Player other = sample_player();
    other.name = "other";
    ASSERT_TRUE(decoder.decode(bitrep::to_bytes(other), target));
    EXPECT_EQ(target, other);
}

namespace {

struct Loadout {
    bitrep::bounded_string<12> title;
    std::optional<bitrep::ranged<int, 0, 9>> rank;
    bitrep::bounded_vector<bitrep::bounded_vector<std::uint8_t, 4>, 4> bags;
    bool operator==(const Loadout&) const = default;
};

struct Dot {
    bitrep::ranged<int, -100, 100> x, y;
    bool lit = false;
    bool operator==(const Dot&) const = default;
};

} // namespace

TEST(Decoder, AWorkingObjectLeftHalfWrittenByAFailedMessageNeverLeaksIntoTheNext)
{
    // Every field is carried, so the decoder decodes into its working
    // object as an earlier message, or a refused one, left it: the next
    // message must still overwrite everything.
    bitrep::decoder<Loadout> decoder;
    Loadout big{"a long title", 7, {{1, 2, 3, 4}, {5, 6, 7, 8}, {9}, {1, 1}}};
    Loadout small{"x", std::nullopt, {{3}}};
    Loadout target{};
    ASSERT_TRUE(decoder.decode(bitrep::to_bytes(big), target));
    EXPECT_EQ(target, big);
    bytes cut = bitrep::to_bytes(big);
    cut.resize(cut.size() - 2);
    EXPECT_FALSE(decoder.decode(cut, target)); // leaves the working object half written
    EXPECT_EQ(target, big);
    ASSERT_TRUE(decoder.decode(bitrep::to_bytes(small), target));
    EXPECT_EQ(target, small);
    ASSERT_TRUE(decoder.decode(bitrep::to_bytes(big), target));
    EXPECT_EQ(target, big);
}

TEST(Decoder, AFlatArrayDecodesAcrossMessagesAndRefusals)
{
    using Dots = std::array<Dot, 16>;
    static_assert(std::is_trivially_copyable_v<Dots>);
    bitrep::decoder<Dots> decoder;
    Dots target{};
    for (int round = 0; round < 4; ++round) {
        Dots sent{};
        for (std::size_t i = 0; i < sent.size(); ++i)
            sent[i] = Dot{static_cast<int>(i) * round - 50, round, (i + static_cast<std::size_t>(round)) % 3 == 0};
        bytes cut = bitrep::to_bytes(sent);
        cut.pop_back();
        const Dots before = target;
        EXPECT_FALSE(decoder.decode(cut, target));
        EXPECT_EQ(target, before);
        ASSERT_TRUE(decoder.decode(bitrep::to_bytes(sent), target));
        EXPECT_EQ(target, sent) << "round " << round;
    }
}

TEST(Decoder, KeepsTheTargetsTransientFieldsNotThoseOfAnEarlierTarget)
{
    bitrep::decoder<Cached> decoder;
    Cached first{};
    first.frame_cache = 1;
    Cached second{};
    second.frame_cache = 2;
    Cached sent{};
    sent.health = 9;
    const bytes wire = bitrep::to_bytes(sent);
    ASSERT_TRUE(decoder.decode(wire, first));
    ASSERT_TRUE(decoder.decode(wire, second));
    EXPECT_EQ(first.frame_cache.get(), 1);
    EXPECT_EQ(second.frame_cache.get(), 2);
    EXPECT_EQ(second.health, 9);
}

// ---------------------------------------------------------------- from_bytes' working object
//
// A T with containers is decoded into a working object (one made for the
// call by from_bytes, the decoder's own by decoder<T>) and exchanged with the
// target on success: these pin down that the working object never shows
// through.

TEST(FromBytes, ARefusedMessageLeavesTheTargetExactlyAsItWas)
{
    const Loadout big{"a long title", 7, {{1, 2, 3, 4}, {5, 6, 7, 8}, {9}, {1, 1}}};
    Loadout target{"kept", 3, {{4, 4}, {}}};
    const Loadout before = target;
    const auto* const bags_storage = target.bags.vector().data();
    const bytes wire = bitrep::to_bytes(big);
    for (std::size_t length = 0; length < wire.size(); ++length) {
        const bytes cut(wire.begin(), wire.begin() + static_cast<std::ptrdiff_t>(length));
        EXPECT_FALSE(bitrep::from_bytes(cut, target)) << length << " bytes";
        ASSERT_EQ(target, before) << length << " bytes";
        // Not exchanged with the working object and back: the same storage.
        EXPECT_EQ(target.bags.vector().data(), bags_storage) << length << " bytes";
    }
    bytes longer = wire;
    longer.push_back(0);
    EXPECT_EQ(bitrep::from_bytes(longer, target).code(), bitrep::error::trailing_data);
    EXPECT_EQ(target, before);
}

TEST(FromBytes, PartialWritesOfARefusedMessageNeverLeakIntoTheNext)
{
    // Every field of a Loadout is carried, so a decoder's working object is
    // decoded into as the last message left it; each refusal below leaves
    // it half written with the big value's title, rank and bags. The same
    // sequence through from_bytes, whose working object is made per call.
    const Loadout big{"a long title", 7, {{1, 2, 3, 4}, {5, 6, 7, 8}, {9}, {1, 1}}};
    const Loadout small{"x", std::nullopt, {{3}}};
    const Loadout empty{};
    const bytes wire = bitrep::to_bytes(big);
    bitrep::decoder<Loadout> decoder;
    for (const bool with_decoder : {true, false}) {
        auto decode = [&](const bytes& b, Loadout& out) {
            return with_decoder ? decoder.decode(b, out) : bitrep::from_bytes(b, out);
        };
        for (std::size_t length = 1; length < wire.size(); ++length) {
            Loadout first{};
            ASSERT_TRUE(decode(wire, first));
            const bytes cut(wire.begin(), wire.begin() + static_cast<std::ptrdiff_t>(length));
            Loadout refused = first;
            EXPECT_FALSE(decode(cut, refused));
            EXPECT_EQ(refused, big);

            Loadout next{"old", 1, {{1}, {2}, {3}}}; // a new target, not the one the decoder last saw
            ASSERT_TRUE(decode(bitrep::to_bytes(small), next)) << length << " bytes";
            EXPECT_EQ(next, small) << length << " bytes";
            EXPECT_FALSE(decode(cut, next));
            ASSERT_TRUE(decode(bitrep::to_bytes(empty), next)) << length << " bytes";
            EXPECT_EQ(next, empty) << length << " bytes";
        }
    }
}

TEST(FromBytes, FieldsTheEncodingDoesNotCarryComeFromEachTarget)
{
    Cached sent{};
    sent.health = 9;
    sent.items.resize(3);
    const bytes wire = bitrep::to_bytes(sent);
    Cached first{};
    first.frame_cache = 1;
    Cached second{};
    second.frame_cache = 2;
    ASSERT_TRUE(bitrep::from_bytes(wire, first));
    ASSERT_TRUE(bitrep::from_bytes(wire, second));
    EXPECT_EQ(first.frame_cache.get(), 1);
    EXPECT_EQ(second.frame_cache.get(), 2);
    EXPECT_EQ(second.health, 9);
    EXPECT_EQ(second.items.size(), 3u);

    bytes cut = wire;
    cut.pop_back();
    Cached third{};
    third.frame_cache = 3;
    EXPECT_FALSE(bitrep::from_bytes(cut, third));
    EXPECT_EQ(third.frame_cache.get(), 3);
    EXPECT_EQ(third.health, 0);
    EXPECT_TRUE(third.items.empty());
    ASSERT_TRUE(bitrep::from_bytes(wire, third));
    EXPECT_EQ(third.frame_cache.get(), 3);
    EXPECT_EQ(third.health, 9);
}

namespace {

/// A doll whose hook, when it reads a doll of size n > 0, decodes the doll
/// of size n - 1 inside it with from_bytes<Doll>: a call for the same type
/// nested inside another, down to size 0.
struct Doll {
    int size = 0;
    int inner_size = -1;            // what the nested from_bytes decoded
    std::vector<int> sizes_inside;  // not on the wire: from the target
    template <class Stream>
    bool serialize(Stream& stream)
    {
        if (!stream.serialize_int(size, 0, 7))
            return false;
        if constexpr (Stream::is_reading) {
            if (size > 0) {
                Doll inner{};
                inner.size = size - 1;
                Doll decoded{};
                if (!bitrep::from_bytes(bitrep::to_bytes(inner), decoded))
                    return false;
                inner_size = decoded.size;
                sizes_inside.push_back(decoded.size);
                sizes_inside.insert(sizes_inside.end(), decoded.sizes_inside.begin(), decoded.sizes_inside.end());
            }
        }
        return true;
    }
};

} // namespace

TEST(FromBytes, ANestedCallForTheSameTypeDecodesIntoAnObjectOfItsOwn)
{
    static_assert(!std::is_trivially_copyable_v<Doll>);
    for (int size = 0; size <= 7; ++size) {
        Doll sent{};
        sent.size = size;
        Doll target{};
        ASSERT_TRUE(bitrep::from_bytes(bitrep::to_bytes(sent), target)) << "size " << size;
        EXPECT_EQ(target.size, size);
        EXPECT_EQ(target.inner_size, size > 0 ? size - 1 : -1);
        std::vector<int> expected;
        for (int inside = size - 1; inside >= 0; --inside)
            expected.push_back(inside);
        EXPECT_EQ(target.sizes_inside, expected) << "size " << size;
    }
    // And a call that is not nested after them.
    Doll sent{};
    sent.size = 2;
    Doll target{};
    ASSERT_TRUE(bitrep::from_bytes(bitrep::to_bytes(sent), target));
    EXPECT_EQ(target.size, 2);
    EXPECT_EQ(target.sizes_inside, (std::vector<int>{1, 0}));
}

namespace {

/// Not a POD for layout (ranged has a constructor), with three bytes of
/// tail padding: a [[no_unique_address]] member of this type may hold the
/// next member in them.
struct Padded {
    bitrep::ranged<int, 0, 9> a;
    bool b = false;
};
struct Overlapped {
    [[no_unique_address]] Padded padded;
    bool inside = false; // in padded's tail padding (Itanium C++ ABI)
    bitrep::bounded_string<64> name;
    bitrep::bounded_vector<bitrep::ranged<int, 0, 99>, 4> numbers;
};

} // namespace

TEST(FromBytes, TheDecodedValueIsHandedOverWholeAlsoWhereMembersShareBytes)
{
    // from_bytes hands a decoded value to the target by exchanging it part by
    // part with its working object; a member in another's tail padding is
    // exchanged once, not twice.
    static_assert(bitrep::engine::detail::object_ops_v<Overlapped>.exchange == nullptr); // by parts, not std::swap
    Overlapped probe{};
    ASSERT_LT(reinterpret_cast<const unsigned char*>(&probe.inside) - reinterpret_cast<const unsigned char*>(&probe),
              static_cast<std::ptrdiff_t>(sizeof(Padded)));
    Overlapped first{{7, true}, true, "a name too long for a string's inline buffer", {1, 2, 3}};
    Overlapped second{{3, false}, false, "short", {}};
    Overlapped target{};
    for (int round = 0; round < 3; ++round) {
        for (const Overlapped* sent : {&first, &second}) {
            ASSERT_TRUE(bitrep::from_bytes(bitrep::to_bytes(*sent), target));
            EXPECT_EQ(target.padded.a, sent->padded.a);
            EXPECT_EQ(target.padded.b, sent->padded.b);
            EXPECT_EQ(target.inside, sent->inside);
            EXPECT_EQ(target.name.str(), sent->name.str());
            EXPECT_EQ(target.numbers, sent->numbers);
        }
    }
}

namespace {

struct Loot {
    std::uint16_t item = 0;
    bitrep::ranged<int, 0, 99> count;
    bool operator==(const Loot&) const = default;
};
BOOST_DESCRIBE_STRUCT(Loot, (), (item, count))
struct Backpack {
    bitrep::bounded_vector<Loot, 8> loot;
    bool operator==(const Backpack&) const = default;
};

} // namespace

TEST(FromBytes, AVectorOfDescribedStructsIsHandedOverByExchangingItsBuffer)
{
    // Decided in a constant expression, which g++ also evaluates under
    // -fsanitize=undefined (the g++ sanitizer build of the tests).
    static_assert(bitrep::engine::detail::object_ops_v<Backpack>.exchange == nullptr); // by parts, not std::swap
    const Backpack sent{{{3, 10}, {4, 20}, {5, 30}}};
    Backpack target{{{9, 1}}};
    ASSERT_TRUE(bitrep::from_bytes(bitrep::to_bytes(sent), target));
    EXPECT_EQ(target, sent);
}

TEST(FromBytes, EachThreadDecodesIntoItsOwnWorkingObject)
{
    // Two threads decoding the same type at once, each checking every value
    // (run under ASan/UBSan in the clang test build).
    auto decode_many = [](int seed, bool& all_equal) {
        all_equal = true;
        for (int round = 0; round < 300; ++round) {
            Player sent = sample_player();
            sent.health = (round * 7 + seed) % 101;
            sent.items.resize(static_cast<std::size_t>((round + seed) % 9));
            sent.name = seed == 0 ? "even" : "odd";
            Player target{};
            all_equal = all_equal && bitrep::from_bytes(bitrep::to_bytes(sent), target) && target == sent;
        }
    };
    bool first = false;
    bool second = false;
    std::thread other(decode_many, 1, std::ref(second));
    decode_many(0, first);
    other.join();
    EXPECT_TRUE(first);
    EXPECT_TRUE(second);
}

// ---------------------------------------------------------------- uninitialised targets

TEST(Reads, NeverLookAtTheTargetsOldValues)
{
    // A default-initialised target holds garbage in its bools, ints and
    // floats (here: 0x7F bytes, not a valid bool). A read must only store;
    // under UBSan (the clang test build) loading such a bool would abort.
    Player sent = sample_player();
    const bytes wire = bitrep::to_bytes(sent);
    struct Target {
        bool alive;
        std::int32_t score;
        float speed;
        std::array<bool, 3> flags;
        bitrep::quat<9> orientation;
        Player player;
    };
    alignas(Target) unsigned char storage[sizeof(Target)];
    std::memset(storage, 0x7F, sizeof storage);
    Target* target = new (storage) Target; // default-initialised: members keep the 0x7F bytes
    const Target source{true, -3, 2.5f, {true, false, true}, {}, sent};
    const bytes target_wire = bitrep::to_bytes(source);
    bitrep::read_stream stream(target_wire);
    ASSERT_TRUE(bitrep::serialize(stream, *target));
    EXPECT_TRUE(target->alive);
    EXPECT_EQ(target->score, -3);
    EXPECT_EQ(target->speed, 2.5f);
    EXPECT_EQ(target->player, sent);
    target->~Target();
    EXPECT_FALSE(wire.empty());
}
