// Coded deltas (coded_delta.hpp, coded_stream.hpp): every annotation kind
// round-trips through the range-coded stream, predicted from an older state;
// hostile packets (every truncation, single-bit flips) are refused or decode
// to a state the codecs accept, and never read outside their bytes (ASan).
#include <bitrep/bitrep.hpp>
#include <bitrep/coded_delta.hpp>
#include <bitrep/delta.hpp>
#include <bitrep/engine/delta.hpp>

#include <gtest/gtest.h>

#include "engine/quat_frame.hpp" // src/: the library's own, not installed
#include "replication_world.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace {

using bitrep::scope;
using every_kind::Body; // a field of every kind (replication_world.hpp)
using every_kind::Item;
using every_kind::Kind;

struct World {
    bitrep::entity_array<Body, 12> bodies;
    std::array<bitrep::ranged<int, -1000, 1000>, 4> scores{};
    bitrep::ranged<int, 0, 1000000> tick;
};

bool same(const World& a, const World& b) { return bitrep::same_on_wire<scope::replication>(a, b); }

/// A random change of the world, sometimes none at all.
void mutate(World& w, std::mt19937& random)
{
    auto chance = [&](int percent) { return static_cast<int>(random() % 100) < percent; };
    auto uniform = [&](float lo, float hi) { return lo + (hi - lo) * static_cast<float>(random() % 10001) / 10000.f; };
    w.tick = static_cast<int>((w.tick.value() + 1) % 1000000);
    for (std::size_t i = 0; i < 4; ++i)
        if (chance(30))
            w.scores[i] = static_cast<int>(random() % 2001) - 1000;
    for (std::size_t slot = 0; slot < 12; ++slot) {
        Body* b = w.bodies.find(slot);
        if (chance(5)) {
            w.bodies.erase(slot);
            continue;
        }
        if (b == nullptr) {
            if (chance(20))
                b = &w.bodies.emplace(slot);
            else
                continue;
        }
        if (chance(40))
            continue;
        if (chance(60)) {
            // Mostly small moves, now and then a jump to the bounds.
            b->x = chance(10) ? (chance(50) ? -100.f : 100.f) : std::clamp(b->x.value() + uniform(-2, 2), -100.f, 100.f);
            b->y = std::clamp(b->y.value() + uniform(-0.05f, 0.05f), -100.f, 100.f);
            b->z = std::clamp(b->z.value() + uniform(-0.2f, 0.2f), 0.f, 50.f);
        }
        if (chance(30)) {
            const float a = uniform(-3.2f, 3.2f);
            b->orientation = bitrep::quat<9>{0.f, std::sin(a / 2), 0.f, std::cos(a / 2)};
        }
        if (chance(30)) {
            // Small turns of the code, and now and then a new largest axis.
            if (chance(20))
                b->code.largest = static_cast<std::uint8_t>(random() % 4);
            for (auto& k : b->code.small)
                k = static_cast<std::uint16_t>(std::clamp<int>(k.value() + static_cast<int>(random() % 21) - 10, 0, 511));
        }
        if (chance(20))
            b->health = static_cast<int>(random() % 101);
        if (chance(10))
            b->gold = chance(50) ? -5000000000 : static_cast<std::int64_t>(random() % 5000000001);
        if (chance(10))
            b->score = static_cast<std::int32_t>(random());
        if (chance(5))
            b->id = (static_cast<std::uint64_t>(random()) << 32) | random();
        if (chance(5))
            b->raw = uniform(-1e6f, 1e6f);
        if (chance(10))
            b->alive = !b->alive;
        if (chance(5))
            b->name = std::string(random() % 8, static_cast<char>('a' + random() % 26));
        if (chance(10)) {
            if (chance(50) && b->items.size() < 4)
                b->items.push_back(Item{static_cast<Kind>(random() % 4), static_cast<int>(random() % 64) + 1});
            else if (!b->items.empty())
                b->items.pop_back();
        }
        if (chance(10))
            b->mood = chance(30) ? std::nullopt : std::optional<bitrep::ranged<int, -3, 3>>(static_cast<int>(random() % 7) - 3);
        if (chance(10))
            b->flags[random() % 3] = chance(50);
        if (chance(10))
            b->cache.get() = "not sent";
    }
}

