// The annotations (ranged, quantized, quat, bounded_string, bounded_vector,
// field flags): what each one means as a value, and the exact bits it puts
// on the wire (docs/formats/wire-format.md section 3, serialize 1.0 sections 3, 6, 7).
#include <bitrep/bitrep.hpp>

#include <boost/describe/class.hpp>

#include <gtest/gtest.h>

#include "test_oracle.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using namespace oracle::common;

template <class T>
bitrep::status read_status(const bytes& data)
{
    T target{};
    return bitrep::from_bytes(data, target);
}

} // namespace

// ---------------------------------------------------------------- ranged

TEST(Ranged, ZeroToHundredCostsSevenBits)
{
    EXPECT_EQ(bitrep::bit_size(bitrep::ranged<int, 0, 100>{42}), 7u);
    EXPECT_EQ(bitrep::to_bytes(bitrep::ranged<int, 0, 100>{87}), (bytes{87}));
}

TEST(Ranged, WidthIsTheBitLengthOfTheSpan)
{
    EXPECT_EQ((bitrep::ranged<int, 0, 1>::bits), 1);
    EXPECT_EQ((bitrep::ranged<int, 0, 7>::bits), 3);
    EXPECT_EQ((bitrep::ranged<int, 0, 8>::bits), 4);
    EXPECT_EQ((bitrep::ranged<int, 0, 255>::bits), 8);
    EXPECT_EQ((bitrep::ranged<int, -100, 100>::bits), 8);
    EXPECT_EQ((bitrep::ranged<int, 0, 65535>::bits), 16);
    EXPECT_EQ((bitrep::ranged<std::uint64_t, 0, 0xFFFFFFFFull>::bits), 32);
    EXPECT_EQ((bitrep::ranged<std::uint64_t, 0, 0x100000000ull>::bits), 33);
    EXPECT_EQ((bitrep::ranged<std::uint64_t, 0, 0x10000000000ull>::bits), 41);
    EXPECT_EQ((bitrep::ranged<std::int64_t, -5'000'000'000, 5'000'000'000>::bits), 34);
    EXPECT_EQ(bitrep::bit_size(bitrep::ranged<std::int64_t, -5'000'000'000, 5'000'000'000>{0}), 34u);
}

TEST(Ranged, WritesTheOffsetFromMin)
{
    using delta = bitrep::ranged<int, -100, 100>;
    EXPECT_EQ(bitrep::to_bytes(delta{-100}), (bytes{0x00}));
    EXPECT_EQ(bitrep::to_bytes(delta{-3}), (bytes{97}));
    EXPECT_EQ(bitrep::to_bytes(delta{100}), (bytes{200}));
}

TEST(Ranged, MinAndMaxRoundTripAtEightBits)
{
    using s8 = bitrep::ranged<std::int8_t, -128, 127>;
    using u8 = bitrep::ranged<std::uint8_t, 0, 255>;
    EXPECT_EQ(bitrep::bit_size(s8{0}), 8u);
    EXPECT_EQ(bitrep::bit_size(u8{0}), 8u);
    EXPECT_EQ(round_trip(s8{-128}, s8{5}).value(), -128);
    EXPECT_EQ(round_trip(s8{127}, s8{5}).value(), 127);
    EXPECT_EQ(round_trip(u8{0}, u8{5}).value(), 0);
    EXPECT_EQ(round_trip(u8{255}, u8{5}).value(), 255);
    EXPECT_EQ(bitrep::to_bytes(s8{-128}), (bytes{0x00}));
    EXPECT_EQ(bitrep::to_bytes(s8{-1}), (bytes{0x7F}));
    EXPECT_EQ(bitrep::to_bytes(s8{127}), (bytes{0xFF}));
}

TEST(Ranged, MinAndMaxRoundTripAtSixteenBits)
{
    using s16 = bitrep::ranged<std::int16_t, std::numeric_limits<std::int16_t>::min(), std::numeric_limits<std::int16_t>::max()>;
    using u16 = bitrep::ranged<std::uint16_t, 0, 65535>;
    EXPECT_EQ(bitrep::bit_size(s16{0}), 16u);
    EXPECT_EQ(bitrep::bit_size(u16{0}), 16u);
    EXPECT_EQ(round_trip(s16{-32768}, s16{1}).value(), -32768);
    EXPECT_EQ(round_trip(s16{32767}, s16{1}).value(), 32767);
    EXPECT_EQ(round_trip(u16{0}, u16{1}).value(), 0);
    EXPECT_EQ(round_trip(u16{65535}, u16{1}).value(), 65535);
    EXPECT_EQ(bitrep::to_bytes(s16{0}), (bytes{0x00, 0x80}));
}

TEST(Ranged, FullInt32RangeCostsThirtyTwoBitsAndRoundTrips)
{
    using full = bitrep::ranged<std::int32_t, std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()>;
    EXPECT_EQ(bitrep::bit_size(full{0}), 32u);
    EXPECT_EQ(bitrep::to_bytes(full{std::numeric_limits<std::int32_t>::min()}), (bytes{0, 0, 0, 0}));
    EXPECT_EQ(bitrep::to_bytes(full{-1}), (bytes{0xFF, 0xFF, 0xFF, 0x7F}));
    EXPECT_EQ(bitrep::to_bytes(full{0}), (bytes{0, 0, 0, 0x80}));
    EXPECT_EQ(round_trip(full{std::numeric_limits<std::int32_t>::min()}, full{7}).value(), std::numeric_limits<std::int32_t>::min());
    EXPECT_EQ(round_trip(full{std::numeric_limits<std::int32_t>::max()}, full{7}).value(), std::numeric_limits<std::int32_t>::max());
}

TEST(Ranged, FullUint32RangeCostsThirtyTwoBitsAndRoundTrips)
{
    using full = bitrep::ranged<std::uint32_t, 0, 0xFFFFFFFFu>;
    EXPECT_EQ(bitrep::bit_size(full{0}), 32u);
    EXPECT_EQ(bitrep::to_bytes(full{0x12345678u}), (bytes{0x78, 0x56, 0x34, 0x12}));
    EXPECT_EQ(round_trip(full{0xFFFFFFFFu}, full{7}).value(), 0xFFFFFFFFu);
    EXPECT_EQ(round_trip(full{0u}, full{7}).value(), 0u);
}

