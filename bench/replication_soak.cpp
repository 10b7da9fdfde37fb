// replication_soak: the soak run (docs/benchmarks.md, "Soak run"). One
// server and many clients of the benchmarks' world
// (cube_world.hpp: 901 cubes, 90 moving a tick) in one process, each client
// behind a link simulator each way (loss, and half the round trip of latency
// each way), for thousands of 60 Hz ticks run as fast as the machine goes.
// Clients come and go on a fixed schedule, in cycles of 500 ticks:
//
//   offset 100  a few clients leave (remove_client; their end is destroyed)
//   offset 150  as many new clients join (add_client; new ids)
//   offset 200  a few clients go silent: they neither receive nor send
//   offset 350  half of them come back (2.5 s of silence: longer than the
//               window, so the server has no baseline they hold)
//   ~offset 440 the other half have sent nothing for 4 s: this program's
//               timeout (the server has none) removes them
//   offset 450  new clients join until the count is back where it started
//
// so at every multiple of 500 ticks the same number of clients is connected
// and none is silent: those are the ticks where resident size is sampled
// and compared. After warm-up (1500 ticks by default: the server's world
// history full at 1024 ticks, and a whole cycle of joins and departures
// behind) the resident size must stay within 1% of its value then
// (--rss-tolerance; why 1%: settings::rss_tolerance).
// At the end the world stops (not even its tick counter moves), silent
// clients come back, and the run goes on until every connected client
// holds exactly the server's world (as decoded) or a bound is reached.
//
// Exit status: 0 when memory stayed flat and every client converged, 1
// otherwise (or when a client was timed out that was not silent), 2 on a
// bad command line.
#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>

#include "cube_world.hpp"
#include "process_usage.hpp"

#include <CLI/CLI.hpp>

#if defined(__GLIBC__)
#include <malloc.h> // malloc_trim
#endif

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>


// AddressSanitizer keeps freed memory in quarantine (up to 256 MB), so the
// resident size grows under it whatever the program does: no verdict then.
#if defined(__SANITIZE_ADDRESS__)
#define BITREP_SOAK_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BITREP_SOAK_UNDER_ASAN 1
#endif
#endif
#ifndef BITREP_SOAK_UNDER_ASAN
#define BITREP_SOAK_UNDER_ASAN 0
#endif

