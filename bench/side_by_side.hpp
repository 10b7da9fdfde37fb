// What the benchmarks share: bitrep's framing around a hand-written
// serialize function (so the hand-written side differs from the reflected one
// only in how fields are visited), the reflected side's entry points, the
// timed loops, and per-object reporting.
#pragma once

#include <benchmark/benchmark.h>

#include <bitrep/bitrep.hpp>

#include "allocation_counter.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <utility>
#include <vector>

namespace side_by_side {

/// Mirrors bitrep::to_bytes(value, buffer, written).
template <class T, class Serialize>
bitrep::status hand_to_bytes(Serialize serialize, const char* root, const T& value, std::span<std::uint8_t> buffer,
                             std::size_t& bytes_written)
{
    bitrep::write_stream stream(buffer);
    if (!serialize(stream, const_cast<T&>(value))) [[unlikely]] {
        bytes_written = 0;
        return stream.to_status(root);
    }
    bytes_written = stream.flush();
    return {};
}

/// Mirrors bitrep::from_bytes: decode into a copy of the target, refuse
/// whole trailing bytes, and move into the target only on success.
template <class T, class Serialize>
bitrep::status hand_from_bytes(Serialize serialize, const char* root, std::span<const std::uint8_t> bytes, T& out)
{
    T decoded(out);
    bitrep::read_stream stream(bytes);
    if (!serialize(stream, decoded)) [[unlikely]]
        return stream.to_status(root);
    const std::size_t used_bytes = (stream.bit_position() + 7) / 8;
    if (used_bytes != bytes.size()) [[unlikely]]
        return bitrep::status(bitrep::error::trailing_data, used_bytes * 8, root, "whole bytes left over after the value");
    out = std::move(decoded);
    return {};
}

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
