// save.hpp: the save file format byte by byte (docs/formats/save-format.md), round
// trips in memory and on disk, and the reader's robustness: every truncation,
// every single-bit flip, forged files whose CRC is valid, hostile counts,
// wrong kinds of file, save options and the load size limit. Schema
// evolution (fields added, removed, converted, migrate) is schema_test.cpp's.
#include <bitrep/bitrep.hpp>

#include <gtest/gtest.h>

#include "test_oracle.hpp"

#include "temporary_directory.hpp"

#include <boost/crc.hpp>

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <new>
#include <optional>
#include <ostream>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

// The largest single request made of operator new, so that tests can show a
// hostile file was refused without a huge allocation. Requests above
// 256 MiB are refused outright: a reader bug must fail a test, not exhaust
// the memory of a machine shared with other builds.
namespace {
std::size_t largest_allocation = 0;
constexpr std::size_t allocation_ceiling = std::size_t{256} << 20;
} // namespace

// Out of line, so that GCC never sees malloc's pointer reach free() through
// an inlined operator delete and warns of a mismatch.
[[gnu::noinline]] void* operator new(std::size_t size)
{
    largest_allocation = std::max(largest_allocation, size);
    if (size <= allocation_ceiling)
        if (void* p = std::malloc(size == 0 ? 1 : size))
            return p;
    throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }


// ---------------------------------------------------------------- types

enum class Lane { top, mid, bottom };
BOOST_DESCRIBE_ENUM(Lane, top, mid, bottom)

enum class Faction : std::uint8_t { neutral, red, blue, green, purple };
BOOST_DESCRIBE_ENUM(Faction, neutral, red, blue, green, purple)

enum class Rarity { common = 1, rare = 10, legendary = 100 };
BOOST_DESCRIBE_ENUM(Rarity, common, rare, legendary)

// The small struct whose file is checked byte by byte: one field of each
// flag, and 26 saved bits, so the payload's last byte is partly padding.
struct Tiny {
    bitrep::ranged<int, 0, 100> health;              // 7 bits
    bitrep::net_only<bitrep::ranged<int, 0, 3>> ping; // replication only
    bitrep::save_only<std::uint16_t> gold;            // 16 bits
    bitrep::transient<int> cache;                     // never serialized
    bool alive;                                       // 1 bit
    Lane lane;                                        // 2 bits
    static constexpr std::uint32_t save_version = 3;
};
BOOST_DESCRIBE_STRUCT(Tiny, (), (health, ping, gold, cache, alive, lane))

// Tiny without its net_only field: to_bytes of this is what Tiny's save
// payload must be.
struct TinySaved {
    bitrep::ranged<int, 0, 100> health;
    bitrep::save_only<std::uint16_t> gold;
    bitrep::transient<int> cache;
    bool alive;
    Lane lane;
};

struct Unversioned {
    bitrep::ranged<int, 0, 7> level;
};

struct Item {
    bitrep::ranged<std::uint16_t, 0, 999> id;
    bitrep::ranged<int, 1, 64> count;
    Rarity rarity;
    bool operator==(const Item&) const = default;
};
BOOST_DESCRIBE_STRUCT(Item, (), (id, count, rarity))

using coordinate = bitrep::quantized<-1000.f, 1000.f, 0.01f>;

struct Hero {
    bitrep::ranged<int, 0, 100> health;
    bitrep::ranged<std::int64_t, -5'000'000'000, 5'000'000'000> gold;
    coordinate x;
    coordinate y;
    bitrep::quat<12> facing;
    Faction faction;
    bitrep::bounded_string<24> name;
    bitrep::bounded_vector<Item, 12> inventory;
    std::optional<bitrep::ranged<int, 0, 9>> pet;
    std::optional<bitrep::bounded_string<8>> title;
    std::array<std::uint8_t, 4> hotbar;
    bool hardcore;
    std::int8_t mood;
    std::uint16_t kills;
    std::int32_t score;
    std::uint64_t seed;
    float stamina;
    double play_seconds;
    bitrep::save_only<std::uint32_t> rng_state;
    bitrep::net_only<bitrep::ranged<int, 0, 3>> lane;
    bitrep::transient<int> frame_cache;
    static constexpr std::uint32_t save_version = 2;
    bool operator==(const Hero&) const = default;
};
BOOST_DESCRIBE_STRUCT(Hero, (),
                      (health, gold, x, y, facing, faction, name, inventory, pet, title, hotbar, hardcore, mood, kills,
                       score, seed, stamina, play_seconds, rng_state, lane, frame_cache))

// A Boost.PFR aggregate (fields by position). Expedition<1> has the same
// fields under another type name, hence another schema: its files load into
// Expedition<0> through the schema path.
template <int Tag>
struct Expedition {
    bitrep::ranged<int, 0, 255> stage;
    bitrep::quantized<0.f, 360.f, 0.1f> heading;
    bitrep::quat<9> camera;
    Faction faction;
    bitrep::bounded_string<16> label;
    bitrep::bounded_vector<Item, 6> loot;
    bitrep::bounded_vector<bitrep::ranged<int, -5, 5>, 6> deltas;
    std::optional<Item> reward;
    std::optional<std::uint16_t> bonus;
    std::array<bool, 3> switches;
    float speed;
    std::int16_t altitude;
    bitrep::save_only<std::uint8_t> slot;
    bitrep::net_only<std::uint16_t> ping;
    bitrep::transient<double> blend;
    bool operator==(const Expedition&) const = default;
};
using Journey = Expedition<0>;

template <std::uint32_t Version>
struct Versioned {
    bitrep::ranged<int, 0, 100> health;
    bitrep::bounded_string<8> name;
    static constexpr std::uint32_t save_version = Version;
    bool operator==(const Versioned&) const = default;
};

// The program side of the hostile-count tests; their files are forged.
struct Bag {
    bitrep::bounded_vector<Item, 16> items;
    std::array<bitrep::ranged<int, 7, 7>, 4> marks;
    bitrep::ranged<int, 0, 9> tail;
    bool operator==(const Bag&) const = default;
};
BOOST_DESCRIBE_STRUCT(Bag, (), (items, marks, tail))

// A program whose own bound is huge: its files carry that bound in their
// schema, and only the payload's size can show that a count is absurd.
// Hoard<1> is the same under another name, to load through the schema path.
template <int Tag>
struct Hoard {
    bitrep::bounded_vector<Item, 0xFFFFFFFFu> items;
    bool operator==(const Hoard&) const = default;
};

