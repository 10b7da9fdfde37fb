// 901-cube snapshot: the shape of the classic snapshot-compression demo
// (positions in 1/512 m, smallest-three orientation, an interacting flag),
// one message per snapshot, encoded and decoded two ways side by side:
//
//   Reflected   bitrep::to_bytes(snapshot, buffer, written) / bitrep::from_bytes
//   HandWritten separate encode and decode functions written directly against
//               bitrep::bit_writer / bit_reader, the same checks and the same
//               all-or-nothing decode
//
// Before timing anything the binary checks that both produce identical bytes
// (but for bitrep's re-encoding guarantee, below) and that both decodes
// round-trip; it aborts if not.
#include <benchmark/benchmark.h>

#include <bitrep/bitrep.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
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
// What a careful engineer writes by hand directly against the bit writer and
// reader, without reflection and without bitrep's streams: one encode and one
// decode function per struct, one write_bits / read_bits per wire field, the
// range checks bitrep makes on write, the refusals a conforming reader makes
// on read, and from_bytes' all-or-nothing decode. The only bitrep pieces used
// are bit_writer / bit_reader, bits_required and the quantizer (with its
// keep_rounded float32 barrier). Errors come back as a bitrep::status with
// the same code and bit as bitrep's, so the checks before timing can compare
// the two.
//
// Every helper is [[gnu::always_inline]], as bitrep forces its own thin
// layers inline (BITREP_ALWAYS_INLINE); here both compilers inline them
// anyway. The failure record is an object of its own, so the cold path never
// takes the writer's or the reader's address.
namespace hand {

using bitrep::bit_reader;
using bitrep::bit_writer;
using bitrep::error;

/// The smallest three components of a unit quaternion lie in +-1/sqrt(2).
constexpr float component_limit = 0.707106781f;
constexpr auto component_quantizer = bitrep::quantizer::from_bits(-component_limit, component_limit, 9);

using side_by_side::failure;

// ------------------------------------------------------------------ encode

/// The standard's int(value, Min, Max): the offset value - Min, in unsigned
/// arithmetic so that a value below Min wraps above the span and the one
/// check refuses both sides.
template <int Min, int Max>
[[gnu::always_inline]] inline bool put_ranged(bit_writer& out, failure& why, int value)
{
    constexpr auto span = static_cast<std::uint32_t>(Max) - static_cast<std::uint32_t>(Min);
    constexpr int bits = bitrep::bits_required(Min, Max);
    const std::uint32_t offset = static_cast<std::uint32_t>(value) - static_cast<std::uint32_t>(Min);
    if (offset > span) [[unlikely]]
        return why.set(error::value_out_of_range, out.bits_written(), "value outside its declared range");
    if (!out.write_bits(offset, bits)) [[unlikely]]
        return why.set(error::buffer_too_small, out.bits_written(), "output buffer is full");
    return true;
}

/// Smallest three: the index of the largest component (2 bits), the sign
/// folded so that the largest is positive, the other three quantized.
[[gnu::always_inline]] inline bool put_orientation(bit_writer& out, failure& why, const bitrep::quat<9>& q)
{
    float c[4] = {q.x, q.y, q.z, q.w};
    const std::size_t start = out.bits_written();
    const float norm = c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3];
    if (!(std::fabs(norm - 1.0f) <= 0.01f)) [[unlikely]] // also refuses NaN and infinity
        return why.set(error::value_out_of_range, start, "quaternion is not unit length (|q|^2 off by more than 1%)");
    std::uint32_t largest = 0;
    for (std::uint32_t i = 1; i < 4; ++i)
        if (std::fabs(c[i]) > std::fabs(c[largest]))
            largest = i;
    if (c[largest] < 0.0f)
        for (float& component : c)
            component = -component; // q and -q are the same rotation
    if (!out.write_bits(largest, 2)) [[unlikely]]
        return why.set(error::buffer_too_small, start, "output buffer is full");
    for (std::uint32_t i = 0; i < 4; ++i)
        if (i != largest && !out.write_bits(component_quantizer.quantize(c[i]), component_quantizer.bits)) [[unlikely]]
            return why.set(error::buffer_too_small, start, "output buffer is full");
    return true;
}

