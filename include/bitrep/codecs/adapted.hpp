// each_component and smallest_three: proxies (codecs/proxy.hpp) sent as an
// array of their components' annotations and as quat<Bits>, so they are
// those kinds in deltas, coded slots and save files too (a save loads
// between an each_component<glm::vec3, C> and a std::array<C, 3>).
#pragma once

#include <bitrep/annotations/adapted.hpp>
#include <bitrep/annotations/quat.hpp>
#include <bitrep/codec.hpp>
#include <bitrep/detail/proxy_traits.hpp>

#include <array>
#include <cstddef>
#include <type_traits>

namespace bitrep::detail {

/// What a component annotation holds (a quantized's float, a ranged's
/// integer), or the component itself when it is a plain number.
template <class Component>
struct component_value {
    using type = Component;
};
template <class Component>
    requires requires { typename Component::value_type; }
struct component_value<Component> {
    using type = typename Component::value_type;
};

template <class T, class Component, std::size_t N>
struct proxy_traits<bitrep::each_component<T, Component, N>> : std::true_type {
    using type = bitrep::each_component<T, Component, N>;
    using wire = std::array<Component, N>;
    using number = typename component_value<Component>::type;

    static constexpr wire to_wire(const type& value)
    {
        wire sent{};
        for (std::size_t i = 0; i < N; ++i)
            sent[i] = Component(static_cast<number>(value.get()[static_cast<int>(i)]));
        return sent;
    }
    static constexpr void from_wire(type& value, const wire& sent)
    {
        using element = std::remove_cvref_t<decltype(value.get()[0])>;
        for (std::size_t i = 0; i < N; ++i)
            value.get()[static_cast<int>(i)] = static_cast<element>(static_cast<number>(sent[i]));
    }
};

template <class Q, int Bits>
struct proxy_traits<bitrep::smallest_three<Q, Bits>> : std::true_type {
    using type = bitrep::smallest_three<Q, Bits>;
    using wire = bitrep::quat<Bits>;

    static constexpr wire to_wire(const type& value)
    {
        const Q& q = value.get();
        return wire{static_cast<float>(quat_part<0>(q)), static_cast<float>(quat_part<1>(q)),
                    static_cast<float>(quat_part<2>(q)), static_cast<float>(quat_part<3>(q))};
    }
    static constexpr void from_wire(type& value, const wire& sent)
    {
        Q& q = value.get();
        quat_part<0>(q) = sent.x;
        quat_part<1>(q) = sent.y;
        quat_part<2>(q) = sent.z;
        quat_part<3>(q) = sent.w;
    }
};

} // namespace bitrep::detail
