// codecs/duration.hpp: std::chrono::duration as its count, plain or as a
// ranged or quantized annotation (docs/formats/wire-format.md, section 3): golden
// bits from the test oracle's own packer, refusals, deltas, and saves
// converting between periods.
#include <bitrep/bitrep.hpp>
#include <bitrep/coded_delta.hpp>
#include <bitrep/delta.hpp>

#include <gtest/gtest.h>

#include "delta_helpers.hpp"
#include "test_oracle.hpp"

#include <chrono>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

namespace {

using namespace std::chrono_literals;
using bitrep::scope;
using namespace oracle::common;
using seconds_f = std::chrono::duration<float>;

struct Ability {
    static constexpr std::string_view bitrep_name = "Ability";
    bitrep::ranged_duration<std::chrono::milliseconds, 0, 60'000> cooldown = 1500ms; // 16 bits
    bitrep::quantized_duration<seconds_f, 0, 10, 0.01> cast_time = 2.5s;            // 10 bits
    std::chrono::seconds respawn{30};                                                 // 64 bits
};
BOOST_DESCRIBE_STRUCT(Ability, (), (cooldown, cast_time, respawn))

} // namespace

TEST(Duration, TheCountAsItsAnnotationOrAtFullWidth)
{
    EXPECT_EQ(bitrep::max_bits<Ability>, 16u + 10u + 64u);
    const bytes out = oracle::encode(Ability{});
    EXPECT_EQ(out, bit_builder{}.bits(1500, 16).bits(250, 10).bits(30, 64).result());
    // As docs/formats/wire-format.md lists it.
    EXPECT_EQ(out, (bytes{0xdc, 0x05, 0xfa, 0x78, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}));
    Ability got;
    got.cooldown = 0ms;
    got.cast_time = 0s;
    got.respawn = 0s;
    ASSERT_TRUE(bitrep::from_bytes(out, got));
    EXPECT_EQ(got.cooldown, 1500ms);
    EXPECT_EQ(got.cast_time, 2.5s);
    EXPECT_EQ(got.respawn, 30s);
}

TEST(Duration, BehavesAsTheDurationItHolds)
{
    Ability a;
    a.cooldown -= 16ms;
    EXPECT_EQ(a.cooldown.count(), 1484);
    a.cooldown += 1s;
    EXPECT_TRUE(a.cooldown > 2s);
    const std::chrono::milliseconds held = a.cooldown;
    EXPECT_EQ(held, 2484ms);
    a.cast_time = 250ms; // converts implicitly into float seconds
    EXPECT_FLOAT_EQ(a.cast_time.count(), 0.25f);
    // Defaults: the count's own default (0 when the range holds it).
    EXPECT_EQ((bitrep::ranged_duration<std::chrono::seconds, 5, 10>{}), 5s);
    EXPECT_EQ((bitrep::quantized_duration<seconds_f, 0, 1, 0.5>{}), 0s);
}

TEST(Duration, ACountOutsideItsRangeIsRefusedOnWriteNamingTheField)
{
    Ability a;
    a.cooldown = 61s;
    bytes out;
    const bitrep::status st = bitrep::to_bytes(a, out);
    EXPECT_STATUS(st, bitrep::error::value_out_of_range, "Ability.cooldown", 0);
    // A quantized count is refused as a quantized float is.
    a.cooldown = 0ms;
    a.cast_time = 12s;
    EXPECT_STATUS(bitrep::to_bytes(a, out), bitrep::error::value_out_of_range, "Ability.cast_time", 16);
    a.cast_time = seconds_f(std::numeric_limits<float>::quiet_NaN());
    EXPECT_EQ(bitrep::to_bytes(a, out).code(), bitrep::error::value_out_of_range);
}

TEST(Duration, AClampedQuantizedCountClampsToItsRange)
{
    using clamped_seconds = bitrep::clamped<bitrep::quantized_duration<seconds_f, 0, 10, 0.01>>;
    static_assert(std::is_same_v<clamped_seconds::count_type, bitrep::clamped<bitrep::quantized<0, 10, 0.01>>>);
    EXPECT_EQ(oracle::round_trip(clamped_seconds(12s)), 10s);
    EXPECT_EQ(bitrep::to_bytes(clamped_seconds(12s)),
              bitrep::to_bytes(bitrep::quantized_duration<seconds_f, 0, 10, 0.01>(10s)));
}

