// Deltas on the engine (engine/delta.hpp): for random chains of states
// (older, baseline, value) of every kind, from fixed seeds, every outcome
// (the bytes or refusal with its code, bit and path, the measure, the
// sameness, the reads of clean, mutated and truncated inputs, bit-packed and
// coded, in every scope) folded into one CRC per chain. Each CRC was
// recorded from the per-kind delta codecs the engine replaced, while both
// ran and agreed outcome for outcome, and again when the coded residual's
// magnitude class began to be coded from a pivot and when its models got
// priors (changes of the coded bytes only): a change to any byte, bound or
// refusal of any of these deltas fails here.

#include <bitrep/bitrep.hpp>
#include <bitrep/coded_delta.hpp>
#include <bitrep/engine/delta.hpp>

#include <gtest/gtest.h>

#include "adapter_math_types.hpp"

#include <boost/crc.hpp>
#include <boost/pfr.hpp>

#include <array>
#include <bitset>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

enum class Tone { dark, light, clear };
BOOST_DESCRIBE_ENUM(Tone, dark, light, clear)
enum class Perms : std::uint8_t { none = 0, read = 1, write = 2, run = 8, admin = 64 };
BOOST_DESCRIBE_ENUM(Perms, none, read, write, run, admin)
constexpr bool bitrep_flags(Perms) { return true; }

namespace engine_delta_test {

using bitrep::scope;
using metres = bitrep::quantized<-100.f, 100.f, 0.01f>;

/// A game's own type sent as a type bitrep knows (a proxy), made anew for
/// each write and read.
struct Celsius {
    double degrees = 20;
    friend bool operator==(const Celsius&, const Celsius&) = default;
};
/// Math types through the adapters: in place (Vec3), or converted
/// (components out of order, doubles, w first).
using adapter_math_types::DVec2;
using adapter_math_types::Swizzled;
using adapter_math_types::Vec3;
using adapter_math_types::WQuat;
/// A struct annotated from outside its class.
struct Plain {
    float x = 0;
    int hp = 100;
    std::string name;
    std::optional<float> maybe;
    double precise = 0;
    std::string note = "kept";
    friend bool operator==(const Plain&, const Plain&) = default;
};
} // namespace engine_delta_test

template <>
struct bitrep::detail::proxy_traits<engine_delta_test::Celsius> : std::true_type {
    using wire = bitrep::quantized<-100.f, 100.f, 0.5f>;
    static wire to_wire(const engine_delta_test::Celsius& value) { return wire(static_cast<float>(value.degrees)); }
    static void from_wire(engine_delta_test::Celsius& value, const wire& sent) { value.degrees = sent.value(); }
};
template <>
struct bitrep::annotate<engine_delta_test::Plain> {
    using fields = std::tuple<engine_delta_test::metres, bitrep::ranged<int, 0, 200>, bitrep::bounded_string<6>,
                              std::optional<engine_delta_test::metres>, engine_delta_test::metres,
                              bitrep::transient<std::string>>;
};

