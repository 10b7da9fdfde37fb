// heap_bound<T>: the most heap memory a value of T can own, computed from
// its declaration alone (the bounds its annotations declare and the sizes of
// the types they hold): the yardstick of allocation_bound_test, which proves
// that no reader allocates more than a small multiple of it, whatever bytes
// it is given (docs/design/robustness.md, "Allocation bounds").
//
// Kinds that own no heap memory (scalars, ranged, quantized, enums, quat,
// durations, bitsets, entity slots' presence) count 0; a kind this header does
// not know counts 0 too, so a reader that allocated for it would fail the
// test rather than pass it.
#pragma once

#include <bitrep/bitrep.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <tuple>
#include <utility>
#include <variant>

namespace heap_bound_detail {

// What the standard containers may hold for N elements of `each` bytes:
// a vector's or string's buffer grows at most twice what it must hold, and
// while it moves both buffers are live (3 N); a node-based map or set keeps
// a node per entry (the value and at most four pointers of links, hash and
// padding) and, if hashed, bucket arrays of at most 2 (N + 2) pointers, two
// of them live while it rehashes.
constexpr std::size_t buffer(std::size_t n, std::size_t each) { return 3 * n * each; }
constexpr std::size_t nodes(std::size_t n, std::size_t value) { return n * (value + 4 * sizeof(void*)) + 4 * (n + 2) * sizeof(void*); }

template <class T>
struct of {
    static constexpr std::size_t fields()
    {
        if constexpr (bitrep::reflect::described<T>) {
            return []<std::size_t... I>(std::index_sequence<I...>) {
                return (std::size_t{0} + ... + of<bitrep::reflect::field_type_at<T, I>>::value);
            }(std::make_index_sequence<bitrep::reflect::field_count<T>>{});
        } else {
            return 0;
        }
    }
    static constexpr std::size_t value = fields();
};

template <class E, std::size_t N>
struct of<bitrep::bounded_vector<E, N>> {
    static constexpr std::size_t value = buffer(N, sizeof(E)) + N * of<E>::value;
};
template <std::size_t N>
struct of<bitrep::bounded_string<N>> {
    static constexpr std::size_t value = buffer(N + 1, 1);
};
template <class K, class V, std::size_t N, class Map>
struct of<bitrep::bounded_map<K, V, N, Map>> {
    static constexpr std::size_t value = nodes(N, sizeof(typename Map::value_type)) + N * (of<K>::value + of<V>::value);
};
template <class K, std::size_t N, class Set>
struct of<bitrep::bounded_set<K, N, Set>> {
    static constexpr std::size_t value = nodes(N, sizeof(K)) + N * of<K>::value;
};
template <class E>
struct of<std::optional<E>> {
    static constexpr std::size_t value = of<E>::value;
};
template <class... A>
struct of<std::variant<A...>> {
    static constexpr std::size_t value = std::max({std::size_t{0}, of<A>::value...});
};
template <class E, std::size_t N>
struct of<std::array<E, N>> {
    static constexpr std::size_t value = N * of<E>::value;
};
template <class E, std::size_t N>
struct of<bitrep::entity_array<E, N>> {
    static constexpr std::size_t value = N * of<E>::value;
};
template <class A, class B>
struct of<std::pair<A, B>> {
    static constexpr std::size_t value = of<A>::value + of<B>::value;
};
template <class... A>
struct of<std::tuple<A...>> {
    static constexpr std::size_t value = (std::size_t{0} + ... + of<A>::value);
};
template <class E, bitrep::field_flag Flag>
struct of<bitrep::flagged<E, Flag>> {
    static constexpr std::size_t value = of<E>::value;
};

} // namespace heap_bound_detail

/// The most heap memory a value of T can own (see above).
template <class T>
inline constexpr std::size_t heap_bound = heap_bound_detail::of<T>::value;

/// A T and what it owns: the memory one more T costs a reader that decodes
/// into a copy and swaps it in.
template <class T>
inline constexpr std::size_t object_bound = sizeof(T) + heap_bound<T>;
