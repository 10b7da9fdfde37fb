// The reference scheme: the snapshot-compression articles' final bit-packer,
// written by hand from their published description (no published code):
//
//   - the changed cubes, as whichever is smaller: a bit per cube, or their
//     count (8 bits, 1-256) and indices (the first in full, then each as a
//     difference from the previous in tiers: +1 in one bit, then 2-6, 7-14,
//     15-30, 31-62, 63-126 after a flag each, the rest in full);
//   - per changed cube: the interacting flag; a position-changed flag, then
//     the position as a zigzagged difference from a prediction (the
//     baseline moved on by the baseline's own motion, less drag, with
//     gravity and the ground on z): all three components at most 15 in
//     4 bits each, else tiers of 5, 6 and 7 bits, else the full position;
//   - the orientation: with the same largest component, the zigzagged
//     differences at most 3 in 2 bits each, else tiers of 4, 5 and 7 bits;
//     else the full smallest-three code.
//
// One description serves writing and reading, in the style of the articles'
// serialize functions. The baseline's motion is frame i-6 minus frame i-12,
// which the receiver holds (both acknowledged); before frame 12 it is zero.
#pragma once

#include <bitrep/wire/bits.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>

#include "cube_frames.hpp"

namespace reference {

struct writer {
    static constexpr bool reading = false;
    bitrep::bit_writer bits;
    bool value(std::uint32_t& v, int n) { return n == 0 || bits.write_bits(v, n); }
};

struct reader {
    static constexpr bool reading = true;
    bitrep::bit_reader bits;
    bool value(std::uint32_t& v, int n)
    {
        v = 0;
        return n == 0 || bits.read_bits(v, n);
    }
};

template <class Stream>
bool flag(Stream& s, bool& b)
{
    std::uint32_t v = b ? 1 : 0;
    if (!s.value(v, 1))
        return false;
    b = v != 0;
    return true;
}

/// v in [lo, hi] as v - lo in the bits the span needs; readers refuse above hi.
template <class Stream>
bool ranged(Stream& s, std::uint32_t& v, std::uint32_t lo, std::uint32_t hi)
{
    std::uint32_t offset = Stream::reading ? 0 : v - lo;
    if (!s.value(offset, bitrep::bits_required_for_span(hi - lo)))
        return false;
    v = lo + offset;
    return v <= hi;
}

/// Unsigned values in consecutive tiers of 2^width values each; a flag
/// before every tier but the last says "in this one".
template <class Stream, std::size_t N>
bool tiered(Stream& s, std::uint32_t& v, const std::array<int, N>& widths)
{
    std::uint32_t lo = 0;
    for (std::size_t t = 0; t + 1 < N; ++t) {
        const std::uint32_t hi = lo + (1u << widths[t]) - 1;
        bool here = !Stream::reading && v <= hi;
        if (!flag(s, here))
            return false;
        if (here)
            return ranged(s, v, lo, hi);
        lo = hi + 1;
    }
    return ranged(s, v, lo, lo + (1u << widths[N - 1]) - 1);
}

/// One past the largest value `tiered` can send.
template <std::size_t N>
constexpr std::uint32_t tier_limit(const std::array<int, N>& widths)
{
    std::uint32_t limit = 0;
    for (int w : widths)
        limit += 1u << w;
    return limit;
}

constexpr std::uint32_t zigzag(std::int32_t n) { return (static_cast<std::uint32_t>(n) << 1) ^ static_cast<std::uint32_t>(n >> 31); }
constexpr std::int32_t unzigzag(std::uint32_t n) { return static_cast<std::int32_t>((n >> 1) ^ (0u - (n & 1))); }

/// Index differences: +1, then [2,6], [7,14], [15,30], [31,62], [63,126]
/// after a flag each, then anything larger in the bits the cube count needs.
struct index_tier {
    std::uint32_t lo, hi;
};
inline constexpr std::array<index_tier, 6> index_tiers = {{{1, 1}, {2, 6}, {7, 14}, {15, 30}, {31, 62}, {63, 126}}};

inline std::size_t index_difference_bits(std::uint32_t difference, std::size_t cube_count)
{
    std::size_t bits = 0;
    for (const index_tier& t : index_tiers) {
        ++bits;
        if (difference <= t.hi)
            return bits + static_cast<std::size_t>(bitrep::bits_required_for_span(t.hi - t.lo));
    }
    return bits + static_cast<std::size_t>(bitrep::bits_required_for_span(std::max<std::size_t>(cube_count - 1, 127) - 127));
}

template <class Stream>
bool index_difference(Stream& s, std::uint32_t& difference, std::size_t cube_count)
{
    for (const index_tier& t : index_tiers) {
        bool here = !Stream::reading && difference <= t.hi;
        if (!flag(s, here))
            return false;
        if (here)
            return ranged(s, difference, t.lo, t.hi);
    }
    return ranged(s, difference, 127, static_cast<std::uint32_t>(std::max<std::size_t>(cube_count - 1, 127)));
}

inline constexpr std::size_t max_changed_in_list = 256;

/// The prediction of a changed cube's position: the baseline moved on by the
/// baseline's own motion, less drag; z falls by gravity and stops at the ground.
struct position {
    std::int32_t x, y, z;
};
inline position predict(const cubes::cube_state& base, const cubes::cube_state& base_of_base)
{
    auto drag = [](std::int32_t d) { return -static_cast<std::int32_t>(std::ceil(static_cast<float>(d) * 0.062f)); };
    const std::int32_t dx = base.x - base_of_base.x;
    const std::int32_t dy = base.y - base_of_base.y;
    const std::int32_t dz = base.z - base_of_base.z;
    constexpr std::int32_t gravity = 3;
    constexpr std::int32_t ground = 105;
    return {base.x + dx + drag(dx), base.y + dy + drag(dy), std::max(base.z + dz - gravity + drag(dz), ground)};
}

template <class Stream>
bool position_delta(Stream& s, cubes::cube_state& cube, const position& estimate)
{
    constexpr std::array<int, 3> widths = {5, 6, 7};
    constexpr std::uint32_t small_limit = 15;
    constexpr std::uint32_t large_limit = tier_limit(widths);
    std::array<std::uint32_t, 3> d{};
    bool all_small = false;
    bool too_large = false;
    if constexpr (!Stream::reading) {
        d = {zigzag(cube.x - estimate.x), zigzag(cube.y - estimate.y), zigzag(cube.z - estimate.z)};
        all_small = std::max({d[0], d[1], d[2]}) <= small_limit;
        too_large = std::max({d[0], d[1], d[2]}) >= large_limit;
    }
    if (!flag(s, all_small))
        return false;
    if (!all_small && !flag(s, too_large))
        return false;
    if (too_large) {
        // The full position.
        std::array<std::uint32_t, 3> v = {static_cast<std::uint32_t>(cube.x + cubes::position_bound_xy),
                                          static_cast<std::uint32_t>(cube.y + cubes::position_bound_xy),
                                          static_cast<std::uint32_t>(cube.z)};
        if (!ranged(s, v[0], 0, 2 * cubes::position_bound_xy) || !ranged(s, v[1], 0, 2 * cubes::position_bound_xy) ||
            !ranged(s, v[2], 0, cubes::position_bound_z))
            return false;
        cube.x = static_cast<std::int32_t>(v[0]) - cubes::position_bound_xy;
        cube.y = static_cast<std::int32_t>(v[1]) - cubes::position_bound_xy;
        cube.z = static_cast<std::int32_t>(v[2]);
        return true;
    }
    for (std::uint32_t& component : d)
        if (!(all_small ? ranged(s, component, 0, small_limit) : tiered(s, component, widths)))
            return false;
    cube.x = estimate.x + unzigzag(d[0]);
    cube.y = estimate.y + unzigzag(d[1]);
    cube.z = estimate.z + unzigzag(d[2]);
    return true;
}

template <class Stream>
bool orientation_delta(Stream& s, cubes::cube_state& cube, const cubes::cube_state& base)
{
    constexpr std::array<int, 3> widths = {4, 5, 7};
    constexpr std::uint32_t small_limit = 3;
    constexpr std::uint32_t large_limit = tier_limit(widths);
    std::array<std::uint32_t, 3> d{};
    bool relative = false;
    bool all_small = false;
    if constexpr (!Stream::reading) {
        if (cube.largest == base.largest) {
            d = {zigzag(cube.a - base.a), zigzag(cube.b - base.b), zigzag(cube.c - base.c)};
            relative = std::max({d[0], d[1], d[2]}) < large_limit;
            all_small = std::max({d[0], d[1], d[2]}) <= small_limit;
        }
    }
    if (!flag(s, relative))
        return false;
    if (!relative) {
        auto largest = static_cast<std::uint32_t>(cube.largest);
        std::array<std::uint32_t, 3> v = {static_cast<std::uint32_t>(cube.a), static_cast<std::uint32_t>(cube.b),
                                          static_cast<std::uint32_t>(cube.c)};
        if (!ranged(s, largest, 0, 3))
            return false;
        for (std::uint32_t& component : v)
            if (!ranged(s, component, 0, cubes::orientation_max))
                return false;
        cube.largest = static_cast<std::int32_t>(largest);
        cube.a = static_cast<std::int32_t>(v[0]);
        cube.b = static_cast<std::int32_t>(v[1]);
        cube.c = static_cast<std::int32_t>(v[2]);
        return true;
    }
    if (!flag(s, all_small))
        return false;
    for (std::uint32_t& component : d)
        if (!(all_small ? ranged(s, component, 0, small_limit) : tiered(s, component, widths)))
            return false;
    cube.largest = base.largest;
    cube.a = base.a + unzigzag(d[0]);
    cube.b = base.b + unzigzag(d[1]);
    cube.c = base.c + unzigzag(d[2]);
    return true;
}

template <class Stream>
bool changed_cube(Stream& s, cubes::cube_state& cube, const cubes::cube_state& base,
                  const cubes::cube_state& base_of_base)
{
    bool interacting = cube.interacting != 0;
    if (!flag(s, interacting))
        return false;
    cube.interacting = interacting ? 1 : 0;
    bool moved = !Stream::reading && (cube.x != base.x || cube.y != base.y || cube.z != base.z);
    if (!flag(s, moved))
        return false;
    if (moved) {
        if (!position_delta(s, cube, predict(base, base_of_base)))
            return false;
    } else {
        cube.x = base.x;
        cube.y = base.y;
        cube.z = base.z;
    }
    return orientation_delta(s, cube, base) && cubes::valid(cube);
}

/// Writes `now` against `base`; false when the buffer is too small.
inline bool write_snapshot(writer& s, std::span<const cubes::cube_state> now, std::span<const cubes::cube_state> base,
                           std::span<const cubes::cube_state> base_of_base)
{
    const std::size_t n = now.size();
    std::size_t changed = 0;
    std::size_t list_bits = 8;
    std::size_t previous = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (now[i] == base[i])
            continue;
        list_bits += changed == 0 ? static_cast<std::size_t>(bitrep::bits_required_for_span(n - 1))
                                  : index_difference_bits(static_cast<std::uint32_t>(i - previous), n);
        previous = i;
        ++changed;
    }
    bool list = changed > 0 && changed <= max_changed_in_list && list_bits <= n;
    if (!flag(s, list))
        return false;
    auto cube = [&](std::size_t i) {
        cubes::cube_state copy = now[i];
        return changed_cube(s, copy, base[i], base_of_base[i]);
    };
    if (list) {
        auto count = static_cast<std::uint32_t>(changed);
        if (!ranged(s, count, 1, max_changed_in_list))
            return false;
        bool first = true;
        for (std::size_t i = 0; i < n; ++i) {
            if (now[i] == base[i])
                continue;
            auto field = static_cast<std::uint32_t>(first ? i : i - previous);
            if (!(first ? ranged(s, field, 0, static_cast<std::uint32_t>(n - 1)) : index_difference(s, field, n)) || !cube(i))
                return false;
            first = false;
            previous = i;
        }
        return true;
    }
    for (std::size_t i = 0; i < n; ++i) {
        bool differs = now[i] != base[i];
        if (!flag(s, differs) || (differs && !cube(i)))
            return false;
    }
    return true;
}

/// Reads a snapshot written against `base` into `out`; false on any refusal.
inline bool read_snapshot(reader& s, std::span<cubes::cube_state> out, std::span<const cubes::cube_state> base,
                          std::span<const cubes::cube_state> base_of_base)
{
    const std::size_t n = out.size();
    std::copy(base.begin(), base.end(), out.begin());
    bool list = false;
    if (!flag(s, list))
        return false;
    if (list) {
        std::uint32_t count = 0;
        if (!ranged(s, count, 1, max_changed_in_list))
            return false;
        std::size_t index = 0;
        for (std::uint32_t k = 0; k < count; ++k) {
            std::uint32_t field = 0;
            if (!(k == 0 ? ranged(s, field, 0, static_cast<std::uint32_t>(n - 1)) : index_difference(s, field, n)))
                return false;
            index = k == 0 ? field : index + field;
            if (index >= n || !changed_cube(s, out[index], base[index], base_of_base[index]))
                return false;
        }
        return true;
    }
    for (std::size_t i = 0; i < n; ++i) {
        bool differs = false;
        if (!flag(s, differs) || (differs && !changed_cube(s, out[i], base[i], base_of_base[i])))
            return false;
    }
    return true;
}

} // namespace reference
