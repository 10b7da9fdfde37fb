// libFuzzer target: hostile bytes into both packet readers of a game with
// inputs and messages (docs/guide/two-way.md): the server's
// reader of client packets (ack, inputs, message section) and the client's
// reader of state packets (input ack, message section, state). Each input
// goes in raw and re-sealed with a valid CRC, so that it reaches the
// sections. The checks: a refused packet delivers nothing (no input, no
// message handler) and changes nothing (the server's next packet, the
// client's state and statistics); an accepted one delivers inputs in
// increasing tick order, newer than any delivered before, and messages that
// are values of their types within their bounds.
//
// The first byte picks the packet path (docs/design/security.md): even, the CRC
// path; odd, the AEAD path, where the raw bytes must fail to authenticate
// and the re-sealed ones are sealed with the connection's key, as a hostile
// client holding its own key (or a bug on the server) would send them.
#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>

#include "../replicated_worlds.hpp"
#include "../resealed.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

namespace fuzz {

// The replication tests' World (replicated_worlds.hpp): the state packets
// this target reads are the ones those tests replicate.
using ::World;

struct Input {
    bitrep::ranged<int, -1, 1> move_x, move_y;
    bool fire = false;
};
BOOST_DESCRIBE_STRUCT(Input, (), (move_x, move_y, fire))

struct Chat {
    bitrep::ranged<std::uint32_t, 0, 1000> serial;
    bitrep::bounded_string<24> text;
};
BOOST_DESCRIBE_STRUCT(Chat, (), (serial, text))

struct Buy {
    bitrep::ranged<int, 0, 99> item;
    bitrep::bounded_vector<bitrep::ranged<int, 0, 9>, 4> options;
};
BOOST_DESCRIBE_STRUCT(Buy, (), (item, options))

using Messages = bitrep::message_set<Chat, Buy>;
using server_type = bitrep::replication_server<World, Input, Messages>;
using client_type = bitrep::replication_client<World, Input, Messages>;
using bytes = std::vector<std::uint8_t>;

[[noreturn]] void fail(const char* what, const bitrep::status& st = {})
{
    std::fprintf(stderr, "two_way_fuzz: %s (%s)\n", what, st.message().c_str());
    std::abort();
}

bitrep::replication_options options(bitrep::packet_security security)
{
    bitrep::replication_options o;
    o.window = 8;
    o.message_queue = 8;
    o.input_window = 4;
    o.security = security;
    return o;
}

/// The connection's key on the AEAD path: fixed, so that runs repeat.
bitrep::packet_key key()
{
    bitrep::packet_key k;
    for (std::size_t i = 0; i < k.bytes.size(); ++i)
        k.bytes[i] = static_cast<std::uint8_t>(0x90 - 5 * i);
    return k;
}

/// The connection id both ends are given with the key: fixed too, so that
/// packets are the same bytes.
constexpr std::uint64_t connection_id = 0xC1;

World world_at(std::uint32_t t)
{
    World w;
    w.tick = t;
    for (std::uint32_t id = 0; id < 16; id += 3) {
        Cube& c = w.cubes.emplace(id);
        c.x = static_cast<float>(id) + 0.25f * static_cast<float>(t);
    }
    return w;
}

Input input_at(std::uint32_t t)
{
    Input input;
    input.move_x = static_cast<int>(t % 3) - 1;
    input.fire = t % 2 == 0;
    return input;
}

/// What the handlers saw; every value is checked against its bounds.
struct deliveries {
    std::uint64_t messages = 0;
    std::uint64_t inputs = 0;
    bool any_input = false;
    std::uint32_t newest_input = 0;

    void input(std::uint32_t tick)
    {
        if (any_input && static_cast<std::int32_t>(tick - newest_input) <= 0)
            fail("an input delivered out of tick order or twice");
        any_input = true;
        newest_input = tick;
        ++inputs;
    }
    void chat(const Chat& c)
    {
        if (c.serial.get() > 1000 || c.text.str().size() > 24)
            fail("a chat line outside its bounds was delivered");
        ++messages;
    }
    void buy(const Buy& b)
    {
        if (b.item.get() < 0 || b.item.get() > 99 || b.options.size() > 4)
            fail("a purchase outside its bounds was delivered");
        ++messages;
    }
};

/// Honest traffic for `ticks` ticks: each tick the client sends its input,
/// a message both ways now and then, and both packets arrive. Returns the
/// client's packets, for the server's replay.
struct session {
    server_type server;
    client_type client;
    bitrep::client_id id;
    deliveries at_server, at_client;

