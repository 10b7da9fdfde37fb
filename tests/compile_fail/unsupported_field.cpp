// expect: std::vector, std::map, std::set and the other standard containers have no bound
// expect: positional_field<Thing, 1>
#include <bitrep/bitrep.hpp>
#include <list>
// A field of a type bitrep has no codec for: a message from bitrep naming the
// struct and the field (an aggregate's field by position) and saying what to
// use, rather than Boost.PFR's errors about std::list.
struct Thing { int id; std::list<int> counts; };
int main() { return static_cast<int>(bitrep::to_bytes(Thing{}).size()); }
