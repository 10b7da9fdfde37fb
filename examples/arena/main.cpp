// arena: bitrep's main example. A server replicates a world of moving cubes
// and players to clients over real UDP datagrams on the loopback interface,
// 60 ticks a second. Each client drives its own player with a scripted
// input, sends chat lines (which the server relays to the others) and
// pushes over the reliable channel, and hears a score every second over the
// unreliable one; every packet both ways goes through a seeded link
// simulator (loss, jitter, duplication, reordering, corruption). Every 2 s
// the world is saved and loaded back. At the end the world stops, the links
// clear, the clients catch up, and a table says what it cost (bandwidth,
// CPU per tick for the server and for the clients, resident memory) and
// whether any client's state, input or message ever went wrong.
#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h> // getpid, for a save file name of this run's own

#include <CLI/CLI.hpp>

#include "checks.hpp"
#include "process_usage.hpp" // bench/
#include "client.hpp"
#include "server.hpp"
#include "world.hpp"

namespace {

using namespace arena;
using steady = std::chrono::steady_clock;

constexpr double tick_rate = 60;
constexpr std::uint64_t save_every_ticks = 120; // 2 s
// At most 4 s for the clients to catch up. The state takes a few ticks; the
// reliable messages take longer: at 64 clients over a thousand relayed chat
// lines may wait for acks when the world stops, and one whose resend
// interval has backed off to its cap (64 packets) waits that long for its
// next copy (61 to 81 ticks at 64 clients, 3 at 4).
constexpr std::uint64_t catch_up_ticks = 240;

struct settings {
    std::size_t entities = 500;
    std::size_t clients = 4;
    double loss = 0.05;
    double duration = 10;
    std::uint64_t seed = 1;
    std::string save_path;
    std::string encoding = "both"; ///< coded, bit_packed, or both: the same run in each, compared
    std::string security = "aead"; ///< aead (packets sealed with per-client keys) or crc
};

/// The clients' links, in milliseconds. The jitter stays below a tick, so
/// only the held-back copies (reorder) overtake one another.
bitrep::link_conditions link_for(double loss)
{
    bitrep::link_conditions link;
    link.latency = 10;
    link.jitter = 10;
    link.loss = loss;
    link.duplicate = 0.01;
    link.reorder = 0.01;
    link.reorder_delay = 30;
    link.corrupt = 0.005;
    return link;
}

/// Real-time pacing: one tick every 1/rate s of the steady clock.
class tick_clock {
public:
    explicit tick_clock(double rate)
        : period_(std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(1 / rate)))
    {
    }

    double now_ms() const { return std::chrono::duration<double, std::milli>(steady::now() - start_).count(); }

    /// Sleeps until the next tick is due. A tick that ends more than a whole
    /// period late is counted, and the schedule restarts from now rather
    /// than hurrying to catch up.
    void wait()
    {
        next_ += period_;
        const steady::time_point now = steady::now();
        if (now > next_ + period_) {
            ++late_;
            next_ = now;
        } else {
            std::this_thread::sleep_until(next_);
        }
    }

    std::uint64_t late() const noexcept { return late_; }

private:
    steady::duration period_;
    steady::time_point start_ = steady::now();
    steady::time_point next_ = start_;
    std::uint64_t late_ = 0;
};

using process_usage::peak_resident_bytes;
using process_usage::resident_bytes;
/// This thread's CPU time (the arena runs in one thread).
using process_usage::thread_cpu_seconds;

/// CPU seconds spent in each part of the moving ticks.
struct cpu_use {
    double server = 0;  ///< reading the clients' packets, players' inputs, update() and every replicate() and send
    double world = 0;   ///< the simulation's step
    double clients = 0; ///< every client's link, receive() and packet(), and their sockets
    double checks = 0;  ///< the torn-state check after each applied packet, and the save check
    double tick = 0;    ///< the whole tick but the sleep
};

