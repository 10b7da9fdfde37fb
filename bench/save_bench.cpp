// Save files: a world of 100,000 entities saved and loaded in memory and on
// disk by bitrep (save_to_bytes / load_from_bytes / save / load) and, side by
// side, the same values through cereal's portable binary archive, the way a
// game would use cereal: plain structs with floats, ints, std::string and
// std::vector, and a serialize(Archive&) member each.
//
//   BM_bitrep_save_memory / BM_cereal_save_memory   into a reused buffer
//   BM_bitrep_load_memory / BM_cereal_load_memory   into a reused world
//   BM_bitrep_loader_load_memory                    the same through a
//                                                   bitrep::loader, which keeps
//                                                   its working world
//   BM_bitrep_load_memory_fresh / BM_cereal_...     a new world per load
//   BM_bitrep_[loader_]load_memory_schema_path      the same file into the
//                                                   next version of Entity
//   BM_bitrep_save_disk / BM_cereal_save_disk       both durable (fsync)
//   BM_bitrep_[loader_]load_disk / BM_cereal_load_disk
//   BM_schema_bytes / BM_trial_save_file            the schema a save carries,
//                                                   format 3 against format 2
//
// Durability differs in kind, not only in cost: bitrep::save writes a
// temporary file, fsyncs it, renames it over the target and fsyncs the
// directory, so a crash leaves the old save or the new one. The cereal side
// truncates the target in place, writes it through std::ofstream and fsyncs
// it: durable once it returns, but a crash during the write leaves a partial
// file. Without the fsync the cereal side would be timing the page cache
// against bitrep's disk writes; the temporary file and the rename are
// bitrep's own guarantee, which cereal does not offer, so it does not pay
// for them.
//
// Before timing, main() checks both round trips (bitrep within each
// quantization step, cereal exactly), that the disk files hold the memory
// bytes, and that the changed struct really goes through the schema path;
// it aborts with a message if not. The files live in a mkdtemp directory
// under /tmp, removed at exit.
#include <benchmark/benchmark.h>

#include <bitrep/bitrep.hpp>
#include <bitrep/save/async.hpp>
#include <bitrep/save/save.hpp>

#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>

#include <cereal/archives/portable_binary.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "allocation_counter.hpp"
#include "trial_game.hpp"

namespace {

constexpr std::size_t entity_count = 100'000;

// ------------------------------------------------------------- the world

// A one-byte underlying type, as a game would declare it: cereal then writes
// one byte per kind, which is the fairest cereal size.
enum class ItemKind : std::uint8_t { sword, shield, bow, arrow, potion, scroll, food, gem };
BOOST_DESCRIBE_ENUM(ItemKind, sword, shield, bow, arrow, potion, scroll, food, gem)
constexpr int item_kind_count = 8;

using coordinate = bitrep::quantized<-4096.f, 4096.f, 0.01f>; // 819,200 steps: 20 bits
using rotation = bitrep::quat<9>;                               // 29 bits

struct Transform {
    coordinate x, y, z;
    rotation orientation;
};
BOOST_DESCRIBE_STRUCT(Transform, (), (x, y, z, orientation))

struct Item {
    ItemKind kind = ItemKind::sword;
    bitrep::ranged<int, 1, 99> count = 1;
    bitrep::ranged<int, 0, 100> durability;
    friend bool operator==(const Item&, const Item&) = default;
};
BOOST_DESCRIBE_STRUCT(Item, (), (kind, count, durability))

struct Entity {
    Transform transform;
    bitrep::ranged<int, 0, 1000> health;
    bitrep::ranged<int, 0, 100> armor;
    bitrep::ranged<int, 1, 60> level = 1;
    bitrep::ranged<std::uint32_t, 0, 1'000'000> id;
    bitrep::bounded_string<16> name;
    bitrep::bounded_vector<Item, 8> inventory;
};
BOOST_DESCRIBE_STRUCT(Entity, (), (transform, health, armor, level, id, name, inventory))

struct World {
    bitrep::bounded_vector<Entity, entity_count> entities;
};
BOOST_DESCRIBE_STRUCT(World, (), (entities))

/// The program's next version of Entity, which must still load the files
/// the first one wrote: gold added, armor removed, level's range widened.
/// Its schema differs from the file's, so loading goes through the schema path.
namespace next_version {
struct Entity {
    Transform transform;
    bitrep::ranged<int, 0, 1000> health;
    bitrep::ranged<int, 1, 200> level = 1;
    bitrep::ranged<std::uint32_t, 0, 1'000'000> id;
    bitrep::bounded_string<16> name;
    bitrep::bounded_vector<Item, 8> inventory;
    bitrep::ranged<int, 0, 9999> gold;
};
BOOST_DESCRIBE_STRUCT(Entity, (), (transform, health, level, id, name, inventory, gold))

struct World {
    bitrep::bounded_vector<Entity, entity_count> entities;
};
BOOST_DESCRIBE_STRUCT(World, (), (entities))
} // namespace next_version

/// The same values as a game using cereal would hold them.
namespace plain {
struct Item {
    ItemKind kind = ItemKind::sword;
    int count = 1;
    int durability = 0;

