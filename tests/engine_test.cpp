// The table engine (what to_bytes / from_bytes run by default) against the
// inlined codecs (what bitrep::inline_codec<T> opts a type into): the same
// bytes for random values of every kind, the same refusals (code, bit,
// path) for values a writer refuses, and the same result for random and
// mutated inputs.
#include <bitrep/bitrep.hpp>

#include <gtest/gtest.h>

#include "adapter_math_types.hpp"
#include "schema_comparison.hpp"

#include <array>
#include <bitset>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

enum class Shade { dark, light, clear };
BOOST_DESCRIBE_ENUM(Shade, dark, light, clear)
enum class Gap : std::int8_t { low = -5, mid = 3, high = 90 };
BOOST_DESCRIBE_ENUM(Gap, low, mid, high)
// Flags: read, write, run, admin (none and every are no flags).
enum class Rights : std::uint8_t { none = 0, read = 1, write = 2, run = 8, every = 11, admin = 64 };
BOOST_DESCRIBE_ENUM(Rights, none, read, write, run, every, admin)
constexpr bool bitrep_flags(Rights) { return true; }
// A signed underlying type whose sign bit is a flag.
enum class Marks : std::int16_t { low = 1, high = 0x4000, sign = -32768 };
BOOST_DESCRIBE_ENUM(Marks, low, high, sign)
constexpr bool bitrep_flags(Marks) { return true; }

namespace engine_test {

/// A game's own type sent as a type bitrep knows (a proxy): a temperature
/// held as a double, sent quantized.
struct Celsius {
    double degrees = 20;
    friend bool operator==(const Celsius&, const Celsius&) = default;
};

} // namespace engine_test

namespace engine_test {
/// A game's own structs with no bitrep type inside, annotated from outside.
struct Plain {
    float x = 0;
    int hp = 100;
    std::string name;
    std::vector<std::uint8_t> items;
    std::optional<float> maybe;
    double precise = 0;
    std::chrono::seconds wait{0};
    std::string note = "kept";
    float saved = 0;
    bool as_is = false;
    friend bool operator==(const Plain&, const Plain&) = default;
};
struct Held {
    int id = 0;
    Plain plain;
    std::array<Plain, 2> more;
    friend bool operator==(const Held&, const Held&) = default;
};
BOOST_DESCRIBE_STRUCT(Held, (), (id, plain, more))
} // namespace engine_test

template <>
struct bitrep::annotate<engine_test::Plain> {
    using metres = bitrep::quantized<-100.f, 100.f, 0.01f>;
    using fields = std::tuple<metres,                                 // in place
                              bitrep::ranged<int, 0, 200>,            // in place
                              bitrep::bounded_string<6>,              // in place
                              bitrep::bounded_vector<std::uint8_t, 3>, // in place
                              std::optional<metres>,                  // converted
                              metres,                                 // a double: converted
                              bitrep::ranged_duration<std::chrono::seconds, 0, 100>, // in place
                              bitrep::transient<std::string>,         // never sent
                              bitrep::save_only<metres>,              // in place, in the scopes that carry it
                              bitrep::as_is>;
};
template <>
struct bitrep::annotate<engine_test::Held> {
    using fields = std::tuple<bitrep::ranged<int, 0, 9>, bitrep::as_is, bitrep::as_is>;
};

template <>
struct bitrep::detail::proxy_traits<engine_test::Celsius> : std::true_type {
    using wire = bitrep::quantized<-100.f, 100.f, 0.5f>;
    static wire to_wire(const engine_test::Celsius& value) { return wire(static_cast<float>(value.degrees)); }
    static void from_wire(engine_test::Celsius& value, const wire& sent) { value.degrees = sent.value(); }
};

namespace engine_test {
struct Hot {
    static constexpr bool bitrep_inline_codec = true;
    bitrep::ranged<int, 0, 1000> tick;
    friend bool operator==(const Hot&, const Hot&) = default;
};
struct Vendor {
    bitrep::ranged<int, 0, 7> level;
    friend bool operator==(const Vendor&, const Vendor&) = default;
};
} // namespace engine_test

BITREP_INLINE_CODEC(engine_test::Vendor)

