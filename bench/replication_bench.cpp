// Replication of a 901-cube world (docs/benchmarks.md, "Replication"): the
// world of the design's example (quantized positions, quat<9>, a flag) in an
// entity_array<Cube, 1024> with 901 cubes, about 10% of them moving and
// turning a little each tick. One benchmark iteration is one server tick:
// the world advances, replicate() runs for every client, each client
// receives its packet, and acks go back after `ack_delay` ticks (0: a
// perfect link with no latency; 6: a 100 ms round trip at 60 Hz), or never.
//
// The Time column is manual time (UseManualTime) measured with
// std::chrono::steady_clock around one part of the tick only:
//   BM_Replicate/..., BM_DeltaBytes/..., BM_FullStateBytes/...
//       every client's replicate() call (the server's cost)
//   BM_ClientReceive/...   the one client's receive() call
// so the world update, the clients' decoding and the acks are never in the
// server's figure. The CPU column is the whole loop's CPU time.
//
// Counters (per tick unless named otherwise):
//   client_kib             what the server holds per client (client_bytes)
//   shared_per_packet      coded packets: 1 when the state section was copied
//                          from another client's; bit-packed: entity deltas
//                          copied rather than encoded
//   shared_kib             what it holds for all clients (shared_bytes: world history, scratch)
//   us_per_client          replicate() time / clients
//   cpu_us_per_client      the same in the thread's CPU time (less disturbed
//                          by other processes on a shared host); with
//                          threads:2, both threads' CPU time, summed (the
//                          time columns are then the tick's wall time)
//   receive_us_per_client  receive() time / clients
//   tick_us                the whole tick: world, replicate, receive, acks
//   bytes_per_packet       the packets' size, CRC and header included
//   entities_per_packet    entity slots written per packet
//   bits_per_entity        8 * bytes / entities (packet overhead included)
//   deferred_per_packet    slots that needed sending but did not fit
//   full_state_share       packets encoded against the default state
//   full_state_bytes       one full state of the world with no size limit
//   allocs_per_tick        operator new calls in the whole timed tick
//   server_allocs_per_tick operator new calls inside the replicate() loop
//
// Every run starts from the same seeded world, warms up for two windows
// (every ring slot written, priorities in steady state) or the server's
// world history depth when longer (its lists at full size), then times a fixed
// number of ticks, so each repetition measures the same ticks. Before
// timing, main() checks that clients converge to the server's world and
// that full states are sent exactly when they should be; it aborts if not.
#include <benchmark/benchmark.h>

#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>

#include "allocation_counter.hpp"
#include "cube_world.hpp"
#include "process_usage.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

// The world (cube_world.hpp): 901 cubes in 1024 slots, 90 moving a tick.
using namespace cube_world;

// --------------------------------------------------------- server and clients

using server_type = bitrep::replication_server<World>;
using client_type = bitrep::replication_client<World>;

// Two-way traffic (docs/guide/two-way.md): each client sends an
// input every tick and a reliable chat line every 6 ticks (10 a second).
struct PlayerInput {
    bitrep::ranged<int, -1, 1> move_x, move_y;
    bool sprint = false;
};
BOOST_DESCRIBE_STRUCT(PlayerInput, (), (move_x, move_y, sprint))

struct Chat {
    bitrep::ranged<std::uint32_t, 0, 1'000'000> serial;
    bitrep::bounded_string<32> text;
};
BOOST_DESCRIBE_STRUCT(Chat, (), (serial, text))

using Messages = bitrep::message_set<Chat>;
using two_way_server = bitrep::replication_server<World, PlayerInput, Messages>;
using two_way_client = bitrep::replication_client<World, PlayerInput, Messages>;
constexpr std::size_t chat_every_ticks = 6;

constexpr int never_acks = -1;
constexpr std::size_t default_packet_bytes = bitrep::replication_options{}.max_packet_bytes; // 1200
constexpr std::size_t unlimited_packet_bytes = 65536; // more than any state of this world

struct link_setup {
    std::size_t clients = 1;
    int ack_delay = 0; ///< ticks from a packet to its ack reaching the server, or never_acks
    std::size_t max_packet_bytes = default_packet_bytes;
    bitrep::replication_encoding encoding = bitrep::replication_encoding::coded;
    /// Client i's acks take 2 + i % 9 ticks instead (2 to 10: round trips of
    /// 33 to 167 ms); ack_delay must then be 10.
    bool mixed_delays = false;
    /// Each packet and each ack is lost with this probability (seeded), so
    /// that clients stand on different baselines, as real ones do.
    double loss = 0;
    /// replicate() for the clients on this many threads (this one and
    /// threads - 1 workers), each taking a contiguous share of them.
    std::size_t threads = 1;
};

