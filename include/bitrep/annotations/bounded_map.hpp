// bounded_map<K, V, MaxSize> and bounded_set<K, MaxSize>: a standard map or
// set (ordered or unordered) whose size the wire bounds.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <map>
#include <set>
#include <type_traits>
#include <utility>

namespace bitrep {

/// What bounded_map and bounded_set share: a standard Container (a map or a
/// set) and its interface for looking up, counting and erasing keys.
template <class Container, std::size_t MaxSize>
class bounded_container {
public:
    using key_type = typename Container::key_type;
    using value_type = typename Container::value_type;
    using size_type = std::size_t;
    using iterator = typename Container::iterator;
    using const_iterator = typename Container::const_iterator;
    static constexpr std::size_t max_entries = MaxSize;

    bounded_container() = default;
    bounded_container(std::initializer_list<value_type> items) : items_(items) {}
    bounded_container(Container items) noexcept : items_(std::move(items)) {}

    std::size_t size() const noexcept { return items_.size(); }
    bool empty() const noexcept { return items_.empty(); }
    static constexpr std::size_t max_size() noexcept { return MaxSize; }
    bool fits() const noexcept { return items_.size() <= MaxSize; }

    iterator begin() noexcept { return items_.begin(); }
    iterator end() noexcept { return items_.end(); }
    const_iterator begin() const noexcept { return items_.begin(); }
    const_iterator end() const noexcept { return items_.end(); }
    const_iterator find(const key_type& key) const { return items_.find(key); }
    bool contains(const key_type& key) const { return items_.find(key) != items_.end(); }
    std::size_t count(const key_type& key) const { return items_.count(key); }

    template <class... Args>
    std::pair<iterator, bool> emplace(Args&&... args) { return items_.emplace(std::forward<Args>(args)...); }
    std::size_t erase(const key_type& key) { return items_.erase(key); }
    iterator erase(const_iterator at) { return items_.erase(at); }
    void clear() noexcept { items_.clear(); }

    friend bool operator==(const bounded_container&, const bounded_container&) = default;

protected:
    Container items_;
};

/// At most MaxSize entries of a Map (std::map<K, V> by default; any map
/// with the standard interface, e.g. std::unordered_map<K, V>), sent as the
/// count in bits_required(0, MaxSize) bits, then each entry's key and value
/// in ascending key order (K's operator<), so equal maps give equal bytes
/// whatever their hash order. A larger map is refused on write; a read
/// never makes more than MaxSize entries and refuses a key given twice
/// (duplicate_key). A delta sends the removed, changed and inserted entries.
template <class K, class V, std::size_t MaxSize, class Map = std::map<K, V>>
class bounded_map : public bitrep::bounded_container<Map, MaxSize> {
    static_assert(std::is_same_v<typename Map::key_type, K> && std::is_same_v<typename Map::mapped_type, V>,
                  "bounded_map<K, V, MaxSize, Map>: Map must map K to V");
    using bounded_container = bitrep::bounded_container<Map, MaxSize>;
    using bounded_container::items_;

public:
    using map_type = Map;
    using mapped_type = V;
    using typename bounded_container::iterator;
    using typename bounded_container::value_type;

    using bounded_container::bounded_container;

    operator const Map&() const noexcept { return items_; }
    const Map& map() const noexcept { return items_; }
    Map& map() noexcept { return items_; }

    using bounded_container::find;
    iterator find(const K& key) { return items_.find(key); }
    V& at(const K& key) { return items_.at(key); }
    const V& at(const K& key) const { return items_.at(key); }
    V& operator[](const K& key) { return items_[key]; }
    V& operator[](K&& key) { return items_[std::move(key)]; }

    std::pair<iterator, bool> insert(const value_type& entry) { return items_.insert(entry); }
    template <class M>
    std::pair<iterator, bool> insert_or_assign(const K& key, M&& value)
    {
        return items_.insert_or_assign(key, std::forward<M>(value));
    }
    template <class... Args>
    std::pair<iterator, bool> try_emplace(const K& key, Args&&... args)
    {
        return items_.try_emplace(key, std::forward<Args>(args)...);
    }

    friend bool operator==(const bounded_map&, const bounded_map&) = default;
};

/// At most MaxSize keys of a Set (std::set<K> by default, or e.g.
/// std::unordered_set<K>), sent as the count, then the keys in ascending
/// order; a key given twice is refused on read. A delta sends the removed
/// and inserted keys.
template <class K, std::size_t MaxSize, class Set = std::set<K>>
class bounded_set : public bitrep::bounded_container<Set, MaxSize> {
    static_assert(std::is_same_v<typename Set::key_type, K> && std::is_same_v<typename Set::value_type, K>,
                  "bounded_set<K, MaxSize, Set>: Set must hold K");
    using bounded_container = bitrep::bounded_container<Set, MaxSize>;
    using bounded_container::items_;

public:
    using set_type = Set;
    using typename bounded_container::iterator;

    using bounded_container::bounded_container;

    operator const Set&() const noexcept { return items_; }
    const Set& set() const noexcept { return items_; }
    Set& set() noexcept { return items_; }

    std::pair<iterator, bool> insert(const K& key) { return items_.insert(key); }
    std::pair<iterator, bool> insert(K&& key) { return items_.insert(std::move(key)); }

    friend bool operator==(const bounded_set&, const bounded_set&) = default;
};

} // namespace bitrep
