// tools/bitrep-inspect.cpp: the tool run as a user runs it, on save files
// written by bitrep::save. Its JSON is checked value by value against what
// was saved and its header against read_save_header; every bad file gives
// exit code 1, one line on stderr naming the file and the error, and no
// output; hostile files never crash it. With --salvage, a damaged file
// gives what could be read, where and why reading stopped, and exit code 3.
#include <bitrep/bitrep.hpp>

#include <gtest/gtest.h>

#include "hostile_saves.hpp"
#include "temporary_directory.hpp"
#include "test_oracle.hpp"

#include <nlohmann/json.hpp>

#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#ifndef BITREP_INSPECT_PATH
#error "BITREP_INSPECT_PATH must name the bitrep-inspect executable (tests/CMakeLists.txt sets it)"
#endif

namespace {

namespace fs = std::filesystem;
using bitrep::bounded_string;
using bitrep::bounded_vector;
using bitrep::quantized;
using bitrep::ranged;
using json = nlohmann::ordered_json;
using bytes = std::vector<std::uint8_t>;

enum class Team { red, blue, green };
BOOST_DESCRIBE_ENUM(Team, red, blue, green)

struct Item {
    ranged<int, 1, 64> count = 1;
    bounded_string<12> label;
};
BOOST_DESCRIBE_STRUCT(Item, (), (count, label))

struct Hero {
    static constexpr std::uint32_t save_version = 4;
    ranged<int, -100, 100> health = 0;
    ranged<std::uint64_t, 0, 1'000'000'000'000> gold = 0;
    quantized<-100.f, 100.f, 0.01f> x;
    bitrep::quat<9> facing;
    Team team = Team::red;
    bounded_string<16> name;
    bounded_vector<Item, 8> items;
    std::optional<ranged<int, 0, 1000>> mana;
    std::optional<ranged<int, 0, 1000>> shield;
    std::array<std::int16_t, 3> color{};
    bool alive = false;
    float speed = 0.0f;
    double age = 0.0;
    bitrep::net_only<std::uint32_t> ping = 0;
    bitrep::save_only<std::int64_t> debt = 0;
};
BOOST_DESCRIBE_STRUCT(Hero, (),
                      (health, gold, x, facing, team, name, items, mana, shield, color, alive, speed, age, ping, debt))

Hero sample_hero()
{
    Hero hero;
    hero.health = -42;
    hero.gold = 999'999'999'999u;
    hero.x = 12.34f;
    hero.facing = {0.0f, 0.6f, 0.0f, 0.8f};
    hero.team = Team::blue;
    hero.name = "Ayla";
    hero.items.push_back({5, "rope"});
    hero.items.push_back({64, "lantern"});
    hero.mana = 250;
    hero.color = {-1, 0, 300};
    hero.alive = true;
    hero.speed = 1.5f;
    hero.age = 0.1;
    hero.ping = 77;
    hero.debt = -5000;
    return hero;
}

// An aggregate: Boost.PFR gives positions, not names; the transient field
// is not saved but still counts as a position.
struct Point {
    std::int32_t a = 0;
    float b = 0.0f;
    bitrep::transient<int> cache = 0;
    std::uint8_t d = 0;
};

// A hook's bits are private to the program that wrote them.
struct Blob {
    std::uint32_t a = 0;
    template <class Stream>
    bool serialize(Stream& stream)
    {
        return bitrep::serialize(stream, a);
    }
};
struct WithBlob {
    ranged<int, 0, 10> before = 0;
    Blob blob;
    ranged<int, 0, 10> after = 0;
};
BOOST_DESCRIBE_STRUCT(WithBlob, (), (before, blob, after))

struct BlobList {
    ranged<int, 0, 10> first = 0;
    bounded_vector<std::optional<Blob>, 4> blobs;
};
BOOST_DESCRIBE_STRUCT(BlobList, (), (first, blobs))

struct Tiny {
    ranged<int, 0, 2> n = 0;
};
BOOST_DESCRIBE_STRUCT(Tiny, (), (n))

// An inner struct with a save_version: the file records every struct's
// (format 4).
struct Ring {
    static constexpr std::uint32_t save_version = 3;
    ranged<int, 0, 9> gem = 0;
};
BOOST_DESCRIBE_STRUCT(Ring, (), (gem))
struct Hand {
    std::optional<Ring> ring;
};
BOOST_DESCRIBE_STRUCT(Hand, (), (ring))

// A variant: a class alternative, an enum, and a number without a name.
struct Sword {
    ranged<int, 0, 100> damage = 0;
};
BOOST_DESCRIBE_STRUCT(Sword, (), (damage))
struct Armory {
    bitrep::bounded_vector<Sword, 1000> swords;
};
BOOST_DESCRIBE_STRUCT(Armory, (), (swords))
struct Loot {
    std::variant<Sword, Team, ranged<int, 0, 99>> first;
    std::variant<Sword, Team, ranged<int, 0, 99>> second;
    std::variant<Sword, Team, ranged<int, 0, 99>> third;
};
BOOST_DESCRIBE_STRUCT(Loot, (), (first, second, third))

using position = quantized<-256.f, 256.f, 0.01f>;
struct Survey {
    position east;
    position north;
    quantized<0.f, 360.f, 0.1f> bearing;
    quantized<0.f, 1000.f, 25.f> depth;
};
BOOST_DESCRIBE_STRUCT(Survey, (), (east, north, bearing, depth))

// 667 quanta across [-1, 1]: their values are no short decimals.
using odd_step = quantized<-1.f, 1.f, 0.003f>;
struct Samples {
    bounded_vector<position, 400> fine;
    bounded_vector<odd_step, 400> odd;
};
BOOST_DESCRIBE_STRUCT(Samples, (), (fine, odd))

using oracle::contains;

std::string quoted(const std::string& text)
{
    std::string out = "'";
    for (char c : text) {
        if (c == '\'')
            out.append("'\\''");
        else
            out.push_back(c);
    }
    out.push_back('\'');
    return out;
}

std::vector<std::string> lines_of(const std::string& text)
{
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

struct run_result {
    int exit_code = -1; ///< -1 when the tool did not exit normally (a signal)
    std::string out;
    std::string err;
};

class Inspect : public temporary_directory_test {
protected:
    template <class T>
    fs::path saved(const std::string& name, const T& value) const
    {
        const fs::path file = path(name);
        const bitrep::status st = bitrep::save(file, value);
        EXPECT_TRUE(st) << st.message();
        return file;
    }

    fs::path written(const std::string& name, const bytes& content) const
    {
        const fs::path file = path(name);
        std::ofstream out(file, std::ios::binary);
        out.write(reinterpret_cast<const char*>(content.data()), static_cast<std::streamsize>(content.size()));
        return file;
    }

    static bytes read_all(const fs::path& file)
    {
        std::ifstream in(file, std::ios::binary);
        return bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }

    run_result run(const std::vector<std::string>& args) const
    {
        const fs::path err_file = directory / "stderr.txt";
        std::string command = quoted(BITREP_INSPECT_PATH);
        // GCC 12 warns (-Wrestrict, a false positive) on `" " + string`.
        for (const std::string& arg : args)
            command.append(" ").append(quoted(arg));
        command.append(" 2>").append(quoted(err_file.string()));
        run_result result;
        FILE* pipe = ::popen(command.c_str(), "r");
        if (pipe == nullptr)
            return result;
        char buffer[4096];
        for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
            result.out.append(buffer, n);
        const int status = ::pclose(pipe);
        if (status != -1 && WIFEXITED(status))
            result.exit_code = WEXITSTATUS(status);
        const bytes err = read_all(err_file);
        result.err.assign(err.begin(), err.end());
        return result;
    }

    // The tool's JSON for a good file; fails the test on anything else.
    json inspect(const fs::path& file, const std::vector<std::string>& options = {}) const
    {
        std::vector<std::string> args = options;
        args.push_back(file.string());
        const run_result result = run(args);
        EXPECT_EQ(result.exit_code, 0) << result.err;
        EXPECT_EQ(result.err, "");
        return json::parse(result.out, nullptr, false);
    }

    // One line on stderr naming the file and the error's code, nothing on
    // stdout, exit code 1.
    void expect_refused(const fs::path& file, std::string_view code) const
    {
        const run_result result = run({file.string()});
        EXPECT_EQ(result.exit_code, 1) << result.err;
        EXPECT_EQ(result.out, "");
        const std::vector<std::string> lines = lines_of(result.err);
        ASSERT_EQ(lines.size(), 1u) << result.err;
        const std::string prefix = std::string("bitrep-inspect: ").append(file.string()).append(": ");
        EXPECT_TRUE(lines[0].starts_with(prefix)) << lines[0];
        EXPECT_TRUE(contains(lines[0], code)) << lines[0];
    }

    // A file around a hand-built schema, as a forger could write it: header
    // and CRC are valid, so only the schema and the payload are hostile. It
    // is format 1 (the schema's names inline), as bitrep wrote until format 3.
    fs::path forged(const std::string& name, const bitrep::schema& tree, std::uint64_t payload_bits,
                    bytes payload = {}) const
    {
        bytes schema_section;
        EXPECT_TRUE(bitrep::encode_schema(tree, schema_section, bitrep::schema_encoding::names_inline));
        payload.resize((payload_bits + 7) / 8);
        bytes file(bitrep::save_header::size);
        file.insert(file.end(), schema_section.begin(), schema_section.end());
        file.insert(file.end(), payload.begin(), payload.end());
        std::copy(std::begin(bitrep::detail::save_magic), std::end(bitrep::detail::save_magic), file.begin());
        bitrep::detail::store_le<std::uint16_t>(file.data() + 4, 1); // format 1: no metadata, not compressed
        bitrep::detail::store_le<std::uint32_t>(file.data() + 8, 1);
        bitrep::detail::store_le<std::uint64_t>(file.data() + 12, bitrep::schema_fingerprint(schema_section));
        bitrep::detail::store_le<std::uint32_t>(file.data() + 20, static_cast<std::uint32_t>(schema_section.size()));
        bitrep::detail::store_le<std::uint64_t>(file.data() + 24, payload_bits);
        reseal(file);
        return written(name, file);
    }

    // Replaces the CRCs so that a deliberately damaged file gets past them
    // (from format 2 on, the info CRC of the header and metadata first).
    static void reseal(bytes& file)
    {
        bitrep::save_header header;
        if (bitrep::detail::parse_save_header(file, file.size(), header) && header.format >= 2)
            bitrep::detail::store_le<std::uint32_t>(
                file.data() + 60, bitrep::detail::save_info_crc(file, static_cast<std::size_t>(header.metadata_bytes())));
        bitrep::detail::store_le<std::uint32_t>(file.data() + 32, bitrep::detail::save_crc(file));
    }

    // --salvage's exit code and JSON (discarded when it printed none).
    std::pair<int, json> salvaged(const fs::path& file) const
    {
        const run_result result = run({"--salvage", file.string()});
        EXPECT_EQ(result.err, "");
        return {result.exit_code, json::parse(result.out, nullptr, false)};
    }

};

std::vector<std::string> keys_of(const json& object)
{
    std::vector<std::string> keys;
    for (const auto& [key, value] : object.items())
        keys.push_back(key);
    return keys;
}

// ---- good files -------------------------------------------------------------

TEST_F(Inspect, EveryValueOfADescribedStructPrintsAsSaved)
{
    const json doc = inspect(saved("hero.sav", sample_hero()));
    ASSERT_FALSE(doc.is_discarded());
    EXPECT_EQ(doc["complete"], true);
    const json& value = doc["value"];
    ASSERT_TRUE(value.is_object());

    ASSERT_TRUE(value["health"].is_number_integer());
    EXPECT_EQ(value["health"].get<std::int64_t>(), -42);
    ASSERT_TRUE(value["gold"].is_number_unsigned());
    EXPECT_EQ(value["gold"].get<std::uint64_t>(), 999'999'999'999u);
    EXPECT_NEAR(value["x"].get<double>(), 12.34, 0.01);
    const json& facing = value["facing"];
    EXPECT_NEAR(facing["x"].get<double>(), 0.0, 0.005);
    EXPECT_NEAR(facing["y"].get<double>(), 0.6, 0.005);
    EXPECT_NEAR(facing["z"].get<double>(), 0.0, 0.005);
    EXPECT_NEAR(facing["w"].get<double>(), 0.8, 0.005);
    EXPECT_EQ(value["team"], "blue");
    EXPECT_EQ(value["name"], "Ayla");

    ASSERT_TRUE(value["items"].is_array());
    ASSERT_EQ(value["items"].size(), 2u);
    EXPECT_EQ(value["items"][0]["count"], 5);
    EXPECT_EQ(value["items"][0]["label"], "rope");
    EXPECT_EQ(value["items"][1]["count"], 64);
    EXPECT_EQ(value["items"][1]["label"], "lantern");

    EXPECT_EQ(value["mana"], 250);
    ASSERT_TRUE(value.contains("shield"));
    EXPECT_TRUE(value["shield"].is_null());
    EXPECT_EQ(value["color"], json::parse("[-1, 0, 300]"));
    EXPECT_EQ(value["alive"], true);
    EXPECT_EQ(value["speed"].get<double>(), 1.5);
    EXPECT_EQ(value["age"].get<double>(), 0.1);

    EXPECT_FALSE(value.contains("ping")); // net_only: not in a save file
    ASSERT_TRUE(value.contains("debt"));  // save_only: only in a save file
    EXPECT_EQ(value["debt"].get<std::int64_t>(), -5000);
}

TEST_F(Inspect, FieldsPrintInDeclarationOrder)
{
    const json doc = inspect(saved("hero.sav", sample_hero()));
    EXPECT_EQ(keys_of(doc), (std::vector<std::string>{"file", "header", "schema", "complete", "value"}));
    EXPECT_EQ(keys_of(doc["value"]), (std::vector<std::string>{"health", "gold", "x", "facing", "team", "name", "items",
                                                                "mana", "shield", "color", "alive", "speed", "age",
                                                                "debt"}));
}

TEST_F(Inspect, HeaderFieldsAreWhatReadSaveHeaderReads)
{
    const fs::path file = saved("hero.sav", sample_hero());
    const bytes content = read_all(file);
    bitrep::save_header header;
    ASSERT_TRUE(bitrep::read_save_header(content, header));
    EXPECT_EQ(header.fingerprint, bitrep::schema_of<Hero>().fingerprint);
    char fingerprint[24];
    char crc[16];
    std::snprintf(fingerprint, sizeof fingerprint, "0x%016llx", static_cast<unsigned long long>(header.fingerprint));
    std::snprintf(crc, sizeof crc, "0x%08x", static_cast<unsigned>(header.crc));

    const json doc = inspect(file);
    EXPECT_EQ(doc["file"], file.string());
    const json& h = doc["header"];
    EXPECT_EQ(h["format"], 3);
    EXPECT_EQ(h["save_version"], 4);
    EXPECT_EQ(h["save_version"], header.save_version);
    EXPECT_EQ(h["fingerprint"], fingerprint);
    EXPECT_EQ(h["schema_bytes"], header.schema_bytes);
    EXPECT_EQ(h["payload_bits"], header.payload_bits);
    EXPECT_EQ(h["crc32"], crc);
    EXPECT_EQ(h["file_bytes"], content.size());
}

TEST_F(Inspect, SchemaShowsEachFieldsKindAndBounds)
{
    const json doc = inspect(saved("hero.sav", sample_hero()));
    const json& root = doc["schema"];
    EXPECT_EQ(root["kind"], "struct");
    EXPECT_EQ(root["type"], "Hero");
    const json& fields = root["fields"];
    ASSERT_EQ(fields.size(), 14u); // ping (net_only) is not saved
    EXPECT_EQ(fields[0], json::parse(R"({"name": "health", "position": 0, "kind": "ranged integer", "signed": true,
                                         "min": -100, "max": 100, "bits": 8})"));
    EXPECT_EQ(fields[2]["kind"], "quantized float");
    EXPECT_EQ(fields[2]["min"], -100.0);
    EXPECT_EQ(fields[2]["max"], 100.0);
    EXPECT_NEAR(fields[2]["resolution"].get<double>(), 0.01, 1e-9);
    EXPECT_EQ(fields[2]["bits"], 15);
    EXPECT_EQ(fields[3]["bits_per_component"], 9);
    EXPECT_EQ(fields[4]["type"], "Team");
    EXPECT_EQ(fields[4]["enumerators"],
              json::parse(R"([{"name": "red", "value": 0}, {"name": "blue", "value": 1}, {"name": "green", "value": 2}])"));
    EXPECT_EQ(fields[5]["max_length"], 16);
    EXPECT_EQ(fields[6]["max_size"], 8);
    EXPECT_EQ(fields[6]["element"]["type"], "Item");
    EXPECT_EQ(fields[6]["element"]["fields"][1]["name"], "label");
    EXPECT_EQ(fields[7]["kind"], "optional");
    EXPECT_EQ(fields[7]["element"]["max"], 1000);
    EXPECT_EQ(fields[9]["count"], 3);
    EXPECT_EQ(fields[9]["element"], json::parse(R"({"kind": "integer", "signed": true, "bits": 16})"));
    EXPECT_EQ(fields[13]["name"], "debt");
    EXPECT_EQ(fields[13]["position"], 14); // positions count the unsaved ping
}

TEST_F(Inspect, AFormatFourSchemaShowsEachStructsSaveVersion)
{
    const json doc = inspect(saved("hand.sav", Hand{Ring{7}}));
    EXPECT_EQ(doc["header"]["format"], 4);
    EXPECT_EQ(doc["schema"]["save_version"], 1);
    EXPECT_EQ(doc["schema"]["fields"][0]["element"]["save_version"], 3);
    // Format 3 records none but the header's.
    EXPECT_FALSE(inspect(saved("hero.sav", sample_hero()))["schema"].contains("save_version"));
}

TEST_F(Inspect, AggregateFieldsAreKeyedByPosition)
{
    Point point;
    point.a = -7;
    point.b = 2.5f;
    point.cache = 99;
    point.d = 200;
    const json doc = inspect(saved("point.sav", point));
    EXPECT_EQ(doc["complete"], true);
    EXPECT_EQ(doc["value"], json::parse(R"({"#0": -7, "#1": 2.5, "#3": 200})"));
    EXPECT_FALSE(doc["schema"]["fields"][0].contains("name"));
    EXPECT_EQ(doc["schema"]["fields"][2]["position"], 3);
}

TEST_F(Inspect, AVariantIsAnObjectOfItsAlternativeByNameOrIndex)
{
    const Loot loot{Sword{40}, Team::green, ranged<int, 0, 99>(7)};
    const json doc = inspect(saved("loot.sav", loot));
    EXPECT_EQ(doc["complete"], true);
    EXPECT_EQ(doc["value"], json::parse(R"({"first": {"Sword": {"damage": 40}}, "second": {"Team": "green"},
                                            "third": {"#2": 7}})"));
    const json& schema = doc["schema"]["fields"][0];
    EXPECT_EQ(schema["kind"], "variant");
    EXPECT_EQ(schema["index_bits"], 2);
    ASSERT_EQ(schema["alternatives"].size(), 3u);
    EXPECT_EQ(schema["alternatives"][0]["name"], "Sword");
    EXPECT_EQ(schema["alternatives"][1]["kind"], "enum");
    EXPECT_FALSE(schema["alternatives"][2].contains("name"));
    EXPECT_EQ(schema["alternatives"][2]["position"], 2);
}

TEST_F(Inspect, ASaveWithMetadataShowsItsMetadataAndItsValueCompressedOrNot)
{
    const Loot loot{Sword{40}, Team::green, ranged<int, 0, 99>(7)};
    const Sword banner{12}; // any saved struct serves as metadata
    bitrep::save_options options;
    options.compression = bitrep::detail::zstd_available() ? bitrep::save_compression::zstd : bitrep::save_compression::none;
    const fs::path file = path("slot.sav");
    ASSERT_TRUE(bitrep::save(file, loot, banner, options));
    const json doc = inspect(file);
    EXPECT_EQ(doc["header"]["format"], 3);
    EXPECT_EQ(doc["metadata"]["value"], json::parse(R"({"damage": 12})"));
    EXPECT_EQ(doc["metadata"]["schema"]["type"], "Sword");
    EXPECT_EQ(doc["complete"], true);
    EXPECT_EQ(doc["value"]["first"], json::parse(R"({"Sword": {"damage": 40}})"));
    // zstd does not shrink a value this small: stored as it is, and said so.
    EXPECT_EQ(doc["header"]["compression"], "none");
    if (!bitrep::detail::zstd_available())
        return;
    // A value it does shrink is shown as saved.
    Armory armory;
    for (int i = 0; i < 500; ++i)
        armory.swords.push_back(Sword{i % 3});
    const fs::path big = path("armory.sav");
    ASSERT_TRUE(bitrep::save(big, armory, banner, options));
    const json packed = inspect(big);
    EXPECT_EQ(packed["header"]["compression"], "zstd");
    EXPECT_LT(packed["header"]["stored_payload_bytes"].get<std::uint64_t>(), 500u * 7u / 8u / 4u);
    ASSERT_EQ(packed["value"]["swords"].size(), 500u);
    EXPECT_EQ(packed["value"]["swords"][499], json::parse(R"({"damage": 1})"));
}

TEST_F(Inspect, SchemaOnlyLeavesOutTheValue)
{
    const json doc = inspect(saved("hero.sav", sample_hero()), {"--schema-only"});
    EXPECT_TRUE(doc.contains("header"));
    EXPECT_EQ(doc["schema"]["type"], "Hero");
    EXPECT_FALSE(doc.contains("value"));
}

TEST_F(Inspect, CompactPrintsOneLineOfTheSameJson)
{
    const fs::path file = saved("hero.sav", sample_hero());
    const run_result compact = run({"--compact", file.string()});
    EXPECT_EQ(compact.exit_code, 0);
    EXPECT_EQ(lines_of(compact.out).size(), 1u);
    EXPECT_EQ(json::parse(compact.out), inspect(file));
    EXPECT_GT(lines_of(run({file.string()}).out).size(), 40u); // indented by default
}

TEST_F(Inspect, AHookSerializedFieldStopsTheValueThereAndSaysSo)
{
    WithBlob value;
    value.before = 3;
    value.blob.a = 0xDEADBEEF;
    value.after = 4;
    const json doc = inspect(saved("blob.sav", value));
    EXPECT_EQ(doc["complete"], false);
    // Nothing after the hook's bits can be located: "after" is not shown.
    EXPECT_EQ(doc["value"], json::parse(R"({"before": 3, "blob": "<opaque Blob: written by a serialization hook>"})"));
    EXPECT_EQ(doc["schema"]["fields"][1], json::parse(R"({"name": "blob", "position": 1,
                                                         "kind": "hook-serialized type", "type": "Blob"})"));
}

TEST_F(Inspect, AHookSerializedValueInsideAVectorOfOptionalsIsShownInItsPlace)
{
    BlobList value;
    value.first = 9;
    value.blobs.push_back(Blob{1});
    value.blobs.push_back(Blob{2});
    const json doc = inspect(saved("blobs.sav", value));
    EXPECT_EQ(doc["complete"], false);
    EXPECT_EQ(doc["value"], json::parse(R"({"first": 9, "blobs": ["<opaque Blob: written by a serialization hook>"]})"));
}

TEST_F(Inspect, AHookSerializedRootIsShownAsTheValue)
{
    const json doc = inspect(saved("root.sav", Blob{5}));
    EXPECT_EQ(doc["complete"], false);
    EXPECT_EQ(doc["value"], "<opaque Blob: written by a serialization hook>");
}

TEST_F(Inspect, VersionAndHelpExitZero)
{
    const run_result version = run({"--version"});
    EXPECT_EQ(version.exit_code, 0);
    EXPECT_TRUE(contains(version.out, "bitrep-inspect")) << version.out;
    const run_result help = run({"--help"});
    EXPECT_EQ(help.exit_code, 0);
    EXPECT_TRUE(contains(help.out, "--schema-only")) << help.out;
}

TEST_F(Inspect, UsageErrorsExitTwo)
{
    const run_result no_file = run({});
    EXPECT_EQ(no_file.exit_code, 2);
    EXPECT_EQ(no_file.out, "");
    const run_result unknown = run({"--frobnicate", path("x").string()});
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_EQ(unknown.out, "");
}

// ---- bad files --------------------------------------------------------------

TEST_F(Inspect, AMissingFileIsNotFound) { expect_refused(path("missing.sav"), "not_found"); }

TEST_F(Inspect, AnEmptyFileIsNotASave) { expect_refused(written("empty.sav", {}), "not_a_save"); }

TEST_F(Inspect, ADirectoryIsAnIoError)
{
    fs::create_directory(path("folder.sav"));
    expect_refused(path("folder.sav"), "io_error");
}

TEST_F(Inspect, ATextFileIsNotASave)
{
    const std::string text = "{\"health\": 100}\n";
    expect_refused(written("text.sav", bytes(text.begin(), text.end())), "not_a_save");
}

TEST_F(Inspect, AFileShortByOneByteIsTruncated)
{
    bytes content = read_all(saved("hero.sav", sample_hero()));
    content.pop_back();
    expect_refused(written("short.sav", content), "truncated");
}

TEST_F(Inspect, ACompressedPayloadClaimingMoreThanItsSchemaAllowsIsCorrupt)
{
    // As the loader (allocation_bound_test): a 16-byte frame declaring
    // 256 MiB is refused before anything is allocated for it.
    const bytes frame = hostile_saves::frame_declaring(std::uint64_t{1} << 28);
    expect_refused(written("bomb.sav", hostile_saves::save_around(bitrep::schema_of<Hero>().encoded, frame,
                                                                  std::uint64_t{8} << 28, 1, true)),
                   "corrupt at header, bit 192: the payload claims more bits than its schema's values can take");
}

TEST_F(Inspect, AFlippedPayloadBitIsCorrupt)
{
    bytes content = read_all(saved("hero.sav", sample_hero()));
    content[content.size() - 2] ^= 0x10;
    expect_refused(written("flipped.sav", content), "corrupt");
}

TEST_F(Inspect, ANewerFileFormatIsRefused)
{
    bytes content = read_all(saved("hero.sav", sample_hero()));
    content[4] = 5;
    reseal(content);
    expect_refused(written("newer.sav", content), "newer_version");
}

TEST_F(Inspect, AMalformedSchemaIsRefused)
{
    bytes content = read_all(saved("hero.sav", sample_hero()));
    content[bitrep::save_header::extended_size] = 0xFF; // the string table's count: more strings than bytes
    reseal(content);
    expect_refused(written("schema.sav", content), "at schema");
}

TEST_F(Inspect, APayloadValueOutsideItsSchemaBoundsIsRefused)
{
    bytes content = read_all(saved("tiny.sav", Tiny{2}));
    content.back() = 0xFF; // n is 2 bits in [0, 2]: 3 is out of range
    reseal(content);
    expect_refused(written("range.sav", content), "out_of_range at Tiny.n");
}

TEST_F(Inspect, APayloadLongerThanItsValueIsCorrupt)
{
    bytes content = read_all(saved("tiny.sav", Tiny{1}));
    bitrep::detail::store_le<std::uint64_t>(content.data() + 24, 8); // same byte count, 6 bits unread
    reseal(content);
    expect_refused(written("long.sav", content), "corrupt");
}

TEST_F(Inspect, RepeatedFieldNamesInAForgedSchemaGetDistinctKeys)
{
    bitrep::schema_builder builder;
    builder.begin_struct("Twice");
    for (const char* name : {"v", "v", "w", "v"}) {
        builder.field(name, 0);
        builder.ranged(false, 5, 5); // zero bits: always 5
    }
    builder.end();
    const json doc = inspect(forged("twice.sav", builder.take(), 0));
    EXPECT_EQ(doc["value"], json::parse(R"({"v": 5, "v~2": 5, "w": 5, "v~3": 5})"));
}

TEST_F(Inspect, AQuantizedFloatPrintsAsTheShortestDecimalOfItsQuantum)
{
    Survey survey;
    survey.east = 219.8f; // decoded as the float 219.79999
    survey.north = -0.5f;
    survey.bearing = 359.9f;
    survey.depth = 610.0f; // the quantum of 600
    const json doc = inspect(saved("survey.sav", survey));
    const json& value = doc["value"];
    EXPECT_EQ(value["east"].dump(), "219.8");
    EXPECT_EQ(value["north"].dump(), "-0.5");
    EXPECT_EQ(value["bearing"].dump(), "359.9");
    EXPECT_EQ(value["depth"].dump(), "600.0");
}

// A quantized value's text, parsed as a float and quantized as the field
// is, gives the saved value's quantum; no decimal with fewer places does.
template <class Quantized>
void expect_shortest_of_its_quantum(const json& printed, float saved)
{
    const bitrep::quantizer quantizer = Quantized::quantizer;
    const std::uint32_t quantum = quantizer.stable_quantize(saved);
    const auto quantum_of = [&](const std::string& text) {
        float parsed = 0.0f;
        const auto read = std::from_chars(text.data(), text.data() + text.size(), parsed);
        EXPECT_EQ(read.ec, std::errc{}) << text;
        return quantizer.stable_quantize(parsed);
    };
    const std::string text = printed.dump();
    ASSERT_EQ(text.find('e'), std::string::npos) << text;
    ASSERT_EQ(quantum_of(text), quantum) << text << " for " << saved;
    const std::size_t point = text.find('.');
    const int places = point == std::string::npos || text.substr(point) == ".0"
                           ? 0
                           : static_cast<int>(text.size() - point - 1);
    const double parsed = std::stod(text);
    for (int fewer = 0; fewer < places; ++fewer) {
        const double scale = std::pow(10.0, fewer);
        for (const double digits : {std::floor(parsed * scale), std::ceil(parsed * scale)}) {
            char shorter[64];
            const auto written = std::to_chars(shorter, shorter + sizeof shorter, digits / scale,
                                               std::chars_format::fixed, fewer);
            EXPECT_NE(quantum_of(std::string(shorter, written.ptr)), quantum)
                << std::string(shorter, written.ptr) << " is shorter than " << text;
        }
    }
}

TEST_F(Inspect, EveryQuantizedValueIsTheShortestDecimalThatQuantizesBackToIt)
{
    std::mt19937 random(12);
    Samples samples;
    for (int i = 0; i < 400; ++i) {
        samples.fine.push_back(std::uniform_real_distribution<float>(-256.f, 256.f)(random));
        samples.odd.push_back(std::uniform_real_distribution<float>(-1.f, 1.f)(random));
    }
    const json doc = inspect(saved("samples.sav", samples));
    const json& value = doc["value"];
    ASSERT_EQ(value["fine"].size(), 400u);
    ASSERT_EQ(value["odd"].size(), 400u);
    for (std::size_t i = 0; i < 400; ++i) {
        expect_shortest_of_its_quantum<position>(value["fine"][i], samples.fine[i]);
        expect_shortest_of_its_quantum<odd_step>(value["odd"][i], samples.odd[i]);
    }
}

TEST_F(Inspect, NonFiniteFloatsPrintAsStrings)
{
    bitrep::schema_builder builder;
    builder.begin_array(3);
    builder.float32();
    builder.end();
    bytes payload;
    for (std::uint32_t pattern : {0x7FC00000u, 0x7F800000u, 0xFF800000u}) // NaN, +inf, -inf
        for (int i = 0; i < 4; ++i)
            payload.push_back(static_cast<std::uint8_t>(pattern >> (8 * i)));
    const json doc = inspect(forged("nan.sav", builder.take(), 96, payload));
    EXPECT_EQ(doc["value"], json::parse(R"(["NaN", "Infinity", "-Infinity"])"));
}

TEST_F(Inspect, ZeroBitValuesBeyondTheWalkBudgetAreCorrupt)
{
    bitrep::schema_builder builder;
    builder.begin_array(0xFFFFFFFFu);
    builder.ranged(false, 0, 0);
    builder.end();
    expect_refused(forged("endless.sav", builder.take(), 8), "more values than the payload could hold");
}

// A struct's fields are appended, not looked up: with lookups, this file of
// 256 structs of 4096 fields took the tool minutes.
TEST_F(Inspect, WideForgedStructsAreWalkedInLinearTime)
{
    bitrep::schema_builder builder;
    builder.begin_array(256);
    builder.begin_struct("Wide");
    for (std::size_t i = 0; i < bitrep::schema_limits::max_children; ++i) {
        builder.field("field" + std::to_string(i), i);
        builder.ranged(false, 7, 7);
    }
    builder.end();
    builder.end();
    const fs::path file = forged("wide.sav", builder.take(), 8);
    const auto start = std::chrono::steady_clock::now();
    expect_refused(file, "corrupt");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
}

// Bits flipped anywhere after the header, with the CRC recomputed so that the
// schema parser and the payload walk see them: the tool prints JSON or
// refuses the file in one line, and never crashes (a sanitizer report or a
// signal fails this test).
TEST_F(Inspect, DamagedSchemasAndPayloadsNeverCrashTheTool)
{
    const bytes original = read_all(saved("hero.sav", sample_hero()));
    std::mt19937 random(20240611);
    std::uniform_int_distribution<std::size_t> byte_at(bitrep::save_header::extended_size, original.size() - 1);
    std::uniform_int_distribution<int> bit(0, 7);
    std::uniform_int_distribution<int> flips(1, 3);
    int refused = 0;
    for (int round = 0; round < 150; ++round) {
        bytes content = original;
        for (int i = flips(random); i > 0; --i)
            content[byte_at(random)] ^= static_cast<std::uint8_t>(1u << bit(random));
        reseal(content);
        const fs::path file = written("damaged.sav", content);
        const run_result result = run({file.string()});
        ASSERT_TRUE(result.exit_code == 0 || result.exit_code == 1) << "round " << round << ": " << result.err;
        if (result.exit_code == 0) {
            EXPECT_EQ(result.err, "");
            EXPECT_FALSE(json::parse(result.out, nullptr, false).is_discarded()) << "round " << round;
        } else {
            ++refused;
            EXPECT_EQ(result.out, "");
            const std::vector<std::string> lines = lines_of(result.err);
            ASSERT_EQ(lines.size(), 1u) << "round " << round << ": " << result.err;
            EXPECT_TRUE(lines[0].starts_with("bitrep-inspect: ")) << lines[0];
        }
    }
    EXPECT_GT(refused, 0);
}

// ---- --salvage ----------------------------------------------------------------

TEST_F(Inspect, SalvageOfAnIntactFileIsTheUsualOutputAndExitsZero)
{
    const fs::path file = saved("hero.sav", sample_hero());
    const auto [code, doc] = salvaged(file);
    EXPECT_EQ(code, 0);
    EXPECT_EQ(doc, inspect(file));
}

TEST_F(Inspect, SalvageOfATruncatedFilePrintsEveryValueBeforeTheCutAndWhereItStopped)
{
    bytes content = read_all(saved("hero.sav", sample_hero()));
    bitrep::save_header header;
    ASSERT_TRUE(bitrep::read_save_header(content, header));
    const std::uint64_t age_at = header.payload_offset() * 8 + header.payload_bits - 128; // age, then debt: 64 bits each
    content.resize(content.size() - 10); // debt and the last bits of age
    const auto [code, doc] = salvaged(written("cut.sav", content));
    EXPECT_EQ(code, 3);
    ASSERT_FALSE(doc.is_discarded());
    EXPECT_EQ(doc["header"]["file_bytes"], content.size() + 10);
    EXPECT_EQ(doc["schema"]["type"], "Hero");
    EXPECT_EQ(doc["complete"], false);
    const json& value = doc["value"];
    EXPECT_EQ(value["health"], -42);
    EXPECT_EQ(value["name"], "Ayla");
    EXPECT_EQ(value["items"][1]["label"], "lantern");
    EXPECT_EQ(value["speed"], 1.5);
    EXPECT_FALSE(value.contains("age"));
    EXPECT_FALSE(value.contains("debt"));
    const json& stopped = doc["stopped"];
    EXPECT_EQ(stopped["section"], "value");
    EXPECT_EQ(stopped["field"], "Hero.age");
    EXPECT_EQ(stopped["error"], "truncated");
    EXPECT_GE(stopped["bit"].get<std::uint64_t>(), age_at);
    EXPECT_LE(stopped["bit"].get<std::uint64_t>(), content.size() * 8);
    ASSERT_TRUE(doc.contains("damage"));
    EXPECT_TRUE(contains(doc["damage"][0]["reason"].get<std::string>(), "the file is")) << doc["damage"];
}

TEST_F(Inspect, SalvageOfAFlippedPayloadBitReadsOnAndSaysTheCrcDoesNotMatch)
{
    bytes content = read_all(saved("hero.sav", sample_hero()));
    const auto name_at = std::search(content.begin(), content.end(), std::begin("Ayla"), std::end("Ayla") - 1);
    ASSERT_NE(name_at, content.end());
    *name_at ^= 0x02; // 'A' (0x41) becomes 'C'
    const auto [code, doc] = salvaged(written("flipped.sav", content));
    EXPECT_EQ(code, 3);
    EXPECT_EQ(doc["complete"], true);
    EXPECT_EQ(doc["value"]["name"], "Cyla");
    EXPECT_FALSE(doc.contains("stopped"));
    ASSERT_EQ(doc["damage"].size(), 1u) << doc["damage"];
    EXPECT_EQ(doc["damage"][0]["section"], "file");
    EXPECT_TRUE(contains(doc["damage"][0]["reason"].get<std::string>(), "CRC-32 mismatch"));
}

TEST_F(Inspect, SalvageStopsAtAValueOutsideItsBoundsAndNamesIt)
{
    bytes content = read_all(saved("tiny.sav", Tiny{2}));
    content.back() = 0xFF; // n is 2 bits in [0, 2]: 3 is out of range
    const auto [code, doc] = salvaged(written("range.sav", content));
    EXPECT_EQ(code, 3);
    EXPECT_EQ(doc["complete"], false);
    EXPECT_EQ(doc["stopped"]["field"], "Tiny.n");
    EXPECT_EQ(doc["stopped"]["error"], "out_of_range");
    EXPECT_EQ(doc["stopped"]["bit"], (content.size() - 1) * 8);
}

TEST_F(Inspect, SalvageOfADamagedSchemaPrintsTheHeaderAndStopsAtTheSchema)
{
    bytes content = read_all(saved("hero.sav", sample_hero()));
    content[bitrep::save_header::extended_size] = 0xFF;
    const auto [code, doc] = salvaged(written("schema.sav", content));
    EXPECT_EQ(code, 3);
    EXPECT_EQ(doc["header"]["format"], 3);
    EXPECT_FALSE(doc.contains("schema"));
    EXPECT_FALSE(doc.contains("value"));
    EXPECT_EQ(doc["stopped"]["section"], "schema");
    EXPECT_EQ(doc["stopped"]["error"], "corrupt");
    EXPECT_GE(doc["stopped"]["bit"].get<std::uint64_t>(), bitrep::save_header::extended_size * 8);
}

TEST_F(Inspect, SalvageMarksDamagedMetadataAndStillReadsTheValue)
{
    const fs::path file = path("slot.sav");
    ASSERT_TRUE(bitrep::save(file, Tiny{1}, Sword{12}));
    bytes content = read_all(file);
    bitrep::save_header header;
    ASSERT_TRUE(bitrep::read_save_header(content, header));
    content[bitrep::save_header::extended_size + header.metadata_schema_bytes] = 0xFF; // damage 127 > 100
    const auto [code, doc] = salvaged(written("meta.sav", content));
    EXPECT_EQ(code, 3);
    EXPECT_EQ(doc["metadata"]["stopped"]["field"], "Sword.damage");
    EXPECT_EQ(doc["metadata"]["stopped"]["error"], "out_of_range");
    EXPECT_EQ(doc["complete"], true);
    EXPECT_EQ(doc["value"], json::parse(R"({"n": 1})"));
}

TEST_F(Inspect, SalvageOfAFileWithoutAReadableHeaderIsRefusedAsWithoutIt)
{
    const std::string text = "{\"health\": 100}\n";
    const fs::path file = written("text.sav", bytes(text.begin(), text.end()));
    const run_result result = run({"--salvage", file.string()});
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_EQ(result.out, "");
    EXPECT_TRUE(contains(result.err, "not_a_save")) << result.err;
}

TEST_F(Inspect, SalvageNeverCrashesOnDamagedFiles)
{
    const bytes original = read_all(saved("hero.sav", sample_hero()));
    std::mt19937 random(20261128);
    std::uniform_int_distribution<std::size_t> byte_at(0, original.size() - 1);
    for (int round = 0; round < 60; ++round) {
        bytes content = original;
        if (round % 3 == 0)
            content.resize(byte_at(random));
        else
            content[byte_at(random)] ^= static_cast<std::uint8_t>(1u << (round % 8));
        const run_result result = run({"--salvage", written("damaged.sav", content).string()});
        ASSERT_TRUE(result.exit_code == 1 || result.exit_code == 3) << "round " << round << ": " << result.err;
        if (result.exit_code == 3) {
            EXPECT_FALSE(json::parse(result.out, nullptr, false).is_discarded()) << "round " << round;
        }
    }
}

} // namespace