namespace engine_test {

struct Inner {
    bitrep::ranged<std::int16_t, -300, 300> a;
    bool b = false;
    bitrep::quantized<-10.f, 10.f, 0.05f> c;
    friend bool operator==(const Inner&, const Inner&) = default;
};

struct Everything {
    bool flag = false;
    std::uint8_t u8 = 0;
    std::int16_t i16 = 0;
    std::uint32_t u32 = 0;
    std::int64_t i64 = 0;
    float f = 0;
    double d = 0;
    Shade shade = Shade::dark;
    Gap gap = Gap::low;
    bitrep::ranged<int, -1000, 1000> r32;
    bitrep::ranged<std::uint8_t, 3, 200> r8;
    bitrep::ranged<std::int64_t, -5, std::numeric_limits<std::int64_t>::max()> r64;
    bitrep::quantized<-100.f, 100.f, 0.01f> q;
    bitrep::clamped<bitrep::quantized<0.f, 1.f, 0.1f>> qc;
    bitrep::bounded_string<12> name;
    bitrep::bounded_vector<bitrep::ranged<std::uint8_t, 0, 9>, 5> digits;
    bitrep::bounded_vector<Inner, 3> inners;
    std::array<Inner, 2> pair;
    std::optional<bitrep::ranged<int, 0, 77>> maybe;
    std::optional<Inner> maybe_inner;
    Inner inner;
    bitrep::transient<std::string> cache;
    bitrep::save_only<bitrep::ranged<int, 0, 15>> saved;
    std::variant<bitrep::ranged<int, 0, 3>, Inner> either;
    bitrep::quat<9> rotation;
    bitrep::bounded_vector<bool, 6> bits;
    friend bool operator==(const Everything&, const Everything&) = default;
};

struct Described {
    int id = 0;
    bitrep::ranged<int, 0, 50> level;
    Inner inner;
    friend bool operator==(const Described&, const Described&) = default;
};
BOOST_DESCRIBE_STRUCT(Described, (), (id, level, inner))

struct Base {
    bitrep::ranged<int, 0, 9> base_value;
    friend bool operator==(const Base&, const Base&) = default;
};
BOOST_DESCRIBE_STRUCT(Base, (), (base_value))
struct Derived : Base {
    bitrep::bounded_string<4> tag;
    friend bool operator==(const Derived&, const Derived&) = default;
};
BOOST_DESCRIBE_STRUCT(Derived, (Base), (tag))

/// Elements that are bits: a std::array<bool> is an array of bools, a
/// bounded_vector<bool>'s std::vector<bool> packs them.
struct Bits {
    std::array<bool, 5> fixed{};
    bitrep::bounded_vector<bool, 9> some;
    bitrep::ranged<int, 0, 5> after;
    friend bool operator==(const Bits&, const Bits&) = default;
};

struct Flags {
    Rights rights = Rights::none;
    bitrep::ranged<int, 0, 3> between;
    Marks marks = Marks::low;
    friend bool operator==(const Flags&, const Flags&) = default;
};

struct Bitsets {
    std::bitset<5> few;
    bitrep::ranged<int, 0, 5> between;
    std::bitset<70> many; // words of 32, 32 and 6 bits
    std::bitset<32> word;
    friend bool operator==(const Bitsets&, const Bitsets&) = default;
};

struct Steps {
    bitrep::delta_small<bitrep::ranged<int, -50, 50>, 3> count;
    bitrep::delta_small<bitrep::quantized<-8.f, 8.f, 0.01f>, 4> offset;
    bitrep::delta_small<bitrep::clamped<bitrep::quantized<0.f, 1.f, 0.1f>>, 2> share;
    friend bool operator==(const Steps&, const Steps&) = default;
};

struct Tuples {
    std::pair<bitrep::ranged<int, 0, 20>, bool> pair;
    std::tuple<bitrep::quantized<-1.f, 1.f, 0.01f>, bitrep::bounded_string<3>, Inner> triple;
    std::tuple<> nothing;
    std::tuple<std::pair<std::uint8_t, Inner>> nested;
    friend bool operator==(const Tuples&, const Tuples&) = default;
};

using Shape = std::variant<std::monostate, bitrep::ranged<int, 0, 3>, Inner, bitrep::bounded_vector<Inner, 2>,
                           std::variant<bool, bitrep::bounded_string<2>>>;

struct Variants {
    Shape shape;
    std::variant<Shade> only; // one alternative: no index bits
    bitrep::bounded_vector<std::variant<std::uint8_t, std::optional<Inner>>, 3> list;
    friend bool operator==(const Variants&, const Variants&) = default;
};

struct Maps {
    bitrep::bounded_map<int, Inner, 3> by_id;
    bitrep::bounded_map<std::uint8_t, bitrep::bounded_string<3>, 4, std::unordered_map<std::uint8_t, bitrep::bounded_string<3>>>
        hashed; // written in key order, not the table's
    bitrep::bounded_set<bitrep::ranged<int, 0, 3>, 4> few; // a read of random bits repeats keys
    bitrep::bounded_set<std::uint16_t, 3, std::unordered_set<std::uint16_t>> hashed_set;
    bitrep::bounded_map<std::pair<std::uint8_t, bool>, bitrep::bounded_vector<bitrep::ranged<int, 0, 9>, 2>, 2> nested;
    friend bool operator==(const Maps&, const Maps&) = default;
};

struct Proxies {
    Celsius outside;
    bitrep::bounded_vector<Celsius, 3> log;
    std::optional<Celsius> maybe;
    friend bool operator==(const Proxies&, const Proxies&) = default;
};

struct Durations {
    std::chrono::milliseconds plain{0};
    std::chrono::duration<float> seconds{0};
    std::chrono::duration<std::uint16_t, std::ratio<1, 10>> tenths{0};
    bitrep::ranged_duration<std::chrono::milliseconds, 0, 60'000> cooldown;
    bitrep::quantized_duration<std::chrono::duration<float>, 0, 10, 0.01> delay;
    bitrep::quantized_duration<std::chrono::duration<double>, -1, 1, 0.001> drift; // a double count, sent as a float
    bitrep::clamped<bitrep::quantized_duration<std::chrono::duration<float>, 0, 1, 0.1>> share;
    friend bool operator==(const Durations&, const Durations&) = default;
};

/// Math types of a game's own, sent through the adapters.
using adapter_math_types::DVec2;
using adapter_math_types::IVec2;
using adapter_math_types::Quat;
using adapter_math_types::Swizzled;
using adapter_math_types::Vec3;
using adapter_math_types::WQuat;

using metres = bitrep::quantized<-100.f, 100.f, 0.01f>;

struct Adapted {
    bitrep::each_component<Vec3, metres> position;
    bitrep::each_component<Swizzled, bitrep::clamped<metres>, 3> swizzled;
    bitrep::each_component<DVec2, metres, 2> precise;
    bitrep::each_component<IVec2, bitrep::ranged<int, -10, 10>, 2> cell;
    bitrep::each_component<Vec3, float> raw;
    bitrep::smallest_three<Quat, 10> facing;
    bitrep::smallest_three<WQuat, 9> turned;
    friend bool operator==(const Adapted&, const Adapted&) = default;
};

struct World {
    bitrep::entity_array<Inner, 5> units;
    bitrep::ranged<int, 0, 9> tick;
    friend bool operator==(const World&, const World&) = default;
};

/// Random values, with `wild` of them outside what a writer accepts.
class generator {
public:
    explicit generator(std::uint32_t seed) : rng_(seed) {}

