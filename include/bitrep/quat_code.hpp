// quat_code<Bits>: a rotation kept in its smallest-three code, as games that
// store orientations already quantized (physics snapshots, replays) hold
// them: the index of the largest component (0-3 over x, y, z, w, made
// positive) and the other three, in index order, as Bits-bit integers. A
// component k stands for (2k - max) / max / sqrt(2), max = 2^Bits - 1 (the
// challenge data's convention). 2 + 3 * Bits bits, like quat<Bits>.
//
// An aggregate of ranged integers, so it is saved, loaded and sent like any
// struct; what it adds is its delta on the coded streams (delta.hpp), which
// follows a change of the largest axis instead of resending the code
// (detail/quat_frame.hpp).
#pragma once

#include <array>
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

} // namespace bitrep
