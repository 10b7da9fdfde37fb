// Unannotated scalars: bool (1 bit), integers and floats at full width, and
// enums described with BOOST_DESCRIBE_ENUM (their declaration index).
#pragma once

#include <bitrep/codec.hpp>
#include <bitrep/codecs/unsupported.hpp>
#include <bitrep/detail/portability.hpp>
#include <bitrep/kinds/enumeration.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/renames.hpp>
#include <bitrep/wire/stream.hpp>

#include <cstdint>
#include <string_view>

namespace bitrep {

template <>
struct codec<bool> {
    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, bool& value)
    {
        return stream.serialize_bool(value);
    }
    static constexpr std::size_t max_bits() { return 1; }
    static constexpr std::size_t min_bits() { return 1; }
};

namespace detail {
/// A full-width integer: its two's complement pattern in `bits` bits (8, 16,
/// 32 or 64); read back sign-extended to 64 bits when `is_signed`, so that a
/// save file's integer of any width compares with any program's range.
template <class Stream>
BITREP_ALWAYS_INLINE bool serialize_integer_pattern(Stream& stream, std::uint64_t& pattern, int bits, bool is_signed)
{
    if (!stream.serialize_bits(pattern, bits))
        return false;
    if (Stream::is_reading && is_signed && bits < 64 && (pattern >> (bits - 1)) != 0)
        pattern |= ~std::uint64_t{0} << bits;
    return true;
}

} // namespace detail

/// The two's complement pattern in sizeof(T) * 8 bits.
template <class T>
    requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
struct codec<T> {
    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, T& value)
    {
        std::uint64_t pattern = 0;
        if constexpr (!Stream::is_reading)
            pattern = static_cast<std::make_unsigned_t<T>>(value);
        // No sign extension: the cast to T keeps only the low bits.
        if (!detail::serialize_integer_pattern(stream, pattern, static_cast<int>(sizeof(T) * 8), false))
            return false;
        if constexpr (Stream::is_reading)
            value = static_cast<T>(static_cast<std::make_unsigned_t<T>>(pattern));
        return true;
    }
    static constexpr std::size_t max_bits() { return sizeof(T) * 8; }
    static constexpr std::size_t min_bits() { return max_bits(); }
};

template <>
struct codec<float> {
    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, float& value)
    {
        return stream.serialize_float(value);
    }
    static constexpr std::size_t max_bits() { return 32; }
    static constexpr std::size_t min_bits() { return 32; }
};

template <>
struct codec<double> {
    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, double& value)
    {
        return stream.serialize_double(value);
    }
    static constexpr std::size_t max_bits() { return 64; }
    static constexpr std::size_t min_bits() { return 64; }
};

namespace detail {
template <class E>
constexpr void require_described_enum()
{
    if constexpr (!reflect::described_enum<E>)
        refuse_type<no_field, E>();
}
} // namespace detail

/// The enumerator's declaration index in bits_required(0, count - 1) bits; a
/// value or index that is not an enumerator is refused (bad_enum). (Flag
/// enums: codecs/flags.hpp.)
template <class T>
    requires(std::is_enum_v<T> && !reflect::flag_enum<T>)
struct codec<T> {
    /// True when T is refused: a field of type T names itself in the refusal.
    static constexpr bool refused = !reflect::described_enum<T>;

    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, T& value)
    {
        detail::require_described_enum<T>();
        if constexpr (reflect::described_enum<T>) {
            using table = reflect::enumerators<T>;
            std::uint64_t index = 0;
            const std::size_t start = stream.position();
            if constexpr (!Stream::is_reading) {
                index = table::index_of(value);
                if (Stream::is_writing && index == table::count) [[unlikely]]
                    return stream.fail(error::bad_enum, start, "enum value is not an enumerator");
            }
            if (!detail::serialize_enum_index(stream, index, table::count, start))
                return false;
            if constexpr (Stream::is_reading) {
                if constexpr (table::values_are_indices)
                    value = static_cast<T>(index); // no table load on the common `enum class { a, b, c }`
                else
                    value = table::values[index];
            }
        }
        return true;
    }
    static constexpr std::size_t max_bits()
    {
        detail::require_described_enum<T>();
        if constexpr (reflect::described_enum<T>)
            return static_cast<std::size_t>(detail::enum_index_bits(reflect::enumerators<T>::count));
        return 0;
    }
    static constexpr std::size_t min_bits() { return max_bits(); }
};

} // namespace bitrep
