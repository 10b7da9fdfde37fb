// Whether a Boost.Describe description lists every member of its struct: a
// member left out would silently not be saved or sent. Part of reflect.hpp,
// which counts an aggregate's members.
#pragma once

#include <cstddef>
#include <type_traits>

#include <boost/describe.hpp>
#include <boost/mp11/algorithm.hpp>

namespace bitrep::reflect {

/// A struct opts out of the check that its description lists every member
/// with `static constexpr bool bitrep_partial_description = true;`: its
/// unlisted members are then, on purpose, never serialized.
template <class T>
concept partially_described = requires { requires T::bitrep_partial_description; };

/// Whether a description listing Listed fields covers an aggregate of
/// Members fields. The counts are template arguments so that the compiler's
/// message shows them next to the type's name.
template <class T, std::size_t Listed, std::size_t Members>
inline constexpr bool lists_every_member = Listed >= Members || partially_described<T>;

namespace detail {
constexpr unsigned all_members = boost::describe::mod_any_access;

/// How many fields T has as an aggregate (AggregateSize<T>::value, counted
/// by reflect.hpp); for a class that is not one (its members cannot be
/// counted), `Listed` itself.
template <class T, std::size_t Listed, template <class> class AggregateSize>
constexpr std::size_t members_to_list()
{
    if constexpr (std::is_aggregate_v<T> && !partially_described<T>)
        return AggregateSize<T>::value;
    else
        return Listed;
}

/// Listed, once a description listing Listed fields is known to cover an
/// aggregate of Members fields: a description that leaves members out would
/// have them silently not saved or sent.
template <class T, std::size_t Listed, std::size_t Members>
constexpr std::size_t checked_listed_count() noexcept
{
    static_assert(lists_every_member<T, Listed, Members>,
                  "bitrep: this BOOST_DESCRIBE_STRUCT lists fewer members than the struct has (the condition names "
                  "the struct, the fields listed, the fields it has): an unlisted member would silently not be "
                  "saved or sent. List every member. To leave a member out on purpose, list it all the same with "
                  "the type bitrep::transient<T> (never serialized), or add `static constexpr bool "
                  "bitrep_partial_description = true;` to the struct. (A class that is not an aggregate cannot be "
                  "counted: a member BOOST_DESCRIBE_CLASS does not list is left out.)");
    return Listed;
}

/// A described class's bases and members (a class template, so that an
/// incomplete description is reported once).
template <class T, template <class> class AggregateSize>
struct checked_description {
    using bases = boost::mp11::mp_rename<boost::describe::describe_bases<T, all_members>, boost::mp11::mp_list>;
    using members = boost::mp11::mp_rename<boost::describe::describe_members<T, all_members>, boost::mp11::mp_list>;
    static constexpr std::size_t listed_count = boost::mp11::mp_size<bases>::value + boost::mp11::mp_size<members>::value;
    static constexpr std::size_t listed =
        checked_listed_count<T, listed_count, members_to_list<T, listed_count, AggregateSize>()>();
};

} // namespace detail
} // namespace bitrep::reflect