using process_usage::thread_cpu_seconds;

struct tick_cost {
    double replicate_seconds = 0; ///< every client's replicate()
    double replicate_cpu_seconds = 0; ///< the same in this thread's CPU time
    double receive_seconds = 0;   ///< every client's receive()
    double server_receive_seconds = 0; ///< the server's receive() of the clients' packets (acks, inputs, messages)
    std::uint64_t replicate_allocations = 0;
    std::uint64_t server_receive_allocations = 0;
    double workers_cpu_seconds = 0; ///< the team's workers' part of replicate_cpu_seconds (threads > 1)
    std::uint64_t workers_allocations = 0;
};

/// Runs one job on `threads` threads at once (this one and threads - 1
/// workers that sleep between jobs): job(part) for part in [0, threads).
/// The workers block on a condition variable rather than spin, so that
/// between jobs they take nothing from the thread that runs the rest of
/// the tick.
class thread_team {
public:
    explicit thread_team(std::size_t threads) : size_(threads), cpu_(threads), allocations_(threads)
    {
        for (std::size_t part = 1; part < threads; ++part)
            workers_.emplace_back([this, part] { work(part); });
    }
    ~thread_team()
    {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
            ++generation_;
        }
        wake_.notify_all();
        for (std::thread& worker : workers_)
            worker.join();
    }
    thread_team(const thread_team&) = delete;
    thread_team& operator=(const thread_team&) = delete;

    std::size_t size() const noexcept { return size_; }

    /// Runs job on every thread and returns once all are done, with the
    /// workers' CPU seconds and allocations during it, summed (this
    /// thread's part is the caller's to count).
    template <class Job>
    std::pair<double, std::uint64_t> run(Job& job)
    {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            call_ = [](void* context, std::size_t part) { (*static_cast<Job*>(context))(part); };
            context_ = &job;
            running_ = size_ - 1;
            ++generation_;
        }
        wake_.notify_all();
        job(0);
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [this] { return running_ == 0; });
        double cpu = 0;
        std::uint64_t allocations = 0;
        for (std::size_t part = 1; part < size_; ++part) {
            cpu += cpu_[part];
            allocations += allocations_[part];
        }
        return {cpu, allocations};
    }

private:
    void work(std::size_t part)
    {
        std::uint64_t seen = 0;
        for (;;) {
            {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [&] { return generation_ != seen; });
                seen = generation_;
                if (stopping_)
                    return;
            }
            const std::uint64_t allocations = bitrep_bench::thread_allocations;
            const double cpu = thread_cpu_seconds();
            call_(context_, part);
            cpu_[part] = thread_cpu_seconds() - cpu;
            allocations_[part] = bitrep_bench::thread_allocations - allocations;
            bool last = false;
            {
                std::lock_guard<std::mutex> lock(mutex_);
                last = --running_ == 0;
            }
            if (last)
                done_.notify_one();
        }
    }

    std::size_t size_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable done_;
    std::uint64_t generation_ = 0;
    std::size_t running_ = 0;
    bool stopping_ = false;
    void (*call_)(void*, std::size_t) = nullptr; ///< the job
    void* context_ = nullptr;
    std::vector<double> cpu_;
    std::vector<std::uint64_t> allocations_;
    std::vector<std::thread> workers_;
};

/// The server's statistics summed over its clients.
struct server_totals {
    std::uint64_t packets = 0;
    std::uint64_t bytes = 0;
    std::uint64_t full_states = 0;
    std::uint64_t entities = 0;
    std::uint64_t deferred = 0;
    std::uint64_t coded_rebuilds = 0; ///< coded packets built again, or sent bit-packed, because they overflowed
    std::uint64_t shared = 0;         ///< shared coded sections + shared entity deltas
    std::size_t client_bytes = 0;     ///< what the server holds per client, summed over the clients
    std::size_t shared_bytes = 0;     ///< what it holds for all of them (world history, scratch)
};

/// One server, its clients and the clients' packets in flight. Everything a
/// tick needs is allocated here, so that a tick itself allocates only what
/// the library does. With the two-way types, each client also sends its
/// input every tick and a chat line every 6 ticks, which the server's
/// handlers take.
template <class Server, class Client>
class basic_session {
    static constexpr bool two_way = std::is_same_v<Server, two_way_server>;

public:
    using clock = std::chrono::steady_clock;

