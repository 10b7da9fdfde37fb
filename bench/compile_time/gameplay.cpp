// A gameplay file as a new user writes one: a world with players, an
// inventory, enemies and projectiles, a save slot, and a server that
// replicates the world to a few clients, each tick, with their inputs and
// chat. It is what `run.sh` times as the "gameplay" row: one translation
// unit that annotates, saves, loads and replicates, compiled alone. Linked
// with the library (CHECK=1), it runs 120 ticks and checks that every
// client holds what the server sent it and that the save loads back.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>

namespace game {

// ---------------------------------------------------------------- items

enum class Rarity { common, uncommon, rare, epic, legendary };
BOOST_DESCRIBE_ENUM(Rarity, common, uncommon, rare, epic, legendary)

enum class Element { none, fire, frost, shock, poison };
BOOST_DESCRIBE_ENUM(Element, none, fire, frost, shock, poison)

enum class Perk : std::uint8_t { none = 0, lifesteal = 1, pierce = 2, crit = 4, haste = 8, shield = 16 };
BOOST_DESCRIBE_ENUM(Perk, none, lifesteal, pierce, crit, haste, shield)
constexpr bool bitrep_flags(Perk) { return true; }
constexpr Perk operator|(Perk a, Perk b)
{
    return static_cast<Perk>(static_cast<std::uint8_t>(a) | static_cast<std::uint8_t>(b));
}

struct Weapon {
    bitrep::ranged<std::uint16_t, 0, 4095> id;
    bitrep::ranged<int, 1, 500> damage;
    bitrep::quantized<0.f, 10.f, 0.05f> speed;
    Rarity rarity = Rarity::common;
    Element element = Element::none;
    Perk perks = Perk::none;
    bitrep::ranged<int, 0, 100> durability;
};
BOOST_DESCRIBE_STRUCT(Weapon, (), (id, damage, speed, rarity, element, perks, durability))

struct Armor {
    bitrep::ranged<std::uint16_t, 0, 4095> id;
    bitrep::ranged<int, 0, 300> defense;
    Rarity rarity = Rarity::common;
    bitrep::ranged<int, 0, 100> durability;
};
BOOST_DESCRIBE_STRUCT(Armor, (), (id, defense, rarity, durability))

struct Potion {
    bitrep::ranged<int, 1, 250> heal;
    bitrep::ranged<int, 1, 20> stack;
};
BOOST_DESCRIBE_STRUCT(Potion, (), (heal, stack))

struct Ammo {
    Element element = Element::none;
    bitrep::ranged<int, 1, 999> count;
};
BOOST_DESCRIBE_STRUCT(Ammo, (), (element, count))

using Item = std::variant<Weapon, Armor, Potion, Ammo>;

struct Slot {
    Item item;
    bitrep::ranged<std::uint8_t, 0, 39> position;
};
BOOST_DESCRIBE_STRUCT(Slot, (), (item, position))

struct Inventory {
    bitrep::bounded_vector<Slot, 40> slots;
    std::optional<Weapon> main_hand;
    std::optional<Armor> chest;
    bitrep::ranged<std::uint32_t, 0, 999'999> gold;
};
BOOST_DESCRIBE_STRUCT(Inventory, (), (slots, main_hand, chest, gold))

// ---------------------------------------------------------------- actors

using coordinate = bitrep::quantized<-1024.f, 1024.f, 0.01f>;
using small_move = bitrep::delta_small<coordinate, 127>;

struct Position {
    small_move x, y, z;
};
BOOST_DESCRIBE_STRUCT(Position, (), (x, y, z))

enum class Stance { idle, walking, running, crouching, jumping, dead };
BOOST_DESCRIBE_ENUM(Stance, idle, walking, running, crouching, jumping, dead)

struct Player {
    Position position;
    bitrep::quantized<0.f, 360.f, 0.5f> yaw;
    bitrep::quantized<-90.f, 90.f, 0.5f> pitch;
    bitrep::ranged<int, 0, 100> health;
    bitrep::owner_only<bitrep::ranged<int, 0, 200>> stamina{200};
    Stance stance = Stance::idle;
    bitrep::ranged<std::uint32_t, 0, 63> owner;
    bitrep::bounded_string<16> name;
    bitrep::owner_only<Inventory> inventory;
    bitrep::ranged<std::uint32_t, 0, 99'999> score;
};
BOOST_DESCRIBE_STRUCT(Player, (), (position, yaw, pitch, health, stamina, stance, owner, name, inventory, score))

enum class EnemyKind { grunt, archer, brute, caster };
BOOST_DESCRIBE_ENUM(EnemyKind, grunt, archer, brute, caster)

enum class EnemyState { patrol, chase, attack, flee };
BOOST_DESCRIBE_ENUM(EnemyState, patrol, chase, attack, flee)

struct Enemy {
    Position position;
    bitrep::quantized<0.f, 360.f, 1.f> yaw;
    EnemyKind kind = EnemyKind::grunt;
    EnemyState state = EnemyState::patrol;
    bitrep::ranged<int, 0, 1000> health;
    std::optional<bitrep::ranged<std::uint32_t, 0, 63>> target;
};
BOOST_DESCRIBE_STRUCT(Enemy, (), (position, yaw, kind, state, health, target))

struct Projectile {
    Position position;
    bitrep::quantized<-50.f, 50.f, 0.05f> vx, vy, vz;
    bitrep::ranged<std::uint32_t, 0, 63> shooter;
    Element element = Element::none;
    bitrep::initial_only<bitrep::ranged<int, 0, 255>> lifetime;
};
BOOST_DESCRIBE_STRUCT(Projectile, (), (position, vx, vy, vz, shooter, element, lifetime))

struct Pickup {
    Position position;
    Item item;
};
BOOST_DESCRIBE_STRUCT(Pickup, (), (position, item))

struct World {
    bitrep::ranged<std::uint32_t, 0, 10'000'000> tick;
    bitrep::entity_array<Player, 16> players;
    bitrep::entity_array<Enemy, 128> enemies;
    bitrep::entity_array<Projectile, 256> projectiles;
    bitrep::entity_array<Pickup, 64> pickups;
    bitrep::save_only<std::uint64_t> seed;
};
BOOST_DESCRIBE_STRUCT(World, (), (tick, players, enemies, projectiles, pickups, seed))

// ---------------------------------------------------------------- the save slot

struct Settings {
    bitrep::quantized<0.f, 1.f, 0.01f> music_volume;
    bitrep::quantized<0.f, 1.f, 0.01f> effects_volume;
    bitrep::ranged<int, 60, 144> frame_limit;
    bool subtitles = true;
};
BOOST_DESCRIBE_STRUCT(Settings, (), (music_volume, effects_volume, frame_limit, subtitles))

struct Quest {
    bitrep::ranged<int, 0, 31> stage;
    bool done = false;
};
BOOST_DESCRIBE_STRUCT(Quest, (), (stage, done))

struct SaveSlot {
    static constexpr std::uint32_t save_version = 2;
    bitrep::bounded_string<24> hero;
    World world;
    Settings settings;
    bitrep::bounded_map<bitrep::ranged<std::uint16_t, 0, 999>, Quest, 64> quests;
    bitrep::ranged<std::uint64_t, 0, 1'000'000'000> play_time_ms;
    void migrate(std::uint32_t from_version)
    {
        if (from_version < 2)
            settings.frame_limit = 60;
    }
};
BOOST_DESCRIBE_STRUCT(SaveSlot, (), (hero, world, settings, quests, play_time_ms))

// ---------------------------------------------------------------- what clients send

struct Input {
    bitrep::ranged<int, -1, 1> move_x, move_y;
    bitrep::quantized<0.f, 360.f, 0.5f> yaw;
    bool fire = false;
    bool jump = false;
};
BOOST_DESCRIBE_STRUCT(Input, (), (move_x, move_y, yaw, fire, jump))

struct Chat {
    bitrep::ranged<std::uint32_t, 0, 63> from;
    bitrep::bounded_string<64> text;
};
BOOST_DESCRIBE_STRUCT(Chat, (), (from, text))

struct Emote {
    bitrep::ranged<int, 0, 15> which;
};
BOOST_DESCRIBE_STRUCT(Emote, (), (which))

using Messages = bitrep::message_set<Chat, Emote>;
using server_type = bitrep::replication_server<World, Input, Messages>;
using client_type = bitrep::replication_client<World, Input, Messages>;

// ---------------------------------------------------------------- the simulation

/// A seeded generator without the standard's distributions (whose output
/// differs between standard libraries).
class dice {
public:
    explicit dice(std::uint64_t seed) : state_(seed * 2 + 1) {}
    std::uint32_t next()
    {
        state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<std::uint32_t>(state_ >> 33);
    }
    float unit() { return static_cast<float>(next() % 10'000) / 10'000.f; }
    float between(float low, float high) { return low + (high - low) * unit(); }

private:
    std::uint64_t state_;
};

Position random_position(dice& d)
{
    Position p;
    p.x = d.between(-500.f, 500.f);
    p.y = d.between(-500.f, 500.f);
    p.z = d.between(0.f, 20.f);
    return p;
}

Weapon random_weapon(dice& d)
{
    Weapon w;
    w.id = static_cast<std::uint16_t>(d.next() % 4096);
    w.damage = static_cast<int>(1 + d.next() % 500);
    w.speed = d.between(0.5f, 9.5f);
    w.rarity = static_cast<Rarity>(d.next() % 5);
    w.element = static_cast<Element>(d.next() % 5);
    w.perks = (d.next() % 2 ? Perk::crit : Perk::none) | (d.next() % 2 ? Perk::pierce : Perk::none);
    w.durability = static_cast<int>(d.next() % 101);
    return w;
}

Item random_item(dice& d)
{
    switch (d.next() % 4) {
    case 0: return random_weapon(d);
    case 1: return Armor{.id = static_cast<std::uint16_t>(d.next() % 4096),
                         .defense = static_cast<int>(d.next() % 301),
                         .rarity = static_cast<Rarity>(d.next() % 5),
                         .durability = 100};
    case 2: return Potion{.heal = static_cast<int>(1 + d.next() % 250), .stack = static_cast<int>(1 + d.next() % 20)};
    default: return Ammo{.element = static_cast<Element>(d.next() % 5), .count = static_cast<int>(1 + d.next() % 999)};
    }
}

void spawn_player(World& world, dice& d, std::uint32_t owner, const char* name)
{
    Player p;
    p.position = random_position(d);
    p.health = 100;
    p.owner = owner;
    p.name = name;
    Inventory& inventory = p.inventory.get();
    for (std::uint8_t i = 0; i < 12; ++i)
        inventory.slots.push_back(Slot{.item = random_item(d), .position = i});
    inventory.main_hand = random_weapon(d);
    inventory.gold = d.next() % 1000;
    world.players.emplace(p);
}

void populate(World& world, dice& d)
{
    world.seed = 42;
    for (int i = 0; i < 40; ++i) {
        Enemy e;
        e.position = random_position(d);
        e.kind = static_cast<EnemyKind>(d.next() % 4);
        e.health = static_cast<int>(100 + d.next() % 900);
        world.enemies.emplace(e);
    }
    for (int i = 0; i < 20; ++i)
        world.pickups.emplace(Pickup{.position = random_position(d), .item = random_item(d)});
}

float clamp_coordinate(float v)
{
    return std::clamp(v, -1000.f, 1000.f);
}

void apply_input(Player& p, const Input& input)
{
    const float step = p.stamina.get().get() > 0 ? 0.4f : 0.2f;
    p.position.x = clamp_coordinate(p.position.x.get() + step * static_cast<float>(input.move_x.get()));
    p.position.y = clamp_coordinate(p.position.y.get() + step * static_cast<float>(input.move_y.get()));
    p.yaw = input.yaw.get();
    p.stance = input.move_x.get() != 0 || input.move_y.get() != 0 ? Stance::running : Stance::idle;
}

void fire(World& world, const Player& shooter)
{
    const float radians = shooter.yaw.get() * 3.14159265f / 180.f;
    Projectile shot;
    shot.position = shooter.position;
    shot.vx = 40.f * std::cos(radians);
    shot.vy = 40.f * std::sin(radians);
    shot.vz = 0.f;
    shot.shooter = shooter.owner.get();
    shot.lifetime = 120;
    static_cast<void>(world.projectiles.emplace(shot));
}

void step(World& world, dice& d)
{
    ++world.tick;
    for (auto [id, e] : world.enemies) {
        static_cast<void>(id);
        e.position.x = clamp_coordinate(e.position.x.get() + d.between(-0.3f, 0.3f));
        e.position.y = clamp_coordinate(e.position.y.get() + d.between(-0.3f, 0.3f));
        e.yaw = d.between(0.f, 359.f);
        e.state = static_cast<EnemyState>(d.next() % 4);
    }
    std::vector<std::uint32_t> expired;
    for (auto [id, shot] : world.projectiles) {
        shot.position.x = clamp_coordinate(shot.position.x.get() + shot.vx.get() / 60.f);
        shot.position.y = clamp_coordinate(shot.position.y.get() + shot.vy.get() / 60.f);
        if (shot.lifetime.get().get() == 0)
            expired.push_back(static_cast<std::uint32_t>(id));
        else
            shot.lifetime = shot.lifetime.get().get() - 1;
    }
    for (std::uint32_t id : expired)
        world.projectiles.erase(id);
}

Input scripted_input(std::uint32_t client, std::uint32_t tick)
{
    Input input;
    const std::uint32_t leg = (tick / 30 + client) % 4;
    input.move_x = leg == 0 ? 1 : (leg == 2 ? -1 : 0);
    input.move_y = leg == 1 ? 1 : (leg == 3 ? -1 : 0);
    input.yaw = static_cast<float>((tick * 3 + client * 90) % 360);
    input.fire = (tick + client) % 20 == 0;
    return input;
}

// ---------------------------------------------------------------- the session

struct session {
    World world;
    server_type server;
    std::vector<client_type> clients;
    std::vector<bitrep::client_id> ids;
    std::vector<Player*> avatars;
    dice d{7};
    int chats = 0;

