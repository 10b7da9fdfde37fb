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
