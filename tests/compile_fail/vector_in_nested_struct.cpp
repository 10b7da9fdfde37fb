// expect: std::vector, std::map, std::set and the other standard containers have no bound
// expect: named_field<&Item::tags>
#include <bitrep/bitrep.hpp>
#include <vector>
// The refusal names the innermost struct's field.
struct Item { bitrep::ranged<int, 0, 999> id; std::vector<int> tags; };
BOOST_DESCRIBE_STRUCT(Item, (), (id, tags))
struct Player { bitrep::ranged<int, 0, 100> health; bitrep::bounded_vector<Item, 8> items; };
BOOST_DESCRIBE_STRUCT(Player, (), (health, items))
int main() { return static_cast<int>(bitrep::to_bytes(Player{}).size()); }
