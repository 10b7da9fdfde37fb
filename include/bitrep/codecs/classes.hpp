// The codec for classes: a serialization hook (member or free) wins over a
// Boost.Describe description, which wins over Boost.PFR (it has names).
// Reflected classes are walked field by field through reflect.hpp, each
// field with its own codec (or the wire type an annotate<T> gives it).
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include <bitrep/codec.hpp>
#include <bitrep/codecs/unsupported.hpp>
#include <bitrep/detail/portability.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/renames.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep {

namespace detail {
template <class T>
concept has_member_hook = requires(T& value, write_stream& w, read_stream& r, measure_stream& m) {
    { value.serialize(w) } -> std::convertible_to<bool>;
    { value.serialize(r) } -> std::convertible_to<bool>;
    { value.serialize(m) } -> std::convertible_to<bool>;
};

template <class T>
concept has_free_hook = requires(T& value, write_stream& w, read_stream& r, measure_stream& m) {
    { bitrep_serialize(w, value) } -> std::convertible_to<bool>;
    { bitrep_serialize(r, value) } -> std::convertible_to<bool>;
    { bitrep_serialize(m, value) } -> std::convertible_to<bool>;
};

/// A serialize(Stream&) member or bitrep_serialize(Stream&, T&) function
/// returning a bool for some of bitrep's streams but not all: a hook
/// written for writing only, which would otherwise be passed over.
template <class T>
concept has_partial_hook =
    !has_member_hook<T> && !has_free_hook<T> &&
    (requires(T& value, write_stream& w) { { value.serialize(w) } -> std::convertible_to<bool>; } ||
     requires(T& value, read_stream& r) { { value.serialize(r) } -> std::convertible_to<bool>; } ||
     requires(T& value, measure_stream& m) { { value.serialize(m) } -> std::convertible_to<bool>; } ||
     requires(T& value, write_stream& w) { { bitrep_serialize(w, value) } -> std::convertible_to<bool>; } ||
     requires(T& value, read_stream& r) { { bitrep_serialize(r, value) } -> std::convertible_to<bool>; } ||
     requires(T& value, measure_stream& m) { { bitrep_serialize(m, value) } -> std::convertible_to<bool>; });

/// The class that declares a member function (for `&T::f` of a function T
/// inherits, its base), or void when the pointer's type is not recognised.
template <class MemberPointer>
struct member_owner {
    using type = void;
};
template <class R, class C, class... A>
struct member_owner<R (C::*)(A...)> {
    using type = C;
};
template <class R, class C, class... A>
struct member_owner<R (C::*)(A...) noexcept> {
    using type = C;
};

/// The base class T's member hook comes from, when T inherits it; void when
/// T declares its own (or when that cannot be told: a hook that is not a
/// template taking the stream type).
template <class T>
struct inherited_hook_owner {
    using type = void;
};
template <class T>
    requires requires { &T::template serialize<write_stream>; }
struct inherited_hook_owner<T> {
    using owner = typename member_owner<decltype(&T::template serialize<write_stream>)>::type;
    using type = std::conditional_t<std::is_same_v<owner, T>, void, owner>;
};

/// How a class is serialized (docs/design/architecture.md, "How a type is recognised").
enum class class_route { member_hook, free_hook, reflected, hidden_by_inherited_hook, partial_hook, unsupported };

template <class T>
constexpr class_route route_for()
{
    if constexpr (has_member_hook<T>) {
        using base = typename inherited_hook_owner<T>::type;
        // A hook inherited from a base serializes the base part only. A
        // described class lists that base in its description (which then
        // goes through the base's hook) next to its own members; any other
        // class may use the base's hook only if it adds no data of its own.
        if constexpr (std::is_void_v<base>)
            return class_route::member_hook;
        else if constexpr (reflect::described<T>)
            return class_route::reflected;
        else
            return sizeof(T) == sizeof(base) ? class_route::member_hook : class_route::hidden_by_inherited_hook;
    } else if constexpr (has_free_hook<T>) {
        return class_route::free_hook;
    } else if constexpr (has_partial_hook<T>) {
        return class_route::partial_hook;
    } else if constexpr (reflect::described<T> || reflect::aggregate<T>) {
        return class_route::reflected;
    } else {
        return class_route::unsupported;
    }
}

// Never true: the conditions of the refusals of a class's hook, with the
// field that holds it (as in supported<Where, T>) and the class in them.
template <class Where, class T>
inline constexpr bool hook_of_its_own = false;
template <class Where, class T>
inline constexpr bool hook_for_every_stream = false;

/// The compile-time refusal of a class bitrep cannot walk, saying what to
/// do; Where names the field that holds it (no_field: none).
template <class Where, class T>
constexpr void refuse_class()
{
    constexpr class_route route = route_for<T>();
    if constexpr (route == class_route::hidden_by_inherited_hook)
        static_assert(hook_of_its_own<Where, T>,
                      "bitrep: this class inherits a serialize(Stream&) hook from its base class, which would skip "
                      "the members it adds. Give it its own hook, or describe it with "
                      "BOOST_DESCRIBE_STRUCT(Derived, (Base), (members...)) so the base goes through its hook and "
                      "the members after it.");
    else if constexpr (route == class_route::partial_hook)
        static_assert(hook_for_every_stream<Where, T>,
                      "bitrep: this class's serialize (or bitrep_serialize) takes only some of bitrep's streams, and "
                      "a hook serves reading, writing and measuring alike: make it a template, "
                      "`template <class Stream> bool serialize(Stream& stream)`, calling the stream's serialize_* "
                      "functions and bitrep::serialize(stream, member).");
    else if constexpr (route == class_route::unsupported)
        refuse_type<Where, T>();
}

/// Whether field I of T is of a type bitrep serializes. When its type's
/// codec refuses it (declares `refused`), the refusal names T and the field,
/// and false tells the caller to go no further with the field: the type's
/// own refusal would say the same again without the field.
template <class T, std::size_t I>
constexpr bool accept_field()
{
    using field = reflect::wire_type_at<T, I>;
    if constexpr (requires { requires codec<field>::refused; }) {
        if constexpr (std::is_class_v<field>)
            refuse_class<reflect::field_label<T, I>, field>();
        else
            refuse_type<reflect::field_label<T, I>, field>();
        return false;
    } else {
        return true;
    }
}

/// Checks every field of a reflected T once, when its codec is instantiated,
/// so that the message that names the field comes before the field type's
/// own; false when one is refused.
template <class T, std::size_t... I>
constexpr bool accept_fields(std::index_sequence<I...>)
{
    return (accept_field<T, I>() && ...);
}

template <class T>
constexpr bool accept_fields()
{
    if constexpr (route_for<T>() == class_route::reflected)
        return accept_fields<T>(std::make_index_sequence<reflect::field_count<T>>{});
    else
        return true;
}

/// Takes the failure record, not the stream, so that the stream's address
/// never escapes into this out-of-line cold path.
BITREP_COLD BITREP_NOINLINE inline void enter_field(failure_record& record, const reflect::field_id& id) noexcept
{
    if (id.is_base)
        return;
    if (id.name.empty())
        record.enter_position(id.position);
    else
        record.enter_member(id.name);
}
} // namespace detail

