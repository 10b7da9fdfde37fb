// quantized<Min, Max, Resolution>: the standard's compressed_float.
#pragma once

#include <bitrep/annotations/quantized.hpp>
#include <bitrep/codec.hpp>
#include <bitrep/detail/inline.hpp>

namespace bitrep {

template <float_constant Min, float_constant Max, float_constant Resolution>
struct codec<quantized<Min, Max, Resolution>> {
    using type = quantized<Min, Max, Resolution>;

    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, type& value)
    {
        return stream.serialize_quantized(value.get(), type::quantizer);
    }
    static constexpr std::size_t max_bits() { return type::bits; }
    static constexpr std::size_t min_bits() { return type::bits; }
    template <class Schema>
    static void describe(Schema& schema) { schema.quantized(type::min, type::max, type::resolution); }
};

} // namespace bitrep
