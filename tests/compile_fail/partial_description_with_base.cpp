// expect: leaves out a member of the struct
// expect: lists_every_member<Hero, 2(UL)?, 3(UL)?>
#include <bitrep/bitrep.hpp>
// With a base, the members cannot be told apart by position: both counts.
struct Unit { bitrep::ranged<int, 0, 100> health; };
BOOST_DESCRIBE_STRUCT(Unit, (), (health))
struct Hero : Unit { bitrep::ranged<int, 0, 9> level; bitrep::ranged<int, 0, 999> gold; };
BOOST_DESCRIBE_STRUCT(Hero, (Unit), (level))
int main() { return static_cast<int>(bitrep::to_bytes(Hero{}).size()); }