namespace engine_delta_test {

struct Inner {
    bitrep::ranged<std::int16_t, -300, 300> a;
    bool b = false;
    bitrep::quantized<-10.f, 10.f, 0.05f> c;
    friend bool operator==(const Inner&, const Inner&) = default;
};

/// A class with its own encoding: compared by its bytes.
struct Blob {
    std::uint16_t v = 0;
    template <class Stream>
    bool serialize(Stream& stream)
    {
        return bitrep::serialize(stream, v);
    }
    friend bool operator==(const Blob&, const Blob&) = default;
};

struct Everything {
    bool flag = false;
    std::uint8_t u8 = 0;
    std::int16_t i16 = 0;
    std::uint32_t u32 = 0;
    std::int64_t i64 = 0;
    float f = 0;
    double d = 0;
    Tone tone = Tone::dark;
    Perms perms = Perms::none;
    bitrep::ranged<int, -1000, 1000> r32;
    bitrep::ranged<std::uint8_t, 3, 200> r8;
    bitrep::ranged<std::int64_t, -5, std::numeric_limits<std::int64_t>::max()> r64;
    bitrep::quantized<-100.f, 100.f, 0.01f> q;
    bitrep::quantized<-100.f, 100.f, 0.01f> q2; // shares q's coded slots
    bitrep::clamped<bitrep::quantized<0.f, 1.f, 0.1f>> qc;
    bitrep::bounded_string<12> name;
    bitrep::bounded_vector<bitrep::ranged<std::uint8_t, 0, 9>, 5> digits;
    bitrep::bounded_vector<Inner, 6> inners;
    std::array<Inner, 3> trio;
    std::optional<bitrep::ranged<int, 0, 77>> maybe;
    std::optional<Inner> maybe_inner;
    Inner inner;
    bitrep::transient<std::string> cache;
    bitrep::save_only<bitrep::ranged<int, 0, 15>> saved;
    bitrep::net_only<bool> net;
    std::variant<bitrep::ranged<int, 0, 3>, Inner, bitrep::bounded_string<2>> either;
    bitrep::quat<9> rotation;
    bitrep::bounded_vector<bool, 6> bits;
    std::bitset<40> set;
    std::pair<bitrep::ranged<int, 0, 20>, bool> duo;
    std::chrono::milliseconds wait{0};
    Blob blob;
    bitrep::delta_small<bitrep::ranged<int, -50, 50>, 3> count;
    bitrep::delta_small<bitrep::quantized<-8.f, 8.f, 0.01f>, 4> offset;
    bitrep::delta_small<bitrep::clamped<bitrep::quantized<0.f, 1.f, 0.1f>>, 2> share;
    bitrep::quat_code<9> code;
    friend bool operator==(const Everything&, const Everything&) = default;
};

struct Described {
    int id = 0;
    bitrep::ranged<int, 0, 50> level;
    Inner inner;
    friend bool operator==(const Described&, const Described&) = default;
};
BOOST_DESCRIBE_STRUCT(Described, (), (id, level, inner))

struct Keyed {
    bitrep::bounded_map<int, Inner, 4> by_id;
    bitrep::bounded_map<std::uint8_t, bitrep::bounded_string<3>, 4,
                        std::unordered_map<std::uint8_t, bitrep::bounded_string<3>>>
        hashed; // written in key order, not the table's
    bitrep::bounded_set<bitrep::ranged<int, 0, 5>, 4> few;
    bitrep::bounded_set<std::uint16_t, 3, std::unordered_set<std::uint16_t>> hashed_set;
    bitrep::bounded_map<std::pair<std::uint8_t, bool>, bitrep::bounded_vector<bitrep::ranged<int, 0, 9>, 2>, 3> nested;
    bitrep::bounded_vector<bitrep::bounded_map<std::uint8_t, Inner, 2>, 2> listed;
    friend bool operator==(const Keyed&, const Keyed&) = default;
};

struct Crowd {
    bitrep::entity_array<Inner, 7> units;
    bitrep::bounded_vector<Described, 40> many;
    bitrep::bounded_vector<std::uint8_t, 5000> large; // past the writer's kept indices
    bitrep::ranged<int, 0, 9> tick;
    friend bool operator==(const Crowd&, const Crowd&) = default;
};

struct Proxied {
    Celsius outside;
    bitrep::bounded_vector<Celsius, 3> log;
    std::optional<Celsius> maybe;
    bitrep::each_component<Vec3, metres> position;
    bitrep::each_component<Swizzled, bitrep::clamped<metres>, 3> swizzled;
    bitrep::each_component<DVec2, metres, 2> precise;
    bitrep::smallest_three<WQuat, 9> turned;
    bitrep::ranged_duration<std::chrono::milliseconds, 0, 60'000> cooldown;
    bitrep::quantized_duration<std::chrono::duration<float>, 0, 10, 0.01> delay;
    Plain plain;
    bitrep::bounded_vector<Plain, 3> plains;
    friend bool operator==(const Proxied&, const Proxied&) = default;
};

class generator {
public:
    explicit generator(std::uint32_t seed) : rng_(seed) {}
    /// Whether values a writer refuses are drawn (never for a baseline: a
    /// receiver holds what it decoded).
    bool wild = true;
    bool coin(int in = 2) { return std::uniform_int_distribution<int>(0, in - 1)(rng_) == 0; }
    template <class Int>
    Int any()
    {
        return static_cast<Int>(rng_());
    }
    template <class Int>
    Int between(std::int64_t lo, std::int64_t hi)
    {
        return static_cast<Int>(std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_));
    }
    float real(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng_); }
    /// Mostly in [lo, hi]; now and then outside, or NaN.
    float quantity(float lo, float hi)
    {
        if (wild && coin(60))
            return std::numeric_limits<float>::quiet_NaN();
        if (wild && coin(50))
            return hi + 1.0f;
        return real(lo, hi);
    }
    std::string text(std::size_t most)
    {
        std::string s(between<std::size_t>(0, static_cast<std::int64_t>(most) + (coin(40) ? 1 : 0)), 'a');
        for (char& c : s)
            c = static_cast<char>('a' + between<int>(0, 3));
        return s;
    }

    Inner inner()
    {
        Inner v;
        v.a = between<std::int16_t>(-300, 300);
        v.b = coin();
        v.c = quantity(-10.f, 10.f);
        return v;
    }

    template <class Quat>
    void rotation(Quat& q)
    {
        float c[4] = {real(-1, 1), real(-1, 1), real(-1, 1), real(-1, 1)};
        float n = std::sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3]);
        if (n < 1e-3f)
            n = 1;
        if (wild && coin(50))
            n *= 2; // not unit length: refused
        q.x = c[0] / n;
        q.y = c[1] / n;
        q.z = c[2] / n;
        q.w = c[3] / n;
    }

    Everything everything()
    {
        Everything v;
        v.flag = coin();
        v.u8 = any<std::uint8_t>();
        v.i16 = any<std::int16_t>();
        v.u32 = coin() ? between<std::uint32_t>(0, 20) : any<std::uint32_t>();
        v.i64 = any<std::int64_t>();
        v.f = real(-5, 5);
        v.d = coin() ? 0.5 : real(-1, 1);
        v.tone = static_cast<Tone>(between<int>(0, coin(60) ? 3 : 2)); // 3: not an enumerator
        int perms = 4;
        if (!coin(60)) {
            perms = between<int>(0, 1);
            perms |= coin() ? 2 : 0;
            perms |= coin() ? 64 : 0;
        }
        v.perms = static_cast<Perms>(perms);
        v.r32 = between<int>(-1000, 1000);
        v.r8 = between<std::uint8_t>(3, 200);
        v.r64 = between<std::int64_t>(-5, 1'000'000);
        v.q = quantity(-100.f, 100.f);
        v.q2 = real(-100.f, 100.f);
        v.qc = real(-2.f, 2.f);
        v.name = text(12);
        for (std::size_t n = between<std::size_t>(0, coin(40) ? 6 : 5); n > 0; --n)
            v.digits.push_back(between<std::uint8_t>(0, 9));
        for (std::size_t n = between<std::size_t>(0, 6); n > 0; --n)
            v.inners.push_back(inner());
        for (Inner& x : v.trio)
            x = inner();
        if (coin())
            v.maybe = between<int>(0, 77);
        if (coin())
            v.maybe_inner = inner();
        v.inner = inner();
        v.cache.get() = text(5);
        v.saved = between<int>(0, 15);
        v.net = coin();
        switch (between<int>(0, 2)) {
        case 0: v.either = bitrep::ranged<int, 0, 3>(between<int>(0, 3)); break;
        case 1: v.either = inner(); break;
        default: v.either = bitrep::bounded_string<2>(text(2)); break;
        }
        rotation(v.rotation);
        for (std::size_t n = between<std::size_t>(0, 6); n > 0; --n)
            v.bits.push_back(coin());
        v.set = std::bitset<40>(any<std::uint64_t>());
        v.duo = {between<int>(0, 20), coin()};
        v.wait = std::chrono::milliseconds(between<int>(-5, 5));
        v.blob.v = between<std::uint16_t>(0, 3);
        v.count = between<int>(-50, wild && coin(40) ? 51 : 50);
        v.offset = quantity(-8.f, 8.f);
        v.share = real(-0.5f, 1.5f);
        v.code.largest = between<std::uint8_t>(0, wild && coin(40) ? 4 : 3);
        for (auto& small : v.code.small)
            small = between<std::uint16_t>(0, bitrep::quat_code<9>::max);
        return v;
    }

    /// Small steps from the baseline, as delta_small sends them (and now
    /// and then past the range's ends).
    void nudge(Everything& value, const Everything& base)
    {
        if (coin())
            value.count = base.count.value() + between<int>(-4, 4);
        if (coin())
            value.offset = base.offset.value() + static_cast<float>(between<int>(-5, 5)) * 0.01f;
        if (coin())
            value.share = base.share.value() + static_cast<float>(between<int>(-2, 2)) * 0.1f;
    }

    Described described()
    {
        Described v;
        v.id = between<int>(0, 3);
        v.level = between<int>(0, 50);
        v.inner = inner();
        return v;
    }

    Keyed keyed()
    {
        Keyed v;
        for (int n = between<int>(0, wild && coin(30) ? 5 : 4); n > 0; --n) {
            Inner item = inner();
            v.by_id.insert_or_assign(between<int>(0, 6), item);
        }
        for (int n = between<int>(0, 4); n > 0; --n) {
            bitrep::bounded_string<3> item(text(3));
            v.hashed.insert_or_assign(between<std::uint8_t>(0, 5), item);
        }
        for (int n = between<int>(0, 4); n > 0; --n)
            v.few.insert(bitrep::ranged<int, 0, 5>(between<int>(0, 5)));
        for (int n = between<int>(0, 3); n > 0; --n)
            v.hashed_set.insert(between<std::uint16_t>(0, 4));
        for (int n = between<int>(0, 3); n > 0; --n) {
            bitrep::bounded_vector<bitrep::ranged<int, 0, 9>, 2> digits;
            for (int k = between<int>(0, 2); k > 0; --k)
                digits.push_back(between<int>(0, 9));
            v.nested.insert_or_assign(std::pair<std::uint8_t, bool>{between<std::uint8_t>(0, 2), coin()}, digits);
        }
        for (int n = between<int>(0, 2); n > 0; --n) {
            bitrep::bounded_map<std::uint8_t, Inner, 2> m;
            for (int k = between<int>(0, 2); k > 0; --k) {
                Inner item = inner();
                m.insert_or_assign(between<std::uint8_t>(0, 3), item);
            }
            v.listed.push_back(m);
        }
        return v;
    }

    Crowd crowd()
    {
        Crowd v;
        for (std::size_t id = 0; id < 7; ++id)
            if (coin())
                v.units.emplace(id) = inner();
        for (std::size_t n = between<std::size_t>(0, 40); n > 0; --n)
            v.many.push_back(described());
        for (std::size_t n = coin(4) ? between<std::size_t>(4097, 5000) : between<std::size_t>(0, 10); n > 0; --n)
            v.large.push_back(between<std::uint8_t>(0, 2));
        v.tick = between<int>(0, 9);
        return v;
    }

    Plain plain()
    {
        Plain v;
        v.x = quantity(-100.f, 100.f);
        v.hp = between<int>(0, wild && coin(40) ? 201 : 200);
        v.name = text(6);
        if (coin())
            v.maybe = quantity(-100.f, 100.f);
        v.precise = real(-100.f, 100.f);
        v.note = "kept"; // transient: a read takes the baseline's (see TransientPartsTakeTheBaselines)
        return v;
    }

    Proxied proxied()
    {
        Proxied v;
        v.outside.degrees = quantity(-100.f, 100.f);
        for (std::size_t n = between<std::size_t>(0, 3); n > 0; --n)
            v.log.push_back(Celsius{real(-100.f, 100.f)});
        if (coin())
            v.maybe = Celsius{real(-100.f, 100.f)};
        v.position.get() = {quantity(-100.f, 100.f), real(-100.f, 100.f), real(-100.f, 100.f)};
        v.swizzled.get() = {real(-200.f, 200.f), real(-100.f, 100.f), real(-100.f, 100.f)};
        v.precise.get() = {real(-100.f, 100.f), quantity(-100.f, 100.f)};
        rotation(v.turned.get());
        v.cooldown = std::chrono::milliseconds(between<int>(0, wild && coin(40) ? 70'000 : 60'000));
        v.delay = std::chrono::duration<float>(quantity(0.f, 10.f));
        v.plain = plain();
        for (std::size_t n = between<std::size_t>(0, 3); n > 0; --n)
            v.plains.push_back(plain());
        return v;
    }

    /// `value` moved towards `fresh`: each field of an aggregate taken from
    /// it with probability 1/odds, and each element of a vector alike.
    template <class T>
    void mix(T& value, const T& fresh, int odds)
    {
        if constexpr (std::is_aggregate_v<T> && !std::is_array_v<T> && !bitrep::detail::std_tuple<T> &&
                      !requires { value.size(); }) {
            auto to = boost::pfr::structure_tie(value);
            const auto from = boost::pfr::structure_to_tuple(fresh);
            [&]<std::size_t... I>(std::index_sequence<I...>) {
                (mix_field(std::get<I>(to), std::get<I>(from), odds), ...);
            }(std::make_index_sequence<std::tuple_size_v<decltype(from)>>{});
        } else if (coin(odds)) {
            value = fresh;
        }
    }

