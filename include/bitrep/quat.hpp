// quat<BitsPerComponent>: a unit quaternion sent smallest-three, in
// 2 + 3 * BitsPerComponent bits (29 bits at 9 bits per component).
#pragma once

#include <compare>

#include <bitrep/detail/quantize.hpp>

namespace bitrep {

namespace detail {
/// The smallest-three components' quantizer at a bit count (also for save
/// files written with another bit count than the program's).
constexpr quantizer quat_component_quantizer(int bits_per_component) noexcept
{
    constexpr float component_limit = 0.707106781f; // 1/sqrt(2): no smaller component exceeds it
    return quantizer::from_bits(-component_limit, component_limit, bits_per_component);
}
} // namespace detail

/// A rotation as a unit quaternion. On the wire: the index of the largest
/// component (2 bits), then the other three, sign-folded so that the largest
/// is positive, each quantized in [-1/sqrt(2), +1/sqrt(2)] to
/// BitsPerComponent bits. The receiver rebuilds the largest from the unit
/// norm. q and -q are the same rotation, so a round trip may flip all signs.
template <int BitsPerComponent>
struct quat {
    // Below 3 bits, rounding can push the three sent components of an honest
    // unit quaternion past unit length (0.5 rounds to 1/sqrt(2) at 2 bits),
    // which readers refuse. Above 24, float32 cannot hold the quanta exactly.
    static_assert(BitsPerComponent >= 3 && BitsPerComponent <= 24, "quat: BitsPerComponent must be in [3, 24]");
    static constexpr int bits_per_component = BitsPerComponent;
    static constexpr int bits = 2 + 3 * BitsPerComponent;
    static constexpr detail::quantizer component_quantizer = detail::quat_component_quantizer(BitsPerComponent);

    float x = 0.0f;
    float y = 0.0f;
    float z = 0.0f;
    float w = 1.0f;

    friend constexpr bool operator==(const quat&, const quat&) noexcept = default;
};

} // namespace bitrep
