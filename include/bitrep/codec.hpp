// The customization point of the inlined path: codec<T> says how a kind of
// value maps onto the stream primitives (serialize.hpp holds the entry point
// that dispatches to it). Each kind's codec lives in codecs/ and holds its
// serialize (for write, read and measure alike) and its max_bits and
// min_bits bounds. The engine (engine/entries.hpp) holds every type's bounds
// too: bitrep::max_bits<T> is its entry's.
#pragma once

#include <cstddef>
#include <limits>
#include <type_traits>

namespace bitrep {

/// Specialized per kind in codecs/; the primary template (codecs/classes.hpp)
/// covers classes: serialization hooks, described classes and aggregates.
template <class T>
struct codec;

/// The bound of a value with none: a hook type that declares no
/// `static constexpr std::size_t bitrep_max_bits`, and what holds one.
inline constexpr std::size_t unbounded_bits = std::numeric_limits<std::size_t>::max();

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
