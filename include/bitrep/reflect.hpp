// Walking fields. This header and its part detail/description.hpp are the
// only ones that touch Boost.PFR and Boost.Describe: everything else sees
// fields as (reference, field_id) pairs and enums as an index table.
#pragma once

#include <array>
#include <bit>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include <boost/describe.hpp> // users describe their types with these macros
#include <boost/mp11/algorithm.hpp>
#include <boost/pfr/core.hpp>
#include <boost/pfr/tuple_size.hpp>
#include <boost/version.hpp>

#include <bitrep/detail/description.hpp>
#include <bitrep/detail/portability.hpp>

namespace bitrep::reflect {

/// A field's identity in error paths and schemas: a member name for
/// Boost.Describe'd classes, a position for aggregates (Boost.PFR in Boost
/// 1.81 cannot name them). Base-class subobjects carry `is_base`.
struct field_id {
    std::string_view name;
    std::size_t position;
    bool is_base = false;
};

template <class T>
concept described = boost::describe::has_describe_members<T>::value;

/// Aggregates that Boost.PFR can walk (and that are not described, since a
/// description has names and therefore wins).
template <class T>
concept aggregate = std::is_class_v<T> && std::is_aggregate_v<T> && !described<T>;

namespace detail {

// Aggregates: how many fields, and field I by reference.
//
// bitrep counts an aggregate's fields itself (the most initializers T{...}
// accepts, as PFR does) and hands the count to PFR's structured-binding
// tie, which is all boost::pfr::get does after counting. Two reasons:
// - g++ 12 crashes (internal compiler error in check_noexcept_r) inside
//   Boost.PFR 1.81's field count for any aggregate holding an array of a
//   class with a constexpr destructor: `struct Node { std::array<Leaf, 2>
//   leaves; }` with a std::string, std::vector or bounded_string in Leaf.
//   The crash is in PFR's noexcept probe `detect_fields_count_dispatch(...)
//   -> decltype(sizeof(T{}))` whose size tag is still being deduced; a
//   requires-expression asking the same question does not trigger it.
// - PFR's count asks through SFINAE probes, which clang compiles far more
//   slowly than the requires-expressions used here (bench/compile_time).
// The tie is PFR's internal API, so this is kept to the Boost version it was
// written against; elsewhere PFR's public API is used as it is.
#if BOOST_VERSION == 108100
#define BITREP_COUNT_AGGREGATE_FIELDS 1
#else
#define BITREP_COUNT_AGGREGATE_FIELDS 0
#endif

#if BITREP_COUNT_AGGREGATE_FIELDS
/// Converts to a reference to any field type; only named in unevaluated
/// requires-expressions. Defined all the same: clang takes a declared-only
/// conversion to a type in an anonymous namespace for an undefined internal
/// function (-Wundefined-internal).
struct any_field {
    template <class U>
    operator U&() const noexcept
    {
        return *static_cast<U*>(nowhere);
    }
    void* nowhere = nullptr;
};

/// Converts to a value of any field type, for aggregates that cannot be
/// copied: a reference cannot initialize a std::unique_ptr member, so
/// any_field would stop the count there and the fields from it on would be
/// left out silently. (Not used for all: a value cannot initialize a
/// reference member.)
struct any_moved_field {
    template <class U>
    operator U() const noexcept
    {
        return static_cast<U&&>(*static_cast<U*>(nowhere));
    }
    void* nowhere = nullptr;
};

template <class T, std::size_t... I>
constexpr bool initializable_from(std::index_sequence<I...>) noexcept
{
    using any = std::conditional_t<std::is_copy_constructible_v<T>, any_field, any_moved_field>;
    return requires { T{(static_cast<void>(I), any{})...}; };
}

template <class T, std::size_t N = 0>
constexpr std::size_t aggregate_field_count() noexcept
{
    // A field may be a bit-field, so there are at most sizeof(T) * CHAR_BIT.
    if constexpr (N >= sizeof(T) * CHAR_BIT || !initializable_from<T>(std::make_index_sequence<N + 1>{}))
        return N;
    else
        return aggregate_field_count<T, N + 1>();
}

template <class T>
inline constexpr std::size_t aggregate_size = aggregate_field_count<std::remove_const_t<T>>();

/// References to all of object's fields at once (a walk over every field
/// ties once, not once per field).
template <class T>
BITREP_ALWAYS_INLINE constexpr auto aggregate_tie(T& object) noexcept
{
    return boost::pfr::detail::tie_as_tuple(object, boost::pfr::detail::size_t_<aggregate_size<T>>{});
}

template <std::size_t I, class Tie>
BITREP_ALWAYS_INLINE constexpr auto& tied_get(Tie& fields) noexcept
{
    return boost::pfr::detail::sequence_tuple::get<I>(fields);
}

template <std::size_t I, class T>
BITREP_ALWAYS_INLINE constexpr auto& aggregate_get(T& object) noexcept
{
    return boost::pfr::detail::sequence_tuple::get<I>(aggregate_tie(object));
}
#else
template <class T>
BITREP_ALWAYS_INLINE constexpr auto aggregate_tie(T& object) noexcept
{
    return boost::pfr::structure_tie(object);
}

template <std::size_t I, class Tie>
BITREP_ALWAYS_INLINE constexpr auto& tied_get(Tie& fields) noexcept
{
    return std::get<I>(fields);
}

template <class T>
inline constexpr std::size_t aggregate_size = boost::pfr::tuple_size_v<std::remove_const_t<T>>;

template <std::size_t I, class T>
BITREP_ALWAYS_INLINE constexpr auto& aggregate_get(T& object) noexcept
{
    return boost::pfr::get<I>(object);
}
#endif

/// Never defined: the check of a description takes the addresses of its
/// members and fields in constant expressions, to find one it leaves out.
template <class T>
extern const T probe_object;

/// What the check of a description needs of an aggregate: how many fields
/// it has, and where its fields and members lie in probe_object.
struct aggregate_fields {
    template <class T>
    static constexpr std::size_t count() noexcept
    {
        return aggregate_size<T>;
    }
    template <class T, std::size_t I>
    static constexpr const void* address() noexcept
    {
        auto fields = aggregate_tie(probe_object<T>);
        return &tied_get<I>(fields);
    }
    template <class T, auto Member>
    static constexpr const void* member_address() noexcept
    {
        return &(probe_object<T>.*Member);
    }
};

/// A described class's bases and members, checked to list every member.
template <class T>
using description = checked_description<T, aggregate_fields>;

template <class T>
using bases_of = typename description<T>::bases;
template <class T>
using members_of = typename description<T>::members;

// Field identities are static constants: visitors receive a reference that
// costs nothing to pass. (Built on the stack per field, they cost GCC four
// stores per field even though only the cold failure path reads them.)
template <std::size_t I>
inline constexpr field_id position_id{{}, I};
template <class Member, std::size_t I>
inline constexpr field_id member_id{Member::name, I};
inline constexpr field_id base_id{{}, 0, true};

template <class T, class Visit>
BITREP_ALWAYS_INLINE constexpr bool visit_described(T& object, Visit& visit)
{
    using bases = bases_of<std::remove_const_t<T>>;
    using members = members_of<std::remove_const_t<T>>;
    bool ok = [&]<class... B>(boost::mp11::mp_list<B...>) BITREP_LAMBDA_ALWAYS_INLINE {
        return (visit(static_cast<std::conditional_t<std::is_const_v<T>, const typename B::type&, typename B::type&>>(object),
                      base_id) && ...);
    }(bases{});
    if (!ok)
        return false;
    return [&]<class... M, std::size_t... I>(boost::mp11::mp_list<M...>, std::index_sequence<I...>)
               BITREP_LAMBDA_ALWAYS_INLINE {
        return (visit(object.*M::pointer, member_id<M, I>) && ...);
    }(members{}, std::make_index_sequence<boost::mp11::mp_size<members>::value>{});
}
} // namespace detail

/// Calls visit(field, field_id) for each field in declaration order (for a
/// described class: its described bases first, then its own members), and
/// stops at the first call that returns false. Returns whether all succeeded.
template <class T, class Visit>
BITREP_ALWAYS_INLINE constexpr bool for_each_field(T& object, Visit&& visit)
{
    using plain = std::remove_const_t<T>;
    if constexpr (described<plain>) {
        return detail::visit_described(object, visit);
    } else {
        static_assert(aggregate<plain>, "bitrep::reflect: not an aggregate and not described");
        return [&]<std::size_t... I>(std::index_sequence<I...>) BITREP_LAMBDA_ALWAYS_INLINE {
            auto&& fields = detail::aggregate_tie(object);
            return (visit(detail::tied_get<I>(fields), detail::position_id<I>) && ...);
        }(std::make_index_sequence<detail::aggregate_size<plain>>{});
    }
}

namespace detail {
template <class T>
constexpr std::size_t count_fields()
{
    if constexpr (described<T>)
        return description<T>::listed;
    else
        return aggregate_size<T>;
}
} // namespace detail

/// How many fields for_each_field visits (described bases count as fields).
template <class T>
inline constexpr std::size_t field_count = detail::count_fields<T>();

/// The I-th field for_each_field visits, by reference (for code that must
/// reach fields in an order decided at run time, e.g. a save file's schema).
template <std::size_t I, class T>
BITREP_ALWAYS_INLINE constexpr auto& field_at(T& object) noexcept
{
    using plain = std::remove_const_t<T>;
    if constexpr (described<plain>) {
        constexpr std::size_t base_count = boost::mp11::mp_size<detail::bases_of<plain>>::value;
        if constexpr (I < base_count) {
            using base = typename boost::mp11::mp_at_c<detail::bases_of<plain>, I>::type;
            return static_cast<std::conditional_t<std::is_const_v<T>, const base&, base&>>(object);
        } else {
            return object.*boost::mp11::mp_at_c<detail::members_of<plain>, I - base_count>::pointer;
        }
    } else {
        return detail::aggregate_get<I>(object);
    }
}

/// The identity for_each_field passes with field I.
template <class T, std::size_t I>
constexpr const field_id& field_id_at() noexcept
{
    if constexpr (described<T>) {
        constexpr std::size_t base_count = boost::mp11::mp_size<detail::bases_of<T>>::value;
        if constexpr (I < base_count)
            return detail::base_id;
        else
            return detail::member_id<boost::mp11::mp_at_c<detail::members_of<T>, I - base_count>, I - base_count>;
    } else {
        return detail::position_id<I>;
    }
}

/// Field I of T as bitrep's compile-time refusals name it: the compiler
/// prints named_field<&Player::gold> for a described member, and
/// positional_field<Player, 1> for an aggregate's field (or a described
/// base) at position 1.
template <auto MemberPointer>
struct named_field {};
template <class T, std::size_t Position>
struct positional_field {};

namespace detail {
template <class T, std::size_t I>
constexpr auto field_label_of() noexcept
{
    if constexpr (described<T>) {
        constexpr std::size_t base_count = boost::mp11::mp_size<bases_of<T>>::value;
        if constexpr (I >= base_count)
            return named_field<boost::mp11::mp_at_c<members_of<T>, I - base_count>::pointer>{};
        else
            return positional_field<T, I>{};
    } else {
        return positional_field<T, I>{};
    }
}
} // namespace detail

template <class T, std::size_t I>
using field_label = decltype(detail::field_label_of<T, I>());

/// The type of field I (cv-qualifiers removed).
template <class T, std::size_t I>
using field_type_at = std::remove_cvref_t<decltype(field_at<I>(std::declval<T&>()))>;

} // namespace bitrep::reflect