    bool coin(int in = 2) { return std::uniform_int_distribution<int>(0, in - 1)(rng_) == 0; }
    std::uint64_t bits() { return rng_(); }
    template <class Int>
    Int any() { return static_cast<Int>(rng_()); }
    template <class Int>
    Int between(std::int64_t lo, std::int64_t hi)
    {
        return static_cast<Int>(std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_));
    }
    float real(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng_); }
    /// Mostly inside [lo, hi]; sometimes just outside, or not a number.
    float quantity(float lo, float hi)
    {
        if (coin(40))
            return std::numeric_limits<float>::quiet_NaN();
        if (coin(30))
            return hi + 1.0f;
        return real(lo, hi);
    }
    std::string text(std::size_t max)
    {
        std::string s(std::uniform_int_distribution<std::size_t>(0, coin(30) ? max + 2 : max)(rng_), 'a');
        for (char& c : s)
            c = static_cast<char>('a' + between<int>(0, 25));
        if (!s.empty() && coin(40))
            s[0] = '\0';
        return s;
    }

    Inner inner()
    {
        Inner v;
        v.a = between<std::int16_t>(-300, coin(30) ? 400 : 300);
        v.b = coin();
        v.c = quantity(-10.f, 10.f);
        return v;
    }

    template <class Vector>
    Vector bits(std::size_t max)
    {
        Vector v;
        for (std::size_t n = between<std::size_t>(0, static_cast<std::int64_t>(coin(20) ? max + 2 : max)); n > 0; --n)
            v.push_back(coin());
        return v;
    }

    Bits bit_elements()
    {
        Bits v;
        for (bool& b : v.fixed)
            b = coin();
        v.some = bits<bitrep::bounded_vector<bool, 9>>(9);
        v.after = between<int>(0, coin(20) ? 6 : 5);
        return v;
    }

    Flags flags()
    {
        Flags v;
        // Now and then a bit that is no flag (4, 16, 32, 128; 2, 4, ... for Marks).
        const auto rights = coin(15) ? any<std::uint8_t>() : static_cast<std::uint8_t>(any<std::uint8_t>() & 75u);
        v.rights = static_cast<Rights>(rights);
        v.between = between<int>(0, 3);
        const auto marks = coin(15) ? any<std::uint16_t>() : static_cast<std::uint16_t>(any<std::uint16_t>() & 0xC001u);
        v.marks = static_cast<Marks>(static_cast<std::int16_t>(marks));
        return v;
    }

    Bitsets bitsets()
    {
        Bitsets v;
        v.few = any<unsigned>();
        v.between = between<int>(0, coin(20) ? 6 : 5);
        for (std::size_t i = 0; i < v.many.size(); ++i)
            v.many[i] = coin();
        v.word = any<unsigned>();
        return v;
    }

    Steps steps()
    {
        Steps v;
        v.count = between<int>(-50, coin(20) ? 60 : 50);
        v.offset = quantity(-8.f, 8.f);
        v.share = coin(10) ? -3.0f : real(0.f, 1.f);
        return v;
    }

    Tuples tuples()
    {
        Tuples v;
        v.pair = {between<int>(0, coin(20) ? 25 : 20), coin()};
        v.triple = {quantity(-1.f, 1.f), text(3), inner()};
        v.nested = {{any<std::uint8_t>(), inner()}};
        return v;
    }

    Shape shape()
    {
        switch (between<int>(0, 4)) {
        case 0: return std::monostate{};
        case 1: return bitrep::ranged<int, 0, 3>(between<int>(0, coin(20) ? 4 : 3));
        case 2: return inner();
        case 3: {
            bitrep::bounded_vector<Inner, 2> some;
            for (int n = between<int>(0, 2); n > 0; --n)
                some.push_back(inner());
            return some;
        }
        default:
            if (coin())
                return std::variant<bool, bitrep::bounded_string<2>>(coin());
            return std::variant<bool, bitrep::bounded_string<2>>(bitrep::bounded_string<2>(text(2)));
        }
    }

    Variants variants()
    {
        Variants v;
        v.shape = shape();
        v.only = Shade::light;
        for (int n = between<int>(0, 3); n > 0; --n) {
            if (coin())
                v.list.push_back(any<std::uint8_t>());
            else
                v.list.push_back(coin() ? std::optional<Inner>(inner()) : std::nullopt);
        }
        return v;
    }

    /// Up to max entries, now and then one more.
    int entries(int max) { return between<int>(0, coin(25) ? max + 1 : max); }

    Maps maps()
    {
        Maps v;
        for (int n = entries(3); n > 0; --n)
            v.by_id[between<int>(-5, 5)] = inner();
        for (int n = entries(4); n > 0; --n)
            v.hashed[any<std::uint8_t>()] = bitrep::bounded_string<3>(text(3));
        for (int n = entries(4); n > 0; --n)
            v.few.insert(between<int>(0, coin(25) ? 4 : 3));
        for (int n = entries(3); n > 0; --n)
            v.hashed_set.insert(any<std::uint16_t>());
        for (int n = entries(2); n > 0; --n) {
            bitrep::bounded_vector<bitrep::ranged<int, 0, 9>, 2> digits;
            for (int d = between<int>(0, 2); d > 0; --d)
                digits.push_back(between<int>(0, 9));
            v.nested[{between<std::uint8_t>(0, 3), coin()}] = digits;
        }
        return v;
    }

    Celsius celsius() { return {coin(20) ? 150.0 : real(-100.f, 100.f)}; }

    Proxies proxies()
    {
        Proxies v;
        v.outside = celsius();
        for (int n = between<int>(0, 3); n > 0; --n)
            v.log.push_back(celsius());
        if (coin())
            v.maybe = celsius();
        return v;
    }

    Durations durations()
    {
        using namespace std::chrono;
        Durations v;
        v.plain = milliseconds(any<std::int64_t>());
        v.seconds = duration<float>(real(-1e3f, 1e3f));
        v.tenths = duration<std::uint16_t, std::ratio<1, 10>>(any<std::uint16_t>());
        v.cooldown = milliseconds(between<std::int64_t>(0, coin(20) ? 70'000 : 60'000));
        v.delay = duration<float>(quantity(0.f, 10.f));
        v.drift = duration<double>(coin(20) ? 2.0 : real(-1.f, 1.f));
        v.share = duration<float>(coin(10) ? 5.f : real(0.f, 1.f));
        return v;
    }

    /// A unit quaternion's x, y, z, w; now and then one that is not unit length.
    std::array<float, 4> rotation()
    {
        std::array<float, 4> q{real(-1.f, 1.f), real(-1.f, 1.f), real(-1.f, 1.f), real(-1.f, 1.f)};
        if (coin(20))
            return q;
        const float norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        for (float& c : q)
            c /= norm;
        return q;
    }

    Adapted adapted()
    {
        Adapted v;
        v.position = Vec3{quantity(-100.f, 100.f), real(-100.f, 100.f), real(-100.f, 100.f)};
        v.swizzled = Swizzled{real(-200.f, 200.f), real(-100.f, 100.f), real(-100.f, 100.f)};
        v.precise = DVec2{real(-100.f, 100.f), quantity(-100.f, 100.f)};
        v.cell = IVec2{between<int>(-10, 10), between<int>(-10, coin(20) ? 12 : 10)};
        v.raw = Vec3{real(-1e6f, 1e6f), real(-1e6f, 1e6f), real(-1e6f, 1e6f)};
        const auto q = rotation();
        v.facing = Quat{q[0], q[1], q[2], q[3]};
        const auto r = rotation();
        v.turned = WQuat{r[3], r[0], r[1], r[2]};
        return v;
    }

    World world()
    {
        World v;
        for (std::size_t id = 0; id < 5; ++id)
            if (coin())
                v.units.emplace(id, inner());
        v.tick = between<int>(0, 9);
        return v;
    }

    Plain plain()
    {
        Plain v;
        v.x = quantity(-100.f, 100.f);
        v.hp = between<int>(0, coin(20) ? 250 : 200);
        v.name = text(6);
        for (int n = between<int>(0, coin(20) ? 4 : 3); n > 0; --n)
            v.items.push_back(any<std::uint8_t>());
        if (coin())
            v.maybe = quantity(-100.f, 100.f);
        v.precise = real(-100.f, 100.f);
        v.wait = std::chrono::seconds(between<int>(0, coin(20) ? 120 : 100));
        v.note = "not sent";
        v.saved = real(-100.f, 100.f);
        v.as_is = coin();
        return v;
    }

    Held held()
    {
        Held v;
        v.id = between<int>(0, coin(20) ? 10 : 9);
        v.plain = plain();
        v.more = {plain(), plain()};
        return v;
    }

    Everything everything()
    {
        Everything v;
        v.flag = coin();
        v.u8 = any<std::uint8_t>();
        v.i16 = any<std::int16_t>();
        v.u32 = any<std::uint32_t>();
        v.i64 = any<std::int64_t>();
        v.f = real(-1e6f, 1e6f);
        v.d = real(-1e6f, 1e6f);
        v.shade = static_cast<Shade>(between<int>(0, coin(30) ? 5 : 2));
        v.gap = std::array{Gap::low, Gap::mid, Gap::high, static_cast<Gap>(7)}[between<int>(0, coin(30) ? 3 : 2)];
        v.r32 = between<int>(-1000, coin(30) ? 2000 : 1000);
        v.r8 = between<std::uint8_t>(coin(30) ? 0 : 3, 200);
        v.r64 = coin() ? any<std::int64_t>() : between<std::int64_t>(-5, 5);
        v.q = quantity(-100.f, 100.f);
        v.qc = coin(10) ? 7.0f : real(0.f, 1.f);
        v.name = text(12);
        for (int i = between<int>(0, coin(30) ? 6 : 5); i > 0; --i)
            v.digits.push_back(between<std::uint8_t>(0, coin(30) ? 12 : 9));
        for (int i = between<int>(0, 3); i > 0; --i)
            v.inners.push_back(inner());
        v.pair = {inner(), inner()};
        if (coin())
            v.maybe = between<int>(0, 77);
        if (coin())
            v.maybe_inner = inner();
        v.inner = inner();
        v.cache = "not sent";
        v.saved = between<int>(0, 15);
        if (coin())
            v.either = inner();
        else
            v.either = bitrep::ranged<int, 0, 3>(between<int>(0, 3));
        v.rotation = bitrep::quat<9>{0.f, 0.f, 0.f, 1.f};
        for (int i = between<int>(0, 6); i > 0; --i)
            v.bits.push_back(coin());
        return v;
    }

