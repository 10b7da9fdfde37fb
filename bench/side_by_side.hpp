// What the benchmarks share: the reflected side's entry points, the timed
// loops, the untimed checks and per-object reporting. Each benchmark's
// hand-written side is complete in its own file (its `hand` namespace),
// written against bitrep::bit_writer / bit_reader alone.
#pragma once

#include <benchmark/benchmark.h>

#include <bitrep/bitrep.hpp>

#include "allocation_counter.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <span>
#include <vector>

namespace side_by_side {

/// The hand-written side's record of the first thing that went wrong: its
/// code, the bit where the failing field started, and a short description.
struct failure {
    bitrep::error code = bitrep::error::none;
    std::size_t bit = 0;
    const char* detail = "";

    [[gnu::cold]] bool set(bitrep::error c, std::size_t at, const char* what) noexcept
    {
        code = c;
        bit = at;
        detail = what;
        return false;
    }
    bitrep::status to_status(const char* root) const { return bitrep::status(code, bit, root, detail); }
};

// The entry points stay out of line so that a profile
// (bench/count_instructions.sh) sees one function per side with its whole
// cost, allocation included; both sides pay the same call.
template <class T>
struct reflected {
    [[gnu::noinline]] static bitrep::status to_bytes(const T& value, std::span<std::uint8_t> buffer, std::size_t& written)
    {
        return bitrep::to_bytes(value, buffer, written);
    }
    [[gnu::noinline]] static bitrep::status from_bytes(std::span<const std::uint8_t> bytes, T& out)
    {
        return bitrep::from_bytes(bytes, out);
    }
};

/// The same through T's inlined codec (what bitrep::inline_codec<T> opts a
/// type into), for the same type in the same binary.
template <class T>
struct inlined {
    using path = std::integral_constant<bitrep::detail::codec_path, bitrep::detail::codec_path::inlined>;
    [[gnu::noinline]] static bitrep::status to_bytes(const T& value, std::span<std::uint8_t> buffer, std::size_t& written)
    {
        return bitrep::detail::to_bytes_by<path::value>(value, buffer, written);
    }
    [[gnu::noinline]] static bitrep::status from_bytes(std::span<const std::uint8_t> bytes, T& out)
    {
        return bitrep::detail::from_bytes_by<path::value>(bytes, out);
    }
};

/// The reflected decode through bitrep::decoder, which keeps its working copy
/// between messages: the all-or-nothing guarantee without allocating.
template <class T>
struct reflected_decoder {
    [[gnu::noinline]] static bitrep::status from_bytes(std::span<const std::uint8_t> bytes, T& out)
    {
        static bitrep::decoder<T> reused;
        return reused.decode(bytes, out);
    }
};

inline std::vector<std::uint8_t> encoding_buffer(std::size_t max_bits) { return std::vector<std::uint8_t>((max_bits + 7) / 8); }

/// value's encoding at exactly its meaningful length (from_bytes refuses more).
template <class T>
std::vector<std::uint8_t> encoded(const T& value)
{
    std::vector<std::uint8_t> buffer = encoding_buffer(bitrep::max_bits<T>);
    std::size_t written = 0;
    if (!bitrep::to_bytes(value, std::span<std::uint8_t>(buffer), written))
        std::abort();
    buffer.resize(written);
    return buffer;
}

/// Untimed correctness checks run before any benchmark: a failure aborts.
inline void check(bool condition, const char* what)
{
    if (!condition) {
        std::fprintf(stderr, "CHECK FAILED: %s\n", what);
        std::abort();
    }
}

/// Both sides refused, with the expected code, and at the same bit.
inline bool refused_alike(const bitrep::status& reflected, const bitrep::status& hand_written, bitrep::error expected)
{
    return reflected.code() == expected && hand_written.code() == expected &&
           reflected.bit_offset() == hand_written.bit_offset();
}

/// Overwrites `count` bits of an encoding from stream bit `bit` on (stream
/// bit i is bit i % 8 of byte i / 8), to forge inputs a reader must refuse.
inline void overwrite_bits(std::vector<std::uint8_t>& bytes, std::size_t bit, int count, std::uint32_t value)
{
    for (int i = 0; i < count; ++i, ++bit) {
        const auto mask = static_cast<std::uint8_t>(1u << (bit % 8));
        if ((value >> i) & 1u)
            bytes[bit / 8] = static_cast<std::uint8_t>(bytes[bit / 8] | mask);
        else
            bytes[bit / 8] = static_cast<std::uint8_t>(bytes[bit / 8] & ~mask);
    }
}

inline void report_per_object(benchmark::State& state, std::size_t objects, std::size_t bytes)
{
    const auto count = static_cast<double>(objects);
    state.SetItemsProcessed(state.iterations() * static_cast<benchmark::IterationCount>(objects));
    // CPU seconds per object (shown in ns): the rate counter inverted.
    state.counters["time_per_object"] =
        benchmark::Counter(count, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
    state.counters["bytes_per_object"] = benchmark::Counter(static_cast<double>(bytes) / count);
}

/// Encodes value into a reused caller buffer every iteration.
template <class Codec, class T>
void encode(benchmark::State& state, const T& value, std::size_t objects)
{
    std::vector<std::uint8_t> buffer = encoding_buffer(bitrep::max_bits<T>);
    std::size_t written = 0;
    bitrep_bench::allocation_meter allocations;
    for (auto _ : state) {
        bool ok = Codec::to_bytes(value, std::span<std::uint8_t>(buffer), written).ok();
        benchmark::DoNotOptimize(ok);
        benchmark::DoNotOptimize(written);
        benchmark::ClobberMemory(); // the buffer's bytes count as used
    }
    allocations.report(state);
    report_per_object(state, objects, written);
}

/// Decodes bytes into target (reused, as a receive loop reuses its object).
template <class Codec, class T>
void decode(benchmark::State& state, const std::vector<std::uint8_t>& bytes, T& target, std::size_t objects)
{
    bitrep_bench::allocation_meter allocations;
    for (auto _ : state) {
        bool ok = Codec::from_bytes(bytes, target).ok();
        benchmark::DoNotOptimize(ok);
        benchmark::ClobberMemory();
    }
    allocations.report(state);
    report_per_object(state, objects, bytes.size());
}

} // namespace side_by_side
