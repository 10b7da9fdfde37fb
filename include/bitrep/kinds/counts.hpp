// The params of the kinds that are a number of things: a bound (a
// bounded_string's characters, a bounded_vector's elements, a bounded_map's
// entries), or a number fixed by the type (a std::array's elements, a
// std::bitset's bits, a std::variant's alternatives).
#pragma once

#include <cstdint>

#include <bitrep/wire/bits.hpp>

namespace bitrep {

/// string, vector, bit_vector, map: the most characters, elements or entries.
struct bounded_params {
    std::uint64_t max;
};

/// array: its elements; bitset: its bits; variant: its alternatives.
struct fixed_count_params {
    std::uint64_t count;
};

namespace detail {
/// The bits of a string's length: the standard's string sends it in
/// bits_required(0, buffer_size - 1) with buffer_size = max_length + 1.
constexpr int string_length_bits(std::uint64_t max_length) noexcept { return bits_required_for_span(max_length); }
} // namespace detail

} // namespace bitrep