namespace {

using namespace cube_world;
using server_type = bitrep::replication_server<World>;
using client_type = bitrep::replication_client<World>;

constexpr double tick_rate = 60;
constexpr double tick_ms = 1000 / tick_rate;

// The churn schedule, in ticks within a cycle (see the top of the file).
constexpr std::uint64_t cycle_ticks = 500;
constexpr std::uint64_t leave_at = 100;
constexpr std::uint64_t join_at = 150;
constexpr std::uint64_t silence_at = 200;
constexpr std::uint64_t return_at = 350;
constexpr std::uint64_t replace_at = 450;
/// A client whose packets have not reached the server for this long is
/// removed. Longer than any run of losses at these rates (5% loss: 240
/// packets in a row lost has probability 0.05^240), shorter than the 250
/// ticks from a silence to the replacements.
constexpr std::uint64_t timeout_ticks = 240;

struct settings {
    std::size_t clients = 256;
    std::uint64_t ticks = 10'000;
    double loss = 0.05;
    double rtt_ms = 100;
    std::uint64_t seed = 1;
    std::string encoding = "coded";
    std::size_t window = 64;
    std::uint64_t warm_up = 1500;
    std::uint64_t sample_every = 500;
    /// 1%: ten times the drift seen after warm-up (0.04% at 256 clients,
    /// at most 0.11% at 32), and still below what a leak of one server
    /// connection per departure (240 KiB, 8 departures a cycle: 4.8% at
    /// 256 clients over 10,000 ticks) or of 1 KB a tick (1.2%) would add.
    double rss_tolerance = 0.01;
    std::uint64_t catch_up_limit = 600;
};

using process_usage::peak_resident_bytes;
using process_usage::resident_bytes;
using process_usage::thread_cpu_seconds;

/// Gives the allocator's free pages back to the system, so that resident
/// size follows what is allocated (glibc; elsewhere nothing).
void release_free_memory()
{
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

double mib(std::size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

/// A client and its two links. Silent: it neither receives nor sends, as
/// if its network were down (what the server sends it is lost).
struct remote {
    remote(bitrep::client_id id_, const bitrep::replication_options& options, const bitrep::link_conditions& link,
           std::uint64_t seed, std::uint64_t tick)
        : id(id_), client(std::make_unique<client_type>(options)), down(link, seed), up(link, seed ^ 0x5eed0000u),
          last_heard_tick(tick)
    {
    }

    bitrep::client_id id;
    std::unique_ptr<client_type> client; // a ring of `window` States: 2.4 MB here
    bitrep::link_simulator down;         ///< server to client
    bitrep::link_simulator up;           ///< client to server
    bool silent = false;
    bool comes_back = false;            ///< at return_at; else it stays silent until timed out
    std::uint64_t acks_seen = 0;        ///< the server's acks_received when last looked at
    std::uint64_t last_heard_tick = 0;  ///< the last tick the server accepted a packet from it
};

/// Counts over an interval of ticks (between two samples), or the run.
struct costs {
    double server = 0; ///< update(), every replicate() and the server's receive() of the clients' packets
    double clients = 0; ///< every client's receive() and packet()
    double tick = 0;    ///< the whole tick: the above, the links, the world and this harness
    std::uint64_t ticks = 0;
    std::uint64_t client_ticks = 0; ///< connected clients summed over the ticks
};

struct events {
    std::uint64_t joined = 0, left = 0, silenced = 0, returned = 0, timed_out = 0;
    std::uint64_t wrongly_timed_out = 0; ///< timed out although not silent: the link lost 4 s of packets
};

class soak {
public:
    explicit soak(const settings& s)
        : settings_(s), world_(world_seed + static_cast<std::uint32_t>(s.seed) - 1), options_(options_for(s)),
          server_(options_), random_(s.seed)
    {
        link_.loss = s.loss;
        link_.latency = s.rtt_ms / 2;
        while (remotes_.size() < s.clients)
            join(0);
    }

    /// One tick: the server reads what arrived, the world moves, the server
    /// sends every client its packet, and each client applies what arrived
    /// and sends its ack.
    void tick(std::uint64_t t, bool moving)
    {
        const double tick_start = thread_cpu_seconds();
        const double now = static_cast<double>(t) * tick_ms;
        if (moving)
            world_.advance(true);

        double server = 0;
        for (const auto& r : remotes_)
            r->up.receive(now, [&](std::span<const std::uint8_t> bytes) {
                const double start = thread_cpu_seconds();
                static_cast<void>(server_.receive(r->id, bytes)); // refusals are counted in statistics()
                server += thread_cpu_seconds() - start;
            });
        time_out(t);

        packets_.resize(remotes_.size());
        const double replicate_start = thread_cpu_seconds();
        server_.update(world_.state());
        for (std::size_t i = 0; i < remotes_.size(); ++i)
            if (!server_.replicate(remotes_[i]->id, packets_[i])) [[unlikely]]
                cube_world::fail("the server made no packet");
        server += thread_cpu_seconds() - replicate_start;

        double clients = 0;
        for (std::size_t i = 0; i < remotes_.size(); ++i) {
            remote& r = *remotes_[i];
            if (!r.silent)
                r.down.send(packets_[i], now);
            r.down.receive(now, [&](std::span<const std::uint8_t> bytes) {
                if (r.silent)
                    return; // lost: its network is down
                const double start = thread_cpu_seconds();
                static_cast<void>(r.client->receive(bytes)); // stale or lost baselines are counted in statistics()
                clients += thread_cpu_seconds() - start;
            });
            if (r.silent)
                continue;
            const double start = thread_cpu_seconds();
            const std::span<const std::uint8_t> ack = r.client->packet();
            clients += thread_cpu_seconds() - start;
            r.up.send(ack, now);
        }

        interval_.server += server;
        interval_.clients += clients;
        interval_.tick += thread_cpu_seconds() - tick_start;
        ++interval_.ticks;
        interval_.client_ticks += remotes_.size();
    }

    /// The churn schedule's events due at tick t.
    void churn(std::uint64_t t)
    {
        const std::uint64_t offset = t % cycle_ticks;
        const std::size_t leaving = std::max<std::size_t>(1, settings_.clients / 64);
        const std::size_t silencing = std::max<std::size_t>(2, settings_.clients / 32);
        if (offset == leave_at) {
            for (std::size_t k = 0; k < leaving; ++k)
                if (remote* r = pick_speaking()) {
                    leave(*r);
                    ++events_.left;
                }
        } else if (offset == join_at || offset == replace_at) {
            while (remotes_.size() < settings_.clients)
                join(t);
        } else if (offset == silence_at) {
            for (std::size_t k = 0; k < silencing; ++k)
                if (remote* r = pick_speaking()) {
                    r->silent = true;
                    r->comes_back = k % 2 == 0;
                    ++events_.silenced;
                }
        } else if (offset == return_at) {
            for (const auto& r : remotes_)
                if (r->silent && r->comes_back)
                    come_back(*r);
        }
    }

    /// The end of the run: every silent client comes back.
    void end_silences()
    {
        for (const auto& r : remotes_)
            if (r->silent)
                come_back(*r);
    }

    /// Connected clients that hold exactly the server's world as decoded.
    std::size_t converged() const
    {
        const std::unique_ptr<World> expected = as_decoded(world_.state());
        return static_cast<std::size_t>(std::count_if(remotes_.begin(), remotes_.end(), [&](const auto& r) {
            return r->client->has_state() && holds_decoded(r->client->state(), *expected);
        }));
    }

    /// The costs since the last call, and a fresh interval.
    costs take_interval()
    {
        const costs c = interval_;
        total_.server += c.server;
        total_.clients += c.clients;
        total_.tick += c.tick;
        total_.ticks += c.ticks;
        total_.client_ticks += c.client_ticks;
        interval_ = {};
        return c;
    }

    const costs& total() const noexcept { return total_; }
    const events& happened() const noexcept { return events_; }
    /// What the server's connections hold in resident memory: the process's
    /// resident size once the clients' ends are gone, and again once the
    /// server's connections are removed too (free memory given back to the
    /// system before each sample). Ends the run: no client is left.
    struct server_share {
        std::size_t clients = 0;
        std::size_t with_connections = 0;
        std::size_t without_connections = 0;
        std::size_t counted = 0; ///< client_bytes, summed
    };
    server_share measure_server_share()
    {
        server_share share;
        std::vector<bitrep::client_id> ids;
        for (const auto& r : remotes_) {
            ids.push_back(r->id);
            share.counted += server_.client_bytes(r->id);
        }
        share.clients = ids.size();
        remotes_.clear();
        release_free_memory();
        share.with_connections = resident_bytes();
        for (const bitrep::client_id id : ids)
            server_.remove_client(id);
        release_free_memory();
        share.without_connections = resident_bytes();
        return share;
    }

    std::size_t connected() const noexcept { return remotes_.size(); }
    std::size_t silent() const
    {
        return static_cast<std::size_t>(std::count_if(remotes_.begin(), remotes_.end(), [](const auto& r) { return r->silent; }));
    }

    /// What the server says it holds: per client (summed) and shared.
    std::size_t server_client_bytes() const
    {
        std::size_t bytes = 0;
        for (const auto& r : remotes_)
            bytes += server_.client_bytes(r->id);
        return bytes;
    }
    std::size_t server_shared_bytes() const { return server_.shared_bytes(); }

    /// Packets the clients refused, by reason, and the server's full states.
    struct refusals {
        std::uint64_t stale = 0, no_baseline = 0, refused = 0, applied = 0;
    };
    refusals client_refusals() const
    {
        refusals total = departed_;
        for (const auto& r : remotes_)
            add(total, r->client->statistics());
        return total;
    }

private:
    static bitrep::replication_options options_for(const settings& s)
    {
        bitrep::replication_options o; // 1200-byte packets, no byte budget, history 1024
        o.window = s.window;
        o.encoding = s.encoding == "bit_packed" ? bitrep::replication_encoding::bit_packed
                                                : bitrep::replication_encoding::coded;
        return o;
    }

    static void add(refusals& total, const bitrep::client_statistics& s)
    {
        total.stale += s.stale;
        total.no_baseline += s.no_baseline;
        total.refused += s.refused;
        total.applied += s.applied;
    }

    void join(std::uint64_t t)
    {
        const bitrep::client_id id = server_.add_client();
        remotes_.push_back(std::make_unique<remote>(id, options_, link_, settings_.seed * 1'000'003u + joins_++, t));
        ++events_.joined;
    }

    /// Removes the client from the server and destroys its end.
    void leave(remote& r)
    {
        add(departed_, r.client->statistics());
        server_.remove_client(r.id);
        std::erase_if(remotes_, [&](const auto& p) { return p.get() == &r; });
    }

    void come_back(remote& r)
    {
        r.silent = false;
        ++events_.returned;
    }

    /// A client that is neither silent nor about to be, chosen at random.
    remote* pick_speaking()
    {
        std::vector<remote*> speaking;
        for (const auto& r : remotes_)
            if (!r->silent)
                speaking.push_back(r.get());
        if (speaking.empty())
            return nullptr;
        return speaking[random_() % speaking.size()];
    }

    /// The server side's timeout: a client from which nothing was accepted
    /// for timeout_ticks is removed, as a game server would.
    void time_out(std::uint64_t t)
    {
        std::vector<remote*> expired;
        for (const auto& r : remotes_) {
            const std::uint64_t acks = server_.statistics(r->id)->acks_received;
            if (acks != r->acks_seen) {
                r->acks_seen = acks;
                r->last_heard_tick = t;
            } else if (t - r->last_heard_tick > timeout_ticks) {
                expired.push_back(r.get());
            }
        }
        for (remote* r : expired) {
            ++events_.timed_out;
            if (!r->silent)
                ++events_.wrongly_timed_out;
            leave(*r);
        }
    }

    settings settings_;
    moving_world world_;
    bitrep::replication_options options_;
    server_type server_;
    bitrep::link_conditions link_;
    std::vector<std::unique_ptr<remote>> remotes_;
    std::vector<std::span<const std::uint8_t>> packets_;
    std::mt19937_64 random_;
    std::uint64_t joins_ = 0;
    refusals departed_;
    costs interval_, total_;
    events events_;
};

struct sample {
    std::uint64_t tick = 0;
    std::size_t resident = 0;
    std::size_t connected = 0;
};

void print_header()
{
    std::printf("%7s %8s %7s %10s %10s %10s %11s %11s %11s\n", "tick", "clients", "RSS MiB", "server MiB",
                "shared MiB", "server us", "us/client", "clients us", "tick us");
    std::printf("%7s %8s %7s %10s %10s %10s %11s %11s %11s\n", "", "(silent)", "", "(clients)", "", "per tick",
                "(server)", "per tick", "per tick");
}

sample print_row(std::uint64_t t, soak& s)
{
    const costs c = s.take_interval();
    const double ticks = static_cast<double>(std::max<std::uint64_t>(c.ticks, 1));
    const double client_ticks = static_cast<double>(std::max<std::uint64_t>(c.client_ticks, 1));
    const sample row{t, resident_bytes(), s.connected()};
    const std::string clients = std::to_string(row.connected) + " (" + std::to_string(s.silent()) + ")";
    std::printf("%7llu %8s %7.1f %10.1f %10.1f %10.0f %11.1f %11.0f %11.0f\n", static_cast<unsigned long long>(t),
                clients.c_str(), mib(row.resident), mib(s.server_client_bytes()), mib(s.server_shared_bytes()),
                c.server * 1e6 / ticks, c.server * 1e6 / client_ticks, c.clients * 1e6 / ticks, c.tick * 1e6 / ticks);
    std::fflush(stdout);
    return row;
}

} // namespace

int main(int argc, char** argv)
{
    settings s;
    CLI::App app{"replication_soak: many clients through the link simulator for many ticks, with clients joining, "
                 "leaving and going silent; checks that resident memory stays flat and every client converges"};
    app.add_option("--clients", s.clients, "clients connected at the start and at every sample")
        ->check(CLI::Range(std::size_t{4}, std::size_t{4096}));
    app.add_option("--ticks", s.ticks, "ticks the world moves (60 Hz ticks, run as fast as possible)")
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{10'000'000}));
    app.add_option("--loss", s.loss, "probability a link drops a packet (each way)")->check(CLI::Range(0.0, 0.5));
    app.add_option("--rtt", s.rtt_ms, "round trip in ms (half of it each way)")->check(CLI::Range(0.0, 2000.0));
    app.add_option("--seed", s.seed, "seeds the world, the links and the schedule's choices");
    app.add_option("--encoding", s.encoding, "coded or bit_packed")->check(CLI::IsMember({"coded", "bit_packed"}));
    app.add_option("--window", s.window, "packets kept per client as baselines")->check(CLI::Range(std::size_t{2}, std::size_t{1024}));
    app.add_option("--warm-up", s.warm_up, "ticks before the resident size the others are compared with (a multiple of --sample-every)");
    app.add_option("--sample-every", s.sample_every, "ticks between samples (a multiple of 500, the churn cycle)")
        ->check(CLI::Range(std::uint64_t{500}, std::uint64_t{1'000'000}));
    app.add_option("--rss-tolerance", s.rss_tolerance, "allowed growth of the resident size after warm-up (0.01: 1%)")
        ->check(CLI::Range(0.0, 10.0));
    app.add_option("--catch-up", s.catch_up_limit, "most ticks the clients get to converge once the world stops");
    CLI11_PARSE(app, argc, argv);
    if (s.sample_every % cycle_ticks != 0 || s.warm_up % s.sample_every != 0 || s.warm_up == 0) {
        std::fprintf(stderr, "replication_soak: --sample-every must be a multiple of %llu and --warm-up a positive "
                             "multiple of --sample-every\n", static_cast<unsigned long long>(cycle_ticks));
        return 2;
    }

