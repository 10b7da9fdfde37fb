// The networked-physics challenge's raw data, as cubes_scene writes it and
// every encoder of cubes_bandwidth reads it: per frame, per cube, eight
// little-endian int32 values in the order largest, a, b, c, x, y, z,
// interacting. Orientation is smallest three (the largest component's index
// 0-3 over x, y, z, w, made positive, the other three in that order as
// 9-bit integers over [-1/sqrt(2), 1/sqrt(2)]); position is in 1/512 m.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace cubes {

inline constexpr int units_per_meter = 512;
inline constexpr int position_bound_xy = 16383; // x, y in [-16383, 16383]
inline constexpr int position_bound_z = 8191;   // z in [0, 8191]
inline constexpr int orientation_bits = 9;      // a, b, c in [0, 511]
inline constexpr int orientation_max = (1 << orientation_bits) - 1;
inline constexpr std::size_t default_cube_count = 901;
inline constexpr int baseline_distance = 6; // packet i is encoded against frame i - 6

struct cube_state {
    std::int32_t largest = 0;
    std::int32_t a = 0, b = 0, c = 0;
    std::int32_t x = 0, y = 0, z = 0;
    std::int32_t interacting = 0;
    friend bool operator==(const cube_state&, const cube_state&) = default;
};

/// Frames of `cube_count` cubes each, frame-major.
struct frame_data {
    std::size_t cube_count = default_cube_count;
    std::vector<cube_state> cubes;

    std::size_t frame_count() const { return cube_count == 0 ? 0 : cubes.size() / cube_count; }
    const cube_state* frame(std::size_t f) const { return cubes.data() + f * cube_count; }
    cube_state* frame(std::size_t f) { return cubes.data() + f * cube_count; }
};

/// Whether every value lies in the format's ranges (what the encoders assume).
inline bool valid(const cube_state& s)
{
    auto in = [](std::int32_t v, std::int32_t lo, std::int32_t hi) { return v >= lo && v <= hi; };
    return in(s.largest, 0, 3) && in(s.a, 0, orientation_max) && in(s.b, 0, orientation_max) &&
           in(s.c, 0, orientation_max) && in(s.x, -position_bound_xy, position_bound_xy) &&
           in(s.y, -position_bound_xy, position_bound_xy) && in(s.z, 0, position_bound_z) && in(s.interacting, 0, 1);
}

inline void put_int32(std::vector<std::uint8_t>& out, std::int32_t v)
{
    const auto u = static_cast<std::uint32_t>(v);
    for (int shift = 0; shift < 32; shift += 8)
        out.push_back(static_cast<std::uint8_t>(u >> shift));
}

inline std::int32_t get_int32(const std::uint8_t* p)
{
    std::uint32_t u = 0;
    for (int k = 3; k >= 0; --k)
        u = (u << 8) | p[k];
    return static_cast<std::int32_t>(u);
}

inline bool write_frames(const std::string& path, const frame_data& data)
{
    std::vector<std::uint8_t> bytes;
    bytes.reserve(data.cubes.size() * 32);
    for (const cube_state& s : data.cubes)
        for (std::int32_t v : {s.largest, s.a, s.b, s.c, s.x, s.y, s.z, s.interacting})
            put_int32(bytes, v);
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (file == nullptr)
        return false;
    const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
    return std::fclose(file) == 0 && ok;
}

/// Reads a file of whole frames of `cube_count` cubes with every value in
/// range; nothing on any failure (the message says which).
inline std::optional<frame_data> read_frames(const std::string& path, std::size_t cube_count, std::string& message)
{
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) {
        message = "cannot open " + path;
        return std::nullopt;
    }
    std::vector<std::uint8_t> bytes;
    std::array<std::uint8_t, 65536> chunk;
    std::size_t got = 0;
    while ((got = std::fread(chunk.data(), 1, chunk.size(), file)) > 0)
        bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(got));
    std::fclose(file);
    const std::size_t frame_bytes = cube_count * 32;
    if (cube_count == 0 || bytes.empty() || bytes.size() % frame_bytes != 0) {
        message = path + ": " + std::to_string(bytes.size()) + " bytes is not a whole number of frames of " +
                  std::to_string(cube_count) + " cubes";
        return std::nullopt;
    }
    frame_data data;
    data.cube_count = cube_count;
    data.cubes.resize(bytes.size() / 32);
    for (std::size_t i = 0; i < data.cubes.size(); ++i) {
        const std::uint8_t* p = bytes.data() + i * 32;
        cube_state& s = data.cubes[i];
        s = {get_int32(p), get_int32(p + 4), get_int32(p + 8), get_int32(p + 12),
             get_int32(p + 16), get_int32(p + 20), get_int32(p + 24), get_int32(p + 28)};
        if (!valid(s)) {
            message = path + ": cube " + std::to_string(i % cube_count) + " of frame " +
                      std::to_string(i / cube_count) + " is out of the format's ranges";
            return std::nullopt;
        }
    }
    return data;
}

} // namespace cubes
