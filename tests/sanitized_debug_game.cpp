// A game's debug build: optimised for debugging (-Og) under the sanitizers,
// where g++ folds constants that -O0 leaves alone. Compiled, not run
// (tests/CMakeLists.txt): it must build with g++ and clang alike.
#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>

#include <array>
#include <cstdint>
#include <vector>

namespace {

// Of internal linkage, as a game's types in one file often are.
struct Crate {
    std::uint16_t item = 0;
    bitrep::ranged<int, 0, 99> count;
};
BOOST_DESCRIBE_STRUCT(Crate, (), (item, count))
struct Hold {
    bitrep::entity_array<Crate, 16> crates;
    bitrep::bounded_vector<Crate, 8> manifest;
};
BOOST_DESCRIBE_STRUCT(Hold, (), (crates, manifest))

} // namespace

bool sanitized_debug_game_round_trips(std::vector<std::uint8_t>& bytes)
{
    bitrep::replication_server<Hold> server(bitrep::replication_options{});
    const bitrep::client_id id = server.add_client();
    Hold hold{};
    return bitrep::to_bytes(hold, bytes).ok() && bitrep::from_bytes(bytes, hold).ok() && server.has_client(id);
}
