// expect: cannot serialize a pointer \(raw or smart\)
// expect: Store an entity id
// expect: positional_field<Ship, 1>
#include <bitrep/bitrep.hpp>
#include <memory>
struct Cargo { int crates; };
// The member after the unique_ptr must not vanish from the count either.
struct Ship { bitrep::ranged<int, 0, 100> hull; std::unique_ptr<Cargo> cargo; bitrep::ranged<int, 0, 100> fuel; };
int main() { return static_cast<int>(bitrep::to_bytes(Ship{}).size()); }
