// Games often build with -fno-exceptions. This file is compiled that way,
// together with the library's own source (src/file_io.cpp), and uses every
// entry point that reports failure as a status: they build and work, and a
// failure is a status, never a thrown exception.
#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>
#include <bitrep/save/save.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

static_assert(!BITREP_HAS_EXCEPTIONS, "this test must be compiled with -fno-exceptions");

namespace {

struct Unit {
    bitrep::ranged<int, 0, 100> health;
    bitrep::quantized<-100.f, 100.f, 0.01f> x;
    bitrep::quat<9> orientation;
    bitrep::bounded_string<8> name;
    bitrep::bounded_vector<bitrep::ranged<int, 0, 9>, 4> items;
};
struct World {
    bitrep::ranged<std::uint32_t, 0, 1000> tick;
    bitrep::entity_array<Unit, 8> units;
};

Unit sample()
{
    Unit u{};
    u.health = 42;
    u.x = 12.5f;
    u.name = "ann";
    u.items.push_back(3);
    return u;
}

} // namespace

TEST(NoExceptions, EncodeAndDecodeReturnStatuses)
{
    const Unit unit = sample();
    std::array<std::uint8_t, 64> buffer{};
    std::size_t written = 0;
    ASSERT_TRUE(bitrep::to_bytes(unit, buffer, written));
    std::vector<std::uint8_t> bytes;
    ASSERT_TRUE(bitrep::to_bytes(unit, bytes));
    EXPECT_EQ(bytes.size(), written);

    Unit copy{};
    ASSERT_TRUE(bitrep::from_bytes(bytes, copy));
    EXPECT_EQ(copy.health, 42);
    bitrep::decoder<Unit> decoder;
    Unit again{};
    ASSERT_TRUE(decoder.decode(bytes, again));
    EXPECT_EQ(again.name, bitrep::bounded_string<8>("ann"));

    Unit bad = unit;
    bad.health = 101;
    const bitrep::status refused = bitrep::to_bytes(bad, bytes);
    EXPECT_EQ(refused.code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(bitrep::from_bytes(std::span<const std::uint8_t>(bytes.data(), 0), copy).code(), bitrep::error::truncated);
}

TEST(NoExceptions, SaveFilesWorkAndReportFailuresAsStatuses)
{
    const Unit unit = sample();
    std::vector<std::uint8_t> file;
    ASSERT_TRUE(bitrep::save_to_bytes(unit, file));
    Unit loaded{};
    ASSERT_TRUE(bitrep::load_from_bytes(file, loaded));
    EXPECT_EQ(loaded.x.quantum(), unit.x.quantum());

    const auto directory = std::filesystem::temp_directory_path() / "bitrep-no-exceptions-test";
    std::error_code ignored;
    std::filesystem::create_directories(directory, ignored);
    const auto path = directory / "unit.sav";
    ASSERT_TRUE(bitrep::save(path, unit));
    Unit from_disk{};
    ASSERT_TRUE(bitrep::load(path, from_disk));
    EXPECT_EQ(from_disk.items.size(), 1u);
    EXPECT_EQ(bitrep::load(directory / "missing.sav", from_disk).code(), bitrep::error::not_found);
    std::filesystem::remove_all(directory, ignored);
}

TEST(NoExceptions, ReplicationWorksWithTheStatusForms)
{
    bitrep::replication_server<World> server;
    bitrep::replication_client<World> client;
    const bitrep::client_id id = server.add_client();
    World world{};
    world.tick = 5;
    world.units.emplace(2, sample());
    std::span<const std::uint8_t> packet;
    server.update(world);
    ASSERT_TRUE(server.replicate(id, packet));
    ASSERT_TRUE(client.receive(packet));
    EXPECT_EQ(client.state().tick, 5u);
    ASSERT_TRUE(client.state().units.slots()[2].has_value());
    EXPECT_TRUE(server.receive(id, client.ack()));
    EXPECT_EQ(client.receive(packet).code(), bitrep::error::stale);
}
