// Counts heap allocations, so a benchmark can report how many its timed loop
// made per iteration (the target for encoding into a caller buffer is 0).
//
// Replacing the global operator new/delete is a whole-program decision and
// the replacements may not be inline, so include this header from exactly
// one translation unit per binary (each bench/*_bench.cpp is its own binary).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#include <benchmark/benchmark.h>

namespace bitrep_bench {

/// Allocations made by the calling thread. Per thread because the count is
/// bumped on every new: a plain thread_local increment costs nothing next to
/// malloc, where a shared atomic would add a locked instruction to the decode
/// loops being timed. Benchmarks without ->Threads() run on one thread.
inline constinit thread_local std::uint64_t thread_allocations = 0;

inline void* counted_allocate(std::size_t size)
{
    ++thread_allocations;
    if (void* memory = std::malloc(size == 0 ? 1 : size))
        return memory;
    throw std::bad_alloc();
}

inline void* counted_allocate(std::size_t size, std::align_val_t alignment)
{
    ++thread_allocations;
    const auto align = static_cast<std::size_t>(alignment);
    // aligned_alloc wants a size that is a multiple of the alignment.
    const std::size_t rounded = ((size == 0 ? 1 : size) + align - 1) / align * align;
    if (void* memory = std::aligned_alloc(align, rounded))
        return memory;
    throw std::bad_alloc();
}

/// Reports the allocations made between its construction and report() as
/// `allocs_per_iter`, averaged over the benchmark's iterations. Construct it
/// just before the `for (auto _ : state)` loop, report just after.
class allocation_meter {
public:
    allocation_meter() noexcept : start_(thread_allocations) {}

    void report(benchmark::State& state) const
    {
        // Read the count before touching state.counters, which allocates.
        const auto made = static_cast<double>(thread_allocations - start_);
        state.counters["allocs_per_iter"] = benchmark::Counter(made, benchmark::Counter::kAvgIterations);
    }

private:
    std::uint64_t start_;
};

} // namespace bitrep_bench

void* operator new(std::size_t size) { return bitrep_bench::counted_allocate(size); }
void* operator new[](std::size_t size) { return bitrep_bench::counted_allocate(size); }
void* operator new(std::size_t size, std::align_val_t alignment) { return bitrep_bench::counted_allocate(size, alignment); }
void* operator new[](std::size_t size, std::align_val_t alignment) { return bitrep_bench::counted_allocate(size, alignment); }

void* operator new(std::size_t size, const std::nothrow_t&) noexcept
{
    try {
        return bitrep_bench::counted_allocate(size);
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept
{
    try {
        return bitrep_bench::counted_allocate(size);
    } catch (...) {
        return nullptr;
    }
}
void* operator new(std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept
{
    try {
        return bitrep_bench::counted_allocate(size, alignment);
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept
{
    try {
        return bitrep_bench::counted_allocate(size, alignment);
    } catch (...) {
        return nullptr;
    }
}

void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete[](void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::size_t) noexcept { std::free(memory); }
void operator delete(void* memory, const std::nothrow_t&) noexcept { std::free(memory); }
void operator delete[](void* memory, const std::nothrow_t&) noexcept { std::free(memory); }
void operator delete(void* memory, std::align_val_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::align_val_t) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t, std::align_val_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::size_t, std::align_val_t) noexcept { std::free(memory); }
void operator delete(void* memory, std::align_val_t, const std::nothrow_t&) noexcept { std::free(memory); }
void operator delete[](void* memory, std::align_val_t, const std::nothrow_t&) noexcept { std::free(memory); }
