// The state of a small game as a new user would write it: players with
// quantized positions, quaternions, ranged health, a bounded_map inventory,
// a variant item, a chrono cooldown, flag enums, an entity array of
// projectiles, save-only and net-only fields, described structs with field
// names, and a save slot's metadata. It measures what the schema costs a
// game whose payload is small (save_bench's BM_schema_bytes).
#pragma once

#include <bitrep/bitrep.hpp>

#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <variant>

namespace trial {

using coordinate = bitrep::quantized<-1024.f, 1024.f, 0.01f>;
using speed = bitrep::quantized<-64.f, 64.f, 0.01f>;

struct Vec3 {
    coordinate x, y, z;
};
BOOST_DESCRIBE_STRUCT(Vec3, (), (x, y, z))

struct Velocity {
    speed x, y, z;
};
BOOST_DESCRIBE_STRUCT(Velocity, (), (x, y, z))

enum class Team : std::uint8_t { red, blue, spectators };
BOOST_DESCRIBE_ENUM(Team, red, blue, spectators)

enum class ItemKind : std::uint8_t { sword, bow, arrow, potion, key, gem, scroll, food, torch, rope };
BOOST_DESCRIBE_ENUM(ItemKind, sword, bow, arrow, potion, key, gem, scroll, food, torch, rope)

enum class Condition : std::uint8_t { none = 0, burning = 1, frozen = 2, poisoned = 4, invisible = 8, stunned = 16 };
BOOST_DESCRIBE_ENUM(Condition, none, burning, frozen, poisoned, invisible, stunned)
constexpr bool bitrep_flags(Condition) { return true; }

struct Weapon {
    ItemKind kind = ItemKind::sword;
    bitrep::ranged<int, 1, 500> damage = 1;
    bitrep::ranged<int, 0, 100> durability = 100;
};
BOOST_DESCRIBE_STRUCT(Weapon, (), (kind, damage, durability))

struct Potion {
    bitrep::ranged<int, 0, 100> heal = 0;
    bitrep::ranged_duration<std::chrono::milliseconds, 0, 60'000> lasts{};
};
BOOST_DESCRIBE_STRUCT(Potion, (), (heal, lasts))

struct Key {
    bitrep::ranged<std::uint32_t, 0, 65'535> door = 0;
};
BOOST_DESCRIBE_STRUCT(Key, (), (door))

struct Player {
    bitrep::bounded_string<16> name;
    Team team = Team::red;
    Vec3 position;
    Velocity velocity;
    bitrep::quat<9> orientation;
    bitrep::ranged<int, 0, 100> health = 100;
    bitrep::ranged<int, 0, 100> armor = 0;
    bitrep::bounded_map<ItemKind, bitrep::ranged<int, 1, 99>, 10> inventory;
    std::variant<Weapon, Potion, Key> held;
    bitrep::ranged_duration<std::chrono::milliseconds, 0, 10'000> cooldown{};
    Condition conditions = Condition::none;
    bitrep::save_only<bitrep::ranged<std::uint32_t, 0, 10'000'000>> play_seconds = 0;
    bitrep::net_only<bitrep::ranged<int, 0, 999>> ping = 0;
};
BOOST_DESCRIBE_STRUCT(Player, (),
                      (name, team, position, velocity, orientation, health, armor, inventory, held, cooldown, conditions,
                       play_seconds, ping))

struct Projectile {
    Vec3 position;
    Velocity velocity;
    bitrep::ranged<int, 0, 7> owner = 0;
    ItemKind kind = ItemKind::arrow;
    bitrep::ranged<int, 0, 255> ticks_left = 0;
};
BOOST_DESCRIBE_STRUCT(Projectile, (), (position, velocity, owner, kind, ticks_left))

struct World {
    static constexpr std::uint32_t save_version = 2;
    bitrep::ranged<std::uint32_t, 0, 100'000'000> tick = 0;
    bitrep::bounded_vector<Player, 8> players;
    bitrep::entity_array<Projectile, 64> projectiles;
    bitrep::save_only<bitrep::bounded_string<32>> map_name;
    bitrep::net_only<bitrep::ranged<int, 0, 1000>> server_load = 0;
};
BOOST_DESCRIBE_STRUCT(World, (), (tick, players, projectiles, map_name, server_load))

struct Slot {
    bitrep::bounded_string<32> name;
    bitrep::ranged_duration<std::chrono::seconds, 0, 100'000'000> play_time{};
    std::int64_t saved_at = 0;
};
BOOST_DESCRIBE_STRUCT(Slot, (), (name, play_time, saved_at))

/// Six players and 16 projectiles in flight.
inline World sample_world()
{
    World world;
    world.tick = 123'456;
    world.map_name = "harbour";
    const char* names[] = {"Ayla", "Bram", "Cosima", "Dov", "Edda", "Fenn"};
    for (int i = 0; i < 6; ++i) {
        Player p;
        p.name = names[i];
        p.team = i % 2 == 0 ? Team::red : Team::blue;
        p.position = {{10.5f * static_cast<float>(i)}, {2.0f}, {-300.25f + static_cast<float>(i)}};
        p.velocity = {{1.5f}, {0.0f}, {-0.75f}};
        p.orientation = bitrep::quat<9>{0.0f, 0.6f, 0.0f, 0.8f};
        p.health = 100 - 7 * i;
        p.armor = 20 * i;
        p.inventory.emplace(ItemKind::arrow, 30 + i);
        p.inventory.emplace(ItemKind::potion, 2);
        p.inventory.emplace(ItemKind::gem, 1 + i);
        if (i % 3 == 0)
            p.held = Weapon{ItemKind::bow, 45, 80};
        else if (i % 3 == 1)
            p.held = Potion{50, {std::chrono::milliseconds(5000)}};
        else
            p.held = Key{1234};
        p.cooldown = std::chrono::milliseconds(250 * i);
        p.conditions = i == 1 ? static_cast<Condition>(1 | 4) : Condition::none;
        p.play_seconds = 3600u * static_cast<unsigned>(i + 1);
        world.players.push_back(p);
    }
    for (int i = 0; i < 16; ++i) {
        Projectile shot;
        shot.position = {{static_cast<float>(i)}, {3.0f}, {static_cast<float>(-i)}};
        shot.velocity = {{20.0f}, {-1.0f}, {5.5f}};
        shot.owner = i % 4;
        shot.ticks_left = 200 - i;
        world.projectiles.emplace_at(static_cast<std::size_t>(3 * i), shot);
    }
    return world;
}

inline Slot sample_slot() { return Slot{"Harbour, day 3", std::chrono::seconds(9'000), 1'795'000'000}; }

} // namespace trial
