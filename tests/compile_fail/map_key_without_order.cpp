// expect: the key type needs operator<, which orders the entries on the wire
// expect: ordered_key<Key>
#include <bitrep/bitrep.hpp>
#include <cstddef>
#include <unordered_map>
// A hashed map needs no order of its own, but the wire sends keys in order.
struct Key {
    bitrep::ranged<int, 0, 9> a;
    bool operator==(const Key&) const = default;
};
struct KeyHash {
    std::size_t operator()(const Key& k) const { return static_cast<std::size_t>(k.a.value()); }
};
struct Stash { bitrep::bounded_map<Key, int, 8, std::unordered_map<Key, int, KeyHash>> counts; };
int main() { return static_cast<int>(bitrep::to_bytes(Stash{}).size()); }
