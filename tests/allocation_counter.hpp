// Counting replacements of the global allocation functions, for the tests
// that prove something allocates nothing. This header DEFINES the
// replacements: include it from one source file of a test executable only
// (each *_test.cpp is its own program).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

namespace allocation_counter {

/// Calls of operator new so far in this program.
inline std::size_t allocations = 0;

/// How many times `action()` called operator new.
template <class Action>
std::size_t allocations_during(Action&& action)
{
    const std::size_t before = allocations;
    action();
    return allocations - before;
}

} // namespace allocation_counter

// Not inlined: GCC 12 would otherwise see malloc paired with the operator
// delete of the standard library's allocator and warn
// (-Wmismatched-new-delete).
[[gnu::noinline]] void* operator new(std::size_t size)
{
    ++allocation_counter::allocations;
    if (void* p = std::malloc(size == 0 ? 1 : size))
        return p;
    throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }
