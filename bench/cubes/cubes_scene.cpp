// cubes_scene: the networked-physics cube scene of the 2015 snapshot
// compression articles, simulated with ODE, written in the challenge's raw
// format (cube_frames.hpp) for cubes_bandwidth and for any public entry.
//
//   cubes_scene --out FILE [--script NAME] [--seed N] [--frames N] [--cubes N]
//
// Ground at z = 0; cube 0 is the player (1.5 m, from (0, 0, 10)); the other
// cubes (0.4 m) stand on a square grid 1 m apart centred on the origin. 60
// steps a second, auto-disable after 0.5 s at rest, friction 200, damping
// 0.001, no bounce, ERP 0.25, CFM 0.001. The player follows a seeded script.
// The scripts:
//   play    (the default) plays like a person: it rolls across the field in
//           changing directions, pauses, and now and then pulls the cubes
//           near it in and blows them away
//   air     keeps cubes in the air: fewer pauses, more and wider blows, and
//           juggling, which throws every cube on the ground near the player
//           back up, spinning
//   settle  the cubes start in the air, spread and turned, and fall; the
//           player plays for 12 s, then mostly rests with short rolls, and
//           from 25 s on only rests, so the scene comes to rest
//   storm   everything moves: a blast every 0.15-0.4 s most of the time,
//           centred near a cube drawn at random (so the blasts follow the
//           cubes wherever they were blown), between wide blows and rolls
// The first frame is written 6 times (the first packets' baseline), then
// `frames` simulated frames.
//
// The same seed gives the same file on the same machine (ODE is
// deterministic for a given binary, and the script draws its numbers from
// mt19937_64's raw output, not from a library distribution).
#include <ode/ode.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cube_frames.hpp"

