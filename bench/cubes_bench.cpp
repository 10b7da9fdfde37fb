// 901-cube snapshot: the shape of the classic snapshot-compression demo
// (positions in 1/512 m, smallest-three orientation, an interacting flag),
// one message per snapshot, encoded and decoded two ways side by side:
//
//   Reflected   bitrep::to_bytes(snapshot, buffer, written) / bitrep::from_bytes
//   HandWritten explicit per-field calls on bitrep's write_stream/read_stream,
//               the same checks and the same all-or-nothing decode
//
// Before timing anything the binary checks that both produce identical bytes
// and that both decodes round-trip; it aborts if not.
#include <benchmark/benchmark.h>

#include <bitrep/bitrep.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include "side_by_side.hpp"

namespace {

// ---------------------------------------------------------------- the record

constexpr std::size_t cube_count = 901;

/// 15 + 15 + 13 + 29 + 1 = 73 bits per cube.
struct Cube {
    bitrep::ranged<int, -16383, 16383> x; // 1/512 m
    bitrep::ranged<int, -16383, 16383> y;
    bitrep::ranged<int, 0, 8191> z;
    bitrep::quat<9> orientation; // smallest three: 2 + 3 * 9 bits
    bool interacting = false;
    friend bool operator==(const Cube&, const Cube&) = default;
};

/// One message per snapshot; a std::array has a fixed count, so nothing but
/// the cubes goes on the wire.
using Snapshot = std::array<Cube, cube_count>;

// ------------------------------------------------- the hand-written baseline
//
// What a careful engineer writes against the stream primitives without
// reflection: one function serving read and write (the serialize idiom),
// explicit per-field calls with the primitives' own range checks on write
// and refusals on read, and from_bytes' all-or-nothing decode.
namespace hand {

using bitrep::error;

/// The smallest three components of a unit quaternion lie in +-1/sqrt(2).
constexpr float component_limit = 0.707106781f;
constexpr auto component_quantizer = bitrep::detail::quantizer::from_bits(-component_limit, component_limit, 9);

/// Smallest three, written out the way the codec does it (index of the
/// largest, sign folded so the largest is positive, the other three
/// quantized; the reader rebuilds the largest from the unit norm, summing
/// with one rounding per step so every receiver gets the same float).
template <class Stream>
bool serialize_orientation(Stream& stream, bitrep::quat<9>& q)
{
    float c[4] = {q.x, q.y, q.z, q.w};
    std::uint32_t largest = 0;
    const std::size_t start = stream.position();
    if constexpr (Stream::is_writing) {
        for (std::uint32_t i = 1; i < 4; ++i)
            if (std::fabs(c[i]) > std::fabs(c[largest]))
                largest = i;
        const float norm = c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3];
        if (!(std::fabs(norm - 1.0f) <= 0.01f)) [[unlikely]]
            return stream.fail(error::value_out_of_range, start,
                               "quaternion is not unit length (|q|^2 off by more than 1%)");
        if (c[largest] < 0.0f)
            for (float& component : c)
                component = -component;
    }
    if (!stream.serialize_bits(largest, 2))
        return false;
    for (std::uint32_t i = 0; i < 4; ++i)
        if (i != largest && !stream.serialize_quantized(c[i], component_quantizer))
            return stream.fail_from(start);
    if constexpr (Stream::is_reading) {
        float sum = 0.0f;
        for (std::uint32_t i = 0; i < 4; ++i)
            if (i != largest)
                sum = bitrep::detail::keep_rounded(sum + bitrep::detail::keep_rounded(c[i] * c[i]));
        if (sum > 1.0f) [[unlikely]]
            return stream.fail(error::out_of_range, start, "smallest-three components exceed unit length");
        c[largest] = std::sqrt(1.0f - sum);
        q = bitrep::quat<9>{c[0], c[1], c[2], c[3]};
    }
    return true;
}

template <class Stream>
bool serialize_cube(Stream& stream, Cube& cube)
{
    return stream.serialize_int(cube.x.get(), -16383, 16383) &&
           stream.serialize_int(cube.y.get(), -16383, 16383) &&
           stream.serialize_int(cube.z.get(), 0, 8191) &&
           serialize_orientation(stream, cube.orientation) &&
           stream.serialize_bool(cube.interacting);
}

template <class Stream>
bool serialize_snapshot(Stream& stream, Snapshot& snapshot)
{
    for (Cube& cube : snapshot)
        if (!serialize_cube(stream, cube))
            return false;
    return true;
}

bitrep::status to_bytes(const Snapshot& value, std::span<std::uint8_t> buffer, std::size_t& bytes_written)
{
    return side_by_side::hand_to_bytes([](auto& stream, Snapshot& v) { return serialize_snapshot(stream, v); }, "Snapshot", value, buffer,
                                       bytes_written);
}

bitrep::status from_bytes(std::span<const std::uint8_t> bytes, Snapshot& out)
{
    return side_by_side::hand_from_bytes([](auto& stream, Snapshot& v) { return serialize_snapshot(stream, v); }, "Snapshot", bytes, out);
}

} // namespace hand