    explicit session(bitrep::packet_security security)
        : server(options(security)), client(options(security), key(), connection_id),
          id(server.add_client(key(), connection_id))
    {
        server.on_input([this](bitrep::client_id, std::uint32_t tick, const Input&) { at_server.input(tick); });
        server.on_message<Chat>([this](bitrep::client_id, const Chat& c) { at_server.chat(c); });
        server.on_message<Buy>([this](bitrep::client_id, const Buy& b) { at_server.buy(b); });
        client.on_message<Chat>([this](const Chat& c) { at_client.chat(c); });
        client.on_message<Buy>([this](const Buy& b) { at_client.buy(b); });
    }

    /// update(world), then the server's packet for the client.
    std::span<const std::uint8_t> replicate(const World& world)
    {
        server.update(world);
        std::span<const std::uint8_t> out;
        if (const bitrep::status st = server.replicate(id, out); !st)
            fail("honest replicate failed", st);
        return out;
    }

    void run(std::uint32_t ticks)
    {
        for (std::uint32_t t = 1; t <= ticks; ++t) {
            if (!client.send_input(t, input_at(t)))
                fail("honest input refused");
            Chat c;
            c.serial = t;
            c.text = "hi " + std::to_string(t);
            if (t % 2 == 1 && !client.send(c, bitrep::channel::reliable))
                fail("honest chat refused");
            Buy b;
            b.item = static_cast<int>(t % 100);
            b.options.push_back(static_cast<int>(t % 10));
            if (t % 3 == 0 && !server.send(id, b, bitrep::channel::reliable))
                fail("honest purchase refused");
            if (t % 4 == 0 && !server.send(id, c, bitrep::channel::unreliable))
                fail("honest unreliable chat refused");
            const bitrep::status down = client.receive(replicate(world_at(t)));
            if (!down)
                fail("honest state packet refused", down);
            // The client's packet of tick 3 is lost, so the next ones carry
            // what it held again.
            const std::span<const std::uint8_t> up = client.packet();
            if (t != 3)
                if (const bitrep::status st = server.receive(id, up); !st)
                    fail("honest client packet refused", st);
        }
    }
};

constexpr std::uint32_t ticks = 6;

/// The fuzzer's bytes as a packet that passes the path's check: on the CRC
/// path with a right CRC over them (their first 4 bytes replaced); on the
/// AEAD path as the body, sealed under a packet number the receiver has not
/// seen (each end sent one per tick).
bytes sealed(bitrep::packet_security security, std::span<const std::uint8_t> input,
             bitrep::replication::packet_kind kind)
{
    const std::uint32_t protocol = bitrep::replication::protocol_id_for<Input, Messages>(options(security).protocol_id);
    bytes packet;
        if (const bitrep::status st = resealed(security, key(), input, protocol, kind, connection_id, ticks + 1, packet); !st)
        fail("sealing failed", st);
    return packet;
}

/// The client's packet and the server's next state packet after the
/// honest session, to compare with.
struct prepared {
    bitrep::packet_security security;
    bytes next_state_packet;
    bytes client_state;
};

prepared prepare(bitrep::packet_security security)
{
    session s(security);
    s.run(ticks);
    prepared p{security, {}, {}};
    const auto packet = s.replicate(world_at(ticks + 1));
    p.next_state_packet.assign(packet.begin(), packet.end());
    p.client_state = bitrep::to_bytes(s.client.state());
    if (s.at_server.messages == 0 || s.at_client.messages == 0 || s.at_server.inputs == 0)
        fail("the honest session delivered nothing");
    return p;
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

/// `s`: after the honest session, its client honest too.
void fuzz_server(const prepared& p, session& s, std::span<const std::uint8_t> input)
{
    bool accepted = false;
    for (const bytes& packet :
         {bytes(input.begin(), input.end()), sealed(p.security, input, bitrep::replication::packet_kind::ack)}) {
        const deliveries before = s.at_server;
        const bitrep::message_statistics messages = *s.server.messages(s.id);
        const std::size_t delivered_before = s.server.inputs(s.id).size();
        const bitrep::status st = s.server.receive(s.id, packet);
        accepted = accepted || st;
        if (!st) {
            if (s.at_server.messages != before.messages || s.at_server.inputs != before.inputs)
                fail("a refused client packet delivered something", st);
            if (s.server.messages(s.id)->reliable_delivered != messages.reliable_delivered ||
                s.server.messages(s.id)->reliable_acked != messages.reliable_acked ||
                s.server.inputs(s.id).size() != delivered_before)
                fail("a refused client packet changed the channels", st);
        }
    }
    // Refused packets leave the server's next packet as it was; whatever
    // was accepted, the server still makes one the honest client applies (a
    // forged ack may only name packets sent).
    const std::span<const std::uint8_t> next = s.replicate(world_at(ticks + 1));
    if (!accepted && !std::ranges::equal(next, p.next_state_packet))
        fail("refused client packets changed the server's next packet");
    const bitrep::status down = s.client.receive(next);
    if (!down && down != bitrep::error::no_baseline)
        fail("after a forged client packet the server's next packet does not apply", down);
}

/// `s`: after the honest session. Returns whether the client took a forged
/// packet (and is no longer honest).
bool fuzz_client(const prepared& p, session& s, std::span<const std::uint8_t> input)
{
    bool accepted = false;
    for (const bytes& packet :
         {bytes(input.begin(), input.end()), sealed(p.security, input, bitrep::replication::packet_kind::state)}) {
        const deliveries before = s.at_client;
        const bytes state_before = bitrep::to_bytes(s.client.state());
        const bitrep::status st = s.client.receive(packet);
        if (st) {
            accepted = true;
            continue;
        }
        if (s.at_client.messages != before.messages)
            fail("a refused state packet delivered a message", st);
        if (bitrep::to_bytes(s.client.state()) != state_before)
            fail("a refused state packet changed the state", st);
    }
    if (!accepted && bitrep::to_bytes(s.client.state()) != p.client_state)
        fail("refused packets moved the client off the honest state");
    return accepted;
}

} // namespace fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    // The first byte picks the path; the AEAD path needs a bitrep built with
    // libsodium.
    const auto security = size > 0 && (data[0] & 1) != 0 && bitrep::replication::aead_available()
                              ? bitrep::packet_security::aead
                              : bitrep::packet_security::crc;
    const fuzz::prepared& p = fuzz::prepared_for(security);
    const std::span<const std::uint8_t> input = size > 0 ? std::span(data + 1, size - 1) : std::span(data, size);
    // The client's reader first: it leaves the server alone, and when it
    // refused everything the client is still the honest one, so the same
    // session serves the server's reader (one honest session per input,
    // not two).
    fuzz::session s(security);
    s.run(fuzz::ticks);
    if (fuzz::fuzz_client(p, s, input)) {
        fuzz::session fresh(security);
        fresh.run(fuzz::ticks);
        fuzz::fuzz_server(p, fresh, input);
    } else {
        fuzz::fuzz_server(p, s, input);
    }
    return 0;
}

