// Counting replacements of the global allocation functions, for the tests
// that prove something allocates nothing, or no more than a bound. This
// header DEFINES the replacements: include it from one source file of a test
// executable only (each *_test.cpp is its own program). Single-threaded: the
// tests that include it allocate on one thread.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace allocation_counter {

/// Calls of operator new so far in this program.
inline std::size_t allocations = 0;
/// Bytes asked of operator new so far, and the bytes held now (asked and
/// not yet given back) and at most since the last reset of `peak_bytes`.
inline std::size_t bytes_allocated = 0;
inline std::size_t live_bytes = 0;
inline std::size_t peak_bytes = 0;

/// How many times `action()` called operator new.
template <class Action>
std::size_t allocations_during(Action&& action)
{
    const std::size_t before = allocations;
    action();
    return allocations - before;
}

/// What an action asked of the heap.
struct usage {
    std::size_t calls = 0; ///< operator new calls
    std::size_t bytes = 0; ///< bytes asked for, in all
    std::size_t peak = 0;  ///< the most bytes held at once above what was held before
};

template <class Action>
usage usage_during(Action&& action)
{
    const std::size_t calls = allocations, bytes = bytes_allocated, live = live_bytes;
    peak_bytes = live_bytes;
    action();
    return {allocations - calls, bytes_allocated - bytes, peak_bytes - live};
}

namespace detail {
// Each block carries its size in the 16 bytes before it (the alignment
// operator new promises), so that operator delete can count it back.
inline constexpr std::size_t header = 16;

inline void* counted(void* block, std::size_t offset, std::size_t size) noexcept
{
    if (block == nullptr)
        return nullptr;
    auto* user = static_cast<unsigned char*>(block) + offset;
    *reinterpret_cast<std::size_t*>(user - header) = size;
    ++allocations;
    bytes_allocated += size;
    live_bytes += size;
    peak_bytes = std::max(peak_bytes, live_bytes);
    return user;
}

inline unsigned char* uncounted(void* user) noexcept
{
    auto* bytes = static_cast<unsigned char*>(user);
    live_bytes -= *reinterpret_cast<std::size_t*>(bytes - header);
    return bytes;
}

inline std::size_t offset_for(std::align_val_t alignment) noexcept
{
    return std::max(header, static_cast<std::size_t>(alignment));
}
} // namespace detail

} // namespace allocation_counter

// Not inlined: GCC 12 would otherwise see malloc paired with the operator
// delete of the standard library's allocator and warn
// (-Wmismatched-new-delete).
[[gnu::noinline]] void* operator new(std::size_t size)
{
    using namespace allocation_counter::detail;
    if (void* p = counted(std::malloc(header + size), header, size))
        return p;
    throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p) noexcept
{
    if (p != nullptr)
        std::free(allocation_counter::detail::uncounted(p) - allocation_counter::detail::header);
}
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { operator delete(p); }

[[gnu::noinline]] void* operator new(std::size_t size, std::align_val_t alignment)
{
    using namespace allocation_counter::detail;
    const std::size_t offset = offset_for(alignment);
    const std::size_t whole = (offset + size + offset - 1) / offset * offset; // aligned_alloc wants a multiple
    if (void* p = counted(std::aligned_alloc(offset, whole), offset, size))
        return p;
    throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p, std::align_val_t alignment) noexcept
{
    using namespace allocation_counter::detail;
    if (p != nullptr)
        std::free(uncounted(p) - offset_for(alignment));
}
[[gnu::noinline]] void operator delete(void* p, std::size_t, std::align_val_t alignment) noexcept
{
    operator delete(p, alignment);
}