[[gnu::always_inline]] inline bool put_cube(bit_writer& out, failure& why, const Cube& cube)
{
    if (!put_ranged<-16383, 16383>(out, why, cube.x) || !put_ranged<-16383, 16383>(out, why, cube.y) ||
        !put_ranged<0, 8191>(out, why, cube.z) || !put_orientation(out, why, cube.orientation))
        return false;
    if (!out.write_bits(cube.interacting ? 1u : 0u, 1)) [[unlikely]]
        return why.set(error::buffer_too_small, out.bits_written(), "output buffer is full");
    return true;
}

/// Mirrors bitrep::to_bytes(value, buffer, written). A std::array has a
/// fixed count, so nothing but the cubes goes on the wire.
bitrep::status to_bytes(const Snapshot& snapshot, std::span<std::uint8_t> buffer, std::size_t& bytes_written)
{
    bit_writer out(buffer);
    failure why;
    for (const Cube& cube : snapshot) {
        if (!put_cube(out, why, cube)) [[unlikely]] {
            bytes_written = 0;
            return why.to_status("Snapshot");
        }
    }
    out.flush();
    bytes_written = out.bytes_written();
    return {};
}

// ------------------------------------------------------------------ decode

template <int Min, int Max>
[[gnu::always_inline]] inline bool get_ranged(bit_reader& in, failure& why, int& value)
{
    constexpr auto span = static_cast<std::uint32_t>(Max) - static_cast<std::uint32_t>(Min);
    constexpr int bits = bitrep::bits_required(Min, Max);
    const std::size_t start = in.bits_read();
    std::uint32_t offset;
    if (!in.read_bits(offset, bits)) [[unlikely]]
        return why.set(error::truncated, start, "input ends before the value");
    if (offset > span) [[unlikely]]
        return why.set(error::out_of_range, start, "decoded value above the range's maximum");
    value = static_cast<int>(static_cast<std::uint32_t>(Min) + offset);
    return true;
}

/// Rebuilds the largest component from the unit norm, summing the squares
/// with one float32 rounding per step so that every receiver gets the same
/// float; sent components whose squares sum past 1 are forged and refused.
[[gnu::always_inline]] inline bool get_orientation(bit_reader& in, failure& why, bitrep::quat<9>& q)
{
    using bitrep::detail::keep_rounded;
    const std::size_t start = in.bits_read();
    std::uint32_t largest;
    if (!in.read_bits(largest, 2)) [[unlikely]]
        return why.set(error::truncated, start, "input ends before the value");
    float c[4] = {};
    float sum = 0.0f;
    for (std::uint32_t i = 0; i < 4; ++i) {
        if (i == largest)
            continue;
        std::uint32_t quantum;
        if (!in.read_bits(quantum, component_quantizer.bits)) [[unlikely]]
            return why.set(error::truncated, start, "input ends before the value");
        if (quantum > component_quantizer.max_integer) [[unlikely]]
            return why.set(error::out_of_range, start, "quantum above the range's maximum");
        c[i] = component_quantizer.dequantize(quantum);
        sum = keep_rounded(sum + keep_rounded(c[i] * c[i]));
    }
    if (sum > 1.0f) [[unlikely]]
        return why.set(error::out_of_range, start, "smallest-three components exceed unit length");
    c[largest] = std::sqrt(1.0f - sum);
    q = bitrep::quat<9>{c[0], c[1], c[2], c[3]};
    return true;
}

[[gnu::always_inline]] inline bool get_cube(bit_reader& in, failure& why, Cube& cube)
{
    if (!get_ranged<-16383, 16383>(in, why, cube.x.get()) || !get_ranged<-16383, 16383>(in, why, cube.y.get()) ||
        !get_ranged<0, 8191>(in, why, cube.z.get()) || !get_orientation(in, why, cube.orientation))
        return false;
    std::uint32_t bit;
    if (!in.read_bits(bit, 1)) [[unlikely]]
        return why.set(error::truncated, in.bits_read(), "input ends before the value");
    cube.interacting = bit != 0;
    return true;
}

/// Decodes straight into `target`, refusing whole trailing bytes; a
/// refused message leaves it half written.
bitrep::status decode_into(std::span<const std::uint8_t> bytes, Snapshot& target)
{
    bit_reader in(bytes);
    failure why;
    for (Cube& cube : target)
        if (!get_cube(in, why, cube)) [[unlikely]]
            return why.to_status("Snapshot");
    const std::size_t used_bytes = (in.bits_read() + 7) / 8;
    if (used_bytes != bytes.size()) [[unlikely]]
        return bitrep::status(error::trailing_data, used_bytes * 8, "Snapshot", "whole bytes left over after the value");
    return {};
}