/// Totals over the clients while the world moved.
struct traffic {
    std::uint64_t bytes = 0;
    std::uint64_t peak_second_bytes = 0; ///< of any one client
    std::uint64_t send_failures = 0;
    std::uint64_t full_packets = 0;
    std::uint64_t last_full_tick = 0;
    bitrep::server_client_statistics sent;
    bitrep::client_statistics received;
    bitrep::link_statistics link;
};

traffic measure(const server& host, const std::vector<std::unique_ptr<client>>& clients)
{
    traffic t;
    for (const server::peer& p : host.peers()) {
        t.bytes += p.bytes;
        t.peak_second_bytes = std::max(t.peak_second_bytes, p.peak_second_bytes);
        t.send_failures += p.send_failures;
        t.full_packets += p.full_packets;
        t.last_full_tick = std::max(t.last_full_tick, p.last_full_tick);
        const bitrep::server_client_statistics& s = *host.replication().statistics(p.id);
        t.sent.packets_sent += s.packets_sent;
        t.sent.full_states += s.full_states;
        t.sent.entities_sent += s.entities_sent;
        t.sent.entities_deferred += s.entities_deferred;
    }
    for (const auto& c : clients) {
        const bitrep::client_statistics& r = c->replication().statistics();
        t.received.applied += r.applied;
        t.received.stale += r.stale;
        t.received.no_baseline += r.no_baseline;
        t.received.refused += r.refused;
        const bitrep::link_statistics& l = c->link().statistics();
        t.link.sent += l.sent;
        t.link.dropped += l.dropped;
        t.link.duplicated += l.duplicated;
        t.link.reordered += l.reordered;
        t.link.corrupted += l.corrupted;
    }
    return t;
}

struct results {
    std::uint64_t ticks = 0;
    std::uint64_t late_ticks = 0;
    double seconds = 0;
    double live = 0, moving = 0; // cubes, summed over ticks
    std::size_t joined = 0;
    traffic network;
    view_check views;
    save_check saves;
    std::uint64_t catch_up = 0;
    std::uint64_t desyncs = 0;
    // Upstream and messages, counted once everything has drained.
    std::uint64_t inputs_sent = 0, inputs_received = 0, inputs_duplicate = 0;
    std::uint64_t reliable_sent = 0, reliable_delivered = 0, reliable_duplicated = 0, reliable_out_of_order = 0;
    std::uint64_t unreliable_sent = 0, unreliable_delivered = 0;
    std::uint64_t upstream_bytes = 0;
    std::uint64_t upstream_refused = 0;
    cpu_use cpu;
    std::size_t resident = 0, peak_resident = 0;  ///< the process, at the end of the run
    std::size_t client_bytes = 0, shared_bytes = 0; ///< the replication server's (client_bytes summed)
};

/// Inputs and messages over the whole run, both ways.
void count_two_way(results& r, const server& host, const std::vector<std::unique_ptr<client>>& clients)
{
    for (const auto& c : clients) {
        r.inputs_sent += c->inputs_sent();
        r.upstream_bytes += c->bytes_sent();
        r.reliable_sent += c->chats_sent() + c->pushes_sent();
        r.reliable_delivered += c->relayed().delivered;
        r.reliable_duplicated += c->relayed().duplicated;
        r.reliable_out_of_order += c->relayed().out_of_order;
        r.unreliable_delivered += c->scores();
    }
    for (const server::peer& p : host.peers()) {
        const auto& inputs = *host.replication().input_statistics(p.id);
        r.inputs_received += inputs.delivered;
        r.inputs_duplicate += inputs.duplicates;
        r.reliable_sent += p.relayed;
        for (const ordered_count* count : {&p.chats, &p.pushes}) {
            r.reliable_delivered += count->delivered;
            r.reliable_duplicated += count->duplicated;
            r.reliable_out_of_order += count->out_of_order;
        }
        r.unreliable_sent += host.replication().messages(p.id)->unreliable_queued;
        r.upstream_refused += host.replication().statistics(p.id)->acks_refused;
    }
}

