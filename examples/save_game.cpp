// save_game: save a game to disk, then load that file in the game's next
// version, whose structs changed: a field added, a field removed, a range
// widened, fields reordered. The file's own schema carries the data over,
// and a migrate() hook makes the one change no schema can see.
#include <bitrep/bitrep.hpp>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>

enum class ItemKind { sword, shield, potion, key };
BOOST_DESCRIBE_ENUM(ItemKind, sword, shield, potion, key)

struct Item {
    ItemKind kind = ItemKind::sword;
    bitrep::ranged<int, 1, 64> count = 1;
};
BOOST_DESCRIBE_STRUCT(Item, (), (kind, count))

struct Transform {
    bitrep::quantized<-1000.f, 1000.f, 0.01f> x, y, z;
    bitrep::quat<9> rotation;
};
BOOST_DESCRIBE_STRUCT(Transform, (), (x, y, z, rotation))

// Version 1 of the game, as it shipped.
namespace v1 {
struct SaveGame {
    static constexpr std::uint32_t save_version = 1;
    bitrep::ranged<int, 1, 50> level = 1;
    bitrep::bounded_string<24> hero;
    bitrep::bounded_vector<Item, 64> inventory;
    Transform position;
    bitrep::ranged<int, 0, 3> difficulty = 1; // removed in version 2
    bitrep::net_only<Transform> camera;       // never written to disk
    bitrep::save_only<std::uint64_t> play_time_ms;
};
BOOST_DESCRIBE_STRUCT(SaveGame, (), (level, hero, inventory, position, difficulty, camera, play_time_ms))
} // namespace v1

// Version 2: the level cap went from 50 to 99, difficulty moved to the
// settings file, gold was added, and play time is now kept in seconds.
namespace v2 {
struct SaveGame {
    static constexpr std::uint32_t save_version = 2;
    bitrep::bounded_string<24> hero;
    bitrep::ranged<int, 1, 99> level = 1; // widened
    bitrep::ranged<int, 0, 999999> gold = 100; // added: old saves start with 100
    bitrep::bounded_vector<Item, 64> inventory;
    Transform position;
    bitrep::net_only<Transform> camera;
    bitrep::save_only<std::uint64_t> play_time_ms;

    // Runs after loading a file of an older save_version.
    void migrate(std::uint32_t from_version)
    {
        if (from_version < 2)
            gold = 100 + 10 * level; // veterans get a head start
    }
};
BOOST_DESCRIBE_STRUCT(SaveGame, (), (hero, level, gold, inventory, position, camera, play_time_ms))
} // namespace v2

#ifndef BITREP_INSPECT_PATH
#define BITREP_INSPECT_PATH "bitrep-inspect"
#endif

int main()
{
    // Both files stay, to be looked at with bitrep-inspect (printed below).
    const std::filesystem::path path = std::filesystem::temp_directory_path() / "bitrep_save_game_v1.sav";
    const std::filesystem::path resaved = std::filesystem::temp_directory_path() / "bitrep_save_game_v2.sav";

    v1::SaveGame game;
    game.level = 42;
    game.hero = "Ada";
    game.inventory.push_back({ItemKind::sword, 1});
    game.inventory.push_back({ItemKind::potion, 12});
    game.position = {{120.5f}, {-33.25f}, {7.0f}, {0.0f, 0.7071068f, 0.0f, 0.7071068f}};
    game.difficulty = 2;
    game.play_time_ms = 216'000'000; // 60 hours

    if (bitrep::status st = bitrep::save(path, game); !st) {
        std::fprintf(stderr, "save failed: %s\n", st.message().c_str());
        return 1;
    }
    std::printf("version 1 saved %s: %ju bytes\n", path.c_str(),
                static_cast<std::uintmax_t>(std::filesystem::file_size(path)));

    // The next version of the game starts and finds the old save.
    v2::SaveGame next;
    bitrep::load_info info;
    if (bitrep::status st = bitrep::load(path, next, info); !st) {
        std::fprintf(stderr, "version 2 could not load the version 1 save: %s\n", st.message().c_str());
        return 1;
    }
    std::printf("version 2 loaded it through the %s path (file: save_version %u, schema %u bytes, payload %ju bits)\n",
                info.path == bitrep::load_info::route::schema ? "schema-driven" : "fast", info.header.save_version,
                info.header.schema_bytes, static_cast<std::uintmax_t>(info.header.payload_bits));
    std::printf("  hero        %s\n", next.hero.c_str());
    std::printf("  level       %d (range widened from [1, 50] to [1, 99])\n", static_cast<int>(next.level));
    std::printf("  gold        %d (added field, set by migrate())\n", static_cast<int>(next.gold));
    std::printf("  inventory   %zu items (first: %d x kind %d)\n", next.inventory.size(),
                static_cast<int>(next.inventory[0].count), static_cast<int>(next.inventory[0].kind));
    std::printf("  position    (%.2f, %.2f, %.2f)\n", static_cast<double>(next.position.x),
                static_cast<double>(next.position.y), static_cast<double>(next.position.z));
    std::printf("  play time   %.1f hours\n", static_cast<double>(next.play_time_ms.get()) / 3.6e6);
    std::printf("  difficulty  dropped (no longer in the struct)\n");

    // What the new version saves from now on loads on the fast path.
    if (bitrep::status st = bitrep::save(resaved, next); !st) {
        std::fprintf(stderr, "save failed: %s\n", st.message().c_str());
        return 1;
    }
    v2::SaveGame reloaded;
    const bool was_schema_path = info.path == bitrep::load_info::route::schema;
    const bool ok = bitrep::load(resaved, reloaded, info) && info.path == bitrep::load_info::route::fast && was_schema_path &&
                    reloaded.level == 42 && reloaded.gold == 520 &&
                    reloaded.inventory.size() == 2 && reloaded.hero == next.hero &&
                    reloaded.play_time_ms.get() == 216'000'000u;
    std::printf("version 2 re-saved it and reloaded it on the fast path: %s\n", ok ? "ok" : "MISMATCH");
    std::printf("\nLook inside either file (header, schema, values as JSON):\n  %s %s\n  %s %s\n", BITREP_INSPECT_PATH,
                path.c_str(), BITREP_INSPECT_PATH, resaved.c_str());
    return ok ? 0 : 1;
}
