// expect: bitrep cannot serialize this type
#include <bitrep/bitrep.hpp>
#include <list>
// A field of a type bitrep has no codec for: one message from bitrep, saying
// what is supported, rather than Boost.PFR's errors about std::list.
struct Thing { std::list<int> counts; };
int main() { return static_cast<int>(bitrep::to_bytes(Thing{}).size()); }
