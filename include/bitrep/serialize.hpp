// Encoding per kind: how each supported type maps onto the standard's
// primitives. One codec<T> per kind holds both facets of that kind, the
// unified serialize (write, read and measure alike) and its max_bits bound,
// so the two can never drift apart. Delta, save files and replication reuse
// these codecs; nothing else knows how a kind is written.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <bitrep/annotations.hpp>
#include <bitrep/detail/inline.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/stream.hpp>

namespace bitrep {

template <class T>
struct codec;

/// The one entry point: serializes value through any stream. Hand-written
/// hooks call it for their members, so they share every encoding. A const
/// value can be written or measured, never read into.
template <class Stream, class T>
BITREP_ALWAYS_INLINE bool serialize(Stream& stream, T& value)
{
    using plain = std::remove_cv_t<T>;
    static_assert(!(std::is_const_v<T> && Stream::is_reading), "bitrep::serialize: cannot read into a const value");
    return codec<plain>::serialize(stream, const_cast<plain&>(value));
}

/// serialize() that names the field in the error path when it fails; for
/// hand-written hooks.
template <class Stream, class T>
bool serialize_field(Stream& stream, std::string_view name, T& value)
{
    if (serialize(stream, value)) [[likely]]
        return true;
    stream.enter_member(name);
    return false;
}

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

template <class T>
concept has_member_hook = requires(T& value, write_stream& w, read_stream& r, measure_stream& m) {
    { value.serialize(w) } -> std::convertible_to<bool>;
    { value.serialize(r) } -> std::convertible_to<bool>;
    { value.serialize(m) } -> std::convertible_to<bool>;
};

template <class T>
concept has_free_hook = requires(T& value, write_stream& w, read_stream& r, measure_stream& m) {
    { bitrep_serialize(w, value) } -> std::convertible_to<bool>;
    { bitrep_serialize(r, value) } -> std::convertible_to<bool>;
    { bitrep_serialize(m, value) } -> std::convertible_to<bool>;
};

template <class E>
constexpr void require_described_enum()
{
    static_assert(reflect::described_enum<E>,
                  "bitrep: this enum is not described. Add BOOST_DESCRIBE_ENUM(YourEnum, enumerator1, enumerator2, "
                  "...) after its declaration, at namespace scope (it comes with <bitrep/bitrep.hpp>).");
}

template <class Stream>
[[gnu::cold]] void enter_field(Stream& stream, const reflect::field_id& id) noexcept
{
    if (id.is_base)
        return;
    if (id.name.empty())
        stream.enter_position(id.position);
    else
        stream.enter_member(id.name);
}
} // namespace detail

/// Kinds recognised by shape: hooks, enums, integers, floats, described
/// classes and aggregates, in that order of precedence (a hook wins over a
/// description, which wins over Boost.PFR because it has names).
template <class T>
struct codec {
    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, T& value)
    {
        if constexpr (detail::has_member_hook<T>) {
            return value.serialize(stream);
        } else if constexpr (detail::has_free_hook<T>) {
            return bitrep_serialize(stream, value);
        } else if constexpr (std::is_same_v<T, bool>) {
            return stream.serialize_bool(value);
        } else if constexpr (std::is_enum_v<T>) {
            detail::require_described_enum<T>();
            if constexpr (reflect::described_enum<T>) {
                using table = reflect::enumerators<T>;
                constexpr int bits = bits_required_for_span(table::count - 1);
                std::uint64_t index = 0;
                const std::size_t start = stream.position();
                if constexpr (!Stream::is_reading) {
                    index = table::index_of(value);
                    if (Stream::is_writing && index == table::count) [[unlikely]]
                        return stream.fail(error::bad_enum, start, "enum value is not an enumerator");
                }
                if constexpr (bits > 0) {
                    if (!stream.serialize_bits(index, bits))
                        return false;
                }
                if constexpr (Stream::is_reading) {
                    if (index >= table::count) [[unlikely]]
                        return stream.fail(error::bad_enum, start, "enum index is not an enumerator");
                    value = table::values[index];
                }
            }
            return true;
        } else if constexpr (std::is_integral_v<T>) {
            auto pattern = static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<T>>(value));
            if (!stream.serialize_bits(pattern, static_cast<int>(sizeof(T) * 8)))
                return false;
            if constexpr (Stream::is_reading)
                value = static_cast<T>(static_cast<std::make_unsigned_t<T>>(pattern));
            return true;
        } else if constexpr (std::is_same_v<T, float>) {
            return stream.serialize_float(value);
        } else if constexpr (std::is_same_v<T, double>) {
            return stream.serialize_double(value);
        } else if constexpr (reflect::described<T> || reflect::aggregate<T>) {
            return reflect::for_each_field(value, [&stream]<class Field>(Field& field, const reflect::field_id& id)
                                                      BITREP_LAMBDA_ALWAYS_INLINE {
                if (bitrep::serialize(stream, field)) [[likely]]
                    return true;
                detail::enter_field(stream, id);
                return false;
            });
        } else {
            static_assert(detail::always_false<T>,
                          "bitrep cannot serialize this type: it is not an annotation (ranged, quantized, quat, "
                          "bounded_string, bounded_vector), a bool, integer, float, double, described enum, "
                          "std::array or std::optional, an aggregate (Boost.PFR), a BOOST_DESCRIBE_STRUCT/CLASS "
                          "type, nor does it have a serialize(Stream&) member or bitrep_serialize(Stream&, T&) hook.");
            return false;
        }
    }

    static constexpr std::size_t max_bits()
    {
        if constexpr (detail::has_member_hook<T> || detail::has_free_hook<T>) {
            if constexpr (requires { T::bitrep_max_bits; })
                return T::bitrep_max_bits;
            else
                return unbounded_bits;
        } else if constexpr (std::is_same_v<T, bool>) {
            return 1;
        } else if constexpr (std::is_enum_v<T>) {
            detail::require_described_enum<T>();
            if constexpr (reflect::described_enum<T>)
                return static_cast<std::size_t>(bits_required_for_span(reflect::enumerators<T>::count - 1));
            return 0;
        } else if constexpr (std::is_arithmetic_v<T>) {
            return sizeof(T) * 8;
        } else {
            return reflect::fold_field_types<T>(std::size_t{0}, []<class Field>() { return codec<Field>::max_bits(); },
                                                detail::add_bits);
        }
    }
};

