// expect: quantized<Min, Max, Resolution>: Min must be below Max
// expect: (1\.0e\+2f < -1\.0e\+2f|min < max)
// expect: \{100, 0\}, (bitrep::float_constant)?\{-100, 0\}, (bitrep::float_constant)?\{1, -2\}
#include <bitrep/bitrep.hpp>
// The bounds the wrong way round; the errors print them as {digits, power of ten}.
struct Mover { bitrep::quantized<100.f, -100.f, 0.01f> x; };
int main() { return static_cast<int>(bitrep::to_bytes(Mover{}).size()); }