private:
    template <class F>
    void mix_field(F& field, const F& fresh, int odds)
    {
        if constexpr (requires { field.vector(); field[0]; }) {
            if (coin(odds)) {
                field = fresh;
                return;
            }
            for (std::size_t i = 0; i < field.size() && i < fresh.size(); ++i)
                if (coin(odds))
                    field[i] = fresh[i];
        } else if (coin(odds)) {
            field = fresh;
        }
    }

    std::mt19937 rng_;
};

// ---- the engine's outcomes -----------------------------------------------

struct outcome {
    bitrep::status status;
    std::vector<std::uint8_t> bytes;
    std::size_t bits = 0;
};

template <scope Scope, class T>
outcome packed_write(const T& older, const T& base, const T& value, std::size_t room)
{
    outcome out;
    out.bytes.assign(room, 0);
    bitrep::basic_write_stream<Scope> stream(out.bytes);
    const bool ok = bitrep::write_delta(stream, older, base, value);
    if (!ok)
        out.status = stream.failure_status("delta");
    out.bits = stream.bit_position();
    out.bytes.resize(ok ? stream.flush() : 0);
    return out;
}

template <scope Scope, class T>
outcome packed_measure(const T& older, const T& base, const T& value)
{
    outcome out;
    bitrep::basic_measure_stream<Scope> stream;
    if (!bitrep::write_delta(stream, older, base, value))
        out.status = stream.failure_status("delta");
    out.bits = stream.exact_bits();
    return out;
}