    explicit basic_session(link_setup setup)
        : setup_(setup), world_(world_seed), server_(options(setup)), packets_(setup.clients),
          in_flight_(setup.ack_delay == never_acks ? 0
                                                   : (static_cast<std::size_t>(setup.ack_delay) + 1) * setup.clients),
          team_(setup.threads > 1 ? std::make_unique<thread_team>(setup.threads) : nullptr)
    {
        for (std::size_t i = 0; i < setup.clients; ++i) {
            ids_.push_back(server_.add_client());
            clients_.push_back(std::make_unique<Client>(options(setup)));
        }
        for (auto& packet : in_flight_)
            packet.reserve(setup.max_packet_bytes);
        if constexpr (two_way) {
            server_.on_input([this](bitrep::client_id, std::uint32_t, const PlayerInput&) { ++inputs_taken_; });
            server_.template on_message<Chat>([this](bitrep::client_id, const Chat&) { ++chats_taken_; });
        }
    }

    std::uint64_t inputs_taken() const noexcept { return inputs_taken_; }
    std::uint64_t chats_taken() const noexcept { return chats_taken_; }

    const World& world() const noexcept { return world_.state(); }
    const client_type& client(std::size_t i) const noexcept { return *clients_[i]; }

    tick_cost tick(bool move = true)
    {
        tick_cost cost;
        world_.advance(move);
        const World& now = world_.state();

        const std::uint64_t allocations = bitrep_bench::thread_allocations;
        const double cpu_start = thread_cpu_seconds();
        const clock::time_point start = clock::now();
        // The world is recorded once a tick, then each client's packet.
        server_.update(now);
        if (team_ == nullptr) {
            for (std::size_t i = 0; i < ids_.size(); ++i)
                if (!server_.replicate(ids_[i], packets_[i])) [[unlikely]]
                    fail("the server made no packet");
        } else {
            // Different clients at once (docs/design/threads.md, "Replication").
            const std::size_t parts = team_->size();
            auto share = [this, parts](std::size_t part) {
                const std::size_t n = ids_.size();
                for (std::size_t i = n * part / parts; i < n * (part + 1) / parts; ++i)
                    if (!server_.replicate(ids_[i], packets_[i])) [[unlikely]]
                        fail("the server made no packet");
            };
            const auto [workers_cpu, workers_allocations] = team_->run(share);
            cost.workers_cpu_seconds = workers_cpu;
            cost.workers_allocations = workers_allocations;
        }
        const clock::time_point replicated = clock::now();
        // This thread's (update, and the first share), and the workers'.
        cost.replicate_cpu_seconds = thread_cpu_seconds() - cpu_start + cost.workers_cpu_seconds;
        cost.replicate_allocations = bitrep_bench::thread_allocations - allocations + cost.workers_allocations;

        for (std::size_t i = 0; i < clients_.size(); ++i)
            if (!lost() && !clients_[i]->receive(packets_[i])) [[unlikely]]
                fail("a client refused its packet");
        const clock::time_point received = clock::now();

        if (setup_.ack_delay != never_acks) {
            const std::size_t delay = static_cast<std::size_t>(setup_.ack_delay);
            const std::size_t n = clients_.size();
            std::vector<std::uint8_t>* sent = &in_flight_[(ticks_ % (delay + 1)) * n];
            for (std::size_t i = 0; i < n; ++i) {
                if constexpr (two_way) {
                    PlayerInput input;
                    input.move_x = static_cast<int>((ticks_ + i) % 3) - 1;
                    input.sprint = (ticks_ / 10 + i) % 4 == 0;
                    if (!clients_[i]->send_input(static_cast<std::uint32_t>(ticks_ + 1), input)) [[unlikely]]
                        fail("a client refused its input");
                    if ((ticks_ + i) % chat_every_ticks == 0) {
                        chat_.serial = static_cast<std::uint32_t>(ticks_ % 1'000'000);
                        if (!clients_[i]->send(chat_, bitrep::channel::reliable)) [[unlikely]]
                            fail("a client refused a chat line");
                    }
                }
                const std::span<const std::uint8_t> packet = clients_[i]->packet();
                sent[i].assign(packet.begin(), packet.end());
            }
            if (ticks_ >= delay || setup_.mixed_delays) {
                const std::uint64_t allocations_before = bitrep_bench::thread_allocations;
                const clock::time_point receive_start = clock::now();
                for (std::size_t i = 0; i < n; ++i) {
                    const std::size_t own = setup_.mixed_delays ? 2 + i % 9 : delay;
                    if (ticks_ < own)
                        continue;
                    const std::vector<std::uint8_t>& due = in_flight_[((ticks_ - own) % (delay + 1)) * n + i];
                    if (!lost() && !server_.receive(ids_[i], due)) [[unlikely]]
                        fail("the server refused a client's packet");
                }
                cost.server_receive_seconds = std::chrono::duration<double>(clock::now() - receive_start).count();
                cost.server_receive_allocations = bitrep_bench::thread_allocations - allocations_before;
            }
        }
        ++ticks_;
        cost.replicate_seconds = std::chrono::duration<double>(replicated - start).count();
        cost.receive_seconds = std::chrono::duration<double>(received - replicated).count();
        return cost;
    }

