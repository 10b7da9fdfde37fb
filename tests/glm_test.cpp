// annotations/adapted.hpp with a real math library: glm::vec3 quantized per
// component (each_component) and glm::quat as smallest three
// (smallest_three), as field types and as outside annotations of a struct
// that keeps plain glm members. Their bits are those of the kinds they
// stand for (std::array of quantized, quat<B>), whose golden vectors
// docs/formats/wire-format.md lists; deltas, saves and refusals follow from that.
#include <bitrep/bitrep.hpp>
#include <bitrep/coded_delta.hpp>
#include <bitrep/delta.hpp>

#include <glm/gtc/quaternion.hpp>
#include <glm/vec3.hpp>

#include <gtest/gtest.h>

#include "delta_helpers.hpp"
#include "test_oracle.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

namespace {

using namespace oracle::common;

// The one-line adapters a game writes.
using position3 = bitrep::each_component<glm::vec3, bitrep::quantized<-1024.f, 1024.f, 0.01f>>;
using rotation9 = bitrep::smallest_three<glm::quat, 9>;

struct Ship {
    static constexpr std::string_view bitrep_name = "Ship";
    position3 position;
    rotation9 facing;
    bitrep::ranged<int, 0, 100> hull = 100;
};
BOOST_DESCRIBE_STRUCT(Ship, (), (position, facing, hull))

// The kinds they stand for.
struct ShipKinds {
    static constexpr std::string_view bitrep_name = "Ship";
    std::array<bitrep::quantized<-1024.f, 1024.f, 0.01f>, 3> position{};
    bitrep::quat<9> facing;
    bitrep::ranged<int, 0, 100> hull = 100;
};
BOOST_DESCRIBE_STRUCT(ShipKinds, (), (position, facing, hull))

const glm::quat turned = glm::angleAxis(0.7f, glm::normalize(glm::vec3(0.2f, 1.0f, -0.3f)));

Ship sample()
{
    Ship s;
    s.position = glm::vec3(12.34f, -500.5f, 3.0f);
    s.facing = turned;
    s.hull = 77;
    return s;
}

ShipKinds as_kinds(const Ship& s)
{
    ShipKinds k;
    for (int i = 0; i < 3; ++i)
        k.position[static_cast<std::size_t>(i)] = s.position.get()[i];
    const glm::quat& q = s.facing.get();
    k.facing = bitrep::quat<9>{q.x, q.y, q.z, q.w};
    k.hull = s.hull;
    return k;
}

/// The same rotation (q and -q are one), to the precision of 9 bits.
bool same_rotation(const glm::quat& a, const glm::quat& b, float tolerance = 0.004f)
{
    return std::fabs(std::fabs(glm::dot(a, b)) - 1.0f) < tolerance;
}

} // namespace

TEST(Glm, AVec3IsThreeQuantizedComponentsAndAQuatSmallestThree)
{
    // [-1024, 1024] at 0.01: 204800 steps, 18 bits; smallest three of 9: 29.
    EXPECT_EQ(bitrep::max_bits<Ship>, 3u * 18u + 29u + 7u);
    const bytes out = oracle::encode(sample());
    EXPECT_EQ(out, oracle::encode(as_kinds(sample())));
    // The first component by the oracle's own quantizer: 12.34 is quantum
    // round((12.34 + 1024) / 2048 * 204800) = 103634.
    const bytes first = bit_builder{}.bits(103634, 18).result();
    EXPECT_EQ(out[0], first[0]);
    EXPECT_EQ(out[1], first[1]);
    EXPECT_EQ(out[2] & 0x3, first[2]);
    Ship got;
    ASSERT_TRUE(bitrep::from_bytes(out, got));
    for (int i = 0; i < 3; ++i)
        EXPECT_NEAR(got.position.get()[i], sample().position.get()[i], 0.005f) << i;
    EXPECT_TRUE(same_rotation(got.facing, turned));
    EXPECT_EQ(got.hull, 77);
    // A default is the identity rotation, not glm's all-zero quaternion.
    EXPECT_EQ(rotation9{}.get(), glm::quat(1.0f, 0.0f, 0.0f, 0.0f));
}

TEST(Glm, AValueTheAnnotationsRefuseIsRefusedNamingTheComponent)
{
    Ship s = sample();
    s.position->y = std::nanf("");
    bytes out;
    EXPECT_STATUS(bitrep::to_bytes(s, out), bitrep::error::value_out_of_range, "Ship.position[1]", 18);
    s = sample();
    s.facing = glm::quat(0.0f, 0.0f, 0.0f, 0.0f); // not a rotation
    EXPECT_EQ(bitrep::to_bytes(s, out).code(), bitrep::error::value_out_of_range);
    // Outside the range, as a quantized float is: refused, not clamped.
    s = sample();
    s.position = glm::vec3(0.0f, 0.0f, 5000.0f);
    EXPECT_STATUS(bitrep::to_bytes(s, out), bitrep::error::value_out_of_range, "Ship.position[2]", 36);
    s.position = glm::vec3(-1024.5f, 0.0f, 0.0f);
    EXPECT_STATUS(bitrep::to_bytes(s, out), bitrep::error::value_out_of_range, "Ship.position[0]", 0);
    Ship moved = sample();
    moved.position->z = 5000.0f;
    bytes delta(64);
    bitrep::write_stream stream(delta);
    EXPECT_FALSE(bitrep::write_delta(stream, sample(), moved));
    EXPECT_EQ(stream.failure_status("Ship").code(), bitrep::error::value_out_of_range);
}