    bitrep::status start(std::size_t count)
    {
        populate(world, d);
        server.on_input([this](bitrep::client_id id, std::uint32_t, const Input& input) {
            for (auto [slot, p] : world.players) {
                static_cast<void>(slot);
                if (p.owner.get() == id) {
                    apply_input(p, input);
                    if (input.fire)
                        fire(world, p);
                }
            }
        });
        server.on_message<Chat>([this](bitrep::client_id, const Chat&) { ++chats; });
        static const char* names[] = {"Ana", "Bo", "Cy", "Di"};
        for (std::size_t i = 0; i < count; ++i) {
            bitrep::client_id id = server.add_client();
            ids.push_back(id);
            clients.emplace_back();
            spawn_player(world, d, id, names[i % 4]);
        }
        return {};
    }

    bitrep::status tick(std::uint32_t t)
    {
        step(world, d);
        server.update(world);
        for (std::size_t i = 0; i < clients.size(); ++i) {
            std::span<const std::uint8_t> packet;
            if (bitrep::status st = server.replicate(ids[i], packet); !st)
                return st;
            if (bitrep::status st = clients[i].receive(packet); !st)
                return st;
            if (bitrep::status st = clients[i].send_input(t, scripted_input(ids[i], t)); !st)
                return st;
            if (t % 40 == static_cast<std::uint32_t>(i)) {
                Chat chat{.from = ids[i], .text = "gg"};
                if (bitrep::status st = clients[i].send(chat, bitrep::channel::reliable); !st)
                    return st;
            }
            if (bitrep::status st = server.receive(ids[i], clients[i].packet()); !st)
                return st;
        }
        return {};
    }