namespace {

constexpr double step_seconds = 1.0 / 60.0;
constexpr double player_size = 1.5;
constexpr double cube_size = 0.4;
constexpr double max_axis_speed = 16.0;  // m/s: 6 frames then move at most 1.6 m (819 units) per axis
constexpr double field_half_extent = 31.0; // walls keep every cube inside the format's x, y bounds
constexpr double ceiling = 15.5;           // and below its z bound
constexpr double player_speed = 6.0;       // m/s across the ground: a person's pace through the field

/// Numbers in [0, 1) from the engine's raw output: the same on every
/// standard library (std::uniform_real_distribution is not).
class script_random {
public:
    explicit script_random(std::uint64_t seed) : engine_(seed) {}
    double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

private:
    std::mt19937_64 engine_;
};

enum class script { play, air, settle, storm };

/// What the player does for a while.
struct action {
    enum kind { roll, rest, attract_and_blow, juggle, blast } what = rest;
    double seconds = 1.0;
    double direction = 0.0; // radians, for roll
    double reach = 7.0;     // metres from the player (attract_and_blow, juggle) or the centre (blast)
    double x = 0.0, y = 0.0; // the centre of a blast
};

struct scene {
    dWorldID world = nullptr;
    dSpaceID space = nullptr;
    dJointGroupID contacts = nullptr;
    std::vector<dBodyID> bodies;          // index = cube index, 0 = player
    std::vector<std::uint8_t> interacting; // touching the player or moved because of it
};

int cube_index(dBodyID body)
{
    return static_cast<int>(reinterpret_cast<std::intptr_t>(dBodyGetData(body)));
}

void near_callback(void* data, dGeomID g1, dGeomID g2)
{
    auto& s = *static_cast<scene*>(data);
    dBodyID b1 = dGeomGetBody(g1);
    dBodyID b2 = dGeomGetBody(g2);
    const bool awake1 = b1 != nullptr && dBodyIsEnabled(b1);
    const bool awake2 = b2 != nullptr && dBodyIsEnabled(b2);
    if (!awake1 && !awake2)
        return; // resting cubes on resting cubes or the ground: nothing to solve
    std::array<dContact, 8> contact{};
    const int n = dCollide(g1, g2, static_cast<int>(contact.size()), &contact[0].geom, sizeof(dContact));
    if (n == 0)
        return;
    for (int i = 0; i < n; ++i) {
        contact[static_cast<std::size_t>(i)].surface.mode = 0; // no bounce
        contact[static_cast<std::size_t>(i)].surface.mu = 200.0;
        dJointID joint = dJointCreateContact(s.world, s.contacts, &contact[static_cast<std::size_t>(i)]);
        dJointAttach(joint, b1, b2);
    }
    // Interaction spreads from the player through touching, moving cubes.
    if (b1 != nullptr && b2 != nullptr) {
        const int i1 = cube_index(b1);
        const int i2 = cube_index(b2);
        if (s.interacting[static_cast<std::size_t>(i1)] && awake1)
            s.interacting[static_cast<std::size_t>(i2)] = 1;
        if (s.interacting[static_cast<std::size_t>(i2)] && awake2)
            s.interacting[static_cast<std::size_t>(i1)] = 1;
    }
}

dBodyID add_box(scene& s, int index, double size, double x, double y, double z)
{
    dBodyID body = dBodyCreate(s.world);
    dMass mass;
    dMassSetBox(&mass, 1.0, size, size, size);
    dBodySetMass(body, &mass);
    dBodySetPosition(body, x, y, z);
    dBodySetData(body, reinterpret_cast<void*>(static_cast<std::intptr_t>(index)));
    dGeomID geom = dCreateBox(s.space, size, size, size);
    dGeomSetBody(geom, body);
    return body;
}

void build(scene& s, std::size_t cube_count)
{
    s.world = dWorldCreate();
    s.space = dHashSpaceCreate(nullptr);
    s.contacts = dJointGroupCreate(0);
    dWorldSetGravity(s.world, 0, 0, -9.8);
    dWorldSetERP(s.world, 0.25);
    dWorldSetCFM(s.world, 0.001);
    dWorldSetQuickStepNumIterations(s.world, 20);
    dWorldSetAutoDisableFlag(s.world, 1);
    dWorldSetAutoDisableTime(s.world, 0.5);
    dWorldSetAutoDisableSteps(s.world, 0);
    dWorldSetLinearDamping(s.world, 0.001);
    dWorldSetAngularDamping(s.world, 0.001);
    dWorldSetContactSurfaceLayer(s.world, 0.001);
    dCreatePlane(s.space, 0, 0, 1, 0); // ground
    dCreatePlane(s.space, 1, 0, 0, -field_half_extent);
    dCreatePlane(s.space, -1, 0, 0, -field_half_extent);
    dCreatePlane(s.space, 0, 1, 0, -field_half_extent);
    dCreatePlane(s.space, 0, -1, 0, -field_half_extent);
    dCreatePlane(s.space, 0, 0, -1, -ceiling);

    s.bodies.push_back(add_box(s, 0, player_size, 0, 0, 10));
    dBodySetAutoDisableFlag(s.bodies[0], 0); // the player is always awake
    const std::size_t others = cube_count - 1;
    const auto side = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(others))));
    for (std::size_t i = 0; i < others; ++i) {
        const double gx = static_cast<double>(i % side) - (static_cast<double>(side) - 1) / 2;
        const double gy = static_cast<double>(i / side) - (static_cast<double>(side) - 1) / 2;
        s.bodies.push_back(add_box(s, static_cast<int>(i + 1), cube_size, gx, gy, cube_size / 2));
    }
    s.interacting.assign(cube_count, 0);
    s.interacting[0] = 1;
}

/// A roll of `lo` to `hi` seconds: in a new direction, or back towards the
/// middle when near the edge of the grid, like a person would.
action roll_for(script_random& random, const dReal* player_position, double lo, double hi)
{
    action a;
    a.what = action::roll;
    a.seconds = random.uniform(lo, hi);
    const double home = std::atan2(-player_position[1], -player_position[0]);
    const double far = std::hypot(player_position[0], player_position[1]);
    a.direction = far > 9.0 ? home + random.uniform(-0.7, 0.7) : random.uniform(-M_PI, M_PI);
    return a;
}

