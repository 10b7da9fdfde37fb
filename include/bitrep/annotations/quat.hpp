// quat<BitsPerComponent>: a unit quaternion sent smallest-three, in
// 2 + 3 * BitsPerComponent bits (29 bits at 9 bits per component).
#pragma once

#include <compare>

#include <bitrep/wire/quantize.hpp>

namespace bitrep {

namespace detail {
/// How far from 1 a quaternion's squared norm |q|^2 may be for a writer to
/// send it (1%): smallest-three leaves the largest component out and the
/// reader rebuilds it from |q| = 1, so a quaternion further off is refused
/// rather than sent as another rotation. The codec's check, delta's and
/// quat_tie_margin's bound below all use this one.
inline constexpr float unit_norm_tolerance = 0.01f;

/// The smallest-three components' quantizer at a bit count (also for save
/// files written with another bit count than the program's).
constexpr quantizer quat_component_quantizer(int bits_per_component) noexcept
{
    constexpr float component_limit = 0.707106781f; // 1/sqrt(2): no smaller component exceeds it
    return quantizer::from_bits(-component_limit, component_limit, bits_per_component);
}
/// How far apart the two largest input components must be for the code to
/// be stable without checking. A decoded smaller component c is within
/// h = half a quantum (plus float rounding) of the one sent, s. The writer
/// accepts |q|^2 = N in [0.99, 1.01], so the largest t has t^2 >= N/4, t >=
/// 0.4975, and the rebuilt largest L has L^2 = 1 - sum c^2 >= t^2 - R with
/// R = 0.0101 + 2h sum|s| + 3h^2 <= 0.0101 + 3.025h + 3h^2 (sum|s| <=
/// sqrt(3 (1.01 - 0.2475))). L exceeds every decoded c <= m + h (m the
/// largest sent) once t^2 - R > (t - x)^2 with x = t - m - h, which holds for
/// every t >= 0.4975 when x (0.995 - x) > R (plus 1e-5 for the reader's
/// float rounding). The margin is h plus the smallest such x; a negative
/// result means there is none (very coarse components): always check.
/// How far a decoded smaller component may lie from the one sent: half a
/// quantum, and a little for float rounding.
constexpr double quat_component_slack(const quantizer& q) noexcept
{
    return 0.5005 * static_cast<double>(q.delta) / static_cast<double>(q.max_integer) + 1e-6;
}

constexpr float quat_tie_margin(const quantizer& q) noexcept
{
    // 0.0101 and 0.995 below are the bound's terms at this tolerance.
    static_assert(unit_norm_tolerance == 0.01f, "quat_tie_margin's bound is derived for a 1% tolerance");
    const double h = quat_component_slack(q);
    const double r = 0.0101 + 3.025 * h + 3.0 * h * h + 1e-5;
    const double discriminant = 0.995 * 0.995 - 4.0 * r;
    if (discriminant <= 0.0)
        return -1.0f;
    // x (0.995 - x) = r at x = (0.995 - sqrt(d)) / 2; sqrt by Newton steps, constexpr.
    double root = 1.0;
    for (int i = 0; i < 60; ++i)
        root = 0.5 * (root + discriminant / root);
    return static_cast<float>(h + (0.995 - root) / 2.0 + 1e-6);
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
    static constexpr bitrep::quantizer component_quantizer = detail::quat_component_quantizer(BitsPerComponent);
    /// Input components at least this far apart encode stably unchecked (detail::quat_tie_margin).
    static constexpr float tie_margin = detail::quat_tie_margin(component_quantizer);

    float x = 0.0f;
    float y = 0.0f;
    float z = 0.0f;
    float w = 1.0f;

    friend constexpr bool operator==(const quat&, const quat&) noexcept = default;
};

} // namespace bitrep
