// std::pair<A, B> and std::tuple<Ts...>: their members in order, as the
// fields of an aggregate (a save file's schema lists them as a struct's
// positional fields, `#0`, `#1`, ...).
#pragma once

#include <bitrep/codec.hpp>
#include <bitrep/detail/portability.hpp>
#include <bitrep/failure_record.hpp>

#include <cstddef>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace bitrep {

namespace detail {

template <class T>
struct std_tuple_traits : std::false_type {};
template <class... Ts>
struct std_tuple_traits<std::tuple<Ts...>> : std::true_type {
    static constexpr std::string_view name = "std::tuple";
};
template <class A, class B>
struct std_tuple_traits<std::pair<A, B>> : std::true_type {
    static constexpr std::string_view name = "std::pair";
};

/// std::pair and std::tuple (not std::array, which has its own encoding).
template <class T>
concept std_tuple = std_tuple_traits<T>::value;

/// f(member, std::integral_constant<std::size_t, I>) for each member in
/// order while it returns true.
template <class Tuple, class F>
BITREP_ALWAYS_INLINE bool for_each_member(Tuple& tuple, F&& f)
{
    return [&]<std::size_t... I>(std::index_sequence<I...>) BITREP_LAMBDA_ALWAYS_INLINE {
        return (f(std::get<I>(tuple), std::integral_constant<std::size_t, I>{}) && ...);
    }(std::make_index_sequence<std::tuple_size_v<std::remove_const_t<Tuple>>>{});
}

/// The members' types folded with `op`, starting from `init`.
template <class Tuple, class Each, class Op>
constexpr std::size_t fold_member_types(std::size_t init, Each each, Op op)
{
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        std::size_t result = init;
        ((result = op(result, each.template operator()<std::tuple_element_t<I, Tuple>>())), ...);
        return result;
    }(std::make_index_sequence<std::tuple_size_v<Tuple>>{});
}
} // namespace detail

template <class T>
    requires detail::std_tuple<T>
struct codec<T> {
    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, T& value)
    {
        return detail::for_each_member(value, [&stream](auto& member, auto i) BITREP_LAMBDA_ALWAYS_INLINE {
            if (bitrep::serialize(stream, member)) [[likely]]
                return true;
            stream.failure().enter_position(decltype(i)::value);
            return false;
        });
    }
    static constexpr std::size_t max_bits()
    {
        return detail::fold_member_types<T>(
            0, []<class Member>() { return codec<Member>::max_bits(); }, detail::add_bits);
    }
    static constexpr std::size_t min_bits()
    {
        return detail::fold_member_types<T>(
            0, []<class Member>() { return codec<Member>::min_bits(); }, detail::add_bits);
    }
};

} // namespace bitrep