/// The next thing the player does in `play`: mostly rolling in a new
/// direction, now and then a pause (so cubes come to rest) or a pull and blow.
action next_play_action(script_random& random, const dReal* player_position)
{
    action a;
    const double pick = random.uniform();
    if (pick < 0.55) {
        a = roll_for(random, player_position, 0.7, 3.0);
    } else if (pick < 0.75) {
        a.what = action::rest;
        a.seconds = random.uniform(1.0, 5.0);
    } else {
        a.what = action::attract_and_blow;
        a.seconds = random.uniform(1.0, 2.5);
    }
    return a;
}

/// `air`: short pauses, wide blows and juggling.
action next_air_action(script_random& random, const dReal* player_position)
{
    action a;
    const double pick = random.uniform();
    if (pick < 0.35) {
        a = roll_for(random, player_position, 0.7, 2.0);
    } else if (pick < 0.45) {
        a.what = action::rest;
        a.seconds = random.uniform(0.5, 1.5);
    } else if (pick < 0.7) {
        a.what = action::attract_and_blow;
        a.seconds = random.uniform(1.0, 2.0);
        a.reach = random.uniform(7.0, 10.0);
    } else {
        a.what = action::juggle;
        a.seconds = random.uniform(2.0, 5.0);
        a.reach = random.uniform(6.0, 10.0);
    }
    return a;
}

/// `settle`: `play` for the first 12 s, then mostly pauses with short rolls,
/// and only pauses from 25 s on.
action next_settle_action(script_random& random, const dReal* player_position, double now)
{
    if (now < 12.0)
        return next_play_action(random, player_position);
    action a;
    if (now < 25.0 && random.uniform() < 0.3)
        return roll_for(random, player_position, 0.5, 1.5);
    a.what = action::rest;
    a.seconds = random.uniform(2.0, 6.0);
    return a;
}

/// `storm`: blasts all over the field most of the time, each centred on a
/// cube drawn at random (so they follow the cubes where they were blown),
/// and the player's rolls and wide blows.
action next_storm_action(const scene& s, script_random& random)
{
    action a;
    const double pick = random.uniform();
    if (pick < 0.1) {
        a = roll_for(random, dBodyGetPosition(s.bodies[0]), 0.5, 1.5);
    } else if (pick < 0.2) {
        a.what = action::attract_and_blow;
        a.seconds = random.uniform(0.8, 1.5);
        a.reach = random.uniform(8.0, 12.0);
    } else {
        a.what = action::blast;
        a.seconds = random.uniform(0.15, 0.4);
        a.reach = random.uniform(8.0, 14.0);
        const auto others = static_cast<double>(s.bodies.size() - 1);
        const auto centre = 1 + std::min(s.bodies.size() - 2, static_cast<std::size_t>(random.uniform() * others));
        const dReal* q = dBodyGetPosition(s.bodies[centre]);
        a.x = q[0] + random.uniform(-2.0, 2.0);
        a.y = q[1] + random.uniform(-2.0, 2.0);
    }
    return a;
}

/// The next thing the player does; `now` is the scene's time.
action next_action(script which, const scene& s, script_random& random, double now)
{
    const dReal* player_position = dBodyGetPosition(s.bodies[0]);
    switch (which) {
    case script::air: return next_air_action(random, player_position);
    case script::settle: return next_settle_action(random, player_position, now);
    case script::storm: return next_storm_action(s, random);
    case script::play: break;
    }
    return next_play_action(random, player_position);
}

/// Throws a cube: `vx`, `vy` and `vz` in m/s, a random spin.
void throw_cube(scene& s, std::size_t i, double vx, double vy, double vz, script_random& random)
{
    dBodyID body = s.bodies[i];
    dBodyEnable(body);
    s.interacting[i] = 1;
    dBodySetLinearVel(body, vx, vy, vz);
    dBodySetAngularVel(body, random.uniform(-8.0, 8.0), random.uniform(-8.0, 8.0), random.uniform(-8.0, 8.0));
}