private:
    std::mt19937_64 rng_;
};

using bitrep::detail::codec_path;

template <class T>
bitrep::status engine_to_bytes(const T& value, std::span<std::uint8_t> out, std::size_t& written)
{
    return bitrep::detail::to_bytes_by<codec_path::engine>(value, out, written);
}
template <class T>
bitrep::status inlined_to_bytes(const T& value, std::span<std::uint8_t> out, std::size_t& written)
{
    return bitrep::detail::to_bytes_by<codec_path::inlined>(value, out, written);
}

void expect_same_status(const bitrep::status& engine, const bitrep::status& codec)
{
    EXPECT_EQ(engine.code(), codec.code()) << engine.message() << " | " << codec.message();
    EXPECT_EQ(engine.bit_offset(), codec.bit_offset()) << engine.message() << " | " << codec.message();
    EXPECT_EQ(engine.field_path(), codec.field_path());
    EXPECT_EQ(engine.detail(), codec.detail());
}

template <class T>
void expect_same_encoding(const T& value, int& refused)
{
    std::vector<std::uint8_t> by_engine(bitrep::engine::entry_v<T>.max_bits / 8 + 1);
    std::vector<std::uint8_t> by_codec(by_engine.size());
    std::size_t engine_bytes = 0;
    std::size_t codec_bytes = 0;
    const bitrep::status e = engine_to_bytes(value, std::span<std::uint8_t>(by_engine), engine_bytes);
    const bitrep::status c = inlined_to_bytes(value, std::span<std::uint8_t>(by_codec), codec_bytes);
    expect_same_status(e, c);
    ASSERT_EQ(engine_bytes, codec_bytes);
    by_engine.resize(engine_bytes);
    by_codec.resize(codec_bytes);
    EXPECT_EQ(by_engine, by_codec);
    refused += e.ok() ? 0 : 1;
    if (e.ok()) {
        EXPECT_EQ(bitrep::detail::bit_size_by<codec_path::engine>(value),
                  bitrep::detail::bit_size_by<codec_path::inlined>(value));
    }
}

template <class T>
void expect_same_decoding(const std::vector<std::uint8_t>& bytes, const T& start, int& accepted)
{
    T by_engine = start;
    T by_codec = start;
    const bitrep::status e = bitrep::detail::from_bytes_by<codec_path::engine>(bytes, by_engine);
    const bitrep::status c = bitrep::detail::from_bytes_by<codec_path::inlined>(bytes, by_codec);
    expect_same_status(e, c);
    EXPECT_TRUE(by_engine == by_codec);
    if (!e.ok()) {
        EXPECT_TRUE(by_engine == start);
    }
    accepted += e.ok() ? 1 : 0;
}

/// Whether the engine runs every part of a value of this entry itself (no
/// part through a compiled codec). Which parts an entry has follows from its
/// kind, not from comparing their addresses with null, which g++ under
/// -fsanitize=undefined does not fold in a constant expression.
constexpr bool native(const bitrep::engine::field_entry& e)
{
    using bitrep::engine::kind;
    switch (e.kind) {
    case kind::codec: return false;
    case kind::structure:
        for (std::uint32_t i = 0; i < e.nested->count; ++i)
            if (!native(e.nested->fields[i]))
                return false;
        return true;
    case kind::variant: // its alternatives
        for (std::uint64_t i = 0; i < e.fixed.count; ++i)
            if (!native(e.element[i]))
                return false;
        return true;
    case kind::vector:
    case kind::bit_vector:
    case kind::array:
    case kind::optional:
    case kind::map:
    case kind::proxy: return native(*e.element);
    default: return true;
    }
}

template <class T>
constexpr bool native_v = native(bitrep::engine::entry_v<T>);

/// What a run of compare_kind saw: values refused on write, encodings read
/// back, and inputs (clean, mutated, truncated, random) both sides accepted.
struct tally {
    int refused = 0;
    int encoded = 0;
    int accepted = 0;
};

/// The engine against the codecs on values of T that `make` draws: their
/// bytes or refusals; then the decoding, into `start`, of each encoding, of
/// mutations and truncations of it, and of random bytes.
template <class T, class Make>
tally compare_kind(std::uint32_t seed, const T& start, Make make, int rounds = 400)
{
    generator gen(seed);
    tally seen;
    for (int i = 0; i < rounds; ++i) {
        const T value = make(gen);
        expect_same_encoding(value, seen.refused);
        std::vector<std::uint8_t> bytes;
        if (!bitrep::to_bytes(value, bytes).ok())
            continue;
        ++seen.encoded;
        expect_same_decoding(bytes, start, seen.accepted);
        if (bytes.empty())
            continue;
        std::vector<std::uint8_t> mutated = bytes;
        for (int flips = gen.between<int>(1, 3); flips > 0; --flips)
            mutated[gen.between<std::size_t>(0, static_cast<std::int64_t>(mutated.size()) - 1)] ^=
                static_cast<std::uint8_t>(1u << gen.between<int>(0, 7));
        expect_same_decoding(mutated, start, seen.accepted);
        mutated.resize(gen.between<std::size_t>(0, static_cast<std::int64_t>(mutated.size()) - 1));
        expect_same_decoding(mutated, start, seen.accepted);
        std::vector<std::uint8_t> noise(gen.between<std::size_t>(0, static_cast<std::int64_t>(bytes.size()) + 2));
        for (auto& b : noise)
            b = gen.any<std::uint8_t>();
        expect_same_decoding(noise, start, seen.accepted);
    }
    return seen;
}

/// Both outcomes of writing, and of reading, occurred.
void expect_both_outcomes(const tally& seen)
{
    EXPECT_GT(seen.refused, 0);
    EXPECT_GT(seen.encoded, 0);
    EXPECT_GT(seen.accepted, seen.encoded); // every clean encoding, and more
    EXPECT_LT(seen.accepted, 4 * seen.encoded);
}

/// The engine's bounds of a value's bits are the codec's: the most any
/// value takes (a buffer's size), and the fewest (a read bounds a count by
/// its elements' fewest).
template <class T>
void expect_same_bounds_of()
{
    EXPECT_EQ(bitrep::engine::entry_v<T>.max_bits, bitrep::codec<T>::max_bits()) << bitrep::reflect::type_name<T>();
    EXPECT_EQ(bitrep::engine::entry_v<T>.min_bits, bitrep::codec<T>::min_bits()) << bitrep::reflect::type_name<T>();
}