    template <class Archive>
    void serialize(Archive& archive)
    {
        archive(kind, count, durability);
    }
    friend bool operator==(const Item&, const Item&) = default;
};

struct Entity {
    float x = 0, y = 0, z = 0;
    float qx = 0, qy = 0, qz = 0, qw = 1;
    int health = 0, armor = 0, level = 1;
    std::uint32_t id = 0;
    std::string name;
    std::vector<Item> inventory;

    template <class Archive>
    void serialize(Archive& archive)
    {
        archive(x, y, z, qx, qy, qz, qw, health, armor, level, id, name, inventory);
    }
    friend bool operator==(const Entity&, const Entity&) = default;
};

struct World {
    std::vector<Entity> entities;

    template <class Archive>
    void serialize(Archive& archive)
    {
        archive(entities);
    }
    friend bool operator==(const World&, const World&) = default;
};
} // namespace plain

// ------------------------------------------------------------ generation

/// Numbers from the raw mt19937 output only: the standard's distributions
/// may differ between standard libraries, and the data should not.
class generator {
public:
    explicit generator(std::uint32_t seed) : engine_(seed) {}

    /// In [low, high).
    float real(float low, float high) { return low + (high - low) * static_cast<float>(engine_() >> 8) * 0x1p-24f; }
    /// In [low, high].
    int integer(int low, int high)
    {
        return low + static_cast<int>(engine_() % static_cast<std::uint32_t>(high - low + 1));
    }

private:
    std::mt19937 engine_;
};

rotation random_rotation(generator& random)
{
    // Rejection keeps the direction uniform and avoids normalizing ~0.
    for (;;) {
        const float x = random.real(-1, 1), y = random.real(-1, 1), z = random.real(-1, 1), w = random.real(-1, 1);
        const float norm2 = x * x + y * y + z * z + w * w;
        if (norm2 > 0.01f && norm2 <= 1.0f) {
            const float scale = 1.0f / std::sqrt(norm2);
            return rotation{x * scale, y * scale, z * scale, w * scale};
        }
    }
}

World generate_world()
{
    generator random(20261121);
    World world;
    world.entities.reserve(entity_count);
    for (std::size_t i = 0; i < entity_count; ++i) {
        Entity& e = world.entities.emplace_back();
        e.transform.x = random.real(-4096, 4096);
        e.transform.y = random.real(-4096, 4096);
        e.transform.z = random.real(-4096, 4096);
        e.transform.orientation = random_rotation(random);
        e.health = random.integer(0, 1000);
        e.armor = random.integer(0, 100);
        e.level = random.integer(1, 60);
        e.id = static_cast<std::uint32_t>(random.integer(0, 1'000'000));
        const int letters = random.integer(4, 12);
        for (int c = 0; c < letters; ++c) {
            const int letter = random.integer(0, 51);
            e.name += static_cast<char>(letter < 26 ? 'a' + letter : 'A' + letter - 26);
        }
        const int items = random.integer(0, 8);
        for (int n = 0; n < items; ++n)
            e.inventory.push_back(Item{static_cast<ItemKind>(random.integer(0, item_kind_count - 1)),
                                       random.integer(1, 99), random.integer(0, 100)});
    }
    return world;
}

plain::World to_plain(const World& world)
{
    plain::World result;
    result.entities.reserve(world.entities.size());
    for (const Entity& e : world.entities) {
        plain::Entity& p = result.entities.emplace_back();
        const Transform& t = e.transform;
        p.x = t.x;
        p.y = t.y;
        p.z = t.z;
        p.qx = t.orientation.x;
        p.qy = t.orientation.y;
        p.qz = t.orientation.z;
        p.qw = t.orientation.w;
        p.health = e.health;
        p.armor = e.armor;
        p.level = e.level;
        p.id = e.id;
        p.name = e.name.str();
        for (const Item& item : e.inventory)
            p.inventory.push_back(plain::Item{item.kind, item.count, item.durability});
    }
    return result;
}

// ------------------------------------------------------ files and checks

std::filesystem::path scratch_directory;

void remove_scratch_directory()
{
    if (!scratch_directory.empty()) {
        std::error_code ignored;
        std::filesystem::remove_all(scratch_directory, ignored);
        scratch_directory.clear();
    }
}

[[noreturn]] void fail(const std::string& what)
{
    std::fprintf(stderr, "CHECK FAILED: %s\n", what.c_str());
    remove_scratch_directory(); // abort() runs no atexit handlers
    std::abort();
}

void check(bool condition, const std::string& what)
{
    if (!condition)
        fail(what);
}

void check(const bitrep::status& result, const std::string& what)
{
    if (!result)
        fail(what + ": " + result.message());
}

/// Makes a file written through a stream as durable as bitrep::save makes
/// its own (minus the rename: cereal's file is rewritten in place).
bool sync_file(const std::filesystem::path& path)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    const bool synced = ::fsync(fd) == 0;
    return ::close(fd) == 0 && synced;
}