template <scope Scope, class T>
outcome packed_read(std::span<const std::uint8_t> bytes, const T& older, const T& base, T& into)
{
    outcome out;
    bitrep::basic_read_stream<Scope> stream(bytes);
    if (!bitrep::read_delta(stream, older, base, into))
        out.status = stream.failure_status("delta");
    out.bits = stream.bit_position();
    return out;
}

template <scope Scope, class T>
outcome coded_write(const T& older, const T& base, const T& value, std::size_t room)
{
    outcome out;
    out.bytes.assign(room, 0);
    bitrep::delta_coder<T, Scope> coder;
    std::size_t written = 0;
    out.status = coder.write(out.bytes, written, older, base, value);
    out.bytes.resize(out.status.ok() ? written : 0);
    return out;
}

template <scope Scope, class T>
outcome coded_read(std::span<const std::uint8_t> bytes, const T& older, const T& base, T& into)
{
    outcome out;
    bitrep::delta_coder<T, Scope> coder;
    out.status = coder.read(bytes, older, base, into);
    return out;
}

struct tally {
    int refused = 0;
    int written = 0;
    int unchanged = 0;
    int read = 0;
    int read_refused = 0;
    boost::crc_32_type digest; // of every outcome, in order

    void add(const void* data, std::size_t size) { digest.process_bytes(data, size); }
    void add(std::uint64_t n) { add(&n, sizeof n); }
    void add(const bitrep::status& status)
    {
        add(static_cast<std::uint64_t>(status.code()));
        add(status.bit_offset());
        add(status.field_path().data(), status.field_path().size());
        add(status.detail().data(), status.detail().size());
    }
    void add(const outcome& out)
    {
        add(out.status);
        add(out.bytes.data(), out.bytes.size());
        add(out.bits);
    }
    /// A value read: its whole encoding.
    template <class T>
    void add_value(const T& value)
    {
        std::vector<std::uint8_t> bytes;
        add(bitrep::to_bytes(value, bytes));
        add(bytes.data(), bytes.size());
    }
};