template <class... T>
void expect_same_bounds()
{
    (expect_same_bounds_of<T>(), ...);
}

TEST(Engine, TypesOptIntoTheInlinedCodecByMemberOrMacro)
{
    using bitrep::detail::path_of;
    static_assert(path_of<Hot> == codec_path::inlined);
    static_assert(path_of<Vendor> == codec_path::inlined);
    static_assert(path_of<Inner> == codec_path::engine);
    static_assert(path_of<std::array<Inner, 3>> == codec_path::engine);
    // Either path gives the same bytes, and from_bytes reads them back.
    Hot hot;
    hot.tick = 999;
    Hot back;
    ASSERT_TRUE(bitrep::from_bytes(bitrep::to_bytes(hot), back));
    EXPECT_EQ(back, hot);
    int refused = 0;
    expect_same_encoding(hot, refused);
    Vendor vendor;
    vendor.level = 9; // outside [0, 7]: both refuse it alike
    expect_same_encoding(vendor, refused);
    EXPECT_EQ(refused, 1);
}

TEST(Engine, MaxBitsMatchTheCodecs)
{
    EXPECT_EQ(bitrep::engine::entry_v<Everything>.max_bits, bitrep::max_bits<Everything>);
    expect_same_bounds<Everything, Described, Derived, Bits, bitrep::bounded_vector<bool, 100>, Flags, Rights, Marks,
                       Bitsets, std::bitset<70>, Steps, Tuples, std::tuple<>, Variants, Shape, Maps, Proxies, Celsius,
                       Durations, Adapted, World, Plain, Held>();
}

TEST(Engine, RandomValuesEncodeAlike)
{
    generator gen(2026);
    int refused = 0;
    for (int i = 0; i < 3000; ++i)
        expect_same_encoding(gen.everything(), refused);
    // Both outcomes occur: the comparison covers refusals as well as bytes.
    EXPECT_GT(refused, 300);
    EXPECT_LT(refused, 2700);
}

TEST(Engine, BuffersTooSmallAreRefusedAlikeAtEverySize)
{
    // The engine checks a run of fixed-width fields' room once; where the
    // buffer ends inside a run, the field that does not fit is refused at
    // its own bit, as the codec refuses it.
    generator gen(404);
    int compared = 0;
    for (int i = 0; i < 40; ++i) {
        const Everything value = gen.everything();
        std::vector<std::uint8_t> bytes;
        if (!bitrep::to_bytes(value, bytes).ok())
            continue;
        for (std::size_t size = 0; size < bytes.size(); ++size) {
            std::vector<std::uint8_t> by_engine(size);
            std::vector<std::uint8_t> by_codec(size);
            std::size_t written = 0;
            const bitrep::status e = engine_to_bytes(value, std::span<std::uint8_t>(by_engine), written);
            const bitrep::status c = inlined_to_bytes(value, std::span<std::uint8_t>(by_codec), written);
            EXPECT_EQ(e.code(), bitrep::error::buffer_too_small);
            expect_same_status(e, c);
            ++compared;
        }
    }
    EXPECT_GT(compared, 100);
}

TEST(Engine, DescribedClassesAndBasesEncodeAlike)
{
    generator gen(7);
    int refused = 0;
    for (int i = 0; i < 500; ++i) {
        Described d;
        d.id = gen.any<int>();
        d.level = gen.between<int>(0, gen.coin(20) ? 60 : 50);
        d.inner = gen.inner();
        expect_same_encoding(d, refused);
        Derived x;
        x.base_value = gen.between<int>(0, 9);
        x.tag = gen.text(4);
        expect_same_encoding(x, refused);
    }
    EXPECT_GT(refused, 0);
}

TEST(Engine, ValuesThatAreNotStructsEncodeAlike)
{
    generator gen(11);
    int refused = 0;
    int accepted = 0;
    for (int i = 0; i < 500; ++i) {
        const std::array<Inner, 3> three{gen.inner(), gen.inner(), gen.inner()};
        expect_same_encoding(three, refused);
        bitrep::bounded_vector<Inner, 4> some;
        for (int n = gen.between<int>(0, 4); n > 0; --n)
            some.push_back(gen.inner());
        expect_same_encoding(some, refused);
        std::vector<std::uint8_t> bytes(gen.between<std::size_t>(0, 30));
        for (auto& b : bytes)
            b = gen.any<std::uint8_t>();
        expect_same_decoding(bytes, bitrep::bounded_vector<Inner, 4>{}, accepted);
    }
    EXPECT_GT(refused, 0);
    EXPECT_GT(accepted, 0);
}

TEST(Engine, MutatedInputsDecodeAlike)
{
    generator gen(99);
    int accepted = 0;
    int tried = 0;
    Everything start; // no NaN: compared with ==
    start.q = 1.0f;
    start.name = "start";
    start.digits.push_back(4);
    for (int i = 0; i < 2000; ++i) {
        Everything value = gen.everything();
        std::vector<std::uint8_t> bytes;
        if (!bitrep::to_bytes(value, bytes).ok()) // the engine; compared with the codec above
            continue;
        ++tried;
        expect_same_decoding(bytes, start, accepted);
        std::vector<std::uint8_t> mutated = bytes;
        for (int flips = gen.between<int>(1, 4); flips > 0; --flips)
            mutated[gen.between<std::size_t>(0, static_cast<std::int64_t>(mutated.size()) - 1)] ^=
                static_cast<std::uint8_t>(1u << gen.between<int>(0, 7));
        expect_same_decoding(mutated, start, accepted);
        mutated.resize(gen.between<std::size_t>(0, static_cast<std::int64_t>(mutated.size())));
        expect_same_decoding(mutated, start, accepted);
    }
    EXPECT_GT(tried, 500);
    EXPECT_GT(accepted, tried); // every clean encoding, and some mutations
    EXPECT_LT(accepted, 3 * tried);
}

TEST(Engine, RandomBytesDecodeAlike)
{
    generator gen(5);
    int accepted = 0;
    for (int i = 0; i < 3000; ++i) {
        std::vector<std::uint8_t> bytes(gen.between<std::size_t>(0, 40));
        for (auto& b : bytes)
            b = gen.any<std::uint8_t>();
        expect_same_decoding(bytes, Described{}, accepted);
        expect_same_decoding(bytes, Derived{}, accepted);
    }
    EXPECT_GT(accepted, 0);
}

TEST(EngineKinds, BoolElementsAreBitsAsTheCodecsWriteThem)
{
    static_assert(native_v<Bits>);
    expect_both_outcomes(compare_kind(31, Bits{}, [](generator& gen) { return gen.bit_elements(); }));
    Bits start; // a read resizes the vector it finds
    start.some = {true, false, true, true};
    expect_both_outcomes(compare_kind(32, start, [](generator& gen) { return gen.bit_elements(); }));
    using many = bitrep::bounded_vector<bool, 40>;
    expect_both_outcomes(compare_kind(33, many{}, [](generator& gen) { return gen.bits<many>(40); }));
}

