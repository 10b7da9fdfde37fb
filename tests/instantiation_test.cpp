// BITREP_EXTERN / BITREP_INSTANTIATE (instantiate.hpp): a file that uses a
// type's codecs through the extern declarations gets the same results as
// one that compiles them itself. That this file compiles none of them is
// checked on its object file by CTest (instantiation_object_has_no_codecs).
#include "instantiation_types.hpp"

#include <gtest/gtest.h>

#include "temporary_directory.hpp"
#include "test_oracle.hpp"

#include <vector>

namespace {

game::Probe sample()
{
    game::Probe p;
    p.health = 42;
    p.x = 12.5f;
    p.alive = false;
    p.name = "probe";
    p.seed = 7;
    return p;
}

class Instantiation : public temporary_directory_test {};

} // namespace

TEST_F(Instantiation, EncodingsThroughTheExternDeclarationsRoundTrip)
{
    const game::Probe sent = sample();
    std::vector<std::uint8_t> bytes;
    ASSERT_TRUE(bitrep::to_bytes(sent, bytes).ok());
    EXPECT_EQ(bytes.size(), (bitrep::bit_size(sent) + 7) / 8);
    // health 7, x 15, alive 1, name: count 4 then padding to bit 32 (5) and 5 bytes, seed 32
    EXPECT_EQ(bitrep::bit_size(sent), 7u + 15u + 1u + 4u + 5u + 40u + 32u);

    game::Probe got;
    ASSERT_TRUE(bitrep::from_bytes(bytes, got).ok());
    EXPECT_EQ(got.health, 42);
    EXPECT_EQ(got.name, "probe");
    EXPECT_FALSE(got.alive);

    bitrep::decoder<game::Probe> decoder;
    game::Probe again;
    ASSERT_TRUE(decoder.decode(bytes, again).ok());
    EXPECT_EQ(again.x, got.x);

    // A refusal names the field, as anywhere else.
    game::Probe broken = sent;
    broken.health = 101;
    EXPECT_STATUS(bitrep::to_bytes(broken, bytes), bitrep::error::value_out_of_range, "game::Probe.health", 0u);
}

TEST_F(Instantiation, SavesThroughTheExternDeclarationsRoundTrip)
{
    const game::Probe sent = sample();
    ASSERT_TRUE(bitrep::save(file, sent).ok());
    game::Probe got;
    ASSERT_TRUE(bitrep::load(file, got).ok());
    EXPECT_EQ(got.seed, 7u);
    EXPECT_EQ(got.name, "probe");

    bitrep::loader<game::Probe> loader;
    game::Probe again;
    ASSERT_TRUE(loader.load(file, again).ok());
    EXPECT_EQ(again.health, 42);

    const std::vector<std::uint8_t> file_bytes = bitrep::save_to_bytes(sent);
    game::Probe from_memory;
    ASSERT_TRUE(bitrep::load_from_bytes(file_bytes, from_memory).ok());
    EXPECT_EQ(from_memory.seed, 7u);
}