/// Forces of the current action for one step; `elapsed` is the action's time so far.
void apply_controls(scene& s, const action& a, double elapsed, script_random& random)
{
    dBodyID player = s.bodies[0];
    const dReal* p = dBodyGetPosition(player);
    if (a.what == action::roll) {
        const double dx = std::cos(a.direction);
        const double dy = std::sin(a.direction);
        // Roll: torque about the horizontal axis across the direction, and a push.
        dBodyAddTorque(player, -dy * 45.0, dx * 45.0, 0.0);
        dBodyAddForce(player, dx * 25.0, dy * 25.0, 0.0);
        return;
    }
    if (a.what == action::juggle) {
        // Every cube near the player that is on the ground and not falling
        // goes back up.
        for (std::size_t i = 1; i < s.bodies.size(); ++i) {
            const dReal* q = dBodyGetPosition(s.bodies[i]);
            const dReal* v = dBodyGetLinearVel(s.bodies[i]);
            if (std::hypot(q[0] - p[0], q[1] - p[1]) > a.reach || q[2] > 0.6 || std::fabs(v[2]) > 1.0)
                continue;
            throw_cube(s, i, random.uniform(-2.5, 2.5), random.uniform(-2.5, 2.5), random.uniform(5.0, 9.0), random);
        }
        return;
    }
    if (a.what == action::blast) {
        if (elapsed > 0.0)
            return; // one blast, at the start of the action
        for (std::size_t i = 1; i < s.bodies.size(); ++i) {
            const dReal* q = dBodyGetPosition(s.bodies[i]);
            const double rx = q[0] - a.x, ry = q[1] - a.y;
            const double distance = std::hypot(rx, ry);
            if (distance > a.reach || distance < 1e-6)
                continue;
            const double speed = random.uniform(6.0, 13.0) * (1.0 - 0.5 * distance / a.reach);
            throw_cube(s, i, rx / distance * speed, ry / distance * speed, random.uniform(3.0, 9.0), random);
        }
        return;
    }
    if (a.what != action::attract_and_blow)
        return;
    const double blow_at = a.seconds - 0.2; // the last 0.2 s blow, the rest pulls
    const bool blowing = elapsed >= blow_at;
    const double reach = a.reach;
    for (std::size_t i = 1; i < s.bodies.size(); ++i) {
        dBodyID body = s.bodies[i];
        const dReal* q = dBodyGetPosition(body);
        const double rx = q[0] - p[0], ry = q[1] - p[1], rz = q[2] - p[2];
        const double distance = std::sqrt(rx * rx + ry * ry + rz * rz);
        if (distance > reach || distance < 1e-6)
            continue;
        dBodyEnable(body);
        s.interacting[i] = 1;
        const dReal mass = 0.064; // 0.4^3 at density 1
        if (blowing) {
            // Out and up, under the format's per-axis speed bound.
            const double speed = random.uniform(8.0, 13.0);
            dBodySetLinearVel(body, rx / distance * speed, ry / distance * speed, random.uniform(4.0, 9.0));
        } else {
            // In towards a point above the player, strongest close by.
            const double pull = 14.0 * (1.0 - distance / reach) + 4.0;
            dBodyAddForce(body, -rx / distance * pull * mass, -ry / distance * pull * mass,
                          (2.0 - rz) * 3.0 * mass + 9.8 * mass * 0.9);
        }
    }
}

/// Keeps every cube inside the speed the format's data assumes, and the
/// player at a walking pace.
void limit_speeds(scene& s)
{
    const dReal* v = dBodyGetLinearVel(s.bodies[0]);
    const double across = std::hypot(v[0], v[1]);
    if (across > player_speed)
        dBodySetLinearVel(s.bodies[0], v[0] * player_speed / across, v[1] * player_speed / across, v[2]);
    for (dBodyID body : s.bodies) {
        if (!dBodyIsEnabled(body))
            continue;
        const dReal* v = dBodyGetLinearVel(body);
        dBodySetLinearVel(body, std::clamp<double>(v[0], -max_axis_speed, max_axis_speed),
                          std::clamp<double>(v[1], -max_axis_speed, max_axis_speed),
                          std::clamp<double>(v[2], -max_axis_speed, max_axis_speed));
    }
}

std::int32_t quantize_position(double meters, std::int32_t lo, std::int32_t hi)
{
    const double units = std::floor(meters * cubes::units_per_meter + 0.5);
    return static_cast<std::int32_t>(std::clamp<double>(units, lo, hi));
}

