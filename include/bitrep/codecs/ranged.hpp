// ranged<Int, Min, Max>: the standard's int64(value, Min, Max).
#pragma once

#include <bitrep/annotations/ranged.hpp>
#include <bitrep/codec.hpp>
#include <bitrep/detail/inline.hpp>

#include <cstdint>

namespace bitrep {

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
    std::uint64_t offset = 0;
    if constexpr (!Stream::is_reading)
        offset = static_cast<std::uint64_t>(value) - min;
    if (!stream.serialize_ranged_offset(offset, max - min, bits))
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

template <std::integral Int, Int Min, Int Max>
struct codec<ranged<Int, Min, Max>> {
    using type = ranged<Int, Min, Max>;

    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, type& value)
    {
        return detail::serialize_ranged_value(stream, value.get(), static_cast<std::uint64_t>(Min),
                                              static_cast<std::uint64_t>(Max));
    }
    static constexpr std::size_t max_bits() { return type::bits; }
    static constexpr std::size_t min_bits() { return type::bits; }
};

} // namespace bitrep