/// Reads `bytes` into a copy of `start`: a refusal leaves it as it was.
template <scope Scope, bool Coded, class T>
void read_into_copy(std::span<const std::uint8_t> bytes, const T& older, const T& base, const T& start, tally& seen)
{
    T into = start;
    const outcome read = Coded ? coded_read<Scope>(bytes, older, base, into) : packed_read<Scope>(bytes, older, base, into);
    seen.add(read);
    if (read.status.ok()) {
        seen.add_value(into);
        ++seen.read;
    } else {
        ++seen.read_refused;
    }
}

template <scope Scope, bool Coded, class T>
void run_chain(generator& gen, const T& older, const T& base, const T& value, const T& start, tally& seen)
{
    constexpr std::size_t room = 64 * 1024;
    const outcome written = Coded ? coded_write<Scope>(older, base, value, room)
                                  : packed_write<Scope>(older, base, value, room);
    seen.add(written);
    if constexpr (!Coded) {
        const outcome measured = packed_measure<Scope>(older, base, value);
        seen.add(measured);
        if (written.status.ok()) {
            EXPECT_EQ(measured.bits, written.bits);
        }
    }
    if (!written.status.ok()) {
        ++seen.refused;
        return;
    }
    ++seen.written;
    read_into_copy<Scope, Coded>(written.bytes, older, base, start, seen);
    if (written.bytes.empty())
        return;
    std::vector<std::uint8_t> mutated = written.bytes;
    for (int flips = gen.between<int>(1, 3); flips > 0; --flips)
        mutated[gen.between<std::size_t>(0, static_cast<std::int64_t>(mutated.size()) - 1)] ^=
            static_cast<std::uint8_t>(1u << gen.between<int>(0, 7));
    read_into_copy<Scope, Coded>(mutated, older, base, start, seen);
    mutated.resize(gen.between<std::size_t>(0, static_cast<std::int64_t>(mutated.size()) - 1));
    read_into_copy<Scope, Coded>(mutated, older, base, start, seen);
}