namespace {

namespace fs = std::filesystem;
using bitrep::error;
using bytes = std::vector<std::uint8_t>;

// Offsets of the header fields (docs/formats/save-format.md, section 1).
constexpr std::size_t format_at = 4;
constexpr std::size_t flags_at = 6;
constexpr std::size_t save_version_at = 8;
constexpr std::size_t fingerprint_at = 12;
constexpr std::size_t schema_bytes_at = 20;
constexpr std::size_t payload_bits_at = 24;
constexpr std::size_t crc_at = 32;
constexpr std::size_t header_size = 36; // format 1's
// Formats 2 and 3 (the 64-byte header).
constexpr std::size_t metadata_schema_bytes_at = 36;
constexpr std::size_t metadata_bits_at = 40;
constexpr std::size_t stored_payload_bytes_at = 48;
constexpr std::size_t info_crc_at = 60;
constexpr std::size_t extended_header_size = 64;

using oracle::contains;

// Little-endian fields, read and written here rather than with the
// library's helpers, so the layout is checked against the document alone.
std::uint64_t read_le(const bytes& file, std::size_t at, std::size_t size)
{
    std::uint64_t value = 0;
    for (std::size_t i = size; i-- > 0;)
        value = value << 8 | file.at(at + i);
    return value;
}

void write_le(bytes& file, std::size_t at, std::size_t size, std::uint64_t value)
{
    for (std::size_t i = 0; i < size; ++i)
        file.at(at + i) = static_cast<std::uint8_t>(value >> (8 * i));
}

// CRC-32 of bytes [0, 32) and then [36, end): every byte but its own four.
std::uint32_t crc_of(const bytes& file)
{
    boost::crc_32_type crc;
    crc.process_bytes(file.data(), crc_at);
    crc.process_bytes(file.data() + header_size, file.size() - header_size);
    return crc.checksum();
}

bool extended(const bytes& file) { return read_le(file, format_at, 2) >= 2; }

std::size_t header_size_of(const bytes& file) { return extended(file) ? extended_header_size : header_size; }

// The saves these tests write carry no metadata section.
std::size_t schema_offset_of(const bytes& file)
{
    EXPECT_TRUE(!extended(file) || read_le(file, metadata_schema_bytes_at, 4) == 0);
    return header_size_of(file);
}

// Makes a patched file's CRCs valid again (formats 2 and 3: the info CRC of
// bytes [0, 32) and [36, 60) first, since the file's covers it), so that
// what a test forged is judged on its contents and not stopped by them.
void rewrite_crc(bytes& file)
{
    if (extended(file)) {
        boost::crc_32_type info;
        info.process_bytes(file.data(), crc_at);
        info.process_bytes(file.data() + header_size, info_crc_at - header_size);
        write_le(file, info_crc_at, 4, info.checksum());
    }
    write_le(file, crc_at, 4, crc_of(file));
}

std::size_t schema_size_of(const bytes& file) { return static_cast<std::size_t>(read_le(file, schema_bytes_at, 4)); }

bytes schema_section(const bytes& file)
{
    const auto begin = file.begin() + static_cast<std::ptrdiff_t>(schema_offset_of(file));
    return bytes(begin, begin + static_cast<std::ptrdiff_t>(schema_size_of(file)));
}

bytes payload_section(const bytes& file)
{
    return bytes(file.begin() + static_cast<std::ptrdiff_t>(schema_offset_of(file) + schema_size_of(file)), file.end());
}

// The file with its payload replaced by `payload` (of `bits` bits) and
// valid CRCs.
bytes with_payload(const bytes& file, const bytes& payload, std::uint64_t bits)
{
    bytes out(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(schema_offset_of(file) + schema_size_of(file)));
    out.insert(out.end(), payload.begin(), payload.end());
    write_le(out, payload_bits_at, 8, bits);
    if (extended(out))
        write_le(out, stored_payload_bytes_at, 8, payload.size());
    rewrite_crc(out);
    return out;
}

// A save file assembled from the documented layout alone, for schemas and
// payloads no program of ours would write: format 1 (the schema's names
// inline) by default, as older bitreps wrote, or format 3 (compact).
bytes forge_save(const bytes& encoded, const bytes& payload, std::uint64_t payload_bits, std::uint32_t save_version,
                 std::uint16_t format = 1)
{
    bytes file(format >= 2 ? extended_header_size : header_size, 0);
    const std::string_view magic = "BRSV";
    std::copy(magic.begin(), magic.end(), file.begin());
    write_le(file, format_at, 2, format);
    write_le(file, flags_at, 2, 0);
    if (format >= 2) {
        write_le(file, metadata_schema_bytes_at, 4, 0);
        write_le(file, metadata_bits_at, 8, 0);
        write_le(file, stored_payload_bytes_at, 8, payload.size());
    }
    write_le(file, save_version_at, 4, save_version);
    write_le(file, fingerprint_at, 8, bitrep::schema_fingerprint(encoded));
    write_le(file, schema_bytes_at, 4, encoded.size());
    write_le(file, payload_bits_at, 8, payload_bits);
    file.insert(file.end(), encoded.begin(), encoded.end());
    file.insert(file.end(), payload.begin(), payload.end());
    rewrite_crc(file);
    return file;
}

bytes forge_save(const bitrep::schema& tree, const bytes& payload, std::uint64_t payload_bits)
{
    bytes encoded;
    const bitrep::status st = bitrep::encode_schema(tree, encoded, bitrep::schema_encoding::names_inline);
    EXPECT_TRUE(st) << st.message();
    return forge_save(encoded, payload, payload_bits, 1);
}

template <class Action>
std::size_t largest_allocation_during(Action&& action)
{
    largest_allocation = 0;
    action();
    return largest_allocation;
}

template <class Action>
double seconds_taken(Action&& action)
{
    const auto start = std::chrono::steady_clock::now();
    action();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Collects the failures of a loop over thousands of inputs, so that one
// broken case reports itself once and precisely instead of flooding the log.
class failure_log {
public:
    void add(const std::string& what)
    {
        if (count_ < 8)
            text_ += "\n  " + what;
        ++count_;
    }
    int count() const noexcept { return count_; }
    const std::string& text() const noexcept { return text_; }

private:
    int count_ = 0;
    std::string text_;
};

std::string describe(const bitrep::status& st) { return st ? std::string("ok") : st.message(); }

// ---------------------------------------------------------------- values

Tiny sample_tiny()
{
    Tiny t{};
    t.health = 87;
    t.ping = 2;
    t.gold = 0xBEEF;
    t.cache = 99;
    t.alive = true;
    t.lane = Lane::bottom;
    return t;
}

TinySaved saved_part_of(const Tiny& t)
{
    TinySaved s{};
    s.health = t.health;
    s.gold = t.gold;
    s.cache = t.cache;
    s.alive = t.alive;
    s.lane = t.lane;
    return s;
}

Hero sample_hero()
{
    Hero h{};
    h.health = 73;
    h.gold = -4'321'987'654;
    h.x = 123.456f;
    h.y = -987.654f;
    h.facing = {0.1f, -0.5f, 0.3f, 0.8062258f};
    h.faction = Faction::purple;
    h.name = "Zo\xC3\xAB \xE5\x8B\x87\xE8\x80\x85"; // "Zoë 勇者": 2- and 3-byte UTF-8
    h.inventory = {{17, 3, Rarity::rare}, {999, 64, Rarity::legendary}, {0, 1, Rarity::common}};
    h.pet = std::nullopt;
    h.title = bitrep::bounded_string<8>("Sir");
    h.hotbar = {1, 2, 250, 255};
    h.hardcore = true;
    h.mood = -77;
    h.kills = 65'000;
    h.score = -2'000'000'000;
    h.seed = 0xF00DFACECAFEBEEFu;
    h.stamina = 0.15625f;
    h.play_seconds = 86'399.125;
    h.rng_state = 0xDEADBEEFu;
    h.lane = 3;
    h.frame_cache = 5;
    return h;
}

// A destination that differs from sample_hero() in every field, so a load
// that skipped a field cannot pass unnoticed.
Hero other_hero()
{
    Hero h{};
    h.health = 1;
    h.gold = 7;
    h.x = -5.0f;
    h.y = 5.0f;
    h.facing = {0.0f, 0.0f, 0.0f, 1.0f};
    h.faction = Faction::red;
    h.name = "old";
    h.inventory = {{5, 5, Rarity::common}};
    h.pet = 4;
    h.title = std::nullopt;
    h.hotbar = {9, 9, 9, 9};
    h.hardcore = false;
    h.mood = 1;
    h.kills = 2;
    h.score = 3;
    h.seed = 4;
    h.stamina = -1.0f;
    h.play_seconds = -2.0;
    h.rng_state = 6u;
    h.lane = 1;
    h.frame_cache = -42;
    return h;
}

template <int Tag>
Expedition<Tag> sample_expedition()
{
    Expedition<Tag> e{};
    e.stage = 200;
    e.heading = 271.35f;
    e.camera = {0.7f, 0.1f, -0.1f, -0.7f};
    e.faction = Faction::green;
    e.label = "caf\xC3\xA9 \xE2\x82\xAC"; // "café €"
    e.loot = {{1, 2, Rarity::common}, {300, 40, Rarity::legendary}};
    e.deltas = {-5, 0, 5, 3};
    e.reward = Item{42, 7, Rarity::rare};
    e.bonus = std::nullopt;
    e.switches = {true, false, true};
    e.speed = -3.75f;
    e.altitude = -1234;
    e.slot = 9;
    e.ping = 300;
    e.blend = 0.25;
    return e;
}

Journey other_journey()
{
    Journey j{};
    j.stage = 3;
    j.heading = 10.0f;
    j.faction = Faction::neutral;
    j.label = std::string("x"); // (GCC 12 -O3 warns falsely, -Wrestrict, on assigning this literal)
    j.deltas = {1};
    j.bonus = 77;
    j.switches = {false, true, false};
    j.speed = 1.0f;
    j.altitude = 1;
    j.slot = 1;
    j.ping = 11;
    j.blend = -8.5;
    return j;
}

// ---------------------------------------------------------------- comparisons

template <class Quantized>
void expect_within_half_a_step(const Quantized& got, const Quantized& sent, const char* field)
{
    // Nearest quantum: within half the resolution, plus float rounding.
    const double tolerance = 0.5 * Quantized::resolution + 1e-4;
    EXPECT_NEAR(static_cast<float>(got), static_cast<float>(sent), tolerance) << field;
}

template <int Bits>
void expect_same_rotation(const bitrep::quat<Bits>& got, const bitrep::quat<Bits>& sent)
{
    // q and -q are one rotation; the reader may return either.
    const float dot = got.x * sent.x + got.y * sent.y + got.z * sent.z + got.w * sent.w;
    const float sign = dot < 0.0f ? -1.0f : 1.0f;
    const float tolerance = 4.0f * 1.4142136f / static_cast<float>((1 << Bits) - 1);
    EXPECT_NEAR(sign * got.x, sent.x, tolerance);
    EXPECT_NEAR(sign * got.y, sent.y, tolerance);
    EXPECT_NEAR(sign * got.z, sent.z, tolerance);
    EXPECT_NEAR(sign * got.w, sent.w, tolerance);
}

// Every field a save carries, as sent (floats and rotations within their
// quantization).
void expect_saved_fields_equal(const Hero& got, const Hero& sent)
{
    EXPECT_EQ(got.health, sent.health);
    EXPECT_EQ(got.gold, sent.gold);
    expect_within_half_a_step(got.x, sent.x, "x");
    expect_within_half_a_step(got.y, sent.y, "y");
    expect_same_rotation(got.facing, sent.facing);
    EXPECT_EQ(got.faction, sent.faction);
    EXPECT_EQ(got.name, sent.name);
    EXPECT_TRUE(got.inventory == sent.inventory);
    EXPECT_EQ(got.pet, sent.pet);
    EXPECT_EQ(got.title, sent.title);
    EXPECT_EQ(got.hotbar, sent.hotbar);
    EXPECT_EQ(got.hardcore, sent.hardcore);
    EXPECT_EQ(got.mood, sent.mood);
    EXPECT_EQ(got.kills, sent.kills);
    EXPECT_EQ(got.score, sent.score);
    EXPECT_EQ(got.seed, sent.seed);
    EXPECT_EQ(got.stamina, sent.stamina);
    EXPECT_EQ(got.play_seconds, sent.play_seconds);
    EXPECT_EQ(got.rng_state.get(), sent.rng_state.get());
}

template <int Tag>
void expect_saved_fields_equal(const Journey& got, const Expedition<Tag>& sent)
{
    EXPECT_EQ(got.stage, sent.stage);
    expect_within_half_a_step(got.heading, sent.heading, "heading");
    expect_same_rotation(got.camera, sent.camera);
    EXPECT_EQ(got.faction, sent.faction);
    EXPECT_EQ(got.label, sent.label);
    EXPECT_TRUE(got.loot == sent.loot);
    EXPECT_TRUE(got.deltas == sent.deltas);
    EXPECT_TRUE(got.reward == sent.reward);
    EXPECT_EQ(got.bonus, sent.bonus);
    EXPECT_EQ(got.switches, sent.switches);
    EXPECT_EQ(got.speed, sent.speed);
    EXPECT_EQ(got.altitude, sent.altitude);
    EXPECT_EQ(got.slot.get(), sent.slot.get());
}

// ---------------------------------------------------------------- files on disk

class temporary_directory : public temporary_directory_test {
protected:
    void SetUp() override
    {
        temporary_directory_test::SetUp();
        file = path("hero.sav");
        backup = path("hero.sav.bak");
    }

    fs::path backup;
};

// Written through the standard library, so tests of load do not depend on save.
void put_file(const fs::path& path, const bytes& content)
{
    std::ofstream stream(path, std::ios::binary | std::ios::trunc);
    stream.write(reinterpret_cast<const char*>(content.data()), static_cast<std::streamsize>(content.size()));
}

bytes get_file(const fs::path& path)
{
    std::ifstream stream(path, std::ios::binary);
    return bytes(std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>());
}


} // namespace

class SaveOnDisk : public temporary_directory {};
class LoadRefusal : public temporary_directory {};
class SaveOptions : public temporary_directory {};
class LoadLimit : public temporary_directory {};

// ============================================================== format

TEST(SaveFormat, MagicIsBRSVAtOffsetZero)
{
    const bytes file = bitrep::save_to_bytes(sample_tiny());
    ASSERT_GE(file.size(), extended_header_size);
    EXPECT_EQ((bytes(file.begin(), file.begin() + 4)), (bytes{0x42, 0x52, 0x53, 0x56}));
}

TEST(SaveFormat, FormatIsThreeLittleEndianAtOffsetFourAndFlagsAreZero)
{
    const bytes file = bitrep::save_to_bytes(sample_tiny());
    ASSERT_GE(file.size(), extended_header_size);
    EXPECT_EQ((bytes(file.begin() + 4, file.begin() + 8)), (bytes{0x03, 0x00, 0x00, 0x00}));
}

TEST(SaveFormat, SaveVersionAtOffsetEightIsTheTypesDeclaredSaveVersion)
{
    const bytes file = bitrep::save_to_bytes(sample_tiny());
    ASSERT_GE(file.size(), extended_header_size);
    EXPECT_EQ((bytes(file.begin() + 8, file.begin() + 12)), (bytes{0x03, 0x00, 0x00, 0x00}));
    EXPECT_EQ(bitrep::save_version_of<Tiny>(), 3u);
}

TEST(SaveFormat, SaveVersionIsOneWhenTheTypeDeclaresNone)
{
    const bytes file = bitrep::save_to_bytes(Unversioned{5});
    ASSERT_GE(file.size(), extended_header_size);
    EXPECT_EQ((bytes(file.begin() + 8, file.begin() + 12)), (bytes{0x01, 0x00, 0x00, 0x00}));
    EXPECT_EQ(bitrep::save_version_of<Unversioned>(), 1u);
}

TEST(SaveFormat, FingerprintAtOffsetTwelveIsTheProgramSchemasFingerprint)
{
    const bytes file = bitrep::save_to_bytes(sample_tiny());
    ASSERT_GE(file.size(), extended_header_size);
    EXPECT_EQ(read_le(file, fingerprint_at, 8), bitrep::schema_of<Tiny>().fingerprint);
    EXPECT_EQ(read_le(file, fingerprint_at, 8), bitrep::schema_fingerprint(schema_section(file)));
}

TEST(SaveFormat, SchemaSectionAtOffsetSixtyFourIsTheSchemaEncodingAndItsLengthIsAtOffsetTwenty)
{
    const bytes file = bitrep::save_to_bytes(sample_tiny());
    const bytes& encoding = bitrep::schema_of<Tiny>().encoded;
    ASSERT_FALSE(encoding.empty());
    EXPECT_EQ(read_le(file, schema_bytes_at, 4), encoding.size());
    EXPECT_EQ(bytes(file.begin() + 64, file.begin() + 64 + static_cast<std::ptrdiff_t>(encoding.size())), encoding);
}

TEST(SaveFormat, NoMetadataAndTheStoredPayloadsLengthFillBytesThirtySixToSixtyAndTheInfoCrcFollows)
{
    const bytes file = bitrep::save_to_bytes(sample_tiny());
    ASSERT_GE(file.size(), extended_header_size);
    EXPECT_EQ(read_le(file, metadata_schema_bytes_at, 4), 0u);
    EXPECT_EQ(read_le(file, metadata_bits_at, 8), 0u);
    EXPECT_EQ(read_le(file, stored_payload_bytes_at, 8), payload_section(file).size());
    EXPECT_EQ(read_le(file, 56, 4), 0u);
    boost::crc_32_type info;
    info.process_bytes(file.data(), 32);
    info.process_bytes(file.data() + 36, 24);
    EXPECT_EQ(read_le(file, info_crc_at, 4), info.checksum());
}

TEST(SaveFormat, SchemaSectionNamesTheSavedFieldsAndLeavesOutNetOnlyAndTransient)
{
    const bytes file = bitrep::save_to_bytes(sample_tiny());
    bitrep::schema tree;
    const bitrep::status parsed = bitrep::parse_schema(schema_section(file), tree);
    ASSERT_TRUE(parsed) << parsed.message();
    ASSERT_FALSE(tree.nodes.empty());
    ASSERT_EQ(tree.nodes[0].kind, bitrep::schema_kind::structure);
    std::vector<std::string> fields;
    for (std::uint32_t child = 1; child < tree.nodes[0].end; child = tree.nodes[child].end)
        fields.push_back(tree.nodes[child].name);
    EXPECT_EQ(fields, (std::vector<std::string>{"health", "gold", "alive", "lane"}));
}

TEST(SaveFormat, PayloadBitsAtOffsetTwentyFourIsTheExactBitCountOfThePayload)
{
    const Tiny tiny = sample_tiny();
    const bytes file = bitrep::save_to_bytes(tiny);
    // health 7 + gold 16 + alive 1 + lane 2; ping and cache are not saved.
    EXPECT_EQ(read_le(file, payload_bits_at, 8), 26u);
    EXPECT_EQ(read_le(file, payload_bits_at, 8), bitrep::bit_size(saved_part_of(tiny)));
}

TEST(SaveFormat, PayloadIsTheCoreWireFormatOfTheSavedFieldsOnly)
{
    const Tiny tiny = sample_tiny();
    const bytes file = bitrep::save_to_bytes(tiny);
    const bytes expected = bitrep::to_bytes(saved_part_of(tiny));
    EXPECT_EQ(payload_section(file), expected);
    // The net_only field is in to_bytes (scope::all) but not in the save.
    EXPECT_NE(payload_section(file), bitrep::to_bytes(tiny));
}

TEST(SaveFormat, CrcAtOffsetThirtyTwoCoversEveryOtherByteOfTheFile)
{
    const bytes file = bitrep::save_to_bytes(sample_hero());
    ASSERT_GT(file.size(), extended_header_size);
    boost::crc_32_type crc;
    crc.process_bytes(file.data(), 32);
    crc.process_bytes(file.data() + 36, file.size() - 36);
    EXPECT_EQ(read_le(file, crc_at, 4), crc.checksum());
}

TEST(SaveFormat, FileIsHeaderThenSchemaThenTheWholeBytesOfThePayload)
{
    for (const bytes& file : {bitrep::save_to_bytes(sample_tiny()), bitrep::save_to_bytes(sample_hero()),
                              bitrep::save_to_bytes(sample_expedition<0>())}) {
        const std::uint64_t payload_bits = read_le(file, payload_bits_at, 8);
        EXPECT_EQ(file.size(), extended_header_size + schema_size_of(file) + (payload_bits + 7) / 8);
    }
}

TEST(SaveFormat, AFileAssembledFromTheDocumentedLayoutIsByteForByteWhatSaveToBytesWrites)
{
    const Tiny tiny = sample_tiny();
    const bytes forged = forge_save(bitrep::schema_of<Tiny>().encoded, bitrep::to_bytes(saved_part_of(tiny)),
                                    bitrep::bit_size(saved_part_of(tiny)), 3, 3);
    EXPECT_EQ(bitrep::save_to_bytes(tiny), forged);
}

TEST(SaveFormat, ReadSaveHeaderReportsTheFieldsAsWritten)
{
    const bytes file = bitrep::save_to_bytes(sample_tiny());
    bitrep::save_header header;
    const bitrep::status st = bitrep::read_save_header(file, header);
    ASSERT_TRUE(st) << st.message();
    EXPECT_EQ(header.format, 3u);
    EXPECT_EQ(header.flags, 0u);
    EXPECT_EQ(header.save_version, 3u);
    EXPECT_EQ(header.fingerprint, bitrep::schema_of<Tiny>().fingerprint);
    EXPECT_EQ(header.schema_bytes, bitrep::schema_of<Tiny>().encoded.size());
    EXPECT_EQ(header.payload_bits, 26u);
    EXPECT_EQ(header.crc, read_le(file, crc_at, 4));
    EXPECT_EQ(header.file_bytes(), file.size());
}

// ============================================================== round trips

TEST(SaveRoundTrip, ADescribedStructComesBackFieldByField)
{
    const Hero sent = sample_hero();
    Hero received = other_hero();
    const bitrep::status st = bitrep::load_from_bytes(bitrep::save_to_bytes(sent), received);
    ASSERT_TRUE(st) << st.message();
    expect_saved_fields_equal(received, sent);
}

TEST(SaveRoundTrip, AFileOfTheProgramsOwnSchemaLoadsThroughTheFastPath)
{
    Hero received = other_hero();
    bitrep::load_info info;
    const bitrep::status st = bitrep::load_from_bytes(bitrep::save_to_bytes(sample_hero()), received, info);
    ASSERT_TRUE(st) << st.message();
    EXPECT_EQ(info.path, bitrep::load_info::route::fast);
    EXPECT_EQ(info.header.save_version, 2u);
    EXPECT_EQ(info.header.fingerprint, bitrep::schema_of<Hero>().fingerprint);
}

TEST(SaveRoundTrip, NetOnlyAndTransientFieldsKeepTheDestinationsValues)
{
    const Hero before = other_hero();
    Hero received = before;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(sample_hero()), received));
    EXPECT_EQ(received.lane.get(), before.lane.get());
    EXPECT_EQ(received.frame_cache.get(), before.frame_cache.get());
}

