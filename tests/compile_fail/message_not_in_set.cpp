// expect: this type is not in the message_set
// expect: contains<Emote>
#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>
struct Chat { bitrep::bounded_string<64> text; };
struct Emote { bitrep::ranged<int, 0, 15> id; };
struct World { bitrep::ranged<int, 0, 100> tick; };
int main()
{
    bitrep::replication_server<World, bitrep::no_input, bitrep::message_set<Chat>> server;
    bitrep::client_id id = server.add_client();
    return server.send(id, Emote{}, bitrep::channel::reliable) ? 0 : 1;
}
