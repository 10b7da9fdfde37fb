// BITREP_ALWAYS_INLINE marks the thin layers between a field and the bit
// writer (the serialize entry point, the field visitor, the stream
// primitives, small codecs). Left to itself clang 14 keeps codec<quat> and
// serialize_quantized out of line, which spills the stream's scratch word to
// memory around every call: the 901-cube decode then ran 1.46x the
// instructions of hand-written code. Forced inline, the reflected path
// compiles to the same straight-line code a person would write.
#pragma once

#if defined(__GNUC__)
#define BITREP_ALWAYS_INLINE [[gnu::always_inline]] inline
#define BITREP_LAMBDA_ALWAYS_INLINE __attribute__((always_inline)) // after a lambda's parameters
#else
#define BITREP_ALWAYS_INLINE inline
#define BITREP_LAMBDA_ALWAYS_INLINE
#endif