    std::printf("replication_soak: %zu clients, %llu ticks at %.0f Hz (as fast as possible), %.0f%% loss each way, "
                "%.0f ms round trip, %s encoding, window %zu, seed %llu\n",
                s.clients, static_cast<unsigned long long>(s.ticks), tick_rate, 100 * s.loss, s.rtt_ms,
                s.encoding.c_str(), s.window, static_cast<unsigned long long>(s.seed));
    std::printf("world: %zu cubes in %zu slots, %zu moving a tick; churn every %llu ticks: %zu leave and as many "
                "join, %zu go silent (half come back after %llu ticks, half are timed out after %llu)\n",
                cube_count, decltype(World::cubes)::capacity, moving_per_tick,
                static_cast<unsigned long long>(cycle_ticks), std::max<std::size_t>(1, s.clients / 64),
                std::max<std::size_t>(2, s.clients / 32), static_cast<unsigned long long>(return_at - silence_at),
                static_cast<unsigned long long>(timeout_ticks));
    std::printf("CPU times are this thread's CPU time (CLOCK_THREAD_CPUTIME_ID), averaged over the ticks since the "
                "row before\n\n");

    const auto wall_start = std::chrono::steady_clock::now();
    soak run(s);
    print_header();
    std::vector<sample> samples;
    samples.push_back(print_row(0, run));
    for (std::uint64_t t = 1; t <= s.ticks; ++t) {
        run.churn(t);
        run.tick(t, true);
        if (t % s.sample_every == 0)
            samples.push_back(print_row(t, run));
    }