/// Smallest three: the largest component's index over (x, y, z, w), the sign
/// chosen so that it is positive, the other three in [0, 511].
void quantize_orientation(const dReal* q_wxyz, cubes::cube_state& out)
{
    const std::array<double, 4> q = {q_wxyz[1], q_wxyz[2], q_wxyz[3], q_wxyz[0]};
    int largest = 0;
    for (int k = 1; k < 4; ++k)
        if (std::fabs(q[static_cast<std::size_t>(k)]) > std::fabs(q[static_cast<std::size_t>(largest)]))
            largest = k;
    const double sign = q[static_cast<std::size_t>(largest)] < 0 ? -1.0 : 1.0;
    constexpr double limit = 0.70710678118654752;
    std::array<std::int32_t, 3> small{};
    for (int k = 0, j = 0; k < 4; ++k) {
        if (k == largest)
            continue;
        const double normal = (sign * q[static_cast<std::size_t>(k)] + limit) / (2 * limit);
        const double quantum = std::floor(normal * cubes::orientation_max + 0.5);
        small[static_cast<std::size_t>(j++)] = static_cast<std::int32_t>(std::clamp<double>(quantum, 0, cubes::orientation_max));
    }
    out.largest = largest;
    out.a = small[0];
    out.b = small[1];
    out.c = small[2];
}

void capture(const scene& s, cubes::cube_state* frame)
{
    for (std::size_t i = 0; i < s.bodies.size(); ++i) {
        const dReal* p = dBodyGetPosition(s.bodies[i]);
        cubes::cube_state& c = frame[i];
        c.x = quantize_position(p[0], -cubes::position_bound_xy, cubes::position_bound_xy);
        c.y = quantize_position(p[1], -cubes::position_bound_xy, cubes::position_bound_xy);
        c.z = quantize_position(p[2], 0, cubes::position_bound_z);
        quantize_orientation(dBodyGetQuaternion(s.bodies[i]), c);
        c.interacting = s.interacting[i];
    }
}

/// The fraction of cubes that differ from the frame 6 before, per packet:
/// its spread, and the largest move on any axis (the format assumes <= 1023).
void print_summary(const cubes::frame_data& data)
{
    std::vector<double> fractions;
    std::int32_t largest_move = 0;
    const std::size_t n = data.cube_count;
    for (std::size_t f = cubes::baseline_distance; f < data.frame_count(); ++f) {
        const cubes::cube_state* now = data.frame(f);
        const cubes::cube_state* base = data.frame(f - cubes::baseline_distance);
        std::size_t changed = 0;
        for (std::size_t i = 0; i < n; ++i) {
            changed += now[i] == base[i] ? 0 : 1;
            largest_move = std::max({largest_move, std::abs(now[i].x - base[i].x), std::abs(now[i].y - base[i].y),
                                     std::abs(now[i].z - base[i].z)});
        }
        fractions.push_back(static_cast<double>(changed) / static_cast<double>(n));
    }
    std::vector<double> sorted = fractions;
    std::sort(sorted.begin(), sorted.end());
    auto at = [&](double q) { return 100.0 * sorted[static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1))]; };
    std::printf("cubes changed against 6 frames earlier, per packet (%zu packets):\n", sorted.size());
    std::printf("  min %.1f%%  p10 %.1f%%  p25 %.1f%%  median %.1f%%  p75 %.1f%%  p90 %.1f%%  max %.1f%%\n", at(0), at(0.1),
                at(0.25), at(0.5), at(0.75), at(0.9), at(1.0));
    const std::array<double, 7> edges = {0.0, 0.01, 0.05, 0.10, 0.25, 0.50, 1.01};
    std::printf("  packets by fraction changed:");
    for (std::size_t b = 0; b + 1 < edges.size(); ++b) {
        const auto count = std::count_if(fractions.begin(), fractions.end(),
                                         [&](double x) { return x >= edges[b] && x < edges[b + 1]; });
        std::printf("  [%g%%, %g%%) %ld", 100 * edges[b], std::min(100.0, 100 * edges[b + 1]), static_cast<long>(count));
    }
    std::printf("\n  largest move of a cube on one axis in 6 frames: %d units (the format allows 1023)\n", largest_move);
}

