// Whether a Boost.Describe description lists every member of its struct: a
// member left out would silently not be saved or sent. Part of reflect.hpp,
// which counts an aggregate's members.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

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

/// A field by its position (declared in reflect.hpp, which names fields in
/// the compile-time refusals).
template <class T, std::size_t Position>
struct positional_field;

/// Never true: the condition of the refusal of a description that leaves a
/// member out, so that the compiler prints that member's position with it.
template <class Field>
inline constexpr bool description_lists = false;

namespace detail {
constexpr unsigned all_members = boost::describe::mod_any_access;

#define BITREP_PARTIAL_DESCRIPTION_MESSAGE                                                                           \
    "bitrep: this BOOST_DESCRIBE_STRUCT leaves out a member of the struct (the condition names the struct and "      \
    "the member's position, counting from 0; for a struct with bases, how many fields it lists and how many it "     \
    "has), which would silently not be saved or sent. List the member. To leave it out on purpose, list it with "    \
    "the type bitrep::transient<T> (never serialized), or add `static constexpr bool bitrep_partial_description = "  \
    "true;` to the struct."

/// How many fields T has as an aggregate (Aggregates::count<T>(), counted
/// by reflect.hpp); for a class that is not one (its members cannot be
/// counted), `Listed` itself.
template <class T, std::size_t Listed, class Aggregates>
constexpr std::size_t members_to_list()
{
    if constexpr (std::is_aggregate_v<T> && !partially_described<T>)
        return Aggregates::template count<T>();
    else
        return Listed;
}

/// The position of the first field of the aggregate T that none of the
/// described members M... is: the fields' and the members' addresses in
/// Aggregates' object of T, compared in a constant expression.
template <class T, class Aggregates, class... M>
constexpr std::size_t first_unlisted_position(boost::mp11::mp_list<M...>) noexcept
{
    const void* const listed[] = {Aggregates::template member_address<T, M::pointer>()..., nullptr};
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        std::size_t first = sizeof...(I);
        const auto unlisted = [&](const void* field) {
            for (const void* member : listed)
                if (member == field)
                    return false;
            return true;
        };
        static_cast<void>(((unlisted(Aggregates::template address<T, I>()) ? (first = I, true) : false) || ...));
        return first;
    }(std::make_index_sequence<Aggregates::template count<T>()>{});
}

/// Listed, once a description listing Listed fields (Bases, then the
/// members Described) is known to cover an aggregate of Members fields.
/// One that does not fails to compile, naming the first member it leaves
/// out: by position when T has no bases (whose members an object's fields
/// cannot be told from), else by both counts.
template <class T, std::size_t Listed, std::size_t Members, class Aggregates, class Bases, class Described>
constexpr std::size_t checked_listed_count() noexcept
{
    if constexpr (lists_every_member<T, Listed, Members>) {
        return Listed;
    } else if constexpr (boost::mp11::mp_empty<Bases>::value) {
        constexpr std::size_t position = first_unlisted_position<T, Aggregates>(Described{});
        static_assert(description_lists<positional_field<T, position>>, BITREP_PARTIAL_DESCRIPTION_MESSAGE);
        return Listed;
    } else {
        static_assert(lists_every_member<T, Listed, Members>, BITREP_PARTIAL_DESCRIPTION_MESSAGE);
        return Listed;
    }
}

/// A described class's bases and members (a class template, so that an
/// incomplete description is reported once).
template <class T, class Aggregates>
struct checked_description {
    using bases = boost::mp11::mp_rename<boost::describe::describe_bases<T, all_members>, boost::mp11::mp_list>;
    using members = boost::mp11::mp_rename<boost::describe::describe_members<T, all_members>, boost::mp11::mp_list>;
    static constexpr std::size_t listed_count = boost::mp11::mp_size<bases>::value + boost::mp11::mp_size<members>::value;
    static constexpr std::size_t listed =
        checked_listed_count<T, listed_count, members_to_list<T, listed_count, Aggregates>(), Aggregates, bases,
                             members>();
};

#undef BITREP_PARTIAL_DESCRIPTION_MESSAGE

} // namespace detail
} // namespace bitrep::reflect
