// expect: bounded_map<K, V, MaxSize, Map>: Map must map K to V
#include <bitrep/bitrep.hpp>
#include <unordered_map>
struct Stash { bitrep::bounded_map<int, int, 8, std::unordered_map<int, long>> counts; };
int main() { return static_cast<int>(bitrep::to_bytes(Stash{}).size()); }
