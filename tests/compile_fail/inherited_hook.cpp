// expect: inherits a serialize\(Stream&\) hook from its base class
#include <bitrep/bitrep.hpp>
#include <cstdint>
struct Base {
    std::uint8_t a = 0;
    template <class Stream>
    bool serialize(Stream& stream) { return bitrep::serialize(stream, a); }
};
// Base's hook would write `a` and silently drop `b`.
struct Derived : Base { std::uint32_t b = 0; };
int main() { return static_cast<int>(bitrep::to_bytes(Derived{}).size()); }