results run(const settings& s, const std::filesystem::path& save_path, bitrep::replication_encoding encoding)
{
    asio::io_context io;
    bitrep::replication_options options; // 1200-byte packets, no bytes-per-second cap, 64-packet window
    options.encoding = encoding;
    options.security = s.security == "crc" || !bitrep::replication::aead_available() ? bitrep::packet_security::crc
                                                                                    : bitrep::packet_security::aead;
    server host(io, options);
    std::vector<std::unique_ptr<client>> clients;
    for (std::size_t i = 0; i < s.clients; ++i) {
        // The login: a fresh key per connection, given to both ends over a
        // channel this example trusts (its own memory; a real game's login
        // server, over TLS).
        const bitrep::packet_key key = bitrep::packet_key::random();
        clients.push_back(std::make_unique<client>(io, host.endpoint(), options, key, link_for(s.loss),
                                                   s.seed + 1 + i, static_cast<std::uint32_t>(i)));
        host.admit(clients.back()->endpoint(), key);
    }

    World world{};
    world.seed = s.seed;
    simulation sim(s.seed);
    sim.populate(world, s.entities);

    results r;
    tick_clock clock(tick_rate);
    // The server reads hellos and the clients' packets (acks, inputs,
    // messages), the world moves, the server sends every client its
    // packet, and each client applies what its link has delivered by now,
    // then sends its own packet: its ack, and while the world moves its
    // input and messages.
    std::uint64_t tick_number = 0;
    auto tick = [&](bool moving) {
        ++tick_number;
        const double start = thread_cpu_seconds();
        host.receive(world);
        double world_cpu = 0;
        if (moving) {
            const double step_start = thread_cpu_seconds();
            sim.step(world);
            world_cpu = thread_cpu_seconds() - step_start;
            host.simulate(world);
        }
        host.send(world);
        const double served = thread_cpu_seconds();
        const double now = clock.now_ms();
        double checks = 0;
        for (const auto& c : clients) {
            c->receive(now, [&] {
                const double check_start = thread_cpu_seconds();
                r.views.run(host, *c);
                checks += thread_cpu_seconds() - check_start;
            });
            c->send(tick_number, now, moving);
        }
        const double end = thread_cpu_seconds();
        if (moving) {
            r.cpu.server += served - start - world_cpu;
            r.cpu.world += world_cpu;
            r.cpu.clients += end - served - checks;
            r.cpu.checks += checks;
            r.cpu.tick += end - start;
        }
        clock.wait();
    };

    r.ticks = static_cast<std::uint64_t>(std::llround(s.duration * tick_rate));
    const steady::time_point started = steady::now();
    for (std::uint64_t t = 1; t <= r.ticks; ++t) {
        tick(true);
        for (const auto& slot : world.cubes.slots()) {
            r.live += slot.has_value() ? 1 : 0;
            r.moving += slot.has_value() && slot->moving ? 1 : 0;
        }
        if (t % save_every_ticks == 0 || t == r.ticks) {
            const double start = thread_cpu_seconds();
            r.saves.run(world, save_path);
            r.cpu.checks += thread_cpu_seconds() - start;
            r.cpu.tick += thread_cpu_seconds() - start;
        }
    }
    r.seconds = std::chrono::duration<double>(steady::now() - started).count();
    r.late_ticks = clock.late();
    r.network = measure(host, clients);
    r.joined = host.peers().size();

    // The world stops and the links clear: every client must then come to
    // hold the server's world exactly (as its conditions let it see it),
    // and every input and reliable message must be acknowledged. The world
    // is the one of each catch-up tick, not of the tick it stopped: pushes
    // still on their way change the players when they arrive (with 64
    // clients there always are some, and comparing with the world of the
    // stop counted every client as out of sync).
    for (const auto& c : clients)
        c->clear_link();
    World target = rebuilt(world);
    auto synced = [&](const auto& c) {
        const server::peer* p = host.find(c->endpoint());
        return p != nullptr && holds(*c, as_seen_by(target, p->id)) && c->drained() && host.waiting(*p) == 0;
    };
    while (r.catch_up < catch_up_ticks && !std::all_of(clients.begin(), clients.end(), synced)) {
        tick(false);
        target = rebuilt(world);
        ++r.catch_up;
    }
    r.desyncs = static_cast<std::uint64_t>(std::count_if(clients.begin(), clients.end(), [&](const auto& c) { return !synced(c); }));
    count_two_way(r, host, clients);
    r.resident = resident_bytes();
    r.peak_resident = peak_resident_bytes();
    for (const server::peer& p : host.peers())
        r.client_bytes += host.replication().client_bytes(p.id);
    r.shared_bytes = host.replication().shared_bytes();
    return r;
}

