// libFuzzer target: hostile packets into replication_client::receive and
// hostile acks into replication_server::receive. A client that already holds
// several baselines gets the fuzzer's bytes raw and re-sealed with a valid
// CRC (so that they reach the header, the baseline lookup and the delta
// decoder); a server with packets in flight and not yet acknowledged gets
// them as an ack, raw and re-sealed, and so does a server sending a large
// state packet in slices. The checks: a refused packet or ack
// changes nothing (the client's state, sequence and baselines; the server's
// next packet); an accepted forged packet (a right CRC and a valid payload
// cannot be told from the server's) leaves a newer state that encodes; after
// an accepted forged ack the server's next packets still apply on the honest
// client, to the states the server recorded. Each input starts from copies
// of objects prepared once (a server, which cannot be copied, is replayed).
//
// The first byte picks the packet path (docs/design/security.md): even, the CRC
// path; odd, the AEAD path, where the raw bytes must fail to authenticate
// and the re-sealed ones are sealed with the connection's key (a hostile
// peer that holds its own key, or a bug on the other end), so that they
// reach the same readers behind packet_guard::open.
#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>

#include "../replication_world.hpp"
#include "../resealed.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <vector>

namespace fuzz {

// The replication tests' Cube (replication_world.hpp), in a world of its
// own rather than replicated_worlds.hpp's World: fewer slots, and a field of
// each container kind (bounded_vector, optional, delta_small) for the fuzzer
// to reach in the state reader.
struct World {
    bitrep::ranged<std::uint32_t, 0, 1'000'000> tick;
    bitrep::entity_array<Cube, 64> cubes;
    bitrep::bounded_vector<bitrep::ranged<int, 0, 100>, 8> scores;
    std::optional<bitrep::quantized<-100.f, 100.f, 0.01f>> boss;
    bitrep::delta_small<bitrep::quantized<0.f, 10.f, 0.01f>, 4> wind;
    bitrep::save_only<std::uint64_t> seed = 0;
};
BOOST_DESCRIBE_STRUCT(World, (), (tick, cubes, scores, boss, wind, seed))

using server_type = bitrep::replication_server<World>;
using client_type = bitrep::replication_client<World>;
using bytes = std::vector<std::uint8_t>;

[[noreturn]] void fail(const char* what, const bitrep::status& st = {})
{
    std::fprintf(stderr, "replication_fuzz: %s (%s)\n", what, st.message().c_str());
    std::abort();
}

/// The honest world at a tick: sixteen cubes spread over the slots, a few
/// of which move, turn or change state each tick, and one that roams from
/// slot to slot (created and destroyed); the other fields change size,
/// presence and value. Few changes per tick keep the server's replay cheap.
World world_at(std::uint32_t t)
{
    World w;
    w.tick = t;
    const float ft = static_cast<float>(t);
    for (std::uint32_t id = 1; id < 64; id += 4) {
        Cube& c = w.cubes.emplace(id);
        c.x = -200.0f + static_cast<float>(id) * 6.0f;
        c.y = static_cast<float>(id) - 30.0f;
        c.z = 1.5f;
    }
    w.cubes[1].x += 0.37f * ft;
    w.cubes[5].y = 10.0f * std::sin(0.3f * ft);
    w.cubes[9].orientation = {0.0f, 0.0f, std::sin(0.05f * ft), std::cos(0.05f * ft)};
    w.cubes[13].interacting = t % 2 == 0;
    Cube& roaming = w.cubes.emplace((t * 11) % 64); // sometimes over a still one
    roaming.x = ft;
    for (std::uint32_t i = 0; i < t % 9; ++i)
        w.scores.push_back(static_cast<int>((t * 13 + i * 7) % 101));
    if (t % 3 != 0)
        w.boss = -50.0f + 3.5f * ft;
    w.wind = 5.0f + 0.02f * static_cast<float>(t % 3); // steps up, then down
    w.seed = 12345;
    return w;
}

/// Both ends agree on these. A small window keeps the per-input copies cheap
/// while the client still holds several baselines. No end-of-packet check
/// value (as in release builds): a 32-bit constant at a bit offset that
/// depends on the whole packet is out of the fuzzer's reach, and with it no
/// forged packet would ever be accepted and reach the checks below.
bitrep::replication_options options(bitrep::packet_security security)
{
    bitrep::replication_options o;
    o.window = 8;
    o.check_value = false;
    o.security = security;
    return o;
}

/// The connection's key on the AEAD path: fixed, so that runs repeat.
bitrep::packet_key key()
{
    bitrep::packet_key k;
    for (std::size_t i = 0; i < k.bytes.size(); ++i)
        k.bytes[i] = static_cast<std::uint8_t>(0x40 + 3 * i);
    return k;
}

/// The connection id both ends are given with the key: fixed too, so that
/// traffic gives the same bytes.
constexpr std::uint64_t connection_id = 0xC1;

// Honest traffic: the server sends packets 0 .. sent - 1 and the client
// applies them all, but only the acks of 0 .. acked - 1 reach the server, so
// forged acks can name packets that are sent and not acknowledged.
constexpr std::uint32_t sent = 5;
constexpr std::uint32_t acked = 2;

/// Everything prepared once.
struct prepared {
    bitrep::packet_security security;
    std::vector<World> worlds;       ///< the world at ticks 0 .. sent
    std::vector<bytes> acks;         ///< the client's ack after each packet
    std::vector<bytes> states;       ///< the server's packets 0 .. sent - 1
    bytes client_state;              ///< to_bytes(honest_client(p).state())
    bytes next_packet;               ///< packet `sent`, from a server given only the honest acks
    World next_state;                ///< the state packet `sent` brings the client to
};

/// The server's side of the honest traffic; `ack_of(t, packet)` gives the
/// client's ack of packet t. A server cannot be copied, so each input that
/// needs a fresh one replays this with the acks recorded once.
template <class AckOf>
void replay(server_type& server, bitrep::client_id id, const std::vector<World>& worlds, AckOf ack_of)
{
    for (std::uint32_t t = 0; t < sent; ++t) {
        std::span<const std::uint8_t> packet;
        server.update(worlds[t]);
        if (const bitrep::status st = server.replicate(id, packet); !st)
            fail("honest replicate failed", st);
        const std::span<const std::uint8_t> ack = ack_of(t, packet);
        if (t < acked)
            if (const bitrep::status st = server.receive(id, ack); !st)
                fail("honest ack refused", st);
    }
}

void replay(server_type& server, bitrep::client_id id, const prepared& p)
{
    replay(server, id, p.worlds, [&](std::uint32_t t, std::span<const std::uint8_t>) {
        return std::span<const std::uint8_t>(p.acks[t]);
    });
}

/// A client that checks its change notifications.
client_type new_client(bitrep::packet_security security)
{
    client_type client(options(security), key(), connection_id);
    client.on_change([](const bitrep::state_change& change, const World&, const World&) {
        if (change.field >= bitrep::reflect::field_count<World> ||
            (change.what != bitrep::state_change::kind::field && change.id >= 64))
            fail("change notification names no field or slot");
    });
    return client;
}

/// The client after the honest traffic (packets 0 .. sent - 1 applied, each
/// acknowledged). A client cannot be copied, as two copies would seal under
/// one nonce: each input that needs one replays the traffic into a new one.
client_type honest_client(const prepared& p)
{
    client_type client = new_client(p.security);
    for (const bytes& packet : p.states) {
        if (const bitrep::status st = client.receive(packet); !st)
            fail("honest packet refused", st);
        static_cast<void>(client.ack());
    }
    return client;
}

prepared prepare(bitrep::packet_security security)
{
    prepared p{security, {}, {}, {}, {}, {}, {}};
    for (std::uint32_t t = 0; t <= sent; ++t)
        p.worlds.push_back(world_at(t));
    client_type client = new_client(security);
    server_type server(options(security));
    const bitrep::client_id id = server.add_client(key(), connection_id);
    replay(server, id, p.worlds, [&](std::uint32_t, std::span<const std::uint8_t> packet) {
        p.states.emplace_back(packet.begin(), packet.end());
        if (const bitrep::status st = client.receive(packet); !st)
            fail("honest packet refused", st);
        const std::span<const std::uint8_t> ack = client.ack();
        return std::span<const std::uint8_t>(p.acks.emplace_back(ack.begin(), ack.end()));
    });
    p.client_state = bitrep::to_bytes(client.state());

    std::span<const std::uint8_t> packet;
    server.update(p.worlds[sent]);
    if (const bitrep::status st = server.replicate(id, packet); !st)
        fail("honest replicate failed", st);
    p.next_packet.assign(packet.begin(), packet.end());
    p.next_state = *server.sent_state(id, static_cast<std::uint16_t>(sent));

    // The replay each input starts from must be the run above.
    server_type again(options(security));
    const bitrep::client_id same_id = again.add_client(key(), connection_id);
    replay(again, same_id, p);
    again.update(p.worlds[sent]);
    if (!again.replicate(same_id, packet) || !std::ranges::equal(packet, p.next_packet))
        fail("the server's replay differs from the honest run");
    return p;
}

/// The fuzzer's bytes as a packet that passes the path's check: on the CRC
/// path with a right CRC over them (their first 4 bytes replaced); on the
/// AEAD path as the body, sealed under a packet number the receiver has not
/// seen (past the next honest one, which must still open afterwards; a
/// slice takes the number after a state packet's).
bytes sealed(const prepared& p, std::span<const std::uint8_t> input, bitrep::replication::packet_kind kind)
{
    bytes packet;
    const std::uint64_t number = kind == bitrep::replication::packet_kind::slice ? sent + 2 : sent + 1;
    if (const bitrep::status st =
            resealed(p.security, key(), input, options(p.security).protocol_id, kind, connection_id, number, packet);
        !st)
        fail("sealing failed", st);
    return packet;
}

/// Whether the fuzzer's input is the size sealed() turns into a client
/// packet: an ack, 11 bytes on the CRC path (the input is the body on the
/// AEAD path), or 14 bytes more with a slice ack.
bool ack_input_size(bitrep::packet_security security, std::size_t size)
{
    const std::size_t ack = security == bitrep::packet_security::crc
                                ? bitrep::replication::ack_bytes
                                : bitrep::replication::ack_bytes - bitrep::replication::crc_bytes;
    return size == ack || size == ack + bitrep::replication::slice_ack::bits / 8;
}

/// One forged packet into the client: refused changes nothing, accepted
/// leaves a newer sequence and a state that encodes, decodes, and encodes to
/// the same bytes again.
bool forge_packet(client_type& client, std::span<const std::uint8_t> packet, const bytes& state_before)
{
    const std::uint16_t sequence_before = client.sequence();
    const bool had_state = client.has_state();
    const std::uint64_t slices_before = client.statistics().slices;
    const bitrep::status st = client.receive(packet);
    // A slice taken that completes no packet changes no state either.
    if (!st || client.statistics().slices != slices_before) {
        if (client.sequence() != sequence_before || client.has_state() != had_state ||
            bitrep::to_bytes(client.state()) != state_before)
            fail(st ? "a slice that completed no packet changed the client" : "a refused packet changed the client",
                 st);
        return false;
    }
    if (!bitrep::replication::sequence_newer(client.sequence(), sequence_before))
        fail("an accepted packet is not newer than the one before");
    bytes encoded;
    if (const bitrep::status w = bitrep::to_bytes(client.state(), encoded); !w)
        fail("an accepted packet left a state that does not encode", w);
    World decoded;
    if (const bitrep::status r = bitrep::from_bytes(encoded, decoded); !r)
        fail("an accepted state's encoding does not decode", r);
    // Every encoding is a fixed point: what decoded from it encodes to it.
    if (bitrep::to_bytes(decoded) != encoded)
        fail("an accepted state does not re-encode to the same bytes");
    static_cast<void>(client.ack());
    return true;
}

void fuzz_client(const prepared& p, std::span<const std::uint8_t> input)
{
    client_type client = honest_client(p);
    bool accepted = forge_packet(client, input, p.client_state);
    for (const auto kind : {bitrep::replication::packet_kind::state, bitrep::replication::packet_kind::slice}) {
        const bytes resealed = sealed(p, input, kind);
        accepted = forge_packet(client, resealed, accepted ? bitrep::to_bytes(client.state()) : p.client_state) ||
                   accepted;
    }
    if (accepted)
        return;
    // Refusals left the baselines alone: the honest next packet, a delta
    // against one of them, still applies.
    if (const bitrep::status st = client.receive(p.next_packet); !st)
        fail("after refused packets the honest next packet does not apply", st);
    if (!bitrep::same_on_wire<bitrep::scope::replication>(client.state(), p.next_state))
        fail("after refused packets the honest next packet gives another state");
}

/// The honest client applies the server's packet `sequence` and reaches the
/// state the server recorded for it.
void applies(client_type& client, const server_type& server, bitrep::client_id id,
             std::span<const std::uint8_t> packet, std::uint32_t sequence)
{
    if (const bitrep::status st = client.receive(packet); !st)
        fail("after a forged ack the honest client cannot apply the server's packet", st);
    const std::optional<World> expected = server.sent_state(id, static_cast<std::uint16_t>(sequence));
    if (!expected || !bitrep::same_on_wire<bitrep::scope::replication>(client.state(), *expected))
        fail("after a forged ack the honest client reaches another state than the server sent");
}

/// The objects prepared for a path, once.
const prepared& prepared_for(bitrep::packet_security security)
{
    static const prepared crc = prepare(bitrep::packet_security::crc);
    if (security == bitrep::packet_security::crc)
        return crc;
    static const prepared aead = prepare(bitrep::packet_security::aead);
    return aead;
}

/// The static server after the replay, for inputs that cannot be an ack.
struct idle_server {
    server_type server;
    bitrep::client_id id;
    explicit idle_server(const prepared& p) : server(options(p.security)), id(server.add_client(key(), connection_id))
    {
        replay(server, id, p);
    }
};

void fuzz_server(const prepared& p, std::span<const std::uint8_t> input)
{
    const bytes resealed = sealed(p, input, bitrep::replication::packet_kind::ack);
    if (!ack_input_size(p.security, input.size())) {
        // Neither the raw nor the re-sealed bytes can be an ack (it is
        // exactly 11 or 25 bytes on the CRC path, 39 or 53 on the AEAD
        // path), so both are
        // refused (truncated, trailing data, or not authentic) and the server
        // needs no fresh replay: it is shared (one per path), and checked to
        // have counted the refusals and nothing else.
        static idle_server idle_crc(prepared_for(bitrep::packet_security::crc));
        static idle_server idle_aead(prepared_for(bitrep::packet_security::aead));
        idle_server& idle = p.security == bitrep::packet_security::crc ? idle_crc : idle_aead;
        const bitrep::server_client_statistics before = *idle.server.statistics(idle.id);
        if (idle.server.receive(idle.id, input) || idle.server.receive(idle.id, resealed))
            fail("an ack of the wrong size was taken");
        const bitrep::server_client_statistics& after = *idle.server.statistics(idle.id);
        if (after.acks_refused != before.acks_refused + 2 || after.acks_received != before.acks_received ||
            after.packets_sent != before.packets_sent)
            fail("refused acks were not counted as refused");
        return;
    }

    // A server cannot be copied: replay the honest traffic into a fresh one.
    server_type server(options(p.security));
    const bitrep::client_id id = server.add_client(key(), connection_id);
    replay(server, id, p);
    bool accepted = static_cast<bool>(server.receive(id, input));
    accepted = static_cast<bool>(server.receive(id, resealed)) || accepted;

    std::span<const std::uint8_t> packet;
    server.update(p.worlds[sent]);
    if (const bitrep::status st = server.replicate(id, packet); !st)
        fail("replicate failed after a forged ack", st);
    if (!accepted) {
        if (!std::ranges::equal(packet, p.next_packet))
            fail("a refused ack changed the server's next packet");
        return;
    }
    // An accepted ack names only packets sent, and the honest client applied
    // them all: whichever baseline the server now picks, the client holds it.
    // And the connection recovers: the client's ack is taken and the packet
    // after applies too.
    client_type client = honest_client(p);
    applies(client, server, id, packet, sent);
    if (const bitrep::status st = server.receive(id, client.ack()); !st)
        fail("after a forged ack the honest ack is refused", st);
    server.update(p.worlds[0]);
    if (const bitrep::status st = server.replicate(id, packet); !st)
        fail("replicate failed after a forged ack", st);
    applies(client, server, id, packet, sent + 1);
}

/// A world whose fields other than entities take about 260 bytes: in
/// packets of 120 bytes its first state goes in slices.
struct Ledger {
    bitrep::bounded_vector<std::uint32_t, 64> log;
    bitrep::entity_array<Cube, 4> cubes;
};
BOOST_DESCRIBE_STRUCT(Ledger, (), (log, cubes))

bitrep::replication_options sliced_options(bitrep::packet_security security)
{
    bitrep::replication_options o = options(security);
    o.max_packet_bytes = 120;
    return o;
}

/// A hostile ack into a server sending a large state packet in slices,
/// after the first slice: taken or refused, it never keeps the honest
/// client from the whole state for long (an ack it takes may name the
/// packet or its slices, which the server then trusts until the window
/// has moved on, as for any ack on the CRC path).
void fuzz_sliced_server(const prepared& p, std::span<const std::uint8_t> input)
{
    Ledger world;
    for (std::uint32_t i = 0; i < 64; ++i)
        world.log.push_back(i * 2654435761u);
    bitrep::replication_server<Ledger> server(sliced_options(p.security));
    const bitrep::client_id id = server.add_client(key(), connection_id);
    bitrep::replication_client<Ledger> client(sliced_options(p.security), key(), connection_id);
    std::span<const std::uint8_t> packet;
    server.update(world);
    if (const bitrep::status st = server.replicate(id, packet); !st || !client.receive(packet))
        fail("the first slice failed", st);
    static_cast<void>(client.packet()); // lost: the forged ack takes its number
    bytes forged;
    if (const bitrep::status st = resealed(p.security, key(), input, sliced_options(p.security).protocol_id,
                                           bitrep::replication::packet_kind::ack, connection_id, 0, forged);
        !st)
        fail("sealing failed", st);
    static_cast<void>(server.receive(id, forged));
    for (int call = 0; call < 200; ++call) {
        if (client.has_state() && bitrep::replicated_equal(client.state(), world))
            return;
        server.update(world);
        if (const bitrep::status st = server.replicate(id, packet); !st)
            fail("replicate failed after a forged ack of slices", st);
        static_cast<void>(client.receive(packet));
        static_cast<void>(server.receive(id, client.packet()));
    }
    fail("after a forged ack of slices the honest client never got the state");
}

} // namespace fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    // The first byte picks the path; the AEAD path needs a bitrep built with
    // libsodium.
    const bool aead = size > 0 && (data[0] & 1) != 0 && bitrep::replication::aead_available();
    const fuzz::prepared& p =
        fuzz::prepared_for(aead ? bitrep::packet_security::aead : bitrep::packet_security::crc);
    const std::span<const std::uint8_t> input = size > 0 ? std::span(data + 1, size - 1) : std::span(data, size);
    fuzz::fuzz_client(p, input);
    fuzz::fuzz_server(p, input);
    fuzz::fuzz_sliced_server(p, input);
    return 0;
}