TEST(SaveRoundTrip, SaveOnlyFieldsAreRestored)
{
    const Hero sent = sample_hero();
    Hero received = other_hero();
    ASSERT_NE(received.rng_state.get(), sent.rng_state.get());
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(sent), received));
    EXPECT_EQ(received.rng_state.get(), 0xDEADBEEFu);
}

TEST(SaveRoundTrip, AnAggregateComesBackFieldByField)
{
    const Journey sent = sample_expedition<0>();
    Journey received = other_journey();
    bitrep::load_info info;
    const bitrep::status st = bitrep::load_from_bytes(bitrep::save_to_bytes(sent), received, info);
    ASSERT_TRUE(st) << st.message();
    EXPECT_EQ(info.path, bitrep::load_info::route::fast);
    expect_saved_fields_equal(received, sent);
}

TEST(SaveRoundTrip, AnAggregatesNetOnlyAndTransientFieldsKeepTheDestinationsValues)
{
    const Journey before = other_journey();
    Journey received = before;
    ASSERT_TRUE(bitrep::load_from_bytes(bitrep::save_to_bytes(sample_expedition<0>()), received));
    EXPECT_EQ(received.ping.get(), before.ping.get());
    EXPECT_EQ(received.blend.get(), before.blend.get());
    EXPECT_EQ(received.slot.get(), 9u);
}

