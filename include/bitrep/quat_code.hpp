// quat_code<Bits>: a rotation kept in its smallest-three code, as games that
// store orientations already quantized (physics snapshots, replays) hold
// them: the index of the largest component (0-3 over x, y, z, w, made
// positive) and the other three, in index order, as Bits-bit integers. A
// component k stands for (2k - max) / max / sqrt(2), max = 2^Bits - 1 (the
// challenge data's convention). 2 + 3 * Bits bits, like quat<Bits>.
//
// An aggregate of ranged integers, so it is saved, loaded and sent like any
// struct; what it adds is its delta on the coded streams (delta.hpp), which
// follows a change of the largest axis instead of resending the code.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include <bitrep/annotations/ranged.hpp>

namespace bitrep {

template <int Bits>
    requires(Bits >= 2 && Bits <= 15)
struct quat_code {
    static constexpr std::uint16_t max = static_cast<std::uint16_t>((1u << Bits) - 1);
    /// The identity rotation: w largest, the others as near 0 as the code has.
    ranged<std::uint8_t, 0, 3> largest{3};
    std::array<ranged<std::uint16_t, 0, max>, 3> small{{{(max + 1) / 2}, {(max + 1) / 2}, {(max + 1) / 2}}};

    friend bool operator==(const quat_code& a, const quat_code& b) noexcept
    {
        return a.largest.value() == b.largest.value() && a.small[0].value() == b.small[0].value() &&
               a.small[1].value() == b.small[1].value() && a.small[2].value() == b.small[2].value();
    }
};

namespace detail {

/// floor(sqrt(x)), exactly, for x below 2^52.
inline std::uint64_t integer_sqrt(std::uint64_t x) noexcept
{
    auto r = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(x)));
    while (r * r > x)
        --r;
    while ((r + 1) * (r + 1) <= x)
        ++r;
    return r;
}

/// The three small components of the code (largest axis `from`, smaller
/// components `small`, each in [0, max]) as they would read with `axis` as
/// the largest: a prediction for a rotation that moved its largest axis, in
/// integers only (the same on every receiver). The old largest component is
/// rebuilt from the other three; the sign makes the new largest positive;
/// values past the code's range are clamped.
inline std::array<std::int64_t, 3> code_in_frame(std::uint32_t from, const std::array<std::int64_t, 3>& small,
                                                 std::int64_t max, std::uint32_t axis) noexcept
{
    std::array<std::int64_t, 3> out{};
    if (from == axis || from > 3 || axis > 3)
        return small;
    // Components by index; n = 2k - max is the component in units of 1/(max sqrt 2).
    std::array<std::int64_t, 4> k{};
    std::int64_t sum = 0;
    for (std::uint32_t i = 0, s = 0; i < 4; ++i) {
        if (i == from)
            continue;
        k[i] = small[s++];
        sum += (2 * k[i] - max) * (2 * k[i] - max);
    }
    const std::int64_t d = std::max<std::int64_t>(0, 2 * max * max - sum); // (largest n)^2
    const std::int64_t rebuilt = (max + 1) / 2 + static_cast<std::int64_t>(integer_sqrt(static_cast<std::uint64_t>(d / 4)));
    k[from] = std::min(rebuilt, max);
    const bool flip = 2 * k[axis] - max < 0; // max is odd: never 0
    for (std::uint32_t i = 0, s = 0; i < 4; ++i) {
        if (i == axis)
            continue;
        out[s++] = flip ? max - k[i] : k[i];
    }
    return out;
}

template <int Bits>
std::array<std::int64_t, 3> quat_code_in_frame(const quat_code<Bits>& code, std::uint32_t axis) noexcept
{
    return code_in_frame(code.largest.value(), {code.small[0].value(), code.small[1].value(), code.small[2].value()},
                         quat_code<Bits>::max, axis);
}

} // namespace detail

} // namespace bitrep
