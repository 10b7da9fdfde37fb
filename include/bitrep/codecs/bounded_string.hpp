// bounded_string<N>: the standard's string with buffer_size N + 1.
#pragma once

#include <cstddef>
#include <cstdint>

#include <bitrep/annotations/bounded_string.hpp>
#include <bitrep/codec.hpp>
#include <bitrep/detail/portability.hpp>
#include <bitrep/kinds/counts.hpp>
#include <bitrep/wire/bits.hpp>

namespace bitrep {

template <std::size_t MaxLength>
struct codec<bounded_string<MaxLength>> {
    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, bounded_string<MaxLength>& value)
    {
        return stream.serialize_string(value.str(), MaxLength + 1);
    }
    static constexpr std::size_t max_bits()
    {
        return static_cast<std::size_t>(detail::string_length_bits(MaxLength)) + 7 + MaxLength * 8;
    }
    static constexpr std::size_t min_bits() { return static_cast<std::size_t>(detail::string_length_bits(MaxLength)); }
};

} // namespace bitrep
