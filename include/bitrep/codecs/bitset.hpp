// std::bitset<N>: N bits, bit 0 of the set first, exactly as a
// std::array<bool, N> (so a save file's schema lists it as one, and it loads
// into either).
#pragma once

#include <bitrep/codec.hpp>
#include <bitrep/detail/portability.hpp>

#include <algorithm>
#include <bitset>
#include <cstddef>
#include <cstdint>

namespace bitrep {

namespace detail {
/// Bits at .. at + count - 1 of a bitset: bit j of the word is bit at + j.
template <std::size_t N>
constexpr std::uint64_t bitset_word(const std::bitset<N>& set, std::size_t at, int count) noexcept
{
    std::uint64_t word = 0;
    for (int j = 0; j < count; ++j)
        word |= std::uint64_t{set[at + static_cast<std::size_t>(j)]} << j;
    return word;
}

template <std::size_t N>
constexpr void set_bitset_word(std::bitset<N>& set, std::size_t at, int count, std::uint64_t word) noexcept
{
    for (int j = 0; j < count; ++j)
        set[at + static_cast<std::size_t>(j)] = ((word >> j) & 1u) != 0;
}

/// `total` bits, bit 0 first, in words of up to 32 bits: word(at, count)
/// gives bits at .. at + count - 1 when writing, set_word(at, count, word)
/// stores them when reading.
template <class Stream, class Word, class SetWord>
BITREP_ALWAYS_INLINE bool serialize_bit_words(Stream& stream, std::size_t total, Word&& word_at, SetWord&& set_word)
{
    for (std::size_t k = 0; k < total; k += 32) {
        const int count = static_cast<int>(std::min<std::size_t>(32, total - k));
        std::uint64_t word = 0;
        if constexpr (!Stream::is_reading)
            word = word_at(k, count);
        if (!stream.serialize_bits(word, count))
            return false;
        if constexpr (Stream::is_reading)
            set_word(k, count, word);
    }
    return true;
}
} // namespace detail

template <std::size_t N>
struct codec<std::bitset<N>> {
    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, std::bitset<N>& value)
    {
        return detail::serialize_bit_words(
            stream, N, [&value](std::size_t at, int count) { return detail::bitset_word(value, at, count); },
            [&value](std::size_t at, int count, std::uint64_t word) { detail::set_bitset_word(value, at, count, word); });
    }
    static constexpr std::size_t max_bits() { return N; }
    static constexpr std::size_t min_bits() { return N; }
};

} // namespace bitrep