/// Chains of states of T (each a mix of the one before and a fresh value),
/// in every scope, bit-packed and coded.
template <class T, class Make>
tally run_deltas(std::uint32_t seed, Make make, int rounds)
{
    generator gen(seed);
    tally seen;
    gen.wild = false;
    const T start = make(gen);
    for (int i = 0; i < rounds; ++i) {
        gen.wild = false;
        T older = make(gen);
        T base = older;
        gen.mix(base, make(gen), 3);
        gen.wild = true;
        T value = base;
        const int odds = gen.coin(3) ? 2 : 8; // drawn first: one order for every compiler
        gen.mix(value, make(gen), odds);
        if constexpr (std::is_same_v<T, Everything>)
            gen.nudge(value, base);
        if (gen.coin(8))
            value = base;
        if (gen.coin(10))
            older = base; // no older state
        const bool same_all = bitrep::same_on_wire<scope::all>(base, value);
        if (same_all)
            ++seen.unchanged;
        seen.add(same_all ? 1u : 0u);
        seen.add(bitrep::same_on_wire<scope::replication>(base, value) ? 1u : 0u);
        run_chain<scope::all, false>(gen, older, base, value, start, seen);
        run_chain<scope::save, false>(gen, older, base, value, start, seen);
        run_chain<scope::replication, false>(gen, older, base, value, start, seen);
        run_chain<scope::replication, true>(gen, older, base, value, start, seen);
        run_chain<scope::all, true>(gen, older, base, value, start, seen);
    }
    return seen;
}