TEST(SaveRoundTrip, ExtremeAndEmptyValuesComeBack)
{
    Hero sent = sample_hero();
    sent.health = 100;
    sent.gold = -5'000'000'000;
    sent.x = 1000.0f;
    sent.y = -1000.0f;
    sent.name = "";
    sent.inventory.clear();
    sent.pet = 9;
    sent.title = std::nullopt;
    sent.seed = ~std::uint64_t{0};
    sent.mood = -128;
    Hero received = other_hero();
    const bitrep::status st = bitrep::load_from_bytes(bitrep::save_to_bytes(sent), received);
    ASSERT_TRUE(st) << st.message();
    expect_saved_fields_equal(received, sent);
}

TEST_F(SaveOnDisk, SaveThenLoadRoundTripsADescribedStruct)
{
    const Hero sent = sample_hero();
    ASSERT_TRUE(bitrep::save(file, sent));
    const Hero before = other_hero();
    Hero received = before;
    const bitrep::status st = bitrep::load(file, received);
    ASSERT_TRUE(st) << st.message();
    expect_saved_fields_equal(received, sent);
    EXPECT_EQ(received.lane.get(), before.lane.get());
    EXPECT_EQ(received.frame_cache.get(), before.frame_cache.get());
}

TEST_F(SaveOnDisk, ALoaderLoadsFileAfterFileAndKeepsTheObjectOnAFailure)
{
    bitrep::loader<Hero> loader;
    const Hero before = other_hero();
    Hero received = before;
    ASSERT_TRUE(bitrep::save(file, sample_hero()));
    ASSERT_TRUE(loader.load(file, received));
    expect_saved_fields_equal(received, sample_hero());
    EXPECT_EQ(received.lane.get(), before.lane.get()); // net_only: kept
    ASSERT_TRUE(bitrep::save(file, other_hero()));
    ASSERT_TRUE(loader.load(file, received));
    expect_saved_fields_equal(received, other_hero());
    const Hero loaded = received;
    EXPECT_EQ(loader.load(path("missing.sav"), received), error::not_found);
    EXPECT_TRUE(received == loaded);
}