TEST(EngineKinds, FlagEnumsAreABitPerFlagAsTheCodecsWriteThem)
{
    static_assert(native_v<Flags> && bitrep::engine::entry_v<Rights>.kind == bitrep::engine::kind::flags);
    expect_both_outcomes(compare_kind(41, Flags{}, [](generator& gen) { return gen.flags(); }));
    Flags start;
    start.rights = Rights::every;
    start.marks = Marks::sign;
    expect_both_outcomes(compare_kind(42, start, [](generator& gen) { return gen.flags(); }));
}

TEST(EngineKinds, BitsetsAreTheirBitsInWordsAsTheCodecsWriteThem)
{
    static_assert(native_v<Bitsets> && bitrep::engine::entry_v<std::bitset<70>>.kind == bitrep::engine::kind::bitset);
    expect_both_outcomes(compare_kind(51, Bitsets{}, [](generator& gen) { return gen.bitsets(); }));
    Bitsets start;
    start.many.set();
    start.few.set(2);
    expect_both_outcomes(compare_kind(52, start, [](generator& gen) { return gen.bitsets(); }));
}

TEST(EngineKinds, DeltaSmallFieldsAreTheirValuesAsTheCodecsWriteThem)
{
    static_assert(native_v<Steps>);
    Steps start;
    start.count = -7;
    start.offset = 2.5f;
    expect_both_outcomes(compare_kind(61, start, [](generator& gen) { return gen.steps(); }));
}

TEST(EngineKinds, PairsAndTuplesAreTheirMembersAsTheCodecsWriteThem)
{
    static_assert(native_v<Tuples>);
    Tuples start;
    start.pair.second = true;
    std::get<1>(start.triple) = "abc";
    expect_both_outcomes(compare_kind(71, start, [](generator& gen) { return gen.tuples(); }));
    using root = std::tuple<Inner, bitrep::ranged<int, 0, 9>>;
    expect_both_outcomes(compare_kind(72, root{}, [](generator& gen) {
        return root{gen.inner(), gen.between<int>(0, gen.coin(20) ? 10 : 9)};
    }));
}

TEST(EngineKinds, VariantsAreTheIndexThenTheAlternativeAsTheCodecsWriteThem)
{
    static_assert(native_v<Variants>);
    expect_both_outcomes(compare_kind(81, Variants{}, [](generator& gen) { return gen.variants(); }));
    // A reader's target holding another alternative, or the one it reads.
    Variants start;
    start.shape = Inner{};
    start.list.push_back(std::uint8_t{4});
    expect_both_outcomes(compare_kind(82, start, [](generator& gen) { return gen.variants(); }));
    expect_both_outcomes(compare_kind(83, Shape{}, [](generator& gen) { return gen.shape(); }));
}

TEST(EngineKinds, AFailureInsideAnAlternativeNamesItAsTheCodecsDo)
{
    Variants v;
    Inner bad;
    bad.a = 301;
    v.shape = bad;
    std::vector<std::uint8_t> bytes(64);
    std::size_t written = 0;
    const bitrep::status st = engine_to_bytes(v, std::span<std::uint8_t>(bytes), written);
    // Boost.PFR (Boost 1.81) names aggregate fields by position.
    EXPECT_EQ(st.field_path(), "engine_test::Variants.#0<engine_test::Inner>.#0");
    EXPECT_EQ(st.field_path(), inlined_to_bytes(v, std::span<std::uint8_t>(bytes), written).field_path());
}

TEST(EngineKinds, MapsAndSetsAreTheirEntriesByKeyAsTheCodecsWriteThem)
{
    static_assert(native_v<Maps>);
    expect_both_outcomes(compare_kind(91, Maps{}, [](generator& gen) { return gen.maps(); }));
    // A read empties the map it finds.
    generator gen(92);
    Maps start = gen.maps();
    std::vector<std::uint8_t> bytes;
    while (!bitrep::to_bytes(start, bytes).ok() || start.by_id.empty())
        start = gen.maps();
    expect_both_outcomes(compare_kind(93, start, [](generator& g) { return g.maps(); }));
}

TEST(EngineKinds, AKeyReadTwiceIsRefusedAtItsEntryAsTheCodecsDo)
{
    using set = bitrep::bounded_set<bitrep::ranged<int, 0, 3>, 4>;
    // Count 2 (3 bits), then keys 1 and 1 (2 bits each).
    const std::vector<std::uint8_t> twice{0b0101010};
    set by_engine;
    const bitrep::status st = bitrep::detail::from_bytes_by<codec_path::engine>(twice, by_engine);
    EXPECT_EQ(st.code(), bitrep::error::duplicate_key);
    EXPECT_EQ(st.bit_offset(), 5u);
    set by_codec;
    expect_same_status(st, bitrep::detail::from_bytes_by<codec_path::inlined>(twice, by_codec));
}

TEST(EngineKinds, ProxiesAreTheirWireTypeAsTheCodecsWriteThem)
{
    static_assert(native_v<Proxies> && bitrep::engine::entry_v<Celsius>.kind == bitrep::engine::kind::proxy);
    expect_both_outcomes(compare_kind(101, Proxies{}, [](generator& gen) { return gen.proxies(); }));
    Proxies start;
    start.log.push_back(Celsius{-3});
    start.maybe = Celsius{1};
    expect_both_outcomes(compare_kind(102, start, [](generator& gen) { return gen.proxies(); }));
}

TEST(EngineKinds, DurationsAreTheirCountAsTheCodecsWriteThem)
{
    static_assert(native_v<Durations>);
    // In place, but for a double count, which is sent as a float.
    using bitrep::engine::entry_v;
    EXPECT_EQ(entry_v<std::chrono::milliseconds>.proxy->in_place(), 0);
    EXPECT_EQ(entry_v<decltype(Durations::cooldown)>.proxy->in_place(), 0);
    EXPECT_EQ(entry_v<decltype(Durations::delay)>.proxy->in_place(), 0);
    EXPECT_EQ(entry_v<decltype(Durations::drift)>.proxy->in_place, nullptr);
    expect_both_outcomes(compare_kind(111, Durations{}, [](generator& gen) { return gen.durations(); }));
    Durations start;
    start.cooldown = std::chrono::milliseconds(5);
    start.drift = std::chrono::duration<double>(0.5);
    expect_both_outcomes(compare_kind(112, start, [](generator& gen) { return gen.durations(); }));
}

TEST(EngineKinds, AdaptedMathTypesAreTheirComponentsAsTheCodecsWriteThem)
{
    static_assert(native_v<Adapted>);
    using bitrep::engine::entry_v;
    // In place where the components are the wire's numbers one after another.
    EXPECT_EQ(entry_v<decltype(Adapted::position)>.proxy->in_place(), 0);
    EXPECT_EQ(entry_v<decltype(Adapted::swizzled)>.proxy->in_place(), -1);
    EXPECT_EQ(entry_v<decltype(Adapted::precise)>.proxy->in_place, nullptr);
    EXPECT_EQ(entry_v<decltype(Adapted::cell)>.proxy->in_place(), 0);
    EXPECT_EQ(entry_v<decltype(Adapted::facing)>.proxy->in_place(), 0);
    EXPECT_EQ(entry_v<decltype(Adapted::turned)>.proxy->in_place(), -1);
    expect_both_outcomes(compare_kind(121, Adapted{}, [](generator& gen) { return gen.adapted(); }));
    Adapted start;
    start.position = Vec3{1, 2, 3};
    start.turned = WQuat{0, 1, 0, 0};
    expect_both_outcomes(compare_kind(122, start, [](generator& gen) { return gen.adapted(); }));
}