namespace bitrep {

/// Annotations given outside a type, for structs a game cannot or will not
/// edit (`struct Transform { float x, y, z; };` from an existing codebase):
///
///     template <> struct bitrep::annotate<Transform> {
///         using fields = std::tuple<bitrep::quantized<-512.f, 512.f, 0.01f>,
///                                   bitrep::quantized<-512.f, 512.f, 0.01f>,
///                                   bitrep::as_is>;
///     };
///
/// one entry per field, in the order for_each_field visits them; `as_is`
/// keeps a field's own encoding. Every codec, delta, schema and save-file
/// walk then sees field I as the annotation (its wire type); the struct
/// keeps its plain members.
template <class T>
struct annotate {};

/// In `annotate<T>::fields`: this field is sent as its own type.
struct as_is {};

} // namespace bitrep

namespace bitrep::reflect {

template <class T>
concept annotated_outside = requires { typename annotate<T>::fields; };

namespace detail {
// Never true: the conditions of the refusals of an annotate<T>, which the
// compiler prints with T and the counts, or the field and the annotation.
template <class T, std::size_t Entries, std::size_t Fields>
inline constexpr bool one_annotation_per_field = false;
template <class Field, class Annotation>
inline constexpr bool converts_to_and_from = false;

/// Whether annotate<T>::fields has one entry per field of T; when it has
/// not, its refusal (once per T), and every field is sent as it is.
template <class T, std::size_t Entries = std::tuple_size_v<typename annotate<T>::fields>,
          std::size_t Fields = field_count<T>>
constexpr bool annotation_count_fits()
{
    if constexpr (Entries == Fields) {
        return true;
    } else {
        static_assert(one_annotation_per_field<T, Entries, Fields>,
                      "bitrep::annotate<T>::fields: one entry per field of T (bitrep::as_is for a field sent as it "
                      "is); the condition gives T, the entries, and T's fields");
        return false;
    }
}

/// The annotation given to field I of T, once it is known to convert from
/// the field's type and back; when it does not, its refusal, and the field
/// is sent as it is.
template <class T, std::size_t I, class Given>
constexpr auto checked_annotation()
{
    using field = field_type_at<T, I>;
    using given = std::conditional_t<std::is_same_v<Given, as_is>, field, Given>;
    if constexpr (std::is_same_v<given, field> ||
                  (std::is_constructible_v<given, const field&> && std::is_constructible_v<field, const given&>)) {
        return std::type_identity<given>{};
    } else {
        static_assert(converts_to_and_from<field_label<T, I>, given>,
                      "bitrep::annotate<T>::fields: an annotation must convert from the field's type and back (the "
                      "condition names the field and the annotation)");
        return std::type_identity<field>{};
    }
}

template <class T, std::size_t I>
struct wire_type {
    using type = field_type_at<T, I>;
};
template <annotated_outside T, std::size_t I>
    requires(annotation_count_fits<T>())
struct wire_type<T, I> {
    using type = typename decltype(checked_annotation<T, I, std::tuple_element_t<I, typename annotate<T>::fields>>())::type;
};
} // namespace detail

/// The type field I is sent as: its annotation in `annotate<T>::fields`
/// when it has one, else its own type. Walkers that encode ask for this.
template <class T, std::size_t I>
using wire_type_at = typename detail::wire_type<T, I>::type;

/// Whether field I is held as one type and sent as another.
template <class T, std::size_t I>
inline constexpr bool sent_as_other = !std::is_same_v<wire_type_at<T, I>, field_type_at<T, I>>;

/// Calls f(field_as_sent...) with field I of each object: the field itself
/// when it is sent as its own type, else a temporary of its wire type made
/// from it (default-made for a wire type that is never copied: a transient
/// flag). When f succeeds and WriteBack holds, the first object's field is
/// assigned from its temporary (reading decodes into the temporary).
template <std::size_t I, bool WriteBack, class F, class First, class... Rest>
BITREP_ALWAYS_INLINE bool with_field_as_sent(F&& f, First& first, Rest&... rest)
{
    using plain = std::remove_cvref_t<First>;
    if constexpr (!sent_as_other<plain, I>) {
        return f(field_at<I>(first), field_at<I>(rest)...);
    } else {
        using wire = wire_type_at<plain, I>;
        constexpr bool never_copied = [] {
            if constexpr (requires { wire::flag; })
                return wire::flag == std::remove_cv_t<decltype(wire::flag)>::transient;
            else
                return false;
        }();
        if constexpr (never_copied) {
            wire a{};
            return f(a, (static_cast<void>(rest), a)...);
        } else {
            wire a(field_at<I>(first));
            if (!f(a, static_cast<const wire&>(wire(field_at<I>(rest)))...))
                return false;
            if constexpr (WriteBack)
                field_at<I>(first) = static_cast<field_type_at<plain, I>>(a);
            return true;
        }
    }
}

/// Calls visit.template operator()<WireType>() for each field's wire type, in
/// the order for_each_field visits them, and folds the results with `combine`.
template <class T, class Result, class Visit, class Combine>
constexpr Result fold_field_types(Result initial, Visit visit, Combine combine)
{
    Result result = initial;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        ((result = combine(result, visit.template operator()<wire_type_at<T, I>>())), ...);
    }(std::make_index_sequence<field_count<T>>{});
    return result;
}

