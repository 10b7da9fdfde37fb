// The customization point: codec<T> says how a kind of value maps onto the
// stream primitives (serialize.hpp holds the entry point that dispatches to
// it). Each kind's codec lives in codecs/ and holds every facet of that kind
// (serialize for write, read and measure alike; its max_bits and min_bits
// bounds; describe, its entry in a save file's schema), so the facets can
// never drift apart.
#pragma once

#include <cstddef>
#include <limits>
#include <type_traits>

namespace bitrep {

/// Specialized per kind in codecs/; the primary template (codecs/classes.hpp)
/// covers classes: serialization hooks, described classes and aggregates.
template <class T>
struct codec;

/// An upper bound, in bits, of any value of T, following the standard's
/// measure rule (7 bits per alignment). unbounded_bits for hook types that
/// declare no `static constexpr std::size_t bitrep_max_bits`.
inline constexpr std::size_t unbounded_bits = std::numeric_limits<std::size_t>::max();

template <class T>
inline constexpr std::size_t max_bits = codec<T>::max_bits();

namespace detail {
constexpr std::size_t add_bits(std::size_t a, std::size_t b) noexcept
{
    return a > unbounded_bits - b ? unbounded_bits : a + b;
}
constexpr std::size_t multiply_bits(std::size_t count, std::size_t each) noexcept
{
    return each != 0 && count > unbounded_bits / each ? unbounded_bits : count * each;
}

template <class T>
inline constexpr bool always_false = false;
} // namespace detail

} // namespace bitrep