    bool lost() { return setup_.loss > 0 && static_cast<double>(loss_random_() >> 8) * 0x1p-24 < setup_.loss; }

    server_totals totals() const
    {
        server_totals t;
        for (bitrep::client_id id : ids_) {
            const bitrep::server_client_statistics& s = *server_.statistics(id);
            t.packets += s.packets_sent;
            t.bytes += s.bytes_sent;
            t.full_states += s.full_states;
            t.entities += s.entities_sent;
            t.deferred += s.entities_deferred;
            t.coded_rebuilds += s.coded_rebuilds + s.bit_packed_fallbacks;
            t.client_bytes += server_.client_bytes(id);
            t.shared += s.shared_sections + s.shared_entity_deltas;
        }
        t.shared_bytes = server_.shared_bytes();
        return t;
    }

    bool clients_hold_world() const
    {
        return std::ranges::all_of(clients_, [&](const auto& c) { return holds(c->state(), world()); });
    }

private:
    static bitrep::replication_options options(const link_setup& setup)
    {
        bitrep::replication_options o;
        o.max_packet_bytes = setup.max_packet_bytes;
        o.encoding = setup.encoding;
        return o;
    }

    link_setup setup_;
    std::mt19937 loss_random_{2026};
    moving_world world_;
    Server server_;
    std::vector<bitrep::client_id> ids_;
    std::vector<std::unique_ptr<Client>> clients_;
    std::vector<std::span<const std::uint8_t>> packets_;
    /// (ack_delay + 1) ticks of the clients' packets, one per client.
    std::vector<std::vector<std::uint8_t>> in_flight_;
    std::unique_ptr<thread_team> team_; ///< when setup.threads > 1
    std::size_t ticks_ = 0;
    Chat chat_{{}, "gg, well played"};
    std::uint64_t inputs_taken_ = 0;
    std::uint64_t chats_taken_ = 0;
};

using session = basic_session<server_type, client_type>;
using two_way_session = basic_session<two_way_server, two_way_client>;

/// The size of one full state of `world` (against the default state) with
/// no packet limit: what a client with no baseline would need.
std::size_t full_state_bytes(const World& world, bitrep::replication_encoding encoding)
{
    bitrep::replication_options o;
    o.encoding = encoding;
    o.max_packet_bytes = unlimited_packet_bytes;
    o.window = 2;
    auto server = std::make_unique<server_type>(o);
    const bitrep::client_id id = server->add_client();
    server->update(world);
    std::span<const std::uint8_t> packet;
    if (!server->replicate(id, packet))
        fail("the server made no packet");
    return packet.size();
}

// ------------------------------------------------------ correctness, untimed

