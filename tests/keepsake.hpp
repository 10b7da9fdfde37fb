// A saved type that holds one of nearly every kind a schema describes, with
// stable names so that its schema reads alike from every compiler: the
// subject of the format-history test vectors (old_saves_test.cpp).
#pragma once

#include <bitrep/bitrep.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>

namespace keepsake {

enum class Element : std::uint8_t { fire, ice, storm };
BOOST_DESCRIBE_ENUM(Element, fire, ice, storm)

enum class Perk : std::uint8_t { none = 0, swift = 1, sturdy = 2, lucky = 4 };
BOOST_DESCRIBE_ENUM(Perk, none, swift, sturdy, lucky)
constexpr bool bitrep_flags(Perk) { return true; }

struct Blade {
    static constexpr std::string_view bitrep_name = "Blade";
    bitrep::ranged<int, 1, 500> damage = 1;
    Element element = Element::fire;
    friend bool operator==(const Blade&, const Blade&) = default;
};
BOOST_DESCRIBE_STRUCT(Blade, (), (damage, element))

struct Tonic {
    static constexpr std::string_view bitrep_name = "Tonic";
    bitrep::ranged<int, 0, 100> heal = 0;
    friend bool operator==(const Tonic&, const Tonic&) = default;
};
BOOST_DESCRIBE_STRUCT(Tonic, (), (heal))

struct Spot {
    static constexpr std::string_view bitrep_name = "Spot";
    bitrep::quantized<-1024.f, 1024.f, 0.01f> x, y;
    friend bool operator==(const Spot&, const Spot&) = default;
};
BOOST_DESCRIBE_STRUCT(Spot, (), (x, y))

struct Keepsake {
    static constexpr std::string_view bitrep_name = "Keepsake";
    bool awake = false;
    std::int16_t seed = 0;
    bitrep::ranged<int, -50, 50> mood = 0;
    float weight = 0.0f;
    double age = 0.0;
    Spot home, away;
    bitrep::quat<9> facing;
    Element element = Element::fire;
    bitrep::bounded_string<20> title;
    bitrep::bounded_vector<Blade, 4> blades;
    std::array<bitrep::ranged<int, 0, 9>, 3> digits{};
    std::optional<Tonic> pocket;
    std::variant<Blade, Tonic> held;
    bitrep::bounded_map<bitrep::ranged<int, 0, 255>, bitrep::ranged<int, 1, 99>, 8> stash;
    bitrep::ranged_duration<std::chrono::milliseconds, 0, 60000> cooldown{};
    Perk perks = Perk::none;
    bitrep::save_only<bitrep::ranged<int, 0, 1000>> deaths;
    bitrep::net_only<bitrep::ranged<int, 0, 1000>> ping;
    friend bool operator==(const Keepsake&, const Keepsake&) = default;
};
BOOST_DESCRIBE_STRUCT(Keepsake, (),
                      (awake, seed, mood, weight, age, home, away, facing, element, title, blades, digits, pocket,
                       held, stash, cooldown, perks, deaths, ping))

struct Slot {
    static constexpr std::string_view bitrep_name = "Slot";
    bitrep::bounded_string<16> name;
    bitrep::ranged<int, 0, 1'000'000> play_seconds = 0;
    friend bool operator==(const Slot&, const Slot&) = default;
};
BOOST_DESCRIBE_STRUCT(Slot, (), (name, play_seconds))

inline Keepsake sample()
{
    Keepsake k;
    k.awake = true;
    k.seed = -1234;
    k.mood = -17;
    k.weight = 72.5f;
    k.age = 1234.5678;
    k.home = {{12.5f}, {-3.25f}};
    k.away = {{-1000.f}, {999.99f}};
    k.facing = bitrep::quat<9>{0.0f, 0.0f, 0.0f, 1.0f};
    k.element = Element::storm;
    k.title = "the patient";
    k.blades.push_back(Blade{250, Element::ice});
    k.blades.push_back(Blade{7, Element::storm});
    k.digits = {{{3}, {1}, {4}}};
    k.pocket = Tonic{40};
    k.held = Tonic{99};
    k.stash.emplace(3, 12);
    k.stash.emplace(200, 99);
    k.cooldown = std::chrono::milliseconds(1500);
    k.perks = static_cast<Perk>(1 | 4);
    k.deaths = 3;
    return k;
}

inline Slot sample_slot() { return Slot{"north", 3600}; }

} // namespace keepsake
