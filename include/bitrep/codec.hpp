// The customization point of the inlined path, and the entry point that
// dispatches to it: codec<T> says how a kind of value maps onto the stream
// primitives, and bitrep::serialize(stream, value) calls it. Each kind's
// codec lives in codecs/ and holds its serialize (for write, read and
// measure alike) and its max_bits and min_bits bounds; codecs of composite
// kinds call the entry point for their parts, so this header is all they
// include of it (serialize.hpp includes every codec after it). The engine
// holds every type's bounds too: bitrep::max_bits<T> is its entry's.
#pragma once

#include <cstddef>
#include <limits>
#include <string_view>
#include <type_traits>

#include <bitrep/detail/portability.hpp>

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

/// The one entry point: serializes value through any stream. Hand-written
/// hooks call it for their members, so they share every encoding. A const
/// value can be written or measured, never read into.
template <class Stream, class T>
[[nodiscard]] BITREP_ALWAYS_INLINE bool serialize(Stream& stream, T& value)
{
    using plain = std::remove_cv_t<T>;
    static_assert(!(std::is_const_v<T> && Stream::is_reading), "bitrep::serialize: cannot read into a const value");
    return codec<plain>::serialize(stream, const_cast<plain&>(value));
}

/// serialize() that names the field in the error path when it fails; for
/// hand-written hooks.
template <class Stream, class T>
[[nodiscard]] BITREP_ALWAYS_INLINE bool serialize_field(Stream& stream, std::string_view name, T& value)
{
    if (serialize(stream, value)) [[likely]]
        return true;
    stream.enter_member(name);
    return false;
}

} // namespace bitrep