    /// Each client holds what the server sent it (its own player's
    /// inventory, every projectile's lifetime as it was created).
    bool every_client_holds_its_view() const
    {
        for (std::size_t i = 0; i < clients.size(); ++i) {
            const std::optional<World> sent = server.sent_state(ids[i], clients[i].sequence());
            if (!sent || !bitrep::replicated_equal(clients[i].state(), *sent))
                return false;
        }
        return true;
    }
};

bitrep::status save_and_reload(const World& world, const std::filesystem::path& path, SaveSlot& loaded)
{
    SaveSlot slot;
    slot.hero = "Ana";
    slot.world = world;
    slot.settings.music_volume = 0.8f;
    slot.settings.frame_limit = 120;
    slot.quests[3] = Quest{.stage = 4, .done = false};
    slot.quests[17] = Quest{.stage = 31, .done = true};
    slot.play_time_ms = 3'600'000;
    if (bitrep::status st = bitrep::save(path, slot); !st)
        return st;
    bitrep::load_info info;
    return bitrep::load(path, loaded, info);
}

} // namespace game

int main()
{
    game::session s;
    if (bitrep::status st = s.start(4); !st)
        return std::puts(st.message().c_str()), 1;
    for (std::uint32_t t = 1; t <= 120; ++t) {
        if (bitrep::status st = s.tick(t); !st)
            return std::printf("tick %u: %s\n", t, st.message().c_str()), 1;
    }
    // One more tick with nothing changing, so that every client has acked.
    s.server.update(s.world);
    for (std::size_t i = 0; i < s.clients.size(); ++i) {
        std::span<const std::uint8_t> packet;
        if (!s.server.replicate(s.ids[i], packet) || !s.clients[i].receive(packet))
            return 1;
    }
    if (!s.every_client_holds_its_view())
        return std::puts("a client holds something the server did not send it"), 1;

    const std::filesystem::path path = std::filesystem::temp_directory_path() / "bitrep_gameplay.sav";
    game::SaveSlot loaded;
    if (bitrep::status st = game::save_and_reload(s.world, path, loaded); !st)
        return std::puts(st.message().c_str()), 1;
    std::filesystem::remove(path);
    std::vector<std::uint8_t> a, b;
    if (!bitrep::to_bytes(loaded.world, a) || !bitrep::to_bytes(s.world, b) || a != b)
        return std::puts("the loaded world differs from the saved one"), 1;
    std::printf("gameplay: %u ticks, %zu clients, %d chats, world round-tripped through a save\n",
                s.world.tick.get(), s.clients.size(), s.chats);
    return 0;
}
