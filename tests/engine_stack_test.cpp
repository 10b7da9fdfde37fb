// The engine's handlers hand each instruction to the next one's handler by a
// tail call (or, without tail calls, return to a loop), so that a value's
// encode, measure and decode use the same stack however many instructions
// they run. Held to that here: 200,000 elements of three instructions each
// on a thread whose stack holds a few hundred frames at most. A handler
// whose call to the next is a real call overflows it and the test crashes.
#include <bitrep/bitrep.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#if __has_include(<pthread.h>)
#include <pthread.h>
#define BITREP_TEST_SMALL_STACKS 1
#endif

namespace engine_stack_test {

struct Tag {
    bitrep::bounded_string<4> label; // not a fixed-width leaf: each element runs its handlers
    std::int16_t value = 0;
    friend bool operator==(const Tag&, const Tag&) = default;
};

constexpr std::size_t element_count = 200'000;

struct Tags {
    bitrep::bounded_vector<Tag, element_count> tags;
    friend bool operator==(const Tags&, const Tags&) = default;
};

struct outcome {
    bool encoded = false;
    bool measured = false;
    bool decoded = false;
    bool same = false;
};

void* round_trip(void* result)
{
    auto& out = *static_cast<outcome*>(result);
    Tags tags;
    for (std::size_t i = 0; i < element_count; ++i)
        tags.tags.push_back(Tag{std::string(i % 5, 'a'), static_cast<std::int16_t>(i)});
    std::vector<std::uint8_t> bytes;
    out.encoded = bitrep::to_bytes(tags, bytes).ok();
    out.measured = (bitrep::bit_size(tags) + 7) / 8 == bytes.size();
    Tags back;
    out.decoded = bitrep::from_bytes(bytes, back).ok();
    out.same = back == tags;
    return nullptr;
}

#if defined(BITREP_TEST_SMALL_STACKS)
TEST(EngineStack, AMillionHandlersRunInAFixedStack)
{
    pthread_attr_t attributes;
    ASSERT_EQ(pthread_attr_init(&attributes), 0);
    // Sanitizers' frames are several times larger: still far below what
    // 600,000 nested calls would take.
    ASSERT_EQ(pthread_attr_setstacksize(&attributes, std::size_t{1} << 20), 0);
    outcome result;
    pthread_t thread;
    ASSERT_EQ(pthread_create(&thread, &attributes, &round_trip, &result), 0);
    ASSERT_EQ(pthread_join(thread, nullptr), 0);
    pthread_attr_destroy(&attributes);
    EXPECT_TRUE(result.encoded);
    EXPECT_TRUE(result.measured);
    EXPECT_TRUE(result.decoded);
    EXPECT_TRUE(result.same);
}
#endif

} // namespace engine_stack_test
