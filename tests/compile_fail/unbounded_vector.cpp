// expect: std::vector has no bound
// expect: positional_field<Inventory, 0>
#include <bitrep/bitrep.hpp>
#include <vector>
struct Inventory { std::vector<int> items; };
int main() { return static_cast<int>(bitrep::to_bytes(Inventory{}).size()); }
