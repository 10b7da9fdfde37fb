// save_only<T>, net_only<T>, transient<T>: which streams carry a field;
// owner_only<T>, skip_owner<T>, initial_only<T>: which clients receive a
// member of a replicated entity (docs/design/replication-server.md, "Replication conditions").
#pragma once

#include <compare>
#include <cstdint>
#include <iosfwd>
#include <type_traits>
#include <utility>

namespace bitrep {

enum class field_flag : std::uint8_t {
    save_only, ///< written to save files, never replicated
    net_only,  ///< replicated, never saved
    transient, ///< never serialized (reads leave it untouched)
    // Replication conditions: encoded like the plain field everywhere
    // (saves keep it); the server's view of an entity for each client
    // takes it from the current state only when the condition allows.
    owner_only,   ///< replicated only to the entity's owning client
    skip_owner,   ///< replicated to every client but the owner
    initial_only, ///< replicated when the entity is created for a client, never again
};

/// Whether a field flag is a replication condition.
constexpr bool is_condition(field_flag flag) noexcept
{
    return flag == field_flag::owner_only || flag == field_flag::skip_owner || flag == field_flag::initial_only;
}

namespace detail {
template <class T>
concept inheritable = std::is_class_v<T> && !std::is_final_v<T>;
}

/// A field wrapped with a flag. For class types it derives from T, so the
/// members stay reachable as before (`camera.x` for net_only<Transform>);
/// for scalars it holds the value and converts to and from it.
template <class T, field_flag Flag>
struct flagged : T {
    using value_type = T;
    static constexpr field_flag flag = Flag;

    using T::T;
    using T::operator=;
    flagged() = default;
    flagged(const T& value) : T(value) {}
    flagged(T&& value) noexcept(std::is_nothrow_move_constructible_v<T>) : T(std::move(value)) {}

    T& get() noexcept { return *this; }
    const T& get() const noexcept { return *this; }
};

template <class T, field_flag Flag>
    requires(!detail::inheritable<T>)
struct flagged<T, Flag> {
    using value_type = T;
    static constexpr field_flag flag = Flag;

    T value{};

    constexpr flagged() = default;
    constexpr flagged(T v) noexcept : value(v) {}
    constexpr flagged& operator=(T v) noexcept
    {
        value = v;
        return *this;
    }
    constexpr operator T&() noexcept { return value; }
    constexpr operator const T&() const noexcept { return value; }
    constexpr T& get() noexcept { return value; }
    constexpr const T& get() const noexcept { return value; }

    // The built-in compound assignments cannot reach `value` through the
    // conversion, so they are spelled out for arithmetic types.
    template <class U>
        requires std::is_arithmetic_v<T> && requires(T& t, U u) { t += u; }
    constexpr flagged& operator+=(U u) noexcept { value += u; return *this; }
    template <class U>
        requires std::is_arithmetic_v<T> && requires(T& t, U u) { t -= u; }
    constexpr flagged& operator-=(U u) noexcept { value -= u; return *this; }
    template <class U>
        requires std::is_arithmetic_v<T> && requires(T& t, U u) { t *= u; }
    constexpr flagged& operator*=(U u) noexcept { value *= u; return *this; }
    template <class U>
        requires std::is_arithmetic_v<T> && requires(T& t, U u) { t /= u; }
    constexpr flagged& operator/=(U u) noexcept { value /= u; return *this; }
    constexpr flagged& operator++() noexcept
        requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
    {
        ++value;
        return *this;
    }
    constexpr flagged& operator--() noexcept
        requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
    {
        --value;
        return *this;
    }
    constexpr flagged operator++(int) noexcept
        requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
    {
        flagged old = *this;
        ++value;
        return old;
    }
    constexpr flagged operator--(int) noexcept
        requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
    {
        flagged old = *this;
        --value;
        return old;
    }

    template <class CharT, class Traits>
    friend std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os, const flagged& f)
        requires requires { os << f.value; }
    {
        if constexpr (std::is_integral_v<T> && sizeof(T) == 1 && !std::is_same_v<T, bool>)
            return os << +f.value;
        else
            return os << f.value;
    }

    friend constexpr bool operator==(const flagged&, const flagged&) = default;
    friend constexpr auto operator<=>(const flagged&, const flagged&) = default;
    friend constexpr bool operator==(const flagged& a, const T& b) { return a.value == b; }
    friend constexpr auto operator<=>(const flagged& a, const T& b) { return a.value <=> b; }
};

template <class T>
using save_only = flagged<T, field_flag::save_only>;
template <class T>
using net_only = flagged<T, field_flag::net_only>;
template <class T>
using transient = flagged<T, field_flag::transient>;
template <class T>
using owner_only = flagged<T, field_flag::owner_only>;
template <class T>
using skip_owner = flagged<T, field_flag::skip_owner>;
template <class T>
using initial_only = flagged<T, field_flag::initial_only>;

} // namespace bitrep