TEST_F(SaveOnDisk, SaveThenLoadRoundTripsAnAggregate)
{
    const Journey sent = sample_expedition<0>();
    ASSERT_TRUE(bitrep::save(file, sent));
    const Journey before = other_journey();
    Journey received = before;
    const bitrep::status st = bitrep::load(file, received);
    ASSERT_TRUE(st) << st.message();
    expect_saved_fields_equal(received, sent);
    EXPECT_EQ(received.ping.get(), before.ping.get());
    EXPECT_EQ(received.blend.get(), before.blend.get());
}

TEST_F(SaveOnDisk, SaveWritesExactlyTheBytesOfSaveToBytes)
{
    const Hero hero = sample_hero();
    ASSERT_TRUE(bitrep::save(file, hero));
    EXPECT_EQ(get_file(file), bitrep::save_to_bytes(hero));
}

TEST_F(SaveOnDisk, PathsAreTakenAsTextOrAsFilesystemPaths)
{
    // bitrep::path_view: a string literal, a std::string, a std::string_view
    // and a std::filesystem::path name the same file.
    const Hero hero = sample_hero();
    const std::string text = file.string();
    ASSERT_TRUE(bitrep::save(text.c_str(), hero));
    EXPECT_EQ(get_file(file), bitrep::save_to_bytes(hero));
    ASSERT_TRUE(bitrep::save(text, other_hero()));
    EXPECT_EQ(get_file(file), bitrep::save_to_bytes(other_hero()));
    Hero received = sample_hero();
    ASSERT_TRUE(bitrep::load(std::string_view(text), received));
    expect_saved_fields_equal(received, other_hero());
    bitrep::loader<Hero> loader;
    ASSERT_TRUE(bitrep::save(file, hero));
    ASSERT_TRUE(loader.load(text, received));
    expect_saved_fields_equal(received, hero);
    EXPECT_EQ(bitrep::load(path("missing.sav").string(), received), error::not_found);
}

// ============================================================== robustness

// Loads `file` into a Hero holding other values: the load must fail with
// `expected` and leave every one of them as it was.
void expect_refused(const bytes& file, error expected)
{
    const Hero before = other_hero();
    Hero target = before;
    const bitrep::status st = bitrep::load_from_bytes(file, target);
    EXPECT_EQ(st.code(), expected) << describe(st);
    EXPECT_TRUE(target == before);
}

TEST(SaveRobustness, TruncationAtEveryByteIsDetectedAndLeavesTheObjectUnchanged)
{
    const bytes file = bitrep::save_to_bytes(sample_hero());
    const Hero before = other_hero();
    failure_log failures;
    for (std::size_t size = 0; size < file.size(); ++size) {
        Hero target = before;
        const bitrep::status st = bitrep::load_from_bytes(std::span<const std::uint8_t>(file.data(), size), target);
        // Nothing at all is not a save; anything that starts like one and
        // stops short is truncated.
        const error expected = size == 0 ? error::not_a_save : error::truncated;
        if (st.code() != expected)
            failures.add("first " + std::to_string(size) + " bytes: expected " + std::string(to_string(expected)) +
                         ", got " + describe(st));
        if (!(target == before))
            failures.add("first " + std::to_string(size) + " bytes changed the object (" + describe(st) + ")");
    }
    EXPECT_EQ(failures.count(), 0) << "of " << file.size() << " truncations:" << failures.text();
}

