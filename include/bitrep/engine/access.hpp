// The few accessor functions per type that the engine's tables point to
// (each a line or two, and no serialization code): how to reach a
// container's elements, an optional's value, a variant's alternatives, a
// map's entries and a proxy's wire object.
#pragma once

#include <bitset>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <bitrep/annotations/entity_array.hpp>
#include <bitrep/detail/portability.hpp>
#include <bitrep/detail/proxy_traits.hpp>
#include <bitrep/wire/coded_stream.hpp>
#include <bitrep/engine/in_place.hpp>
#include <bitrep/engine/table.hpp>
#include <bitrep/serialize.hpp>

namespace bitrep::engine::detail {

template <class T>
std::size_t vector_size(const void* v) noexcept
{
    return static_cast<const std::vector<T>*>(v)->size();
}
template <class T>
void* vector_data(void* v) noexcept
{
    return static_cast<std::vector<T>*>(v)->data();
}
/// Out of line already (the engine calls it through a pointer), so it
/// resizes itself rather than through resize_for_decode's out-of-line call.
template <class T>
void vector_resize(void* v, std::size_t size)
{
    auto& vector = *static_cast<std::vector<T>*>(v);
    if (vector.size() != size)
        vector.resize(size);
}
template <class T>
void vector_swap(void* a, void* b) noexcept
{
    static_cast<std::vector<T>*>(a)->swap(*static_cast<std::vector<T>*>(b));
}
template <class T>
inline constexpr container_access vector_access{&vector_size<T>, &vector_data<T>, &vector_resize<T>,
                                                &vector_swap<T>};

inline bool bit_test(const void* v, std::size_t i) noexcept
{
    return (*static_cast<const std::vector<bool>*>(v))[i];
}
inline void bit_assign(void* v, std::size_t i, bool bit) noexcept
{
    (*static_cast<std::vector<bool>*>(v))[i] = bit;
}
inline constexpr bit_vector_access bit_access{&vector_size<bool>, &vector_resize<bool>, &bit_test, &bit_assign};

template <std::size_t N>
std::uint64_t bitset_word(const void* set, std::size_t at, int count) noexcept
{
    return bitrep::detail::bitset_word(*static_cast<const std::bitset<N>*>(set), at, count);
}
template <std::size_t N>
void set_bitset_word(void* set, std::size_t at, int count, std::uint64_t word) noexcept
{
    bitrep::detail::set_bitset_word(*static_cast<std::bitset<N>*>(set), at, count, word);
}
template <std::size_t N>
inline constexpr bitset_access bitset_access_v{&bitset_word<N>, &set_bitset_word<N>};

template <class T>
bool optional_has(const void* o) noexcept
{
    return static_cast<const std::optional<T>*>(o)->has_value();
}
template <class T>
void* optional_value(void* o) noexcept
{
    return &**static_cast<std::optional<T>*>(o);
}
template <class T>
void optional_reset(void* o) noexcept
{
    static_cast<std::optional<T>*>(o)->reset();
}
template <class T>
void optional_emplace(void* o)
{
    static_cast<std::optional<T>*>(o)->emplace();
}
template <class T>
inline constexpr optional_access optional_access_v{&optional_has<T>, &optional_value<T>, &optional_reset<T>,
                                                   &optional_emplace<T>};

template <class V>
std::size_t variant_index(const void* v) noexcept
{
    return static_cast<const V*>(v)->index();
}
template <class V, std::size_t I>
void* variant_held(void* v) noexcept
{
    return std::get_if<I>(static_cast<V*>(v));
}
template <class V, std::size_t I>
void* variant_hold(void* v)
{
    return &bitrep::detail::hold_alternative<I>(*static_cast<V*>(v));
}

template <class T>
using keyed = bitrep::detail::keyed_traits<T>;

/// What a read decodes a map's or set's entry into: std::pair<K, V>, whose
/// key is not const (the stored entries' layout), or K.
template <class T>
using decoded_entry = std::conditional_t<keyed<T>::has_values,
                                         std::pair<typename keyed<T>::key_type, typename keyed<T>::mapped_type>,
                                         typename keyed<T>::key_type>;
template <class T>
std::size_t keyed_size(const void* m) noexcept
{
    return keyed<T>::entries(*static_cast<const T*>(m)).size();
}
template <class T>
const void* const* keyed_sorted(const void* m, scratch& work)
{
    const T& value = *static_cast<const T*>(m);
    const void** sorted = work.array<const void*>(keyed<T>::entries(value).size());
    bitrep::detail::sort_entries(value, sorted);
    return sorted;
}
template <class T>
const auto& key_of_stored(const void* entry) noexcept
{
    return keyed<T>::key_of(*static_cast<const typename keyed<T>::entry*>(entry));
}
template <class T>
bool keyed_key_below(const void* a, const void* b)
{
    if constexpr (bitrep::detail::keys_ordered<T>())
        return key_of_stored<T>(a) < key_of_stored<T>(b);
    else
        return false; // refused
}
template <class T>
const void* keyed_find(const void* m, const void* entry)
{
    const auto& entries = keyed<T>::entries(*static_cast<const T*>(m));
    const auto it = entries.find(key_of_stored<T>(entry));
    return it == entries.end() ? nullptr : bitrep::detail::address_of(*it);
}
template <class T>
void keyed_erase(void* m, const void* entry)
{
    keyed<T>::entries(*static_cast<T*>(m)).erase(key_of_stored<T>(entry));
}
template <class T>
void keyed_clear(void* m) noexcept
{
    keyed<T>::entries(*static_cast<T*>(m)).clear();
}
template <class T>
void* keyed_fresh(scratch& work)
{
    return &work.make<decoded_entry<T>>();
}
template <class T>
bool keyed_insert(void* m, void* decoded)
{
    auto& entries = keyed<T>::entries(*static_cast<T*>(m));
    auto& entry = *static_cast<decoded_entry<T>*>(decoded);
    if constexpr (keyed<T>::has_values)
        return bitrep::detail::emplace_new(entries, std::move(entry.first), std::move(entry.second));
    else
        return bitrep::detail::emplace_new(entries, std::move(entry));
}
template <class T>
inline constexpr map_access map_access_v{keyed<T>::has_values, &keyed_size<T>,   &keyed_sorted<T>,
                                         &keyed_clear<T>,       &keyed_fresh<T>,  &keyed_insert<T>,
                                         &keyed_key_below<T>,   &keyed_find<T>,   &keyed_erase<T>};

template <class T>
using proxy_traits = bitrep::detail::proxy_traits<T>;

template <class T>
void* proxy_to_write(const void* value, scratch& work)
{
    return &work.make<typename proxy_traits<T>::wire>(proxy_traits<T>::to_wire(*static_cast<const T*>(value)));
}
template <class T>
void* proxy_to_read(void*, scratch& work)
{
    return &work.make<typename proxy_traits<T>::wire>();
}
template <class T>
void proxy_from_wire(void* value, const void* wire)
{
    proxy_traits<T>::from_wire(*static_cast<T*>(value), *static_cast<const typename proxy_traits<T>::wire*>(wire));
}

template <class T>
inline constexpr proxy_access proxy_access_v{proxy_in_place<T>, &proxy_to_write<T>, &proxy_to_read<T>,
                                             &proxy_from_wire<T>};

/// An entity_array is sent as its slots, read where they are; a read then
/// recounts the live entities.
using bitrep::detail::entity_array_access;
template <class T>
void* entity_slots_to_write(const void* array, scratch&)
{
    return &entity_array_access::slots(*const_cast<T*>(static_cast<const T*>(array)));
}
template <class T>
void* entity_slots_to_read(void* array, scratch&)
{
    return &entity_array_access::slots(*static_cast<T*>(array));
}
template <class T>
void entity_recount(void* array, const void*)
{
    entity_array_access::recount(*static_cast<T*>(array));
}
template <class T>
inline constexpr proxy_access entity_access_v{nullptr, &entity_slots_to_write<T>, &entity_slots_to_read<T>,
                                              &entity_recount<T>};

/// A field of type F annotated from outside its class as W: a proxy for W,
/// made from the field to write it and to read into it (the part a stream
/// does not carry keeps the field's), the field then assigned from it.
template <class F, class W>
void* annotation_to_write(const void* field, scratch& work)
{
    return &work.make<W>(*static_cast<const F*>(field));
}
template <class F, class W>
void* annotation_to_read(void* field, scratch& work)
{
    return &work.make<W>(*static_cast<F*>(field));
}
template <class F, class W>
void annotation_from_wire(void* field, const void* wire)
{
    *static_cast<F*>(field) = static_cast<F>(*static_cast<W*>(const_cast<void*>(wire)));
}
template <class T, scope Scope>
bool codec_write(basic_write_stream<Scope>& stream, const void* value)
{
    return bitrep::serialize(stream, *static_cast<const T*>(value));
}
template <class T, scope Scope>
bool codec_read(basic_read_stream<Scope>& stream, void* value)
{
    return bitrep::serialize(stream, *static_cast<T*>(value));
}
template <class T, scope Scope>
bool codec_measure(basic_measure_stream<Scope>& stream, const void* value)
{
    return bitrep::serialize(stream, *static_cast<const T*>(value));
}
template <class T, scope Scope>
bool codec_coded_write(basic_coded_write_stream<Scope>& stream, const void* value)
{
    return bitrep::serialize(stream, *static_cast<const T*>(value));
}
template <class T, scope Scope>
bool codec_coded_read(basic_coded_read_stream<Scope>& stream, void* value)
{
    return bitrep::serialize(stream, *static_cast<T*>(value));
}
template <class T, scope Scope>
inline constexpr codec_calls<Scope> codec_calls_v{&codec_write<T, Scope>, &codec_read<T, Scope>,
                                                  &codec_measure<T, Scope>, &codec_coded_write<T, Scope>,
                                                  &codec_coded_read<T, Scope>};
template <class T>
inline constexpr codec_access codec_access_v{codec_calls_v<T, scope::all>, codec_calls_v<T, scope::save>,
                                             codec_calls_v<T, scope::replication>};

} // namespace bitrep::engine::detail