std::string read_whole_file(const std::filesystem::path& path)
{
    std::ifstream file(path, std::ios::binary);
    std::ostringstream contents;
    contents << file.rdbuf();
    return std::move(contents).str();
}

void save_with_cereal(const std::filesystem::path& path, const plain::World& world)
{
    {
        std::ofstream file(path, std::ios::binary | std::ios::trunc);
        {
            cereal::PortableBinaryOutputArchive archive(file);
            archive(world);
        }
        file.close();
        if (!file)
            fail("cereal: writing " + path.native() + " failed");
    }
    if (!sync_file(path))
        fail("cereal: fsync of " + path.native() + " failed");
}

/// A loaded transform is the source's to within each quantization step; a
/// rotation may come back as -q (the same rotation).
bool same_transform(const Transform& loaded, const Transform& source)
{
    constexpr float position_slack = 0.5f * coordinate::resolution + 4096.f * 0x1p-23f;
    const auto near = [](coordinate a, coordinate b) { return std::fabs(a.value() - b.value()) <= position_slack; };
    if (!near(loaded.x, source.x) || !near(loaded.y, source.y) || !near(loaded.z, source.z))
        return false;
    // Each sent component is within half a step (sqrt(2) / 511 / 2) of the
    // source; the rebuilt largest one may err by a few times that.
    constexpr float rotation_slack = 0.01f;
    const rotation& p = loaded.orientation;
    const rotation& q = source.orientation;
    const float same = std::fmax(std::fmax(std::fabs(p.x - q.x), std::fabs(p.y - q.y)),
                                 std::fmax(std::fabs(p.z - q.z), std::fabs(p.w - q.w)));
    const float flipped = std::fmax(std::fmax(std::fabs(p.x + q.x), std::fabs(p.y + q.y)),
                                    std::fmax(std::fabs(p.z + q.z), std::fabs(p.w + q.w)));
    return same <= rotation_slack || flipped <= rotation_slack;
}

bool same_world(const World& loaded, const World& source)
{
    if (loaded.entities.size() != source.entities.size())
        return false;
    for (std::size_t i = 0; i < source.entities.size(); ++i) {
        const Entity& a = loaded.entities[i];
        const Entity& b = source.entities[i];
        if (!same_transform(a.transform, b.transform) || a.health != b.health || a.armor != b.armor ||
            a.level != b.level || a.id != b.id || a.name != b.name || a.inventory != b.inventory)
            return false;
    }
    return true;
}

bool carried_over(const next_version::World& loaded, const World& source)
{
    if (loaded.entities.size() != source.entities.size())
        return false;
    for (std::size_t i = 0; i < source.entities.size(); ++i) {
        const next_version::Entity& a = loaded.entities[i];
        const Entity& b = source.entities[i];
        if (!same_transform(a.transform, b.transform) || a.health != b.health || a.level.value() != b.level.value() ||
            a.id != b.id || a.name != b.name || a.inventory != b.inventory || a.gold != 0)
            return false;
    }
    return true;
}

// ----------------------------------------------------------- the fixture

struct fixture {
    World world;
    plain::World plain_world;
    std::vector<std::uint8_t> bitrep_bytes;
    std::size_t bitrep_schema_bytes = 0;
    std::string cereal_bytes;
    std::filesystem::path bitrep_file;
    std::filesystem::path cereal_file;
};

fixture* shared = nullptr;

