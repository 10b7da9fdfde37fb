// Flag enums (an enum opted in with `constexpr bool bitrep_flags(E) { return
// true; }`): a bit per flag, in declaration order, so any set of flags
// costs as many bits as the enum has flags. A value with a bit that is no
// flag is refused on write.
#pragma once

#include <bitrep/codec.hpp>
#include <bitrep/detail/portability.hpp>
#include <bitrep/kinds/flags.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/renames.hpp>
#include <bitrep/status.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace bitrep {

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