/// Classes: a serialization hook wins over a Boost.Describe description,
/// which wins over Boost.PFR because it has names.
template <class T>
struct codec {
    /// True when values are walked field by field (delta.hpp compares and
    /// sends them per field); a hook's encoding is one opaque value.
    static constexpr bool walks_fields = detail::route_for<T>() == detail::class_route::reflected;
    /// True when T is refused: a field of type T names itself in the refusal.
    static constexpr bool refused = detail::route_for<T>() == detail::class_route::unsupported ||
                                    detail::route_for<T>() == detail::class_route::hidden_by_inherited_hook ||
                                    detail::route_for<T>() == detail::class_route::partial_hook;
    /// False when a field is refused (its refusal is the one error): the
    /// fields are then not walked at all.
    static constexpr bool fields_accepted = detail::accept_fields<T>();

    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, T& value)
    {
        constexpr detail::class_route route = detail::route_for<T>();
        if constexpr (!fields_accepted) {
            return false;
        } else if constexpr (route == detail::class_route::member_hook) {
            return value.serialize(stream);
        } else if constexpr (route == detail::class_route::free_hook) {
            return bitrep_serialize(stream, value);
        } else if constexpr (route == detail::class_route::reflected && reflect::annotated_outside<T>) {
            return [&]<std::size_t... I>(std::index_sequence<I...>) BITREP_LAMBDA_ALWAYS_INLINE {
                return (serialize_as_sent<I>(stream, value) && ...);
            }(std::make_index_sequence<reflect::field_count<T>>{});
        } else if constexpr (route == detail::class_route::reflected) {
            return reflect::for_each_field(value, [&stream]<class Field>(Field& field, const reflect::field_id& id)
                                                      BITREP_LAMBDA_ALWAYS_INLINE {
                if (bitrep::serialize(stream, field)) [[likely]]
                    return true;
                detail::enter_field(stream.failure(), id);
                return false;
            });
        } else {
            detail::refuse_class<detail::no_field, T>();
            return false;
        }
    }

    static constexpr std::size_t max_bits()
    {
        constexpr detail::class_route route = detail::route_for<T>();
        if constexpr (!fields_accepted) {
            return 0;
        } else if constexpr (route == detail::class_route::member_hook || route == detail::class_route::free_hook) {
            if constexpr (requires { T::bitrep_max_bits; })
                return T::bitrep_max_bits;
            else
                return unbounded_bits;
        } else if constexpr (route == detail::class_route::reflected) {
            return reflect::fold_field_types<T>(std::size_t{0}, []<class Field>() { return codec<Field>::max_bits(); },
                                                detail::add_bits);
        } else {
            detail::refuse_class<detail::no_field, T>();
            return 0;
        }
    }

    /// A lower bound of any value's bits; 0 for a hook (its own business).
    static constexpr std::size_t min_bits()
    {
        constexpr detail::class_route route = detail::route_for<T>();
        if constexpr (route == detail::class_route::reflected && fields_accepted)
            return reflect::fold_field_types<T>(std::size_t{0}, []<class Field>() { return codec<Field>::min_bits(); },
                                                detail::add_bits);
        else
            return 0;
    }

private:
    /// Field I of a type annotated outside itself, through its wire type.
    template <std::size_t I, class Stream>
    BITREP_ALWAYS_INLINE static bool serialize_as_sent(Stream& stream, T& value)
    {
        if (reflect::with_field_as_sent<I, Stream::is_reading>(
                [&stream](auto& field) BITREP_LAMBDA_ALWAYS_INLINE { return bitrep::serialize(stream, field); },
                value)) [[likely]]
            return true;
        detail::enter_field(stream.failure(), reflect::field_id_at<T, I>());
        return false;
    }
};

} // namespace bitrep