template <class E>
concept described_enum = std::is_enum_v<E> && boost::describe::has_describe_enumerators<E>::value;

namespace detail {
// Never true: the conditions of the refusals of an enum without
// enumerators, or flags, with the enum in them.
template <class E>
inline constexpr bool has_enumerators = false;
template <class E>
inline constexpr bool has_flags = false;

// Count, once it is known not to be 0: of an enum's enumerators, or
// (Flags) of a flag enum's flags. (A function, not a static_assert in the
// class, which clang would then refuse in every constant expression that
// reads the class: one error instead of a dozen.)
template <class E, std::size_t Count, bool Flags>
constexpr std::size_t checked_count() noexcept
{
    if constexpr (Count == 0 && !Flags)
        static_assert(has_enumerators<E>, "bitrep: an enum needs at least one described enumerator: list them in "
                                          "BOOST_DESCRIBE_ENUM(YourEnum, enumerator1, ...)");
    else if constexpr (Count == 0)
        static_assert(has_flags<E>, "bitrep: a flag enum needs at least one enumerator of one bit (a flag), "
                                    "described in its BOOST_DESCRIBE_ENUM");
    return Count;
}
} // namespace detail

/// An enum's enumerators in declaration order: the wire sends the index.
template <described_enum E>
struct enumerators {
    static constexpr auto values = []<class... D>(boost::mp11::mp_list<D...>) {
        return std::array<E, sizeof...(D)>{D::value...};
    }(boost::mp11::mp_rename<boost::describe::describe_enumerators<E>, boost::mp11::mp_list>{});
    static constexpr auto names = []<class... D>(boost::mp11::mp_list<D...>) {
        return std::array<std::string_view, sizeof...(D)>{D::name...};
    }(boost::mp11::mp_rename<boost::describe::describe_enumerators<E>, boost::mp11::mp_list>{});
    static constexpr std::size_t count = detail::checked_count<E, values.size(), false>();

