// The server's instructions per client per tick, counted by callgrind around
// update() and every replicate() only (docs/benchmarks.md, "Server at scale: large worlds"):
// the deterministic figure on a shared host, where times move by 30%.
//
//   valgrind --tool=callgrind --instr-atstart=no
//       build/release/bench/replication_instructions
//       CLIENTS ACK_DELAY coded|bit_packed 901|1000|10000 [LOSS [WARM_UP]]
//   (one command line)
//
// then "Collected" / (CLIENTS x 60) is instructions per client per tick. The
// world is bench/cube_world.hpp's (901 cubes, 90 moving) or, for 1000 and
// 10000, replication_bench's large worlds (100 moving). The history is
// shortened to 128 ticks so that the warm-up (140 ticks) is short under
// callgrind; LOSS (0 to 1) drops packets and acks, seeded. WARM_UP ticks
// (140 by default) before the counted ones: 10,000 cubes with acks 6 ticks
// late need about 600 before every client holds the whole world.
#include "cube_world.hpp"

#include <bitrep/replication.hpp>

#include <valgrind/callgrind.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

struct run_setup {
    std::size_t clients = 16;
    std::size_t ack_delay = 0;
    bitrep::replication_encoding encoding = bitrep::replication_encoding::coded;
    double loss = 0;
    std::size_t warm_up_ticks = 140;
};

constexpr std::size_t counted_ticks = 60;

template <class State, class Advance>
int run(const State& world, Advance advance, const run_setup& setup)
{
    bitrep::replication_options options;
    options.encoding = setup.encoding;
    options.history = 128;
    bitrep::replication_server<State> server(options);
    std::vector<std::unique_ptr<bitrep::replication_client<State>>> clients;
    std::vector<bitrep::client_id> ids;
    std::vector<std::vector<std::vector<std::uint8_t>>> acks(setup.clients);
    std::vector<std::vector<std::uint8_t>> packets(setup.clients);
    for (std::size_t i = 0; i < setup.clients; ++i) {
        clients.push_back(std::make_unique<bitrep::replication_client<State>>(options));
        ids.push_back(server.add_client());
        acks[i].resize(setup.ack_delay + 1);
    }
    std::mt19937 random(7);
    auto lost = [&] { return setup.loss > 0 && static_cast<double>(random() >> 8) * 0x1p-24 < setup.loss; };
    std::size_t bytes = 0;
    for (std::size_t t = 0; t < setup.warm_up_ticks + counted_ticks; ++t) {
        advance();
        const bool counted = t >= setup.warm_up_ticks;
        if (counted)
            CALLGRIND_START_INSTRUMENTATION;
        server.update(world);
        for (std::size_t i = 0; i < setup.clients; ++i) {
            std::span<const std::uint8_t> packet;
            if (!server.replicate(ids[i], packet)) [[unlikely]]
                cube_world::fail("the server made no packet");
            packets[i].assign(packet.begin(), packet.end());
        }
        if (counted)
            CALLGRIND_STOP_INSTRUMENTATION;
        for (std::size_t i = 0; i < setup.clients; ++i) {
            bytes += counted ? packets[i].size() : 0;
            if (!lost() && !clients[i]->receive(packets[i]))
                cube_world::fail("a client refused its packet");
            auto& ring = acks[i];
            const auto ack = clients[i]->ack();
            ring[t % ring.size()].assign(ack.begin(), ack.end());
            if (lost())
                ring[t % ring.size()].clear();
            const auto& due = ring[(t + ring.size() - setup.ack_delay) % ring.size()];
            if (t >= setup.ack_delay && !due.empty())
                static_cast<void>(server.receive(ids[i], due));
        }
    }
    std::uint64_t sent = 0, deferred = 0, packets_sent = 0, shared = 0, skipped = 0, rebuilds = 0, fallbacks = 0;
    for (const bitrep::client_id id : ids) {
        const auto* stats = server.statistics(id);
        sent += stats->entities_sent;
        deferred += stats->entities_deferred;
        packets_sent += stats->packets_sent;
        shared += stats->shared_sections;
        skipped += stats->baselines_skipped;
        rebuilds += stats->coded_rebuilds;
        fallbacks += stats->bit_packed_fallbacks;
    }
    std::printf("%zu clients, %zu counted ticks: %.1f bytes per packet; over all packets, %.1f entities sent and "
                "%.1f deferred per packet; %.2f of the coded packets' sections shared; %llu baselines skipped; %.3f coded rebuilds and %.3f "
                "bit-packed fallbacks per packet\n",
                setup.clients, counted_ticks, static_cast<double>(bytes) / static_cast<double>(setup.clients * counted_ticks),
                static_cast<double>(sent) / static_cast<double>(packets_sent),
                static_cast<double>(deferred) / static_cast<double>(packets_sent),
                static_cast<double>(shared) / static_cast<double>(packets_sent), static_cast<unsigned long long>(skipped),
                static_cast<double>(rebuilds) / static_cast<double>(packets_sent),
                static_cast<double>(fallbacks) / static_cast<double>(packets_sent));
    return 0;
}

template <std::size_t Count>
int run_large(const run_setup& setup)
{
    cube_world::moving_large_world<Count> world;
    std::size_t tick = 0;
    return run(world.state(), [&] { world.advance(tick++); }, setup);
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 5) {
        std::fprintf(stderr, "usage: %s CLIENTS ACK_DELAY coded|bit_packed 901|1000|10000 [LOSS [WARM_UP]]\n",
                     argv[0]);
        return 2;
    }
    run_setup setup;
    setup.clients = std::stoul(argv[1]);
    setup.ack_delay = std::stoul(argv[2]);
    setup.encoding = std::string(argv[3]) == "bit_packed" ? bitrep::replication_encoding::bit_packed
                                                           : bitrep::replication_encoding::coded;
    setup.loss = argc > 5 ? std::stod(argv[5]) : 0.0;
    if (argc > 6)
        setup.warm_up_ticks = std::stoul(argv[6]);
    const std::string entities = argv[4];
    if (entities == "1000")
        return run_large<1000>(setup);
    if (entities == "10000")
        return run_large<10000>(setup);
    cube_world::moving_world world(cube_world::world_seed);
    return run(world.state(), [&] { world.advance(true); }, setup);
}
