// bounded_vector<T, N> (size, then elements), std::array<T, N> (elements)
// and std::optional<T> (presence bit, then the value).
#pragma once

#include <bitrep/annotations/bounded_vector.hpp>
#include <bitrep/codec.hpp>
#include <bitrep/detail/counts.hpp>
#include <bitrep/detail/inline.hpp>
#include <bitrep/detail/resize.hpp>
#include <bitrep/serialize.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/bits.hpp>

#include <array>
#include <cstdint>
#include <optional>

namespace bitrep {

namespace detail {
/// Elements one after another; an element's failure names its index.
/// Walked by iterator (the index is only worked out on failure), as a loop
/// written by hand would be. std::vector<bool> hands out proxies, so its
/// elements go through a bool, stored back only when reading: a written
/// value may be const (in read-only memory, or read by another thread).
template <class Stream, class Container>
BITREP_ALWAYS_INLINE bool serialize_elements(Stream& stream, Container& elements)
{
    using element = typename Container::value_type;
    const auto first = elements.begin();
    const auto last = elements.end();
    for (auto it = first; it != last; ++it) {
        bool ok;
        if constexpr (std::is_same_v<element, bool>) {
            bool bit = Stream::is_reading ? false : static_cast<bool>(*it);
            ok = stream.serialize_bool(bit);
            if constexpr (Stream::is_reading)
                *it = bit;
        } else {
            ok = bitrep::serialize(stream, *it);
        }
        if (!ok) [[unlikely]] {
            stream.enter_index(static_cast<std::size_t>(it - first));
            return false;
        }
    }
    return true;
}

/// A vector's element count in [0, max].
template <class Stream>
BITREP_ALWAYS_INLINE bool serialize_count(Stream& stream, std::uint64_t& count, std::uint64_t max)
{
    if constexpr (Stream::is_writing) {
        if (count > max) [[unlikely]]
            return stream.fail(error::value_out_of_range, stream.position(), "vector longer than its bound");
    }
    return stream.serialize_ranged_offset(count, max);
}

} // namespace detail

template <class T, std::size_t MaxSize>
struct codec<bounded_vector<T, MaxSize>> {
    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, bounded_vector<T, MaxSize>& value)
    {
        std::uint64_t size = value.size();
        if (!detail::serialize_count(stream, size, MaxSize))
            return false;
        if constexpr (Stream::is_reading) {
            if (!detail::count_fits_input(stream, size, codec<T>::min_bits()))
                return false;
            detail::resize_for_decode(value, static_cast<std::size_t>(size));
        }
        return detail::serialize_elements(stream, value);
    }
    static constexpr std::size_t max_bits()
    {
        return detail::add_bits(static_cast<std::size_t>(detail::count_bits(MaxSize)),
                                detail::multiply_bits(MaxSize, codec<T>::max_bits()));
    }
    static constexpr std::size_t min_bits() { return static_cast<std::size_t>(detail::count_bits(MaxSize)); }
    template <class Schema>
    static void describe(Schema& schema)
    {
        schema.begin_vector(MaxSize);
        codec<T>::describe(schema);
        schema.end();
    }
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
    template <class Schema>
    static void describe(Schema& schema)
    {
        schema.begin_array(N);
        codec<T>::describe(schema);
        schema.end();
    }
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
    template <class Schema>
    static void describe(Schema& schema)
    {
        schema.begin_optional();
        codec<T>::describe(schema);
        schema.end();
    }
};

} // namespace bitrep
