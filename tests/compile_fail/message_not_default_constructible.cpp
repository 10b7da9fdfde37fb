// expect: message types must be default constructible
// expect: default_constructible_message<Chat>
#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>
struct Chat { explicit Chat(int) {} bitrep::ranged<int, 0, 15> id; };
BOOST_DESCRIBE_STRUCT(Chat, (), (id))
struct World { bitrep::ranged<int, 0, 100> tick; };
int main()
{
    bitrep::replication_server<World, bitrep::no_input, bitrep::message_set<Chat>> server;
    return static_cast<int>(server.add_client());
}