    // The world stops; silent clients come back; every client must come to
    // hold the world exactly.
    run.end_silences();
    std::uint64_t catch_up = 0;
    std::size_t converged = run.converged();
    while (converged < run.connected() && catch_up < s.catch_up_limit) {
        run.tick(s.ticks + 1 + catch_up, false);
        ++catch_up;
        converged = run.converged();
    }
    const sample after = print_row(s.ticks + catch_up, run);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

    // Memory: every sample from the end of warm-up on against the one there.
    const auto warm = std::find_if(samples.begin(), samples.end(), [&](const sample& x) { return x.tick == s.warm_up; });
    bool memory_ok = true;
    std::size_t highest = 0;
    if (warm == samples.end()) {
        std::printf("\nmemory: not checked (the run is not longer than the warm-up of %llu ticks)\n",
                    static_cast<unsigned long long>(s.warm_up));
    } else {
        for (auto x = warm; x != samples.end(); ++x)
            highest = std::max(highest, x->resident);
        highest = std::max(highest, after.resident);
        const double limit = static_cast<double>(warm->resident) * (1 + s.rss_tolerance);
        memory_ok = static_cast<double>(highest) <= limit || BITREP_SOAK_UNDER_ASAN;
        const sample& last = samples.back();
        std::printf("\nmemory: %.1f MiB resident after warm-up (tick %llu), %.1f MiB at tick %llu, %.1f MiB after "
                    "catch-up, highest sample %.1f MiB (%+.2f%%; allowed %+.2f%%): %s; peak resident %.1f MiB\n",
                    mib(warm->resident), static_cast<unsigned long long>(warm->tick), mib(last.resident),
                    static_cast<unsigned long long>(last.tick), mib(after.resident), mib(highest),
                    100.0 * (static_cast<double>(highest) / static_cast<double>(warm->resident) - 1),
                    100 * s.rss_tolerance,
                    BITREP_SOAK_UNDER_ASAN ? "not judged under AddressSanitizer" : (memory_ok ? "flat" : "GREW"),
                    mib(peak_resident_bytes()));
    }

