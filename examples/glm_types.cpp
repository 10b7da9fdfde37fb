// glm_types: a game whose math is glm. One line per kind of value tells
// bitrep how to send it (each_component, smallest_three); bitrep itself
// knows nothing of glm. Builds when Debian's libglm-dev is installed.
#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>

#include <glm/gtc/quaternion.hpp>
#include <glm/vec3.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

// ---- The adapters: one line each.
using position3 = bitrep::each_component<glm::vec3, bitrep::quantized<-1024.f, 1024.f, 0.01f>>; // 3 x 18 bits
using velocity3 = bitrep::each_component<glm::vec3, bitrep::quantized<-64.f, 64.f, 0.05f>>;      // 3 x 12 bits
using rotation = bitrep::smallest_three<glm::quat, 9>;                                           // 29 bits

// ---- Style 1: the adapters as member types (glm's value through -> or get()).
struct Ship {
    static constexpr std::string_view bitrep_name = "Ship";
    position3 position;
    velocity3 velocity;
    rotation facing;
    bitrep::ranged<int, 0, 100> hull = 100;
};
BOOST_DESCRIBE_STRUCT(Ship, (), (position, velocity, facing, hull))

// ---- Style 2: plain glm members, annotated from outside the struct.
namespace engine {
struct Camera {
    glm::vec3 eye{0.0f};
    glm::quat look{1.0f, 0.0f, 0.0f, 0.0f};
};
} // namespace engine
template <>
struct bitrep::annotate<engine::Camera> {
    using fields = std::tuple<position3, rotation>;
};

struct World {
    bitrep::entity_array<Ship, 32> ships;
    engine::Camera camera;
};

// NOLINTNEXTLINE(bugprone-exception-escape): an example; the throwing to_bytes(value) ends it with write_error's message
int main()
{
    int failures = 0;
    Ship ship;
    ship.position = glm::vec3(120.25f, -33.5f, 8.0f);
    ship.velocity = glm::vec3(4.0f, 0.0f, -1.5f);
    ship.facing = glm::angleAxis(0.6f, glm::vec3(0.0f, 1.0f, 0.0f));
    std::printf("Ship: %zu bits on the wire, sizeof %zu bytes in memory\n", bitrep::bit_size(ship), sizeof(Ship));

    Ship copy;
    bitrep::status st = bitrep::from_bytes(bitrep::to_bytes(ship), copy);
    const float turn_error = 1.0f - std::fabs(glm::dot(copy.facing.get(), ship.facing.get()));
    std::printf("round trip: %s; position (%.2f, %.2f, %.2f), rotation error %.5f\n", st.message().c_str(),
                static_cast<double>(copy.position->x), static_cast<double>(copy.position->y),
                static_cast<double>(copy.position->z), static_cast<double>(turn_error));
    if (!st || std::fabs(copy.position->x - 120.25f) > 0.006f || turn_error > 0.001f)
        ++failures;

    // Replicated: 24 ships flying in circles, 60 ticks.
    World world;
    for (int i = 0; i < 24; ++i) {
        Ship s;
        s.position = glm::vec3(static_cast<float>(i) * 20.0f - 240.0f, 0.0f, 0.0f);
        if (!world.ships.emplace(s))
            return 1;
    }
    bitrep::replication_server<World> server;
    bitrep::replication_client<World> client;
    const auto id = server.add_client();
    std::size_t bytes_sent = 0;
    const int ticks = 60;
    for (int tick = 0; tick < ticks; ++tick) {
        for (auto [ship_id, s] : world.ships) {
            const glm::quat turn = glm::angleAxis(0.03f, glm::vec3(0.0f, 1.0f, 0.0f));
            s.facing = glm::normalize(turn * s.facing.get());
            s.velocity = s.facing.get() * glm::vec3(0.0f, 0.0f, 8.0f);
            s.position = s.position.get() + s.velocity.get() * (1.0f / 60.0f);
        }
        world.camera.eye = world.ships.slots()[0]->position.get() + glm::vec3(0.0f, 5.0f, -10.0f);
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
    const Ship& mirrored = *client.state().ships.slots()[3];
    const Ship& original = *world.ships.slots()[3];
    std::printf("replicated %d ticks of 24 ships: %zu bytes (%.1f per tick); ship 3 at x %.2f (server %.2f)\n", ticks,
                bytes_sent, static_cast<double>(bytes_sent) / ticks, static_cast<double>(mirrored.position->x),
                static_cast<double>(original.position->x));
    if (std::fabs(mirrored.position->x - original.position->x) > 0.006f)
        ++failures;

    // Saved and loaded like any other type.
    std::vector<std::uint8_t> file;
    st = bitrep::save_to_bytes(world, file);
    World loaded;
    if (st)
        st = bitrep::load_from_bytes(file, loaded);
    std::printf("save file: %zu bytes; load: %s; camera eye y %.2f\n", file.size(), st.message().c_str(),
                static_cast<double>(loaded.camera.eye.y));
    if (!st || loaded.ships.size() != world.ships.size())
        ++failures;
    return failures == 0 ? 0 : 1;
}
