// ranged<Int, Min, Max>: the standard's int64(value, Min, Max).
#pragma once

#include <bitrep/annotations/ranged.hpp>
#include <bitrep/codec.hpp>
#include <bitrep/detail/portability.hpp>
#include <bitrep/kinds/ranged.hpp>

#include <cstdint>

namespace bitrep {

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
