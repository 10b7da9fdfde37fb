// expect: this per-entity callback cannot be called as the condition's function type
// expect: callable_as<.*float ?\(unsigned int, unsigned int, const Cube ?&\)
#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>
struct Cube { bitrep::quantized<-256.f, 256.f, 0.01f> x; };
BOOST_DESCRIBE_STRUCT(Cube, (), (x))
struct World { bitrep::entity_array<Cube, 64> cubes; };
BOOST_DESCRIBE_STRUCT(World, (), (cubes))
int main()
{
    bitrep::replication_server<World> server;
    // The callback takes the entity alone: it needs the client and the id too.
    server.set_priority<&World::cubes>([](const Cube& c) { return c.x > 0.f ? 2.f : 1.f; });
    return 0;
}
