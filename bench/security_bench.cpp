// What protecting a replication packet costs (docs/design/security.md): sealing and
// opening a packet with ChaCha20-Poly1305 against the CRC path's CRC-32, at
// the default packet size (1200 bytes) and at a small ack's. The state
// encode it adds to is in replication_bench (docs/benchmarks.md).
#include <benchmark/benchmark.h>

#include <bitrep/replication/security.hpp>

#include <cstdint>
#include <numeric>
#include <vector>

namespace {

namespace rep = bitrep::replication;
constexpr std::uint32_t protocol = 0x62726570;

std::vector<std::uint8_t> packet_of(benchmark::State& state)
{
    std::vector<std::uint8_t> packet(static_cast<std::size_t>(state.range(0)));
    std::iota(packet.begin(), packet.end(), std::uint8_t{3});
    return packet;
}

void report(benchmark::State& state)
{
    state.SetBytesProcessed(state.iterations() * state.range(0));
    state.counters["packet_bytes"] = static_cast<double>(state.range(0));
}

void BM_crc_seal(benchmark::State& state)
{
    std::vector<std::uint8_t> packet = packet_of(state);
    for (auto _ : state) {
        rep::seal(protocol, rep::packet_kind::state, packet);
        benchmark::DoNotOptimize(packet.data());
    }
    report(state);
}
BENCHMARK(BM_crc_seal)->Arg(1200)->Arg(64);

void BM_crc_check(benchmark::State& state)
{
    std::vector<std::uint8_t> packet = packet_of(state);
    rep::seal(protocol, rep::packet_kind::state, packet);
    bool ok = true;
    for (auto _ : state)
        ok &= rep::check_seal(protocol, rep::packet_kind::state, packet).ok();
    if (!ok)
        state.SkipWithError("check_seal failed");
    report(state);
}
BENCHMARK(BM_crc_check)->Arg(1200)->Arg(64);

void BM_aead_seal(benchmark::State& state)
{
    if (!rep::aead_available()) {
        state.SkipWithError("bitrep built without libsodium");
        return;
    }
    const bitrep::packet_key key = bitrep::packet_key::random();
    std::vector<std::uint8_t> packet = packet_of(state);
    std::uint64_t number = 0;
    bool ok = true;
    for (auto _ : state) {
        ok &= rep::aead_seal(key, rep::direction::server_to_client, 1, protocol, rep::packet_kind::state, number++, packet)
                  .ok();
        benchmark::DoNotOptimize(packet.data());
    }
    if (!ok)
        state.SkipWithError("aead_seal failed");
    report(state);
}
BENCHMARK(BM_aead_seal)->Arg(1200)->Arg(64);

/// Opens a packet of the state's size, sealed, and (when `forged`) with a
/// byte of its body changed afterwards, again and again.
void open_sealed(benchmark::State& state, bool forged)
{
    if (!rep::aead_available()) {
        state.SkipWithError("bitrep built without libsodium");
        return;
    }
    const bitrep::packet_key key = bitrep::packet_key::random();
    std::vector<std::uint8_t> packet = packet_of(state);
    bool ok = rep::aead_seal(key, rep::direction::server_to_client, 1, protocol, rep::packet_kind::state, 7, packet).ok();
    if (forged)
        packet[20] ^= 1;
    std::vector<std::uint8_t> body(packet.size() - rep::aead_overhead_bytes);
    for (auto _ : state) {
        ok &= rep::aead_open(key, rep::direction::server_to_client, protocol, rep::packet_kind::state, packet, body)
                  .ok() != forged;
        benchmark::DoNotOptimize(body.data());
    }
    if (!ok)
        state.SkipWithError(forged ? "a forgery opened" : "aead_open failed");
    report(state);
}

/// Authentication and decryption; a guard's open adds the replay check.
void BM_aead_open(benchmark::State& state) { open_sealed(state, false); }
BENCHMARK(BM_aead_open)->Arg(1200)->Arg(64);

/// A forged packet: refused after the tag check, nothing decrypted.
void BM_aead_refuse_forgery(benchmark::State& state) { open_sealed(state, true); }
BENCHMARK(BM_aead_refuse_forgery)->Arg(1200)->Arg(64);

} // namespace

BENCHMARK_MAIN();