    /// Whether enumerator i has the value i (the common `enum class { a, b, c }`),
    /// which makes the index the value itself.
    static constexpr bool values_are_indices = [] {
        for (std::size_t i = 0; i < count; ++i)
            if (static_cast<std::underlying_type_t<E>>(values[i]) != static_cast<std::underlying_type_t<E>>(i))
                return false;
        return true;
    }();

    /// The declaration index of value, or count when it is not an enumerator.
    static constexpr std::size_t index_of(E value) noexcept
    {
        if constexpr (values_are_indices) {
            const auto raw = static_cast<std::uint64_t>(value); // negative values wrap far above count
            return raw < count ? static_cast<std::size_t>(raw) : count;
        } else {
            for (std::size_t i = 0; i < count; ++i)
                if (values[i] == value)
                    return i;
            return count;
        }
    }
};

/// An enum whose enumerators are bit flags, opted in next to its
/// description with `constexpr bool bitrep_flags(Access) { return true; }`
/// (found by argument-dependent lookup).
template <class E>
concept flag_enum = described_enum<E> && requires { requires bitrep_flags(E{}); };

/// A flag enum's flags: its enumerators of one bit, in declaration order (an
/// alias of an earlier flag, `none = 0` or a combination is no flag).
template <flag_enum E>
struct flags {
    using bits_type = std::make_unsigned_t<std::underlying_type_t<E>>;
    struct table_type {
        std::array<bits_type, enumerators<E>::count> masks{};
        std::array<std::string_view, enumerators<E>::count> names{};
        std::size_t count = 0;
        bits_type all = 0;
    };
    static constexpr table_type table = [] {
        table_type t;
        for (std::size_t i = 0; i < enumerators<E>::count; ++i) {
            const auto bits = static_cast<bits_type>(enumerators<E>::values[i]);
            if (!std::has_single_bit(bits) || (t.all & bits) != 0)
                continue;
            t.masks[t.count] = bits;
            t.names[t.count] = enumerators<E>::names[i];
            ++t.count;
            t.all = static_cast<bits_type>(t.all | bits);
        }
        return t;
    }();
    static constexpr std::size_t count = detail::checked_count<E, table.count, true>();
};