TEST(Duration, EveryTruncationIsRefusedAndChangesNothing)
{
    const bytes whole = oracle::encode(Ability{});
    for (std::size_t n = 0; n < whole.size(); ++n) {
        Ability target;
        target.cooldown = 7ms;
        target.respawn = 9s;
        EXPECT_FALSE(bitrep::from_bytes(std::span(whole).first(n), target)) << n;
        EXPECT_EQ(target.cooldown, 7ms);
        EXPECT_EQ(target.respawn, 9s);
    }
}

TEST(DurationDelta, ACountChangesAsItsAnnotationDoes)
{
    const Ability base;
    Ability now = base;
    now.cooldown -= 16ms;
    // Ability changed; cooldown changed and its 16 bits; the others unchanged.
    EXPECT_EQ(bitrep::delta_bit_size(base, now), 1u + 1u + 16u + 1u + 1u);
    // A drift below the quantum is no change.
    now = base;
    now.cast_time += std::chrono::duration<float>(0.001f);
    EXPECT_EQ(bitrep::delta_bit_size(base, now), 1u);

    // A cooldown ticking down on the coded stream: residuals against the
    // prediction, cheaper than 16 bits once the model has learnt the step.
    bitrep::delta_coder<Ability, scope::all> coder;
    Ability older, was, current;
    current.cooldown = 60s;
    std::size_t late_bytes = 0;
    for (int tick = 0; tick < 300; ++tick) {
        older = was;
        was = current;
        current.cooldown -= 16ms;
        if (tick % 50 == 0)
            current.respawn += 1s;
        const oracle::coded<Ability> decoded = oracle::coded_round_trip(coder, older, was, current, 64);
        ASSERT_TRUE(decoded.ok) << tick;
        ASSERT_EQ(decoded.value.cooldown, current.cooldown) << tick;
        ASSERT_EQ(decoded.value.respawn, current.respawn) << tick;
        if (tick >= 200)
            late_bytes += decoded.size;
    }
    EXPECT_LT(late_bytes, 150u); // 111 measured: about a byte a tick, against 20 bits for the plain delta
}

namespace saves {
struct AbilitySeconds { // cooldown in whole seconds, cast time in float milliseconds
    static constexpr std::string_view bitrep_name = "Ability";
    bitrep::ranged_duration<std::chrono::seconds, 0, 120> cooldown = 0s;
    bitrep::quantized_duration<std::chrono::duration<float, std::milli>, 0, 10'000, 1> cast_time = 0ms;
    std::chrono::minutes respawn{0};
};
BOOST_DESCRIBE_STRUCT(AbilitySeconds, (), (cooldown, cast_time, respawn))

struct AbilityPlain { // the same periods, other encodings
    static constexpr std::string_view bitrep_name = "Ability";
    std::chrono::milliseconds cooldown{0};
    seconds_f cast_time{0};
    bitrep::ranged_duration<std::chrono::seconds, 0, 300> respawn = 0s;
};
BOOST_DESCRIBE_STRUCT(AbilityPlain, (), (cooldown, cast_time, respawn))

struct AbilityFloatCooldown {
    static constexpr std::string_view bitrep_name = "Ability";
    seconds_f cooldown{0};
};
BOOST_DESCRIBE_STRUCT(AbilityFloatCooldown, (), (cooldown))

struct AbilityNumber {
    static constexpr std::string_view bitrep_name = "Ability";
    std::int64_t cooldown = 0;
};
BOOST_DESCRIBE_STRUCT(AbilityNumber, (), (cooldown))

struct AbilityMs {
    static constexpr std::string_view bitrep_name = "Ability";
    bitrep::ranged_duration<std::chrono::milliseconds, 0, 60'000> cooldown = 5ms;
};
BOOST_DESCRIBE_STRUCT(AbilityMs, (), (cooldown))

struct AbilityDoubleSeconds {
    static constexpr std::string_view bitrep_name = "Ability";
    std::chrono::duration<double> cooldown{0};
};
BOOST_DESCRIBE_STRUCT(AbilityDoubleSeconds, (), (cooldown))

struct AbilityFloatMs {
    static constexpr std::string_view bitrep_name = "Ability";
    std::chrono::duration<float, std::milli> cooldown{7};
};
BOOST_DESCRIBE_STRUCT(AbilityFloatMs, (), (cooldown))

// Structs a forged or foreign file could name like a duration.
struct HugePeriod {
    static constexpr std::string_view bitrep_name = "std::chrono::duration<9223372036854775807/1>";
    std::int64_t count = 1;
};
BOOST_DESCRIBE_STRUCT(HugePeriod, (), (count))
struct ZeroPeriod {
    static constexpr std::string_view bitrep_name = "std::chrono::duration<0/1>";
    std::int64_t count = 1;
};
BOOST_DESCRIBE_STRUCT(ZeroPeriod, (), (count))
template <class Count>
struct Holder {
    static constexpr std::string_view bitrep_name = "Ability";
    Count cooldown;
};
} // namespace saves
BOOST_DESCRIBE_STRUCT(saves::Holder<saves::HugePeriod>, (), (cooldown))
BOOST_DESCRIBE_STRUCT(saves::Holder<saves::ZeroPeriod>, (), (cooldown))