std::vector<std::uint8_t> coded(bitrep::delta_coder<World>& coder, const World& older, const World& base,
                                const World& current)
{
    std::vector<std::uint8_t> out(8192);
    std::size_t bytes = 0;
    const bitrep::status st = coder.write(out, bytes, older, base, current);
    EXPECT_TRUE(st.ok()) << st.message();
    out.resize(bytes);
    return out;
}

/// A run of states, each coded against the one `distance` before, predicted
/// from the one before that.
std::vector<World> history(std::uint32_t seed, std::size_t length)
{
    std::mt19937 random(seed);
    std::vector<World> states(1);
    while (states.size() < length) {
        World next = states.back();
        mutate(next, random);
        // The receiver holds what the codecs rebuild: round-trip each state once.
        World rebuilt;
        EXPECT_TRUE(bitrep::from_bytes(bitrep::to_bytes(next), rebuilt).ok());
        rebuilt.bodies = next.bodies; // cache members are not on the wire; keep them for the writer's sake
        states.push_back(next);
    }
    return states;
}

TEST(CodedDelta, EveryKindRoundTripsAgainstAPredictingOlderState)
{
    bitrep::delta_coder<World> coder;
    for (std::uint32_t seed = 1; seed <= 6; ++seed) {
        const std::vector<World> states = history(seed, 60);
        for (std::size_t i = 0; i < states.size(); ++i) {
            for (std::size_t distance : {std::size_t{1}, std::size_t{3}}) {
                const World& base = states[i >= distance ? i - distance : 0];
                const World& older = states[i >= 2 * distance ? i - 2 * distance : 0];
                const std::vector<std::uint8_t> packet = coded(coder, older, base, states[i]);
                World out;
                const bitrep::status st = coder.read(packet, older, base, out);
                ASSERT_TRUE(st.ok()) << "seed " << seed << " state " << i << ": " << st.message();
                EXPECT_TRUE(same(out, states[i])) << "seed " << seed << " state " << i;
            }
        }
    }
}

/// World coded by the engine's walk alone, or told its slots' changes and
/// given recorded decisions for the changed slots that `recorded` picks.
template <class Recorded>
std::vector<std::uint8_t> engine_coded(const World& older, const World& base, const World& current, bool hinted,
                                       Recorded recorded)
{
    using slot_type = std::optional<Body>;
    const bitrep::engine::field_entry& world = bitrep::engine::entry_v<World>;
    const bitrep::engine::field_entry& slot = bitrep::engine::entry_v<slot_type>;
    const auto& older_slots = older.bodies.slots();
    const auto& base_slots = base.bodies.slots();
    const auto& current_slots = current.bodies.slots();
    std::vector<std::uint32_t> changed;
    std::uint64_t before = 0;
    for (std::uint32_t id = 0; id < 12; ++id) {
        if (!bitrep::engine::same<scope::replication>(slot, &base_slots[id], &current_slots[id]))
            changed.push_back(id);
        if (!bitrep::engine::same<scope::replication>(slot, &older_slots[id], &base_slots[id]))
            before |= std::uint64_t{1} << id;
    }
    std::vector<std::uint32_t> ops;
    ops.reserve(4096); // the records point into it
    std::vector<bitrep::coded_slot> record_models(slot.slots);
    std::vector<bitrep::recorded_delta> records(changed.size());
    for (std::size_t k = 0; k < changed.size(); ++k) {
        if (!recorded(k))
            continue;
        const std::size_t start = ops.size();
        bitrep::failure_record failure;
        bitrep::basic_coded_record_stream<scope::replication> recorder(ops, record_models, failure);
        recorder.begin_entity();
        const std::uint32_t id = changed[k];
        slot_type target = current_slots[id];
        EXPECT_TRUE(bitrep::engine::changed(recorder, slot, &older_slots[id], &base_slots[id], &target));
        records[k] = {ops.data() + start, static_cast<std::uint32_t>(ops.size() - start), recorder.previous_changed()};
    }
    EXPECT_LE(ops.size(), ops.capacity());
    const bitrep::engine::element_hint hint{base_slots.data(), changed.data(), changed.size(), nullptr,
                                            nullptr,           current_slots.data(), &before, records.data(),
                                            &slot};
    std::vector<bitrep::coded_slot> models(world.slots);
    std::vector<std::uint8_t> out(8192);
    bitrep::failure_record failure;
    bitrep::basic_coded_write_stream<scope::replication> stream(out, models, failure);
    World value = current;
    std::size_t bytes = 0;
    const bool written =
        bitrep::engine::delta(stream, world, &older, &base, &value,
                              hinted ? bitrep::engine::element_hints(&hint, 1) : bitrep::engine::element_hints()) &&
        stream.finish(bytes);
    EXPECT_TRUE(written) << stream.failure_status("World").message();
    out.resize(bytes);
    return out;
}