void verify()
{
    // A perfect link with no packet limit: the client holds the world
    // after every tick, and only the first packet is a full state.
    double delta_bytes = 0;
    {
        session s({1, 0, unlimited_packet_bytes});
        std::uint64_t first_packet_bytes = 0;
        for (int t = 0; t < 200; ++t) {
            s.tick();
            check(s.clients_hold_world(), "with no packet limit the client holds the world after every tick");
            if (t == 0)
                first_packet_bytes = s.totals().bytes;
        }
        const server_totals t = s.totals();
        check(t.full_states == 1, "a perfect link sends one full state, then deltas");
        check(t.entities >= cube_count + 199 * moving_per_tick * 9 / 10,
              "about 90 cubes are sent per tick after the first full state");
        delta_bytes = static_cast<double>(t.bytes - first_packet_bytes) / 199.0;
    }
    // The default packet limit, with and without latency: full states until
    // the first ack arrives, deltas after; once the world stops, every
    // client converges to it.
    int convergence_ticks[2] = {};
    for (int delay : {0, 6}) {
        session s({2, delay, default_packet_bytes});
        for (int t = 0; t < 300; ++t)
            s.tick();
        check(s.totals().full_states == 2 * static_cast<std::uint64_t>(delay + 1),
              "full states are sent only until the first ack arrives");
        int still = 0;
        while (!s.clients_hold_world() && still < 500) {
            s.tick(false);
            ++still;
        }
        check(s.clients_hold_world(), "clients converge to the world once it stops moving");
        convergence_ticks[delay == 0 ? 0 : 1] = still;
    }
    // A client that never acks gets a full state every tick.
    {
        session s({1, never_acks, unlimited_packet_bytes});
        for (int t = 0; t < 20; ++t)
            s.tick();
        const server_totals t = s.totals();
        check(t.full_states == 20 && t.packets == 20, "a client that never acks gets a full state every tick");
        check(s.clients_hold_world(), "a full state with no packet limit carries the whole world");
    }

    // replicate() on two threads sends what one thread sends.
    {
        session one({8, 3, default_packet_bytes});
        session two({8, 3, default_packet_bytes, bitrep::replication_encoding::coded, false, 0, 2});
        for (int t = 0; t < 150; ++t) {
            one.tick();
            two.tick();
        }
        check(one.totals().bytes == two.totals().bytes && one.totals().entities == two.totals().entities,
              "two threads send the bytes one thread sends");
        check(two.clients_hold_world() == one.clients_hold_world(), "two threads leave the clients where one does");
    }

    // Two-way: with acks 6 ticks late, every input and chat line sent at
    // least a round trip before the end has been taken by the server.
    {
        two_way_session s({2, 6, default_packet_bytes});
        for (int t = 0; t < 300; ++t)
            s.tick();
        check(s.inputs_taken() >= 2 * (300 - 14) && s.inputs_taken() <= 2 * 300,
              "the server takes every input once (all but the last round trip's)");
        check(s.chats_taken() >= 2 * (300 / chat_every_ticks - 3) && s.chats_taken() <= 2 * 300 / chat_every_ticks,
              "the server takes every chat line once (all but the last round trip's)");
    }

    const moving_world initial(world_seed);
    std::fprintf(stderr,
                 "replication_bench: verified: full state %zu bytes, delta %.1f bytes per tick (no packet limit, "
                 "perfect link), convergence after the world stops: %d ticks (ack delay 0), %d ticks (ack delay 6)\n",
                 full_state_bytes(initial.state(), bitrep::replication_encoding::coded), delta_bytes, convergence_ticks[0], convergence_ticks[1]);
}

// ---------------------------------------------------------------- benchmarks

enum class timed {
    replicate, ///< the server's replicate() for every client
    receive,   ///< the clients' receive()
    server,    ///< the server's whole part: replicate() and receive() of the clients' packets
};

