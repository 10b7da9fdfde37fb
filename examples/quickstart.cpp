// quickstart: annotate a plain struct, get exact bit-packed bytes, read them
// back, and see what each field costs on the wire versus in memory.
#include <bitrep/bitrep.hpp>

#include <boost/describe/enum.hpp>

#include <cstdio>

enum class Team { red, blue, green };
BOOST_DESCRIBE_ENUM(Team, red, blue, green)

struct Transform {
    bitrep::quantized<-100.f, 100.f, 0.01f> x, y, z; // float in [-100,100] at 0.01
    bitrep::quantized<0.f, 360.f, 0.1f> yaw;
};
struct Item {
    bitrep::ranged<std::uint16_t, 0, 999> id;
    bitrep::ranged<int, 1, 64> count;
};
struct Player {
    bitrep::ranged<int, 0, 100> health;    // 7 bits
    bool alive;                            // 1 bit
    Team team;                             // 2 bits
    Transform transform;                   // nested aggregate, no code needed
    bitrep::quat<9> orientation;           // smallest-three, 2 + 3x9 bits
    bitrep::bounded_string<16> name;       // at most 16 bytes
    bitrep::bounded_vector<Item, 8> items; // at most 8 items
    std::optional<bitrep::ranged<int, 0, 7>> emote;
    std::array<bool, 4> flags;
};

// Aggregates have no field names in Boost 1.81's PFR, so these labels are
// the example's own (a BOOST_DESCRIBE_STRUCT type would name its fields).
constexpr const char* labels[] = {"health", "alive", "team",  "transform", "orientation",
                                  "name",   "items", "emote", "flags"};

// NOLINTNEXTLINE(bugprone-exception-escape): an example; the throwing to_bytes(value) ends it with write_error's message
int main()
{
    Player player{};
    player.health = 87;
    player.alive = true;
    player.team = Team::blue;
    player.transform = {12.34f, -56.78f, 0.5f, 271.3f};
    player.orientation = {0.0f, 0.3826834f, 0.0f, 0.9238795f}; // 45 degrees about y
    player.name = "Valkyrie";
    player.items.push_back({101, 3});
    player.items.push_back({7, 64});
    player.emote = 5;
    player.flags = {true, false, false, true};

    const std::vector<std::uint8_t> bytes = bitrep::to_bytes(player);

    Player copy{};
    const bitrep::status st = bitrep::from_bytes(bytes, copy);
    std::printf("round trip: %s; health %d, name \"%s\", %zu items, x %.2f (sent %.2f)\n", st.message().c_str(),
                static_cast<int>(copy.health), copy.name.c_str(), copy.items.size(),
                static_cast<double>(copy.transform.x), static_cast<double>(player.transform.x));

    // What each field costs.
    std::printf("\n%-12s %8s %14s\n", "field", "wire bits", "memory bits");
    bitrep::reflect::for_each_field(player, [](const auto& field, const bitrep::reflect::field_id& id) {
        std::printf("%-12s %8zu %14zu\n", labels[id.position], bitrep::bit_size(field), sizeof(field) * 8);
        return true;
    });
    std::printf("%-12s %8zu %14zu   (%zu bytes vs sizeof(Player) = %zu; at most %zu bits)\n", "total",
                bitrep::bit_size(player), sizeof(Player) * 8, bytes.size(), sizeof(Player),
                bitrep::max_bits<Player>);

    // Bad input is normal input: every read returns a status, never throws,
    // and leaves the target untouched.
    std::vector<std::uint8_t> truncated(bytes.begin(), bytes.end() - 3);
    Player untouched = copy;
    const bitrep::status bad = bitrep::from_bytes(truncated, untouched);
    std::printf("\ntruncated input: %s (target unchanged: %s)\n", bad.message().c_str(),
                bitrep::to_bytes(untouched) == bitrep::to_bytes(copy) ? "yes" : "no");

    player.items[1].count = 65; // outside ranged<int, 1, 64>
    std::vector<std::uint8_t> out;
    std::printf("writing count = 65: %s\n", bitrep::to_bytes(player, out).message().c_str());
    return st ? 0 : 1;
}