// The replication server records a changed entity's decisions once and
// replays them into each packet that sends the same change: the packet is
// byte for byte the one coding the entity would make, whichever entities
// are replayed and whichever coded.
TEST(CodedDelta, RecordedEntitiesReplayToTheBytesOfTheirCoding)
{
    std::size_t replayed = 0;
    for (std::uint32_t seed = 21; seed <= 24; ++seed) {
        const std::vector<World> states = history(seed, 40);
        for (std::size_t i = 0; i < states.size(); ++i) {
            for (std::size_t distance : {std::size_t{1}, std::size_t{3}}) {
                const World& base = states[i >= distance ? i - distance : 0];
                const World& older = states[i >= 2 * distance ? i - 2 * distance : 0];
                const auto none = [](std::size_t) { return false; };
                const std::vector<std::uint8_t> direct = engine_coded(older, base, states[i], false, none);
                SCOPED_TRACE("seed " + std::to_string(seed) + " state " + std::to_string(i));
                EXPECT_EQ(engine_coded(older, base, states[i], true, none), direct);
                EXPECT_EQ(engine_coded(older, base, states[i], true, [](std::size_t) { return true; }), direct);
                EXPECT_EQ(engine_coded(older, base, states[i], true, [](std::size_t k) { return k % 2 == 1; }),
                          direct);
                replayed += direct.size() > 8 ? 1 : 0;
            }
        }
    }
    EXPECT_GT(replayed, 100u); // most packets changed entities
}

TEST(CodedDelta, AnUnchangedWorldCostsAFewBytes)
{
    bitrep::delta_coder<World> coder;
    const std::vector<World> states = history(9, 20);
    const std::vector<std::uint8_t> packet = coded(coder, states[18], states[19], states[19]);
    EXPECT_LE(packet.size(), 1u);
    World out;
    ASSERT_TRUE(coder.read(packet, states[18], states[19], out).ok());
    EXPECT_TRUE(same(out, states[19]));
}

TEST(CodedDelta, ValuesOutsideTheirRangeAreRefusedOnWrite)
{
    bitrep::delta_coder<World> coder;
    World base;
    base.bodies.emplace(0);
    World current = base;
    current.bodies[0].health = 101;
    std::vector<std::uint8_t> out(1024);
    std::size_t bytes = 0;
    const bitrep::status st = coder.write(out, bytes, base, base, current);
    EXPECT_EQ(st.code(), bitrep::error::value_out_of_range);
    EXPECT_NE(st.message().find("World.#0[0].#5"), std::string::npos) << st.message(); // bodies[0].health
}

TEST(CodedDelta, QuantizedValuesOutsideTheirRangeAreRefusedOnWrite)
{
    bitrep::delta_coder<World> coder;
    World base;
    base.bodies.emplace(0).x = 100.0f; // the top quantum, which 5000 would also be sent as
    const float outside[] = {5000.0f, -100.5f, std::numeric_limits<float>::infinity(),
                             std::numeric_limits<float>::quiet_NaN()};
    for (float value : outside) {
        World current = base;
        current.bodies[0].x = value;
        std::vector<std::uint8_t> out(1024);
        std::size_t bytes = 0;
        const bitrep::status st = coder.write(out, bytes, base, base, current);
        EXPECT_EQ(st.code(), bitrep::error::value_out_of_range) << value;
        EXPECT_NE(st.message().find("World.#0[0].#0"), std::string::npos) << st.message(); // bodies[0].x
    }
    // delta_small's coded residual too.
    World current = base;
    current.bodies[0].z = 50.5f;
    std::vector<std::uint8_t> out(1024);
    std::size_t bytes = 0;
    const bitrep::status st = coder.write(out, bytes, base, base, current);
    EXPECT_EQ(st.code(), bitrep::error::value_out_of_range) << st.message();
    EXPECT_NE(st.message().find("World.#0[0].#2"), std::string::npos) << st.message(); // bodies[0].z
}

