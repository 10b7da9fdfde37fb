// Allocation guarantees: writing into a caller buffer never allocates, not
// even when it fails, and reporting a failure never allocates (a status
// holds its path inline), so read paths cannot throw std::bad_alloc for it.
#include <bitrep/bitrep.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <span>

namespace {
std::size_t allocations = 0;
}

// Counting replacements of the global allocation functions, for this test
// binary only.
void* operator new(std::size_t size)
{
    ++allocations;
    if (void* p = std::malloc(size == 0 ? 1 : size))
        return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

struct Vec { bitrep::quantized<-10.f, 10.f, 0.01f> x, y; };
struct Unit {
    bitrep::ranged<int, 0, 100> health;
    Vec position;
    bitrep::quat<9> orientation;
    std::array<bitrep::ranged<int, 1, 64>, 4> counts;
};

std::size_t allocations_during(auto&& action)
{
    const std::size_t before = allocations;
    action();
    return allocations - before;
}

} // namespace

TEST(Allocation, EncodingIntoACallerBufferAllocatesNothing)
{
    const Unit unit{50, {1.0f, -2.0f}, {}, {{1, 2, 3, 4}}};
    std::array<std::uint8_t, 64> buffer{};
    std::size_t written = 0;
    bitrep::status st;
    EXPECT_EQ(allocations_during([&] { st = bitrep::to_bytes(unit, std::span<std::uint8_t>(buffer), written); }), 0u);
    EXPECT_TRUE(st);
    EXPECT_GT(written, 0u);
}

TEST(Allocation, AFailedEncodeIntoACallerBufferAllocatesNothing)
{
    Unit unit{50, {1.0f, -2.0f}, {}, {{1, 2, 3, 4}}};
    std::array<std::uint8_t, 2> small{};
    std::size_t written = 0;
    bitrep::status st;
    EXPECT_EQ(allocations_during([&] { st = bitrep::to_bytes(unit, std::span<std::uint8_t>(small), written); }), 0u);
    EXPECT_EQ(st.code(), bitrep::error::buffer_too_small);

    unit.counts[2] = 65; // outside [1, 64]
    std::array<std::uint8_t, 64> buffer{};
    EXPECT_EQ(allocations_during([&] { st = bitrep::to_bytes(unit, std::span<std::uint8_t>(buffer), written); }), 0u);
    EXPECT_EQ(st.code(), bitrep::error::value_out_of_range);
    EXPECT_EQ(st.field_path(), "Unit.#3[2]");
}

TEST(Allocation, AFailedDecodeOfAContainerFreeTypeAllocatesNothing)
{
    const std::array<std::uint8_t, 3> truncated{0x10, 0x20, 0x30};
    Unit target{};
    bitrep::status st;
    EXPECT_EQ(allocations_during([&] { st = bitrep::from_bytes(truncated, target); }), 0u);
    EXPECT_EQ(st.code(), bitrep::error::truncated);
}

TEST(Allocation, TheCounterSeesAllocations)
{
    // The counter itself must work, or the tests above would pass vacuously.
    // The pointer escapes through an opaque asm, so the optimiser cannot elide
    // the pair (it may, and at -O3 does, elide a plain `delete new int`).
    EXPECT_EQ(allocations_during([] {
                  int* p = new int(3);
                  asm volatile("" : : "r"(p) : "memory");
                  delete p;
              }),
              1u);
}