std::string fixed(double value, int decimals)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}
std::string count(std::uint64_t value) { return std::to_string(value); }
std::string percent(double fraction) { return fixed(100 * fraction, 1) + "%"; }
/// The seconds of game time the world moved: rates are per game second, so
/// that a run behind real time (a loaded machine) sends the same kbps.
double game_seconds(const results& r) { return static_cast<double>(r.ticks) / tick_rate; }

std::string mib(std::size_t bytes) { return fixed(static_cast<double>(bytes) / (1024.0 * 1024.0), 1) + " MiB"; }

void row(const char* label, const std::string& value) { std::printf("  %-34s %s\n", label, value.c_str()); }

const char* name_of(bitrep::replication_encoding encoding)
{
    return encoding == bitrep::replication_encoding::coded ? "coded" : "bit_packed";
}

void print(const settings& s, const results& r, bitrep::replication_encoding encoding)
{
    const traffic& n = r.network;
    const bitrep::link_conditions link = link_for(s.loss);
    const double clients = static_cast<double>(s.clients);
    const double ticks = static_cast<double>(r.ticks);
    const double bits = static_cast<double>(n.bytes) * 8;
    const double bytes_per_tick = static_cast<double>(n.bytes) / clients / ticks;
    const double raw_per_tick = sizeof(Cube) * r.live / ticks + sizeof(World::tick);

    std::printf("\nbitrep arena (seed %llu, %s encoding)\n\n", static_cast<unsigned long long>(s.seed), name_of(encoding));
    row("entities", fixed(r.live / ticks, 0) + " (" + percent(r.moving / r.live) + " moving per tick)");
    row("clients", count(s.clients) + " (" + count(r.joined) + " joined)");
    row("packets", s.security == "crc" || !bitrep::replication::aead_available()
                       ? std::string("CRC-32 only (--security crc)")
                       : std::string("sealed: ChaCha20-Poly1305, a key per client, replays refused (+28 bytes each)"));
    row("loss rate", percent(link.loss) + " (and " + fixed(link.latency, 0) + " ms latency, 0-" + fixed(link.jitter, 0) +
                         " ms jitter, " + percent(link.duplicate) + " duplicated, " + percent(link.reorder) +
                         " held back " + fixed(link.reorder_delay, 0) + " ms, " + percent(link.corrupt) + " corrupted)");
    row("ticks", count(r.ticks) + " at " + fixed(tick_rate, 0) + " Hz (" + count(r.late_ticks) + " late)");
    row("duration", fixed(r.seconds, 2) + " s (" + fixed(game_seconds(r), 2) + " s of game time, which the rates below are per)");
    const auto per_tick = [&](double seconds) { return fixed(seconds * 1e6 / ticks, 0) + " us"; };
    row("server CPU per tick", per_tick(r.cpu.server) + " (" + fixed(r.cpu.server * 1e6 / ticks / clients, 1) +
                                   " us per client: packets in, update, replicate, UDP out)");
    row("clients CPU per tick", per_tick(r.cpu.clients) + " (all " + count(s.clients) + ": links, receive, packet, UDP)");
    row("checks and world CPU per tick", per_tick(r.cpu.checks) + " torn-state and save checks, " + per_tick(r.cpu.world) +
                                             " simulation");
    row("whole tick CPU", per_tick(r.cpu.tick) + " of the " + fixed(1e6 / tick_rate, 0) + " us a tick lasts");
    row("memory", mib(r.resident) + " resident at the end (peak " + mib(r.peak_resident) + "); server: " +
                      mib(r.client_bytes) + " for its clients, " + mib(r.shared_bytes) + " shared");
    row("kbps per client, average", fixed(bits / 1000 / game_seconds(r) / clients, 1) + " (UDP payload, server to client)");
    row("kbps per client, peak second", fixed(static_cast<double>(n.peak_second_bytes) * 8 / 1000, 1));
    row("bytes per tick per client", fixed(bytes_per_tick, 1));
    row("bits per entity update", fixed(bits / static_cast<double>(n.sent.entities_sent), 1) +
                                      " (all state-packet bits / " + count(n.sent.entities_sent) + " entities sent)");
    row("raw structs per tick", fixed(raw_per_tick, 0) + " bytes (sizeof(Cube) = " + count(sizeof(Cube)) +
                                    " x live cubes + sizeof(tick) = " + count(sizeof(World::tick)) + ")");
    row("raw / bitrep", fixed(raw_per_tick / bytes_per_tick, 1) + "x");
    row("entity updates deferred", count(n.sent.entities_deferred) + " (in " + count(n.full_packets) + " full packets of " +
                                       count(n.sent.packets_sent) + ", the last at tick " + count(n.last_full_tick) + ")");
    row("packets without a baseline", count(n.sent.full_states));
    row("link: dropped/dup/held/corrupt", count(n.link.dropped) + " / " + count(n.link.duplicated) + " / " +
                                              count(n.link.reordered) + " / " + count(n.link.corrupted) + " of " +
                                              count(n.link.sent));
    row("clients: applied/stale/no base/bad", count(n.received.applied) + " / " + count(n.received.stale) + " / " +
                                                  count(n.received.no_baseline) + " / " + count(n.received.refused));
    if (n.send_failures != 0)
        row("datagrams not sent", count(n.send_failures) + " (socket buffer full)");
    row("torn states", count(r.views.torn) + " (" + count(r.views.checked) + " packets checked, " +
                           count(r.views.outside_window) + " past the server's window)");
    row("inputs sent/received/lost", count(r.inputs_sent) + " / " + count(r.inputs_received) + " / " +
                                         count(r.inputs_sent - std::min(r.inputs_sent, r.inputs_received)) + " (" +
                                         count(r.inputs_duplicate) + " redundant copies dropped)");
    row("reliable sent/delivered/dup/order", count(r.reliable_sent) + " / " + count(r.reliable_delivered) + " / " +
                                                 count(r.reliable_duplicated) + " / " + count(r.reliable_out_of_order) +
                                                 " (chat, relayed chat, pushes)");
    row("unreliable sent/delivered", count(r.unreliable_sent) + " / " + count(r.unreliable_delivered) + " (scores)");
    row("upstream kbps per client", fixed(static_cast<double>(r.upstream_bytes) * 8 / 1000 / game_seconds(r) / clients, 1) +
                                        " (UDP payload, client to server; " + count(r.upstream_refused) +
                                        " packets refused)");
    row("catch-up ticks", count(r.catch_up) + " (after the world stopped and the links cleared)");
    row("desyncs", count(r.desyncs));
    row("save size", count(r.saves.file_bytes) + " bytes");
    row("load check", (r.saves.failures == 0 ? "ok" : "FAILED, " + r.saves.first_failure) + " (" +
                          count(r.saves.runs - r.saves.failures) + " of " + count(r.saves.runs) + " loads equal)");
    std::printf("\n");
}