/// Mirrors bitrep::from_bytes: decode into a copy of the target, and move
/// into the target only on success.
bitrep::status from_bytes(std::span<const std::uint8_t> bytes, Snapshot& out)
{
    Snapshot decoded(out);
    const bitrep::status result = decode_into(bytes, decoded);
    if (result) [[likely]]
        out = std::move(decoded);
    return result;
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
    check(reflected_size == hand_size && reflected_size == (cube_count * 73 + 7) / 8, "73 bits per cube");

    // The same bytes, cube by cube, except where bitrep keeps its guarantee
    // that a decoded value encodes to the bytes it came from: near a tie of a
    // quaternion's two largest components the hand-written code is not such
    // a fixed point, and bitrep sends one a quantum away (docs/formats/wire-format.md
    // section 3). The baseline stays the code a careful engineer writes
    // without that guarantee, so its cost shows in the timings.
    Snapshot hand_decoded{};
    check(hand::from_bytes(hand_written, hand_decoded).ok(), "hand-written decode of hand-written bytes succeeds");
    std::vector<std::uint8_t> hand_again = encoding_buffer();
    std::size_t hand_again_size = 0;
    check(hand::to_bytes(hand_decoded, hand_again, hand_again_size).ok(), "hand-written re-encode succeeds");
    bitrep::bit_reader r(reflected), h(hand_written), a(std::span<const std::uint8_t>(hand_again.data(), hand_again_size));
    std::size_t moved = 0;
    for (std::size_t i = 0; i < cube_count; ++i) {
        bool cube_same = true;
        bool hand_stable = true;
        for (int part : {32, 32, 9}) {
            std::uint32_t x = 0, y = 0, z = 0;
            check(r.read_bits(x, part) && h.read_bits(y, part) && a.read_bits(z, part), "73 bits per cube");
            cube_same = cube_same && x == y;
            hand_stable = hand_stable && y == z;
        }
        check(cube_same || !hand_stable, "reflected and hand-written encodings are identical bytes where the hand-written one is stable");
        moved += cube_same ? 0 : 1;
    }

    Snapshot from_reflected{};
    Snapshot from_hand{};
    for (const auto* bytes : {&reflected, &hand_written}) {
        check(bitrep::from_bytes(*bytes, from_reflected).ok(), "reflected decode succeeds on both encodings");
        check(hand::from_bytes(*bytes, from_hand).ok(), "hand-written decode succeeds on both encodings");
        check(from_reflected == from_hand, "both decodes give bit-identical snapshots");
    }
    check(bitrep::from_bytes(reflected, from_reflected).ok() && hand::from_bytes(reflected, from_hand).ok(),
          "both decode the reflected bytes");
    std::vector<std::uint8_t> reflected_again = encoding_buffer();
    std::size_t reflected_again_size = 0;
    check(bitrep::to_bytes(from_reflected, std::span<std::uint8_t>(reflected_again), reflected_again_size).ok() &&
              std::equal(reflected.begin(), reflected.end(), reflected_again.begin()),
          "the reflected encoding of the decoded snapshot is the reflected bytes");
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

    // Same write-side checks: each bad value is refused by both sides with the
    // same code at the same bit.
    std::vector<std::uint8_t> scratch = encoding_buffer();
    std::size_t ignored = 0;
    const auto check_write_refusal = [&](auto change, bitrep::error expected, const char* what) {
        Snapshot bad = snapshot;
        change(bad);
        const bitrep::status r = bitrep::to_bytes(bad, std::span<std::uint8_t>(scratch), ignored);
        const bitrep::status h = hand::to_bytes(bad, scratch, ignored);
        check(side_by_side::refused_alike(r, h, expected), what);
    };
    check_write_refusal([](Snapshot& s) { s[500].z = -1; }, bitrep::error::value_out_of_range,
                        "an out-of-range z is refused on write by both, at the same bit");
    check_write_refusal([](Snapshot& s) { s[300].x = 16384; }, bitrep::error::value_out_of_range,
                        "an out-of-range x is refused on write by both, at the same bit");
    check_write_refusal([](Snapshot& s) { s[600].orientation.w += 0.5f; }, bitrep::error::value_out_of_range,
                        "a non-unit quaternion is refused on write by both, at the same bit");
    check_write_refusal([](Snapshot& s) { s[700].orientation.y = std::numeric_limits<float>::quiet_NaN(); },
                        bitrep::error::value_out_of_range, "a NaN quaternion is refused on write by both, at the same bit");
    {
        const std::span<std::uint8_t> small(scratch.data(), reflected_size - 3);
        const bitrep::status r = bitrep::to_bytes(snapshot, small, ignored);
        const bitrep::status h = hand::to_bytes(snapshot, small, ignored);
        check(side_by_side::refused_alike(r, h, bitrep::error::buffer_too_small),
              "a buffer 3 bytes short is refused by both, at the same bit");
    }

    // Same read-side refusals, on forged variants of the sample bytes. Cube 0
    // lies at bits 0-72: x 0-14, y 15-29, z 30-42, orientation 43-71 (the
    // largest component's index 43-44, then three 9-bit quanta), flag 72.
    const auto check_read_refusal = [&](auto forge, bitrep::error expected, std::size_t bit, const char* what) {
        std::vector<std::uint8_t> forged = reflected;
        forge(forged);
        auto r_target = std::make_unique<Snapshot>(snapshot);
        auto h_target = std::make_unique<Snapshot>(snapshot);
        const bitrep::status r = bitrep::from_bytes(forged, *r_target);
        const bitrep::status h = hand::from_bytes(forged, *h_target);
        check(side_by_side::refused_alike(r, h, expected) && r.bit_offset() == bit, what);
        check(*r_target == snapshot && *h_target == snapshot, "a refused decode leaves the target untouched");
    };
    using side_by_side::overwrite_bits;
    using bytes_t = std::vector<std::uint8_t>;
    check_read_refusal([](bytes_t& b) { overwrite_bits(b, 0, 15, 32767); }, bitrep::error::out_of_range, 0,
                       "an x offset above the span is refused on read by both");
    check_read_refusal([](bytes_t& b) { overwrite_bits(b, 54, 9, 511); }, bitrep::error::out_of_range, 43,
                       "a component quantum above 510 is refused on read by both");
    check_read_refusal(
        [](bytes_t& b) {
            for (std::size_t bit = 45; bit < 72; bit += 9)
                overwrite_bits(b, bit, 9, 510);
        },
        bitrep::error::out_of_range, 43, "smallest-three components past unit length are refused on read by both");
    check_read_refusal([](bytes_t& b) { b.push_back(0); }, bitrep::error::trailing_data, reflected_size * 8,
                       "a whole trailing byte is refused on read by both");

    std::fprintf(stderr,
                 "cubes_bench: verified: %zu cubes -> %zu bytes (%.3f bytes/cube), reflected == hand-written bytes but "
                 "for %zu near-tie orientations bitrep sends a quantum away so that they re-encode to themselves, "
                 "both decodes round-trip, same refusals\n",
                 cube_count, reflected_size, static_cast<double>(reflected_size) / static_cast<double>(cube_count), moved);
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

/// The hand-written decoder reading straight into the caller's object, with
/// no all-or-nothing copy (the baseline decoder<T> is held to: the Cube is already plain
/// integers, floats and a bool, so it needs no other structs).
struct hand_written_in_place {
    [[gnu::noinline]] static bitrep::status from_bytes(std::span<const std::uint8_t> bytes, Snapshot& out)
    {
        return hand::decode_into(bytes, out);
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
            static const auto expected = [] {
                auto decoded = std::make_unique<Snapshot>();
                if (!bitrep::from_bytes(sample_bytes(), *decoded))
                    std::abort();
                return decoded;
            }();
            if (*target != *expected)
                state.SkipWithError("decode did not reproduce the snapshot");
        };
    };
    benchmark::RegisterBenchmark("Cubes/Encode/Reflected", encode_with(reflected{}))->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("Cubes/Encode/HandWritten", encode_with(hand_written{}))->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("Cubes/Encode/Inlined", encode_with(side_by_side::inlined<Snapshot>{}))
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("Cubes/Decode/Reflected", decode_with(reflected{}))->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("Cubes/Decode/HandWritten", decode_with(hand_written{}))->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("Cubes/Decode/Inlined", decode_with(side_by_side::inlined<Snapshot>{}))
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("Cubes/Decode/ReflectedDecoder", decode_with(side_by_side::reflected_decoder<Snapshot>{}))
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("Cubes/Decode/HandWrittenInPlace", decode_with(hand_written_in_place{}))
        ->Unit(benchmark::kMicrosecond);

    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
