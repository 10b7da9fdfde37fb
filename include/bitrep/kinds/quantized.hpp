// The quantized kind (quantized<Min, Max, Resolution, Policy>): the
// standard's compressed_float for a value in its range; outside it, refused
// unless the annotation clamps.
#pragma once

#include <bitrep/detail/portability.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/quantize.hpp>

namespace bitrep {

/// A quantized float's quantizer, its range's edges (`top`: the largest
/// value in range) and whether it clamps what lies outside.
struct quantized_params {
    bitrep::quantizer quantizer;
    float min;
    float top;
    bool clamp;
};

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
/// Whether a writer sends `value`: in range, or any number when clamped.
BITREP_ALWAYS_INLINE constexpr bool quantized_encodable(float value, const quantized_params& params) noexcept
{
    return params.clamp ? value == value : (params.min <= value && value <= params.top);
}

/// The kind's rule: the codec passes its annotation's constant params, the
/// engine its entry's.
template <class Stream>
BITREP_ALWAYS_INLINE bool serialize_quantized_value(Stream& stream, float& value, const quantized_params& params)
{
    if constexpr (Stream::is_writing) {
        if (!quantized_encodable(value, params)) [[unlikely]]
            return refuse_quantized(stream, value);
    }
    return stream.serialize_quantized(value, params.quantizer);
}
} // namespace detail

} // namespace bitrep
