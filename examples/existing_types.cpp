// existing_types: replicate and save structs from an existing codebase
// without editing them. The engine's types keep plain floats and ints; the
// game says in one place (bitrep::annotate) how each field is sent.
#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>

#include <boost/describe/class.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <span>
#include <tuple>
#include <vector>

// ---- engine/math.hpp and engine/actor.hpp: not ours to change.
namespace engine {
struct Transform {
    float x = 0, y = 0, z = 0;
    float yaw = 0; // degrees
};
struct Actor {
    Transform transform;
    int health = 100;
    std::uint8_t team = 0;
    bool crouching = false;
    void* render_proxy = nullptr; // the renderer's business
};
} // namespace engine

// ---- game/replication.hpp: the game's side, next to its own code.
// Names for error paths, schemas and bitrep-inspect (optional).
namespace engine {
BOOST_DESCRIBE_STRUCT(Transform, (), (x, y, z, yaw))
BOOST_DESCRIBE_STRUCT(Actor, (), (transform, health, team, crouching, render_proxy))
} // namespace engine

template <>
struct bitrep::annotate<engine::Transform> {
    using fields = std::tuple<bitrep::quantized<-512.f, 512.f, 0.01f>, // x
                              bitrep::quantized<-512.f, 512.f, 0.01f>, // y
                              bitrep::quantized<0.f, 64.f, 0.01f>,     // z
                              bitrep::quantized<0.f, 360.f, 0.5f>>;    // yaw
};
template <>
struct bitrep::annotate<engine::Actor> {
    using fields = std::tuple<bitrep::as_is,                       // transform: its own annotations
                              bitrep::ranged<int, 0, 100>,         // health
                              bitrep::ranged<std::uint8_t, 0, 3>,  // team
                              bitrep::as_is,                       // crouching: 1 bit
                              bitrep::transient<void*>>;           // render_proxy: never sent
};

struct World {
    bitrep::entity_array<engine::Actor, 64> actors;
};

// NOLINTNEXTLINE(bugprone-exception-escape): an example; the throwing to_bytes(value) ends it with write_error's message
int main()
{
    // One actor: bits on the wire against bytes in memory.
    engine::Actor hero;
    hero.transform = {12.345f, -200.5f, 1.75f, 271.3f};
    hero.health = 87;
    hero.team = 2;
    const std::vector<std::uint8_t> bytes = bitrep::to_bytes(hero);
    std::printf("engine::Actor: %zu bits on the wire (at most %zu), sizeof %zu bytes in memory\n",
                bitrep::bit_size(hero), bitrep::max_bits<engine::Actor>, sizeof(engine::Actor));

    engine::Actor copy;
    bitrep::status st = bitrep::from_bytes(bytes, copy);
    std::printf("round trip: %s; x %.3f -> %.3f, yaw %.1f -> %.1f, health %d\n", st.message().c_str(),
                static_cast<double>(hero.transform.x), static_cast<double>(copy.transform.x),
                static_cast<double>(hero.transform.yaw), static_cast<double>(copy.transform.yaw), copy.health);
    int failures = st ? 0 : 1;

    // An annotation still guards the value: out of range is refused, by name.
    engine::Actor broken = hero;
    broken.health = 250;
    std::vector<std::uint8_t> out;
    std::printf("writing health = 250: %s\n", bitrep::to_bytes(broken, out).message().c_str());

    // Replication of a world of engine actors, 30 ticks.
    World world;
    for (int i = 0; i < 40; ++i) {
        engine::Actor a;
        a.transform = {static_cast<float>(i) * 10.f - 200.f, 0.f, 0.f, 0.f};
        a.team = static_cast<std::uint8_t>(i % 4);
        if (!world.actors.emplace(a))
            return 1;
    }
    bitrep::replication_server<World> server;
    bitrep::replication_client<World> client;
    const auto id = server.add_client();
    std::size_t bytes_sent = 0;
    const int ticks = 30;
    for (int tick = 0; tick < ticks; ++tick) {
        for (auto [actor_id, actor] : world.actors)
            if (actor_id % 4 == 0) { // a quarter of them walk
                actor.transform.x += 0.35f;
                actor.transform.yaw = std::fmod(actor.transform.yaw + 3.f, 360.f);
            }
        server.update(world);
        std::span<const std::uint8_t> packet;
        st = server.replicate(id, packet);
        if (st)
            st = client.receive(packet);
        if (!st) {
            std::printf("replication failed: %s\n", st.message().c_str());
            return 1;
        }
        bytes_sent += packet.size();
        if (!server.receive(id, client.ack()))
            return 1;
    }
    const engine::Actor& mirrored = *client.state().actors.slots()[4];
    std::printf("replicated %d ticks of 40 actors: %zu bytes (%.1f per tick); actor 4 at x %.2f (server %.2f)\n",
                ticks, bytes_sent, static_cast<double>(bytes_sent) / ticks,
                static_cast<double>(mirrored.transform.x),
                static_cast<double>(world.actors.slots()[4]->transform.x));
    if (std::fabs(mirrored.transform.x - world.actors.slots()[4]->transform.x) > 0.005f)
        ++failures;

    // Saved and loaded like any other type.
    std::vector<std::uint8_t> file;
    st = bitrep::save_to_bytes(world, file);
    World loaded;
    if (st)
        st = bitrep::load_from_bytes(file, loaded);
    std::printf("save file: %zu bytes for %zu actors; load: %s\n", file.size(), loaded.actors.size(),
                st.message().c_str());
    if (!st || loaded.actors.size() != world.actors.size())
        ++failures;
    return failures == 0 ? 0 : 1;
}
