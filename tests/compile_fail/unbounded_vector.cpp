// expect: std::vector has no bound
#include <bitrep/bitrep.hpp>
#include <vector>
struct Inventory { std::vector<int> items; };
int main() { return static_cast<int>(bitrep::to_bytes(Inventory{}).size()); }