template <class Session = session>
void run_ticks(benchmark::State& state, link_setup setup, timed what)
{
    auto s = std::make_unique<Session>(setup);
    // Two windows (every ring slot written, priorities in steady state), and
    // the world history's depth (each of its ticks' lists at full size).
    const bitrep::replication_options defaults;
    const std::size_t warm_up = std::max(2 * defaults.window, defaults.history + 8) +
                                (setup.ack_delay == never_acks ? 0 : static_cast<std::size_t>(setup.ack_delay));
    for (std::size_t t = 0; t < warm_up; ++t)
        s->tick();

    const server_totals before = s->totals();
    double replicate_seconds = 0;
    double replicate_cpu_seconds = 0;
    double receive_seconds = 0;
    double tick_seconds = 0;
    double server_receive_seconds = 0;
    std::uint64_t replicate_allocations = 0;
    std::uint64_t server_receive_allocations = 0;
    const std::uint64_t allocations_before = bitrep_bench::thread_allocations;
    for (auto _ : state) {
        const typename Session::clock::time_point start = Session::clock::now();
        const tick_cost cost = s->tick();
        tick_seconds += std::chrono::duration<double>(Session::clock::now() - start).count();
        replicate_seconds += cost.replicate_seconds;
        replicate_cpu_seconds += cost.replicate_cpu_seconds;
        receive_seconds += cost.receive_seconds;
        server_receive_seconds += cost.server_receive_seconds;
        replicate_allocations += cost.replicate_allocations;
        server_receive_allocations += cost.server_receive_allocations;
        state.SetIterationTime(what == timed::replicate ? cost.replicate_seconds
                                                        : (what == timed::server ? cost.replicate_seconds + cost.server_receive_seconds
                                                                                 : cost.receive_seconds));
    }
    // Read the count before touching state.counters, which allocates.
    const auto allocations = static_cast<double>(bitrep_bench::thread_allocations - allocations_before);

    const server_totals after = s->totals();
    const auto packets = static_cast<double>(after.packets - before.packets);
    const auto bytes = static_cast<double>(after.bytes - before.bytes);
    const auto entities = static_cast<double>(after.entities - before.entities);
    const auto clients = static_cast<double>(setup.clients);
    const auto per_packet = [packets](std::uint64_t count) {
        return packets > 0 ? static_cast<double>(count) / packets : 0.0;
    };
    using benchmark::Counter;
    state.counters["us_per_client"] = Counter(replicate_seconds * 1e6 / clients, Counter::kAvgIterations);
    state.counters["cpu_us_per_client"] = Counter(replicate_cpu_seconds * 1e6 / clients, Counter::kAvgIterations);
    state.counters["receive_us_per_client"] = Counter(receive_seconds * 1e6 / clients, Counter::kAvgIterations);
    state.counters["tick_us"] = Counter(tick_seconds * 1e6, Counter::kAvgIterations);
    state.counters["bytes_per_packet"] = per_packet(after.bytes - before.bytes);
    state.counters["entities_per_packet"] = per_packet(after.entities - before.entities);
    state.counters["bits_per_entity"] = entities > 0 ? 8 * bytes / entities : 0;
    state.counters["deferred_per_packet"] = per_packet(after.deferred - before.deferred);
    state.counters["full_state_share"] = per_packet(after.full_states - before.full_states);
    state.counters["full_state_bytes"] = static_cast<double>(full_state_bytes(s->world(), setup.encoding));
    state.counters["shared_per_packet"] = per_packet(after.shared - before.shared);
    state.counters["client_kib"] = static_cast<double>(after.client_bytes) / clients / 1024.0;
    state.counters["shared_kib"] = static_cast<double>(after.shared_bytes) / 1024.0;
    state.counters["coded_rebuilds_per_packet"] = per_packet(after.coded_rebuilds - before.coded_rebuilds);
    state.counters["allocs_per_tick"] = Counter(allocations, Counter::kAvgIterations);
    state.counters["server_allocs_per_tick"] =
        Counter(static_cast<double>(replicate_allocations + server_receive_allocations), Counter::kAvgIterations);
    state.counters["server_us_per_client"] =
        Counter((replicate_seconds + server_receive_seconds) * 1e6 / clients, Counter::kAvgIterations);
}

template <class Session = session>
void register_ticks(const std::string& name, link_setup setup, timed what, benchmark::IterationCount ticks)
{
    benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) { run_ticks<Session>(state, setup, what); })
        ->UseManualTime()
        ->Iterations(ticks)
        ->Unit(benchmark::kMicrosecond);
}


// ---------------------------------------------------------------- large worlds

