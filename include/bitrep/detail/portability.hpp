// Every compiler-specific construct bitrep's library code uses, each with
// its fallback: tools/check_house.py refuses them anywhere else in include/
// and src/. What each one is for is said where it is defined.
//
// BITREP_ALWAYS_INLINE marks every layer between a field and the bit writer
// (the serialize entry point, the field walk, the codecs, the containers'
// element loops, the stream primitives). Any of them left out of line takes
// the stream by reference, and the stream then lives in memory for the whole
// message: clang 14 kept codec<quat>, serialize_string and the vector loops
// out of line, and GCC 12 the field walk's index-sequence lambda. Forced
// inline, it compiles to the same straight-line code a person would write
// (docs/benchmarks.md).
//
// Only when optimizing: at -O0 nothing else is inlined either, so forcing
// these layers in would only give clang's always-inliner work in every
// debug build (bench/compile_time).
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#if defined(__GNUC__) && defined(__OPTIMIZE__) && !defined(BITREP_NO_FORCED_INLINE)
#define BITREP_ALWAYS_INLINE [[gnu::always_inline]] inline
#define BITREP_LAMBDA_ALWAYS_INLINE __attribute__((always_inline)) // after a lambda's parameters
#else
#define BITREP_ALWAYS_INLINE inline
#define BITREP_LAMBDA_ALWAYS_INLINE
#endif

// A hint that `address` will be read soon (no effect where unsupported).
#if defined(__GNUC__)
#define BITREP_PREFETCH(address) __builtin_prefetch(address)
#else
#define BITREP_PREFETCH(address) static_cast<void>(address)
#endif

// Tail calls: the engine's handlers (src/engine/interpreter.cpp) each end
// by calling the next instruction's handler with the same arguments, which
// must be a jump, not a call, or the stack grows with every instruction
// run. clang's musttail makes it one at every optimisation level. GCC has
// no such attribute but makes the same call a jump when it optimises
// sibling calls (-O2 and above; the library's build turns it on for the
// interpreter at any -O level, and a test runs a million-element vector on
// a small stack to hold it to that). Without either, BITREP_TAIL_CALLS is
// 0 and the handlers return to a loop instead.
#if defined(__clang__) && defined(__has_cpp_attribute)
#if __has_cpp_attribute(clang::musttail)
#define BITREP_CLANG_MUSTTAIL [[clang::musttail]]
#endif
#endif
#if !defined(BITREP_TAIL_CALLS)
#if defined(BITREP_CLANG_MUSTTAIL) || (defined(__GNUC__) && defined(__OPTIMIZE__))
#define BITREP_TAIL_CALLS 1
#else
#define BITREP_TAIL_CALLS 0
#endif
#endif
#if defined(BITREP_CLANG_MUSTTAIL)
#define BITREP_MUSTTAIL BITREP_CLANG_MUSTTAIL
#else
#define BITREP_MUSTTAIL
#endif

// Whether this translation unit is compiled with exceptions
// (detail/exceptions.hpp says what bitrep does without them). GCC before 5
// named it __EXCEPTIONS only.
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#define BITREP_HAS_EXCEPTIONS 1
#else
#define BITREP_HAS_EXCEPTIONS 0
#endif

// Calls kept out of line (a failure's path, a rare rule), and those also
// marked unlikely to run, so that they stay out of the hot code's way.
// Hints only: without them the code is the same, laid out differently.
#if defined(__GNUC__)
#define BITREP_NOINLINE [[gnu::noinline]]
#define BITREP_COLD [[gnu::cold]]
#else
#define BITREP_NOINLINE
#define BITREP_COLD
#endif

// Inline at every optimisation level, where BITREP_ALWAYS_INLINE only is
// when optimizing: the thin entry points that hand a type to the engine.
#if defined(__GNUC__)
#define BITREP_FORCE_INLINE [[gnu::always_inline]] inline
#else
#define BITREP_FORCE_INLINE inline
#endif

// GCC 12 at -O3 warns of a store or load past a small array on a path a
// capacity check has already ruled out (-Warray-bounds and the stringop
// warnings); users build with -Werror too, so the one guarded store and the
// one guarded load (wire/bits.hpp) sit between these two.
#if defined(__GNUC__) && !defined(__clang__)
#define BITREP_GUARDED_ACCESS_BEGIN                                                                                  \
    _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Warray-bounds\"")                            \
        _Pragma("GCC diagnostic ignored \"-Wstringop-overread\"")                                                  \
            _Pragma("GCC diagnostic ignored \"-Wstringop-overflow\"")
#define BITREP_GUARDED_ACCESS_END _Pragma("GCC diagnostic pop")
#else
#define BITREP_GUARDED_ACCESS_BEGIN
#define BITREP_GUARDED_ACCESS_END
#endif

namespace bitrep::detail {

/// value's four bytes in the opposite order (a big-endian machine's view of
/// the wire's little-endian words).
constexpr std::uint32_t byte_swap32(std::uint32_t value) noexcept
{
#if defined(__GNUC__)
    return __builtin_bswap32(value);
#else
    return (value >> 24) | ((value >> 8) & 0xff00u) | ((value << 8) & 0xff0000u) | (value << 24);
#endif
}

/// The address of object, even where its class overloads unary `&`
/// (std::addressof without <memory>, whose std::unique_ptr brings <ostream>
/// into every file that includes bitrep in C++20 with libstdc++ 12).
template <class T>
constexpr T* address_of(T& object) noexcept
{
#if defined(__GNUC__)
    return __builtin_addressof(object);
#else
    return reinterpret_cast<T*>(&const_cast<char&>(reinterpret_cast<const volatile char&>(object)));
#endif
}

/// *result = a * b; true if the exact product does not fit (then *result is
/// the product wrapped, as the compilers' builtin leaves it).
template <class Int>
    requires std::is_integral_v<Int>
constexpr bool mul_overflow(Int a, Int b, Int* result) noexcept
{
#if defined(__GNUC__)
    return __builtin_mul_overflow(a, b, result);
#else
    using unsigned_int = std::make_unsigned_t<Int>;
    *result = static_cast<Int>(static_cast<unsigned_int>(a) * static_cast<unsigned_int>(b));
    if (a == 0 || b == 0)
        return false;
    if constexpr (std::is_unsigned_v<Int>) {
        return a > std::numeric_limits<Int>::max() / b;
    } else {
        constexpr Int top = std::numeric_limits<Int>::max();
        constexpr Int bottom = std::numeric_limits<Int>::min();
        if (a > 0)
            return b > 0 ? a > top / b : b < bottom / a;
        return b > 0 ? a < bottom / b : a < top / b;
    }
#endif
}

/// Forces x to be materialised as a float32 (or float64) value. bitrep's
/// headers are compiled with the user's flags; under -ffp-contract=fast
/// (GCC's default in GNU mode) with FMA hardware, `p = n * m; s = p + 0.5f`
/// would be fused into one rounding and change the wire. An empty asm that
/// claims to modify x is a fusion barrier that costs no instruction; the
/// fallback, a volatile round trip, costs a store and a load.
template <class Real>
    requires std::is_floating_point_v<Real>
BITREP_ALWAYS_INLINE Real keep_rounded(Real x) noexcept
{
#if defined(__GNUC__) && defined(__x86_64__)
    asm("" : "+x"(x));
#elif defined(__GNUC__) && defined(__aarch64__)
    asm("" : "+w"(x));
#else
    volatile Real stored = x;
    x = stored;
#endif
    return x;
}

} // namespace bitrep::detail
