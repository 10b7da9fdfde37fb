// expect: std::vector, std::map, std::set and the other standard containers have no bound
// expect: named_field<&Slot::quests>
#include <bitrep/bitrep.hpp>
#include <vector>
struct Slot { bitrep::ranged<int, 0, 99> level; std::vector<int> quests; };
BOOST_DESCRIBE_STRUCT(Slot, (), (level, quests))
int main() { return static_cast<int>(bitrep::save_to_bytes(Slot{}).size()); }
