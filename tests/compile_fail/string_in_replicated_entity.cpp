// expect: std::string has no bound
// expect: named_field<&Player::name>
#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>
#include <string>
struct Player { bitrep::quantized<-100.f, 100.f, 0.01f> x; std::string name; };
BOOST_DESCRIBE_STRUCT(Player, (), (x, name))
struct World { bitrep::entity_array<Player, 8> players; };
BOOST_DESCRIBE_STRUCT(World, (), (players))
int main() { bitrep::replication_server<World> server; return static_cast<int>(server.add_client()); }
