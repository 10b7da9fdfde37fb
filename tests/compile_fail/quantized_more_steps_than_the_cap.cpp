// expect: quantized<Min, Max, Resolution>: \(Max - Min\) / Resolution is more steps than the 2\^32 - 256
// expect: (1\.99999999e\+33f <= 4\.29496704e\+9f|steps_asked <= detail::max_quanta)
#include <bitrep/bitrep.hpp>
// 2e33 steps of a thousandth: the standard would send 2^32 - 256 steps of 4.7e20.
struct Far { bitrep::quantized<-1e30f, 1e30f, 1e-3f> x; };
int main() { return static_cast<int>(bitrep::to_bytes(Far{}).size()); }
