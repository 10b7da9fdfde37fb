// entity_array<T, N>: encoded as std::array<std::optional<T>, N>.
#pragma once

#include <bitrep/annotations/entity_array.hpp>
#include <bitrep/codec.hpp>
#include <bitrep/codecs/containers.hpp>
#include <bitrep/detail/portability.hpp>

namespace bitrep {

template <class T, std::size_t N>
struct codec<entity_array<T, N>> {
    using slots = codec<typename entity_array<T, N>::slots_type>;

    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, entity_array<T, N>& value)
    {
        using access = detail::entity_array_access;
        if constexpr (Stream::is_reading)
            return access::rewrite(value, [&](auto& all) { return slots::serialize(stream, all); });
        else
            return slots::serialize(stream, access::slots(value));
    }
    static constexpr std::size_t max_bits() { return slots::max_bits(); }
    static constexpr std::size_t min_bits() { return slots::min_bits(); }
};

} // namespace bitrep
