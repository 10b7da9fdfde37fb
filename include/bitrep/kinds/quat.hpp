// The quat kind (quat<Bits>): smallest three (docs/formats/wire-format.md
// section 3), the largest component's index, then the other three quantized.
#pragma once

#include <bitrep/annotations/quat.hpp>
#include <bitrep/detail/portability.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/quantize.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace bitrep {

/// A quaternion's components' quantizer, and the margin within which two
/// largest components count as tied (a writer then settles the tie).
struct quat_params {
    quantizer component;
    float tie_margin;
};

namespace detail {
/// What a writer sends of a quaternion: the index of the largest component
/// and the other three in index order. Everything is selected in registers
/// (no component array indexed by `largest`), so the quantizing that follows
/// does not wait on a store and a dependent load.
struct smallest_three_parts {
    std::uint32_t largest = 0;
    float gap = 0.0f; ///< the largest magnitude minus the runner-up's (0 on a tie)
    float small[3] = {};

    /// Sign-folded so that the largest component is positive (q and -q are
    /// the same rotation). Ties go to the lowest index.
    BITREP_ALWAYS_INLINE static smallest_three_parts of(float x, float y, float z, float w) noexcept
    {
        smallest_three_parts s;
        float top = std::fabs(x);
        float second = 0.0f;
        float lead = x;
        // The runner-up is tracked in the same pass (its magnitudes are at
        // hand): a sorting network of its own would compare them all again.
        const float ay = std::fabs(y);
        if (ay > top) {
            s.largest = 1;
            second = top;
            top = ay;
            lead = y;
        } else {
            second = ay;
        }
        const float az = std::fabs(z);
        if (az > top) {
            s.largest = 2;
            second = top;
            top = az;
            lead = z;
        } else {
            second = std::max(second, az);
        }
        const float aw = std::fabs(w);
        if (aw > top) {
            s.largest = 3;
            second = top;
            top = aw;
            lead = w;
        } else {
            second = std::max(second, aw);
        }
        s.gap = top - second;
        s.small[0] = s.largest == 0 ? y : x;
        s.small[1] = s.largest <= 1 ? z : y;
        s.small[2] = s.largest <= 2 ? w : z;
        if (lead < 0.0f)
            for (float& component : s.small)
                component = -component;
        return s;
    }
};
/// The reader's running sum of the smaller components' squares, rounded step
/// by step (no fusion) so that every receiver rebuilds the same largest.
BITREP_ALWAYS_INLINE float add_square(float sum, float component) noexcept
{
    return keep_rounded(sum + keep_rounded(component * component));
}

/// What a quaternion is sent as: the largest component's index and the
/// other three's quanta, in index order.
struct smallest_three_code {
    std::uint32_t largest = 0;
    std::uint32_t quanta[3] = {};
    friend bool operator==(const smallest_three_code&, const smallest_three_code&) = default;
};

/// Moves the code until a reader's value is sent as the same code again.
/// The reader rebuilds the largest component from the other three, so when
/// the two largest lie within a quantum the rebuilt one can come out below a
/// sent one (and a fresh encoding would pick that one as the largest, about
/// 0.4% of random rotations at 9 bits). Each step moves the offending
/// component one quantum (one fixed point, see quantizer::settle) towards 0,
/// which can only shrink it and grow the rebuilt largest, so this ends.
BITREP_COLD BITREP_NOINLINE inline void settle_largest(smallest_three_code& code, const quantizer& q) noexcept
{
    const std::uint32_t zero = q.max_integer / 2; // max_integer is even: this quantum decodes to 0
    for (;;) {
        float c[3];
        float sum = 0.0f;
        for (int k = 0; k < 3; ++k) {
            c[k] = q.dequantize(code.quanta[k]);
            sum = add_square(sum, c[k]);
        }
        // Readers refuse squares summing past 1: then every component is too large.
        const float largest = sum <= 1.0f ? std::sqrt(1.0f - sum) : -1.0f;
        int worst = -1;
        for (std::uint32_t k = 0; k < 3; ++k) {
            const float size = std::fabs(c[k]);
            const std::uint32_t index = k + (k >= code.largest ? 1u : 0u);
            // A fresh encoding takes the first component of greatest magnitude.
            const bool overtakes = size > largest || (size == largest && index < code.largest);
            if (overtakes && (worst < 0 || size > std::fabs(c[worst])))
                worst = static_cast<int>(k);
        }
        if (worst < 0)
            return;
        std::uint32_t& quantum = code.quanta[worst];
        do
            quantum = quantum > zero ? quantum - 1 : quantum + 1;
        while (!q.is_fixed_point(quantum));
    }
}

/// The quanta of s's components (stable ones: the fixed point each settles
/// on; the standard's own for every ordinary range). What a writer sends for
/// a rotation is settle_largest of these (far from a tie that changes
/// nothing), so it is a function of them.
BITREP_ALWAYS_INLINE smallest_three_code quanta_of(const smallest_three_parts& s, const quantizer& q) noexcept
{
    smallest_three_code code;
    code.largest = s.largest;
    for (int k = 0; k < 3; ++k)
        code.quanta[k] = q.stable_quantize(s.small[k]);
    return code;
}

/// Near a tie: replaces s's smaller components by the values of stable
/// quanta. Those quanta are fixed points, so quantizing the values gives them
/// back, and the writer sends them as it sends any other rotation.
BITREP_COLD BITREP_NOINLINE inline void settle_near_tie(smallest_three_parts& s, const quantizer& q) noexcept
{
    // A finer sufficient test first: each decoded component is within half a
    // quantum (and float rounding) of the one sent, so while max c^2 + sum
    // c^2 stays clear of 1 the rebuilt largest exceeds them all.
    const auto slack = static_cast<float>(quat_component_slack(q));
    const float a0 = std::fabs(s.small[0]) + slack;
    const float a1 = std::fabs(s.small[1]) + slack;
    const float a2 = std::fabs(s.small[2]) + slack;
    const float top = std::max(a0, std::max(a1, a2));
    if (q.exact && top * top + a0 * a0 + a1 * a1 + a2 * a2 < 0.9999f)
        return;
    smallest_three_code code = quanta_of(s, q);
    settle_largest(code, q);
    for (int k = 0; k < 3; ++k)
        s.small[k] = q.dequantize(code.quanta[k]);
}

/// What a writer sends of q (checked unit by the caller): sign-folded, and
/// near a tie moved so that decoding it and encoding the result gives the
/// same code. `tie_margin` is quat_tie_margin(q), a constant where q is one.
BITREP_ALWAYS_INLINE smallest_three_parts stable_smallest_three(float x, float y, float z, float w, const quantizer& q,
                                                          float tie_margin) noexcept
{
    smallest_three_parts s = smallest_three_parts::of(x, y, z, w);
    // Far from a tie (the two largest magnitudes at least tie_margin apart,
    // see quat_tie_margin) the standard's quanta are stable: one compare
    // spares the exact check for nearly every rotation.
    if (!q.exact || tie_margin < 0.0f || !(s.gap >= tie_margin)) [[unlikely]]
        settle_near_tie(s, q);
    return s;
}

template <class Quat>
inline constexpr float Quat::*quat_components[4] = {&Quat::x, &Quat::y, &Quat::z, &Quat::w};

/// Smallest three for any quaternion with float members x, y, z, w, with the
/// components' quantizer given: the codec passes its constant one (and its
/// tie margin), and a save file written with another bit count passes that
/// file's (reading only, where the margin is not used; -1 always checks).
template <class Stream, class Quat>
BITREP_ALWAYS_INLINE bool serialize_smallest_three(Stream& stream, Quat& value, const quantizer& component_quantizer,
                                                   float tie_margin = -1.0f)
{
    const std::size_t start = stream.position();
    smallest_three_parts s; // reading: only its `largest` is used, as the
                      // components go straight into `value`
    if constexpr (Stream::is_writing) {
        const float norm = value.x * value.x + value.y * value.y + value.z * value.z + value.w * value.w;
        if (!(std::fabs(norm - 1.0f) <= unit_norm_tolerance)) [[unlikely]] // also refuses NaN and infinity
            return stream.fail(error::value_out_of_range, start,
                               "quaternion is not unit length (|q|^2 off by more than 1%)");
        s = stable_smallest_three(value.x, value.y, value.z, value.w, component_quantizer, tie_margin);
    } else {
        static_cast<void>(tie_margin);
    }
    if (!stream.serialize_bits(s.largest, 2))
        return false;
    // Reading stores each component straight into the target (the k-th
    // smaller one is component k below the largest and k + 1 from it on),
    // one float at a time: assembling them in a local array and copying
    // that out as one 16-byte load would defeat store forwarding.
    float sum = 0.0f;
    for (std::uint32_t k = 0; k < 3; ++k) {
        float& component =
            Stream::is_reading ? value.*quat_components<Quat>[k + (k >= s.largest ? 1u : 0u)] : s.small[k];
        if (!stream.serialize_quantized(component, component_quantizer))
            return stream.fail_from(start);
        if constexpr (Stream::is_reading)
            sum = add_square(sum, component);
    }
    if constexpr (Stream::is_reading) {
        // The three smallest components of a unit quaternion have squares
        // summing to at most 3/4 (the largest is at least 1/2), so no
        // writer sends more than 1: such bytes are forged, and accepting
        // them would hand the game a rotation that is not unit length.
        if (sum > 1.0f) [[unlikely]]
            return stream.fail(error::out_of_range, start, "smallest-three components exceed unit length");
        value.*quat_components<Quat>[s.largest] = std::sqrt(1.0f - sum);
    }
    return true;
}

} // namespace detail

} // namespace bitrep
