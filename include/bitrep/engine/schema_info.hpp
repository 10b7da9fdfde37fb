// What a type's entry tells the schema beyond its kind: the names of an
// enum's enumerators, a flag enum's flags and a class's fields (with the
// type's renames), a quantized range, whose encoding a hook or a proxy is,
// a class's save_version and migrate hook.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string_view>
#include <utility>

#include <boost/mp11/algorithm.hpp>

#include <bitrep/codecs/tuple.hpp>
#include <bitrep/detail/migrate.hpp>
#include <bitrep/detail/proxy_traits.hpp>
#include <bitrep/engine/table.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/renames.hpp>
#include <bitrep/save/schema_builder.hpp>

namespace bitrep::engine::detail {

/// The schema's names of an enum's enumerators or flags, or a class's
/// fields, with the type's renames (checked here: a rename that names
/// nothing the type has does not compile).
template <class T, reflect::renames_target Target>
constexpr schema_info named_info(const std::string_view* names)
{
    const std::span<const renamed> renames = bitrep::detail::checked_renames<T, Target>();
    schema_info info;
    info.type_name = reflect::stable_name<T>();
    info.names = names;
    info.renames = renames.data();
    info.rename_count = renames.size();
    return info;
}
template <class E>
inline constexpr schema_info enum_info_v =
    named_info<E, reflect::renames_target::enumerators>(reflect::enumerators<E>::names.data());
template <class E>
inline constexpr schema_info flags_info_v =
    named_info<E, reflect::renames_target::flags>(reflect::flags<E>::table.names.data());

template <class T>
inline constexpr schema_info quantized_info_v = [] {
    schema_info info;
    info.min = T::min;
    info.max = T::max;
    info.resolution = T::resolution;
    return info;
}();

/// A class's save_version and migrate hook, which a load runs on each of
/// its values that an older version wrote.
template <class T>
constexpr schema_info versioned(schema_info info)
{
    info.save_version = save_version_of<T>();
    info.migrate = bitrep::detail::migrate_hook<T>();
    return info;
}

/// A hook's encoding is its own: the schema names whose it is.
template <class T>
inline constexpr schema_info hook_info_v = [] {
    schema_info info;
    info.type_name = reflect::stable_name<T>();
    return versioned<T>(info);
}();

/// A proxy whose traits name a schema of their own: a duration's struct,
/// as data; anything else through the traits' describe.
template <class T>
constexpr bool proxy_describes_itself()
{
    using traits = bitrep::detail::proxy_traits<T>;
    return requires { traits::schema_struct; } || requires(schema_builder& builder) { traits::describe(builder); };
}
template <class T>
void proxy_describe(schema_builder& builder)
{
    bitrep::detail::proxy_traits<T>::describe(builder);
}
template <class T>
inline constexpr schema_info proxy_info_v = [] {
    using traits = bitrep::detail::proxy_traits<T>;
    schema_info info;
    if constexpr (requires { traits::schema_struct; })
        info.type_name = traits::schema_struct;
    else
        info.describe = &proxy_describe<T>;
    return info;
}();

/// A described class's bases, its first fields, by their stable names (the
/// schema names a base ":" and its name).
template <class T>
inline constexpr auto base_names = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<std::string_view, sizeof...(I)>{reflect::stable_name<reflect::wire_type_at<T, I>>()...};
}(std::make_index_sequence<boost::mp11::mp_size<reflect::detail::bases_of<T>>::value>{});

template <class T>
constexpr const std::string_view* base_names_of()
{
    if constexpr (reflect::described<T>) {
        if constexpr (!boost::mp11::mp_empty<reflect::detail::bases_of<T>>::value)
            return base_names<T>.data();
    }
    return nullptr;
}

/// A reflected class by its stable name, a std::pair or std::tuple by that
/// (the same with every compiler).
template <class T>
inline constexpr schema_info structure_info_v = [] {
    if constexpr (bitrep::detail::std_tuple<T>) {
        schema_info info;
        info.type_name = bitrep::detail::std_tuple_traits<T>::name;
        return info;
    } else {
        return versioned<T>(named_info<T, reflect::renames_target::fields>(base_names_of<T>()));
    }
}();

} // namespace bitrep::engine::detail

namespace bitrep::engine {

/// Describes a value of the entry's type to `builder`, from the tables:
/// what the scope of saves carries. Compiled once, in
/// src/engine/describe.cpp; save/schema.hpp's schema_of<T> builds T's schema
/// with it.
void describe(const field_entry& value, schema_builder& builder);

} // namespace bitrep::engine
