// expect: cannot serialize a pointer
// expect: Store an entity id
// expect: named_field<&Projectile::target>
#include <bitrep/bitrep.hpp>
struct Enemy { int hit_points; };
struct Projectile { bitrep::ranged<int, 0, 100> damage; Enemy* target; };
BOOST_DESCRIBE_STRUCT(Projectile, (), (damage, target))
int main() { return static_cast<int>(bitrep::to_bytes(Projectile{}).size()); }
