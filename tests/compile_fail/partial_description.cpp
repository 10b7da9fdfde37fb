// expect: leaves out a member of the struct
// expect: description_lists<bitrep::reflect::positional_field<Player, 1> ?>
// expect: bitrep_partial_description = true
// expect: bitrep::transient<T>
#include <bitrep/bitrep.hpp>
// gold (position 1) is not listed: it would be silently left out of every save.
struct Player { bitrep::ranged<int, 0, 100> health; bitrep::ranged<int, 0, 999> gold; bool alive; };
BOOST_DESCRIBE_STRUCT(Player, (), (health, alive))
int main() { return static_cast<int>(bitrep::to_bytes(Player{}).size()); }
