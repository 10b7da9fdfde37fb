// quantized<Min, Max, Resolution>: the standard's compressed_float, for
// values in the range (the standard's writer clamps the rest; this one
// refuses them unless the annotation says clamped).
#pragma once

#include <bitrep/annotations/quantized.hpp>
#include <bitrep/codec.hpp>
#include <bitrep/detail/portability.hpp>
#include <bitrep/kinds/quantized.hpp>
#include <bitrep/status.hpp>

namespace bitrep {

template <float_constant Min, float_constant Max, float_constant Resolution, range_policy Policy>
struct codec<quantized<Min, Max, Resolution, Policy>> {
    using type = quantized<Min, Max, Resolution, Policy>;

    static constexpr quantized_params params{type::quantizer, type::min, type::top, Policy == range_policy::clamp};

    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, type& value)
    {
        return detail::serialize_quantized_value(stream, value.get(), params);
    }
    static constexpr std::size_t max_bits() { return type::bits; }
    static constexpr std::size_t min_bits() { return type::bits; }
};

} // namespace bitrep
