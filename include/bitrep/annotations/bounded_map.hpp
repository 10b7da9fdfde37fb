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

/// At most MaxSize entries of a Map (std::map<K, V> by default; any map
/// with the standard interface, e.g. std::unordered_map<K, V>), sent as the
/// count in bits_required(0, MaxSize) bits, then each entry's key and value
/// in ascending key order (K's operator<), so equal maps give equal bytes
/// whatever their hash order. A larger map is refused on write; a read
/// never makes more than MaxSize entries and refuses a key given twice
/// (duplicate_key). A delta sends the removed, changed and inserted entries.
template <class K, class V, std::size_t MaxSize, class Map = std::map<K, V>>
class bounded_map {
    static_assert(std::is_same_v<typename Map::key_type, K> && std::is_same_v<typename Map::mapped_type, V>,
                  "bounded_map<K, V, MaxSize, Map>: Map must map K to V");

public:
    using map_type = Map;
    using key_type = K;
    using mapped_type = V;
    using value_type = typename Map::value_type;
    using size_type = std::size_t;
    using iterator = typename Map::iterator;
    using const_iterator = typename Map::const_iterator;
    static constexpr std::size_t max_entries = MaxSize;

    bounded_map() = default;
    bounded_map(std::initializer_list<value_type> entries) : entries_(entries) {}
    bounded_map(Map entries) noexcept : entries_(std::move(entries)) {}

    operator const Map&() const noexcept { return entries_; }
    const Map& map() const noexcept { return entries_; }
    Map& map() noexcept { return entries_; }

    std::size_t size() const noexcept { return entries_.size(); }
    bool empty() const noexcept { return entries_.empty(); }
    static constexpr std::size_t max_size() noexcept { return MaxSize; }
    bool fits() const noexcept { return entries_.size() <= MaxSize; }

    iterator begin() noexcept { return entries_.begin(); }
    iterator end() noexcept { return entries_.end(); }
    const_iterator begin() const noexcept { return entries_.begin(); }
    const_iterator end() const noexcept { return entries_.end(); }
    iterator find(const K& key) { return entries_.find(key); }
    const_iterator find(const K& key) const { return entries_.find(key); }
    bool contains(const K& key) const { return entries_.find(key) != entries_.end(); }
    std::size_t count(const K& key) const { return entries_.count(key); }
    V& at(const K& key) { return entries_.at(key); }
    const V& at(const K& key) const { return entries_.at(key); }
    V& operator[](const K& key) { return entries_[key]; }
    V& operator[](K&& key) { return entries_[std::move(key)]; }

    std::pair<iterator, bool> insert(const value_type& entry) { return entries_.insert(entry); }
    template <class M>
    std::pair<iterator, bool> insert_or_assign(const K& key, M&& value)
    {
        return entries_.insert_or_assign(key, std::forward<M>(value));
    }
    template <class... Args>
    std::pair<iterator, bool> emplace(Args&&... args) { return entries_.emplace(std::forward<Args>(args)...); }
    template <class... Args>
    std::pair<iterator, bool> try_emplace(const K& key, Args&&... args)
    {
        return entries_.try_emplace(key, std::forward<Args>(args)...);
    }
    std::size_t erase(const K& key) { return entries_.erase(key); }
    iterator erase(const_iterator at) { return entries_.erase(at); }
    void clear() noexcept { entries_.clear(); }

    friend bool operator==(const bounded_map&, const bounded_map&) = default;

private:
    Map entries_;
};

/// At most MaxSize keys of a Set (std::set<K> by default, or e.g.
/// std::unordered_set<K>), sent as the count, then the keys in ascending
/// order; a key given twice is refused on read. A delta sends the removed
/// and inserted keys.
template <class K, std::size_t MaxSize, class Set = std::set<K>>
class bounded_set {
    static_assert(std::is_same_v<typename Set::key_type, K> && std::is_same_v<typename Set::value_type, K>,
                  "bounded_set<K, MaxSize, Set>: Set must hold K");

public:
    using set_type = Set;
    using key_type = K;
    using value_type = K;
    using size_type = std::size_t;
    using iterator = typename Set::iterator;
    using const_iterator = typename Set::const_iterator;
    static constexpr std::size_t max_entries = MaxSize;

    bounded_set() = default;
    bounded_set(std::initializer_list<K> keys) : keys_(keys) {}
    bounded_set(Set keys) noexcept : keys_(std::move(keys)) {}

    operator const Set&() const noexcept { return keys_; }
    const Set& set() const noexcept { return keys_; }
    Set& set() noexcept { return keys_; }

    std::size_t size() const noexcept { return keys_.size(); }
    bool empty() const noexcept { return keys_.empty(); }
    static constexpr std::size_t max_size() noexcept { return MaxSize; }
    bool fits() const noexcept { return keys_.size() <= MaxSize; }

    iterator begin() noexcept { return keys_.begin(); }
    iterator end() noexcept { return keys_.end(); }
    const_iterator begin() const noexcept { return keys_.begin(); }
    const_iterator end() const noexcept { return keys_.end(); }
    const_iterator find(const K& key) const { return keys_.find(key); }
    bool contains(const K& key) const { return keys_.find(key) != keys_.end(); }
    std::size_t count(const K& key) const { return keys_.count(key); }

    std::pair<iterator, bool> insert(const K& key) { return keys_.insert(key); }
    std::pair<iterator, bool> insert(K&& key) { return keys_.insert(std::move(key)); }
    template <class... Args>
    std::pair<iterator, bool> emplace(Args&&... args) { return keys_.emplace(std::forward<Args>(args)...); }
    std::size_t erase(const K& key) { return keys_.erase(key); }
    iterator erase(const_iterator at) { return keys_.erase(at); }
    void clear() noexcept { keys_.clear(); }

    friend bool operator==(const bounded_set&, const bounded_set&) = default;

private:
    Set keys_;
};

} // namespace bitrep