TEST(SaveRobustness, EverySingleBitFlipIsDetectedAndLeavesTheObjectUnchanged)
{
    const bytes file = bitrep::save_to_bytes(sample_hero());
    const Hero before = other_hero();
    failure_log failures;
    for (std::size_t byte = 0; byte < file.size(); ++byte) {
        for (int bit = 0; bit < 8; ++bit) {
            bytes damaged = file;
            damaged[byte] ^= static_cast<std::uint8_t>(1u << bit);
            Hero target = before;
            const bitrep::status st = bitrep::load_from_bytes(damaged, target);
            const std::string where = "byte " + std::to_string(byte) + " bit " + std::to_string(bit) + ": ";
            const bool expected_code = st.code() == error::corrupt || st.code() == error::not_a_save ||
                                       st.code() == error::newer_version || st.code() == error::truncated;
            if (!expected_code)
                failures.add(where + describe(st));
            if (!(target == before))
                failures.add(where + "changed the object (" + describe(st) + ")");
        }
    }
    EXPECT_EQ(failures.count(), 0) << "of " << file.size() * 8 << " flips:" << failures.text();
}

TEST(SaveRobustness, ABitFlipInTheMagicMeansNotASave)
{
    const bytes file = bitrep::save_to_bytes(sample_hero());
    for (std::size_t byte = 0; byte < 4; ++byte) {
        for (int bit = 0; bit < 8; ++bit) {
            bytes damaged = file;
            damaged[byte] ^= static_cast<std::uint8_t>(1u << bit);
            Hero target = other_hero();
            EXPECT_EQ(bitrep::load_from_bytes(damaged, target).code(), error::not_a_save)
                << "byte " << byte << " bit " << bit;
        }
    }
}

// The CRC, the fingerprint, the save_version and every byte after the header
// are only checked by the CRC, which any single flip breaks.
TEST(SaveRobustness, ABitFlipOutsideTheMagicFormatFlagsAndLengthsIsCorrupt)
{
    const bytes file = bitrep::save_to_bytes(sample_hero());
    failure_log failures;
    for (std::size_t byte = save_version_at; byte < file.size(); ++byte) {
        if ((byte >= schema_bytes_at && byte < crc_at) || (byte >= metadata_schema_bytes_at && byte < info_crc_at))
            continue; // the lengths (truncated or corrupt, by which way they moved) and the reserved field
        for (int bit = 0; bit < 8; ++bit) {
            bytes damaged = file;
            damaged[byte] ^= static_cast<std::uint8_t>(1u << bit);
            Hero target = other_hero();
            const bitrep::status st = bitrep::load_from_bytes(damaged, target);
            if (st.code() != error::corrupt)
                failures.add("byte " + std::to_string(byte) + " bit " + std::to_string(bit) + ": " + describe(st));
        }
    }
    EXPECT_EQ(failures.count(), 0) << failures.text();
}

TEST(SaveRobustness, AnAppendedByteIsCorrupt)
{
    bytes file = bitrep::save_to_bytes(sample_hero());
    file.push_back(0x00);
    expect_refused(file, error::corrupt);
}

TEST(SaveRobustness, AnAppendedByteIsCorruptEvenWhenTheCrcCoversIt)
{
    bytes file = bitrep::save_to_bytes(sample_hero());
    file.push_back(0x00);
    rewrite_crc(file);
    expect_refused(file, error::corrupt);
}

TEST(SaveRobustness, APayloadLongerThanTheValueIsCorruptEvenWhenTheHeaderAgrees)
{
    const bytes file = bitrep::save_to_bytes(sample_hero());
    bytes payload = payload_section(file);
    payload.push_back(0x00);
    const bytes longer = with_payload(file, payload, read_le(file, payload_bits_at, 8) + 8);
    const Hero before = other_hero();
    Hero target = before;
    const bitrep::status st = bitrep::load_from_bytes(longer, target);
    EXPECT_EQ(st.code(), error::corrupt) << describe(st);
    EXPECT_TRUE(target == before);
}

TEST(SaveRobustness, APayloadShorterThanTheValueIsTruncatedEvenWhenTheHeaderAgrees)
{
    const bytes file = bitrep::save_to_bytes(sample_hero());
    bytes payload = payload_section(file);
    ASSERT_GT(payload.size(), 1u);
    payload.pop_back();
    const bytes shorter = with_payload(file, payload, payload.size() * 8);
    const Hero before = other_hero();
    Hero target = before;
    const bitrep::status st = bitrep::load_from_bytes(shorter, target);
    EXPECT_EQ(st.code(), error::truncated) << describe(st);
    EXPECT_TRUE(target == before);
}

TEST(SaveRobustness, AnEmptyBufferIsNotASave)
{
    const Hero before = other_hero();
    Hero target = before;
    const bitrep::status st = bitrep::load_from_bytes(std::span<const std::uint8_t>(), target);
    EXPECT_EQ(st.code(), error::not_a_save) << describe(st);
    EXPECT_TRUE(target == before);
}

TEST(SaveRobustness, AFileFromAHigherSaveVersionIsNewerVersionAndLeavesTheObjectUnchanged)
{
    const bytes file = bitrep::save_to_bytes(Versioned<5>{42, "five"});
    const Versioned<4> before{7, "four"};
    Versioned<4> target = before;
    const bitrep::status st = bitrep::load_from_bytes(file, target);
    EXPECT_EQ(st.code(), error::newer_version) << describe(st);
    EXPECT_TRUE(target == before);
}

TEST(SaveRobustness, FileFormatFiveIsNewerVersionEvenWithAValidCrc)
{
    bytes file = bitrep::save_to_bytes(sample_hero());
    write_le(file, format_at, 2, 5);
    rewrite_crc(file);
    expect_refused(file, error::newer_version);
}

// Formats 3 and 4 know one flag (bit 0, zstd); format 1 none.
TEST(SaveRobustness, AnUnknownFlagIsRefusedAsNewerVersionEvenWithAValidCrc)
{
    bytes file = bitrep::save_to_bytes(sample_hero());
    write_le(file, flags_at, 2, 0x0002);
    rewrite_crc(file);
    expect_refused(file, error::newer_version);
    bytes old = forge_save(payload_section(file), {}, 0, 1); // any bytes: the flag is refused first
    write_le(old, flags_at, 2, 0x0001);
    rewrite_crc(old);
    expect_refused(old, error::newer_version);
}

// The header's fingerprint is left as it was: a reader that trusted it
// without comparing the schema bytes would decode the payload regardless.
TEST(SaveRobustness, GarbageSchemaBytesWithAValidCrcAreCorruptAndLeaveTheObjectUnchanged)
{
    const bytes file = bitrep::save_to_bytes(sample_hero());
    const std::size_t schema_size = schema_size_of(file);
    ASSERT_GT(schema_size, 0u);
    const Hero before = other_hero();
    std::mt19937_64 random(20240611);
    failure_log failures;
    constexpr int patterns = 300;
    for (int round = 0; round < patterns; ++round) {
        bytes forged = file;
        for (std::size_t i = 0; i < schema_size; ++i) {
            std::uint8_t& b = forged[schema_offset_of(file) + i];
            b = round == 0 ? 0x00 : round == 1 ? 0xFF : static_cast<std::uint8_t>(random());
        }
        rewrite_crc(forged);
        Hero target = before;
        const bitrep::status st = bitrep::load_from_bytes(forged, target);
        if (st.code() != error::corrupt)
            failures.add("pattern " + std::to_string(round) + ": " + describe(st));
        if (!(target == before))
            failures.add("pattern " + std::to_string(round) + " changed the object");
    }
    EXPECT_EQ(failures.count(), 0) << "of " << patterns << " garbage schemas:" << failures.text();
}