TEST(Ranged, FullInt64RangeCostsSixtyFourBitsAndRoundTrips)
{
    constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min();
    constexpr std::int64_t hi = std::numeric_limits<std::int64_t>::max();
    using full = bitrep::ranged<std::int64_t, lo, hi>;
    EXPECT_EQ(bitrep::bit_size(full{0}), 64u);
    EXPECT_EQ(bitrep::to_bytes(full{lo}), (bytes{0, 0, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(bitrep::to_bytes(full{0}), (bytes{0, 0, 0, 0, 0, 0, 0, 0x80}));
    EXPECT_EQ(bitrep::to_bytes(full{-1}), (bytes{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F}));
    EXPECT_EQ(bitrep::to_bytes(full{hi}), (bytes{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}));
    for (std::int64_t v : {lo, lo + 1, std::int64_t{-1}, std::int64_t{0}, std::int64_t{1}, hi - 1, hi})
        EXPECT_EQ(round_trip(full{v}, full{12345}).value(), v);
}

TEST(Ranged, FullUint64RangeCostsSixtyFourBitsAndRoundTrips)
{
    constexpr std::uint64_t hi = std::numeric_limits<std::uint64_t>::max();
    using full = bitrep::ranged<std::uint64_t, 0, hi>;
    EXPECT_EQ(bitrep::bit_size(full{0}), 64u);
    EXPECT_EQ(bitrep::to_bytes(full{0x0123456789ABCDEFull}), (bytes{0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01}));
    for (std::uint64_t v : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{0xFFFFFFFFull}, std::uint64_t{0x100000000ull}, hi - 1, hi})
        EXPECT_EQ(round_trip(full{v}, full{12345}).value(), v);
}

TEST(Ranged, WideRangesNearTheTopOfTheTypeCostOnlyTheirSpan)
{
    constexpr std::uint64_t uhi = std::numeric_limits<std::uint64_t>::max();
    constexpr std::int64_t shi = std::numeric_limits<std::int64_t>::max();
    using top_u = bitrep::ranged<std::uint64_t, uhi - 1, uhi>;
    using top_s = bitrep::ranged<std::int64_t, shi - 2, shi>;
    EXPECT_EQ(bitrep::bit_size(top_u{uhi}), 1u);
    EXPECT_EQ(bitrep::to_bytes(top_u{uhi}), (bytes{0x01}));
    EXPECT_EQ(round_trip(top_u{uhi}, top_u{uhi - 1}).value(), uhi);
    EXPECT_EQ(bitrep::bit_size(top_s{shi}), 2u);
    EXPECT_EQ(bitrep::to_bytes(top_s{shi}), (bytes{0x02}));
    EXPECT_EQ(round_trip(top_s{shi}, top_s{shi - 2}).value(), shi);
}

TEST(Ranged, Int64BoundsThatFitInt32GiveTheSameBytesAsInt)
{
    for (int v : {-100, -1, 0, 57, 100})
        EXPECT_EQ(bitrep::to_bytes(bitrep::ranged<std::int64_t, -100, 100>{v}), bitrep::to_bytes(bitrep::ranged<int, -100, 100>{v}));
}

TEST(Ranged, SixtyFourBitFieldAfterABoolIsLaidDownContiguously)
{
    struct Wide {
        bool flag;
        bitrep::ranged<std::uint64_t, 0, std::numeric_limits<std::uint64_t>::max()> value;
    };
    Wide w{};
    w.flag = true;
    w.value = 0x8000000000000001ull;
    EXPECT_EQ(bitrep::bit_size(w), 65u);
    EXPECT_EQ(bitrep::to_bytes(w), bit_builder{}.bits(1, 1).bits(0x8000000000000001ull, 64).result());
    const Wide back = round_trip(w);
    EXPECT_TRUE(back.flag);
    EXPECT_EQ(back.value.value(), 0x8000000000000001ull);
}

TEST(Ranged, DegenerateRangeCostsZeroBitsAndReadsBackMin)
{
    using five = bitrep::ranged<int, 5, 5>;
    EXPECT_EQ(bitrep::bit_size(five{5}), 0u);
    EXPECT_TRUE(bitrep::to_bytes(five{5}).empty());
    five target{9}; // not even in range: the read must still yield Min
    ASSERT_TRUE(bitrep::from_bytes(bytes{}, target));
    EXPECT_EQ(target.value(), 5);
}

TEST(Ranged, DegenerateRangeInsideAStructTakesNoBits)
{
    struct Sandwich {
        bool a;
        bitrep::ranged<std::int64_t, -7, -7> nothing;
        bool b;
    };
    Sandwich s{};
    s.a = true;
    s.nothing = -7;
    s.b = true;
    EXPECT_EQ(bitrep::to_bytes(s), (bytes{0x03}));
    Sandwich back{};
    back.nothing = 3;
    back = decode(bytes{0x03}, back);
    EXPECT_EQ(back.nothing.value(), -7);
    EXPECT_TRUE(back.a);
    EXPECT_TRUE(back.b);
}

TEST(Ranged, DegenerateRangeRefusesAnyOtherValueOnWrite)
{
    EXPECT_EQ(write_status(bitrep::ranged<int, 5, 5>{6}).code(), bitrep::error::value_out_of_range);
}

TEST(Ranged, ValueAboveMaxIsRefusedOnWrite)
{
    const bitrep::status st = write_status(bitrep::ranged<int, 0, 100>{101});
    EXPECT_EQ(st.code(), bitrep::error::value_out_of_range);
}

TEST(Ranged, ValueBelowMinIsRefusedOnWrite)
{
    EXPECT_EQ(write_status(bitrep::ranged<int, 1, 64>{0}).code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(write_status(bitrep::ranged<std::int8_t, -10, 10>{-11}).code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(write_status(bitrep::ranged<unsigned, 10, 20>{5u}).code(), bitrep::error::value_out_of_range);
}

TEST(Ranged, DecodedOffsetAboveTheSpanIsRefusedOnRead)
{
    using health = bitrep::ranged<int, 0, 100>;
    EXPECT_EQ(decode<health>(bytes{100}).value(), 100);
    const bitrep::status st = read_status<health>(bytes{101});
    EXPECT_EQ(st.code(), bitrep::error::out_of_range);
    EXPECT_EQ(st.bit_offset(), 0u);
    EXPECT_EQ(read_status<health>(bytes{127}).code(), bitrep::error::out_of_range);
}

TEST(Ranged, DecodedOffsetAboveASignedSpanIsRefusedOnRead)
{
    using delta = bitrep::ranged<int, -100, 100>; // 8 bits carry offsets up to 255
    EXPECT_EQ(decode<delta>(bytes{200}).value(), 100);
    EXPECT_EQ(read_status<delta>(bytes{201}).code(), bitrep::error::out_of_range);
    EXPECT_EQ(read_status<delta>(bytes{255}).code(), bitrep::error::out_of_range);
}

TEST(Ranged, DefaultsToZeroWhenInRangeElseToMin)
{
    EXPECT_EQ((bitrep::ranged<int, -3, 3>{}.value()), 0);
    EXPECT_EQ((bitrep::ranged<int, 5, 10>{}.value()), 5);
    EXPECT_EQ((bitrep::ranged<int, -10, -5>{}.value()), -10);
}

TEST(Ranged, BehavesLikeItsInteger)
{
    bitrep::ranged<int, 0, 100> v = 40;
    v += 2;
    ++v;
    const int plain = v;
    EXPECT_EQ(plain, 43);
    EXPECT_TRUE(v == 43);
    EXPECT_TRUE(v < 50);
    EXPECT_TRUE(v.in_range());
    v = 101;
    EXPECT_FALSE(v.in_range());
}

// ---------------------------------------------------------------- quantized

using position_t = bitrep::quantized<-100.f, 100.f, 0.01f>; // 20000 quanta, 15 bits
using speed_t = bitrep::quantized<0.f, 10.f, 0.01f>;        // 1000 quanta, 10 bits
using angle_t = bitrep::quantized<0, 360, 0.1>;             // 3600 quanta, 12 bits

TEST(Quantized, WidthFollowsTheNumberOfQuanta)
{
    EXPECT_EQ(position_t::quantizer.max_integer, 20000u);
    EXPECT_EQ(position_t::bits, 15);
    EXPECT_EQ(bitrep::bit_size(position_t{0.0f}), 15u);
    EXPECT_EQ(speed_t::quantizer.max_integer, 1000u);
    EXPECT_EQ(bitrep::bit_size(speed_t{0.0f}), 10u);
    EXPECT_EQ(angle_t::quantizer.max_integer, 3600u);
    EXPECT_EQ(bitrep::bit_size(angle_t{0.0f}), 12u);
}

// A float_constant holds the float as the shortest decimal that gives it
// back (what compilers print in errors); every float comes back exactly.
static_assert(bitrep::float_constant(-100.f).significand == -100 && bitrep::float_constant(-100.f).exponent == 0);
static_assert(bitrep::float_constant(0.01f).significand == 1 && bitrep::float_constant(0.01f).exponent == -2);
static_assert(bitrep::float_constant(1e30f).significand == 1 && bitrep::float_constant(1e30f).exponent == 30);
static_assert(bitrep::float_constant(0.1).significand == 1 && bitrep::float_constant(0.1).exponent == -1);
static_assert(std::is_same_v<bitrep::quantized<0, 360, 0.1>, bitrep::quantized<0.f, 360.f, 0.1f>>);
static_assert(!std::is_same_v<bitrep::quantized<-0.f, 1.f, 0.1f>, bitrep::quantized<0.f, 1.f, 0.1f>>);

TEST(Quantized, FloatConstantsGiveTheirFloatBackExactly)
{
    const float values[] = {0.f, -0.f, 1.f, -1.f, 0.1f, 0.01f, 1.f / 3.f, 512.f, 1e6f, 1.001e6f, 123456789.f,
                            std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::min(), std::numeric_limits<float>::denorm_min(),
                            std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()};
    for (float v : values)
        EXPECT_EQ(bits_of(bitrep::float_constant(v).value()), bits_of(v)) << v;
    EXPECT_TRUE(std::isnan(bitrep::float_constant(std::numeric_limits<float>::quiet_NaN()).value()));
    // Every 9,973rd float, across all exponents and signs.
    for (std::uint64_t pattern = 0; pattern <= 0xFFFF'FFFFu; pattern += 9973) {
        const float v = std::bit_cast<float>(static_cast<std::uint32_t>(pattern));
        if (v == v) {
            ASSERT_EQ(bits_of(bitrep::float_constant(v).value()), bits_of(v)) << pattern;
        }
    }
}

TEST(Quantized, ResolutionCoarserThanTheRangeStillHasOneQuantum)
{
    using coarse = bitrep::quantized<0.f, 1.f, 2.f>; // values 0.5 clamps to 1
    EXPECT_EQ(coarse::quantizer.max_integer, 1u);
    EXPECT_EQ(bitrep::bit_size(coarse{0.3f}), 1u);
    EXPECT_EQ(bitrep::to_bytes(coarse{0.3f}), (bytes{0x00}));
    EXPECT_EQ(bitrep::to_bytes(coarse{0.7f}), (bytes{0x01}));
    EXPECT_EQ(bits_of(round_trip(coarse{0.7f}).value()), bits_of(1.0f));
}

TEST(Quantized, StandardDiscriminatingExamplesGiveTheConformantQuantum)
{
    // serialize 1.0 section 6: [0,10] at 0.01, between-quanta inputs.
    EXPECT_EQ(bitrep::to_bytes(speed_t{0.005f}), (bytes{1, 0}));
    EXPECT_EQ(bitrep::to_bytes(speed_t{0.025f}), (bytes{3, 0}));
    EXPECT_EQ(bitrep::to_bytes(speed_t{0.105f}), (bytes{11, 0}));
    EXPECT_EQ(bitrep::to_bytes(speed_t{9.995f}), (bytes{0xE8, 0x03})); // 1000
    EXPECT_EQ(bitrep::to_bytes(speed_t{2.5f}), (bytes{0xFA, 0x00}));   // 250
}

TEST(Quantized, MinIsQuantumZeroAndDecodesExactlyToMin)
{
    EXPECT_EQ(bitrep::to_bytes(position_t{-100.0f}), (bytes{0, 0}));
    EXPECT_EQ(bits_of(round_trip(position_t{-100.0f}).value()), bits_of(-100.0f));
    EXPECT_EQ(bits_of(round_trip(speed_t{0.0f}, speed_t{5.0f}).value()), bits_of(0.0f));
}

TEST(Quantized, MaxIsTheLastQuantumAndDecodesExactlyToMax)
{
    EXPECT_EQ(bitrep::to_bytes(position_t{100.0f}), (bytes{0x20, 0x4E})); // 20000
    EXPECT_EQ(bits_of(round_trip(position_t{100.0f}).value()), bits_of(100.0f));
    EXPECT_EQ(bits_of(round_trip(angle_t{360.0f}).value()), bits_of(360.0f));
}

TEST(Quantized, BetweenQuantaDecodesBitExactlyToTheReferenceQuantum)
{
    std::mt19937_64 rng(0x51a7);
    std::uniform_real_distribution<float> any(-100.0f, 100.0f);
    const auto reference = oracle::quantizer::with_max_integer(-100.0f, 100.0f, 20000);
    for (int i = 0; i < 3000; ++i) {
        const float v = any(rng);
        const std::uint32_t q = reference.quantize(v);
        const bytes wire = bitrep::to_bytes(position_t{v});
        ASSERT_EQ(wire.size(), 2u);
        EXPECT_EQ(static_cast<std::uint32_t>(wire[0] | (wire[1] << 8)), q) << "value " << v;
        const float expected = reference.dequantize(q);
        EXPECT_EQ(bits_of(decode<position_t>(wire).value()), bits_of(expected)) << "value " << v;
    }
}

TEST(Quantized, DecodedSpeedsAreBitExactReferenceQuanta)
{
    const auto reference = oracle::quantizer::with_max_integer(0.0f, 10.0f, 1000);
    for (float v : {0.005f, 0.025f, 0.105f, 9.995f, 3.14159f, 7.777f}) {
        const std::uint32_t q = reference.quantize(v);
        EXPECT_EQ(bits_of(round_trip(speed_t{v}).value()), bits_of(reference.dequantize(q))) << v;
    }
}

TEST(Quantized, TopOfAnOddRangeAboveTwoToTheTwentyThreeIsWrittenAsTheLastQuantum)
{
    // p + 0.5 = 8388609.5 rounds to 8388610 in float32, one above the last
    // quantum; bitrep writes the last quantum instead (docs/formats/wire-format.md section 2).
    using wide = bitrep::quantized<0.f, 8388609.f, 1.f>;
    ASSERT_EQ(wide::quantizer.max_integer, 8388609u);
    ASSERT_EQ(wide::bits, 24);
    EXPECT_EQ(bitrep::to_bytes(wide{8388609.0f}), (bytes{0x01, 0x00, 0x80}));
    EXPECT_EQ(bits_of(round_trip(wide{8388609.0f}).value()), bits_of(8388609.0f));
}

TEST(Quantized, QuantumAndQuantizedValueMatchTheWire)
{
    const position_t v{12.345f};
    const std::uint32_t q = oracle::quantizer::with_max_integer(-100.0f, 100.0f, 20000).quantize(12.345f);
    EXPECT_EQ(v.quantum(), q);
    EXPECT_EQ(bits_of(v.quantized_value()), bits_of(round_trip(v).value()));
}

namespace {
/// Encoding what a reader decoded gives the bytes it decoded: the property
/// games rely on when they hash replicated state or save a loaded game again.
template <class T>
void expect_reencodes_to_itself(const T& value)
{
    const bytes first = bitrep::to_bytes(value);
    T decoded{};
    ASSERT_TRUE(bitrep::from_bytes(first, decoded));
    EXPECT_EQ(bitrep::to_bytes(decoded), first);
}
} // namespace

TEST(Quantized, RangesFloatCanResolveSendTheStandardsQuantum)
{
    EXPECT_TRUE(position_t::quantizer.exact);
    EXPECT_TRUE(speed_t::quantizer.exact);
    const auto reference = oracle::quantizer::with_max_integer(-100.0f, 100.0f, 20000);
    std::mt19937_64 rng(41);
    std::uniform_real_distribution<float> any(-120.0f, 120.0f);
    for (int i = 0; i < 2000; ++i) {
        const float v = any(rng);
        EXPECT_EQ(position_t{v}.quantum(), reference.quantize(v)) << v;
    }
}

TEST(Quantized, EveryValueOfARangeFloatCannotResolveReencodesToItsOwnBytes)
{
    // 20 million quanta of 1 cm: around 100 km float32 steps are 0.0078 m
    // apart, and float32 division cannot hold q / 20000000 exactly, so the
    // standard's quantum of some values decodes to a value that is sent as a
    // neighbouring quantum.
    using far = bitrep::quantized<-100000.f, 100000.f, 0.01f>;
    ASSERT_FALSE(far::quantizer.exact);
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<float> any(-100000.0f, 100000.0f);
    std::size_t unstable_standard_quanta = 0;
    for (int i = 0; i < 20000; ++i) {
        const float v = any(rng);
        const std::uint32_t standard = far::quantizer.quantize(v);
        unstable_standard_quanta += far::quantizer.quantize(far::quantizer.dequantize(standard)) != standard ? 1 : 0;
        expect_reencodes_to_itself(far{v});
    }
    EXPECT_GT(unstable_standard_quanta, 0u) << "the range no longer exercises settling";
}

TEST(Quantized, ValuesAboveMaxAreRefusedOnWrite)
{
    EXPECT_EQ(write_status(position_t{100.001f}).code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(write_status(position_t{250.0f}).code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(write_status(position_t{1e30f}).code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(write_status(position_t{std::nextafter(100.0f, 200.0f)}).message().find("outside its declared range") !=
                  std::string::npos,
              true);
}

TEST(Quantized, ValuesBelowMinAreRefusedOnWrite)
{
    EXPECT_EQ(write_status(position_t{-100.5f}).code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(write_status(position_t{-1e30f}).code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(write_status(speed_t{-0.001f}).code(), bitrep::error::value_out_of_range);
}

TEST(Quantized, InfinitiesAreRefusedOnWrite)
{
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(write_status(position_t{inf}).code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(write_status(position_t{-inf}).code(), bitrep::error::value_out_of_range);
}

TEST(Quantized, TheBoundsThemselvesAreWritten)
{
    EXPECT_EQ(bitrep::to_bytes(position_t{-100.0f}), (bytes{0, 0}));
    EXPECT_EQ(bits_of(round_trip(position_t{100.0f}).value()), bits_of(100.0f));
    EXPECT_TRUE(position_t{100.0f}.in_range());
    EXPECT_FALSE(position_t{std::numeric_limits<float>::quiet_NaN()}.in_range());
}

TEST(Quantized, ATopThatDecodesAboveMaxIsSentAgain)
{
    // (7.68 - -20.46) + -20.46 rounds to 7.6800003, above 7.68: the top
    // quantum decodes there, and a value a reader decoded must be writable.
    using band = bitrep::quantized<-20.46f, 7.68f, 0.01f>;
    ASSERT_GT(band::quantizer.delta + band::quantizer.min, band::max);
    const band decoded = round_trip(band{7.68f});
    EXPECT_GT(decoded.value(), band::max);
    EXPECT_TRUE(write_status(decoded));
    EXPECT_EQ(bitrep::to_bytes(decoded), bitrep::to_bytes(band{7.68f}));
    EXPECT_EQ(write_status(band{std::nextafter(decoded.value(), 8.0f)}).code(), bitrep::error::value_out_of_range);
}

using clamped_position_t = bitrep::clamped<position_t>;

TEST(Quantized, ClampedValuesAboveMaxClampToMax)
{
    static_assert(std::is_same_v<clamped_position_t,
                                 bitrep::quantized<-100.f, 100.f, 0.01f, bitrep::range_policy::clamp>>);
    EXPECT_EQ(bitrep::to_bytes(clamped_position_t{100.001f}), bitrep::to_bytes(position_t{100.0f}));
    EXPECT_EQ(bitrep::to_bytes(clamped_position_t{1e30f}), bitrep::to_bytes(position_t{100.0f}));
    EXPECT_EQ(bits_of(round_trip(clamped_position_t{250.0f}).value()), bits_of(100.0f));
}

TEST(Quantized, ClampedValuesBelowMinClampToMin)
{
    EXPECT_EQ(bitrep::to_bytes(clamped_position_t{-100.5f}), (bytes{0, 0}));
    EXPECT_EQ(bits_of(round_trip(clamped_position_t{-1e30f}).value()), bits_of(-100.0f));
}

TEST(Quantized, ClampedInfinitiesClampToTheBounds)
{
    using clamped_speed_t = bitrep::clamped<speed_t>;
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(bitrep::to_bytes(clamped_position_t{inf}), bitrep::to_bytes(position_t{100.0f}));
    EXPECT_EQ(bitrep::to_bytes(clamped_position_t{-inf}), bitrep::to_bytes(position_t{-100.0f}));
    EXPECT_EQ(bits_of(round_trip(clamped_speed_t{inf}).value()), bits_of(10.0f));
    EXPECT_EQ(bits_of(round_trip(clamped_speed_t{-inf}, clamped_speed_t{4.0f}).value()), bits_of(0.0f));
}

TEST(Quantized, ClampedStillRefusesNan)
{
    EXPECT_EQ(write_status(clamped_position_t{std::numeric_limits<float>::quiet_NaN()}).code(),
              bitrep::error::value_out_of_range);
}

struct Body {
    position_t x;
    position_t y;
};
BOOST_DESCRIBE_STRUCT(Body, (), (x, y))

TEST(Quantized, NanIsRefusedOnWriteNamingTheField)
{
    Body body{};
    body.y = std::numeric_limits<float>::quiet_NaN();
    const bitrep::status st = write_status(body);
    EXPECT_EQ(st.code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(st.field_path(), "Body.y");
    EXPECT_EQ(st.bit_offset(), 15u);
    EXPECT_EQ(write_status(position_t{-std::numeric_limits<float>::quiet_NaN()}).code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(write_status(position_t{std::bit_cast<float>(0x7F800001u)}).code(), bitrep::error::value_out_of_range);
}

TEST(Quantized, QuantumAboveTheLastIsRefusedOnRead)
{
    EXPECT_EQ(read_status<speed_t>(bytes{0xE8, 0x03}).code(), bitrep::error::none); // 1000
    const bitrep::status st = read_status<speed_t>(bytes{0xE9, 0x03});           // 1001
    EXPECT_EQ(st.code(), bitrep::error::out_of_range);
    EXPECT_EQ(st.bit_offset(), 0u);
    EXPECT_EQ(read_status<speed_t>(bytes{0xFF, 0x03}).code(), bitrep::error::out_of_range); // 1023
    EXPECT_EQ(read_status<position_t>(bytes{0x21, 0x4E}).code(), bitrep::error::out_of_range); // 20001
}

TEST(Quantized, DefaultsToZeroWhenInRangeElseToMin)
{
    EXPECT_EQ(bits_of(position_t{}.value()), bits_of(0.0f));
    EXPECT_EQ(bits_of(bitrep::quantized<5.f, 10.f, 0.5f>{}.value()), bits_of(5.0f));
}

TEST(Quantized, BehavesLikeAFloatInMemory)
{
    position_t v = 1.5f;
    v += 0.25f;
    const float plain = v;
    EXPECT_EQ(plain, 1.75f);
    EXPECT_TRUE(v == 1.75f);
    v = 1000.0f; // memory keeps the value; only the writer refuses it
    EXPECT_EQ(v.value(), 1000.0f);
}

// ---------------------------------------------------------------- quat

namespace {

constexpr float quat_limit = 0.707106781f;

template <int B>
bitrep::quat<B> unit(float x, float y, float z, float w)
{
    const float length = std::sqrt(x * x + y * y + z * z + w * w);
    return {x / length, y / length, z / length, w / length};
}

template <int B>
float quantum_step()
{
    return 2.0f * quat_limit / static_cast<float>((1u << B) - 2u); // 2^B - 2 quanta
}

std::array<float, 4> components(const auto& q) { return {q.x, q.y, q.z, q.w}; }

std::size_t largest_index(const std::array<float, 4>& c)
{
    std::size_t largest = 0;
    for (std::size_t i = 1; i < 4; ++i)
        if (std::fabs(c[i]) > std::fabs(c[largest]))
            largest = i;
    return largest;
}

/// Each of the three sent components is off by at most half a quantum h (plus
/// float rounding). The rebuilt largest l = sqrt(1 - S) is off by at most
/// |dS| / l, with l >= 1/2 and |dS| <= 2 (|a| + |b| + |c|) h + 3h^2 <= 3h + 3h^2,
/// so by at most 6h + 6h^2 = 3 quanta + 1.5 quanta^2. Where the two largest
/// lie within two quanta, the writer may move a component one quantum
/// further towards 0 so that the decoded rotation encodes to the same bytes:
/// then h is 1.5 quanta and the largest is off by at most 9 + 13.5 quanta.
template <int B>
void expect_close_rotation(const bitrep::quat<B>& original, const bitrep::quat<B>& decoded)
{
    auto o = components(original);
    const auto d = components(decoded);
    const std::size_t largest = largest_index(o);
    if (o[largest] < 0.0f)
        for (float& c : o)
            c = -c;
    const float step = quantum_step<B>();
    float runner_up = 0.0f;
    for (std::size_t i = 0; i < 4; ++i)
        if (i != largest)
            runner_up = std::max(runner_up, std::fabs(o[i]));
    const bool near_tie = o[largest] - runner_up < 2.0f * step;
    const float h = near_tie ? 1.5f * step : 0.5f * step;
    for (std::size_t i = 0; i < 4; ++i) {
        const float bound = i == largest ? 6.0f * h + 6.0f * h * h + 4e-6f : h + 1e-6f;
        EXPECT_LE(std::fabs(d[i] - o[i]), bound) << "component " << i << " of quat<" << B << ">";
    }
}

template <int B>
void expect_random_round_trips(std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (int i = 0; i < 500; ++i) {
        const auto q = unit<B>(normal(rng), normal(rng), normal(rng), normal(rng));
        const bytes wire = bitrep::to_bytes(q);
        ASSERT_EQ(wire.size(), static_cast<std::size_t>((2 + 3 * B + 7) / 8));
        expect_close_rotation(q, decode<bitrep::quat<B>>(wire));
    }
}

} // namespace

TEST(Quat, CostsTwoPlusThreeTimesTheComponentBits)
{
    EXPECT_EQ(bitrep::bit_size(bitrep::quat<9>{}), 29u);
    EXPECT_EQ(bitrep::bit_size(bitrep::quat<3>{}), 11u);
    EXPECT_EQ(bitrep::bit_size(bitrep::quat<10>{}), 32u);
    EXPECT_EQ(bitrep::bit_size(bitrep::quat<16>{}), 50u);
    EXPECT_EQ(bitrep::bit_size(bitrep::quat<24>{}), 74u);
    EXPECT_EQ(bitrep::to_bytes(bitrep::quat<9>{}).size(), 4u);
    EXPECT_EQ(bitrep::to_bytes(bitrep::quat<16>{}).size(), 7u);
    EXPECT_EQ(bitrep::max_bits<bitrep::quat<9>>, 29u);
}

TEST(Quat, IdentityHasTheHandComputedBytes)
{
    // largest = w (index 3); x, y, z = 0 quantize to floor(0.5 * 510 + 0.5) = 255.
    const std::uint64_t expected = 3u | (255u << 2) | (255u << 11) | (255u << 20);
    EXPECT_EQ(bitrep::to_bytes(bitrep::quat<9>{0.0f, 0.0f, 0.0f, 1.0f}), bit_builder{}.bits(expected, 29).result());
    EXPECT_EQ(bitrep::to_bytes(bitrep::quat<9>{0.0f, 0.0f, 0.0f, 1.0f}), (bytes{0xFF, 0xFB, 0xF7, 0x0F}));
}

TEST(Quat, IdentitySurvivesARoundTripExactly)
{
    const auto decoded = round_trip(bitrep::quat<9>{0.0f, 0.0f, 0.0f, 1.0f}, bitrep::quat<9>{0.5f, 0.5f, 0.5f, 0.5f});
    EXPECT_EQ(bits_of(decoded.x), bits_of(0.0f));
    EXPECT_EQ(bits_of(decoded.y), bits_of(0.0f));
    EXPECT_EQ(bits_of(decoded.z), bits_of(0.0f));
    EXPECT_EQ(bits_of(decoded.w), bits_of(1.0f));
}

TEST(Quat, ZeroComponentsOfASingleAxisRotationSurviveExactly)
{
    const bitrep::quat<9> about_y{0.0f, 0.38268343f, 0.0f, 0.92387953f}; // 45 degrees about y
    const auto decoded = round_trip(about_y);
    EXPECT_EQ(bits_of(decoded.x), bits_of(0.0f));
    EXPECT_EQ(bits_of(decoded.z), bits_of(0.0f));
    expect_close_rotation(about_y, decoded);
}

TEST(Quat, ReaderRebuildsTheLargestFromTheUnitNormStepByStep)
{
    const std::uint64_t code = 3u | (300u << 2) | (200u << 11) | (255u << 20);
    const auto decoded = decode<bitrep::quat<9>>(bit_builder{}.bits(code, 29).result());
    const auto component = oracle::quantizer::with_max_integer(-quat_limit, quat_limit, 510);
    const float x = component.dequantize(300);
    const float y = component.dequantize(200);
    const float z = component.dequantize(255);
    volatile float x2 = x * x;
    volatile float y2 = y * y;
    volatile float z2 = z * z;
    volatile float sum = 0.0f + x2;
    sum = sum + y2;
    sum = sum + z2;
    const float w = std::sqrt(1.0f - sum);
    EXPECT_EQ(bits_of(decoded.x), bits_of(x));
    EXPECT_EQ(bits_of(decoded.y), bits_of(y));
    EXPECT_EQ(bits_of(decoded.z), bits_of(z));
    EXPECT_EQ(bits_of(decoded.w), bits_of(w));
}

namespace {

/// A component width as a type, for the typed tests below: one test per
/// width, named by it ("QuatRoundTrip/9Bits.StaysWithinTheQuantizationBound").
template <int B>
using component_bits = std::integral_constant<int, B>;

struct bits_name {
    template <class Bits>
    static std::string GetName(int)
    {
        return std::to_string(Bits::value) + "Bits";
    }
};

template <class Bits>
class QuatRoundTrip : public ::testing::Test {};
using round_trip_widths =
    ::testing::Types<component_bits<9>, component_bits<3>, component_bits<12>, component_bits<16>, component_bits<24>>;
TYPED_TEST_SUITE(QuatRoundTrip, round_trip_widths, bits_name);

} // namespace

// 500 random rotations at each width, seeded with the width.
TYPED_TEST(QuatRoundTrip, StaysWithinTheQuantizationBound)
{
    expect_random_round_trips<TypeParam::value>(TypeParam::value);
}

namespace {
/// Rotations whose two largest components lie within two quanta of each
/// other, in every pair of positions and with either sign: the ones whose
/// rebuilt largest can come out below the other.
template <int B>
void expect_near_ties_reencode_to_themselves(std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_real_distribution<float> offset(-2.0f, 2.0f);
    const float step = quantum_step<B>();
    for (int i = 0; i < 3000; ++i) {
        std::array<float, 4> c{normal(rng), normal(rng), normal(rng), normal(rng)};
        const std::size_t a = static_cast<std::size_t>(rng() % 4);
        const std::size_t b = (a + 1 + static_cast<std::size_t>(rng() % 3)) % 4;
        c[a] = std::fabs(c[a]) + 1.0f;
        c[b] = (rng() % 2 ? 1.0f : -1.0f) * (c[a] + offset(rng) * step * 2.0f);
        const auto q = unit<B>(c[0], c[1], c[2], c[3]);
        const bytes first = bitrep::to_bytes(q);
        const auto decoded = decode<bitrep::quat<B>>(first);
        ASSERT_EQ(bitrep::to_bytes(decoded), first) << "quat<" << B << "> near tie " << i;
        expect_close_rotation(q, decoded);
    }
}

template <class Bits>
class QuatNearTies : public ::testing::Test {};
using near_tie_widths = ::testing::Types<component_bits<3>, component_bits<9>, component_bits<11>, component_bits<16>,
                                         component_bits<22>, component_bits<24>>;
TYPED_TEST_SUITE(QuatNearTies, near_tie_widths, bits_name);

} // namespace

// 3000 near ties at each width, seeded with ten times the width plus one.
TYPED_TEST(QuatNearTies, ReencodeToTheirOwnBytes)
{
    expect_near_ties_reencode_to_themselves<TypeParam::value>(10 * TypeParam::value + 1);
}

TEST(Quat, RandomRotationsReencodeToTheirOwnBytes)
{
    std::mt19937_64 rng(77);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (int i = 0; i < 20000; ++i) {
        const auto q = unit<9>(normal(rng), normal(rng), normal(rng), normal(rng));
        const bytes first = bitrep::to_bytes(q);
        ASSERT_EQ(bitrep::to_bytes(decode<bitrep::quat<9>>(first)), first) << "rotation " << i;
    }
}

TEST(Quat, EachLargestIndexIsSentInTheFirstTwoBits)
{
    for (std::uint8_t largest = 0; largest < 4; ++largest) {
        std::array<float, 4> c{0.2f, -0.3f, 0.1f, 0.25f};
        c[largest] = 0.85f;
        const auto q = unit<9>(c[0], c[1], c[2], c[3]);
        const bytes wire = bitrep::to_bytes(q);
        EXPECT_EQ(wire[0] & 0x03, largest);
        expect_close_rotation(q, decode<bitrep::quat<9>>(wire));
    }
}

TEST(Quat, TiesGoToTheFirstLargestComponent)
{
    const bytes tie = bitrep::to_bytes(bitrep::quat<9>{0.5f, 0.5f, 0.5f, 0.5f});
    EXPECT_EQ(tie[0] & 0x03, 0);
}

TEST(Quat, QAndMinusQGiveTheSameBytes)
{
    const auto q = unit<9>(0.1f, -0.9f, 0.3f, 0.2f);
    const bitrep::quat<9> negated{-q.x, -q.y, -q.z, -q.w};
    EXPECT_EQ(bitrep::to_bytes(q), bitrep::to_bytes(negated));
}

TEST(Quat, NegativeLargestIsFoldedToPositiveOnRead)
{
    const auto q = unit<9>(0.1f, -0.9f, 0.3f, 0.2f);
    const auto decoded = round_trip(q);
    EXPECT_GT(decoded.y, 0.0f);
    EXPECT_LT(decoded.x, 0.0f);
    EXPECT_LT(decoded.z, 0.0f);
    EXPECT_LT(decoded.w, 0.0f);
    expect_close_rotation(q, decoded);
}

TEST(Quat, NonUnitQuaternionIsRefusedOnWrite)
{
    EXPECT_EQ(write_status(bitrep::quat<9>{0.0f, 0.0f, 0.0f, 0.0f}).code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(write_status(bitrep::quat<9>{1.0f, 1.0f, 0.0f, 0.0f}).code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(write_status(bitrep::quat<9>{0.0f, 0.0f, 0.0f, 2.0f}).code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(write_status(bitrep::quat<9>{0.0f, 0.0f, 0.0f, 1.02f}).code(), bitrep::error::value_out_of_range);
}

TEST(Quat, NearlyUnitQuaternionWithinOnePercentIsAccepted)
{
    EXPECT_TRUE(write_status(bitrep::quat<9>{0.0f, 0.0f, 0.0f, 1.004f})); // |q|^2 = 1.008
    EXPECT_TRUE(write_status(bitrep::quat<9>{0.0f, 0.0f, 0.0f, 0.996f})); // |q|^2 = 0.992
}

TEST(Quat, NanOrInfiniteQuaternionIsRefusedOnWrite)
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(write_status(bitrep::quat<9>{nan, 0.0f, 0.0f, 1.0f}).code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(write_status(bitrep::quat<9>{0.0f, 0.0f, 0.0f, nan}).code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(write_status(bitrep::quat<9>{inf, 0.0f, 0.0f, 0.0f}).code(), bitrep::error::value_out_of_range);
}

TEST(Quat, CodeAboveTheLastQuantumIsRefusedOnRead)
{
    // 2^9 - 2 = 510 is the last quantum; 511 is refused like any compressed float above its range.
    const std::uint64_t code = 3u | (511u << 2) | (255u << 11) | (255u << 20);
    const bitrep::status st = read_status<bitrep::quat<9>>(bit_builder{}.bits(code, 29).result());
    EXPECT_EQ(st.code(), bitrep::error::out_of_range);
    EXPECT_EQ(st.bit_offset(), 0u); // errors point at the quaternion's first bit
    const std::uint64_t last = 3u | (255u << 2) | (255u << 11) | (511u << 20);
    EXPECT_EQ(read_status<bitrep::quat<9>>(bit_builder{}.bits(last, 29).result()).code(), bitrep::error::out_of_range);
}

TEST(Quat, SmallestThreeWhoseSquaresExceedOneAreRefusedOnRead)
{
    const std::uint64_t code = 0u | (510u << 2) | (510u << 11) | (510u << 20); // three components of 1/sqrt(2)
    const bitrep::status st = read_status<bitrep::quat<9>>(bit_builder{}.bits(code, 29).result());
    EXPECT_EQ(st.code(), bitrep::error::out_of_range);
    EXPECT_EQ(st.bit_offset(), 0u);
}

TEST(Quat, SmallestThreeWhoseSquaresSumToAtMostOneAreAcceptedOnRead)
{
    const std::uint64_t code = 1u | (510u << 2) | (255u << 11) | (510u << 20); // x = w = 1/sqrt(2), z = 0
    const auto decoded = decode<bitrep::quat<9>>(bit_builder{}.bits(code, 29).result());
    const volatile float square = quat_limit * quat_limit;
    const volatile float sum = square + square;
    EXPECT_EQ(bits_of(decoded.x), bits_of(quat_limit));
    EXPECT_EQ(bits_of(decoded.z), bits_of(0.0f));
    EXPECT_EQ(bits_of(decoded.w), bits_of(quat_limit));
    EXPECT_EQ(bits_of(decoded.y), bits_of(std::sqrt(1.0f - sum)));
}

TEST(Quat, NarrowestQuatRoundTripsEveryEqualMagnitudeUnitQuaternion)
{
    // The narrowest width (3 bits) must read back whatever its writer
    // accepts. Four equal magnitudes is the worst case for rounding the
    // three sent components up (at 2 bits, 0.5 rounded to 1/sqrt(2), their
    // squares summed to 1.5, and quat<2> no longer compiles for that reason).
    for (int signs = 0; signs < 16; ++signs) {
        const auto sign = [&](int bit) { return (signs >> bit) & 1 ? -0.5f : 0.5f; };
        const bitrep::quat<3> equal{sign(0), sign(1), sign(2), sign(3)};
        bytes wire;
        ASSERT_TRUE(bitrep::to_bytes(equal, wire));
        bitrep::quat<3> decoded{};
        const bitrep::status st = bitrep::from_bytes(wire, decoded);
        EXPECT_TRUE(st) << "signs " << signs << ": " << st.message();
    }
}

// ---------------------------------------------------------------- bounded_string

struct Named {
    bitrep::ranged<int, 0, 7> level;
    bitrep::bounded_string<16> name;
};
BOOST_DESCRIBE_STRUCT(Named, (), (level, name))

TEST(BoundedString, EmptyCostsTheLengthAndThePadding)
{
    EXPECT_EQ(bitrep::bit_size(bitrep::bounded_string<16>{}), 8u); // 5 + 3
    EXPECT_EQ(bitrep::to_bytes(bitrep::bounded_string<16>{}), (bytes{0x00}));
    EXPECT_EQ(round_trip(bitrep::bounded_string<16>{}, bitrep::bounded_string<16>{"old"}), "");
}

TEST(BoundedString, ShortStringIsLengthPaddingThenBytes)
{
    EXPECT_EQ(bitrep::bit_size(bitrep::bounded_string<16>{"hi"}), 24u); // 5 + 3 + 16
    EXPECT_EQ(bitrep::to_bytes(bitrep::bounded_string<16>{"hi"}), (bytes{0x02, 'h', 'i'}));
    EXPECT_EQ(round_trip(bitrep::bounded_string<16>{"hi"}), "hi");
}

TEST(BoundedString, LengthFieldWidthFollowsTheBound)
{
    EXPECT_EQ(bitrep::bit_size(bitrep::bounded_string<31>{}), 8u);  // 5 bits + 3
    EXPECT_EQ(bitrep::bit_size(bitrep::bounded_string<255>{}), 8u); // 8 bits + 0
    EXPECT_EQ(bitrep::bit_size(bitrep::bounded_string<256>{}), 16u); // 9 bits + 7
    EXPECT_EQ(bitrep::bit_size(bitrep::bounded_string<0>{}), 0u);
}

TEST(BoundedString, StringAfterOtherFieldsPadsToTheNextByte)
{
    Named n{};
    n.level = 5;
    n.name = "ab";
    // level 3 bits, length 5 bits: already aligned after 8 bits.
    EXPECT_EQ(bitrep::to_bytes(n), (bytes{0x05 | (2 << 3), 'a', 'b'}));
    struct Late {
        bool flag;
        bitrep::bounded_string<16> name;
    };
    Late late{};
    late.flag = true;
    late.name = "ab";
    EXPECT_EQ(bitrep::bit_size(late), 1u + 5u + 2u + 16u);
    EXPECT_EQ(bitrep::to_bytes(late), bit_builder{}.bits(1, 1).bits(2, 5).text("ab").result());
}

TEST(BoundedString, FullLengthRoundTrips)
{
    const bitrep::bounded_string<16> full{"0123456789abcdef"};
    EXPECT_EQ(bitrep::bit_size(full), 5u + 3u + 128u);
    const bytes wire = bitrep::to_bytes(full);
    EXPECT_EQ(wire, bit_builder{}.bits(16, 5).text("0123456789abcdef").result());
    EXPECT_EQ(round_trip(full), "0123456789abcdef");
}

TEST(BoundedString, OneOverTheBoundIsRefusedOnWriteNamingTheField)
{
    Named n{};
    n.name = "0123456789abcdefg";
    const bitrep::status st = write_status(n);
    EXPECT_EQ(st.code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(st.field_path(), "Named.name");
    EXPECT_EQ(st.bit_offset(), 3u);
    EXPECT_NE(st.message().find("Named.name"), std::string::npos);
}

TEST(BoundedString, BoundCountsBytesNotCodePoints)
{
    EXPECT_TRUE(write_status(bitrep::bounded_string<3>{"\xE6\x97\xA5"})); // 日: 3 bytes
    EXPECT_EQ(write_status(bitrep::bounded_string<5>{"\xE6\x97\xA5\xE6\x9C\xAC"}).code(), bitrep::error::value_out_of_range);
}

TEST(BoundedString, Utf8ContentRoundTripsByteForByte)
{
    const std::string text = "h\xC3\xA9llo \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80"; // héllo 日本 😀
    ASSERT_LE(text.size(), 32u);
    const bitrep::bounded_string<32> value{text};
    const bytes wire = bitrep::to_bytes(value);
    EXPECT_EQ(wire, bit_builder{}.bits(text.size(), 6).text(text).result());
    EXPECT_EQ(round_trip(value), text);
}

TEST(BoundedString, MalformedUtf8IsRefusedOnWrite)
{
    EXPECT_EQ(write_status(bitrep::bounded_string<8>{"a\xC3"}).code(), bitrep::error::bad_utf8);
    EXPECT_EQ(write_status(bitrep::bounded_string<8>{"\xC0\x80"}).code(), bitrep::error::bad_utf8);
}

TEST(BoundedString, ZeroByteIsRefusedOnWrite)
{
    EXPECT_EQ(write_status(bitrep::bounded_string<8>{std::string("a\0b", 3)}).code(), bitrep::error::interior_nul);
}

TEST(BoundedString, LengthAboveTheBoundIsRefusedOnRead)
{
    using small = bitrep::bounded_string<4>; // 3-bit length: 5..7 are representable but refused
    EXPECT_EQ(decode<small>(bit_builder{}.bits(4, 3).text("abcd").result()), "abcd");
    const bitrep::status st = read_status<small>(bit_builder{}.bits(5, 3).text("abcde").result());
    EXPECT_EQ(st.code(), bitrep::error::out_of_range);
    EXPECT_EQ(st.bit_offset(), 0u);
}

TEST(BoundedString, LengthPastTheEndOfTheInputIsTruncated)
{
    using small = bitrep::bounded_string<4>;
    EXPECT_EQ(read_status<small>(bit_builder{}.bits(4, 3).text("abc").result()).code(), bitrep::error::truncated);
    EXPECT_EQ(read_status<small>(bytes{0x01}).code(), bitrep::error::truncated);
}

TEST(BoundedString, NonZeroPaddingIsRefusedOnRead)
{
    using small = bitrep::bounded_string<4>;
    const bitrep::status st = read_status<small>(bytes{0x01 | 0x40, 'a'});
    EXPECT_EQ(st.code(), bitrep::error::bad_padding);
    EXPECT_EQ(st.bit_offset(), 0u); // the string primitive's first bit
}

TEST(BoundedString, ZeroByteIsRefusedOnRead)
{
    using small = bitrep::bounded_string<4>;
    EXPECT_EQ(read_status<small>(bytes{0x03, 'a', 0x00, 'b'}).code(), bitrep::error::interior_nul);
    EXPECT_EQ(read_status<small>(bytes{0x01, 0x00}).code(), bitrep::error::interior_nul);
}

TEST(BoundedString, EveryKindOfMalformedUtf8IsRefusedOnRead)
{
    using text = bitrep::bounded_string<4>;
    const std::vector<std::string> malformed = {
        "\x80",             // stray continuation
        "\xBF",             // stray continuation
        "\xC0\x80",         // overlong lead C0
        "\xC1\xBF",         // overlong lead C1
        "\xE0\x80\x80",     // overlong three-byte form
        "\xF0\x80\x80\x80", // overlong four-byte form
        "\xED\xA0\x80",     // surrogate U+D800
        "\xED\xBF\xBF",     // surrogate U+DFFF
        "\xF4\x90\x80\x80", // above U+10FFFF
        "\xF5\x80\x80\x80", // invalid lead F5
        "\xFF",             // invalid lead FF
        "\xE6\x97",         // truncated sequence
        "a\xC3",            // truncated at the end
        "\xC3\x28",         // bad continuation
    };
    for (const std::string& payload : malformed) {
        const bytes wire = bit_builder{}.bits(payload.size(), 3).text(payload).result();
        EXPECT_EQ(read_status<text>(wire).code(), bitrep::error::bad_utf8) << "payload size " << payload.size();
    }
}

TEST(BoundedString, BoundaryCodePointsAreAcceptedOnRead)
{
    using text = bitrep::bounded_string<4>;
    const std::vector<std::string> valid = {"\x7F", "\xC2\x80", "\xE0\xA0\x80", "\xED\x9F\xBF", "\xEE\x80\x80", "\xF0\x90\x80\x80", "\xF4\x8F\xBF\xBF"};
    for (const std::string& payload : valid) {
        const bytes wire = bit_builder{}.bits(payload.size(), 3).text(payload).result();
        EXPECT_EQ(decode<text>(wire), payload);
    }
}

TEST(BoundedString, BehavesLikeAString)
{
    bitrep::bounded_string<8> s = "ab";
    s += "cd";
    s.push_back('e');
    EXPECT_EQ(s.size(), 5u);
    EXPECT_EQ(std::string_view(s), "abcde");
    EXPECT_TRUE(s.fits());
    s += "fghi";
    EXPECT_FALSE(s.fits());
}

// ---------------------------------------------------------------- bounded_vector

using slot_t = bitrep::ranged<int, 0, 7>;

struct Bag {
    bool open;
    bitrep::bounded_vector<slot_t, 4> items;
};
BOOST_DESCRIBE_STRUCT(Bag, (), (open, items))

TEST(BoundedVector, EmptyCostsOnlyTheSize)
{
    EXPECT_EQ((bitrep::bit_size(bitrep::bounded_vector<slot_t, 4>{})), 3u);
    EXPECT_EQ((bitrep::to_bytes(bitrep::bounded_vector<slot_t, 4>{})), (bytes{0x00}));
    const auto back = round_trip(bitrep::bounded_vector<slot_t, 4>{}, bitrep::bounded_vector<slot_t, 4>{1, 2});
    EXPECT_TRUE(back.empty());
}

TEST(BoundedVector, FullVectorIsTheSizeThenEachElement)
{
    const bitrep::bounded_vector<slot_t, 4> full{1, 2, 3, 4};
    EXPECT_EQ(bitrep::bit_size(full), 15u);
    // size 4 in 3 bits, then 1, 2, 3, 4 in 3 bits each: 0x468C
    EXPECT_EQ(bitrep::to_bytes(full), (bytes{0x8C, 0x46}));
    EXPECT_EQ(round_trip(full), full);
}

TEST(BoundedVector, SizeWidthIsBitsRequiredForTheBound)
{
    EXPECT_EQ((bitrep::bit_size(bitrep::bounded_vector<slot_t, 1>{})), 1u);
    EXPECT_EQ((bitrep::bit_size(bitrep::bounded_vector<slot_t, 8>{})), 4u);
    EXPECT_EQ((bitrep::bit_size(bitrep::bounded_vector<slot_t, 7>{})), 3u);
    EXPECT_EQ((bitrep::bit_size(bitrep::bounded_vector<slot_t, 1000>{})), 10u);
}

TEST(BoundedVector, OneOverTheBoundIsRefusedOnWriteNamingTheField)
{
    Bag bag{};
    bag.items = {1, 2, 3, 4, 5};
    const bitrep::status st = write_status(bag);
    EXPECT_EQ(st.code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(st.field_path(), "Bag.items");
    EXPECT_EQ(st.bit_offset(), 1u);
}

TEST(BoundedVector, ElementOutOfRangeNamesItsIndex)
{
    Bag bag{};
    bag.items = {1, 2, 8};
    const bitrep::status st = write_status(bag);
    EXPECT_EQ(st.code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(st.field_path(), "Bag.items[2]");
    EXPECT_EQ(st.bit_offset(), 1u + 3u + 3u + 3u);
}

TEST(BoundedVector, LengthAboveBoundIsRefusedOnRead)
{
    using bounded = bitrep::bounded_vector<slot_t, 4>;
    for (std::uint64_t size : {5u, 6u, 7u}) {
        bit_builder wire;
        wire.bits(size, 3);
        for (std::uint64_t i = 0; i < size; ++i)
            wire.bits(1, 3);
        const bitrep::status st = read_status<bounded>(wire.result());
        EXPECT_EQ(st.code(), bitrep::error::out_of_range) << size;
        EXPECT_EQ(st.bit_offset(), 0u);
    }
}

TEST(BoundedVector, ReadingResizesTheTargetToTheDecodedSize)
{
    using bounded = bitrep::bounded_vector<slot_t, 4>;
    EXPECT_EQ(round_trip(bounded{7}, bounded{1, 2, 3, 4}), bounded{7});
    EXPECT_EQ(round_trip(bounded{5, 6, 7}, bounded{1}), (bounded{5, 6, 7}));
}

TEST(BoundedVector, VectorOfStructsRoundTrips)
{
    struct Entry {
        bitrep::ranged<int, -5, 5> delta;
        bitrep::bounded_string<4> tag;
        bool operator==(const Entry&) const = default;
    };
    bitrep::bounded_vector<Entry, 3> entries;
    entries.push_back({-5, "a"});
    entries.push_back({5, "abcd"});
    entries.push_back({0, ""});
    // size 2 | delta 4, length 3, pad 7, "a" | delta 4, length 3, pad 1, "abcd" | delta 4, length 3, pad 1
    EXPECT_EQ(bitrep::bit_size(entries), 72u);
    EXPECT_EQ(round_trip(entries), entries);
}

TEST(BoundedVector, BehavesLikeAVector)
{
    bitrep::bounded_vector<int, 2> v{1, 2};
    EXPECT_TRUE(v.fits());
    v.push_back(3);
    EXPECT_EQ(v.size(), 3u);
    EXPECT_FALSE(v.fits());
    EXPECT_EQ(v.back(), 3);
    EXPECT_EQ(v.max_size(), 2u);
}

// ---------------------------------------------------------------- field flags

struct Flags {
    slot_t always;
    bitrep::save_only<slot_t> saved;
    bitrep::net_only<slot_t> replicated;
    bitrep::transient<slot_t> cache;
};

namespace {

Flags sample_flags()
{
    Flags f{};
    f.always = 1;
    f.saved = 2;
    f.replicated = 3;
    f.cache = 4;
    return f;
}

template <bitrep::scope Scope, class T>
bytes write_with_scope(T& value)
{
    std::array<std::uint8_t, 64> buffer{};
    bitrep::basic_write_stream<Scope> stream(buffer);
    EXPECT_TRUE(bitrep::serialize(stream, value));
    const std::size_t size = stream.flush();
    return bytes(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(size));
}

} // namespace

TEST(FieldFlags, ToBytesWritesSaveOnlyAndNetOnlyButNeverTransient)
{
    const Flags f = sample_flags();
    EXPECT_EQ(bitrep::bit_size(f), 9u);
    EXPECT_EQ(bitrep::to_bytes(f), bit_builder{}.bits(1, 3).bits(2, 3).bits(3, 3).result());
}

TEST(FieldFlags, SaveScopeSkipsNetOnly)
{
    Flags f = sample_flags();
    EXPECT_EQ(write_with_scope<bitrep::scope::save>(f), bit_builder{}.bits(1, 3).bits(2, 3).result());
}

TEST(FieldFlags, ReplicationScopeSkipsSaveOnly)
{
    Flags f = sample_flags();
    EXPECT_EQ(write_with_scope<bitrep::scope::replication>(f), bit_builder{}.bits(1, 3).bits(3, 3).result());
}

TEST(FieldFlags, AllScopeStreamMatchesToBytes)
{
    Flags f = sample_flags();
    EXPECT_EQ(write_with_scope<bitrep::scope::all>(f), bitrep::to_bytes(f));
}

TEST(FieldFlags, TransientFieldIsLeftUntouchedByFromBytes)
{
    Flags target{};
    target.cache = 6;
    ASSERT_TRUE(bitrep::from_bytes(bitrep::to_bytes(sample_flags()), target));
    EXPECT_EQ(target.always, 1);
    EXPECT_EQ(target.saved, 2);
    EXPECT_EQ(target.replicated, 3);
    EXPECT_EQ(target.cache, 6);
}

namespace {
/// Reads 5 and 6 in `Scope` into Flags whose fields other than `always` hold
/// 7: the two fields the scope carries take 5 and 6, the others keep 7.
template <bitrep::scope Scope>
void expect_scoped_read(int saved, int replicated)
{
    const bytes wire = bit_builder{}.bits(5, 3).bits(6, 3).result();
    Flags target{};
    target.saved = 7;
    target.replicated = 7;
    target.cache = 7;
    bitrep::basic_read_stream<Scope> stream(wire);
    ASSERT_TRUE(bitrep::serialize(stream, target));
    EXPECT_EQ(stream.position(), 6u);
    EXPECT_EQ(target.always, 5);
    EXPECT_EQ(target.saved, saved);
    EXPECT_EQ(target.replicated, replicated);
    EXPECT_EQ(target.cache, 7);
}
} // namespace

TEST(FieldFlags, SaveScopeReadLeavesNetOnlyUntouched)
{
    expect_scoped_read<bitrep::scope::save>(6, 7);
}

TEST(FieldFlags, ReplicationScopeReadLeavesSaveOnlyUntouched)
{
    expect_scoped_read<bitrep::scope::replication>(7, 6);
}

TEST(FieldFlags, MeasureStreamHonoursTheScope)
{
    Flags f = sample_flags();
    bitrep::basic_measure_stream<bitrep::scope::save> save;
    bitrep::basic_measure_stream<bitrep::scope::replication> replication;
    bitrep::measure_stream all;
    ASSERT_TRUE(bitrep::serialize(save, f));
    ASSERT_TRUE(bitrep::serialize(replication, f));
    ASSERT_TRUE(bitrep::serialize(all, f));
    EXPECT_EQ(save.exact_bits(), 6u);
    EXPECT_EQ(replication.exact_bits(), 6u);
    EXPECT_EQ(all.exact_bits(), 9u);
}

TEST(FieldFlags, TransientValueOutOfRangeIsNeverChecked)
{
    Flags f = sample_flags();
    f.cache = 100; // outside slot_t, but never written
    EXPECT_TRUE(write_status(f));
}

TEST(FieldFlags, TransientCostsNothingInMaxBits)
{
    EXPECT_EQ(bitrep::max_bits<bitrep::transient<slot_t>>, 0u);
    EXPECT_EQ(bitrep::max_bits<bitrep::save_only<slot_t>>, 3u);
    EXPECT_EQ(bitrep::max_bits<Flags>, 9u);
}

struct Transform {
    position_t x;
    position_t y;
    position_t z;
};

struct Camera {
    bitrep::net_only<Transform> view;
    bitrep::save_only<std::uint8_t> zoom;
    bitrep::transient<float> blend;
};

TEST(FieldFlags, FlaggedClassMembersRemainAccessible)
{
    Camera camera{};
    camera.view.x = 1.0f;
    camera.view.y = -2.5f;
    Transform& plain = camera.view.get();
    plain.z = 3.0f;
    const Camera back = round_trip(camera);
    const auto reference = oracle::quantizer::with_max_integer(-100.0f, 100.0f, 20000);
    const auto expected = [&](float v) { return reference.dequantize(reference.quantize(v)); };
    EXPECT_EQ(bits_of(back.view.x.value()), bits_of(expected(1.0f)));
    EXPECT_EQ(bits_of(back.view.y.value()), bits_of(expected(-2.5f)));
    EXPECT_EQ(bits_of(back.view.z.value()), bits_of(expected(3.0f)));
}

TEST(FieldFlags, FlaggedScalarsConvertToAndFromTheirValue)
{
    Camera camera{};
    camera.zoom = 200;
    camera.blend = 0.5f;
    const std::uint8_t zoom = camera.zoom;
    const float blend = camera.blend;
    EXPECT_EQ(zoom, 200);
    EXPECT_EQ(blend, 0.5f);
    EXPECT_EQ(bitrep::bit_size(camera), 45u + 8u);
    Camera target{};
    target.blend = 0.25f;
    target = decode(bitrep::to_bytes(camera), target);
    EXPECT_EQ(target.zoom.get(), 200);
    EXPECT_EQ(target.blend.get(), 0.25f);
}

// ---------------------------------------------------------------- usable like the plain value

TEST(Ranged, ComparesWithAnyIntegerByValue)
{
    const bitrep::ranged<std::uint16_t, 0, 999> id = 998;
    EXPECT_TRUE(id == 998);
    EXPECT_TRUE(id < 999);
    EXPECT_TRUE(5 < id);
    EXPECT_TRUE(id != 5u);
    EXPECT_TRUE(id == 998L);
    EXPECT_TRUE(id > -1); // by value, not by converting -1 to unsigned
    const bitrep::ranged<std::int8_t, -5, 5> small = -3;
    EXPECT_TRUE(small == -3);
    EXPECT_TRUE(small < 0);
    const bitrep::ranged<int, 0, 100> a = 3;
    const bitrep::ranged<int, 0, 50> b = 3;
    EXPECT_TRUE(a == b);
}

TEST(Quantized, ComparesWithDoubleAndIntegerLiterals)
{
    const bitrep::quantized<-100.f, 100.f, 0.01f> q = 1.5f;
    EXPECT_TRUE(q == 1.5);
    EXPECT_FALSE(q == 0);
    EXPECT_TRUE(q < 2);
    EXPECT_TRUE(q > 1.0);
}

namespace {
std::string as_string(const std::string& s) { return s; }
std::size_t count_of(const std::vector<int>& v) { return v.size(); }
} // namespace

TEST(BoundedString, ConvertsImplicitlyToStdStringAndStreams)
{
    const bitrep::bounded_string<16> name = std::string_view("hero");
    const std::string copy = name;
    EXPECT_EQ(copy, "hero");
    EXPECT_EQ(as_string(name), "hero");
    std::ostringstream out;
    out << name;
    EXPECT_EQ(out.str(), "hero");
}

TEST(BoundedVector, ConvertsImplicitlyToStdVector)
{
    const bitrep::bounded_vector<int, 8> values{1, 2, 3};
    const std::vector<int> copy = values;
    EXPECT_EQ(copy, (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(count_of(values), 3u);
}

namespace {
struct WithCaches {
    bitrep::ranged<int, 0, 7> level;
    bitrep::transient<std::string> label;        // not encodable, never encoded
    bitrep::transient<std::vector<int>> scratch; // likewise
};
} // namespace

TEST(FieldFlags, TransientFieldMayHoldATypeThatCannotBeEncoded)
{
    WithCaches value{};
    value.level = 5;
    value.label = std::string("kept");
    EXPECT_EQ(bitrep::bit_size(value), 3u);
    EXPECT_EQ(bitrep::max_bits<WithCaches>, 3u);
    const bytes wire = bitrep::to_bytes(value);
    WithCaches decoded{};
    decoded.label = std::string("local");
    ASSERT_TRUE(bitrep::from_bytes(wire, decoded));
    EXPECT_EQ(decoded.level, 5);
    EXPECT_EQ(decoded.label.get(), "local");
}

// ---------------------------------------------------------------- in gameplay code
//
// An annotated field in gameplay code, as a game programmer writes it. The
// standard algorithms deduce one type from both arguments, so a mix with a
// plain value takes the annotation's value (unary plus or get()); two
// annotations of one type need nothing.

namespace {

struct Hero {
    bitrep::quantized<-100.f, 100.f, 0.01f> x, y;
    bitrep::delta_small<bitrep::quantized<0.f, 50.f, 0.01f>, 63> speed;
    bitrep::ranged<int, 0, 100> hp;
    bitrep::ranged<std::uint8_t, 0, 250> level;
    bitrep::save_only<int> gold;
    bitrep::net_only<float> glow;
};
BOOST_DESCRIBE_STRUCT(Hero, (), (x, y, speed, hp, level, gold, glow))

} // namespace

TEST(Gameplay, AnnotatedFieldsWorkWithTheStandardAlgorithms)
{
    Hero hero;
    hero.x = -3.5f;
    hero.y = 2.0f;
    hero.hp = 40;
    EXPECT_EQ(std::max(+hero.x, 0.f), 0.f);
    EXPECT_EQ(std::max(hero.x.get(), -10.f), -3.5f);
    EXPECT_EQ(std::max<float>(hero.x, 1.f), 1.f);
    EXPECT_EQ(std::clamp(+hero.y, -1.f, 1.f), 1.f);
    EXPECT_EQ(std::max(hero.x, hero.y), 2.0f); // the same annotation: no spelling needed
    EXPECT_EQ(std::min(+hero.hp, 25), 25);
    EXPECT_EQ(std::clamp(+hero.hp, 50, 100), 50);
    hero.speed = 7.5f;
    EXPECT_EQ(std::min(+hero.speed, 5.f), 5.f);
}

TEST(Gameplay, AnnotatedFieldsDoArithmeticAndCompoundAssignment)
{
    Hero hero;
    hero.x = 1.5f;
    hero.y = 2.0f;
    EXPECT_EQ(hero.x + 1.f, 2.5f);
    EXPECT_EQ(hero.x * hero.y, 3.0f);
    EXPECT_EQ(-hero.x, -1.5f);
    hero.x += hero.y;
    hero.x *= 2;
    EXPECT_EQ(hero.x, 7.0f);
    hero.speed = 1.0f;
    hero.speed += 0.25f;
    EXPECT_EQ(hero.speed, 1.25f);

    hero.hp = 90;
    hero.hp += 5;
    ++hero.hp;
    hero.hp++;
    hero.hp -= 10;
    EXPECT_EQ(hero.hp, 87);
    EXPECT_EQ(hero.hp / 2 + 1, 44);

    hero.gold = 10;
    hero.gold += 5;
    hero.gold *= 2;
    ++hero.gold;
    hero.gold--;
    hero.gold -= 3;
    hero.gold /= 3;
    EXPECT_EQ(hero.gold, 9);
    hero.glow = 0.5f;
    hero.glow += 0.25f;
    EXPECT_EQ(hero.glow, 0.75f);
}

TEST(Gameplay, AnnotatedFieldsCompareWithPlainValuesAndEachOther)
{
    Hero hero;
    hero.x = 1.0f;
    hero.y = 2.0f;
    hero.hp = 0;
    EXPECT_TRUE(hero.x < hero.y);
    EXPECT_TRUE(hero.x < 1.5);
    EXPECT_TRUE(hero.x >= 1);
    EXPECT_TRUE(hero.hp == 0);
    EXPECT_TRUE(hero.hp <= 0u);
    EXPECT_TRUE(hero.hp != 1);
    hero.gold = 3;
    EXPECT_TRUE(hero.gold > 2);
}

TEST(Gameplay, GetGivesTheValueOnConstObjectsAndAPointerForAWidget)
{
    Hero hero;
    float* slider = &hero.x.get(); // e.g. ImGui::SliderFloat("x", slider, -100, 100)
    *slider = 12.25f;
    int* hp_box = &hero.hp.get();
    *hp_box = 77;
    int* gold_box = &hero.gold.get();
    *gold_box = 5;
    const Hero& view = hero;
    const float& x = view.x.get();
    const int& hp = view.hp.get();
    EXPECT_EQ(x, 12.25f);
    EXPECT_EQ(hp, 77);
    EXPECT_EQ(view.gold.get(), 5);
    EXPECT_EQ(view.speed.get(), 0.f);
    // And what a widget wrote is what gets sent.
    const Hero back = round_trip(hero);
    EXPECT_EQ(back.x.quantum(), hero.x.quantum());
    EXPECT_EQ(back.hp, 77);
}

TEST(Gameplay, AnnotatedFieldsPrintAsTheirValues)
{
    Hero hero;
    hero.x = -2.5f;
    hero.speed = 3.25f;
    hero.hp = 42;
    hero.level = 200; // a uint8_t prints as a number, not a character
    hero.gold = 7;
    hero.glow = 0.5f;
    std::ostringstream out;
    out << hero.x << ' ' << hero.speed << ' ' << hero.hp << ' ' << hero.level << ' ' << hero.gold << ' ' << hero.glow;
    EXPECT_EQ(out.str(), "-2.5 3.25 42 200 7 0.5");
#if defined(__cpp_lib_format)
    EXPECT_EQ(std::format("{} {:.2f} {} {} {}", hero.hp, hero.x, hero.level, hero.gold, hero.speed),
              "42 -2.50 200 7 3.25");
#endif
}

// ---------------------------------------------------------------- entity_array as a container

namespace {
struct Critter {
    bitrep::ranged<int, 0, 100> hp;
    bool angry = false;
    friend bool operator==(const Critter&, const Critter&) = default;
};
BOOST_DESCRIBE_STRUCT(Critter, (), (hp, angry))
using Critters = bitrep::entity_array<Critter, 6>;

std::vector<std::uint32_t> live_ids(const Critters& critters)
{
    std::vector<std::uint32_t> ids;
    for (const auto [id, critter] : critters)
        ids.push_back(id);
    return ids;
}
std::vector<std::uint32_t> free_ids(const Critters& critters)
{
    std::vector<std::uint32_t> ids;
    for (const std::uint32_t id : critters.free_ids())
        ids.push_back(id);
    return ids;
}
} // namespace

TEST(EntityArray, EmplaceTakesTheLowestFreeSlotAndReturnsItsIdUntilFull)
{
    Critters critters;
    EXPECT_EQ(critters.emplace(), std::optional<std::uint32_t>(0));
    EXPECT_EQ(critters.emplace(Critter{50, true}), std::optional<std::uint32_t>(1));
    EXPECT_EQ(critters[1].hp, 50);
    critters.emplace(4, Critter{7, false}); // at a chosen id, as before
    EXPECT_EQ(critters.emplace(), std::optional<std::uint32_t>(2));
    EXPECT_EQ(critters.emplace(), std::optional<std::uint32_t>(3));
    EXPECT_EQ(critters.emplace(), std::optional<std::uint32_t>(5));
    EXPECT_EQ(critters.emplace(), std::nullopt); // full
    critters.erase(1);
    EXPECT_EQ(critters.emplace(Critter{9, false}), std::optional<std::uint32_t>(1)); // the freed slot again
    EXPECT_EQ(critters[1].hp, 9);
}

TEST(EntityArray, SizeAndFreeCountFollowEveryChange)
{
    Critters critters;
    EXPECT_TRUE(critters.empty());
    EXPECT_EQ(critters.free_count(), 6u);
    critters.emplace(2);
    critters.emplace(2); // replacing is no new entity
    critters.emplace(5);
    EXPECT_EQ(critters.size(), 2u);
    critters.erase(3); // already free
    critters.erase(2);
    EXPECT_EQ(critters.size(), 1u);
    EXPECT_EQ(critters.free_count(), 5u);
    critters.clear();
    EXPECT_EQ(critters.size(), 0u);
    EXPECT_EQ(critters.emplace(), std::optional<std::uint32_t>(0));
}

TEST(EntityArray, IterationVisitsLiveEntitiesWithTheirIdsAndCanChangeThem)
{
    Critters critters;
    critters.emplace(1, Critter{10, false});
    critters.emplace(3, Critter{20, false});
    critters.emplace(4, Critter{30, false});
    for (auto [id, critter] : critters) {
        critter.hp += static_cast<int>(id);
        critter.angry = id == 3;
    }
    EXPECT_EQ(live_ids(critters), (std::vector<std::uint32_t>{1, 3, 4}));
    EXPECT_EQ(free_ids(critters), (std::vector<std::uint32_t>{0, 2, 5}));
    EXPECT_EQ(critters[1].hp, 11);
    EXPECT_EQ(critters[3].hp, 23);
    EXPECT_TRUE(critters[3].angry);
    EXPECT_EQ(critters[4].hp, 34);
    EXPECT_EQ(std::distance(critters.begin(), critters.end()), 3);
}

TEST(EntityArray, ADecodedArrayKnowsItsSizeAndFreeSlots)
{
    Critters critters;
    critters.emplace(0, Critter{1, false});
    critters.emplace(5, Critter{2, true});
    const Critters back = round_trip(critters);
    EXPECT_EQ(back, critters);
    EXPECT_EQ(back.size(), 2u);
    EXPECT_EQ(free_ids(back), (std::vector<std::uint32_t>{1, 2, 3, 4}));
    Critters reused = back;
    EXPECT_EQ(reused.emplace(), std::optional<std::uint32_t>(1));
    // Decoding into an array that held other entities counts afresh.
    Critters full;
    while (full.emplace())
        ;
    ASSERT_TRUE(bitrep::from_bytes(bitrep::to_bytes(critters), full));
    EXPECT_EQ(full.size(), 2u);
    EXPECT_EQ(full.emplace(), std::optional<std::uint32_t>(1));
}

TEST(EntityArray, FindReachesTheEntityInAnOccupiedSlot)
{
    Critters critters;
    critters.emplace(3, Critter{40, false});
    Critter* found = critters.find(3);
    ASSERT_NE(found, nullptr);
    found->angry = true;
    EXPECT_TRUE(critters[3].angry);
    const Critters& same = critters;
    ASSERT_NE(same.find(3), nullptr);
    EXPECT_EQ(same.find(3)->hp, 40);
}

TEST(EntityArray, FindReturnsNullForAnEmptySlotAndForAnIdPastTheEnd)
{
    Critters critters;
    critters.emplace(3, Critter{40, false});
    critters.erase(3);
    EXPECT_EQ(critters.find(3), nullptr);
    EXPECT_EQ(critters.find(6), nullptr);
    EXPECT_EQ(std::as_const(critters).find(1000), nullptr);
}

// operator[], emplace(id, ...) and erase(id) take an id the caller knows to
// be valid; builds with assertions (no NDEBUG) stop at one that is not
// rather than reach outside the slots. Release builds do not check, so
// these tests exist only where assertions are active.
#ifndef NDEBUG
TEST(EntityArrayDeathTest, IndexingAnEmptySlotStopsTheProgram)
{
    Critters critters;
    critters.emplace(1, Critter{10, false});
    EXPECT_DEATH(static_cast<void>(critters[2].hp), "the slot holds no entity");
    EXPECT_DEATH(static_cast<void>(std::as_const(critters)[2].hp), "the slot holds no entity");
}

TEST(EntityArrayDeathTest, IndexingPastTheEndStopsTheProgram)
{
    Critters critters;
    EXPECT_DEATH(static_cast<void>(critters[6].hp), "the slot holds no entity");
}

TEST(EntityArrayDeathTest, EmplacingPastTheEndStopsTheProgram)
{
    Critters critters;
    EXPECT_DEATH(critters.emplace(6, Critter{10, false}), "id past the last slot");
}

TEST(EntityArrayDeathTest, ErasingPastTheEndStopsTheProgram)
{
    Critters critters;
    EXPECT_DEATH(critters.erase(6), "id past the last slot");
}
#endif