template <std::integral Int, Int Min, Int Max>
struct codec<ranged<Int, Min, Max>> {
    using type = ranged<Int, Min, Max>;

    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, type& value)
    {
        // Unsigned modular arithmetic: a value below Min wraps far above the
        // span, so the one offset check refuses both directions.
        std::uint64_t offset = static_cast<std::uint64_t>(value.value()) - static_cast<std::uint64_t>(Min);
        if (!stream.serialize_ranged_offset(offset, type::span))
            return false;
        if constexpr (Stream::is_reading)
            value = static_cast<Int>(static_cast<std::uint64_t>(Min) + offset);
        return true;
    }
    static constexpr std::size_t max_bits() { return type::bits; }
};

template <float_constant Min, float_constant Max, float_constant Resolution>
struct codec<quantized<Min, Max, Resolution>> {
    using type = quantized<Min, Max, Resolution>;

    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, type& value)
    {
        return stream.serialize_quantized(value.get(), type::quantizer);
    }
    static constexpr std::size_t max_bits() { return type::bits; }
};

template <int Bits>
struct codec<quat<Bits>> {
    using type = quat<Bits>;

    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, type& value)
    {
        std::array<float, 4> c{value.x, value.y, value.z, value.w};
        std::uint32_t largest = 0;
        const std::size_t start = stream.position();
        if constexpr (!Stream::is_reading) {
            for (std::uint32_t i = 1; i < 4; ++i)
                if (std::fabs(c[i]) > std::fabs(c[largest]))
                    largest = i;
            if constexpr (Stream::is_writing) {
                const float norm = c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3];
                if (!(std::fabs(norm - 1.0f) <= 0.01f)) [[unlikely]] // also refuses NaN and infinity
                    return stream.fail(error::value_out_of_range, start,
                                       "quaternion is not unit length (|q|^2 off by more than 1%)");
            }
            if (c[largest] < 0.0f)
                for (float& component : c)
                    component = -component; // q and -q are the same rotation
        }
        if (!stream.serialize_bits(largest, 2))
            return false;
        for (std::uint32_t i = 0; i < 4; ++i)
            if (i != largest && !stream.serialize_quantized(c[i], type::component_quantizer))
                return stream.fail_from(start);
        if constexpr (Stream::is_reading) {
            // The sum is rounded step by step (no fusion) so every receiver
            // rebuilds the same largest component.
            float sum = 0.0f;
            for (std::uint32_t i = 0; i < 4; ++i)
                if (i != largest)
                    sum = detail::keep_rounded(sum + detail::keep_rounded(c[i] * c[i]));
            // The three smallest components of a unit quaternion have squares
            // summing to at most 3/4 (the largest is at least 1/2), so no
            // writer sends more than 1: such bytes are forged, and accepting
            // them would hand the game a rotation that is not unit length.
            if (sum > 1.0f) [[unlikely]]
                return stream.fail(error::out_of_range, start, "smallest-three components exceed unit length");
            c[largest] = std::sqrt(1.0f - sum);
            value = type{c[0], c[1], c[2], c[3]};
        }
        return true;
    }
    static constexpr std::size_t max_bits() { return type::bits; }
};

