// expect: takes only some of bitrep's streams
// expect: template <class Stream> bool serialize\(Stream& stream\)
// expect: hook_for_every_stream<bitrep::reflect::named_field<&Route::target>, Waypoint ?>
#include <bitrep/bitrep.hpp>
#include <cstdint>
// A hook for writing only would be passed over, and x sent at full width.
struct Waypoint {
    std::int32_t x;
    bool serialize(bitrep::write_stream& s) { return s.serialize_int(x, -1000, 1000); }
};
struct Route { bitrep::ranged<int, 0, 9> legs; Waypoint target; };
BOOST_DESCRIBE_STRUCT(Route, (), (legs, target))
int main() { return static_cast<int>(bitrep::to_bytes(Route{}).size()); }
