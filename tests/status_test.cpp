// Errors as values (status.hpp): a status owns copies of its path and detail,
// so it stays readable whatever happens to the text it was made from, and
// making or copying one never allocates.
#include <bitrep/bitrep.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace {

/// A hook that refuses odd values with a detail it formats on the spot, in
/// a string long enough to live on the heap.
struct Refusing {
    std::int32_t value = 0;

    template <class Stream>
    bool serialize(Stream& stream)
    {
        if constexpr (Stream::is_writing) {
            if (value % 2 != 0) {
                std::string why = "the value " + std::to_string(value) + " is odd, and this hook only sends even values";
                return stream.fail(bitrep::error::value_out_of_range, stream.position(), why);
            }
        }
        return stream.serialize_int(value, -1000, 1000);
    }
};

} // namespace

TEST(Status, KeepsAHooksFormattedDetailAfterTheTextIsGone)
{
    const bitrep::status st = [] {
        std::vector<std::uint8_t> out;
        return bitrep::to_bytes(Refusing{7}, out);
    }();
    // Reuse the heap block the hook's string had, with other characters.
    const std::string other(80, 'X');
    ASSERT_EQ(st.code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(st.detail(), "the value 7 is odd, and this hook only sends even values");
    EXPECT_NE(st.message().find("the value 7 is odd"), std::string::npos) << st.message();
    EXPECT_EQ(other.size(), 80u);
}

TEST(Status, KeepsItsDetailWhenTheTextItWasMadeFromChanges)
{
    std::string detail = "decoded value above the range's maximum";
    const bitrep::status st(bitrep::error::out_of_range, 17, "Player.hp", detail);
    detail.assign(detail.size(), '?');
    EXPECT_EQ(st.detail(), "decoded value above the range's maximum");
    EXPECT_EQ(st.field_path(), "Player.hp");
}

TEST(Status, CopiesCarryThePathAndTheDetail)
{
    const bitrep::status original(bitrep::error::truncated, 9, "World.items[2]", "input ends before the value");
    bitrep::status copy;
    copy = original;
    const bitrep::status constructed(copy);
    EXPECT_EQ(constructed.code(), bitrep::error::truncated);
    EXPECT_EQ(constructed.bit_offset(), 9u);
    EXPECT_EQ(constructed.field_path(), "World.items[2]");
    EXPECT_EQ(constructed.detail(), "input ends before the value");
    EXPECT_EQ(constructed.message(), "truncated at World.items[2], bit 9: input ends before the value");
}

TEST(Status, CutsAnOverlongDetailAtItsEndAndMarksTheCut)
{
    const std::string detail(300, 'd');
    const bitrep::status st(bitrep::error::hook_failed, 0, "", detail);
    ASSERT_EQ(st.detail().size(), bitrep::status::max_detail_length);
    EXPECT_EQ(st.detail().substr(0, 4), "dddd");
    EXPECT_EQ(st.detail().substr(st.detail().size() - 3), "...");
}

TEST(Status, CutsAnOverlongPathAtItsStartAndMarksTheCut)
{
    std::string path = "World";
    while (path.size() < 200)
        path += ".child";
    path += ".leaf";
    const bitrep::status st(bitrep::error::out_of_range, 0, path, "x");
    ASSERT_EQ(st.field_path().size(), bitrep::status::max_path_length);
    EXPECT_EQ(st.field_path().substr(0, 3), "...");
    EXPECT_EQ(st.field_path().substr(st.field_path().size() - 5), ".leaf");
}

TEST(Status, DefaultIsSuccessWithNothingToSay)
{
    const bitrep::status st;
    EXPECT_TRUE(st);
    EXPECT_EQ(st.code(), bitrep::error::none);
    EXPECT_TRUE(st.field_path().empty());
    EXPECT_TRUE(st.detail().empty());
    EXPECT_EQ(st.message(), "ok");
}

namespace {
/// A hook that names its members with text it builds on the spot.
struct Named {
    bitrep::ranged<int, 0, 10> value;
    template <class Stream>
    bool serialize(Stream& stream)
    {
        const std::string name = "slot_" + std::to_string(value.value()) + "_with_a_name_longer_than_a_small_string";
        return bitrep::serialize_field(stream, name, value);
    }
};
struct HoldsNamed {
    std::array<Named, 2> named;
};
} // namespace

TEST(Status, KeepsFieldNamesAHookBuiltOnTheSpot)
{
    HoldsNamed holder{};
    holder.named[1].value = 11; // outside [0, 10]
    std::vector<std::uint8_t> out;
    const bitrep::status st = bitrep::to_bytes(holder, out);
    const std::string other(80, 'X'); // reuse the freed name's heap block
    ASSERT_EQ(st.code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(st.field_path(), "HoldsNamed.#0[1].slot_11_with_a_name_longer_than_a_small_string") << st.field_path();
    EXPECT_EQ(other.size(), 80u);
}
