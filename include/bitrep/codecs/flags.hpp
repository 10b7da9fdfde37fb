// Flag enums (an enum opted in with `constexpr bool bitrep_flags(E) { return
// true; }`): a bit per flag, in declaration order, so any set of flags
// costs as many bits as the enum has flags. A value with a bit that is no
// flag is refused on write.
#pragma once

#include <bitrep/codec.hpp>
#include <bitrep/detail/inline.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/renames.hpp>
#include <bitrep/status.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace bitrep {

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

template <class T>
    requires reflect::flag_enum<T>
struct codec<T> {
    using flags = reflect::flags<T>;
    using bits_type = typename flags::bits_type;

    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, T& value)
    {
        std::uint64_t bits = 0;
        if constexpr (!Stream::is_reading)
            bits = static_cast<bits_type>(value);
        if (!detail::serialize_flag_bits(stream, bits, flags::table.masks.data(), flags::count, flags::table.all))
            return false;
        if constexpr (Stream::is_reading)
            value = static_cast<T>(static_cast<bits_type>(bits));
        return true;
    }

    /// The value whose flags are the set bits of `word` (bit i: flag i).
    static T from_word(std::uint64_t word) noexcept
    {
        return static_cast<T>(static_cast<bits_type>(detail::flags_of_word(word, flags::table.masks.data(), flags::count)));
    }

    static constexpr std::size_t max_bits() { return flags::count; }
    static constexpr std::size_t min_bits() { return flags::count; }
};

} // namespace bitrep
