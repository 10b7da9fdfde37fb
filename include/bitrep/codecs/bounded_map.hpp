// bounded_map<K, V, N> and bounded_set<K, N>: the count, then the entries
// in ascending key order (a map's as std::pair<K, V>), which are the bits of
// a bounded_vector of them; a save file's schema lists them as one.
#pragma once

#include <bitrep/annotations/bounded_map.hpp>
#include <bitrep/codec.hpp>
#include <bitrep/codecs/containers.hpp>
#include <bitrep/codecs/tuple.hpp>
#include <bitrep/detail/counts.hpp>
#include <bitrep/detail/portability.hpp>
#include <bitrep/status.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace bitrep {

namespace detail {

/// What the codecs need of a bounded_map or bounded_set.
template <class T>
struct keyed_traits : std::false_type {};
template <class K, class V, std::size_t N, class Map>
struct keyed_traits<bounded_map<K, V, N, Map>> : std::true_type {
    using type = bounded_map<K, V, N, Map>;
    using container = Map;
    // The map's own (K and V unless bounded_map refuses the Map: nothing
    // else fails then).
    using key_type = typename Map::key_type;
    using mapped_type = typename Map::mapped_type;
    using entry = typename Map::value_type;
    static constexpr bool has_values = true;
    static constexpr std::size_t max_entries = N;
    static Map& entries(type& t) noexcept { return t.map(); }
    static const Map& entries(const type& t) noexcept { return t.map(); }
    static const key_type& key_of(const entry& e) noexcept { return e.first; }
};
template <class K, std::size_t N, class Set>
struct keyed_traits<bounded_set<K, N, Set>> : std::true_type {
    using type = bounded_set<K, N, Set>;
    using container = Set;
    using key_type = typename Set::key_type; // K unless bounded_set refuses the Set
    using mapped_type = void;
    using entry = key_type;
    static constexpr bool has_values = false;
    static constexpr std::size_t max_entries = N;
    static Set& entries(type& t) noexcept { return t.set(); }
    static const Set& entries(const type& t) noexcept { return t.set(); }
    static const key_type& key_of(const entry& e) noexcept { return e; }
};

template <class T>
concept keyed_container = keyed_traits<T>::value;

/// Whether a container already iterates in ascending operator< order (an
/// ordered map or set with its default comparator).
template <class C>
constexpr bool iterates_in_key_order = [] {
    if constexpr (requires { typename C::key_compare; })
        return std::is_same_v<typename C::key_compare, std::less<typename C::key_type>> ||
               std::is_same_v<typename C::key_compare, std::less<>>;
    else
        return false;
}();

// Never true: the refusal of a key type without operator<, with the type.
template <class Key>
inline constexpr bool ordered_key = false;

/// Whether T's keys have operator<, which orders the entries on the wire;
/// when they have not, the refusal (once per T), and false: nothing more is
/// compiled that compares them.
template <class T>
constexpr bool keys_ordered()
{
    using key = typename keyed_traits<T>::key_type;
    if constexpr (requires(const key& a, const key& b) {
                      { a < b } -> std::convertible_to<bool>;
                  }) {
        return true;
    } else {
        static_assert(ordered_key<key>, "bounded_map / bounded_set: the key type needs operator<, which orders the "
                                        "entries on the wire (whatever the container's own order)");
        return false;
    }
}

/// The canonical order: `sorted` (room for the container's size) given
/// pointers to the entries by ascending key. Pointer is the entries' type
/// or, for the engine, an untyped one.
template <class T, class Pointer>
void sort_entries(const T& value, Pointer* sorted)
{
    using traits = keyed_traits<T>;
    using entry = typename traits::entry;
    Pointer* end = sorted;
    for (const auto& e : traits::entries(value))
        *end++ = bitrep::detail::address_of(e);
    if constexpr (keys_ordered<T>() && !iterates_in_key_order<typename traits::container>)
        std::sort(sorted, end, [](Pointer a, Pointer b) {
            return traits::key_of(*static_cast<const entry*>(a)) < traits::key_of(*static_cast<const entry*>(b));
        });
}

/// Room for a map's pointers in key order: on the stack up to `inline_size`
/// entries, allocated beyond.
template <class Pointer, std::size_t inline_size = 64>
class sort_buffer {
public:
    explicit sort_buffer(std::size_t n) : data_(n <= inline_size ? inline_.data() : (more_.resize(n), more_.data()))
    {
    }
    Pointer* data() noexcept { return data_; }

private:
    std::array<Pointer, inline_size> inline_;
    std::vector<Pointer> more_;
    Pointer* data_;
};

/// A map's or set's count in [0, max]: a larger one is refused on write,
/// and when reading, one the rest of the input cannot hold.
template <class Stream>
BITREP_ALWAYS_INLINE bool serialize_keyed_count(Stream& stream, std::uint64_t& count, std::uint64_t max,
                                                std::uint64_t entry_min_bits, bool has_values)
{
    return serialize_vector_count(stream, count, max, entry_min_bits,
                                  has_values ? "map larger than its bound" : "set larger than its bound");
}

/// Adds a decoded entry at the end of the key order; false when the
/// container holds its key already.
template <class Container, class... Parts>
bool emplace_new(Container& entries, Parts&&... parts)
{
    const std::size_t before = entries.size();
    entries.emplace_hint(entries.end(), std::forward<Parts>(parts)...);
    return entries.size() != before;
}

/// A key read twice is refused at `start`, the entry's first bit.
template <class Stream>
bool refuse_duplicate_key(Stream& stream, std::size_t start, bool has_values)
{
    return stream.fail(error::duplicate_key, start,
                       has_values ? "a key the map already holds" : "a key the set already holds");
}

/// Adds a decoded entry; a key already there is refused.
template <class Traits, class Stream, class... Parts>
bool add_decoded_entry(Stream& stream, typename Traits::container& entries, std::size_t start, Parts&&... parts)
{
    if (!emplace_new(entries, std::forward<Parts>(parts)...)) [[unlikely]]
        return refuse_duplicate_key(stream, start, Traits::has_values);
    return true;
}

/// One entry's key (position 0) and, for a map, value (position 1), as
/// std::pair's members would be named. Writing reads the entry only.
template <class Traits, class Stream>
BITREP_ALWAYS_INLINE bool serialize_entry_parts(Stream& stream, typename Traits::key_type& key,
                                                [[maybe_unused]] auto* value)
{
    if (!bitrep::serialize(stream, key)) [[unlikely]] {
        if constexpr (Traits::has_values)
            stream.failure().enter_position(0);
        return false;
    }
    if constexpr (Traits::has_values) {
        if (!bitrep::serialize(stream, *value)) [[unlikely]] {
            stream.failure().enter_position(1);
            return false;
        }
    }
    return true;
}

/// Reads `count` entries into the empty `entries`.
template <class Traits, class Stream>
bool read_entries(Stream& stream, typename Traits::container& entries, std::uint64_t count)
{
    using key_type = typename Traits::key_type;
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::size_t start = stream.position();
        key_type key{};
        bool ok;
        if constexpr (Traits::has_values) {
            typename Traits::mapped_type value{};
            ok = serialize_entry_parts<Traits>(stream, key, &value) &&
                 add_decoded_entry<Traits>(stream, entries, start, std::move(key), std::move(value));
        } else {
            ok = serialize_entry_parts<Traits>(stream, key, static_cast<void*>(nullptr)) &&
                 add_decoded_entry<Traits>(stream, entries, start, std::move(key));
        }
        if (!ok) [[unlikely]] {
            stream.enter_index(static_cast<std::size_t>(i));
            return false;
        }
    }
    return true;
}