// ---------------------------------------------------------------- test data

/// A valid state from a fixed seed: positions anywhere in range, unit
/// quaternions drawn uniformly from the 4-ball and normalised.
Snapshot make_snapshot()
{
    std::mt19937 random(901u);
    const auto between = [&random](int low, int high) {
        return low + static_cast<int>(random() % static_cast<std::uint32_t>(high - low + 1));
    };
    const auto signed_unit = [&] { return static_cast<float>(between(-1000000, 1000000)) / 1000000.0f; };

    Snapshot snapshot{};
    for (Cube& cube : snapshot) {
        cube.x = between(-16383, 16383);
        cube.y = between(-16383, 16383);
        cube.z = between(0, 8191);
        float q[4];
        float norm2;
        do {
            for (float& component : q)
                component = signed_unit();
            norm2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
        } while (norm2 < 0.01f || norm2 > 1.0f);
        const float scale = 1.0f / std::sqrt(norm2);
        cube.orientation = {q[0] * scale, q[1] * scale, q[2] * scale, q[3] * scale};
        cube.interacting = between(0, 1) == 1;
    }
    return snapshot;
}

const Snapshot& sample_snapshot()
{
    static const Snapshot snapshot = make_snapshot();
    return snapshot;
}

std::vector<std::uint8_t> encoding_buffer() { return side_by_side::encoding_buffer(bitrep::max_bits<Snapshot>); }

const std::vector<std::uint8_t>& sample_bytes()
{
    static const std::vector<std::uint8_t> bytes = side_by_side::encoded(sample_snapshot());
    return bytes;
}

// ------------------------------------------------------ correctness, untimed

using side_by_side::check;

/// The same rotation within the 9-bit quantization (q and -q are the same).
bool same_rotation(const bitrep::quat<9>& a, const bitrep::quat<9>& b)
{
    const float dot = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    const float tolerance = 0.01f;
    const float sign = dot < 0.0f ? -1.0f : 1.0f;
    return std::fabs(a.x - sign * b.x) <= tolerance && std::fabs(a.y - sign * b.y) <= tolerance &&
           std::fabs(a.z - sign * b.z) <= tolerance && std::fabs(a.w - sign * b.w) <= tolerance;
}

