// The flags kind (a flag enum): a bit per flag, in declaration order; a
// value with a bit that is no flag is refused on write.
#pragma once

#include <cstddef>
#include <cstdint>

#include <bitrep/detail/portability.hpp>
#include <bitrep/status.hpp>

namespace bitrep {

/// A flag enum's flags: the union of their bits, how many, and each one's
/// bit in declaration order.
struct flags_params {
    std::uint64_t all;
    std::uint64_t count;
    const std::uint64_t* masks;
};

namespace detail {
/// The flags set in `word` (bit i: flag i, whose bit is masks[i]).
template <class Mask>
constexpr std::uint64_t flags_of_word(std::uint64_t word, const Mask* masks, std::size_t count) noexcept
{
    std::uint64_t bits = 0;
    for (std::size_t i = 0; i < count; ++i)
        if (((word >> i) & 1u) != 0)
            bits |= masks[i];
    return bits;
}

/// A flag enum's bits (`bits`, the value's pattern) as a word of `count`
/// bits, bit i set for flag i; a value with a bit outside `all` (the
/// flags' union) is refused on write.
template <class Stream, class Mask>
BITREP_ALWAYS_INLINE bool serialize_flag_bits(Stream& stream, std::uint64_t& bits, const Mask* masks,
                                              std::size_t count, std::uint64_t all)
{
    std::uint64_t word = 0;
    if constexpr (!Stream::is_reading) {
        if ((bits & ~all) != 0) [[unlikely]]
            return stream.fail(error::value_out_of_range, stream.position(), "flag enum value has bits that are not flags");
        for (std::size_t i = 0; i < count; ++i)
            word |= (bits & masks[i]) != 0 ? std::uint64_t{1} << i : 0;
    }
    if (!stream.serialize_bits(word, static_cast<int>(count)))
        return false;
    if constexpr (Stream::is_reading)
        bits = flags_of_word(word, masks, count);
    return true;
}
} // namespace detail

} // namespace bitrep