/// Writes (or measures) one stored entry.
template <class Traits, class Stream>
BITREP_ALWAYS_INLINE bool write_entry(Stream& stream, const typename Traits::entry& e)
{
    auto& key = const_cast<typename Traits::key_type&>(Traits::key_of(e)); // written, never stored to
    if constexpr (Traits::has_values)
        return serialize_entry_parts<Traits>(stream, key, &const_cast<typename Traits::mapped_type&>(e.second));
    else
        return serialize_entry_parts<Traits>(stream, key, static_cast<void*>(nullptr));
}

} // namespace detail

template <class T>
    requires detail::keyed_container<T>
struct codec<T> {
    using traits = detail::keyed_traits<T>;
    static constexpr std::size_t N = traits::max_entries;

    template <class Stream>
    static bool serialize(Stream& stream, T& value)
    {
        auto& entries = traits::entries(value);
        std::uint64_t size = entries.size();
        if (!detail::serialize_keyed_count(stream, size, N, entry_min_bits(), traits::has_values))
            return false;
        if constexpr (Stream::is_reading) {
            entries.clear();
            return detail::read_entries<traits>(stream, entries, size);
        } else if constexpr (Stream::is_writing && !detail::iterates_in_key_order<typename traits::container>) {
            detail::sort_buffer<const typename traits::entry*> room(entries.size());
            const typename traits::entry** sorted = room.data();
            detail::sort_entries(value, sorted);
            for (std::size_t i = 0; i < entries.size(); ++i) {
                if (!detail::write_entry<traits>(stream, *sorted[i])) [[unlikely]] {
                    stream.enter_index(i);
                    return false;
                }
            }
            return true;
        } else { // in key order already, or measuring (the order does not change the size)
            std::size_t i = 0;
            for (const auto& e : entries) {
                if (!detail::write_entry<traits>(stream, e)) [[unlikely]] {
                    stream.enter_index(i);
                    return false;
                }
                ++i;
            }
            return true;
        }
    }
    static constexpr std::size_t entry_max_bits()
    {
        if constexpr (traits::has_values)
            return detail::add_bits(codec<typename traits::key_type>::max_bits(),
                                    codec<typename traits::mapped_type>::max_bits());
        else
            return codec<typename traits::key_type>::max_bits();
    }
    static constexpr std::size_t entry_min_bits()
    {
        if constexpr (traits::has_values)
            return detail::add_bits(codec<typename traits::key_type>::min_bits(),
                                    codec<typename traits::mapped_type>::min_bits());
        else
            return codec<typename traits::key_type>::min_bits();
    }
    static constexpr std::size_t max_bits()
    {
        return detail::add_bits(static_cast<std::size_t>(detail::count_bits(N)), detail::multiply_bits(N, entry_max_bits()));
    }
    static constexpr std::size_t min_bits() { return static_cast<std::size_t>(detail::count_bits(N)); }
};

} // namespace bitrep