TEST(EngineKinds, EntityArraysAreTheirSlotsAsTheCodecsWriteThem)
{
    static_assert(native_v<World>);
    expect_both_outcomes(compare_kind(131, World{}, [](generator& gen) { return gen.world(); }));
    World start;
    start.units.emplace(std::size_t{3}, Inner{});
    expect_both_outcomes(compare_kind(132, start, [](generator& gen) { return gen.world(); }));
}

TEST(EngineKinds, AReadEntityArrayCountsItsEntities)
{
    generator gen(133);
    for (int i = 0; i < 50; ++i) {
        const World sent = gen.world();
        std::vector<std::uint8_t> bytes;
        if (!bitrep::to_bytes(sent, bytes).ok()) // the engine
            continue;
        World got;
        got.units.emplace(std::size_t{0}, Inner{});
        got.units.emplace(std::size_t{4}, Inner{});
        ASSERT_TRUE(bitrep::detail::from_bytes_by<codec_path::engine>(bytes, got).ok());
        EXPECT_EQ(got.units.size(), sent.units.size());
        // The lowest free slot is found again.
        const std::size_t free = sent.units.free_ids().begin() == sent.units.free_ids().end()
                                     ? 5
                                     : *sent.units.free_ids().begin();
        const auto id = got.units.emplace();
        EXPECT_EQ(id.has_value() ? *id : 5u, free);
    }
}

TEST(EngineKinds, ClassesAnnotatedFromOutsideAreSentAsTheirAnnotationsAsTheCodecsDo)
{
    static_assert(native_v<Held> && bitrep::engine::entry_v<Plain>.kind == bitrep::engine::kind::structure);
    // Annotations whose objects are the fields' run where the fields lie.
    const bitrep::engine::field_entry* fields = bitrep::engine::table_v<Plain>.fields;
    for (int in_place : {0, 1, 2, 3, 6, 8})
        EXPECT_EQ(fields[in_place].proxy->in_place(), 0) << in_place;
    for (int converted : {4, 5})
        EXPECT_EQ(fields[converted].proxy->in_place, nullptr) << converted;
    EXPECT_EQ(fields[9].kind, bitrep::engine::kind::boolean);
    expect_both_outcomes(compare_kind(141, Held{}, [](generator& gen) { return gen.held(); }));
    Held start;
    start.plain.maybe = 5.0f;
    start.more[1].items = {1, 2};
    expect_both_outcomes(compare_kind(142, start, [](generator& gen) { return gen.held(); }));
}

/// A class with a serialization hook: its encoding is its own business,
/// which the engine runs through its compiled codec.
struct Hooked {
    static constexpr std::size_t bitrep_max_bits = 4;
    int value = 0;
    template <class Stream>
    bool serialize(Stream& stream)
    {
        return stream.serialize_int(value, -5, 5);
    }
    friend bool operator==(const Hooked&, const Hooked&) = default;
};

TEST(EngineKinds, EveryKindButHooksRunsInTheEngine)
{
    static_assert(native_v<Everything> && native_v<Described> && native_v<Derived> && native_v<Bits> &&
                  native_v<Flags> && native_v<Bitsets> && native_v<Steps> && native_v<Tuples> && native_v<Variants> &&
                  native_v<Maps> && native_v<Proxies> && native_v<Durations> && native_v<Adapted> &&
                  native_v<World> && native_v<Held>);
    static_assert(bitrep::engine::entry_v<Hooked>.kind == bitrep::engine::kind::codec);
    static_assert(!native_v<std::variant<bool, Hooked>>);
    generator gen(151);
    int refused = 0;
    for (int i = 0; i < 200; ++i)
        expect_same_encoding(std::pair<Hooked, Inner>{{gen.between<int>(-5, gen.coin(10) ? 9 : 5)}, gen.inner()},
                             refused);
    EXPECT_GT(refused, 0);
}

/// Fields a whole read leaves as they were: transient ones, wherever they
/// nest, and members a description does not list.
struct Remembered {
    bitrep::ranged<int, 0, 9> sent;
    bitrep::transient<int> kept;
};
struct RememberedInside {
    bitrep::bounded_vector<std::optional<Remembered>, 3> deep;
};
struct Listed {
    bitrep::ranged<int, 0, 9> sent;
    int unlisted = 0;
    static constexpr bool bitrep_partial_description = true;
};
BOOST_DESCRIBE_STRUCT(Listed, (), (sent))

template <class T>
constexpr bool reads_alike()
{
    return bitrep::engine::value_type_v<T>.reads_every_field == bitrep::detail::reads_every_field<T, bitrep::scope::all>;
}

TEST(Engine, AReadWritesEveryFieldExactlyWhenTheCodecsSaySo)
{
    // from_bytes and decoder copy the target into their working object first
    // exactly when a read leaves some of it as it was.
    static_assert(reads_alike<Everything>() && reads_alike<Described>() && reads_alike<Derived>() &&
                  reads_alike<Bits>() && reads_alike<Flags>() && reads_alike<Bitsets>() && reads_alike<Steps>() &&
                  reads_alike<Tuples>() && reads_alike<Variants>() && reads_alike<Maps>() && reads_alike<Proxies>() &&
                  reads_alike<Durations>() && reads_alike<Adapted>() && reads_alike<World>() && reads_alike<Held>() &&
                  reads_alike<Hooked>() && reads_alike<Remembered>() && reads_alike<RememberedInside>() &&
                  reads_alike<Listed>() && reads_alike<std::variant<int, Remembered>>());
    static_assert(bitrep::engine::value_type_v<Inner>.reads_every_field && bitrep::engine::value_type_v<Described>.reads_every_field);
    static_assert(!bitrep::engine::value_type_v<Everything>.reads_every_field); // its cache is transient
    static_assert(!bitrep::engine::value_type_v<RememberedInside>.reads_every_field);
    static_assert(!bitrep::engine::value_type_v<Listed>.reads_every_field);
    static_assert(!bitrep::engine::value_type_v<Hooked>.reads_every_field);

    RememberedInside target{};
    target.deep.resize(1);
    target.deep[0] = Remembered{};
    target.deep[0]->kept = 5;
    RememberedInside sent = target;
    sent.deep[0]->sent = 7;
    sent.deep[0]->kept = 6;
    ASSERT_TRUE(bitrep::from_bytes(bitrep::to_bytes(sent), target));
    EXPECT_EQ(target.deep[0]->sent, 7);
    EXPECT_EQ(target.deep[0]->kept.get(), 5);
    Listed listed{};
    listed.unlisted = 4;
    ASSERT_TRUE(bitrep::from_bytes(bitrep::to_bytes(Listed{{3}, 8}), listed));
    EXPECT_EQ(listed.sent, 3);
    EXPECT_EQ(listed.unlisted, 4);
}