TEST(Glm, ClampedComponentsClampFarOutsideValues)
{
    using clamped_position3 = bitrep::each_component<glm::vec3, bitrep::clamped<bitrep::quantized<-1024.f, 1024.f, 0.01f>>>;
    const clamped_position3 far = glm::vec3(5000.0f, -1e30f, 1.0f);
    const clamped_position3 back = oracle::round_trip(far);
    EXPECT_FLOAT_EQ(back->x, 1024.0f);
    EXPECT_FLOAT_EQ(back->y, -1024.0f);
    EXPECT_EQ(bitrep::to_bytes(far), bitrep::to_bytes(position3(glm::vec3(1024.0f, -1024.0f, 1.0f))));
}

TEST(Glm, DeltasAreThoseOfTheKinds)
{
    const Ship base = sample();
    Ship moved = base;
    moved.position->x += 1.0f;
    EXPECT_EQ(bitrep::delta_bit_size(base, moved), bitrep::delta_bit_size(as_kinds(base), as_kinds(moved)));
    EXPECT_EQ(bitrep::delta_bit_size(base, base), 1u);
    // A drift below the quantum is no change.
    Ship drift = base;
    drift.position->z += 0.001f;
    EXPECT_EQ(bitrep::delta_bit_size(base, drift), 1u);

    bitrep::delta_coder<Ship> coder;
    Ship older, was, now = base;
    for (int tick = 0; tick < 100; ++tick) {
        older = was;
        was = now;
        now.position->x += 0.25f;
        now.facing = glm::normalize(glm::angleAxis(0.02f, glm::vec3(0, 1, 0)) * now.facing.get());
        const oracle::coded<Ship> decoded = oracle::coded_round_trip(coder, older, was, now, 64);
        ASSERT_TRUE(decoded.ok) << tick;
        ASSERT_NEAR(decoded.value.position->x, now.position->x, 0.006f) << tick;
        ASSERT_TRUE(same_rotation(decoded.value.facing, now.facing)) << tick;
    }
}

namespace saves {
struct ShipFine { // finer rotations, a smaller world
    static constexpr std::string_view bitrep_name = "Ship";
    std::array<bitrep::quantized<-2048.f, 2048.f, 0.001f>, 3> position{};
    bitrep::quat<14> facing;
};
BOOST_DESCRIBE_STRUCT(ShipFine, (), (position, facing))
} // namespace saves

TEST(GlmSave, SavesLoadBetweenGlmTypesAndTheKinds)
{
    bitrep::load_info info;
    ShipKinds kinds;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(sample()), kinds, info));
    EXPECT_EQ(info.path, bitrep::load_info::route::fast); // one schema
    EXPECT_EQ(bitrep::to_bytes(kinds), bitrep::to_bytes(as_kinds(sample())));
    // Converted on the schema path: other bounds, other bits per component.
    saves::ShipFine fine;
    fine.position = {{100.0f, 200.0f, -300.0f}};
    const glm::quat q = glm::angleAxis(1.1f, glm::vec3(1, 0, 0));
    fine.facing = bitrep::quat<14>{q.x, q.y, q.z, q.w};
    Ship ship;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(fine), ship, info));
    EXPECT_EQ(info.path, bitrep::load_info::route::schema);
    EXPECT_NEAR(ship.position->y, 200.0f, 0.006f);
    EXPECT_TRUE(same_rotation(ship.facing, q));
    // A component the program's range cannot hold is refused, naming it.
    fine.position = {{100.0f, 1500.0f, 0.0f}};
    const bitrep::status st = bitrep::load_from_bytes(bitrep::save_to_bytes(fine), ship, info);
    EXPECT_EQ(st.code(), bitrep::error::out_of_range) << st.message();
    EXPECT_EQ(st.field_path(), "Ship.position[1]") << st.message();
    EXPECT_NEAR(ship.position->y, 200.0f, 0.006f);
}

// A struct that keeps plain glm members, annotated from outside.
namespace game {
struct Probe {
    glm::vec3 at{0.0f};
    glm::quat heading{1.0f, 0.0f, 0.0f, 0.0f};
};
} // namespace game

template <>
struct bitrep::annotate<game::Probe> {
    using fields = std::tuple<position3, rotation9>;
};