/// The same seed in both encodings: what the coded deltas bought.
void compare(const settings& s, const results& before, const results& after)
{
    auto kbps = [&](const results& r) {
        return static_cast<double>(r.network.bytes) * 8 / 1000 / game_seconds(r) / static_cast<double>(s.clients);
    };
    auto bits_per_update = [](const results& r) {
        return static_cast<double>(r.network.bytes) * 8 / static_cast<double>(r.network.sent.entities_sent);
    };
    std::printf("before and after (the same seed; bit_packed -> coded)\n\n");
    row("kbps per client, average", fixed(kbps(before), 1) + " -> " + fixed(kbps(after), 1) + " (" +
                                        fixed(kbps(after) / kbps(before), 3) + "x)");
    row("kbps per client, peak second",
        fixed(static_cast<double>(before.network.peak_second_bytes) * 8 / 1000, 1) + " -> " +
            fixed(static_cast<double>(after.network.peak_second_bytes) * 8 / 1000, 1));
    row("bits per entity update", fixed(bits_per_update(before), 1) + " -> " + fixed(bits_per_update(after), 1) + " (" +
                                      fixed(bits_per_update(after) / bits_per_update(before), 3) + "x)");
    row("entity updates deferred", count(before.network.sent.entities_deferred) + " -> " +
                                       count(after.network.sent.entities_deferred));
    row("torn states, desyncs", count(before.views.torn) + ", " + count(before.desyncs) + " -> " +
                                    count(after.views.torn) + ", " + count(after.desyncs));
    std::printf("\n");
}

