// A quat_code seen from another largest axis, in integers only (the same on
// every receiver): what the coded deltas of a quat_code predict when its
// largest axis moves (delta_codes.hpp). Apart from quat_code.hpp, so that
// declaring annotated types does not parse <cmath>.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include <bitrep/quat_code.hpp>

namespace bitrep {

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
