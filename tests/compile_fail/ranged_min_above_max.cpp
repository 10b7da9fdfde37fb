// expect: ranged<Int, Min, Max>: Min must not be above Max
#include <bitrep/bitrep.hpp>
struct Stats { bitrep::ranged<int, 100, 0> health; };
int main() { return static_cast<int>(bitrep::to_bytes(Stats{}).size()); }