#ifdef BITREP_SEED_GENERATOR
namespace fuzz {

/// The server's state packets after the honest traffic, of which the
/// client's first `acks` acks reached it (the harness's server: `acked`), at
/// the worlds of `ticks`: a packet each, sequence numbers `sent` onwards.
std::vector<bytes> next_packets(const prepared& p, std::uint32_t acks, const bitrep::replication_options& o,
                                std::initializer_list<std::uint32_t> ticks)
{
    server_type server(o);
    const bitrep::client_id id = server.add_client(key(), connection_id);
    std::span<const std::uint8_t> packet;
    for (std::uint32_t t = 0; t < sent; ++t) {
        server.update(p.worlds[t]);
        if (!server.replicate(id, packet) || (t < acks && !server.receive(id, p.acks[t])))
            fail("honest traffic refused");
    }
    std::vector<bytes> packets;
    for (const std::uint32_t t : ticks) {
        const World world = world_at(t);
        server.update(world);
        if (const bitrep::status st = server.replicate(id, packet); !st)
            fail("honest replicate failed", st);
        packets.emplace_back(packet.begin(), packet.end());
    }
    return packets;
}

/// A packet's body: what the AEAD path encrypts and the CRC path puts
/// after its CRC (packet_guard: the same bytes at the same place on both).
std::span<const std::uint8_t> body_of(const bytes& crc_packet)
{
    return std::span<const std::uint8_t>(crc_packet).subspan(bitrep::replication::crc_bytes);
}

/// The decrypted body of an honest AEAD packet.
bytes opened(const bytes& packet, bitrep::replication::packet_kind kind)
{
    bytes body;
    if (const bitrep::status st = unsealed(key(), packet, options(bitrep::packet_security::aead).protocol_id, kind, body);
        !st)
        fail("an honest AEAD packet does not open", st);
    return body;
}

} // namespace fuzz