template <std::size_t Count>
void run_large_world(benchmark::State& state, std::size_t clients, int ack_delay, bitrep::replication_encoding encoding,
                     std::size_t moving = 100)
{
    using world_type = cube_world::LargeWorld<Count>;
    bitrep::replication_options options;
    options.encoding = encoding;
    bitrep::replication_server<world_type> server(options);
    std::vector<std::unique_ptr<bitrep::replication_client<world_type>>> receivers;
    std::vector<bitrep::client_id> ids;
    std::vector<std::vector<std::vector<std::uint8_t>>> acks(clients);
    for (std::size_t i = 0; i < clients; ++i) {
        receivers.push_back(std::make_unique<bitrep::replication_client<world_type>>(options));
        ids.push_back(server.add_client());
        acks[i].resize(static_cast<std::size_t>(ack_delay) + 1);
    }
    cube_world::moving_large_world<Count> world(moving);
    std::size_t ticks = 0;
    double seconds = 0, cpu_seconds = 0;
    std::vector<std::vector<std::uint8_t>> packets(clients);
    for (auto& packet : packets)
        packet.reserve(options.max_packet_bytes);
    auto tick = [&](bool timed) {
        world.advance(ticks);
        const auto start = std::chrono::steady_clock::now();
        const double cpu_start = thread_cpu_seconds();
        server.update(world.state());
        for (std::size_t i = 0; i < clients; ++i) {
            std::span<const std::uint8_t> packet;
            if (!server.replicate(ids[i], packet)) [[unlikely]]
                fail("the server made no packet");
            packets[i].assign(packet.begin(), packet.end());
        }
        if (timed) {
            seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            cpu_seconds += thread_cpu_seconds() - cpu_start;
        }
        for (std::size_t i = 0; i < clients; ++i)
            if (!receivers[i]->receive(packets[i])) [[unlikely]]
                fail("a client refused its packet");
        for (std::size_t i = 0; i < clients; ++i) {
            const std::span<const std::uint8_t> ack = receivers[i]->ack();
            auto& ring = acks[i];
            ring[ticks % ring.size()].assign(ack.begin(), ack.end());
            if (ticks >= static_cast<std::size_t>(ack_delay))
                static_cast<void>(server.receive(ids[i], ring[(ticks - static_cast<std::size_t>(ack_delay)) % ring.size()]));
        }
        ++ticks;
    };
    for (std::size_t t = 0; t < options.history + 8; ++t)
        tick(false);
    std::uint64_t sent_before = 0, bytes_before = 0, packets_before = 0, deferred_before = 0;
    for (const bitrep::client_id id : ids) {
        sent_before += server.statistics(id)->entities_sent;
        deferred_before += server.statistics(id)->entities_deferred;
        bytes_before += server.statistics(id)->bytes_sent;
        packets_before += server.statistics(id)->packets_sent;
    }
    for (auto _ : state) {
        const double before = seconds;
        tick(true);
        state.SetIterationTime(seconds - before);
    }
    std::uint64_t sent = 0, bytes = 0, sent_packets = 0, client_bytes = 0, deferred = 0;
    for (const bitrep::client_id id : ids) {
        sent += server.statistics(id)->entities_sent;
        deferred += server.statistics(id)->entities_deferred;
        bytes += server.statistics(id)->bytes_sent;
        sent_packets += server.statistics(id)->packets_sent;
        client_bytes += server.client_bytes(id);
    }
    const auto n = static_cast<double>(clients);
    const auto p = static_cast<double>(sent_packets - packets_before);
    using benchmark::Counter;
    // The server's part of a tick: update() once, then every replicate().
    state.counters["us_per_client"] = Counter(seconds * 1e6 / n, Counter::kAvgIterations);
    state.counters["cpu_us_per_client"] = Counter(cpu_seconds * 1e6 / n, Counter::kAvgIterations);
    state.counters["entities_per_packet"] = static_cast<double>(sent - sent_before) / p;
    state.counters["deferred_per_packet"] = static_cast<double>(deferred - deferred_before) / p;
    state.counters["bytes_per_packet"] = static_cast<double>(bytes - bytes_before) / p;
    state.counters["client_kib"] = static_cast<double>(client_bytes) / n / 1024.0;
    state.counters["shared_kib"] = static_cast<double>(server.shared_bytes()) / 1024.0;
}
} // namespace