template <std::size_t MaxLength>
struct codec<bounded_string<MaxLength>> {
    template <class Stream>
    static bool serialize(Stream& stream, bounded_string<MaxLength>& value)
    {
        return stream.serialize_string(value.str(), MaxLength + 1);
    }
    static constexpr std::size_t max_bits()
    {
        return static_cast<std::size_t>(bits_required_for_span(MaxLength)) + 7 + MaxLength * 8;
    }
};

namespace detail {
/// Elements one after another; an element's failure names its index.
/// std::vector<bool> hands out proxies, so its elements go through a bool.
template <class Stream, class Container>
bool serialize_elements(Stream& stream, Container& elements)
{
    using element = typename Container::value_type;
    const std::size_t count = elements.size();
    for (std::size_t i = 0; i < count; ++i) {
        bool ok;
        if constexpr (std::is_same_v<element, bool>) {
            bool bit = elements[i];
            ok = stream.serialize_bool(bit);
            elements[i] = bit;
        } else {
            ok = bitrep::serialize(stream, elements[i]);
        }
        if (!ok) [[unlikely]] {
            stream.enter_index(i);
            return false;
        }
    }
    return true;
}
} // namespace detail

template <class T, std::size_t MaxSize>
struct codec<bounded_vector<T, MaxSize>> {
    template <class Stream>
    static bool serialize(Stream& stream, bounded_vector<T, MaxSize>& value)
    {
        std::uint64_t size = value.size();
        if constexpr (Stream::is_writing) {
            if (size > MaxSize) [[unlikely]]
                return stream.fail(error::value_out_of_range, stream.position(), "vector longer than its bound");
        }
        if (!stream.serialize_ranged_offset(size, MaxSize))
            return false;
        if constexpr (Stream::is_reading)
            value.resize(static_cast<std::size_t>(size)); // size <= MaxSize: bounded allocation
        return detail::serialize_elements(stream, value);
    }
    static constexpr std::size_t max_bits()
    {
        return detail::add_bits(static_cast<std::size_t>(bits_required_for_span(MaxSize)),
                                detail::multiply_bits(MaxSize, codec<T>::max_bits()));
    }
};

template <class T, std::size_t N>
struct codec<std::array<T, N>> {
    template <class Stream>
    static bool serialize(Stream& stream, std::array<T, N>& value)
    {
        return detail::serialize_elements(stream, value);
    }
    static constexpr std::size_t max_bits() { return detail::multiply_bits(N, codec<T>::max_bits()); }
};

template <class T>
struct codec<std::optional<T>> {
    template <class Stream>
    static bool serialize(Stream& stream, std::optional<T>& value)
    {
        bool present = value.has_value();
        if (!stream.serialize_bool(present))
            return false;
        if constexpr (Stream::is_reading) {
            if (!present) {
                value.reset();
                return true;
            }
            if (!value)
                value.emplace();
        }
        return !present || bitrep::serialize(stream, *value);
    }
    static constexpr std::size_t max_bits() { return detail::add_bits(1, codec<T>::max_bits()); }
};

template <class T, field_flag Flag>
struct codec<flagged<T, Flag>> {
    template <class Stream>
    static constexpr bool carried()
    {
        switch (Flag) {
        case field_flag::transient: return false;
        case field_flag::save_only: return Stream::field_scope != scope::replication;
        case field_flag::net_only: return Stream::field_scope != scope::save;
        }
        return false;
    }

    template <class Stream>
    static bool serialize(Stream& stream, flagged<T, Flag>& value)
    {
        if constexpr (carried<Stream>())
            return bitrep::serialize(stream, value.get());
        else
            return true; // not carried by this stream: untouched on read
    }
    static constexpr std::size_t max_bits() { return Flag == field_flag::transient ? 0 : codec<T>::max_bits(); }
};

template <class Char, class Traits, class Allocator>
struct codec<std::basic_string<Char, Traits, Allocator>> {
    static_assert(detail::always_false<Char>,
                  "bitrep: std::string has no bound, and an unbounded length on the read path is an allocation "
                  "bomb. Use bitrep::bounded_string<MaxLength> instead.");
};

template <class T, class Allocator>
struct codec<std::vector<T, Allocator>> {
    static_assert(detail::always_false<T>,
                  "bitrep: std::vector has no bound, and an unbounded length on the read path is an allocation "
                  "bomb. Use bitrep::bounded_vector<T, MaxSize> instead.");
};

} // namespace bitrep