/// Seeds: honest state packets the prepared client has not seen yet (the
/// server's next one; later ones; against the newest baseline; bit-packed
/// rather than coded; a full state without a baseline), the server's next
/// one in slices, and the client's acks the server has not had (of packets
/// 2 .. sent - 1; one with a slice ack). Each goes in on
/// the CRC path (first byte 0, the whole packet) and on the AEAD path
/// (first byte 1, the packet's body, which the harness seals), and must be
/// taken there.
void bitrep_fuzz_seeds(std::vector<std::vector<std::uint8_t>>& seeds)
{
    using fuzz::bytes;
    namespace rep = bitrep::replication;
    const fuzz::prepared& crc = fuzz::prepared_for(bitrep::packet_security::crc);
    const bitrep::replication_options coded = fuzz::options(bitrep::packet_security::crc);
    bitrep::replication_options bit_packed = coded;
    bit_packed.encoding = bitrep::replication_encoding::bit_packed;
    std::vector<bytes> states = fuzz::next_packets(crc, fuzz::acked, coded, {fuzz::sent, 6, 8, 9});
    if (states[0] != crc.next_packet)
        fuzz::fail("the server's next packet is not the harness's");
    // Against the newest baseline; bit-packed; with no baseline, a full state.
    for (const std::vector<bytes>& more : {fuzz::next_packets(crc, fuzz::sent, coded, {7}),
                                           fuzz::next_packets(crc, fuzz::acked, bit_packed, {fuzz::sent, 9}),
                                           fuzz::next_packets(crc, 0, coded, {fuzz::sent})})
        states.insert(states.end(), more.begin(), more.end());
    std::vector<bytes> acks(crc.acks.begin() + fuzz::acked, crc.acks.end());
    // The server's next packet as one slice, and as the first of two (CRC
    // packets: the CRC's 4 bytes, then the slice).
    std::vector<bytes> slices;
    const std::span<const std::uint8_t> next_body = fuzz::body_of(crc.next_packet);
    for (const std::uint32_t count : {1u, 2u}) {
        const rep::slicing cut{static_cast<std::uint32_t>(next_body.size()), count};
        bytes& slice = slices.emplace_back(rep::crc_bytes + rep::slice_header::bytes + cut.size(0), 0);
        rep::slice_header header{static_cast<std::uint16_t>(fuzz::sent), cut, 0};
        rep::message_write_stream stream(
            std::span<std::uint8_t>(slice).subspan(rep::crc_bytes, rep::slice_header::bytes));
        if (!header.serialize(stream))
            fuzz::fail("a slice header does not fit");
        stream.flush();
        std::copy_n(next_body.begin(), cut.size(0), slice.begin() + rep::crc_bytes + rep::slice_header::bytes);
        rep::seal(coded.protocol_id, rep::packet_kind::slice, slice);
    }
    {
        // The client's ack while it holds half a packet: with a slice ack.
        fuzz::client_type client = fuzz::honest_client(crc);
        if (const bitrep::status st = client.receive(slices[1]); !st)
            fuzz::fail("a seed slice is refused", st);
        const std::span<const std::uint8_t> ack = client.packet();
        acks.emplace_back(ack.begin(), ack.end());
    }

    std::vector<bitrep::packet_security> paths{bitrep::packet_security::crc};
    if (rep::aead_available()) {
        paths.push_back(bitrep::packet_security::aead);
        // The body the AEAD path seals is the CRC path's after its CRC.
        const fuzz::prepared& aead = fuzz::prepared_for(bitrep::packet_security::aead);
        const bytes state = fuzz::opened(aead.next_packet, rep::packet_kind::state);
        const bytes ack = fuzz::opened(aead.acks.back(), rep::packet_kind::ack);
        if (!std::ranges::equal(state, fuzz::body_of(crc.next_packet)) ||
            !std::ranges::equal(ack, fuzz::body_of(crc.acks.back())))
            fuzz::fail("the AEAD path's bodies are not the CRC path's");
    }
    for (const bitrep::packet_security security : paths) {
        const fuzz::prepared& p = fuzz::prepared_for(security);
        const bool aead = security == bitrep::packet_security::aead;
        // Adds the seed of `packet` (made on the CRC path) and returns the
        // harness's input after the path byte.
        const auto add_seed = [&](const bytes& packet) {
            const std::span<const std::uint8_t> input = aead ? fuzz::body_of(packet) : std::span(packet);
            bytes& s = seeds.emplace_back();
            s.push_back(aead ? 1 : 0); // the harness's path byte
            s.insert(s.end(), input.begin(), input.end());
            return input;
        };
        for (const bytes& packet : states) {
            fuzz::client_type client = fuzz::honest_client(p);
            const bytes sealed = fuzz::sealed(p, add_seed(packet), rep::packet_kind::state);
            if (!fuzz::forge_packet(client, sealed, p.client_state))
                fuzz::fail("a seed state packet is refused");
        }
        for (const bytes& slice : slices) {
            fuzz::client_type client = fuzz::honest_client(p);
            const bytes sealed = fuzz::sealed(p, add_seed(slice), rep::packet_kind::slice);
            if (const bitrep::status st = client.receive(sealed); !st)
                fuzz::fail("a seed slice is refused", st);
        }
        for (const bytes& ack : acks) {
            fuzz::server_type server(fuzz::options(security));
            const bitrep::client_id id = server.add_client(fuzz::key(), fuzz::connection_id);
            fuzz::replay(server, id, p);
            const bytes sealed = fuzz::sealed(p, add_seed(ack), rep::packet_kind::ack);
            if (const bitrep::status st = server.receive(id, sealed); !st)
                fuzz::fail("a seed ack is refused", st);
        }
    }
}
#endif