#ifdef BITREP_SEED_GENERATOR
namespace fuzz {

/// The packet `make(s)` gives after the honest session the harness starts
/// each input from, on `security`'s path.
template <class Make>
bytes after_session(bitrep::packet_security security, Make make)
{
    session s(security);
    s.run(ticks);
    const std::span<const std::uint8_t> packet = make(s);
    return bytes(packet.begin(), packet.end());
}

Chat chat(std::uint32_t serial, const char* text)
{
    Chat c;
    c.serial = serial;
    c.text = text;
    return c;
}

Buy buy(int item, std::initializer_list<int> options)
{
    Buy b;
    b.item = item;
    for (const int o : options)
        b.options.push_back(o);
    return b;
}

void check_sent(const bitrep::status& st)
{
    if (!st)
        fail("an honest message or input refused", st);
}

} // namespace fuzz

/// Seeds: the honest packets that come next after the session: the
/// server's state packet (as it is, with messages on both channels, at a
/// later world) and the client's packet (its next input, with messages,
/// with no new input). Each goes in on the CRC path (first byte 0, the
/// whole packet) and on the AEAD path (first byte 1, the packet's body,
/// which the harness seals), and must be taken there.
void bitrep_fuzz_seeds(std::vector<std::vector<std::uint8_t>>& seeds)
{
    using fuzz::bytes;
    using fuzz::session;
    namespace rep = bitrep::replication;
    using make_packet = std::span<const std::uint8_t> (*)(session&);
    const std::vector<make_packet> states{
        [](session& s) { return s.replicate(fuzz::world_at(fuzz::ticks + 1)); },
        [](session& s) {
            fuzz::check_sent(s.server.send(s.id, fuzz::buy(99, {0, 9, 4, 4}), bitrep::channel::reliable));
            fuzz::check_sent(
                s.server.send(s.id, fuzz::chat(1000, "twenty-four characters.."), bitrep::channel::unreliable));
            return s.replicate(fuzz::world_at(fuzz::ticks + 1));
        },
        [](session& s) {
            fuzz::check_sent(s.server.send(s.id, fuzz::chat(0, ""), bitrep::channel::reliable));
            return s.replicate(fuzz::world_at(40));
        },
    };
    const std::vector<make_packet> clients{
        [](session& s) {
            fuzz::check_sent(s.client.send_input(fuzz::ticks + 1, fuzz::input_at(fuzz::ticks + 1)));
            return s.client.packet();
        },
        [](session& s) {
            fuzz::check_sent(s.client.send_input(fuzz::ticks + 1, fuzz::input_at(fuzz::ticks + 1)));
            fuzz::check_sent(s.client.send(fuzz::chat(77, "gg"), bitrep::channel::reliable));
            fuzz::check_sent(s.client.send(fuzz::buy(0, {}), bitrep::channel::unreliable));
            return s.client.packet();
        },
        [](session& s) { return s.client.packet(); },
    };

    std::vector<bitrep::packet_security> paths{bitrep::packet_security::crc};
    if (rep::aead_available())
        paths.push_back(bitrep::packet_security::aead);
    for (const bitrep::packet_security security : paths) {
        const bool aead = security == bitrep::packet_security::aead;
        // Adds the seed of `make`'s packet and returns the harness's input
        // after the path byte: the CRC path's packet; on the AEAD path its
        // body, which must be what the AEAD path's own packet decrypts to
        // (packet_guard: the same bytes after the CRC as between the number
        // and the tag).
        const auto add_seed = [&](make_packet make, rep::packet_kind kind) {
            const bytes packet = fuzz::after_session(bitrep::packet_security::crc, make);
            const std::span<const std::uint8_t> input =
                aead ? std::span<const std::uint8_t>(packet).subspan(rep::crc_bytes) : std::span(packet);
            if (aead) {
                const bytes sealed = fuzz::after_session(security, make);
                bytes body;
                const std::uint32_t protocol =
                    rep::protocol_id_for<fuzz::Input, fuzz::Messages>(fuzz::options(security).protocol_id);
                if (!unsealed(fuzz::key(), sealed, protocol, kind, body) || !std::ranges::equal(body, input))
                    fuzz::fail("the AEAD path's body is not the CRC path's");
            }
            bytes& s = seeds.emplace_back();
            s.push_back(aead ? 1 : 0); // the harness's path byte
            s.insert(s.end(), input.begin(), input.end());
            return bytes(input.begin(), input.end());
        };
        for (const make_packet make : states) {
            session s(security);
            s.run(fuzz::ticks);
            const bytes input = add_seed(make, rep::packet_kind::state);
            const bytes sealed = fuzz::sealed(security, input, rep::packet_kind::state);
            if (const bitrep::status st = s.client.receive(sealed); !st)
                fuzz::fail("a seed state packet is refused", st);
        }
        for (const make_packet make : clients) {
            session s(security);
            s.run(fuzz::ticks);
            const bytes input = add_seed(make, rep::packet_kind::ack);
            const bytes sealed = fuzz::sealed(security, input, rep::packet_kind::ack);
            if (const bitrep::status st = s.server.receive(s.id, sealed); !st)
                fuzz::fail("a seed client packet is refused", st);
        }
    }
}
#endif
