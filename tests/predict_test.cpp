// A type's own prediction (predict.hpp): the coded delta sends residuals
// against what predict returns, both ends alike; a prediction left at the
// baseline, outside a field's range or not a rotation falls back to the
// library's own, byte for byte; hostile packets are still refused or decode
// inside every range.
#include <bitrep/bitrep.hpp>
#include <bitrep/coded_delta.hpp>
#include <bitrep/delta.hpp>
#include <bitrep/predict.hpp>
#include <bitrep/annotations/entity_array.hpp>
#include <bitrep/quat_code.hpp>
#include <bitrep/replication.hpp>

#include <gtest/gtest.h>

#include "replicate_packet.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <memory>
#include <random>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

namespace {

using X = bitrep::ranged<int, -100000, 100000>;

/// What each kind of prediction returns; `Which` picks the kind (none: the
/// ball has no prediction of its own).
enum class guess { none, physics, baseline, wild };

/// A ball thrown along x and up z: z(t) = z0 + v t - t^2, which a prediction
/// of constant acceleration gets exactly, from any two earlier states.
template <guess Which>
struct Ball {
    X x, z;
    bitrep::quantized<-100.f, 100.f, 0.01f> heat;
    bitrep::quat_code<9> code;
    bitrep::quat<9> spin;
    std::optional<bitrep::ranged<int, 0, 50>> charge;
    bool lit = false;

    static inline std::vector<std::array<std::uint32_t, 2>> calls; // (older_ticks, ahead) per call

    static Ball predict(const bitrep::history<Ball>& h, std::uint32_t ahead)
        requires(Which != guess::none)
    {
        calls.push_back({h.older_ticks, ahead});
        Ball p = h.baseline;
        if constexpr (Which == guess::physics) {
            if (h.older_ticks == 0)
                return p;
            const int back = static_cast<int>(h.older_ticks);
            const int t2 = static_cast<int>(ahead);
            p.x = h.baseline.x.value() + (h.baseline.x.value() - h.older.x.value()) / back * t2;
            p.z = h.baseline.z.value() + (h.baseline.z.value() - h.older.z.value()) / back * t2 - t2 * (back + t2);
        } else if constexpr (Which == guess::wild) {
            // Outside every range, an orientation that is not one, an
            // optional holding what the baseline's does not.
            std::memcpy(static_cast<void*>(&p.x), "\xff\xff\xff\x7f", 4);
            std::memcpy(static_cast<void*>(&p.z), "\x00\x00\x00\x80", 4);
            const float nan = std::nanf("");
            std::memcpy(static_cast<void*>(&p.heat), &nan, sizeof nan);
            std::memcpy(static_cast<void*>(&p.code.largest), "\x09", 1);
            const float zeros[4] = {0.f, 0.f, 0.f, 0.f};
            std::memcpy(static_cast<void*>(&p.spin), zeros, sizeof zeros);
            p.charge = h.baseline.charge ? std::nullopt : std::optional<bitrep::ranged<int, 0, 50>>(50);
        }
        return p;
    }
};

template <class B>
B ball_at(int t)
{
    B b;
    b.x = 7 * t;
    b.z = 20000 + 300 * t - t * t;
    b.heat = static_cast<float>(t % 40) * 0.25f;
    const float a = static_cast<float>(t) * 0.05f;
    b.code.largest = static_cast<std::uint8_t>((t / 25) % 4);
    b.code.small = {{{static_cast<std::uint16_t>(100 + t % 50)}, {256}, {static_cast<std::uint16_t>(300 - t % 60)}}};
    b.spin = bitrep::quat<9>{0.f, std::sin(a / 2), 0.f, std::cos(a / 2)};
    if (t % 7 < 4)
        b.charge = t % 51;
    b.lit = t % 5 == 0;
    return b;
}

template <class B>
using Team = std::array<B, 6>;

/// The team at tick t: ball i is i ticks ahead of ball 0, and ball 5 rests.
template <class B>
Team<B> team_at(int t)
{
    Team<B> team;
    for (int i = 0; i < 5; ++i)
        team[static_cast<std::size_t>(i)] = ball_at<B>(t + i);
    team[5] = ball_at<B>(0);
    return team;
}

template <class B>
std::vector<std::uint8_t> coded(const Team<B>& older, const Team<B>& base, const Team<B>& current,
                                bitrep::delta_ticks ticks)
{
    bitrep::delta_coder<Team<B>> coder;
    std::vector<std::uint8_t> out(4096);
    std::size_t bytes = 0;
    const bitrep::status st = coder.write(out, bytes, older, base, current, ticks);
    EXPECT_TRUE(st.ok()) << st.message();
    out.resize(bytes);
    return out;
}

template <class B>
void expect_round_trip(std::span<const std::uint8_t> packet, const Team<B>& older, const Team<B>& base,
                       const Team<B>& current, bitrep::delta_ticks ticks)
{
    bitrep::delta_coder<Team<B>> coder;
    Team<B> out;
    const bitrep::status st = coder.read(packet, older, base, out, ticks);
    ASSERT_TRUE(st.ok()) << st.message();
    EXPECT_TRUE(bitrep::same_on_wire<bitrep::scope::replication>(out, current));
}

/// The packets of ticks 40..99, each against the state `ahead` ticks before
/// it, predicted from the one `back` before that: their total bytes.
template <class B>
std::size_t run(int back, int ahead)
{
    std::size_t total = 0;
    for (int t = 40; t < 100; ++t) {
        const Team<B> older = team_at<B>(t - ahead - back);
        const Team<B> base = team_at<B>(t - ahead);
        const Team<B> current = team_at<B>(t);
        const bitrep::delta_ticks ticks{static_cast<std::uint32_t>(back), static_cast<std::uint32_t>(ahead)};
        const std::vector<std::uint8_t> packet = coded(older, base, current, ticks);
        expect_round_trip(packet, older, base, current, ticks);
        total += packet.size();
    }
    return total;
}

} // namespace