TEST(CodedDelta, ATooSmallBufferIsReported)
{
    bitrep::delta_coder<World> coder;
    const std::vector<World> states = history(4, 30);
    std::vector<std::uint8_t> out(3);
    std::size_t bytes = 0;
    const bitrep::status st = coder.write(out, bytes, states[0], states[0], states[29]);
    EXPECT_EQ(st.code(), bitrep::error::buffer_too_small);
}

/// A hostile packet either fails or decodes to a state every codec accepts
/// (it encodes again), and never reads outside its bytes.
void expect_refused_or_encodable(bitrep::delta_coder<World>& coder, const std::vector<std::uint8_t>& packet,
                                 const World& older, const World& base)
{
    World out;
    if (!coder.read(packet, older, base, out).ok())
        return;
    std::vector<std::uint8_t> bytes(1 << 16);
    std::size_t written = 0;
    EXPECT_TRUE(bitrep::to_bytes(out, bytes, written).ok());
}

TEST(CodedDelta, EveryTruncationIsRefusedOrDecodesToAnEncodableState)
{
    bitrep::delta_coder<World> coder;
    const std::vector<World> states = history(5, 40);
    const std::vector<std::uint8_t> packet = coded(coder, states[30], states[35], states[39]);
    ASSERT_GT(packet.size(), 8u);
    std::size_t refused = 0;
    for (std::size_t keep = 0; keep < packet.size(); ++keep) {
        const std::vector<std::uint8_t> truncated(packet.begin(), packet.begin() + static_cast<std::ptrdiff_t>(keep));
        World out;
        refused += coder.read(truncated, states[30], states[35], out).ok() ? 0 : 1;
        expect_refused_or_encodable(coder, truncated, states[30], states[35]);
    }
    EXPECT_GT(refused, packet.size() / 2) << "most truncations run past the end and are refused";
}

// The decoder reads exactly the bytes the encoder wrote (before the zeros
// it dropped), so bytes after them are not the encoder's.
TEST(CodedDelta, BytesAfterThePacketAreRefusedAsTrailingData)
{
    bitrep::delta_coder<World> coder;
    const std::vector<World> states = history(7, 40);
    const std::vector<std::uint8_t> packet = coded(coder, states[30], states[35], states[39]);
    World out;
    ASSERT_TRUE(coder.read(packet, states[30], states[35], out).ok());
    std::vector<std::uint8_t> longer = packet;
    longer.insert(longer.end(), 5, 0x5a); // past the four bytes of lookahead the encoder may have dropped
    const bitrep::status st = coder.read(longer, states[30], states[35], out);
    EXPECT_EQ(st.code(), bitrep::error::trailing_data) << st.message();
}

TEST(CodedDelta, SingleBitFlipsAreRefusedOrDecodeToEncodableStates)
{
    bitrep::delta_coder<World> coder;
    const std::vector<World> states = history(6, 40);
    const std::vector<std::uint8_t> packet = coded(coder, states[30], states[35], states[39]);
    for (std::size_t bit = 0; bit < packet.size() * 8; ++bit) {
        std::vector<std::uint8_t> flipped = packet;
        flipped[bit / 8] = static_cast<std::uint8_t>(flipped[bit / 8] ^ (1u << (bit % 8)));
        expect_refused_or_encodable(coder, flipped, states[30], states[35]);
    }
}

TEST(QuatCode, AxisChangesRoundTripAndCostLessThanTheWholeCode)
{
    // A rotation turning steadily about an axis that takes it across the
    // largest-component boundary: the coded delta follows the axis change.
    struct Turning {
        bitrep::quat_code<9> q;
    };
    auto code_of = [](double angle) {
        // Rotation about (1, 1, 0)/sqrt 2 by angle: x = y = s/sqrt 2, z = 0, w = c.
        const double s = std::sin(angle / 2) / std::sqrt(2.0);
        const double c = std::cos(angle / 2);
        const double q[4] = {s, s, 0.0, c};
        std::uint8_t largest = 0;
        for (std::uint8_t i = 1; i < 4; ++i)
            if (std::fabs(q[i]) > std::fabs(q[largest]))
                largest = i;
        const double sign = q[largest] < 0 ? -1 : 1;
        Turning t;
        t.q.largest = largest;
        for (std::uint32_t i = 0, k = 0; i < 4; ++i)
            if (i != largest)
                t.q.small[k++] = static_cast<std::uint16_t>(std::lround((sign * q[i] * std::sqrt(2.0) + 1) / 2 * 511));
        return t;
    };
    bitrep::delta_coder<Turning> coder;
    std::size_t crossings = 0;
    for (int step = 2; step < 200; ++step) {
        const Turning older = code_of(0.03 * (step - 2));
        const Turning base = code_of(0.03 * (step - 1));
        const Turning now = code_of(0.03 * step);
        std::vector<std::uint8_t> out(64);
        std::size_t bytes = 0;
        ASSERT_TRUE(coder.write(out, bytes, older, base, now).ok());
        Turning back;
        ASSERT_TRUE(coder.read(std::span(out).first(bytes), older, base, back).ok());
        EXPECT_TRUE(back.q == now.q) << "step " << step;
        if (now.q.largest.value() != base.q.largest.value()) {
            ++crossings;
            EXPECT_LT(bytes * 8, 2u + 3u * 9u) << "an axis change at step " << step << " costs less than the whole code";
        }
    }
    EXPECT_GE(crossings, 1u);
}

