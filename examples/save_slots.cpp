// save_slots: a game's save menu. Autosaves go to disk on a background
// thread while the game keeps running (save_async); each slot carries its
// name, play time, date and a thumbnail in a metadata section, which the
// menu lists without loading any world (read_save_info).
#include <bitrep/bitrep.hpp>
#include <bitrep/save/async.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

struct SlotInfo {
    bitrep::bounded_string<32> name;
    bitrep::ranged_duration<std::chrono::seconds, 0, 100'000'000> play_time;
    std::int64_t saved_at = 0; // Unix time
    bitrep::bounded_vector<std::uint8_t, 8192> thumbnail; // e.g. 48 x 27 RGB
};
BOOST_DESCRIBE_STRUCT(SlotInfo, (), (name, play_time, saved_at, thumbnail))

struct Unit {
    bitrep::quantized<-2000.f, 2000.f, 0.05f> x, y;
    bitrep::ranged<int, 0, 500> hp = 500;
};
BOOST_DESCRIBE_STRUCT(Unit, (), (x, y, hp))

struct World {
    bitrep::ranged<std::uint32_t, 0, 10'000'000> tick = 0;
    bitrep::bounded_vector<Unit, 50'000> units;
};
BOOST_DESCRIBE_STRUCT(World, (), (tick, units))

int main()
{
    std::error_code ec;
    const std::filesystem::path folder = std::filesystem::temp_directory_path() / "bitrep_save_slots";
    std::filesystem::remove_all(folder, ec);
    std::filesystem::create_directories(folder);

    World world;
    for (int i = 0; i < 20000; ++i) {
        const int row = i / 200; // 100 rows of 200 units
        world.units.push_back(Unit{static_cast<float>(i % 200) * 10.f - 1000.f, static_cast<float>(row), 500});
    }

    // The game loop: an autosave every 100 ticks, without waiting for the disk.
    bitrep::saver saver;
    std::vector<bitrep::save_handle> autosaves;
    double longest_frame_ms = 0;
    for (std::uint32_t tick = 1; tick <= 300; ++tick) {
        world.tick = tick;
        for (Unit& u : world.units)
            u.x = static_cast<float>(u.x) + 0.05f;
        if (tick % 100 == 0) {
            SlotInfo info;
            info.name = "Autosave " + std::to_string(tick / 100);
            info.play_time = std::chrono::seconds(tick / 60);
            info.saved_at = static_cast<std::int64_t>(std::time(nullptr));
            info.thumbnail.vector().assign(std::size_t{48} * 27 * 3, static_cast<std::uint8_t>(tick));
            const auto start = std::chrono::steady_clock::now();
            autosaves.push_back(
                saver.save(folder / ("slot" + std::to_string(tick / 100) + ".sav"), world, info));
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
            longest_frame_ms = ms > longest_frame_ms ? ms : longest_frame_ms;
        }
    }
    std::printf("3 autosaves of %zu units: at most %.2f ms on the game thread each\n", world.units.size(),
                longest_frame_ms);
    int failures = 0;
    for (const bitrep::save_handle& h : autosaves) {
        const bitrep::status st = h.wait();
        if (!st) {
            std::printf("autosave failed: %s\n", st.message().c_str());
            ++failures;
        }
    }

    // The load menu: every slot's info, no world loaded.
    std::printf("load menu:\n");
    for (int slot = 1; slot <= 3; ++slot) {
        const std::filesystem::path file = folder / ("slot" + std::to_string(slot) + ".sav");
        SlotInfo info;
        bitrep::load_info read;
        const auto start = std::chrono::steady_clock::now();
        const bitrep::status st = bitrep::read_save_info(file, info, read);
        const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
        if (!st) {
            std::printf("  slot %d: %s\n", slot, st.message().c_str());
            ++failures;
            continue;
        }
        std::printf("  slot %d: \"%s\", played %lld s, thumbnail %zu bytes, file %llu bytes (read in %.0f us)\n", slot,
                    info.name.str().c_str(), static_cast<long long>(info.play_time.count()),
                    info.thumbnail.size(), static_cast<unsigned long long>(std::filesystem::file_size(file)), us);
    }

    // Loading the chosen slot.
    World loaded;
    const bitrep::status st = bitrep::load(folder / "slot3.sav", loaded);
    std::printf("load slot 3: %s, tick %u\n", st.message().c_str(), static_cast<unsigned>(loaded.tick));
    if (!st || loaded.tick != 300u)
        ++failures;
    std::filesystem::remove_all(folder, ec);
    return failures == 0 ? 0 : 1;
}
