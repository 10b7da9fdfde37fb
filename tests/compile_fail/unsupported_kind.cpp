// expect: bitrep cannot serialize this type
// expect: bitrep serializes: bool, integers, float, double; described enums and flag enums; ranged, quantized
// expect: std::variant, std::bitset; std::chrono durations
// expect: named_field<&Packet::payload>
#include <bitrep/bitrep.hpp>
// A kind with no codec and no common fix (a union): the message lists every
// kind bitrep serializes, and names the described field by name.
union Payload { int i; float f; };
struct Packet { int kind; Payload payload; };
BOOST_DESCRIBE_STRUCT(Packet, (), (kind, payload))
int main() { return static_cast<int>(bitrep::to_bytes(Packet{}).size()); }