void verify_reflected_equals_hand_written()
{
    const Snapshot& snapshot = sample_snapshot();
    std::vector<std::uint8_t> reflected = encoding_buffer();
    std::vector<std::uint8_t> hand_written = encoding_buffer();
    std::size_t reflected_size = 0;
    std::size_t hand_size = 0;
    check(bitrep::to_bytes(snapshot, std::span<std::uint8_t>(reflected), reflected_size).ok(), "reflected encode succeeds");
    check(hand::to_bytes(snapshot, hand_written, hand_size).ok(), "hand-written encode succeeds");
    reflected.resize(reflected_size);
    hand_written.resize(hand_size);
    check(reflected == hand_written, "reflected and hand-written encodings are identical bytes");
    check(reflected_size == (cube_count * 73 + 7) / 8, "73 bits per cube");

    Snapshot from_reflected{};
    Snapshot from_hand{};
    check(bitrep::from_bytes(hand_written, from_reflected).ok(), "reflected decode of hand-written bytes succeeds");
    check(hand::from_bytes(reflected, from_hand).ok(), "hand-written decode of reflected bytes succeeds");
    check(from_reflected == from_hand, "both decodes give bit-identical snapshots");
    for (std::size_t i = 0; i < cube_count; ++i) {
        const Cube& sent = snapshot[i];
        const Cube& received = from_reflected[i];
        check(received.x == sent.x && received.y == sent.y && received.z == sent.z &&
                  received.interacting == sent.interacting,
              "positions and flags round-trip exactly");
        check(same_rotation(received.orientation, sent.orientation), "orientations round-trip within 9-bit precision");
    }

    // Same refusals, same all-or-nothing: a truncated message fails with the
    // same code at the same bit and leaves both targets untouched.
    const Snapshot before = from_reflected;
    const std::span<const std::uint8_t> truncated(reflected.data(), reflected.size() - 3);
    const bitrep::status reflected_refusal = bitrep::from_bytes(truncated, from_reflected);
    const bitrep::status hand_refusal = hand::from_bytes(truncated, from_hand);
    check(!reflected_refusal.ok() && !hand_refusal.ok(), "truncated input is refused");
    check(reflected_refusal.code() == hand_refusal.code() && reflected_refusal.bit_offset() == hand_refusal.bit_offset(),
          "truncated input is refused with the same error at the same bit");
    check(from_reflected == before && from_hand == before, "a refused decode leaves the target untouched");

    // Same write-side range checks: a z below 0 and a non-unit quaternion.
    std::vector<std::uint8_t> scratch = encoding_buffer();
    std::size_t ignored = 0;
    const auto refused_alike = [&](const Snapshot& bad) {
        const bitrep::status r = bitrep::to_bytes(bad, std::span<std::uint8_t>(scratch), ignored);
        const bitrep::status h = hand::to_bytes(bad, scratch, ignored);
        return r.code() == bitrep::error::value_out_of_range && h.code() == r.code() && h.bit_offset() == r.bit_offset();
    };
    Snapshot below_range = snapshot;
    below_range[500].z = -1;
    check(refused_alike(below_range), "an out-of-range z is refused on write by both, at the same bit");
    Snapshot not_unit = snapshot;
    not_unit[600].orientation.w += 0.5f;
    check(refused_alike(not_unit), "a non-unit quaternion is refused on write by both, at the same bit");

    std::fprintf(stderr,
                 "cubes_bench: verified: %zu cubes -> %zu bytes (%.3f bytes/cube), reflected == hand-written bytes, "
                 "both decodes round-trip, same refusals\n",
                 cube_count, reflected_size, static_cast<double>(reflected_size) / static_cast<double>(cube_count));
}

// ---------------------------------------------------------------- benchmarks

struct hand_written {
    [[gnu::noinline]] static bitrep::status to_bytes(const Snapshot& snapshot, std::span<std::uint8_t> buffer, std::size_t& written)
    {
        return hand::to_bytes(snapshot, buffer, written);
    }
    [[gnu::noinline]] static bitrep::status from_bytes(std::span<const std::uint8_t> bytes, Snapshot& out)
    {
        return hand::from_bytes(bytes, out);
    }
};

} // namespace

int main(int argc, char** argv)
{
    verify_reflected_equals_hand_written();

    using side_by_side::decode;
    using side_by_side::encode;
    using reflected = side_by_side::reflected<Snapshot>;
    const auto encode_with = [](auto codec) {
        return [](benchmark::State& state) { encode<decltype(codec)>(state, sample_snapshot(), cube_count); };
    };
    const auto decode_with = [](auto codec) {
        return [](benchmark::State& state) {
            auto target = std::make_unique<Snapshot>(); // 28 KiB: off the stack
            decode<decltype(codec)>(state, sample_bytes(), *target, cube_count);
        };
    };
    benchmark::RegisterBenchmark("Cubes/Encode/Reflected", encode_with(reflected{}))->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("Cubes/Encode/HandWritten", encode_with(hand_written{}))->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("Cubes/Decode/Reflected", decode_with(reflected{}))->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("Cubes/Decode/HandWritten", decode_with(hand_written{}))->Unit(benchmark::kMicrosecond);

    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