/// Every kind of outcome happened, and all of them are the recorded ones.
void expect_recorded(const tally& seen, std::uint32_t recorded)
{
    EXPECT_GT(seen.refused, 0);
    EXPECT_GT(seen.written, 0);
    EXPECT_GT(seen.unchanged, 0);
    EXPECT_GT(seen.read, seen.written); // every clean encoding, and more
    EXPECT_GT(seen.read_refused, 0);
    EXPECT_EQ(seen.digest.checksum(), recorded);
}

/// The coded streams' model slots, as the delta codecs numbered them: one
/// per leaf, one per container or optional, fields of one type sharing.
TEST(EngineDelta, ModelSlotsAreTheRecordedOnes)
{
    EXPECT_EQ(bitrep::engine::entry_v<Everything>.slots, 60u);
    EXPECT_EQ(bitrep::engine::entry_v<Crowd>.slots, 14u);
    EXPECT_EQ(bitrep::engine::entry_v<Described>.slots, 5u);
    const auto& table = *bitrep::engine::entry_v<Everything>.nested;
    EXPECT_EQ(table.slot_offsets[13], table.slot_offsets[12]); // q2 shares q's
    EXPECT_GT(table.slot_offsets[12], table.slot_offsets[11]);
}

/// The most bits a delta takes, and a changed value's delta after its
/// changed bit, as the delta codecs bounded them.
template <class T>
void expect_bounds(std::size_t delta, std::size_t changed)
{
    EXPECT_EQ(bitrep::max_delta_bits<T>, delta) << bitrep::reflect::type_name<T>();
    EXPECT_EQ(bitrep::max_changed_bits<T>, changed) << bitrep::reflect::type_name<T>();
}

TEST(EngineDelta, BoundsAreTheRecordedOnes)
{
    constexpr std::size_t unbounded = std::numeric_limits<std::size_t>::max();
    expect_bounds<Everything>(unbounded, unbounded); // a hook without a bound
    expect_bounds<Inner>(24, 23);
    expect_bounds<Described>(65, 64);
    expect_bounds<Crowd>(47806, 47805);
    expect_bounds<Proxied>(724, 723);
    expect_bounds<Plain>(118, 117);
    expect_bounds<Keyed>(1131, 1130);
    expect_bounds<std::optional<Inner>>(25, 24);
    expect_bounds<std::variant<bool, Inner>>(25, 24);
    expect_bounds<std::variant<Tone>>(4, 3);
    expect_bounds<std::array<Inner, 4>>(98, 97);
    expect_bounds<bitrep::bounded_vector<Inner, 9>>(222, 221);
    expect_bounds<bitrep::save_only<Inner>>(24, 23);
    expect_bounds<bitrep::quat<11>>(36, 35);
    expect_bounds<bitrep::quat_code<7>>(24, 23);
    expect_bounds<bitrep::delta_small<bitrep::ranged<int, 0, 90>, 5>>(9, 8);
}