/// A hook that writes a field only in save files, as a class with its own
/// encoding may: each scope's stream runs the hook's own code for it.
struct SaveAware {
    static constexpr std::size_t bitrep_max_bits = 12;
    int shown = 0;
    int kept = 0;
    template <class Stream>
    bool serialize(Stream& stream)
    {
        if (!stream.serialize_int(shown, 0, 15))
            return false;
        if constexpr (Stream::field_scope == bitrep::scope::save)
            return stream.serialize_int(kept, 0, 255);
        return true;
    }
    friend bool operator==(const SaveAware&, const SaveAware&) = default;
};

/// Fields each scope carries differently, around values of every kind.
struct Scoped {
    Everything everything;
    bitrep::net_only<bitrep::ranged<int, 0, 1000>> ping;
    bitrep::save_only<bitrep::bounded_string<8>> slot;
    bitrep::transient<int> cache = 7;
    SaveAware hooked;
    friend bool operator==(const Scoped&, const Scoped&) = default;
};

/// Path's encoding of value on Scope's stream, and its status.
template <codec_path Path, bitrep::scope Scope, class T>
bitrep::status scoped_encoding(const T& value, std::vector<std::uint8_t>& bytes)
{
    bytes.assign(bitrep::engine::entry_v<T>.max_bits / 8 + 1, 0);
    bitrep::failure_record failure;
    bitrep::basic_write_stream<Scope> stream(std::span<std::uint8_t>(bytes), failure);
    if (!bitrep::detail::write_value<Path>(stream, value)) {
        bytes.clear();
        return stream.failure_status("Scoped");
    }
    bitrep::failure_record measured;
    bitrep::basic_measure_stream<Scope> measure(measured);
    EXPECT_TRUE(bitrep::detail::write_value<Path>(measure, value));
    EXPECT_EQ(measure.exact_bits(), stream.bit_position());
    bytes.resize(stream.flush());
    return {};
}

/// Path's reading of bytes on Scope's stream into a copy of start.
template <codec_path Path, bitrep::scope Scope, class T>
bitrep::status scoped_decoding(const std::vector<std::uint8_t>& bytes, T& target)
{
    bitrep::failure_record failure;
    bitrep::basic_read_stream<Scope> stream(std::span<const std::uint8_t>(bytes), failure);
    if (!bitrep::detail::read_value<Path>(stream, target))
        return stream.failure_status("Scoped");
    return {};
}

/// In Scope, the engine and the codecs write the same bytes or refuse
/// alike, and read the same values or refuse alike from the bytes, a
/// mutation and a truncation of them.
template <bitrep::scope Scope>
tally compare_scope(std::uint32_t seed)
{
    generator gen(seed);
    tally seen;
    for (int i = 0; i < 600; ++i) {
        Scoped value;
        value.everything = gen.everything();
        value.ping = gen.between<int>(0, gen.coin(20) ? 1200 : 1000);
        value.slot = gen.text(gen.coin(20) ? 9 : 8);
        value.cache = gen.any<int>();
        value.hooked.shown = gen.between<int>(0, 15);
        value.hooked.kept = gen.between<int>(0, 255);
        std::vector<std::uint8_t> by_engine;
        std::vector<std::uint8_t> by_codec;
        const bitrep::status e = scoped_encoding<codec_path::engine, Scope>(value, by_engine);
        const bitrep::status c = scoped_encoding<codec_path::inlined, Scope>(value, by_codec);
        expect_same_status(e, c);
        EXPECT_EQ(by_engine, by_codec);
        if (!e.ok()) {
            ++seen.refused;
            continue;
        }
        ++seen.encoded;
        std::vector<std::uint8_t> mutated = by_engine;
        mutated[gen.between<std::size_t>(0, static_cast<std::int64_t>(mutated.size()) - 1)] ^=
            static_cast<std::uint8_t>(1u << gen.between<int>(0, 7));
        std::vector<std::uint8_t> truncated = by_engine;
        truncated.resize(gen.between<std::size_t>(0, static_cast<std::int64_t>(truncated.size()) - 1));
        for (const std::vector<std::uint8_t>* input : {&by_engine, &mutated, &truncated}) {
            Scoped read_by_engine;
            Scoped read_by_codec;
            const bitrep::status re = scoped_decoding<codec_path::engine, Scope>(*input, read_by_engine);
            const bitrep::status rc = scoped_decoding<codec_path::inlined, Scope>(*input, read_by_codec);
            expect_same_status(re, rc);
            if (re.ok() && rc.ok()) {
                ++seen.accepted;
                EXPECT_TRUE(read_by_engine == read_by_codec);
            }
        }
    }
    return seen;
}

TEST(Engine, SaveAndReplicationStreamsEncodeAlike)
{
    // Each scope leaves out what it does not carry (the save the net_only
    // ping, replication the save_only slot and the hook's kept value).
    Scoped value;
    value.ping = 999;
    value.slot = "abc";
    value.hooked.kept = 200;
    std::vector<std::uint8_t> all, save, replication;
    ASSERT_TRUE((scoped_encoding<codec_path::engine, bitrep::scope::all>(value, all)));
    ASSERT_TRUE((scoped_encoding<codec_path::engine, bitrep::scope::save>(value, save)));
    ASSERT_TRUE((scoped_encoding<codec_path::engine, bitrep::scope::replication>(value, replication)));
    EXPECT_NE(all, save);
    EXPECT_NE(all, replication);
    EXPECT_NE(save, replication);
    expect_both_outcomes(compare_scope<bitrep::scope::save>(161));
    expect_both_outcomes(compare_scope<bitrep::scope::replication>(162));
}

/// A save file's schema from the tables (engine::describe, what
/// schema_of<T>() builds) is the one recorded in schema_goldens.hpp, byte
/// for byte, for every kind here (renames, more hooks and flags: engine_schema_test).
TEST(EngineSchema, EveryKindIsDescribedAsRecorded)
{
    using schema_comparison::expect_same_schema;
    expect_same_schema<Shade>("Shade");
    expect_same_schema<Gap>("Gap");
    expect_same_schema<Rights>("Rights");
    expect_same_schema<Marks>("Marks");
    expect_same_schema<Everything>("Everything");
    expect_same_schema<Described>("Described");
    expect_same_schema<Derived>("Derived");
    expect_same_schema<Bits>("Bits");
    expect_same_schema<Flags>("Flags");
    expect_same_schema<Bitsets>("Bitsets");
    expect_same_schema<Steps>("Steps");
    expect_same_schema<Tuples>("Tuples");
    expect_same_schema<Shape>("Shape");
    expect_same_schema<Variants>("Variants");
    expect_same_schema<Maps>("Maps");
    expect_same_schema<Proxies>("Proxies");
    expect_same_schema<Durations>("Durations");
    expect_same_schema<Adapted>("Adapted");
    expect_same_schema<World>("World");
    expect_same_schema<Plain>("Plain");
    expect_same_schema<Held>("Held");
    expect_same_schema<Hot>("Hot");
    expect_same_schema<Vendor>("Vendor");
    expect_same_schema<Hooked>("Hooked");
    expect_same_schema<std::variant<bool, Hooked>>("std::variant<bool, Hooked>");
    expect_same_schema<Scoped>("Scoped");
}

} // namespace engine_test
