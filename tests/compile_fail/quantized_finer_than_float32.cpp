// expect: quantized<Min, Max, Resolution>: float32 cannot hold Resolution over the range
// expect: (6\.25e-2f <= 9\.99999978e-3f|float32_spacing <= resolution_asked)
// expect: \{1000000, 0\}, (bitrep::float_constant)?\{1001000, 0\}, (bitrep::float_constant)?\{1, -2\}
#include <bitrep/bitrep.hpp>
// Around a million, float32 values are 1/16 apart: a centimetre cannot be held.
struct Far { bitrep::quantized<1e6f, 1.001e6f, 0.01f> x; };
int main() { return static_cast<int>(bitrep::to_bytes(Far{}).size()); }
