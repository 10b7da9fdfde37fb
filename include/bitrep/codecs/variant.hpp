// std::variant<Ts...>: the alternative's index in bits_required(0, count - 1)
// bits (an enum's index encoding), then the alternative's own encoding.
#pragma once

#include <bitrep/codec.hpp>
#include <bitrep/codecs/scalars.hpp>
#include <bitrep/detail/portability.hpp>
#include <bitrep/detail/with_index.hpp>
#include <bitrep/failure_record.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/status.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace bitrep {

namespace detail {

template <class T, class... Ts>
inline constexpr std::size_t occurrences = (std::size_t{0} + ... + std::size_t{std::is_same_v<T, Ts>});

/// An alternative's index among `count`, as an enum's index (the
/// schema-driven load reads a file's variant with it too).
template <class Stream>
BITREP_ALWAYS_INLINE bool serialize_alternative_index(Stream& stream, std::uint64_t& index, std::uint64_t count,
                                                      std::size_t start)
{
    return serialize_enum_index(stream, index, count, start, "variant index is not an alternative");
}

/// The held alternative's `index` among `count` (writing: std::variant_npos
/// when the variant is valueless by exception, which is refused).
template <class Stream>
BITREP_ALWAYS_INLINE bool serialize_held_index(Stream& stream, std::uint64_t& index, std::uint64_t count)
{
    const std::size_t start = stream.position();
    if constexpr (!Stream::is_reading) {
        if (index == std::variant_npos) [[unlikely]]
            return stream.fail(error::value_out_of_range, start, "variant valueless by exception");
    }
    return serialize_alternative_index(stream, index, count, start);
}

/// How an alternative is known in a save file's schema: a struct, a class
/// with a serialization hook or an enum by its stable name (bitrep_name,
/// else the compiler's spelling), which survives reordering the
/// alternatives; any other kind (an int, a ranged or quantized number, a
/// container) has no name that every compiler spells alike, and is known
/// by its order among the unnamed alternatives.
template <class T>
constexpr std::string_view alternative_name() noexcept
{
    if constexpr (std::is_enum_v<T> || requires { codec<T>::walks_fields; })
        return reflect::stable_name<T>();
    else
        return {};
}

// Never true: the refusals of a std::variant's alternative, which the
// compiler prints with the variant and the alternative.
template <class Variant, class Alternative>
inline constexpr bool distinct_alternative = false;
template <class Variant, class Alternative>
inline constexpr bool default_constructible_alternative = false;

/// Refuses Alternative of Variant, when it is there twice or cannot be
/// default-constructed (a function per alternative: a repeated one is
/// refused once).
template <class Variant, class Alternative, std::size_t Occurrences>
constexpr bool accept_alternative()
{
    if constexpr (Occurrences != 1) {
        static_assert(distinct_alternative<Variant, Alternative>,
                      "bitrep: a std::variant's alternatives must be distinct types (the schema and the error paths "
                      "name them by type)");
        return false;
    } else if constexpr (!std::is_default_constructible_v<Alternative>) {
        static_assert(default_constructible_alternative<Variant, Alternative>,
                      "bitrep: a std::variant's alternatives must be default-constructible (a read makes the "
                      "alternative it finds, then fills it)");
        return false;
    } else {
        return true;
    }
}

/// Whether std::variant<Ts...>'s alternatives are ones bitrep serializes:
/// the codec and the engine's entry check it, and go no further when not.
template <class... Ts>
constexpr bool accept_alternatives()
{
    return (accept_alternative<std::variant<Ts...>, Ts, occurrences<Ts, Ts...>>() && ...);
}

/// Makes `value` hold alternative I, default-constructed unless it already
/// holds it (a read then assigns every carried part of it). An alternative
/// that cannot be default-constructed is refused (accept_alternatives) and
/// never made here.
template <std::size_t I, class Variant>
BITREP_ALWAYS_INLINE auto& hold_alternative(Variant& value)
{
    if constexpr (std::is_default_constructible_v<std::variant_alternative_t<I, Variant>>) {
        if (value.index() != I)
            value.template emplace<I>();
    }
    return *std::get_if<I>(&value);
}

/// A failure inside alternative I names it, e.g. `Pickup.item<Weapon>.damage`.
template <class Alternative>
BITREP_COLD inline void enter_alternative(failure_record& failure) noexcept
{
    failure.enter_alternative(reflect::type_name<Alternative>());
}
} // namespace detail

template <class... Ts>
struct codec<std::variant<Ts...>> {
    using type = std::variant<Ts...>;
    static constexpr std::size_t count = sizeof...(Ts);
    static constexpr bool accepted = detail::accept_alternatives<Ts...>();
    static constexpr int index_bits = detail::enum_index_bits(count);

    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, type& value)
    {
        if constexpr (!accepted)
            return false; // refused
        std::uint64_t index = 0; // a reader's target may hold anything
        if constexpr (!Stream::is_reading)
            index = value.index();
        if (!detail::serialize_held_index(stream, index, count))
            return false;
        return detail::with_index<count>(static_cast<std::size_t>(index), [&](auto i) BITREP_LAMBDA_ALWAYS_INLINE {
            return serialize_alternative<decltype(i)::value>(stream, value);
        });
    }

    /// Alternative I in full; on read, made first when value holds another.
    template <std::size_t I, class Stream>
    BITREP_ALWAYS_INLINE static bool serialize_alternative(Stream& stream, type& value)
    {
        using alternative = std::variant_alternative_t<I, type>;
        alternative* held;
        if constexpr (Stream::is_reading)
            held = &detail::hold_alternative<I>(value);
        else
            held = std::get_if<I>(&value);
        if (bitrep::serialize(stream, *held)) [[likely]]
            return true;
        detail::enter_alternative<alternative>(stream.failure());
        return false;
    }

    static constexpr std::size_t max_bits()
    {
        return detail::add_bits(static_cast<std::size_t>(index_bits), std::max({codec<Ts>::max_bits()...}));
    }
    static constexpr std::size_t min_bits()
    {
        return detail::add_bits(static_cast<std::size_t>(index_bits), std::min({codec<Ts>::min_bits()...}));
    }
};

} // namespace bitrep