TEST(EngineDelta, EveryKindWritesAndReadsAsRecorded)
{
    const tally seen = run_deltas<Everything>(7, [](generator& g) { return g.everything(); }, 300);
    expect_recorded(seen, 576979923u);
}

TEST(EngineDelta, NestedStructsWriteAndReadAsRecorded)
{
    const tally seen = run_deltas<Inner>(11, [](generator& g) { return g.inner(); }, 300);
    expect_recorded(seen, 828045740u);
    const tally described = run_deltas<Described>(12, [](generator& g) { return g.described(); }, 200);
    EXPECT_GT(described.written, 0);
    EXPECT_GT(described.read_refused, 0);
    EXPECT_EQ(described.digest.checksum(), 2927207568u);
}

TEST(EngineDelta, ProxiesAndAnnotationsWriteAndReadAsRecorded)
{
    const tally seen = run_deltas<Proxied>(17, [](generator& g) { return g.proxied(); }, 300);
    expect_recorded(seen, 1615076692u);
}

/// A read assigns every part of the value: what no stream carries (a
/// transient field, declared in the class or annotated from outside it)
/// from the baseline, whether the rest of its struct changed or not.
TEST(EngineDelta, TransientPartsTakeTheBaselines)
{
    Proxied base;
    base.plain.note = "base";
    base.plain.hp = 7;
    Proxied value = base;
    value.plain.hp = 8;
    value.plain.note = "value";
    std::vector<std::uint8_t> bytes(256);
    bitrep::basic_write_stream<scope::replication> out(bytes);
    ASSERT_TRUE(bitrep::write_delta(out, base, value));
    bytes.resize(out.flush());
    for (const bool changed : {true, false}) {
        Proxied read;
        read.plain.note = "target";
        bitrep::basic_read_stream<scope::replication> in(bytes);
        if (changed) {
            ASSERT_TRUE(bitrep::read_delta(in, base, read));
            EXPECT_EQ(read.plain.hp, 8);
        } else {
            std::vector<std::uint8_t> none(256);
            bitrep::basic_write_stream<scope::replication> same(none);
            ASSERT_TRUE(bitrep::write_delta(same, base, base));
            none.resize(same.flush());
            bitrep::basic_read_stream<scope::replication> again(none);
            ASSERT_TRUE(bitrep::read_delta(again, base, read));
            EXPECT_EQ(read.plain.hp, 7);
        }
        EXPECT_EQ(read.plain.note, "base");
    }
    Everything described_base;
    described_base.cache.get() = "base";
    Everything described_value = described_base;
    described_value.r32 = 5;
    described_value.cache.get() = "value";
    std::vector<std::uint8_t> more(4096);
    bitrep::basic_write_stream<scope::all> out_more(more);
    ASSERT_TRUE(bitrep::write_delta(out_more, described_base, described_value));
    more.resize(out_more.flush());
    Everything read_more;
    read_more.cache.get() = "target";
    bitrep::basic_read_stream<scope::all> in_more(more);
    ASSERT_TRUE(bitrep::read_delta(in_more, described_base, read_more));
    EXPECT_EQ(read_more.r32.value(), 5);
    EXPECT_EQ(read_more.cache.get(), "base");
}

TEST(EngineDelta, MapsAndSetsWriteAndReadAsRecorded)
{
    const tally seen = run_deltas<Keyed>(19, [](generator& g) { return g.keyed(); }, 400);
    expect_recorded(seen, 3944182278u);
}

TEST(EngineDelta, EntitiesAndLongVectorsWriteAndReadAsRecorded)
{
    const tally seen = run_deltas<Crowd>(13, [](generator& g) { return g.crowd(); }, 80);
    EXPECT_GT(seen.written, 0);
    EXPECT_GT(seen.unchanged + seen.written, 0);
    EXPECT_GT(seen.read_refused, 0);
    EXPECT_EQ(seen.digest.checksum(), 357895764u);
}

} // namespace engine_delta_test