namespace detail {
template <class T>
constexpr std::string_view pretty_function_of() noexcept
{
    return __PRETTY_FUNCTION__; // "...[with T = Player; ...]" (GCC) or "...[T = Player]" (clang)
}
} // namespace detail

/// A readable type name for error paths (e.g. "Player"), taken from the
/// compiler at compile time so that reporting a failure never allocates. A
/// leading anonymous namespace is dropped; GCC and clang then agree.
template <class T>
constexpr std::string_view type_name() noexcept
{
    constexpr std::string_view full = detail::pretty_function_of<T>();
    constexpr std::size_t start = full.find("T = ") + 4;
    constexpr std::size_t semicolon = full.find(';', start);
    constexpr std::size_t end = semicolon != std::string_view::npos ? semicolon : full.rfind(']');
    std::string_view name = full.substr(start, end - start);
    for (std::string_view anonymous : {std::string_view("(anonymous namespace)::"), std::string_view("{anonymous}::")})
        if (name.starts_with(anonymous))
            name.remove_prefix(anonymous.size());
    return name;
}

/// A type's name in save files' schemas: the id the type gives itself with
/// `static constexpr std::string_view bitrep_name = "...";` (which survives
/// renaming or moving the type, and every compiler spells alike), else
/// type_name<T>().
template <class T>
constexpr std::string_view stable_name() noexcept
{
    if constexpr (requires { std::string_view(T::bitrep_name); })
        return std::string_view(T::bitrep_name);
    else
        return type_name<T>();
}

} // namespace bitrep::reflect
