// expect: the State must be a described class or an aggregate
// expect: replicable_state<World>
// expect: BOOST_DESCRIBE_CLASS\(State
#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>
class World {
public:
    World() = default;
private:
    bitrep::ranged<int, 0, 100> tick_;
};
int main() { bitrep::replication_server<World> server; return static_cast<int>(server.add_client()); }