void prepare(fixture& f)
{
    char directory[] = "/tmp/save_bench.XXXXXX";
    check(::mkdtemp(directory) != nullptr, "mkdtemp in /tmp");
    scratch_directory = directory;
    std::atexit(remove_scratch_directory);
    f.bitrep_file = scratch_directory / "world.brsv";
    f.cereal_file = scratch_directory / "world.cereal";

    f.world = generate_world();
    f.plain_world = to_plain(f.world);

    // bitrep in memory: the fast path, back to the source within each step.
    check(bitrep::save_to_bytes(f.world, f.bitrep_bytes), "bitrep::save_to_bytes");
    bitrep::save_header header;
    check(bitrep::read_save_header(f.bitrep_bytes, header), "bitrep::read_save_header");
    f.bitrep_schema_bytes = header.schema_bytes;
    {
        World loaded;
        bitrep::load_info info;
        check(bitrep::load_from_bytes(f.bitrep_bytes, loaded, info), "bitrep::load_from_bytes");
        check(info.path == bitrep::load_info::route::fast, "bitrep: the unchanged World loads by the fast path");
        check(same_world(loaded, f.world), "bitrep: the memory round trip gives back the source");
    }
    // The changed struct: the schema path, every kept value carried over.
    {
        next_version::World loaded;
        bitrep::load_info info;
        check(bitrep::load_from_bytes(f.bitrep_bytes, loaded, info), "bitrep: loading into next_version::World");
        check(info.path == bitrep::load_info::route::schema,
              "bitrep: next_version::World loads by the schema path");
        check(carried_over(loaded, f.world), "bitrep: the schema path carries every kept value over");
    }
    // bitrep on disk: the same bytes, the same world.
    {
        check(bitrep::save(f.bitrep_file, f.world), "bitrep::save");
        const std::string on_disk = read_whole_file(f.bitrep_file);
        check(on_disk.size() == f.bitrep_bytes.size() &&
                  std::memcmp(on_disk.data(), f.bitrep_bytes.data(), on_disk.size()) == 0,
              "bitrep: the file holds save_to_bytes' bytes");
        World loaded;
        check(bitrep::load(f.bitrep_file, loaded), "bitrep::load");
        check(same_world(loaded, f.world), "bitrep: the disk round trip gives back the source");
    }

    // cereal in memory and on disk: exact round trips, the same bytes.
    {
        std::ostringstream out(std::ios::binary);
        {
            cereal::PortableBinaryOutputArchive archive(out);
            archive(f.plain_world);
        }
        f.cereal_bytes = std::move(out).str();
        std::istringstream in(f.cereal_bytes, std::ios::binary);
        plain::World loaded;
        {
            cereal::PortableBinaryInputArchive archive(in);
            archive(loaded);
        }
        check(loaded == f.plain_world, "cereal: the memory round trip gives back the source exactly");
    }
    {
        save_with_cereal(f.cereal_file, f.plain_world);
        check(read_whole_file(f.cereal_file) == f.cereal_bytes, "cereal: the file holds the memory bytes");
        std::ifstream in(f.cereal_file, std::ios::binary);
        plain::World loaded;
        {
            cereal::PortableBinaryInputArchive archive(in);
            archive(loaded);
        }
        check(loaded == f.plain_world, "cereal: the disk round trip gives back the source exactly");
    }

    const auto bitrep_size = static_cast<double>(f.bitrep_bytes.size());
    const auto cereal_size = static_cast<double>(f.cereal_bytes.size());
    std::printf("save_bench: %zu entities\n"
                "  bitrep file: %zu bytes (%zu header, %zu schema, %zu payload), %.2f bytes per entity\n"
                "  cereal file: %zu bytes, %.2f bytes per entity\n"
                "  bitrep / cereal size: %.3f\n",
                entity_count, f.bitrep_bytes.size(), bitrep::save_header::size, f.bitrep_schema_bytes,
                f.bitrep_bytes.size() - bitrep::save_header::size - f.bitrep_schema_bytes,
                bitrep_size / entity_count, f.cereal_bytes.size(), cereal_size / entity_count,
                bitrep_size / cereal_size);
    std::fflush(stdout);
    std::fprintf(stderr, "verified: both round trips, the disk files, and the schema path\n");
}

// ------------------------------------------------------------ benchmarks

void report(benchmark::State& state, std::size_t file_bytes)
{
    state.SetItemsProcessed(state.iterations() * static_cast<benchmark::IterationCount>(entity_count));
    state.SetBytesProcessed(state.iterations() * static_cast<benchmark::IterationCount>(file_bytes));
    state.counters["file_bytes"] = static_cast<double>(file_bytes);
}

void report_bitrep(benchmark::State& state)
{
    report(state, shared->bitrep_bytes.size());
    state.counters["schema_bytes"] = static_cast<double>(shared->bitrep_schema_bytes);
    state.counters["size_vs_cereal"] =
        static_cast<double>(shared->bitrep_bytes.size()) / static_cast<double>(shared->cereal_bytes.size());
}

