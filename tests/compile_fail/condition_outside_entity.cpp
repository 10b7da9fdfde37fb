// expect: apply to the members of the State's entities
// expect: conditions_on_entity_members_only<bitrep::reflect::positional_field<World, 1> ?>
// An owner_only field at the top of the State would go to every client:
// replication_server refuses it.
#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>

#include <cstdint>

struct Player {
    bitrep::quantized<-100.f, 100.f, 0.01f> x;
};

struct World {
    bitrep::entity_array<Player, 8> players;
    bitrep::owner_only<bitrep::ranged<int, 0, 100>> secret;
};

int main()
{
    bitrep::replication_server<World> server;
    return static_cast<int>(server.add_client());
}
