// expect: the State must be a described class or an aggregate
// expect: replicable_state<World>
#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>
class World {
public:
    World() = default;
private:
    bitrep::ranged<int, 0, 100> tick_;
};
int main() { bitrep::replication_client<World> client; return client.has_state() ? 0 : 1; }