void BM_bitrep_save_memory(benchmark::State& state)
{
    std::vector<std::uint8_t> out; // save_to_bytes replaces the contents and keeps the capacity
    bitrep_bench::allocation_meter allocations;
    bool ok = true;
    for (auto _ : state) {
        ok &= bitrep::save_to_bytes(shared->world, out).ok();
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    allocations.report(state);
    if (!ok)
        state.SkipWithError("bitrep::save_to_bytes failed");
    report_bitrep(state);
}
BENCHMARK(BM_bitrep_save_memory)->Unit(benchmark::kMillisecond);

void BM_cereal_save_memory(benchmark::State& state)
{
    // Rewound rather than recreated, so that the string buffer is reused
    // as bitrep's vector is.
    std::ostringstream out(std::ios::binary);
    bitrep_bench::allocation_meter allocations;
    for (auto _ : state) {
        out.seekp(0);
        {
            cereal::PortableBinaryOutputArchive archive(out);
            archive(shared->plain_world);
        }
        benchmark::ClobberMemory(); // the stream's buffer counts as read
    }
    allocations.report(state);
    if (static_cast<std::size_t>(out.tellp()) != shared->cereal_bytes.size())
        state.SkipWithError("cereal wrote another size than before timing");
    report(state, shared->cereal_bytes.size());
}
BENCHMARK(BM_cereal_save_memory)->Unit(benchmark::kMillisecond);

// Where a load goes: into a world the game keeps (through load_from_bytes,
// which builds a new world per load to stay all or nothing, or through a
// bitrep::loader, which keeps its working world between loads: the steady
// state of a game that reloads, or a server loading player after player), or
// into a new world per load (a game starting up; allocating it and, at the
// end of the iteration, freeing it are timed, on both sides).
enum class into { kept_world, kept_world_with_loader, fresh_world };

template <class Target, into Where>
void bitrep_load_memory(benchmark::State& state, bitrep::load_info::route expected)
{
    Target kept;
    bitrep::loader<Target> loader;
    bitrep::load_info info;
    bitrep_bench::allocation_meter allocations;
    bool ok = true;
    for (auto _ : state) {
        Target fresh;
        Target& target = Where == into::fresh_world ? fresh : kept;
        if constexpr (Where == into::kept_world_with_loader)
            ok &= loader.load_from_bytes(shared->bitrep_bytes, target, info).ok();
        else
            ok &= bitrep::load_from_bytes(shared->bitrep_bytes, target, info).ok();
        benchmark::DoNotOptimize(target.entities.data());
        benchmark::ClobberMemory();
    }
    allocations.report(state);
    if (!ok || info.path != expected)
        state.SkipWithError("bitrep::load_from_bytes failed or took another path than expected");
    report_bitrep(state);
}

template <into Where>
void cereal_load_memory(benchmark::State& state)
{
    static_assert(Where != into::kept_world_with_loader, "cereal has no loader");
    std::istringstream in(shared->cereal_bytes, std::ios::binary);
    plain::World kept;
    bitrep_bench::allocation_meter allocations;
    for (auto _ : state) {
        plain::World fresh;
        plain::World& target = Where == into::fresh_world ? fresh : kept;
        in.clear();
        in.seekg(0);
        {
            cereal::PortableBinaryInputArchive archive(in);
            archive(target);
        }
        benchmark::DoNotOptimize(target.entities.data());
        benchmark::ClobberMemory();
    }
    allocations.report(state);
    report(state, shared->cereal_bytes.size());
}

void BM_bitrep_load_memory(benchmark::State& state)
{
    bitrep_load_memory<World, into::kept_world>(state, bitrep::load_info::route::fast);
}
BENCHMARK(BM_bitrep_load_memory)->Unit(benchmark::kMillisecond);

void BM_bitrep_loader_load_memory(benchmark::State& state)
{
    bitrep_load_memory<World, into::kept_world_with_loader>(state, bitrep::load_info::route::fast);
}
BENCHMARK(BM_bitrep_loader_load_memory)->Unit(benchmark::kMillisecond);

void BM_bitrep_load_memory_schema_path(benchmark::State& state)
{
    bitrep_load_memory<next_version::World, into::kept_world>(state, bitrep::load_info::route::schema);
}
BENCHMARK(BM_bitrep_load_memory_schema_path)->Unit(benchmark::kMillisecond);

void BM_bitrep_loader_load_memory_schema_path(benchmark::State& state)
{
    bitrep_load_memory<next_version::World, into::kept_world_with_loader>(state, bitrep::load_info::route::schema);
}
BENCHMARK(BM_bitrep_loader_load_memory_schema_path)->Unit(benchmark::kMillisecond);

void BM_cereal_load_memory(benchmark::State& state) { cereal_load_memory<into::kept_world>(state); }
BENCHMARK(BM_cereal_load_memory)->Unit(benchmark::kMillisecond);

void BM_bitrep_load_memory_fresh(benchmark::State& state)
{
    bitrep_load_memory<World, into::fresh_world>(state, bitrep::load_info::route::fast);
}
BENCHMARK(BM_bitrep_load_memory_fresh)->Unit(benchmark::kMillisecond);

void BM_cereal_load_memory_fresh(benchmark::State& state) { cereal_load_memory<into::fresh_world>(state); }
BENCHMARK(BM_cereal_load_memory_fresh)->Unit(benchmark::kMillisecond);

void BM_bitrep_save_disk(benchmark::State& state)
{
    bitrep_bench::allocation_meter allocations;
    bool ok = true;
    for (auto _ : state)
        ok &= bitrep::save(shared->bitrep_file, shared->world).ok();
    allocations.report(state);
    if (!ok)
        state.SkipWithError("bitrep::save failed");
    report_bitrep(state);
}
BENCHMARK(BM_bitrep_save_disk)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_cereal_save_disk(benchmark::State& state)
{
    bitrep_bench::allocation_meter allocations;
    for (auto _ : state)
        save_with_cereal(shared->cereal_file, shared->plain_world);
    allocations.report(state);
    report(state, shared->cereal_bytes.size());
}
BENCHMARK(BM_cereal_save_disk)->Unit(benchmark::kMillisecond)->UseRealTime();

template <bool Reuse>
void bitrep_load_disk(benchmark::State& state)
{
    World target;
    bitrep::loader<World> loader;
    bitrep_bench::allocation_meter allocations;
    bool ok = true;
    for (auto _ : state) {
        if constexpr (Reuse)
            ok &= loader.load(shared->bitrep_file, target).ok();
        else
            ok &= bitrep::load(shared->bitrep_file, target).ok();
        benchmark::DoNotOptimize(target.entities.data());
        benchmark::ClobberMemory();
    }
    allocations.report(state);
    if (!ok)
        state.SkipWithError("bitrep::load failed");
    report_bitrep(state);
}

void BM_bitrep_loader_load_disk(benchmark::State& state) { bitrep_load_disk<true>(state); }
BENCHMARK(BM_bitrep_loader_load_disk)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_bitrep_load_disk(benchmark::State& state) { bitrep_load_disk<false>(state); }
BENCHMARK(BM_bitrep_load_disk)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_cereal_load_disk(benchmark::State& state)
{
    plain::World target;
    bitrep_bench::allocation_meter allocations;
    for (auto _ : state) {
        std::ifstream in(shared->cereal_file, std::ios::binary);
        {
            cereal::PortableBinaryInputArchive archive(in);
            archive(target);
        }
        benchmark::DoNotOptimize(target.entities.data());
        benchmark::ClobberMemory();
    }
    allocations.report(state);
    report(state, shared->cereal_bytes.size());
}
BENCHMARK(BM_cereal_load_disk)->Unit(benchmark::kMillisecond)->UseRealTime();

// ------------------------------------------------- async, metadata, zstd

/// The encode alone (to_bytes into a reused vector: no header, schema or
/// CRC): what save_async's caller should pay at most.
void BM_bitrep_encode_only(benchmark::State& state)
{
    std::vector<std::uint8_t> out;
    bool ok = true;
    for (auto _ : state) {
        ok &= bitrep::to_bytes(shared->world, out).ok();
        benchmark::DoNotOptimize(out.data());
    }
    if (!ok)
        state.SkipWithError("to_bytes failed");
    report(state, out.size());
}
BENCHMARK(BM_bitrep_encode_only)->Unit(benchmark::kMillisecond);

/// The calling thread's cost of save_async (the encode, and handing the
/// bytes to the saver's thread), next to BM_bitrep_save_disk above, whose
/// caller also waits for the write, fsync and rename. Manual time: only the
/// call is timed; each save is waited for, untimed, before the next.
void BM_bitrep_save_async_calling_thread(benchmark::State& state)
{
    bitrep::saver saver;
    bool ok = true;
    double worker_seconds = 0;
    for (auto _ : state) {
        const auto start = std::chrono::steady_clock::now();
        bitrep::save_handle handle = saver.save(shared->bitrep_file, shared->world);
        const auto returned = std::chrono::steady_clock::now();
        state.SetIterationTime(std::chrono::duration<double>(returned - start).count());
        ok &= handle.wait().ok();
        worker_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - returned).count();
    }
    if (!ok)
        state.SkipWithError("save_async failed");
    state.counters["until_durable_ms"] = 1000.0 * worker_seconds / static_cast<double>(state.iterations());
    report_bitrep(state);
}
BENCHMARK(BM_bitrep_save_async_calling_thread)->Unit(benchmark::kMillisecond)->UseManualTime();

