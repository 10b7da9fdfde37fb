// Allocation bounds: for random and crafted inputs of every size,
// each reader allocates no more than a bound computed from the declared
// types (heap_bound.hpp) and, where a reader keeps structures that grow with
// what it is sent (a save file's schema), a fixed number of bytes per input
// byte. Counted with replaced global allocation functions
// (allocation_counter.hpp): the bound is on the most bytes held at once
// during the read (`peak`), and on the bytes asked for in all (`bytes`).
// Each test also proves the count is not vacuous: its largest honest input
// allocates a good share of the bound.
#include <bitrep/bitrep.hpp>
#include <bitrep/replication.hpp>

#include <gtest/gtest.h>

#include "allocation_counter.hpp" // replaces operator new for this test binary
#include "heap_bound.hpp"
#include "hostile_saves.hpp"
#include "replicate_packet.hpp"
#include "replication_world.hpp"
#include "resealed.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

namespace bound {

enum class Kind { none, sword, shield, potion, key };
BOOST_DESCRIBE_ENUM(Kind, none, sword, shield, potion, key)

struct Item {
    Kind kind = Kind::none;
    bitrep::ranged<int, 1, 64> count = 1;
    bitrep::bounded_string<24> label;
};
BOOST_DESCRIBE_STRUCT(Item, (), (kind, count, label))

struct Hero {
    bitrep::bounded_string<32> name;
    bitrep::bounded_vector<Item, 40> items;
    bitrep::bounded_map<std::uint8_t, Item, 16, std::unordered_map<std::uint8_t, Item>> stash;
    bitrep::bounded_set<bitrep::ranged<int, 0, 1000>, 12> seen;
    std::optional<bitrep::bounded_vector<std::uint8_t, 200>> avatar;
    std::variant<bitrep::ranged<int, 0, 3>, bitrep::bounded_string<40>> title;
    bitrep::ranged<int, 0, 100> health = 100;
};
BOOST_DESCRIBE_STRUCT(Hero, (), (name, items, stash, seen, avatar, title, health))

// Not replicated_worlds.hpp's World: every field here holds heap memory or
// a long count, which is what the allocation bound is about.
struct World {
    static constexpr std::uint32_t save_version = 2;
    bitrep::bounded_vector<Hero, 6> heroes;
    // No bits per element: 100,000 elements from a 17-bit count, all within
    // what the type declares.
    bitrep::bounded_vector<bitrep::ranged<int, 7, 7>, 100'000> markers;
    bitrep::entity_array<Cube, 8> cubes;
    std::int32_t tick = 0;
};
BOOST_DESCRIBE_STRUCT(World, (), (heroes, markers, cubes, tick))

using bytes = std::vector<std::uint8_t>;

/// Every container of `w` at its declared bound, every string at its
/// longest: the largest honest value.
World largest()
{
    World w;
    const auto item = [](int i) {
        Item it;
        it.kind = static_cast<Kind>(i % 5);
        it.count = 1 + i % 64;
        it.label = std::string(24, static_cast<char>('a' + i % 26));
        return it;
    };
    for (int h = 0; h < 6; ++h) {
        Hero hero;
        hero.name = std::string(32, 'h');
        for (int i = 0; i < 40; ++i)
            hero.items.push_back(item(i));
        for (int k = 0; k < 16; ++k)
            hero.stash[static_cast<std::uint8_t>(k * 7 + h)] = item(k);
        for (int s = 0; s < 12; ++s)
            hero.seen.insert(bitrep::ranged<int, 0, 1000>(s * 83));
        hero.avatar.emplace();
        hero.avatar->vector().assign(200, static_cast<std::uint8_t>(h));
        hero.title = bitrep::bounded_string<40>(std::string(40, 't'));
        w.heroes.push_back(std::move(hero));
    }
    w.markers.vector().assign(100'000, bitrep::ranged<int, 7, 7>(7));
    for (std::uint32_t id = 0; id < 8; ++id)
        w.cubes.emplace(id).x = static_cast<float>(id);
    w.tick = 12345;
    return w;
}

/// Hostile inputs around the honest ones: random bytes of many sizes, runs
/// of 0x00 and 0xFF (every count at its largest), and each honest input
/// truncated, with bytes flipped, and with bytes appended.
std::vector<bytes> hostile(const std::vector<bytes>& honest)
{
    std::vector<bytes> inputs;
    std::mt19937 random(16);
    for (std::size_t size : {0, 1, 2, 3, 5, 8, 13, 32, 100, 256, 1000, 4096, 20000}) {
        for (int i = 0; i < 6; ++i) {
            bytes b(size);
            for (auto& x : b)
                x = static_cast<std::uint8_t>(random());
            inputs.push_back(std::move(b));
        }
        inputs.emplace_back(size, std::uint8_t{0x00});
        inputs.emplace_back(size, std::uint8_t{0xFF});
    }
    for (const bytes& h : honest) {
        inputs.push_back(h);
        for (std::size_t cut = 0; cut < h.size(); cut += 1 + h.size() / 24)
            inputs.emplace_back(h.begin(), h.begin() + static_cast<std::ptrdiff_t>(cut));
        for (std::size_t at = 0; at < h.size(); at += 1 + h.size() / 24) {
            bytes flipped = h;
            flipped[at] ^= static_cast<std::uint8_t>(1u << (at % 8));
            inputs.push_back(flipped);
            flipped[at] = 0xFF;
            inputs.push_back(std::move(flipped));
        }
        bytes longer = h;
        longer.insert(longer.end(), 64, std::uint8_t{0xFF});
        inputs.push_back(std::move(longer));
    }
    return inputs;
}

/// The worst a reader did over `inputs`, against its bound for each.
struct worst {
    std::size_t peak = 0, bytes = 0, bound = 0;
};

worst check_reader(const char* reader, const std::vector<bytes>& inputs,
                   const std::function<std::size_t(std::size_t)>& bound_for,
                   const std::function<void(std::span<const std::uint8_t>)>& read,
                   const std::function<void()>& before_each = [] {})
{
    worst w;
    for (const bytes& input : inputs) {
        before_each(); // uncounted: the reader's state before the input
        const std::size_t bound = bound_for(input.size());
        const allocation_counter::usage used = allocation_counter::usage_during([&] { read(input); });
        EXPECT_LE(used.peak, bound) << reader << ": " << input.size() << "-byte input";
        EXPECT_LE(used.bytes, 2 * bound) << reader << ": " << input.size() << "-byte input";
        if (used.peak > w.peak)
            w = {used.peak, used.bytes, bound};
    }
    std::printf("%-34s %5zu inputs  worst peak %9zu bytes (asked %9zu) of a bound of %9zu\n", reader,
                inputs.size(), w.peak, w.bytes, w.bound);
    return w;
}

} // namespace bound

using namespace bound;

TEST(AllocationBound, FromBytes)
{
    const World big = largest();
    const bytes encoded = bitrep::to_bytes(big);
    World small;
    small.tick = 3;
    const std::vector<bytes> inputs = hostile({encoded, bitrep::to_bytes(small)});
    std::printf("object_bound<World> = %zu (sizeof %zu)\n", object_bound<World>, sizeof(World));
    const auto bound = [](std::size_t) { return object_bound<World>; };
    const worst w = check_reader("from_bytes", inputs, bound, [](std::span<const std::uint8_t> in) {
        World target;
        static_cast<void>(bitrep::from_bytes(in, target));
    });
    EXPECT_GE(w.peak, heap_bound<World> / 4) << "the largest value must allocate: the count sees the reads";
}

// ---------------------------------------------------------------- save files

namespace bound {

/// An older version of World: fewer fields per hero, a field since dropped.
struct HeroV1 {
    static constexpr std::string_view bitrep_name = "Hero";
    bitrep::bounded_string<32> name;
    bitrep::bounded_vector<Item, 40> items;
    bitrep::ranged<int, 0, 100> health = 100;
};
BOOST_DESCRIBE_STRUCT(HeroV1, (), (name, items, health))

struct WorldV1 {
    static constexpr std::string_view bitrep_name = "World";
    static constexpr std::uint32_t save_version = 1;
    bitrep::bounded_vector<HeroV1, 6> heroes;
    bitrep::bounded_vector<bitrep::ranged<int, 7, 7>, 100'000> markers;
    bitrep::bounded_string<64> motto;
    std::int32_t tick = 0;
};
BOOST_DESCRIBE_STRUCT(WorldV1, (), (heroes, markers, motto, tick))

using hostile_saves::frame_declaring;
using hostile_saves::save_around;

/// Save files of every route around hostile payloads: the program's schema
/// (the fast path), the older version's (the schema path), schema bytes
/// taken from the input itself, and compressed payloads, honest or lying
/// about their size.
std::vector<bytes> hostile_save_files(const std::vector<bytes>& payloads)
{
    const auto& mine = bitrep::schema_of<World>().encoded;
    const auto& older = bitrep::schema_of<WorldV1>().encoded;
    std::vector<bytes> files;
    for (const bytes& p : payloads) {
        files.push_back(save_around(mine, p, p.size() * 8, 2, false));
        files.push_back(save_around(older, p, p.size() * 8, 1, false));
        const std::size_t cut = std::min<std::size_t>(p.size(), p.empty() ? 0 : p[0]);
        const std::span<const std::uint8_t> all(p);
        files.push_back(save_around(all.first(cut), all.subspan(cut), (p.size() - cut) * 8, 1, false));
    }
    for (std::uint64_t claimed : {std::uint64_t{1} << 12, std::uint64_t{1} << 20, std::uint64_t{1} << 28}) {
        const bytes frame = frame_declaring(claimed);
        files.push_back(save_around(mine, frame, claimed * 8, 2, true));
        files.push_back(save_around(older, frame, claimed * 8, 1, true));
    }
    return files;
}

} // namespace bound

TEST(AllocationBound, Load)
{
    const World big = largest();
    bytes honest = bitrep::save_to_bytes(big);
    WorldV1 old;
    old.heroes.resize(6);
    for (HeroV1& h : old.heroes) {
        h.name = std::string(32, 'o');
        h.items.vector().resize(40);
    }
    old.motto = std::string(64, 'm');
    old.markers.vector().assign(100'000, bitrep::ranged<int, 7, 7>(7));
    const bytes old_file = bitrep::save_to_bytes(old);
    {
        World check;
        ASSERT_TRUE(bitrep::load_from_bytes(old_file, check)) << "the older save loads by the schema path";
    }
    bytes compressed;
    bitrep::save_options zstd;
    zstd.compression = bitrep::save_compression::zstd;
    ASSERT_TRUE(bitrep::save_to_bytes(big, compressed, zstd));

    std::vector<bytes> inputs = hostile({honest, old_file, compressed});
    const std::vector<bytes> payloads = hostile({bitrep::to_bytes(big)});
    for (bytes& file : hostile_save_files(payloads))
        inputs.push_back(std::move(file));
    const auto bound = [](std::size_t n) { return object_bound<World> + (bitrep::max_bits<World> + 7) / 8 + 512 * n; };
    const worst w = check_reader("load_from_bytes", inputs, bound, [](std::span<const std::uint8_t> in) {
        World target;
        static_cast<void>(bitrep::load_from_bytes(in, target));
    });
    EXPECT_GE(w.peak, heap_bound<World> / 4);
}

TEST(AllocationBound, ACompressedPayloadClaimingMoreThanItsSchemaAllowsIsRefusedBeforeItsBufferIsAllocated)
{
    // Found by this test: a 16-byte zstd frame that declares 256 MiB had the
    // loader allocate 256 MiB before finding the frame empty.
    const bytes frame = frame_declaring(std::uint64_t{1} << 28);
    for (const bytes& file : {save_around(bitrep::schema_of<World>().encoded, frame, std::uint64_t{8} << 28, 2, true),
                              save_around(bitrep::schema_of<WorldV1>().encoded, frame, std::uint64_t{8} << 28, 1, true)}) {
        World target;
        bitrep::status st;
        const allocation_counter::usage used =
            allocation_counter::usage_during([&] { st = bitrep::load_from_bytes(file, target); });
        EXPECT_EQ(st.code(), bitrep::error::corrupt) << st.message();
        EXPECT_LT(used.peak, std::size_t{1} << 20);
    }
    // What the schema allows still loads: the largest World, compressed.
    bytes compressed;
    bitrep::save_options zstd;
    zstd.compression = bitrep::save_compression::zstd;
    ASSERT_TRUE(bitrep::save_to_bytes(largest(), compressed, zstd));
    World target;
    EXPECT_TRUE(bitrep::load_from_bytes(compressed, target));
    EXPECT_EQ(target.heroes.size(), 6u);
}

// ---------------------------------------------------------------- save metadata

namespace bound {
struct Slot {
    bitrep::bounded_string<40> name;
    bitrep::bounded_vector<std::uint8_t, 4096> thumbnail;
    bitrep::ranged<int, 0, 999> level;
};
BOOST_DESCRIBE_STRUCT(Slot, (), (name, thumbnail, level))
} // namespace bound

TEST(AllocationBound, ReadSaveInfo)
{
    Slot slot;
    slot.name = std::string(40, 's');
    slot.thumbnail.vector().assign(4096, 0x5A);
    World small;
    bytes honest;
    ASSERT_TRUE(bitrep::save_to_bytes(small, slot, honest));
    const std::vector<bytes> inputs = hostile({honest});
    const auto bound = [](std::size_t n) { return object_bound<Slot> + 512 * n; };
    const worst w = check_reader("read_save_info_from_bytes", inputs, bound, [](std::span<const std::uint8_t> in) {
        Slot target;
        bitrep::load_info info;
        static_cast<void>(bitrep::read_save_info_from_bytes(in, target, info));
    });
    EXPECT_GE(w.peak, 4096u);
}

// ---------------------------------------------------------------- coded deltas

TEST(AllocationBound, CodedDelta)
{
    const World base = largest();
    World older;
    older.tick = 1;
    World next = base;
    next.heroes[2].items.vector().pop_back();
    next.heroes.vector().pop_back();
    next.tick = 99;
    bitrep::delta_coder<World> coder;
    bytes packet(1 << 16);
    std::size_t size = 0;
    ASSERT_TRUE(coder.write(packet, size, older, base, next));
    packet.resize(size);
    bytes whole(1 << 16);
    ASSERT_TRUE(coder.write(whole, size, older, World{}, base));
    whole.resize(size);
    const std::vector<bytes> inputs = hostile({packet, whole});
    const auto bound = [](std::size_t) { return object_bound<World>; };
    const worst w = check_reader("delta_coder::read", inputs, bound, [&](std::span<const std::uint8_t> in) {
        World out;
        static_cast<void>(coder.read(in, older, base, out));
    });
    EXPECT_GT(w.peak, 0u);
}

// ---------------------------------------------------------------- replication

namespace bound {

struct Input {
    bitrep::ranged<int, -1, 1> move_x, move_y;
    bitrep::bounded_vector<bitrep::ranged<int, 0, 9>, 8> keys;
};
BOOST_DESCRIBE_STRUCT(Input, (), (move_x, move_y, keys))

struct Chat {
    bitrep::bounded_string<60> text;
};
BOOST_DESCRIBE_STRUCT(Chat, (), (text))

struct Trade {
    bitrep::bounded_vector<Item, 12> offer;
};
BOOST_DESCRIBE_STRUCT(Trade, (), (offer))

using Messages = bitrep::message_set<Chat, Trade>;

/// The replicated world: the heroes are entities (sent each on its own,
/// when they change), so that a packet has room for messages besides.
struct Arena {
    bitrep::entity_array<Hero, 6> heroes;
    // Fewer than World's: every packet has room for this field's delta at
    // its largest (an element's change bit each), and a message besides.
    bitrep::bounded_vector<bitrep::ranged<int, 7, 7>, 2'000> markers;
    bitrep::entity_array<Cube, 8> cubes;
    std::int32_t tick = 0;
};
BOOST_DESCRIBE_STRUCT(Arena, (), (heroes, markers, cubes, tick))

Arena largest_arena()
{
    const World w = largest();
    Arena a;
    for (std::uint32_t i = 0; i < 6; ++i)
        a.heroes.emplace(i) = w.heroes[i];
    a.markers.vector().assign(2'000, bitrep::ranged<int, 7, 7>(7));
    a.cubes = w.cubes;
    a.tick = w.tick;
    return a;
}

bitrep::replication_options replication_options(bitrep::packet_security security)
{
    bitrep::replication_options o;
    o.security = security;
    o.max_packet_bytes = 4096; // a hero at its largest is about 1,700 bytes
    o.window = 8;
    o.message_queue = 8;
    o.input_window = 4;
    o.max_state_bytes = 64 * 1024;
    return o;
}

/// The key both ends of the AEAD path hold.
bitrep::packet_key test_key()
{
    bitrep::packet_key key;
    for (std::size_t i = 0; i < key.bytes.size(); ++i)
        key.bytes[i] = static_cast<std::uint8_t>(7 * i + 1);
    return key;
}

/// An honest packet's body: after the CRC, or opened with the key.
bytes body_of(bitrep::packet_security security, std::span<const std::uint8_t> packet, std::uint32_t protocol,
              bitrep::replication::packet_kind kind)
{
    namespace rep = bitrep::replication;
    if (security == bitrep::packet_security::crc)
        return bytes(packet.begin() + rep::crc_bytes, packet.end());
    bytes body;
    EXPECT_TRUE(unsealed(test_key(), packet, protocol, kind, body));
    return body;
}

/// Hostile packets of a kind around honest ones: raw (on the AEAD path they
/// do not authenticate), and their bodies' hostile variants re-sealed.
std::vector<bytes> hostile_packets(bitrep::packet_security security, const std::vector<bytes>& honest,
                                   bitrep::replication::packet_kind kind)
{
    const std::uint32_t protocol =
        bitrep::replication::protocol_id_for<Input, Messages>(replication_options(security).protocol_id);
    std::vector<bytes> bodies;
    for (const bytes& packet : honest)
        bodies.push_back(body_of(security, packet, protocol, kind));
    std::vector<bytes> inputs = hostile(honest);
    std::uint64_t number = 1000; // past every honest one, and rising: each is fresh
    std::uint64_t connection = 0; // the honest connection's, which the receiver expects
    if (security == bitrep::packet_security::aead) {
        std::uint64_t honest_number = 0;
        EXPECT_TRUE(bitrep::replication::aead_prefix(honest.front(), connection, honest_number));
    }
    for (const bytes& body : hostile(bodies)) {
        bytes packet;
        EXPECT_TRUE(resealed(security, test_key(), body, protocol, kind, connection, number++, packet));
        inputs.push_back(std::move(packet));
    }
    return inputs;
}

/// Both ends of the world under attack, on the path (crc or aead) the
/// parameter names.
class AllocationBoundReplication : public ::testing::TestWithParam<bitrep::packet_security> {
protected:
    using client_type = bitrep::replication_client<Arena, Input, Messages>;
    using server_type = bitrep::replication_server<Arena, Input, Messages>;

    /// The reader's name in a failure: "replication_client::receive (crc)".
    static std::string reader_name(const char* reader)
    {
        return std::string(reader) + (GetParam() == bitrep::packet_security::crc ? " (crc)" : " (aead)");
    }

    const bitrep::packet_security security = GetParam();
    server_type server{replication_options(security)};
    const bitrep::client_id id = server.add_client(test_key());
    /// The honest client, which the server's honest packets reach.
    client_type client{replication_options(security), test_key()};
    /// The honest packets of one end, around which the hostile ones are made.
    std::vector<bytes> packets;
    Arena world;
};

} // namespace bound

TEST_P(AllocationBoundReplication, Client)
{
    const Arena big = largest_arena();
    for (std::uint32_t t = 0; t < 12; ++t) {
        if (t % 4 == 1)
            world = big; // the largest state, sent over several packets
        world.tick = static_cast<std::int32_t>(t);
        Chat chat;
        chat.text = std::string(60, 'c');
        const bitrep::status sent = server.send(id, chat, bitrep::channel::reliable);
        ASSERT_TRUE(sent) << sent.message() << " at " << t;
        const auto packet = test_replication::update_and_replicate(server, id, world);
        packets.emplace_back(packet.begin(), packet.end());
        ASSERT_TRUE(client.receive(packet));
        ASSERT_TRUE(server.receive(id, client.packet()));
    }
    std::vector<bytes> inputs = hostile_packets(security, packets, bitrep::replication::packet_kind::state);
    // Slices of a state packet as large as the client allows, honest
    // headers around hostile bytes: the client takes max_state_bytes for it.
    const std::size_t most = replication_options(security).max_state_bytes;
    const std::uint32_t protocol =
        bitrep::replication::protocol_id_for<Input, Messages>(replication_options(security).protocol_id);
    const auto cut = bitrep::replication::slicing::for_room(most, 4000);
    for (std::uint32_t index : {0u, cut.count - 1}) {
        // On the CRC path resealed() writes the CRC over the first 4 bytes.
        const std::size_t crc = security == bitrep::packet_security::crc ? bitrep::replication::crc_bytes : 0;
        bytes body(crc + bitrep::replication::slice_header::bytes + cut.size(index), std::uint8_t{0xFF});
        bitrep::replication::slice_header header{static_cast<std::uint16_t>(1000 + index), cut, index};
        bitrep::replication::message_write_stream stream(
            std::span<std::uint8_t>(body).subspan(crc, bitrep::replication::slice_header::bytes));
        ASSERT_TRUE(header.serialize(stream));
        stream.flush();
        bytes packet;
        ASSERT_TRUE(resealed(security, test_key(), body, protocol, bitrep::replication::packet_kind::slice, 0,
                             5000 + index, packet));
        inputs.push_back(std::move(packet));
    }
    // The client keeps its state and, for each packet in the window, the
    // state it brought; a packet decodes into one more, and its messages
    // into at most message_queue of the largest message. On the AEAD path
    // the guard holds the opened body, at most the packet's size. A slice
    // takes the memory of its whole packet, at most max_state_bytes.
    const auto bound = [most](std::size_t n) {
        return object_bound<Arena> + 8 * std::max(object_bound<Chat>, object_bound<Trade>) + 3 * n + most;
    };
    // A client cannot be copied (two copies would seal under one nonce):
    // one that applied the honest packets, rebuilt when an input was
    // applied (a refused one changes nothing, the replay window aside).
    std::optional<client_type> reader;
    std::uint64_t applied_when_built = 0;
    const auto rebuild = [&] {
        reader.reset();
        reader.emplace(replication_options(security), test_key());
        for (const bytes& packet : packets)
            ASSERT_TRUE(reader->receive(packet));
        applied_when_built = reader->statistics().applied;
    };
    const worst w = check_reader(
        reader_name("replication_client::receive").c_str(), inputs, bound,
        [&](std::span<const std::uint8_t> in) { static_cast<void>(reader->receive(in)); },
        [&] {
            if (!reader || reader->statistics().applied != applied_when_built)
                rebuild();
        });
    EXPECT_GE(w.peak, most) << "a slice takes its packet's memory: the count sees it";
}

TEST_P(AllocationBoundReplication, Server)
{
    for (std::uint32_t t = 0; t < 10; ++t) {
        world.tick = static_cast<std::int32_t>(t);
        ASSERT_TRUE(client.receive(test_replication::update_and_replicate(server, id, world)));
        Input input;
        input.keys.vector().assign(8, bitrep::ranged<int, 0, 9>(t % 10));
        ASSERT_TRUE(client.send_input(t, input));
        Trade trade;
        trade.offer.vector().resize(12);
        for (Item& item : trade.offer)
            item.label = std::string(24, 'x');
        if (t % 2 == 0) {
            const bitrep::status sent = client.send(trade, bitrep::channel::reliable);
            ASSERT_TRUE(sent) << sent.message() << " at " << t;
        }
        const auto packet = client.packet();
        packets.emplace_back(packet.begin(), packet.end());
        ASSERT_TRUE(server.receive(id, packet));
    }
    // One packet the server has not read: its chat line, longer than any
    // string read before, must allocate (the count sees the reads).
    Chat chat;
    chat.text = std::string(60, 'c');
    ASSERT_TRUE(client.send(chat, bitrep::channel::reliable));
    const auto unread = client.packet();
    packets.emplace_back(unread.begin(), unread.end());
    const std::vector<bytes> inputs = hostile_packets(security, packets, bitrep::replication::packet_kind::ack);
    // A client packet brings at most input_window inputs and, per channel,
    // message_queue messages of the largest kind; on the AEAD path the
    // guard holds the opened body, at most the packet's size.
    const auto bound = [](std::size_t n) {
        return 4 * object_bound<Input> + 2 * 8 * std::max(object_bound<Chat>, object_bound<Trade>) + 3 * n;
    };
    const worst w = check_reader(reader_name("replication_server::receive").c_str(), inputs, bound,
                                 [&](std::span<const std::uint8_t> in) { static_cast<void>(server.receive(id, in)); });
    EXPECT_GT(w.peak, 0u);
}

INSTANTIATE_TEST_SUITE_P(Paths, AllocationBoundReplication,
                         ::testing::Values(bitrep::packet_security::crc, bitrep::packet_security::aead),
                         [](const ::testing::TestParamInfo<bitrep::packet_security>& info) {
                             return std::string(info.param == bitrep::packet_security::crc ? "Crc" : "Aead");
                         });