    const costs& total = run.total();
    const double ticks = static_cast<double>(total.ticks);
    const events& e = run.happened();
    const soak::refusals refused = run.client_refusals();
    std::printf("cpu per tick (whole run, %llu ticks): server %.0f us (%.1f us per client), clients %.0f us, whole tick "
                "%.0f us; %.1f s wall\n",
                static_cast<unsigned long long>(total.ticks), total.server * 1e6 / ticks,
                total.server * 1e6 / static_cast<double>(total.client_ticks), total.clients * 1e6 / ticks,
                total.tick * 1e6 / ticks, wall);
    std::printf("clients: %llu joined, %llu left, %llu went silent, %llu came back, %llu timed out (%llu of them not "
                "silent)\n",
                static_cast<unsigned long long>(e.joined), static_cast<unsigned long long>(e.left),
                static_cast<unsigned long long>(e.silenced), static_cast<unsigned long long>(e.returned),
                static_cast<unsigned long long>(e.timed_out), static_cast<unsigned long long>(e.wrongly_timed_out));
    std::printf("packets applied by clients %llu; refused: stale %llu, no baseline %llu, other %llu\n",
                static_cast<unsigned long long>(refused.applied), static_cast<unsigned long long>(refused.stale),
                static_cast<unsigned long long>(refused.no_baseline), static_cast<unsigned long long>(refused.refused));
    const bool all_converged = converged == run.connected();
    std::printf("converged: %zu of %zu connected clients hold the server's world, %llu ticks after it stopped%s\n",
                converged, run.connected(), static_cast<unsigned long long>(catch_up),
                all_converged ? "" : " (the bound)");

    // Last, as it ends the run: resident size with the server's connections
    // and without them (the clients' ends, in this process only because
    // the soak simulates them, gone first).
    const auto share = run.measure_server_share();
    if (share.clients != 0) {
        const double per_client =
            (static_cast<double>(share.with_connections) - static_cast<double>(share.without_connections)) /
            static_cast<double>(share.clients);
        std::printf("server memory per client, resident: %.1f KiB (%.1f MiB with its %zu connections, %.1f MiB after "
                    "removing them); client_bytes counts %.1f KiB\n",
                    per_client / 1024.0, mib(share.with_connections), share.clients, mib(share.without_connections),
                    static_cast<double>(share.counted) / static_cast<double>(share.clients) / 1024.0);
    }

    const bool ok = memory_ok && all_converged && e.wrongly_timed_out == 0 && refused.refused == 0;
    std::printf("%s\n", ok ? "soak: ok" : "soak: FAILED");
    return ok ? 0 : 1;
}