/// A save slot's metadata: what a load menu shows.
struct SlotInfo {
    bitrep::bounded_string<32> name;
    bitrep::ranged_duration<std::chrono::seconds, 0, 100'000'000> play_time;
    std::int64_t saved_at = 0;
    bitrep::bounded_vector<std::uint8_t, 16384> thumbnail; // 64 x 36 RGB: 6,912 bytes
};
BOOST_DESCRIBE_STRUCT(SlotInfo, (), (name, play_time, saved_at, thumbnail))

SlotInfo sample_slot()
{
    SlotInfo slot;
    slot.name = "The Harbour, day 12";
    slot.play_time = std::chrono::hours(41) + std::chrono::minutes(7);
    slot.saved_at = 1'795'000'000;
    std::mt19937 random(5);
    for (int i = 0; i < 64 * 36 * 3; ++i)
        slot.thumbnail.push_back(static_cast<std::uint8_t>(random()));
    return slot;
}

/// read_save_info on the 100,000-entity save with a metadata section, from
/// the page cache (target: under 50 us): the header and metadata are read
/// and checked, the payload is not touched.
void BM_read_save_info_disk(benchmark::State& state)
{
    const std::filesystem::path file = scratch_directory / "slot.brsv";
    const SlotInfo slot = sample_slot();
    if (!bitrep::save(file, shared->world, slot)) {
        state.SkipWithError("save with metadata failed");
        return;
    }
    SlotInfo read;
    bitrep::load_info info;
    bool ok = bitrep::read_save_info(file, read, info).ok() && read.name == slot.name &&
              read.thumbnail.vector() == slot.thumbnail.vector();
    for (auto _ : state) {
        ok &= bitrep::read_save_info(file, read, info).ok();
        benchmark::DoNotOptimize(read.thumbnail.data());
    }
    if (!ok)
        state.SkipWithError("read_save_info failed");
    state.counters["file_bytes"] = static_cast<double>(std::filesystem::file_size(file));
    state.counters["metadata_bytes"] = static_cast<double>(info.header.metadata_bytes());
}
BENCHMARK(BM_read_save_info_disk)->Unit(benchmark::kMicrosecond)->UseRealTime();

