// save_only<T>, net_only<T>, transient<T>: which streams carry a field.
#pragma once

#include <compare>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace bitrep {

enum class field_flag : std::uint8_t {
    save_only, ///< written to save files, never replicated
    net_only,  ///< replicated, never saved
    transient, ///< never serialized (reads leave it untouched)
};

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

} // namespace bitrep