namespace game {
/// A type whose prediction is a free function beside it, found by
/// argument-dependent lookup (a type the game cannot change, say).
struct Rock {
    bitrep::ranged<int, 0, 10000> height;
};
inline std::size_t rock_predictions = 0;
inline Rock predict(const bitrep::history<Rock>& h, std::uint32_t ahead)
{
    ++rock_predictions;
    Rock p = h.baseline;
    p.height = std::max(0, h.baseline.height.value() - static_cast<int>(10 * ahead)); // it falls 10 a tick
    return p;
}
} // namespace game

namespace {

using BallFields = Ball<guess::none>;
using Physics = Ball<guess::physics>;
using Baseline = Ball<guess::baseline>;
using Wild = Ball<guess::wild>;

static_assert(bitrep::predicts<Physics> && !bitrep::predicts<BallFields>);

TEST(Predict, APredictionOfTheGamesOwnRoundTripsAndSavesWhatItKnows)
{
    // Unequal distances (4 back, 3 ahead): the library's extrapolation
    // assumes equal ones; the ball's own prediction scales by the ticks and
    // knows the pull on z.
    const std::size_t own = run<Physics>(4, 3);
    const std::size_t library = run<BallFields>(4, 3);
    EXPECT_LT(own * 10, library * 9) << own << " bytes against " << library;
    // Where the library's is right about x (equal distances) the ball's
    // still knows z.
    EXPECT_LT(run<Physics>(3, 3), run<BallFields>(3, 3));
}

TEST(Predict, AFreePredictFoundByArgumentDependentLookupIsUsed)
{
    static_assert(bitrep::predicts<game::Rock>);
    using Rocks = std::array<game::Rock, 8>;
    Rocks base{};
    for (std::size_t i = 0; i < base.size(); ++i)
        base[i].height = 5000 + static_cast<int>(i * 37);
    Rocks current = base;
    for (game::Rock& r : current)
        r.height = r.height.value() - 30; // 3 ticks of falling: exactly as predicted
    game::rock_predictions = 0;
    bitrep::delta_coder<Rocks> coder;
    std::vector<std::uint8_t> out(256);
    std::size_t predicted_bytes = 0;
    ASSERT_TRUE(coder.write(out, predicted_bytes, base, base, current, {0, 3}).ok());
    Rocks decoded;
    ASSERT_TRUE(coder.read(std::span<const std::uint8_t>(out).first(predicted_bytes), base, base, decoded, {0, 3}).ok());
    EXPECT_EQ(game::rock_predictions, 16u); // 8 rocks, each end
    for (std::size_t i = 0; i < base.size(); ++i)
        EXPECT_EQ(decoded[i].height.value(), current[i].height.value());
    // The same fall one tick ahead is mispredicted by 20 a rock: more bytes.
    std::size_t missed_bytes = 0;
    ASSERT_TRUE(coder.write(out, missed_bytes, base, base, current, {0, 1}).ok());
    EXPECT_LT(predicted_bytes, missed_bytes);
}

TEST(Predict, ThePredictionIsGivenTheTicksAndNoOlderStateWhenThereIsNone)
{
    Physics::calls.clear();
    const Team<Physics> older = team_at<Physics>(10);
    const Team<Physics> base = team_at<Physics>(14);
    const Team<Physics> current = team_at<Physics>(17);
    const std::vector<std::uint8_t> packet = coded(older, base, current, {4, 3});
    expect_round_trip(packet, older, base, current, {4, 3});
    // Balls 0-4 changed, ball 5 did not: 5 calls writing, 5 reading.
    ASSERT_EQ(Physics::calls.size(), 10u);
    for (const auto& call : Physics::calls)
        EXPECT_EQ(call, (std::array<std::uint32_t, 2>{4, 3}));

    Physics::calls.clear();
    const std::vector<std::uint8_t> alone = coded(base, base, current, {4, 3});
    expect_round_trip(alone, base, base, current, {4, 3});
    ASSERT_EQ(Physics::calls.size(), 10u);
    for (const auto& call : Physics::calls)
        EXPECT_EQ(call, (std::array<std::uint32_t, 2>{0, 3})); // the baseline alone: no older state
}

TEST(Predict, APredictionLeftAtTheBaselineOrOutsideEveryRangeCodesAsTheLibrarysOwn)
{
    for (const auto& [back, ahead] : {std::array<int, 2>{4, 3}, {6, 6}, {1, 9}}) {
        for (int t = 40; t < 70; ++t) {
            const bitrep::delta_ticks ticks{static_cast<std::uint32_t>(back), static_cast<std::uint32_t>(ahead)};
            const std::vector<std::uint8_t> library =
                coded(team_at<BallFields>(t - ahead - back), team_at<BallFields>(t - ahead), team_at<BallFields>(t), ticks);
            const std::vector<std::uint8_t> at_baseline =
                coded(team_at<Baseline>(t - ahead - back), team_at<Baseline>(t - ahead), team_at<Baseline>(t), ticks);
            const std::vector<std::uint8_t> wild =
                coded(team_at<Wild>(t - ahead - back), team_at<Wild>(t - ahead), team_at<Wild>(t), ticks);
            EXPECT_EQ(at_baseline, library) << "tick " << t;
            EXPECT_EQ(wild, library) << "tick " << t;
            expect_round_trip(wild, team_at<Wild>(t - ahead - back), team_at<Wild>(t - ahead), team_at<Wild>(t), ticks);
        }
    }
}

TEST(Predict, HostilePacketsAreRefusedOrDecodeInsideEveryRange)
{
    const Team<Physics> older = team_at<Physics>(30);
    const Team<Physics> base = team_at<Physics>(34);
    const std::vector<std::uint8_t> packet = coded(older, base, team_at<Physics>(37), {4, 3});
    std::size_t refused = 0;
    std::size_t decoded = 0;
    auto check = [&](std::span<const std::uint8_t> bytes) {
        bitrep::delta_coder<Team<Physics>> coder;
        Team<Physics> out;
        if (!coder.read(bytes, older, base, out, {4, 3}).ok()) {
            ++refused;
            return;
        }
        ++decoded;
        // A decoded state is one the writer accepts again.
        std::vector<std::uint8_t> again(4096);
        std::size_t written = 0;
        bitrep::delta_coder<Team<Physics>> writer;
        EXPECT_TRUE(writer.write(again, written, older, base, out, {4, 3}).ok());
    };
    for (std::size_t n = 0; n < packet.size(); ++n)
        check(std::span<const std::uint8_t>(packet).first(n));
    for (std::size_t bit = 0; bit < packet.size() * 8; ++bit) {
        std::vector<std::uint8_t> flipped = packet;
        flipped[bit / 8] = static_cast<std::uint8_t>(flipped[bit / 8] ^ (1u << (bit % 8)));
        check(flipped);
    }
    EXPECT_GT(refused, 0u);
    EXPECT_GT(decoded, 0u);
}

// ---------------------------------------------------------------- in replication

/// A dot that moves now and then at its own velocity, and predicts itself
/// as moving on at the pace it moved between the two states it is given,
/// pulled down y.
struct Dot {
    bitrep::ranged<int, -100000, 100000> x, y;
    bitrep::ranged<int, -50, 50> vx, vy; // not predicted: left to the library

