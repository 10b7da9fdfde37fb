// expect: a per-entity callback takes a field of the State
// expect: state_field<&Other::cubes>
#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>
struct Cube { bitrep::quantized<-256.f, 256.f, 0.01f> x; };
BOOST_DESCRIBE_STRUCT(Cube, (), (x))
struct World { bitrep::entity_array<Cube, 64> cubes; };
BOOST_DESCRIBE_STRUCT(World, (), (cubes))
struct Other { bitrep::entity_array<Cube, 64> cubes; };
int main()
{
    bitrep::replication_server<World> server;
    server.set_relevancy<&Other::cubes>([](bitrep::client_id, std::uint32_t, const Cube&) { return true; });
    return 0;
}
