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

/// A vector type T (indexable with [], N components) sent as N Components,
/// each a quantized<...>, ranged<...> or plain number: e.g. a glm::vec3 in
/// [-512, 512] at 0.01 costs 3 x 17 bits. Behaves as the T it holds: it
/// converts to and from T, and `->` and get() reach T's members.
template <class T, class Component, std::size_t N = detail::component_count<T>()>
class each_component {
    static_assert(N > 0, "each_component<T, Component, N>: give N, the number of components of T");

public:
    using held_type = T;
    using component_type = Component;
    static constexpr std::size_t size = N;

    constexpr each_component() = default;
    constexpr each_component(const T& value) : value_(value) {}
    constexpr each_component& operator=(const T& value)
    {
        value_ = value;
        return *this;
    }

    constexpr operator const T&() const noexcept { return value_; }
    constexpr T& get() noexcept { return value_; }
    constexpr const T& get() const noexcept { return value_; }
    constexpr T* operator->() noexcept { return &value_; }
    constexpr const T* operator->() const noexcept { return &value_; }

    friend constexpr bool operator==(const each_component& a, const each_component& b)
        requires requires(const T& x, const T& y) { { x == y } -> std::convertible_to<bool>; }
    {
        return static_cast<bool>(a.value_ == b.value_);
    }

private:
    T value_{};
};

/// A quaternion type Q (components x, y, z, w as members or methods) sent
/// as quat<Bits>: smallest three, 2 + 3 x Bits bits. Holds the identity
/// rotation by default.
template <class Q, int Bits>
class smallest_three {
public:
    using held_type = Q;
    static constexpr int bits_per_component = Bits;

    constexpr smallest_three() noexcept(std::is_nothrow_default_constructible_v<Q>) : value_{}
    {
        detail::quat_part<0>(value_) = 0;
        detail::quat_part<1>(value_) = 0;
        detail::quat_part<2>(value_) = 0;
        detail::quat_part<3>(value_) = 1;
    }
    constexpr smallest_three(const Q& value) : value_(value) {}
    constexpr smallest_three& operator=(const Q& value)
    {
        value_ = value;
        return *this;
    }

    constexpr operator const Q&() const noexcept { return value_; }
    constexpr Q& get() noexcept { return value_; }
    constexpr const Q& get() const noexcept { return value_; }
    constexpr Q* operator->() noexcept { return &value_; }
    constexpr const Q* operator->() const noexcept { return &value_; }

    friend constexpr bool operator==(const smallest_three& a, const smallest_three& b)
        requires requires(const Q& x, const Q& y) { { x == y } -> std::convertible_to<bool>; }
    {
        return static_cast<bool>(a.value_ == b.value_);
    }

private:
    Q value_;
};

} // namespace bitrep