    static inline std::size_t calls_with_older = 0;

    static Dot predict(const bitrep::history<Dot>& h, std::uint32_t ahead)
    {
        Dot p = h.baseline;
        if (h.older_ticks == 0)
            return p;
        ++calls_with_older;
        const auto on = [&](int base, int older) {
            return base + (base - older) * static_cast<int>(ahead) / static_cast<int>(h.older_ticks);
        };
        p.x = std::clamp(on(h.baseline.x.value(), h.older.x.value()), -100000, 100000);
        // A pull that grows with the time spanned, not with the ratio of
        // the two distances alone, like gravity's.
        const int pull = static_cast<int>(ahead * (h.older_ticks + ahead));
        p.y = std::clamp(on(h.baseline.y.value(), h.older.y.value()) - pull, -100000, 100000);
        return p;
    }
};

struct Dots {
    bitrep::entity_array<Dot, 96> dots;
};

TEST(Predict, ClientsSharingRecordedEntitiesAtDifferentDistancesGetTheBytesOfAClientAlone)
{
    // Four clients of one server, acks 1, 2, 3 and 6 ticks late, the last
    // two losing one packet in 6: their baselines lie at different
    // distances, and a dot that rested between them has the same values at
    // each, so the server's recorded entities must tell the distances apart
    // (a prediction scales by them). Each client has a twin on a server of
    // its own that codes every packet itself: the bytes must be the same.
    Dot::calls_with_older = 0;
    bitrep::replication_options options;
    bitrep::replication_server<Dots> shared(options);
    std::vector<std::unique_ptr<bitrep::replication_server<Dots>>> alone;
    const std::array<std::size_t, 4> delay{1, 2, 3, 6};
    std::vector<bitrep::client_id> ids, twin_ids;
    for (std::size_t k = 0; k < delay.size(); ++k) {
        ids.push_back(shared.add_client());
        alone.push_back(std::make_unique<bitrep::replication_server<Dots>>(options));
        twin_ids.push_back(alone.back()->add_client());
    }
    std::vector<bitrep::replication_client<Dots>> clients(delay.size(), bitrep::replication_client<Dots>(options));
    std::vector<std::deque<std::vector<std::uint8_t>>> acks(delay.size());
    Dots world;
    std::mt19937 random(11);
    for (std::size_t id = 0; id < 96; ++id) {
        Dot& d = world.dots.emplace(id);
        d.x = static_cast<int>(random() % 2001) - 1000;
        d.y = static_cast<int>(random() % 2001) - 1000;
        d.vx = static_cast<int>(random() % 41) - 20;
        d.vy = static_cast<int>(random() % 41) - 20;
    }
    for (int tick = 0; tick < 240; ++tick) {
        for (auto [id, d] : world.dots) {
            if (random() % 4 == 0) { // moves a tick in four
                d.x = std::clamp(d.x.value() + d.vx.value(), -100000, 100000);
                d.y = std::clamp(d.y.value() + d.vy.value(), -100000, 100000);
            }
            if (random() % 50 == 0)
                d.vx = static_cast<int>(random() % 41) - 20;
        }
        shared.update(world);
        for (std::size_t k = 0; k < delay.size(); ++k) {
            alone[k]->update(world);
            const auto bytes = test_replication::replicate_or_fail(shared, ids[k]);
            const std::vector<std::uint8_t> packet(bytes.begin(), bytes.end());
            const auto twin = test_replication::replicate_or_fail(*alone[k], twin_ids[k]);
            ASSERT_TRUE(std::equal(packet.begin(), packet.end(), twin.begin(), twin.end()))
                << "client " << k << ", tick " << tick;
            const bool lost = k >= 2 && tick % 6 == static_cast<int>(k);
            if (!lost) {
                const bitrep::status result = clients[k].receive(packet);
                ASSERT_TRUE(result) << "client " << k << ", tick " << tick << ": " << result.message();
            }
            if (!clients[k].has_state())
                continue;
            const auto ack = clients[k].ack();
            acks[k].emplace_back(ack.begin(), ack.end());
            if (acks[k].size() > delay[k]) {
                ASSERT_TRUE(shared.receive(ids[k], acks[k].front()));
                ASSERT_TRUE(alone[k]->receive(twin_ids[k], acks[k].front()));
                acks[k].pop_front();
            }
        }
    }
    EXPECT_GT(Dot::calls_with_older, 1000u) << "the dots' own prediction ran, with older states";
    for (std::size_t k = 0; k < delay.size(); ++k) {
        const Dots& held = clients[k].state();
        for (auto [id, d] : world.dots) {
            const Dot* got = held.dots.find(id);
            ASSERT_NE(got, nullptr);
            // The last few ticks may not have arrived yet for the lossy ones;
            // the first two clients lost nothing.
            if (k < 2) {
                EXPECT_EQ(got->x.value(), d.x.value()) << "client " << k << ", dot " << id;
                EXPECT_EQ(got->y.value(), d.y.value()) << "client " << k << ", dot " << id;
            }
        }
    }
}

} // namespace