TEST(CodedDelta, AQuatCrossingAnAxisRoundTripsAndCostsLessThanItsCode)
{
    // quat<9> turning steadily about (1, 1, 0)/sqrt 2: its largest component
    // moves from w to x; the coded delta follows the axis change.
    struct Turning {
        bitrep::quat<9> q;
    };
    auto at = [](double angle) {
        const auto s = static_cast<float>(std::sin(angle / 2) / std::sqrt(2.0));
        return Turning{bitrep::quat<9>{s, s, 0.f, static_cast<float>(std::cos(angle / 2))}};
    };
    auto largest = [](const Turning& t) {
        const float c[4] = {std::fabs(t.q.x), std::fabs(t.q.y), std::fabs(t.q.z), std::fabs(t.q.w)};
        return static_cast<int>(std::max_element(c, c + 4) - c);
    };
    bitrep::delta_coder<Turning> coder;
    std::size_t crossings = 0;
    for (int step = 2; step < 200; ++step) {
        // The receiver's states: each decoded as from_bytes would.
        Turning older, base, now;
        ASSERT_TRUE(bitrep::from_bytes(bitrep::to_bytes(at(0.03 * (step - 2))), older).ok());
        ASSERT_TRUE(bitrep::from_bytes(bitrep::to_bytes(at(0.03 * (step - 1))), base).ok());
        now = at(0.03 * step);
        std::vector<std::uint8_t> out(64);
        std::size_t bytes = 0;
        ASSERT_TRUE(coder.write(out, bytes, older, base, now).ok());
        Turning back;
        ASSERT_TRUE(coder.read(std::span(out).first(bytes), older, base, back).ok());
        EXPECT_TRUE((bitrep::same_on_wire<scope::replication>(back, now))) << "step " << step;
        Turning full;
        ASSERT_TRUE(bitrep::from_bytes(bitrep::to_bytes(now), full).ok());
        EXPECT_EQ(std::memcmp(&back, &full, sizeof back), 0) << "decodes to exactly what from_bytes gives, step " << step;
        if (largest(full) != largest(base)) {
            ++crossings;
            EXPECT_LT(bytes * 8, 2u + 3u * 9u) << "an axis change at step " << step << " costs less than the whole code";
        }
    }
    EXPECT_GE(crossings, 1u);
}

TEST(QuatCode, ReexpressingInItsOwnFrameChangesNothingAndAnotherFrameIsAlmostExact)
{
    std::mt19937 random(3);
    for (int i = 0; i < 2000; ++i) {
        // A random unit quaternion, coded with each possible largest axis.
        double q[4];
        double norm = 0;
        for (double& c : q) {
            c = static_cast<double>(random() % 20001) / 10000.0 - 1.0;
            norm += c * c;
        }
        for (double& c : q)
            c /= std::sqrt(norm);
        auto code_with = [&](std::uint8_t largest) {
            bitrep::quat_code<9> code;
            code.largest = largest;
            const double sign = q[largest] < 0 ? -1 : 1;
            for (std::uint32_t j = 0, k = 0; j < 4; ++j)
                if (j != largest)
                    code.small[k++] = static_cast<std::uint16_t>(
                        std::clamp<long>(std::lround((sign * q[j] * std::sqrt(2.0) + 1) / 2 * 511), 0, 511));
            return code;
        };
        std::uint8_t largest = 0;
        for (std::uint8_t j = 1; j < 4; ++j)
            if (std::fabs(q[j]) > std::fabs(q[largest]))
                largest = j;
        const bitrep::quat_code<9> code = code_with(largest);
        const auto same_frame = bitrep::detail::quat_code_in_frame(code, largest);
        for (std::size_t k = 0; k < 3; ++k)
            EXPECT_EQ(same_frame[k], code.small[k].value());
        // The runner-up axis: its code differs from the re-expressed one by
        // the rounding of the components (a unit or two).
        std::uint8_t second = largest == 0 ? 1 : 0;
        for (std::uint8_t j = 0; j < 4; ++j)
            if (j != largest && std::fabs(q[j]) > std::fabs(q[second]))
                second = j;
        const bitrep::quat_code<9> other = code_with(second);
        const auto moved = bitrep::detail::quat_code_in_frame(code, second);
        for (std::size_t k = 0; k < 3; ++k)
            EXPECT_LE(std::abs(moved[k] - static_cast<std::int64_t>(other.small[k].value())), 3) << "rotation " << i;
    }
}

