// expect: quat: BitsPerComponent must be in \[3, 24\]
#include <bitrep/bitrep.hpp>
struct Body { bitrep::quat<32> orientation; };
int main() { return static_cast<int>(bitrep::to_bytes(Body{}).size()); }