bitrep::save_options zstd_at(int level)
{
    bitrep::save_options options;
    options.compression = bitrep::save_compression::zstd;
    options.compression_level = level;
    return options;
}

/// save_to_bytes with the payload compressed, by zstd level.
void BM_bitrep_save_zstd_memory(benchmark::State& state)
{
    const bitrep::save_options options = zstd_at(static_cast<int>(state.range(0)));
    std::vector<std::uint8_t> out;
    bool ok = true;
    for (auto _ : state) {
        ok &= bitrep::save_to_bytes(shared->world, out, options).ok();
        benchmark::DoNotOptimize(out.data());
    }
    if (!ok)
        state.SkipWithError("save_to_bytes with zstd failed");
    report(state, out.size());
    state.counters["size_vs_uncompressed"] =
        static_cast<double>(out.size()) / static_cast<double>(shared->bitrep_bytes.size());
}
BENCHMARK(BM_bitrep_save_zstd_memory)->Arg(1)->Arg(3)->Arg(9)->Arg(19)->Unit(benchmark::kMillisecond);

/// The same number of entities, but only 1,000 distinct ones repeated (a
/// world of placed props, tiles or pooled units in their spawn state):
/// where compression pays on bit-packed data. Level 3; `uncompressed_bytes`
/// is this world's plain save.
void BM_bitrep_save_zstd_memory_repetitive(benchmark::State& state)
{
    static const World repetitive = [] {
        World w;
        for (std::size_t i = 0; i < entity_count; ++i)
            w.entities.push_back(shared->world.entities[i % 1000]);
        return w;
    }();
    std::vector<std::uint8_t> plain;
    bool ok = bitrep::save_to_bytes(repetitive, plain).ok();
    const bitrep::save_options options = zstd_at(static_cast<int>(state.range(0)));
    std::vector<std::uint8_t> out;
    for (auto _ : state) {
        ok &= bitrep::save_to_bytes(repetitive, out, options).ok();
        benchmark::DoNotOptimize(out.data());
    }
    World loaded;
    ok &= bitrep::load_from_bytes(out, loaded).ok() && bitrep::save_to_bytes(loaded) == plain;
    if (!ok)
        state.SkipWithError("the repetitive world's compressed save failed");
    report(state, out.size());
    state.counters["uncompressed_bytes"] = static_cast<double>(plain.size());
    state.counters["size_vs_uncompressed"] = static_cast<double>(out.size()) / static_cast<double>(plain.size());
}
BENCHMARK(BM_bitrep_save_zstd_memory_repetitive)->Arg(1)->Arg(3)->Unit(benchmark::kMillisecond);

