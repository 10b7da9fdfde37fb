// delta_small<V, MaxStep>: V's encoding (the delta lives in delta.hpp).
#pragma once

#include <bitrep/annotations/delta_small.hpp>
#include <bitrep/codec.hpp>
#include <bitrep/detail/portability.hpp>

namespace bitrep {

template <class V, std::uint32_t MaxStep>
struct codec<delta_small<V, MaxStep>> {
    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, delta_small<V, MaxStep>& value)
    {
        return codec<V>::serialize(stream, static_cast<V&>(value));
    }
    static constexpr std::size_t max_bits() { return codec<V>::max_bits(); }
    static constexpr std::size_t min_bits() { return codec<V>::min_bits(); }
};

} // namespace bitrep
