// Element counts of the bounded containers (vectors, maps, sets): how many
// bits a count takes, and the check that a count just read fits the input.
// Apart from the codecs, which include each other through serialize.hpp.
#pragma once

#include <cstdint>

#include <bitrep/detail/portability.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/bits.hpp>

namespace bitrep::detail {

/// Refuses a count just read that the rest of the input cannot hold (each
/// element takes at least `each_min_bits`), before anything is allocated
/// for it, so that a forged count within a large bound cannot ask for
/// gigabytes (zero-bit elements are bounded by the container's bound).
template <class Stream>
BITREP_ALWAYS_INLINE bool count_fits_input(Stream& stream, std::uint64_t count, std::uint64_t each_min_bits)
{
    if (each_min_bits != 0 && count > stream.bits_remaining() / each_min_bits) [[unlikely]]
        return stream.fail(error::truncated, stream.position(), "vector elements past the end of the input");
    return true;
}

/// The fewest bits of a container of up to `max` elements: its count.
constexpr int count_bits(std::uint64_t max) noexcept { return bits_required_for_span(max); }

} // namespace bitrep::detail
