// expect: std::map has no bound
// expect: positional_field<Thing, 0>
#include <bitrep/bitrep.hpp>
#include <map>
// A std::map field: refused, pointing to bounded_map.
struct Thing { std::map<int, int> counts; };
int main() { return static_cast<int>(bitrep::to_bytes(Thing{}).size()); }
