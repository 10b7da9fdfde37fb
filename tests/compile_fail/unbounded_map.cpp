// expect: std::vector, std::map, std::set and the other standard containers have no bound
// expect: positional_field<Thing, 0>
// expect: bitrep::bounded_map<K, V, MaxSize> for a map
#include <bitrep/bitrep.hpp>
#include <map>
// A std::map field: refused, pointing to bounded_map.
struct Thing { std::map<int, int> counts; };
int main() { return static_cast<int>(bitrep::to_bytes(Thing{}).size()); }
