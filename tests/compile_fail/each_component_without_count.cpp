// expect: each_component<T, Component, N>: give N, the number of components of T
#include <bitrep/bitrep.hpp>
// A vector type that says nothing of its size needs N.
struct Vec3 {
    float v[3];
    float& operator[](int i) { return v[i]; }
    const float& operator[](int i) const { return v[i]; }
};
struct Body { bitrep::each_component<Vec3, bitrep::quantized<-10.f, 10.f, 0.01f>> position; };
int main() { return static_cast<int>(bitrep::to_bytes(Body{}).size()); }