/// load_from_bytes of the compressed save (decompression, CRC, decode).
void BM_bitrep_load_zstd_memory(benchmark::State& state)
{
    std::vector<std::uint8_t> file;
    bool ok = bitrep::save_to_bytes(shared->world, file, zstd_at(static_cast<int>(state.range(0)))).ok();
    bitrep::loader<World> loader;
    World target;
    for (auto _ : state) {
        ok &= loader.load_from_bytes(file, target).ok();
        benchmark::DoNotOptimize(target.entities.data());
    }
    if (!ok)
        state.SkipWithError("load of the compressed save failed");
    report(state, file.size());
}
BENCHMARK(BM_bitrep_load_zstd_memory)->Arg(1)->Arg(3)->Arg(9)->Arg(19)->Unit(benchmark::kMillisecond);

void BM_bitrep_save_zstd_disk(benchmark::State& state)
{
    const bitrep::save_options options = zstd_at(3);
    bool ok = true;
    for (auto _ : state)
        ok &= bitrep::save(shared->bitrep_file, shared->world, options).ok();
    if (!ok)
        state.SkipWithError("bitrep::save with zstd failed");
    report(state, static_cast<std::size_t>(std::filesystem::file_size(shared->bitrep_file)));
}
BENCHMARK(BM_bitrep_save_zstd_disk)->Unit(benchmark::kMillisecond)->UseRealTime();

// ---------------------------------------------------------- schema size

/// The schema a save of `value` carries: format 3's compact encoding
/// (schema_bytes) against the names-inline one formats 1 and 2 wrote
/// (schema_bytes_before), for the trial game (bench/trial_game.hpp,
/// its world and its slot) and for types the encoding was not tuned on
/// (this file's World, its next version and SlotInfo). Timed: encoding the
/// schema, which a program does once per saved type.
template <class T>
void BM_schema_bytes(benchmark::State& state, const T& value)
{
    const bitrep::schema& tree = bitrep::schema_of<T>().tree;
    std::vector<std::uint8_t> before;
    std::vector<std::uint8_t> after;
    std::vector<std::uint8_t> file;
    bitrep::save_header header;
    bool ok = bitrep::encode_schema(tree, before, bitrep::schema_encoding::names_inline).ok() &&
              bitrep::save_to_bytes(value, file).ok() && bitrep::read_save_header(file, header).ok();
    for (auto _ : state) {
        ok &= bitrep::encode_schema(tree, after).ok();
        benchmark::DoNotOptimize(after.data());
    }
    if (!ok)
        state.SkipWithError("encode_schema or save_to_bytes failed");
    state.counters["schema_bytes_before"] = static_cast<double>(before.size());
    state.counters["schema_bytes"] = static_cast<double>(after.size());
    state.counters["percent"] = 100.0 * static_cast<double>(after.size()) / static_cast<double>(before.size());
    state.counters["payload_bytes"] = static_cast<double>(header.payload_bytes());
}
BENCHMARK_CAPTURE(BM_schema_bytes, trial_world, trial::sample_world());
BENCHMARK_CAPTURE(BM_schema_bytes, trial_slot, trial::sample_slot());
BENCHMARK_CAPTURE(BM_schema_bytes, world, World{});
BENCHMARK_CAPTURE(BM_schema_bytes, next_version_world, next_version::World{});
BENCHMARK_CAPTURE(BM_schema_bytes, slot_info, sample_slot());

/// The trial's whole save file (the world with its slot as metadata), as
/// format 2 wrote it (file_bytes_before: the same header, payload and
/// metadata payload, its schemas inline) and as format 3 does.
void BM_trial_save_file(benchmark::State& state)
{
    const trial::World world = trial::sample_world();
    const trial::Slot slot = trial::sample_slot();
    std::vector<std::uint8_t> file;
    bool ok = true;
    for (auto _ : state) {
        ok &= bitrep::save_to_bytes(world, slot, file).ok();
        benchmark::DoNotOptimize(file.data());
    }
    std::vector<std::uint8_t> world_schema;
    std::vector<std::uint8_t> slot_schema;
    ok &= bitrep::encode_schema(bitrep::schema_of<trial::World>().tree, world_schema,
                                bitrep::schema_encoding::names_inline)
              .ok() &&
          bitrep::encode_schema(bitrep::schema_of<trial::Slot>().tree, slot_schema,
                                bitrep::schema_encoding::names_inline)
              .ok();
    if (!ok)
        state.SkipWithError("save_to_bytes failed");
    const std::size_t compact_schemas =
        bitrep::schema_of<trial::World>().encoded.size() + bitrep::schema_of<trial::Slot>().encoded.size();
    state.counters["file_bytes"] = static_cast<double>(file.size());
    state.counters["file_bytes_before"] =
        static_cast<double>(file.size() - compact_schemas + world_schema.size() + slot_schema.size());
}
BENCHMARK(BM_trial_save_file);

} // namespace

int main(int argc, char** argv)
{
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    fixture data;
    shared = &data;
    prepare(data);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