/// `settle`'s start: every cube but the player lifted 0.5 to 6 m, moved up
/// to 0.3 m on the ground and turned at random, to fall when the scene starts.
void lift_and_turn(scene& s, script_random& random)
{
    for (std::size_t i = 1; i < s.bodies.size(); ++i) {
        const dReal* q = dBodyGetPosition(s.bodies[i]);
        dBodySetPosition(s.bodies[i], q[0] + random.uniform(-0.3, 0.3), q[1] + random.uniform(-0.3, 0.3),
                         q[2] + random.uniform(0.5, 6.0));
        // A uniform rotation (Shoemake): four numbers from three uniforms.
        const double u1 = random.uniform(), u2 = random.uniform(0, 2 * M_PI), u3 = random.uniform(0, 2 * M_PI);
        const dQuaternion turn = {std::sqrt(u1) * std::cos(u3), std::sqrt(1 - u1) * std::sin(u2),
                                  std::sqrt(1 - u1) * std::cos(u2), std::sqrt(u1) * std::sin(u3)};
        dBodySetQuaternion(s.bodies[i], turn);
    }
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app{"cubes_scene: the networked-physics cube scene, in the challenge's raw format"};
    std::string out;
    std::uint64_t seed = 1;
    std::size_t frames = 2837;
    std::size_t cube_count = cubes::default_cube_count;
    std::string script_name = "play";
    const std::map<std::string, script> scripts = {
        {"play", script::play}, {"air", script::air}, {"settle", script::settle}, {"storm", script::storm}};
    app.add_option("--out", out, "file to write")->required();
    app.add_option("--script", script_name, "what happens: play (the default), air, settle or storm")
        ->check(CLI::IsMember({"play", "air", "settle", "storm"}));
    app.add_option("--seed", seed, "the player's script");
    app.add_option("--frames", frames, "simulated frames after the 6 copies of the first");
    app.add_option("--cubes", cube_count, "cubes, the player included")->check(CLI::Range(2, 65536));
    CLI11_PARSE(app, argc, argv);
    const script which = scripts.at(script_name);

    dInitODE2(0);
    dRandSetSeed(static_cast<unsigned long>(seed));
    scene s;
    build(s, cube_count);
    script_random random(seed);
    if (which == script::settle)
        lift_and_turn(s, random);

    cubes::frame_data data;
    data.cube_count = cube_count;
    data.cubes.resize(cube_count * (frames + cubes::baseline_distance));
    capture(s, data.frame(0));
    for (int k = 1; k < cubes::baseline_distance; ++k)
        std::copy_n(data.frame(0), cube_count, data.frame(static_cast<std::size_t>(k)));

    action current = next_action(which, s, random, 0.0);
    double elapsed = 0;
    for (std::size_t f = 0; f < frames; ++f) {
        if (elapsed >= current.seconds) {
            current = next_action(which, s, random, static_cast<double>(f) * step_seconds);
            elapsed = 0;
        }
        apply_controls(s, current, elapsed, random);
        dSpaceCollide(s.space, &s, &near_callback);
        dWorldQuickStep(s.world, step_seconds);
        dJointGroupEmpty(s.contacts);
        limit_speeds(s);
        for (std::size_t i = 1; i < s.bodies.size(); ++i)
            if (!dBodyIsEnabled(s.bodies[i]))
                s.interacting[i] = 0; // at rest: no longer moving because of the player
        elapsed += step_seconds;
        capture(s, data.frame(f + cubes::baseline_distance));
    }
    dJointGroupDestroy(s.contacts);
    dSpaceDestroy(s.space);
    dWorldDestroy(s.world);
    dCloseODE();

    if (!cubes::write_frames(out, data)) {
        std::fprintf(stderr, "cubes_scene: cannot write %s\n", out.c_str());
        return 1;
    }
    std::printf("wrote %s: %zu frames of %zu cubes (script %s, seed %llu)\n", out.c_str(), data.frame_count(),
                cube_count, script_name.c_str(), static_cast<unsigned long long>(seed));
    print_summary(data);
    return 0;
}
