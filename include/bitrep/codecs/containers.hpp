// bounded_vector<T, N> (size, then elements), std::array<T, N> (elements)
// and std::optional<T> (presence bit, then the value).
#pragma once

#include <bitrep/annotations/bounded_vector.hpp>
#include <bitrep/codec.hpp>
#include <bitrep/detail/counts.hpp>
#include <bitrep/detail/portability.hpp>
#include <bitrep/detail/resize.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/bits.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

namespace bitrep {

namespace detail {
/// Elements held as bits (std::vector<bool>'s, which hands out proxies),
/// each through a bool: get(i) is only called when writing and set(i, bit)
/// only when reading, so a written value may be const (in read-only memory,
/// or read by another thread). An element's failure names its index.
template <class Stream, class Get, class Set>
BITREP_ALWAYS_INLINE bool serialize_bit_elements(Stream& stream, std::size_t count, Get&& get, Set&& set)
{
    for (std::size_t i = 0; i < count; ++i) {
        bool bit = false;
        if constexpr (!Stream::is_reading)
            bit = get(i);
        if (!stream.serialize_bool(bit)) [[unlikely]] {
            stream.enter_index(i);
            return false;
        }
        if constexpr (Stream::is_reading)
            set(i, bit);
    }
    return true;
}

/// Elements one after another; an element's failure names its index.
/// Walked by iterator (the index is only worked out on failure), as a loop
/// written by hand would be; bools as bits (above).
template <class Stream, class Container>
BITREP_ALWAYS_INLINE bool serialize_elements(Stream& stream, Container& elements)
{
    using element = typename Container::value_type;
    if constexpr (std::is_same_v<element, bool>) {
        return serialize_bit_elements(
            stream, elements.size(), [&elements](std::size_t i) -> bool { return elements[i]; },
            [&elements](std::size_t i, bool bit) { elements[i] = bit; });
    } else {
        const auto first = elements.begin();
        const auto last = elements.end();
        for (auto it = first; it != last; ++it) {
            if (!bitrep::serialize(stream, *it)) [[unlikely]] {
                stream.enter_index(static_cast<std::size_t>(it - first));
                return false;
            }
        }
        return true;
    }
}

/// A vector's element count in [0, max] (a larger one is refused on write,
/// saying `refusal`).
template <class Stream>
BITREP_ALWAYS_INLINE bool serialize_count(Stream& stream, std::uint64_t& count, std::uint64_t max,
                                          std::string_view refusal = "vector longer than its bound")
{
    if constexpr (Stream::is_writing) {
        if (count > max) [[unlikely]]
            return stream.fail(error::value_out_of_range, stream.position(), refusal);
    }
    return stream.serialize_ranged_offset(count, max);
}

/// The count, and when reading the check that the rest of the input holds
/// that many elements of at least `each_min_bits`, before any is made.
template <class Stream>
BITREP_ALWAYS_INLINE bool serialize_vector_count(Stream& stream, std::uint64_t& count, std::uint64_t max,
                                                 std::uint64_t each_min_bits,
                                                 std::string_view refusal = "vector longer than its bound")
{
    if (!serialize_count(stream, count, max, refusal))
        return false;
    if constexpr (Stream::is_reading)
        return count_fits_input(stream, count, each_min_bits);
    else
        return true;
}

} // namespace detail

template <class T, std::size_t MaxSize>
struct codec<bounded_vector<T, MaxSize>> {
    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, bounded_vector<T, MaxSize>& value)
    {
        std::uint64_t size = value.size();
        if (!detail::serialize_vector_count(stream, size, MaxSize, codec<T>::min_bits()))
            return false;
        if constexpr (Stream::is_reading)
            detail::resize_for_decode(value, static_cast<std::size_t>(size));
        return detail::serialize_elements(stream, value);
    }
    static constexpr std::size_t max_bits()
    {
        return detail::add_bits(static_cast<std::size_t>(detail::count_bits(MaxSize)),
                                detail::multiply_bits(MaxSize, codec<T>::max_bits()));
    }
    static constexpr std::size_t min_bits() { return static_cast<std::size_t>(detail::count_bits(MaxSize)); }
};

template <class T, std::size_t N>
struct codec<std::array<T, N>> {
    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, std::array<T, N>& value)
    {
        return detail::serialize_elements(stream, value);
    }
    static constexpr std::size_t max_bits() { return detail::multiply_bits(N, codec<T>::max_bits()); }
    static constexpr std::size_t min_bits() { return detail::multiply_bits(N, codec<T>::min_bits()); }
};

namespace detail {
/// An optional's presence bit; reading resets the optional or makes sure it
/// holds a value to read into. `present` says which.
template <class Stream, class T>
BITREP_ALWAYS_INLINE bool serialize_presence(Stream& stream, std::optional<T>& value, bool& present)
{
    present = value.has_value();
    if (!stream.serialize_bool(present))
        return false;
    if constexpr (Stream::is_reading) {
        if (!present)
            value.reset();
        else if (!value)
            value.emplace();
    }
    return true;
}
} // namespace detail

template <class T>
struct codec<std::optional<T>> {
    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, std::optional<T>& value)
    {
        bool present = false;
        return detail::serialize_presence(stream, value, present) && (!present || bitrep::serialize(stream, *value));
    }
    static constexpr std::size_t max_bits() { return detail::add_bits(1, codec<T>::max_bits()); }
    static constexpr std::size_t min_bits() { return 1; }
};

} // namespace bitrep