TEST(DurationSave, ALoadConvertsBetweenPeriods)
{
    Ability a;
    a.cooldown = 42s;
    a.cast_time = 1.25s;
    a.respawn = 120s;
    saves::AbilitySeconds s;
    bitrep::load_info info;
    const bitrep::status st = bitrep::load_from_bytes(bitrep::save_to_bytes(a), s, info);
    ASSERT_TRUE(st) << st.message();
    EXPECT_EQ(info.path, bitrep::load_info::route::schema);
    EXPECT_EQ(s.cooldown, 42s);
    EXPECT_EQ(s.cast_time, 1250ms);
    EXPECT_EQ(s.respawn, std::chrono::minutes(2));
    // And back: seconds into milliseconds, minutes into seconds.
    Ability back;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(s), back, info));
    EXPECT_EQ(back.cooldown, 42s);
    EXPECT_EQ(back.cast_time, 1.25s);
    EXPECT_EQ(back.respawn, 120s);
    // The same periods in other encodings: counts convert like fields.
    saves::AbilityPlain plain;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(a), plain, info));
    EXPECT_EQ(plain.cooldown, 42s);
    EXPECT_EQ(plain.cast_time, 1.25s);
    EXPECT_EQ(plain.respawn, 120s);
}

TEST(DurationSave, ACountThatIsNoWholeNumberOfTheProgramsUnitsIsRefused)
{
    Ability a;
    a.cooldown = 1500ms; // 1.5 s: not a whole number of seconds
    saves::AbilitySeconds s;
    s.cooldown = 9s;
    bitrep::load_info info;
    const bitrep::status st = bitrep::load_from_bytes(bitrep::save_to_bytes(a), s, info);
    EXPECT_EQ(st.code(), bitrep::error::out_of_range) << st.message();
    EXPECT_EQ(st.field_path(), "saves::AbilitySeconds.cooldown.count") << st.message();
    EXPECT_TRUE(oracle::contains(st.message(), "no whole number of the program's units")) << st.message();
    EXPECT_EQ(s.cooldown, 9s);
    // In range after conversion, or refused: 61 s into [0, 60000] ms.
    saves::AbilitySeconds wide;
    wide.cooldown = 61s;
    saves::AbilityMs ms;
    const bitrep::status far = bitrep::load_from_bytes(bitrep::save_to_bytes(wide), ms, info);
    EXPECT_EQ(far.code(), bitrep::error::out_of_range) << far.message();
    EXPECT_TRUE(oracle::contains(far.message(), "outside the program's range")) << far.message();
    EXPECT_EQ(ms.cooldown, 5ms);
}

