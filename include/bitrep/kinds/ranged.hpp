// The ranged kind (ranged<Int, Min, Max>): an integer in [min, min + span],
// sent as its offset from min in bits_required_for_span(span) bits, the
// standard's int64(value, min, max).
#pragma once

#include <cstdint>
#include <type_traits>

#include <bitrep/detail/portability.hpp>
#include <bitrep/wire/bits.hpp>

namespace bitrep {

/// A ranged integer's bounds, as two's complement patterns: min, and max - min.
struct ranged_params {
    std::uint64_t min;
    std::uint64_t span;
};

namespace detail {
/// The one description of int64(value, min, max) for any bounds (two's
/// complement patterns): the codec passes its constants and its own Int,
/// a save file's schema its node's bounds and a 64-bit pattern. Unsigned
/// modular arithmetic: a value below min wraps far above the span, so the
/// one offset check refuses both directions. (The value is converted from
/// min + offset in one expression: through a 64-bit variable first, GCC 12
/// keeps the sum 64 bits wide and adds a move per field.)
template <class Stream, class Int>
BITREP_ALWAYS_INLINE bool serialize_ranged_value(Stream& stream, Int& value, std::uint64_t min, std::uint64_t max,
                                                 int bits)
{
    // An Int of at most 32 bits: its offset and span fit 32 bits (a value
    // below min wraps, modulo 2^32, above any span its type allows), so the
    // stream writes one group of at most 32 bits.
    using Offset = std::conditional_t<(sizeof(Int) <= 4), std::uint32_t, std::uint64_t>;
    Offset offset = 0;
    if constexpr (!Stream::is_reading)
        offset = static_cast<Offset>(static_cast<std::uint64_t>(value) - min);
    if (!stream.serialize_ranged_offset(offset, static_cast<Offset>(max - min), bits))
        return false;
    if constexpr (Stream::is_reading)
        value = static_cast<Int>(min + offset);
    return true;
}
template <class Stream, class Int>
BITREP_ALWAYS_INLINE bool serialize_ranged_value(Stream& stream, Int& value, std::uint64_t min, std::uint64_t max)
{
    return serialize_ranged_value(stream, value, min, max, bits_required_for_span(max - min));
}
} // namespace detail

} // namespace bitrep
