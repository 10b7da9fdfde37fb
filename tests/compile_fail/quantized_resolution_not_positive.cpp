// expect: quantized<Min, Max, Resolution>: Resolution must be positive
#include <bitrep/bitrep.hpp>
// A resolution of 0 would be infinitely many steps: one error, not a cascade.
struct Mover { bitrep::quantized<-100.f, 100.f, 0.f> x; };
int main() { return static_cast<int>(bitrep::to_bytes(Mover{}).size()); }
