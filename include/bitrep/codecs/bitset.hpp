// std::bitset<N>: N bits, bit 0 of the set first, exactly as a
// std::array<bool, N> (so a save file's schema lists it as one, and it loads
// into either).
#pragma once

#include <bitrep/codec.hpp>
#include <bitrep/detail/inline.hpp>
#include <bitrep/serialize.hpp>

#include <algorithm>
#include <bitset>
#include <cstddef>
#include <cstdint>

namespace bitrep {

template <std::size_t N>
struct codec<std::bitset<N>> {
    /// In words of up to 32 bits: bit j of a word is bit k + j of the set.
    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, std::bitset<N>& value)
    {
        for (std::size_t k = 0; k < N; k += 32) {
            const int count = static_cast<int>(std::min<std::size_t>(32, N - k));
            std::uint64_t word = 0;
            if constexpr (!Stream::is_reading) {
                for (int j = 0; j < count; ++j)
                    word |= std::uint64_t{value[k + static_cast<std::size_t>(j)]} << j;
            }
            if (!stream.serialize_bits(word, count))
                return false;
            if constexpr (Stream::is_reading) {
                for (int j = 0; j < count; ++j)
                    value[k + static_cast<std::size_t>(j)] = ((word >> j) & 1u) != 0;
            }
        }
        return true;
    }
    static constexpr std::size_t max_bits() { return N; }
    static constexpr std::size_t min_bits() { return N; }
    template <class Schema>
    static void describe(Schema& schema)
    {
        schema.begin_array(N);
        schema.boolean();
        schema.end();
    }
};

} // namespace bitrep