int main(int argc, char** argv)
{
    verify();

    // Each row in the coded encoding (the default) and the bit-packed one.
    using bitrep::replication_encoding;
    for (const replication_encoding encoding : {replication_encoding::coded, replication_encoding::bit_packed}) {
        const std::string e = encoding == replication_encoding::coded ? "/encoding:coded" : "/encoding:bit_packed";
        // 3000 ticks (50 s at 60 Hz) with one client, 300 with 64.
        for (int delay : {0, 6}) {
            const std::string suffix = "/ack_delay:" + std::to_string(delay) + e;
            register_ticks("BM_Replicate/clients:1" + suffix, {1, delay, default_packet_bytes, encoding},
                           timed::replicate, 3000);
            register_ticks("BM_Replicate/clients:64" + suffix, {64, delay, default_packet_bytes, encoding},
                           timed::replicate, 300);
        }
        // Clients whose round trips differ (2 to 10 ticks), so that fewer
        // of them are in the same position as another.
        register_ticks("BM_Replicate/clients:64/ack_delay:2to10" + e,
                       {64, 10, default_packet_bytes, encoding, true}, timed::replicate, 300);
        // 5% of packets and of acks lost: no two clients on the same views
        // for long, so little is shared between them.
        register_ticks("BM_Replicate/clients:64/ack_delay:6/loss:5%" + e,
                       {64, 6, default_packet_bytes, encoding, false, 0.05}, timed::replicate, 300);
        // A 200 ms round trip (acks 12 ticks late) with 1% and 10% loss, and
        // the 5% row with 256 clients.
        for (const auto& [percent, loss] : {std::pair{1, 0.01}, std::pair{10, 0.10}})
            register_ticks("BM_Replicate/clients:64/ack_delay:12/loss:" + std::to_string(percent) + "%" + e,
                           {64, 12, default_packet_bytes, encoding, false, loss}, timed::replicate, 300);
        register_ticks("BM_Replicate/clients:256/ack_delay:6/loss:5%" + e,
                       {256, 6, default_packet_bytes, encoding, false, 0.05}, timed::replicate, 300);
        // The same on two threads (replicate() for different clients at
        // once): the tick's wall time, and the CPU both threads spent.
        for (int delay : {0, 6})
            register_ticks("BM_Replicate/clients:64/ack_delay:" + std::to_string(delay) + "/threads:2" + e,
                           {64, delay, default_packet_bytes, encoding, false, 0, 2}, timed::replicate, 300);
        register_ticks("BM_Replicate/clients:64/ack_delay:6/loss:5%/threads:2" + e,
                       {64, 6, default_packet_bytes, encoding, false, 0.05, 2}, timed::replicate, 300);
        // Delta against full state, both with no packet limit so that every
        // change fits, and the full state at the default limit (capped).
        register_ticks("BM_DeltaBytes/max_packet_bytes:65536" + e, {1, 0, unlimited_packet_bytes, encoding},
                       timed::replicate, 3000);
        register_ticks("BM_FullStateBytes/max_packet_bytes:65536" + e, {1, never_acks, unlimited_packet_bytes, encoding},
                       timed::replicate, 3000);
        register_ticks("BM_FullStateBytes/max_packet_bytes:1200" + e, {1, never_acks, default_packet_bytes, encoding},
                       timed::replicate, 3000);
        // One client's receive() of the packets above.
        register_ticks("BM_ClientReceive/ack_delay:0" + e, {1, 0, default_packet_bytes, encoding}, timed::receive, 3000);
        register_ticks("BM_ClientReceive/ack_delay:6" + e, {1, 6, default_packet_bytes, encoding}, timed::receive, 3000);
        register_ticks("BM_ClientReceive/full_state" + e, {1, never_acks, unlimited_packet_bytes, encoding},
                       timed::receive, 3000);
        // The server's whole part of a tick (replicate, and receive of the
        // clients' packets): state only, then with an input per tick and
        // 10 reliable chat lines a second per client.
        for (int delay : {0, 6}) {
            const std::string suffix = "/ack_delay:" + std::to_string(delay) + e;
            register_ticks("BM_ServerTick/state_only/clients:64" + suffix, {64, delay, default_packet_bytes, encoding},
                           timed::server, 300);
            register_ticks<two_way_session>("BM_ServerTick/two_way/clients:64" + suffix,
                                            {64, delay, default_packet_bytes, encoding}, timed::server, 300);
        }
    }

    // The same 100 moving cubes in worlds of 1,000 and 10,000: the server's
    // cost per client follows the changes, not the world's size.
    for (const replication_encoding encoding : {replication_encoding::coded, replication_encoding::bit_packed}) {
        const std::string e = encoding == replication_encoding::coded ? "/encoding:coded" : "/encoding:bit_packed";
        for (int delay : {0, 6}) {
            const std::string suffix = "/clients:64/ack_delay:" + std::to_string(delay) + e;
            benchmark::RegisterBenchmark(("BM_LargeWorld/entities:1000/moving:100" + suffix).c_str(),
                                         [=](benchmark::State& st) { run_large_world<1000>(st, 64, delay, encoding); })
                ->UseManualTime()
                ->Iterations(300)
                ->Unit(benchmark::kMicrosecond);
            benchmark::RegisterBenchmark(("BM_LargeWorld/entities:10000/moving:100" + suffix).c_str(),
                                         [=](benchmark::State& st) { run_large_world<10000>(st, 64, delay, encoding); })
                ->UseManualTime()
                ->Iterations(300)
                ->Unit(benchmark::kMicrosecond);
        }
    }
    // 10,000 cubes with none, a quarter and four times as many moving (coded): how
    // the cost per client follows the changes at one world size; and 1,000
    // cubes with none and a quarter as many, for the same changes in a world
    // a tenth the size.
    struct sweep_row {
        std::size_t entities;
        std::size_t moving;
    };
    for (int delay : {0, 6}) {
        for (const sweep_row row : {sweep_row{1000, 0}, {1000, 25}, {10000, 0}, {10000, 25}, {10000, 400}}) {
            const std::string name = "BM_LargeWorld/entities:" + std::to_string(row.entities) +
                                     "/moving:" + std::to_string(row.moving) +
                                     "/clients:64/ack_delay:" + std::to_string(delay) + "/encoding:coded";
            benchmark::RegisterBenchmark(name.c_str(),
                                         [=](benchmark::State& st) {
                                             if (row.entities == 1000)
                                                 run_large_world<1000>(st, 64, delay, replication_encoding::coded,
                                                                       row.moving);
                                             else
                                                 run_large_world<10000>(st, 64, delay, replication_encoding::coded,
                                                                        row.moving);
                                         })
                ->UseManualTime()
                ->Iterations(300)
                ->Unit(benchmark::kMicrosecond);
        }
    }

    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
