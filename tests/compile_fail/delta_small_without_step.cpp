// expect: delta_small: MaxStep must be at least 1
#include <bitrep/bitrep.hpp>
struct Counter { bitrep::delta_small<bitrep::ranged<int, 0, 1000>, 0> value; };
int main() { return static_cast<int>(bitrep::to_bytes(Counter{}).size()); }