namespace {

// Random payloads behind a valid header and CRC: half of them wholly random
// (any length, any bit count that rounds up to it), half the real payload
// with a few bytes overwritten, which gets deeper into the value.
template <class Written, class Loaded>
void expect_random_payloads_never_harm(const Written& written, const Loaded& before, std::uint64_t seed,
                                       bitrep::load_info::route expected_route)
{
    const bytes file = bitrep::save_to_bytes(written);
    const bytes original = payload_section(file);
    {
        Loaded target = before;
        bitrep::load_info info;
        ASSERT_TRUE(bitrep::load_from_bytes(file, target, info)) << "the unmodified file must load";
        ASSERT_EQ(info.path, expected_route);
    }
    std::mt19937_64 random(seed);
    failure_log failures;
    int loaded = 0;
    constexpr int rounds = 2000;
    for (int round = 0; round < rounds; ++round) {
        bytes payload = original;
        std::uint64_t bits = read_le(file, payload_bits_at, 8);
        if (round % 2 == 0) {
            payload.resize(static_cast<std::size_t>(random() % (2 * original.size() + 2)));
            for (auto& b : payload)
                b = static_cast<std::uint8_t>(random());
            bits = payload.empty() ? 0 : payload.size() * 8 - random() % 8;
        } else {
            for (int n = 1 + static_cast<int>(random() % 3); n > 0; --n)
                payload[static_cast<std::size_t>(random() % payload.size())] = static_cast<std::uint8_t>(random());
        }
        const bytes forged = with_payload(file, payload, bits);
        Loaded target = before;
        const bitrep::status st = bitrep::load_from_bytes(forged, target);
        const std::string where = "round " + std::to_string(round) + ": ";
        if (st) {
            ++loaded;
            // Whatever a load accepts must be a value the program can save.
            std::vector<std::uint8_t> again;
            if (const bitrep::status saved = bitrep::save_to_bytes(target, again); !saved)
                failures.add(where + "loaded, but saving it again fails: " + saved.message());
        } else if (!(target == before)) {
            failures.add(where + "failed (" + st.message() + ") and changed the object");
        }
    }
    EXPECT_EQ(failures.count(), 0) << failures.text();
    std::printf("[ random   ] %d forged payloads, %d loaded, %d refused\n", rounds, loaded, rounds - loaded);
}

} // namespace

TEST(SaveRobustness, RandomPayloadsWithAValidCrcNeverCrashAndFailWithoutChangingTheObject)
{
    expect_random_payloads_never_harm(sample_hero(), other_hero(), 20240612, bitrep::load_info::route::fast);
}

TEST(SaveRobustness, RandomPayloadsReadThroughAnotherSchemaNeverCrashAndFailWithoutChangingTheObject)
{
    expect_random_payloads_never_harm(sample_expedition<1>(), other_journey(), 20240613,
                                      bitrep::load_info::route::schema);
}

namespace {

// A forged Bag whose one field is `field_name`: a vector or array of
// 2^32 - 1 elements of `Element`, with the count as the whole payload.
template <class Element>
bytes forge_huge_bag(std::string_view field_name, bool array)
{
    constexpr std::uint64_t huge = 0xFFFFFFFFu;
    bitrep::schema_builder builder;
    builder.begin_struct("Bag");
    builder.field(field_name, 0);
    if (array)
        builder.begin_array(huge);
    else
        builder.begin_vector(huge);
    bitrep::engine::describe(bitrep::engine::entry_v<Element>, builder);
    builder.end();
    builder.end();

    bytes payload(8, 0);
    std::uint64_t bits = 0;
    if (!array) {
        bitrep::write_stream stream(payload);
        std::uint64_t count = huge;
        EXPECT_TRUE(stream.serialize_ranged_offset(count, huge));
        bits = stream.bit_position();
        payload.resize(stream.flush());
    } else {
        payload.clear();
    }
    return forge_save(builder.take(), payload, bits);
}

// Loads a hostile file and checks it fails with `expected`, quickly,
// without a large allocation, and without changing the destination.
template <class T = Bag>
void expect_refused_cheaply(const bytes& file, error expected, const T& before = Bag{{{1, 1, Rarity::common}}, {}, 4})
{
    T target = before;
    bitrep::status st;
    std::size_t largest = 0;
    const double seconds = seconds_taken([&] {
        largest = largest_allocation_during([&] {
            try {
                st = bitrep::load_from_bytes(file, target);
            } catch (const std::bad_alloc&) {
                ADD_FAILURE() << "the load asked for " << largest_allocation << " bytes at once";
            }
        });
    });
    EXPECT_EQ(st.code(), expected) << describe(st);
    EXPECT_TRUE(target == before);
    EXPECT_LT(largest, std::size_t{1} << 20) << "bytes in one allocation";
    EXPECT_LT(seconds, 5.0);
}

} // namespace

TEST(SaveRobustness, AVectorCountAboveTheProgramsBoundIsRefusedWithoutAHugeAllocation)
{
    expect_refused_cheaply(forge_huge_bag<Item>("items", false), error::out_of_range);
}

TEST(SaveRobustness, AHugeVectorInAFieldTheProgramDroppedStopsAtTheEndOfThePayload)
{
    expect_refused_cheaply(forge_huge_bag<Item>("hoard", false), error::truncated);
}

TEST(SaveRobustness, AnArrayCountAboveTheProgramsArrayIsRefusedWithoutAHugeAllocation)
{
    expect_refused_cheaply(forge_huge_bag<bitrep::ranged<int, 7, 7>>("marks", true), error::out_of_range);
}

// Zero-bit elements cost no input, so only the reader's value budget stops
// a walk over billions of them.
TEST(SaveRobustness, BillionsOfZeroBitValuesInADroppedFieldAreCutOffQuickly)
{
    expect_refused_cheaply(forge_huge_bag<bitrep::ranged<int, 7, 7>>("dust", true), error::corrupt);
}

namespace {

// Hoard<Tag>'s file with an empty vector, its 32-bit count then set to
// 2^32 - 1 (CRC recomputed): four billion elements promised in four bytes.
template <int Tag>
bytes hoard_claiming_four_billion_items()
{
    const bytes file = bitrep::save_to_bytes(Hoard<Tag>{});
    EXPECT_EQ(read_le(file, payload_bits_at, 8), 32u);
    return with_payload(file, bytes{0xFF, 0xFF, 0xFF, 0xFF}, 32);
}

} // namespace

TEST(SaveRobustness, AnAbsurdCountWithinTheProgramsOwnHugeBoundIsRefusedWithoutAHugeAllocation)
{
    expect_refused_cheaply(hoard_claiming_four_billion_items<0>(), error::truncated,
                           Hoard<0>{{{1, 1, Rarity::common}}});
}

TEST(SaveRobustness, AnAbsurdCountWithinAHugeBoundReadThroughTheSchemaIsRefusedWithoutAHugeAllocation)
{
    expect_refused_cheaply(hoard_claiming_four_billion_items<1>(), error::truncated,
                           Hoard<0>{{{1, 1, Rarity::common}}});
}

TEST(SaveRobustness, ASchemaNestedDeeperThanThirtyTwoLevelsIsCorrupt)
{
    bitrep::schema_builder builder;
    builder.begin_struct("Bag");
    builder.field("tail", 0);
    for (int level = 0; level < 40; ++level)
        builder.begin_optional();
    builder.ranged(false, 0, 9);
    for (int level = 0; level < 40; ++level)
        builder.end();
    builder.end();
    const bytes payload{0x00}; // the outermost optional absent
    expect_refused_cheaply(forge_save(builder.take(), payload, 1), error::corrupt);
}