TEST(DurationSave, ACountOutsideTheRangeOnceConvertedLoadsAsTheNearestBoundWhenTheCallerAsks)
{
    saves::AbilitySeconds wide;
    wide.cooldown = 61s; // 61,000 ms, in [0, 60,000] ms
    saves::AbilityMs ms;
    bitrep::load_info info;
    bitrep::load_options options;
    options.clamp_out_of_range = true;
    const bitrep::status st = bitrep::load_from_bytes(bitrep::save_to_bytes(wide), ms, info, options);
    ASSERT_TRUE(st) << st.message();
    EXPECT_EQ(ms.cooldown, 60s);
    EXPECT_EQ(info.clamped_fields,
              (std::vector<bitrep::clamped_field>{{"saves::AbilityMs.cooldown.count", 1}}));
}

TEST(DurationSave, AFloatCountIntoAnIntegerOneOrANumberIntoADurationIsAMismatch)
{
    saves::AbilityFloatCooldown floats;
    floats.cooldown = seconds_f(1.0f);
    saves::AbilityMs ms;
    bitrep::load_info info;
    const bitrep::status st = bitrep::load_from_bytes(bitrep::save_to_bytes(floats), ms, info);
    EXPECT_EQ(st.code(), bitrep::error::schema_mismatch) << st.message();
    EXPECT_TRUE(oracle::contains(st.message(), "AbilityMs.cooldown.count: file has float")) << st.message();
    // A number is not a duration, nor a duration a number: which unit a
    // bare count meant is not in the file.
    saves::AbilityNumber number;
    number.cooldown = 3;
    EXPECT_EQ(bitrep::load_from_bytes(bitrep::save_to_bytes(number), ms, info).code(), bitrep::error::schema_mismatch);
    EXPECT_EQ(bitrep::load_from_bytes(bitrep::save_to_bytes(ms), number, info).code(), bitrep::error::schema_mismatch);
    EXPECT_EQ(number.cooldown, 3);
    EXPECT_EQ(ms.cooldown, 5ms);
}

TEST(DurationSave, ANumberIntoADurationNamesTheDurationAndItsUnitNotAStruct)
{
    saves::AbilityNumber number;
    number.cooldown = 3;
    saves::AbilityMs ms;
    const bitrep::status into = bitrep::load_from_bytes(bitrep::save_to_bytes(number), ms);
    EXPECT_EQ(into.message(),
              "schema_mismatch at saves::AbilityMs.cooldown: file has integer, program has duration in 1/1000 s");
    const bitrep::status out_of = bitrep::load_from_bytes(bitrep::save_to_bytes(ms), number);
    EXPECT_EQ(out_of.message(),
              "schema_mismatch at saves::AbilityNumber.cooldown: file has duration in 1/1000 s, program has integer");
}

TEST(DurationSave, ARealCountTooLargeForTheProgramsFloatOnceScaledIsRefused)
{
    saves::AbilityDoubleSeconds seconds;
    seconds.cooldown = std::chrono::duration<double>(1e36); // 1e39 ms: past the largest float
    saves::AbilityFloatMs ms;
    const bitrep::status st = bitrep::load_from_bytes(bitrep::save_to_bytes(seconds), ms);
    EXPECT_EQ(st.code(), bitrep::error::out_of_range) << st.message();
    EXPECT_EQ(st.field_path(), "saves::AbilityFloatMs.cooldown.count") << st.message();
    EXPECT_EQ(ms.cooldown.count(), 7.0f);
}

TEST(DurationSave, AForeignPeriodIsRefusedWithoutOverflow)
{
    saves::AbilityMs ms;
    bitrep::load_info info;
    // 2^63 - 1 seconds per tick: no millisecond count holds one.
    const bitrep::status huge =
        bitrep::load_from_bytes(bitrep::save_to_bytes(saves::Holder<saves::HugePeriod>{}), ms, info);
    EXPECT_EQ(huge.code(), bitrep::error::out_of_range) << huge.message();
    EXPECT_EQ(ms.cooldown, 5ms);
    // A period of zero is no duration at all.
    const bitrep::status zero =
        bitrep::load_from_bytes(bitrep::save_to_bytes(saves::Holder<saves::ZeroPeriod>{}), ms, info);
    EXPECT_EQ(zero.code(), bitrep::error::schema_mismatch) << zero.message();
    EXPECT_EQ(ms.cooldown, 5ms);
}
