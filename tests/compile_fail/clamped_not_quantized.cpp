// expect: clamped<T>: T must be a quantized<Min, Max, Resolution> or a quantized_duration
// expect: clampable<bitrep::ranged<int, 0, 100> ?>
#include <bitrep/bitrep.hpp>
// clamped<> is for quantized floats; a ranged integer refuses what is outside it.
struct Mixer { bitrep::clamped<bitrep::ranged<int, 0, 100>> volume; };
int main() { return static_cast<int>(bitrep::to_bytes(Mixer{}).size()); }
