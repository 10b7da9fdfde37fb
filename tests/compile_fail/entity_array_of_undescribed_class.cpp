// expect: bitrep cannot serialize this class
// expect: supported<bitrep::detail::no_field, Monster ?>
#include <bitrep/bitrep.hpp>
// An entity type with private members and no description.
class Monster {
public:
    Monster() = default;
private:
    bitrep::ranged<int, 0, 100> health_;
};
struct World { bitrep::entity_array<Monster, 64> monsters; };
BOOST_DESCRIBE_STRUCT(World, (), (monsters))
int main() { return static_cast<int>(bitrep::to_bytes(World{}).size()); }