TEST(AllocationProbe, SeesALargeRequest)
{
    // The hostile-count tests above would pass vacuously if the probe did
    // not see allocations; the pointer escapes so the pair is not elided.
    const std::size_t largest = largest_allocation_during([] {
        auto* block = new std::array<std::uint8_t, (std::size_t{2} << 20)>;
        asm volatile("" : : "r"(block) : "memory");
        delete block;
    });
    EXPECT_GE(largest, std::size_t{2} << 20);
}

// ============================================================== files that are not saves

TEST_F(LoadRefusal, ATextFileIsNotASave)
{
    const std::string_view text = "slot=1\nname=hero\nlevel=12\n";
    put_file(file, bytes(text.begin(), text.end()));
    const Hero before = other_hero();
    Hero target = before;
    const bitrep::status st = bitrep::load(file, target);
    EXPECT_EQ(st.code(), error::not_a_save) << describe(st);
    EXPECT_TRUE(target == before);
}

TEST_F(LoadRefusal, AnEmptyFileIsNotASave)
{
    put_file(file, {});
    const Hero before = other_hero();
    Hero target = before;
    const bitrep::status st = bitrep::load(file, target);
    EXPECT_EQ(st.code(), error::not_a_save) << describe(st);
    EXPECT_TRUE(target == before);
}

TEST_F(LoadRefusal, ADirectoryIsAnIoErrorMentioningDirectory)
{
    const Hero before = other_hero();
    Hero target = before;
    const bitrep::status st = bitrep::load(directory, target);
    EXPECT_EQ(st.code(), error::io_error) << describe(st);
    EXPECT_TRUE(contains(st.message(), "directory")) << st.message();
    EXPECT_TRUE(target == before);
}

TEST_F(LoadRefusal, AMissingFileIsNotFound)
{
    const Hero before = other_hero();
    Hero target = before;
    const bitrep::status st = bitrep::load(directory / "absent.sav", target);
    EXPECT_EQ(st.code(), error::not_found) << describe(st);
    EXPECT_TRUE(contains(st.message(), "absent.sav")) << st.message();
    EXPECT_TRUE(target == before);
}

TEST_F(LoadRefusal, ADamagedFileOnDiskIsCorruptAndLeavesTheObjectUnchanged)
{
    bytes damaged = bitrep::save_to_bytes(sample_hero());
    damaged.back() ^= 0x10;
    put_file(file, damaged);
    const Hero before = other_hero();
    Hero target = before;
    const bitrep::status st = bitrep::load(file, target);
    EXPECT_EQ(st.code(), error::corrupt) << describe(st);
    EXPECT_TRUE(target == before);
}

// ============================================================== save options

TEST_F(SaveOptions, KeepBackupLeavesThePreviousSaveLoadableAtBak)
{
    Hero first = sample_hero();
    first.health = 11;
    Hero second = sample_hero();
    second.health = 22;
    ASSERT_TRUE(bitrep::save(file, first));
    ASSERT_TRUE(bitrep::save(file, second, bitrep::save_options{.keep_backup = true}));

    Hero current = other_hero();
    ASSERT_TRUE(bitrep::load(file, current));
    EXPECT_EQ(current.health, 22);
    Hero previous = other_hero();
    const bitrep::status st = bitrep::load(backup, previous);
    ASSERT_TRUE(st) << st.message();
    expect_saved_fields_equal(previous, first);
}

TEST_F(SaveOptions, ByDefaultNoBackupIsKept)
{
    ASSERT_TRUE(bitrep::save(file, sample_hero()));
    ASSERT_TRUE(bitrep::save(file, other_hero()));
    EXPECT_FALSE(fs::exists(backup));
    EXPECT_EQ(entries(directory), std::vector<std::string>{"hero.sav"});
}

TEST_F(SaveOptions, SavingAnOutOfRangeValueNamesTheFieldAndLeavesTheFileUntouched)
{
    ASSERT_TRUE(bitrep::save(file, sample_hero()));
    const bytes previous = get_file(file);
    Hero invalid = sample_hero();
    invalid.health = 101;
    const bitrep::status st = bitrep::save(file, invalid);
    EXPECT_EQ(st.code(), error::value_out_of_range) << describe(st);
    EXPECT_EQ(st.field_path(), "Hero.health");
    EXPECT_EQ(get_file(file), previous);
    EXPECT_EQ(entries(directory), std::vector<std::string>{"hero.sav"});
}

TEST(SaveToBytes, ThrowsWriteErrorForAnOutOfRangeValue)
{
    Hero invalid = sample_hero();
    invalid.inventory[1].count = 65;
    try {
        static_cast<void>(bitrep::save_to_bytes(invalid));
        ADD_FAILURE() << "no write_error thrown";
    } catch (const bitrep::write_error& e) {
        EXPECT_EQ(e.status().code(), error::value_out_of_range);
        EXPECT_EQ(e.status().field_path(), "Hero.inventory[1].count");
    }
}

TEST(SaveToBytes, IntoAVectorReturnsTheErrorAndLeavesTheVectorEmpty)
{
    Hero invalid = sample_hero();
    invalid.title = bitrep::bounded_string<8>("Archduchess"); // 11 bytes, bound 8
    bytes out = {1, 2, 3};
    const bitrep::status st = bitrep::save_to_bytes(invalid, out);
    EXPECT_EQ(st.code(), error::value_out_of_range) << describe(st);
    EXPECT_TRUE(contains(st.field_path(), "title")) << st.field_path();
    EXPECT_TRUE(out.empty());
}

// ============================================================== load size limit

TEST_F(LoadLimit, AFileLargerThanMaxFileBytesIsAnIoError)
{
    ASSERT_TRUE(bitrep::save(file, sample_hero()));
    const std::size_t size = fs::file_size(file);
    const Hero before = other_hero();
    Hero target = before;
    const bitrep::status st = bitrep::load(file, target, bitrep::load_options{.max_file_bytes = size - 1});
    EXPECT_EQ(st.code(), error::io_error) << describe(st);
    EXPECT_TRUE(contains(st.message(), "larger than the load limit")) << st.message();
    EXPECT_TRUE(target == before);
}

TEST_F(LoadLimit, AFileOfExactlyMaxFileBytesLoads)
{
    ASSERT_TRUE(bitrep::save(file, sample_hero()));
    const std::size_t size = fs::file_size(file);
    Hero target = other_hero();
    const bitrep::status st = bitrep::load(file, target, bitrep::load_options{.max_file_bytes = size});
    EXPECT_TRUE(st) << st.message();
    EXPECT_EQ(target.health, 73);
}

// A sparse file past the default 1 GiB limit costs no disk, and a reader that
// allocated or read before checking would need a gigabyte and seconds.
TEST_F(LoadLimit, AFileOverTheDefaultLimitIsRefusedBeforeItIsRead)
{
    put_file(file, bitrep::save_to_bytes(sample_hero()));
    fs::resize_file(file, (std::uintmax_t{1} << 30) + 1);
    const Hero before = other_hero();
    Hero target = before;
    bitrep::status st;
    std::size_t largest = 0;
    const double seconds = seconds_taken([&] {
        largest = largest_allocation_during([&] {
            try {
                st = bitrep::load(file, target);
            } catch (const std::bad_alloc&) {
                ADD_FAILURE() << "the load asked for " << largest_allocation << " bytes at once";
            }
        });
    });
    EXPECT_EQ(st.code(), error::io_error) << describe(st);
    EXPECT_TRUE(target == before);
    EXPECT_LT(largest, std::size_t{1} << 20) << "bytes in one allocation";
    EXPECT_LT(seconds, 2.0);
}