TEST(CodedDelta, EveryNumericKindRoundTripsBetweenItsBoundaries)
{
    // Each number takes its minimum, its maximum, their neighbours and a
    // middle value, in every combination of older, base and current, so
    // that predictions run off both ends of each range.
    struct Numbers {
        bitrep::ranged<int, -7, 9> small;
        bitrep::ranged<std::int64_t, -5000000000, 5000000000> wide;
        bitrep::quantized<-10.f, 10.f, 0.5f> coarse;
        std::int64_t plain = 0;   // a span of 2^64: its ordinary encoding
        std::uint16_t word = 0;
        bitrep::quat_code<4> code;
    };
    auto at = [](int which) {
        Numbers n;
        const int pick = which % 5;
        const std::int64_t wide[] = {-5000000000, -4999999999, 0, 4999999999, 5000000000};
        const int small[] = {-7, -6, 1, 8, 9};
        const float coarse[] = {-10.f, -9.5f, 0.f, 9.5f, 10.f};
        const std::int64_t plain[] = {std::numeric_limits<std::int64_t>::min(), -1, 0, 1, std::numeric_limits<std::int64_t>::max()};
        const std::uint16_t word[] = {0, 1, 30000, 65534, 65535};
        n.small = small[pick];
        n.wide = wide[pick];
        n.coarse = coarse[pick];
        n.plain = plain[pick];
        n.word = word[pick];
        n.code.largest = static_cast<std::uint8_t>(which % 4);
        for (std::size_t k = 0; k < 3; ++k)
            n.code.small[k] = static_cast<std::uint16_t>(small[(pick + k) % 5] + 7); // 0..16, clamped below
        for (auto& k : n.code.small)
            k = static_cast<std::uint16_t>(std::min<int>(k.value(), 15));
        return n;
    };
    bitrep::delta_coder<Numbers> coder;
    std::size_t cases = 0;
    for (int o = 0; o < 20; ++o)
        for (int b = 0; b < 20; ++b)
            for (int c = 0; c < 20; ++c) {
                const Numbers older = at(o);
                const Numbers base = at(b);
                const Numbers current = at(c);
                std::vector<std::uint8_t> out(256);
                std::size_t bytes = 0;
                ASSERT_TRUE(coder.write(out, bytes, older, base, current).ok()) << o << " " << b << " " << c;
                Numbers back;
                ASSERT_TRUE(coder.read(std::span(out).first(bytes), older, base, back).ok()) << o << " " << b << " " << c;
                EXPECT_TRUE((bitrep::same_on_wire<scope::replication>(back, current))) << o << " " << b << " " << c;
                ++cases;
            }
    EXPECT_EQ(cases, 8000u);
}

TEST(CodedDelta, TheBitPackedDeltaIgnoresTheOlderState)
{
    const std::vector<World> states = history(8, 30);
    std::vector<std::uint8_t> a(4096);
    std::vector<std::uint8_t> b(4096);
    bitrep::basic_write_stream<scope::replication> three(a);
    bitrep::basic_write_stream<scope::replication> four(b);
    ASSERT_TRUE(bitrep::write_delta(three, states[20], states[29]));
    ASSERT_TRUE(bitrep::write_delta(four, states[10], states[20], states[29]));
    ASSERT_EQ(three.bit_position(), four.bit_position());
    const std::size_t used = three.flush();
    four.flush();
    EXPECT_TRUE(std::equal(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(used), b.begin()));
}

} // namespace
