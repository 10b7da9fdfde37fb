// expect: a per-entity callback \(set_priority, set_relevancy, set_owner<&State::field>\) takes an entity_array field
// expect: entity_array_field<&World::score>
#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>
struct Cube { bitrep::quantized<-256.f, 256.f, 0.01f> x; };
BOOST_DESCRIBE_STRUCT(Cube, (), (x))
struct World { bitrep::entity_array<Cube, 64> cubes; bitrep::ranged<int, 0, 1000> score; };
BOOST_DESCRIBE_STRUCT(World, (), (cubes, score))
int main()
{
    bitrep::replication_server<World> server;
    server.set_priority<&World::score>([](bitrep::client_id, std::uint32_t, const Cube&) { return 1.f; });
    return 0;
}
