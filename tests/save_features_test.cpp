// Save features (docs/formats/save-format.md): a metadata section
// read without the payload (read_save_info), zstd compression of the
// payload, and asynchronous saves (save_async, saver), each keeping the
// guarantees of every save: atomic replace, all-or-nothing load, every bit
// flip and truncation refused. Includes a writer killed mid-write.
#include <bitrep/bitrep.hpp>
#include <bitrep/save/async.hpp>

#include <gtest/gtest.h>

#include "test_oracle.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <span>
#include <limits>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {
/// While set, every hard link in this program is refused as FAT and exFAT
/// refuse one: bitrep's keep_backup then meets a file system without hard
/// links through save and save_async, which take no file_system_calls.
std::atomic<bool> refuse_links{false};
} // namespace

// Replaces the C library's link() in this test program (bitrep is linked in
// statically), and does what it does unless refuse_links is set.
extern "C" int link(const char* existing, const char* created) noexcept
{
    if (refuse_links) {
        errno = EPERM;
        return -1;
    }
    return ::linkat(AT_FDCWD, existing, AT_FDCWD, created, 0);
}

namespace {

using oracle::bytes;

struct SlotInfo {
    static constexpr std::string_view bitrep_name = "SlotInfo";
    bitrep::bounded_string<32> name;
    bitrep::ranged_duration<std::chrono::seconds, 0, 100'000'000> play_time = 0s;
    std::int64_t saved_at = 0; // Unix seconds
    bitrep::bounded_vector<std::uint8_t, 4096> thumbnail;
};
BOOST_DESCRIBE_STRUCT(SlotInfo, (), (name, play_time, saved_at, thumbnail))

struct Unit {
    bitrep::ranged<int, 0, 1000> hp = 0;
    bitrep::quantized<-1000.f, 1000.f, 0.01f> x;
    bitrep::bounded_string<8> tag;
};
BOOST_DESCRIBE_STRUCT(Unit, (), (hp, x, tag))

struct World {
    static constexpr std::string_view bitrep_name = "World";
    bitrep::ranged<int, 0, 1'000'000> turn = 0;
    bitrep::bounded_vector<Unit, 200'000> units;
};
BOOST_DESCRIBE_STRUCT(World, (), (turn, units))

/// A world of `n` units whose values repeat (compressible), every unit's hp
/// being `mark` so that a whole file can be told from a mix of two.
World make_world(std::size_t n, int mark)
{
    World w;
    w.turn = mark;
    for (std::size_t i = 0; i < n; ++i) {
        Unit u;
        u.hp = mark;
        u.x = static_cast<float>(i % 64);
        u.tag = "grunt";
        w.units.push_back(u);
    }
    return w;
}

/// Every unit of a loaded world carries the same mark, the turn's.
bool whole(const World& w)
{
    for (const Unit& u : w.units)
        if (u.hp != w.turn)
            return false;
    return true;
}

SlotInfo slot(std::string_view name)
{
    SlotInfo s;
    s.name = name;
    s.play_time = 3h + 25min;
    s.saved_at = 1'795'000'000;
    for (int i = 0; i < 1200; ++i)
        s.thumbnail.push_back(static_cast<std::uint8_t>(i * 7));
    return s;
}

bool same_slot(const SlotInfo& a, const SlotInfo& b)
{
    return a.name == b.name && a.play_time == b.play_time && a.saved_at == b.saved_at &&
           a.thumbnail.vector() == b.thumbnail.vector();
}

class SaveFiles : public ::testing::Test {
protected:
    void SetUp() override
    {
        dir_ = fs::temp_directory_path() /
               ("bitrep_save_features_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path path(const std::string& name) const { return dir_ / name; }
    // The temporaries in the folder; of one writer process only when given
    // its pid (a temporary's name carries its writer's pid).
    std::vector<std::string> temporaries(pid_t writer = 0) const
    {
        const std::string mark = writer == 0 ? ".tmp-" : ".tmp-" + std::to_string(writer) + "-";
        std::vector<std::string> found;
        for (const auto& entry : fs::directory_iterator(dir_))
            if (entry.path().filename().native().find(mark) != std::string::npos)
                found.push_back(entry.path().filename().native());
        return found;
    }

    fs::path dir_;
};

bytes read_all(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    return bytes(std::istreambuf_iterator<char>(in), {});
}
void write_all(const fs::path& p, const bytes& data)
{
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
}

} // namespace

// ---------------------------------------------------------------- metadata

TEST(SaveMetadata, ASaveWithMetadataAndAPlainOneAreBothFormat3)
{
    const World world = make_world(50, 7);
    bytes plain;
    ASSERT_TRUE(bitrep::save_to_bytes(world, plain));
    EXPECT_EQ(plain[4], 3);
    bytes with_meta;
    ASSERT_TRUE(bitrep::save_to_bytes(world, slot("Chapter 3"), with_meta));
    EXPECT_EQ(with_meta[4], 3);
    bitrep::load_info info;
    World loaded;
    ASSERT_TRUE(bitrep::load_from_bytes(with_meta, loaded, info));
    EXPECT_EQ(info.path, bitrep::load_info::route::fast);
    EXPECT_EQ(loaded.units.size(), 50u);
    EXPECT_TRUE(whole(loaded));
    // The payload and schema are the plain save's bytes, after the metadata.
    EXPECT_TRUE(std::equal(plain.begin() + 64, plain.end(), with_meta.end() - static_cast<std::ptrdiff_t>(plain.size() - 64)));
    SlotInfo meta;
    ASSERT_TRUE(bitrep::read_save_info_from_bytes(with_meta, meta, info));
    EXPECT_TRUE(info.header.has_metadata());
    EXPECT_TRUE(same_slot(meta, slot("Chapter 3")));
}

TEST_F(SaveFiles, ReadSaveInfoReadsTheMetadataWithoutThePayload)
{
    const fs::path file = path("slot1.sav");
    ASSERT_TRUE(bitrep::save(file, make_world(20000, 3), slot("Harbour")));
    SlotInfo meta;
    bitrep::load_info info;
    ASSERT_TRUE(bitrep::read_save_info(file, meta, info));
    EXPECT_TRUE(same_slot(meta, slot("Harbour")));
    EXPECT_EQ(info.header.save_version, 1u);
    // Damage the payload's last byte: the listing still reads (it never
    // touches the payload), the load refuses.
    bytes data = read_all(file);
    data.back() ^= 0x10;
    write_all(file, data);
    SlotInfo again;
    ASSERT_TRUE(bitrep::read_save_info(file, again, info));
    EXPECT_TRUE(same_slot(again, meta));
    World w;
    EXPECT_EQ(bitrep::load(file, w).code(), bitrep::error::corrupt);
    // A save without metadata: ok, nothing read, the caller's meta as it was.
    const fs::path bare = path("bare.sav");
    ASSERT_TRUE(bitrep::save(bare, make_world(3, 1)));
    SlotInfo untouched = slot("kept");
    ASSERT_TRUE(bitrep::read_save_info(bare, untouched, info));
    EXPECT_FALSE(info.header.has_metadata());
    EXPECT_TRUE(same_slot(untouched, slot("kept")));
    // Missing file, and a metadata section above the caller's limit.
    EXPECT_EQ(bitrep::read_save_info(path("none.sav"), meta, info).code(), bitrep::error::not_found);
    bitrep::load_options tight;
    tight.max_metadata_bytes = 100;
    EXPECT_EQ(bitrep::read_save_info(file, meta, info, tight).code(), bitrep::error::io_error);
}

TEST(SaveMetadata, EveryBitFlipInTheHeaderOrMetadataAndEveryTruncationIsRefused)
{
    SlotInfo small = slot("x");
    small.thumbnail = {1, 2, 3};
    bytes good;
    ASSERT_TRUE(bitrep::save_to_bytes(make_world(4, 2), small, good));
    bitrep::load_info info;
    SlotInfo probe;
    ASSERT_TRUE(bitrep::read_save_info_from_bytes(good, probe, info));
    const std::size_t metadata_end = 64 + static_cast<std::size_t>(info.header.metadata_bytes());
    std::size_t refused_info = 0;
    std::size_t refused_load = 0;
    for (std::size_t bit = 0; bit < good.size() * 8; ++bit) {
        bytes damaged = good;
        damaged[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
        SlotInfo meta = slot("before");
        const bitrep::status st = bitrep::read_save_info_from_bytes(damaged, meta, info);
        if (bit / 8 < metadata_end) {
            // The header and metadata are covered by the info CRC (or are
            // the file CRC itself, which read_save_info does not check).
            if (bit / 8 < 32 || bit / 8 >= 36) {
                EXPECT_FALSE(st) << "bit " << bit;
                refused_info += !st;
            }
        }
        if (!st) {
            EXPECT_TRUE(same_slot(meta, slot("before"))) << "bit " << bit;
        }
        World w = make_world(1, 9);
        EXPECT_FALSE(bitrep::load_from_bytes(damaged, w)) << "bit " << bit;
        refused_load += 1;
        EXPECT_EQ(w.turn, 9);
    }
    EXPECT_EQ(refused_info, (metadata_end - 4) * 8);
    EXPECT_EQ(refused_load, good.size() * 8);
    for (std::size_t n = 0; n < good.size(); ++n) {
        SlotInfo meta = slot("before");
        EXPECT_FALSE(bitrep::read_save_info_from_bytes(std::span(good).first(n), meta, info)) << n;
        World w;
        EXPECT_FALSE(bitrep::load_from_bytes(std::span(good).first(n), w)) << n;
    }
}

TEST(SaveMetadata, EveryBitFlipInTheHeaderOfASaveWithoutMetadataIsRefusedByReadSaveInfo)
{
    bytes good;
    ASSERT_TRUE(bitrep::save_to_bytes(make_world(4, 2), good));
    bitrep::load_info info;
    SlotInfo probe;
    ASSERT_TRUE(bitrep::read_save_info_from_bytes(good, probe, info));
    ASSERT_FALSE(info.header.has_metadata());
    for (std::size_t bit = 0; bit < bitrep::save_header::extended_size * 8; ++bit) {
        if (bit / 8 >= 32 && bit / 8 < 36)
            continue; // the file's CRC, which covers the payload read_save_info does not read
        bytes damaged = good;
        damaged[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
        SlotInfo meta = slot("before");
        EXPECT_FALSE(bitrep::read_save_info_from_bytes(damaged, meta, info)) << "bit " << bit;
        EXPECT_TRUE(same_slot(meta, slot("before"))) << "bit " << bit;
    }
}

TEST_F(SaveFiles, ReadSaveInfoRefusesASaveWithoutMetadataWhoseSaveVersionWasDamagedAsLoadDoes)
{
    const fs::path file = path("bare.sav");
    ASSERT_TRUE(bitrep::save(file, make_world(3, 1)));
    bytes data = read_all(file);
    data[8] ^= 0x02; // save_version 1 reads as 3
    write_all(file, data);
    SlotInfo meta;
    bitrep::load_info info;
    EXPECT_EQ(bitrep::read_save_info(file, meta, info).code(), bitrep::error::corrupt);
    World world;
    EXPECT_EQ(bitrep::load(file, world).code(), bitrep::error::corrupt);
}

namespace saves {
struct SlotInfoV2 { // a field added, one renamed away
    static constexpr std::string_view bitrep_name = "SlotInfo";
    bitrep::bounded_string<64> name;
    std::chrono::milliseconds play_time{0};
    bitrep::ranged<int, 0, 100> difficulty = 50;
};
BOOST_DESCRIBE_STRUCT(SlotInfoV2, (), (name, play_time, difficulty))
} // namespace saves

TEST(SaveMetadata, AMetadataStructMayChangeLikeAnySavedStruct)
{
    bytes file;
    ASSERT_TRUE(bitrep::save_to_bytes(make_world(2, 1), slot("Old"), file));
    saves::SlotInfoV2 meta;
    bitrep::load_info info;
    ASSERT_TRUE(bitrep::read_save_info_from_bytes(file, meta, info));
    EXPECT_EQ(info.path, bitrep::load_info::route::schema);
    EXPECT_EQ(meta.name, "Old");
    EXPECT_EQ(meta.play_time, 3h + 25min); // seconds into milliseconds
    EXPECT_EQ(meta.difficulty, 50);
    EXPECT_EQ(info.dropped_fields, (std::vector<std::string>{"saves::SlotInfoV2.saved_at", "saves::SlotInfoV2.thumbnail"}));
}

// ---------------------------------------------------------------- compression

TEST(SaveCompression, AZstdPayloadIsSmallerAndLoadsTheSame)
{
    if (!bitrep::detail::zstd_available())
        GTEST_SKIP() << "bitrep built without zstd";
    const World world = make_world(20000, 5);
    bytes plain;
    ASSERT_TRUE(bitrep::save_to_bytes(world, plain));
    bitrep::save_options packed;
    packed.compression = bitrep::save_compression::zstd;
    bytes small;
    ASSERT_TRUE(bitrep::save_to_bytes(world, small, packed));
    EXPECT_LT(small.size() * 4, plain.size()) << small.size() << " of " << plain.size();
    bitrep::load_info info;
    World loaded;
    ASSERT_TRUE(bitrep::load_from_bytes(small, loaded, info));
    EXPECT_TRUE(info.header.compressed());
    EXPECT_EQ(loaded.units.size(), 20000u);
    EXPECT_TRUE(whole(loaded));
    EXPECT_EQ(bitrep::save_to_bytes(loaded), plain);
    // With metadata, which stays uncompressed and readable alone.
    bytes both;
    ASSERT_TRUE(bitrep::save_to_bytes(world, slot("zipped"), both, packed));
    SlotInfo meta;
    ASSERT_TRUE(bitrep::read_save_info_from_bytes(both, meta, info));
    EXPECT_TRUE(same_slot(meta, slot("zipped")));
    EXPECT_TRUE(info.header.compressed());
}

namespace {
struct Noise {
    bitrep::bounded_vector<std::uint64_t, 4096> words;
};
} // namespace

TEST(SaveCompression, APayloadZstdCannotShrinkIsStoredAsItIs)
{
    if (!bitrep::detail::zstd_available())
        GTEST_SKIP() << "bitrep built without zstd";
    Noise noise;
    std::mt19937_64 random(11);
    for (int i = 0; i < 3000; ++i)
        noise.words.push_back(random());
    bitrep::save_options packed;
    packed.compression = bitrep::save_compression::zstd;
    bytes file;
    ASSERT_TRUE(bitrep::save_to_bytes(noise, file, packed));
    bitrep::save_header header;
    ASSERT_TRUE(bitrep::read_save_header(file, header));
    EXPECT_FALSE(header.compressed());
    EXPECT_EQ(header.format, 3);
    EXPECT_EQ(header.stored_payload_bytes, header.payload_bytes());
    Noise loaded;
    ASSERT_TRUE(bitrep::load_from_bytes(file, loaded));
    EXPECT_EQ(loaded.words.vector(), noise.words.vector());
}

TEST(SaveCompression, ADamagedCompressedPayloadIsRefusedEvenWithAValidCrc)
{
    if (!bitrep::detail::zstd_available())
        GTEST_SKIP() << "bitrep built without zstd";
    bitrep::save_options packed;
    packed.compression = bitrep::save_compression::zstd;
    bytes file;
    ASSERT_TRUE(bitrep::save_to_bytes(make_world(5000, 4), file, packed));
    bitrep::save_header header;
    ASSERT_TRUE(bitrep::read_save_header(file, header));
    ASSERT_TRUE(header.compressed());
    // Flips in the frame, resealed so that the CRCs pass (a forgery, not
    // damage: damage fails the CRC, below). Whatever the decompressor makes
    // of it is either refused, the world unchanged, or a valid world that
    // saves and loads again: never a crash or a read outside (ASan build).
    const auto frame_at = static_cast<std::size_t>(header.payload_offset());
    std::size_t refused = 0;
    for (std::size_t i = frame_at; i < file.size(); ++i) {
        bytes damaged = file;
        damaged[i] ^= 0x20;
        bitrep::detail::seal_save(damaged, header);
        World w = make_world(1, 8);
        const bitrep::status st = bitrep::load_from_bytes(damaged, w);
        if (!st) {
            ++refused;
            EXPECT_EQ(w.turn, 8);
            EXPECT_EQ(w.units.size(), 1u);
        } else {
            World again;
            EXPECT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(w), again)) << "byte " << i;
        }
    }
    EXPECT_GT(refused, 0u); // the frame's header and sizes are checked
    // A header claiming a larger payload than the frame holds.
    bitrep::save_header bigger = header;
    bigger.payload_bits += 64;
    bytes lying = file;
    bitrep::detail::seal_save(lying, bigger);
    World w;
    EXPECT_EQ(bitrep::load_from_bytes(lying, w).code(), bitrep::error::corrupt);
    // Every unsealed flip is caught by the CRC.
    for (std::size_t bit = 0; bit < 64 * 8; ++bit) {
        bytes damaged = file;
        damaged[frame_at + bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
        EXPECT_EQ(bitrep::load_from_bytes(damaged, w).code(), bitrep::error::corrupt) << bit;
    }
}

// ---------------------------------------------------------------- async

TEST_F(SaveFiles, SaveAsyncWritesTheSameFileAsSave)
{
    const World world = make_world(10000, 6);
    const fs::path a = path("async.sav");
    const fs::path b = path("sync.sav");
    bitrep::save_handle handle = bitrep::save_async(a, world);
    ASSERT_TRUE(handle.valid());
    ASSERT_TRUE(bitrep::save(b, world));
    const bitrep::status st = handle.wait();
    ASSERT_TRUE(st) << st.message();
    EXPECT_TRUE(handle.done());
    EXPECT_EQ(read_all(a), read_all(b));
    World loaded;
    ASSERT_TRUE(bitrep::load(a, loaded));
    EXPECT_TRUE(whole(loaded));
    EXPECT_EQ(loaded.units.size(), 10000u);
    EXPECT_TRUE(temporaries().empty());
}

TEST_F(SaveFiles, KeepBackupReportsACopyWhereTheFileSystemHasNoHardLinks)
{
    const fs::path file = path("slot.sav");
    const fs::path backup = path("slot.sav.bak");
    const bitrep::save_options keep{.keep_backup = true};
    ASSERT_TRUE(bitrep::save(file, make_world(10, 1)));
    const bytes first = read_all(file);

    bitrep::save_outcome linked{.backup_copied = true};
    ASSERT_TRUE(bitrep::save(file, make_world(10, 2), keep, &linked));
    EXPECT_FALSE(linked.backup_copied);
    EXPECT_EQ(read_all(backup), first);

    const bytes second = read_all(file);
    refuse_links = true;
    bitrep::save_outcome copied;
    const bitrep::status st = bitrep::save(file, make_world(10, 3), SlotInfo{}, keep, &copied);
    const bytes third = read_all(file);
    bitrep::save_handle handle = bitrep::save_async(file, make_world(10, 4), keep);
    const bitrep::status async_st = handle.wait();
    refuse_links = false;
    ASSERT_TRUE(st) << st.message();
    EXPECT_TRUE(copied.backup_copied);
    ASSERT_TRUE(async_st) << async_st.message();
    EXPECT_TRUE(handle.outcome().backup_copied);
    EXPECT_EQ(read_all(backup), third);
    EXPECT_NE(third, second);
    EXPECT_FALSE(bitrep::save_async(file, make_world(10, 5), keep).outcome().backup_copied);
}

TEST_F(SaveFiles, SavesOfOnePathEndWithTheLastAsked)
{
    bitrep::saver saver;
    const fs::path file = path("autosave.sav");
    std::vector<bitrep::save_handle> handles;
    for (int mark = 1; mark <= 12; ++mark)
        handles.push_back(saver.save(file, make_world(2000, mark), slot("auto")));
    saver.wait_all();
    EXPECT_EQ(saver.pending(), 0u);
    for (const auto& h : handles) {
        EXPECT_TRUE(h.done());
        EXPECT_TRUE(h.wait());
    }
    World loaded;
    ASSERT_TRUE(bitrep::load(file, loaded));
    EXPECT_EQ(loaded.turn, 12);
    EXPECT_TRUE(whole(loaded));
}

TEST_F(SaveFiles, AQuantizedValueOutsideItsRangeIsRefusedAndThePreviousSaveStays)
{
    const fs::path file = path("outside.sav");
    ASSERT_TRUE(bitrep::save(file, make_world(10, 1)));
    const bytes before = read_all(file);
    World bad = make_world(10, 2);
    bad.units[4].x = 5000.0f; // outside [-1000, 1000]: it would load as 1000
    const bitrep::status why = bitrep::save(file, bad);
    EXPECT_EQ(why.code(), bitrep::error::value_out_of_range) << why.message();
    EXPECT_EQ(why.field_path(), "World.units[4].x") << why.message();
    const bitrep::status async_why = bitrep::save_async(file, bad).wait();
    EXPECT_EQ(async_why.code(), bitrep::error::value_out_of_range) << async_why.message();
    EXPECT_EQ(async_why.field_path(), "World.units[4].x") << async_why.message();
    bad.units[4].x = -std::numeric_limits<float>::infinity();
    EXPECT_EQ(bitrep::save(file, bad).code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(read_all(file), before);
}

TEST_F(SaveFiles, AFailedEncodeOrWriteIsTheHandlesStatusAndThePreviousSaveStays)
{
    const fs::path file = path("keep.sav");
    ASSERT_TRUE(bitrep::save(file, make_world(10, 1)));
    const bytes before = read_all(file);
    World bad = make_world(10, 2);
    bad.units[3].hp = 5000; // outside [0, 1000]: refused on the calling thread
    bitrep::save_handle refused = bitrep::save_async(file, bad);
    EXPECT_TRUE(refused.done());
    const bitrep::status why = refused.wait();
    EXPECT_EQ(why.code(), bitrep::error::value_out_of_range) << why.message();
    EXPECT_EQ(why.field_path(), "World.units[3].hp") << why.message();
    // A directory that does not exist: the worker's write fails.
    bitrep::save_handle unwritable = bitrep::save_async(path("no/such/dir/x.sav"), make_world(10, 3));
    EXPECT_EQ(unwritable.wait().code(), bitrep::error::io_error);
    EXPECT_EQ(read_all(file), before);
    EXPECT_FALSE(bitrep::save_handle{}.valid());
    EXPECT_FALSE(bitrep::save_handle{}.done());
    EXPECT_FALSE(bitrep::save_handle{}.wait());
}

TEST_F(SaveFiles, ARelativePathIsResolvedWhenTheSaveIsAskedNotWhenItIsWritten)
{
    const fs::path asked_in = path("asked_in");
    const fs::path moved_to = path("moved_to");
    fs::create_directories(asked_in);
    fs::create_directories(moved_to);
    const fs::path original = fs::current_path();
    bitrep::saver saver;
    for (int round = 0; round < 3; ++round) {
        // A large save first keeps the worker busy while the relative one
        // is asked and the program changes directory.
        bitrep::save_handle busy = saver.save(path("busy.sav"), make_world(150000, round));
        fs::current_path(asked_in);
        bitrep::save_handle relative = saver.save("relative.sav", make_world(10, round));
        fs::current_path(moved_to);
        const bitrep::status st = relative.wait();
        fs::current_path(original);
        ASSERT_TRUE(busy.wait());
        ASSERT_TRUE(st) << st.message();
        World loaded;
        ASSERT_TRUE(bitrep::load(asked_in / "relative.sav", loaded)) << "round " << round;
        EXPECT_EQ(loaded.turn, round);
        EXPECT_FALSE(fs::exists(moved_to / "relative.sav")) << "round " << round;
    }
}

TEST_F(SaveFiles, ASaverFinishesEverySaveBeforeItGoes)
{
    std::vector<bitrep::save_handle> handles;
    {
        bitrep::saver saver;
        for (int i = 0; i < 5; ++i)
            handles.push_back(saver.save(path("slot" + std::to_string(i) + ".sav"), make_world(5000, i)));
    }
    for (int i = 0; i < 5; ++i) {
        EXPECT_TRUE(handles[static_cast<std::size_t>(i)].done());
        World loaded;
        ASSERT_TRUE(bitrep::load(path("slot" + std::to_string(i) + ".sav"), loaded));
        EXPECT_EQ(loaded.turn, i);
    }
}

TEST_F(SaveFiles, AWriterKilledMidWriteLeavesTheOldSaveOrTheNewWhole)
{
    const fs::path file = path("world.sav");
    ASSERT_TRUE(bitrep::save(file, make_world(150000, 1)));
    int killed_mid_write = 0;
    int replaced = 0;
    int newer = 0;
    auto inode = [](const fs::path& p) {
        struct stat info{};
        return ::stat(p.c_str(), &info) == 0 ? info.st_ino : ino_t{0};
    };
    for (int round = 0; round < 6; ++round) {
        const pid_t child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            // Save again and again, each world marked with its own number.
            bitrep::saver saver;
            for (int mark = 2;; ++mark)
                static_cast<void>(saver.save(file, make_world(150000, mark % 1000), slot("kill")).wait());
        }
        // In the later rounds, first let it replace the file (a new inode
        // at the path) at least once. Each wait has its own generous
        // deadline: a sanitized build on a loaded two-core host takes
        // seconds per save of this size.
        if (round >= 3) {
            const auto deadline = std::chrono::steady_clock::now() + 90s;
            const auto before = inode(file);
            while (inode(file) == before && std::chrono::steady_clock::now() < deadline)
                std::this_thread::sleep_for(std::chrono::microseconds(200));
            ++replaced;
        }
        // Then kill it while its own temporary file exists (an earlier
        // writer's leftovers do not count): mid-write, or between the write
        // and the rename. It is stopped first and the temporary looked for
        // again, so that a save that ends between the look and the kill
        // makes the round wait for the next one instead of killing a writer
        // that is between two saves.
        const auto deadline = std::chrono::steady_clock::now() + 90s;
        bool seen = false;
        int wstatus = 0;
        while (!seen && std::chrono::steady_clock::now() < deadline) {
            if (temporaries(child).empty()) {
                std::this_thread::sleep_for(std::chrono::microseconds(200));
                continue;
            }
            if (round % 2 == 1)
                std::this_thread::sleep_for(std::chrono::milliseconds(round)); // later in the write
            ::kill(child, SIGSTOP);
            ::waitpid(child, &wstatus, WUNTRACED);
            seen = !temporaries(child).empty();
            if (!seen)
                ::kill(child, SIGCONT);
        }
        ::kill(child, SIGKILL);
        ::waitpid(child, &wstatus, 0);
        killed_mid_write += seen;
        EXPECT_FALSE(temporaries(child).empty()) << "round " << round << ": killed with its file half written";
        // The file is a whole save, the old or a new one.
        World loaded;
        const bitrep::status st = bitrep::load(file, loaded);
        ASSERT_TRUE(st) << "round " << round << ": " << st.message();
        EXPECT_TRUE(whole(loaded)) << "round " << round;
        EXPECT_EQ(loaded.units.size(), 150000u);
        newer += loaded.turn != 1;
    }
    EXPECT_EQ(killed_mid_write, 6);
    EXPECT_GE(newer, replaced); // the rounds that let a save land load it (or a later one)
    // The dead writers' temporaries go with the next successful save.
    ASSERT_TRUE(bitrep::save_async(file, make_world(10, 77)).wait());
    EXPECT_TRUE(temporaries().empty());
}
