// A saved type's version and its migrate hook (docs/guide/save.md, "When
// the structs change"): what a save file records of each struct and hook
// type, and what a load runs on every value of one that an older version
// wrote. The engine's tables hold both for each type (schema_info), so the
// compiled load calls them through a pointer.
#pragma once

#include <cstdint>
#include <type_traits>

namespace bitrep {

/// The save_version a type declares (`static constexpr std::uint32_t
/// save_version = 3;`), or 1.
template <class T>
constexpr std::uint32_t save_version_of() noexcept
{
    if constexpr (requires { T::save_version; })
        return static_cast<std::uint32_t>(T::save_version);
    else
        return 1;
}

namespace detail {
template <class T>
concept has_member_migrate = requires(T& value, std::uint32_t from) { value.migrate(from); };
template <class T>
concept has_free_migrate = requires(T& value, std::uint32_t from) { migrate(from, value); };

/// Runs T's migrate hook, if it has one; a hook returning false refuses.
template <class T>
bool run_migrate(T& value, std::uint32_t from_version)
{
    if constexpr (has_member_migrate<T>) {
        if constexpr (std::is_convertible_v<decltype(value.migrate(from_version)), bool>)
            return static_cast<bool>(value.migrate(from_version));
        else
            value.migrate(from_version);
    } else if constexpr (has_free_migrate<T>) {
        if constexpr (std::is_convertible_v<decltype(migrate(from_version, value)), bool>)
            return static_cast<bool>(migrate(from_version, value));
        else
            migrate(from_version, value);
    }
    return true;
}

/// run_migrate on a T the caller passes as `object`.
template <class T>
bool migrate_object(void* object, std::uint32_t from_version)
{
    return run_migrate(*static_cast<T*>(object), from_version);
}

/// T's migrate hook as the engine's tables hold it: nullptr when T has none.
template <class T>
constexpr bool (*migrate_hook() noexcept)(void*, std::uint32_t)
{
    if constexpr (has_member_migrate<T> || has_free_migrate<T>)
        return &migrate_object<T>;
    else
        return nullptr;
}
} // namespace detail

} // namespace bitrep