TEST(Glm, PlainGlmMembersTakeTheAdaptersAsOutsideAnnotations)
{
    game::Probe p;
    p.at = glm::vec3(1.5f, 2.5f, -3.5f);
    p.heading = turned;
    EXPECT_EQ(bitrep::max_bits<game::Probe>, 3u * 18u + 29u);
    const bytes out = oracle::encode(p);
    Ship as_ship;
    as_ship.position = p.at;
    as_ship.facing = p.heading;
    as_ship.hull = 0; // 7 zero bits after the 83 the two share
    const bytes ship_bytes = oracle::encode(as_ship);
    EXPECT_EQ(out, bytes(ship_bytes.begin(), ship_bytes.begin() + 11));
    game::Probe got;
    ASSERT_TRUE(bitrep::from_bytes(out, got));
    EXPECT_NEAR(got.at.z, -3.5f, 0.005f);
    EXPECT_TRUE(same_rotation(got.heading, turned));
}

// Engines whose quaternions expose x() ... w() (Eigen's style).
namespace {
class MethodQuat {
public:
    float& x() { return v_[0]; }
    float& y() { return v_[1]; }
    float& z() { return v_[2]; }
    float& w() { return v_[3]; }
    float x() const { return v_[0]; }
    float y() const { return v_[1]; }
    float z() const { return v_[2]; }
    float w() const { return v_[3]; }

private:
    std::array<float, 4> v_{};
};
} // namespace

TEST(Glm, QuaternionsWithAccessorMethodsAdaptToo)
{
    bitrep::smallest_three<MethodQuat, 12> q;
    EXPECT_EQ(q->w(), 1.0f);
    q->x() = turned.x;
    q->y() = turned.y;
    q->z() = turned.z;
    q->w() = turned.w;
    bitrep::smallest_three<MethodQuat, 12> got;
    ASSERT_TRUE(bitrep::from_bytes(oracle::encode(q), got));
    EXPECT_TRUE(same_rotation(glm::quat(got->w(), got->x(), got->y(), got->z()), turned, 0.0005f));
}

// The table engine (what to_bytes runs) runs glm's floats where they lie
// (x, y, z and the quaternion's x, y, z, w one after another) and sends the
// inlined codecs' bits.
using bitrep::detail::codec_path;

template <class T>
bytes inlined_bytes(const T& value)
{
    bytes out((bitrep::max_bits<T> + 7) / 8);
    std::size_t written = 0;
    EXPECT_TRUE(bitrep::detail::to_bytes_by<codec_path::inlined>(value, std::span<std::uint8_t>(out), written).ok());
    out.resize(written);
    return out;
}

TEST(GlmEngine, GlmMembersRunInPlaceWithTheCodecsBits)
{
    EXPECT_EQ(bitrep::engine::entry_v<position3>.proxy->in_place(), 0);
    EXPECT_EQ(bitrep::engine::entry_v<rotation9>.proxy->in_place() >= 0, true);
    Ship s = sample();
    bytes by_engine;
    ASSERT_TRUE(bitrep::to_bytes(s, by_engine).ok());
    EXPECT_EQ(by_engine, inlined_bytes(s));
    Ship got;
    ASSERT_TRUE(bitrep::detail::from_bytes_by<codec_path::engine>(by_engine, got).ok());
    Ship expected;
    ASSERT_TRUE(bitrep::detail::from_bytes_by<codec_path::inlined>(by_engine, expected).ok());
    EXPECT_TRUE(got.position.get() == expected.position.get() && got.facing.get() == expected.facing.get());
    s.position->y = 2000.0f;
    std::size_t written = 0;
    const bitrep::status refused = bitrep::detail::to_bytes_by<codec_path::engine>(s, by_engine, written);
    EXPECT_EQ(refused.field_path(), bitrep::detail::to_bytes_by<codec_path::inlined>(s, by_engine, written).field_path());
    EXPECT_EQ(refused.field_path(), "Ship.position[1]");
}

TEST(GlmEngine, PlainGlmMembersAnnotatedFromOutsideRunInPlaceToo)
{
    const bitrep::engine::field_entry* fields = bitrep::engine::table_v<game::Probe>.fields;
    EXPECT_EQ(fields[0].proxy->in_place(), 0);
    EXPECT_EQ(fields[1].proxy->in_place(), 0);
    game::Probe p;
    p.at = glm::vec3(1.5f, 2.5f, -3.5f);
    p.heading = turned;
    bytes by_engine;
    ASSERT_TRUE(bitrep::to_bytes(p, by_engine).ok());
    EXPECT_EQ(by_engine, inlined_bytes(p));
    game::Probe got;
    ASSERT_TRUE(bitrep::detail::from_bytes_by<codec_path::engine>(by_engine, got).ok());
    game::Probe expected;
    ASSERT_TRUE(bitrep::detail::from_bytes_by<codec_path::inlined>(by_engine, expected).ok());
    EXPECT_TRUE(got.at == expected.at && got.heading == expected.heading);
}
