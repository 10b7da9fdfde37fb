// each_component / smallest_three: another library's vector and quaternion
// types (glm, Eigen, a game's own math) sent as bitrep's annotations, with
// no dependency on that library:
//
//     using position = bitrep::each_component<glm::vec3, bitrep::quantized<-512.f, 512.f, 0.01f>>;
//     using facing = bitrep::smallest_three<glm::quat, 9>;
//
// Each holds the library's value and converts to and from it, so it serves
// as a field's type or, for a struct that keeps plain glm members, as the
// field's annotation in bitrep::annotate<T>.
#pragma once

#include <concepts>
#include <cstddef>
#include <tuple>
#include <type_traits>

namespace bitrep {

namespace detail {

/// How many components a vector type has: T::length() (glm), a tuple size
/// (std::array), or T::SizeAtCompileTime (Eigen).
template <class T>
constexpr std::size_t component_count() noexcept
{
    if constexpr (requires { std::integral_constant<std::size_t, static_cast<std::size_t>(T::length())>{}; })
        return static_cast<std::size_t>(T::length());
    else if constexpr (requires { std::tuple_size<T>::value; })
        return std::tuple_size_v<T>;
    else if constexpr (requires { std::integral_constant<std::size_t, static_cast<std::size_t>(T::SizeAtCompileTime)>{}; })
        return static_cast<std::size_t>(T::SizeAtCompileTime);
    else
        return 0;
}

/// A quaternion's component as a member (glm, most engines) or a method
/// (Eigen): `x`, `y`, `z`, `w` by index 0..3.
template <std::size_t I, class Q>
constexpr decltype(auto) quat_part(Q& q) noexcept
{
    if constexpr (requires { q.x(); }) {
        if constexpr (I == 0) return q.x();
        else if constexpr (I == 1) return q.y();
        else if constexpr (I == 2) return q.z();
        else return q.w();
    } else {
        if constexpr (I == 0) return (q.x);
        else if constexpr (I == 1) return (q.y);
        else if constexpr (I == 2) return (q.z);
        else return (q.w);
    }
}

} // namespace detail

/// What each_component and smallest_three share: they hold another
/// library's T and behave as it (they convert to and from T, and `->` and
/// get() reach T's members).
template <class Derived, class T>
class adapted_value {
public:
    using held_type = T;

    constexpr adapted_value() = default;
    constexpr adapted_value(const T& value) : value_(value) {}
    constexpr Derived& operator=(const T& value)
    {
        value_ = value;
        return static_cast<Derived&>(*this);
    }

    constexpr operator const T&() const noexcept { return value_; }
    constexpr T& get() noexcept { return value_; }
    constexpr const T& get() const noexcept { return value_; }
    constexpr T* operator->() noexcept { return &value_; }
    constexpr const T* operator->() const noexcept { return &value_; }

    friend constexpr bool operator==(const Derived& a, const Derived& b)
        requires requires(const T& x, const T& y) { { x == y } -> std::convertible_to<bool>; }
    {
        return static_cast<bool>(a.get() == b.get());
    }

private:
    T value_{};
};

/// A vector type T (indexable with [], N components) sent as N Components,
/// each a quantized<...>, ranged<...> or plain number: e.g. a glm::vec3 in
/// [-512, 512] at 0.01 costs 3 x 17 bits. Behaves as the T it holds: it
/// converts to and from T, and `->` and get() reach T's members.
template <class T, class Component, std::size_t N = detail::component_count<T>()>
class each_component : public bitrep::adapted_value<each_component<T, Component, N>, T> {
    static_assert(N > 0, "each_component<T, Component, N>: give N, the number of components of T");
    using adapted_value = bitrep::adapted_value<each_component, T>;

public:
    using component_type = Component;
    static constexpr std::size_t size = N;

    using adapted_value::adapted_value;
    using adapted_value::operator=;
};

/// A quaternion type Q (components x, y, z, w as members or methods) sent
/// as quat<Bits>: smallest three, 2 + 3 x Bits bits. Holds the identity
/// rotation by default.
template <class Q, int Bits>
class smallest_three : public bitrep::adapted_value<smallest_three<Q, Bits>, Q> {
    using adapted_value = bitrep::adapted_value<smallest_three, Q>;

public:
    static constexpr int bits_per_component = Bits;

    using adapted_value::adapted_value;
    using adapted_value::operator=;
    constexpr smallest_three() noexcept(std::is_nothrow_default_constructible_v<Q>)
    {
        detail::quat_part<0>(this->get()) = 0;
        detail::quat_part<1>(this->get()) = 0;
        detail::quat_part<2>(this->get()) = 0;
        detail::quat_part<3>(this->get()) = 1;
    }
};

} // namespace bitrep
