// expect: std::vector, std::map, std::set and the other standard containers have no bound
// expect: positional_field<Inventory, 0>
// Through the inlined codecs, the same one refusal.
#define BITREP_INLINE_CODECS 1
#include <bitrep/bitrep.hpp>
#include <vector>
struct Inventory { std::vector<int> items; };
int main() { return static_cast<int>(bitrep::to_bytes(Inventory{}).size()); }