/// No desync, torn state or bad save; every reliable message delivered once
/// and in order; and up to 25% loss no input lost (the input window of 8
/// covers it; past that, an input is lost when all 8 packets that carried it are).
bool clean(const settings& s, const results& r)
{
    const bool inputs_ok = s.loss > 0.25 || r.inputs_received == r.inputs_sent;
    return r.desyncs == 0 && r.views.torn == 0 && r.saves.failures == 0 && r.reliable_duplicated == 0 &&
           r.reliable_out_of_order == 0 && r.reliable_delivered == r.reliable_sent && inputs_ok;
}

} // namespace

// NOLINTNEXTLINE(bugprone-exception-escape): an example; an exception (a socket that cannot open) ends it with its message
int main(int argc, char** argv)
{
    settings s;
    CLI::App app{"bitrep arena: a server and clients replicating a world of moving cubes over loopback UDP"};
    app.add_option("--entities", s.entities, "cubes in the world")->check(CLI::Range(std::size_t{1}, simulation::capacity));
    app.add_option("--clients", s.clients, "clients, each on its own UDP socket")->check(CLI::Range(1, 64));
    app.add_option("--loss", s.loss, "probability the link drops a packet to a client")->check(CLI::Range(0.0, 1.0));
    app.add_option("--duration", s.duration, "seconds the world moves")->check(CLI::Range(0.1, 3600.0));
    app.add_option("--seed", s.seed, "seeds the world and the links");
    app.add_option("--encoding", s.encoding, "coded, bit_packed, or both (the same run in each, compared)")
        ->check(CLI::IsMember({"coded", "bit_packed", "both"}));
    app.add_option("--security", s.security, "aead: packets sealed with a key per client (ChaCha20-Poly1305); crc: a CRC only")
        ->check(CLI::IsMember({"aead", "crc"}));
    app.add_option("--save", s.save_path, "save file (default: one of this run's own in the temporary directory, removed at the end)");
    CLI11_PARSE(app, argc, argv);

    const bool own_save_file = s.save_path.empty();
    const std::filesystem::path save_path =
        own_save_file ? std::filesystem::temp_directory_path() / ("bitrep-arena-" + std::to_string(::getpid()) + ".save")
                      : std::filesystem::path(s.save_path);
    try {
        using bitrep::replication_encoding;
        bool ok = true;
        std::optional<results> before;
        if (s.encoding != "coded") {
            before = run(s, save_path, replication_encoding::bit_packed);
            ok = clean(s, *before);
            if (s.encoding == "bit_packed")
                print(s, *before, replication_encoding::bit_packed);
        }
        if (s.encoding != "bit_packed") {
            const results after = run(s, save_path, replication_encoding::coded);
            ok = ok && clean(s, after);
            print(s, after, replication_encoding::coded);
            if (before)
                compare(s, *before, after);
        }
        if (own_save_file)
            std::filesystem::remove(save_path);
        return ok ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "arena: %s\n", e.what());
        return 2;
    }
}
