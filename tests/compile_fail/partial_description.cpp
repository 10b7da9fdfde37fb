// expect: lists fewer members than the struct has
// expect: lists_every_member<Player, 1(UL)?, 2(UL)?>
// expect: bitrep_partial_description = true
// expect: bitrep::transient<T>
#include <bitrep/bitrep.hpp>
// gold is not listed: it would be silently left out of every save.
struct Player { bitrep::ranged<int, 0, 100> health; bitrep::ranged<int, 0, 999> gold; };
BOOST_DESCRIBE_STRUCT(Player, (), (health))
int main() { return static_cast<int>(bitrep::to_bytes(Player{}).size()); }
