// ranged<Int, Min, Max>: the standard's int64(value, Min, Max).
#pragma once

#include <bitrep/codec.hpp>
#include <bitrep/ranged.hpp>

#include <cstdint>

namespace bitrep {

template <std::integral Int, Int Min, Int Max>
struct codec<ranged<Int, Min, Max>> {
    using type = ranged<Int, Min, Max>;

    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, type& value)
    {
        // Unsigned modular arithmetic: a value below Min wraps far above the
        // span, so the one offset check refuses both directions.
        std::uint64_t offset = 0;
        if constexpr (!Stream::is_reading)
            offset = static_cast<std::uint64_t>(value.value()) - static_cast<std::uint64_t>(Min);
        if (!stream.serialize_ranged_offset(offset, type::span))
            return false;
        if constexpr (Stream::is_reading)
            value = static_cast<Int>(static_cast<std::uint64_t>(Min) + offset);
        return true;
    }
    static constexpr std::size_t max_bits() { return type::bits; }
    static constexpr std::size_t min_bits() { return type::bits; }
    template <class Schema>
    static void describe(Schema& schema)
    {
        schema.ranged(std::is_signed_v<Int>, static_cast<std::uint64_t>(Min), static_cast<std::uint64_t>(Max));
    }
};

} // namespace bitrep
