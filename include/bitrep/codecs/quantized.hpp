// quantized<Min, Max, Resolution>: the standard's compressed_float, for
// values in the range (the standard's writer clamps the rest; this one
// refuses them unless the annotation says clamped).
#pragma once

#include <bitrep/annotations/quantized.hpp>
#include <bitrep/codec.hpp>
#include <bitrep/detail/inline.hpp>
#include <bitrep/status.hpp>

namespace bitrep {

namespace detail {
/// The refusal of a quantized value its annotation cannot send: the one
/// place writers (the codec, the coded deltas' residuals) take it from.
/// (Inline: a cold call that took the stream's address would keep the
/// engine's stream out of registers.)
template <class Stream>
BITREP_ALWAYS_INLINE bool refuse_quantized(Stream& stream, float value)
{
    return stream.fail(error::value_out_of_range, stream.position(),
                       value != value ? "NaN cannot be quantized" : "quantized value outside its declared range");
}
} // namespace detail

template <float_constant Min, float_constant Max, float_constant Resolution, range_policy Policy>
struct codec<quantized<Min, Max, Resolution, Policy>> {
    using type = quantized<Min, Max, Resolution, Policy>;

    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, type& value)
    {
        if constexpr (Stream::is_writing) {
            if (!value.encodable()) [[unlikely]]
                return detail::refuse_quantized(stream, value.value());
        }
        return stream.serialize_quantized(value.get(), type::quantizer);
    }
    static constexpr std::size_t max_bits() { return type::bits; }
    static constexpr std::size_t min_bits() { return type::bits; }
};

} // namespace bitrep
