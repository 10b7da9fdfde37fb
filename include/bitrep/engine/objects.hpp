// T as the engine's entry points take it (value_type_v<T>), and what the
// library needs to make, assign and exchange T's objects when it decodes
// into a working object (object_ops_v<T>).
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include <bitrep/engine/entries.hpp>
#include <bitrep/engine/table.hpp>
#include <bitrep/reflect.hpp>

namespace bitrep::engine {

namespace detail {
/// Whether a read of the whole value writes all of it: no transient field, no
/// hook (which may skip some), no member a description leaves out.
constexpr bool carries_every_field(const field_entry& e) noexcept
{
    if (is_transient(e))
        return false;
    switch (e.kind) {
    case kind::codec: return false;
    case kind::structure:
        if (!e.nested->complete)
            return false;
        for (std::uint32_t i = 0; i < e.nested->count; ++i)
            if (!carries_every_field(e.nested->fields[i]))
                return false;
        return true;
    case kind::vector:
    case kind::array:
    case kind::optional:
    case kind::proxy: return carries_every_field(*e.element);
    case kind::variant:
        for (std::uint64_t i = 0; i < e.fixed.count; ++i)
            if (!carries_every_field(e.element[i]))
                return false;
        return true;
    default: return true; // a map's entries are made anew; leaves are written whole
    }
}

/// Whether the library can exchange two objects part by part from their
/// entries (exchange_parts): bytes, strings and vectors (through their
/// container_access::swap), in structs whose every member is a field.
/// Decided from kinds alone: g++ under -fsanitize=undefined does not fold
/// an address compared with null in a constant expression.
constexpr bool exchanged_by_parts(const field_entry& e) noexcept
{
    if (is_transient(e) || e.object_size == 0 || e.trivially_copyable)
        return true;
    switch (e.kind) {
    case kind::string:
    case kind::vector: return true;
    case kind::structure:
        if (!e.nested->complete)
            return false;
        for (std::uint32_t i = 0; i < e.nested->count; ++i)
            if (!exchanged_by_parts(e.nested->fields[i]))
                return false;
        return true;
    default: return false;
    }
}

/// A swap exchanges pointers for containers; for a flat T (an array of
/// plain structs) it would copy three times what one assignment copies once.
template <class T>
void exchange_objects(void* out, void* working)
{
    if constexpr (std::is_trivially_copyable_v<T>) {
        *static_cast<T*>(out) = *static_cast<const T*>(working);
    } else {
        using std::swap;
        swap(*static_cast<T*>(out), *static_cast<T*>(working));
    }
}

template <class T>
inline constexpr bool reads_every_field = carries_every_field(entry_v<T>) && std::is_default_constructible_v<T>;

/// Whether the engine decodes T into a working object it makes and then
/// exchanges with the destination (else into a copy of the destination on
/// the stack, in the header): a flat T is copied as cheaply as exchanged,
/// and one with no default constructor cannot be made.
template <class T>
inline constexpr bool made_working = !std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>;

/// (if constexpr: a function whose address is not taken is not compiled.)
template <class T>
constexpr auto assign_for() noexcept
{
    if constexpr (reads_every_field<T>)
        return static_cast<void (*)(void*, const void*)>(nullptr);
    else
        return &copy_object<T>;
}

template <class T>
constexpr auto exchange_for() noexcept
{
    constexpr const field_entry& e = entry_v<T>;
    if constexpr (!is_transient(e) && e.object_size != 0 && exchanged_by_parts(e))
        return static_cast<void (*)(void*, void*)>(nullptr);
    else
        return &exchange_objects<T>;
}

template <class T>
inline constexpr object_ops object_ops_v{&make_object<T>, &destroy_object<T>, assign_for<T>(), exchange_for<T>()};

} // namespace detail

/// T as to_bytes, from_bytes, bit_size and decoder<T> hand it to the engine
/// (and, to decode into a working object, detail::object_ops_v<T>).
template <class T>
inline constexpr value_type value_type_v{root_v<T>, reflect::type_name<T>(), detail::reads_every_field<T>};

} // namespace bitrep::engine
