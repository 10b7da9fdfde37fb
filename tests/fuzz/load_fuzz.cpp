// libFuzzer target: hostile save files into load_from_bytes. A CRC would stop
// random bytes at the header, so the harness builds a header with the right
// lengths and CRC around the fuzzer's bytes, which then reach the schema
// parser, the schema/program matching and both payload paths. The first byte
// picks the schema: the program's own (the fast path), an older version's
// (the schema path with real conversions, and the migrate of every item an
// older version of Item wrote), or the fuzzer's bytes (in the compact
// encoding of format 3, the names-inline one of format 1, or format 4's,
// which records each struct's version). Some loads clamp numbers outside
// the program's ranges (clamp_out_of_range): what they load must save and
// load again like any value.
#include <bitrep/bitrep.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

namespace fuzz {

enum class Kind { none, sword, shield, potion, key };
BOOST_DESCRIBE_ENUM(Kind, none, sword, shield, potion, key)
enum class KindV2 { key, potion, shield, sword, bow };
BOOST_DESCRIBE_ENUM(KindV2, key, potion, shield, sword, bow)

struct ItemV1 {
    static constexpr std::string_view bitrep_name = "Item"; // so a variant's alternative matches ItemV2
    Kind kind = Kind::none;
    bitrep::ranged<int, 1, 64> count = 1;
};
BOOST_DESCRIBE_STRUCT(ItemV1, (), (kind, count))

struct SaveV1 {
    static constexpr std::uint32_t save_version = 1;
    bitrep::ranged<int, 1, 99> level = 1;
    bitrep::bounded_string<12> hero;
    bitrep::bounded_vector<ItemV1, 6> inventory;
    bitrep::quantized<-100.f, 100.f, 0.01f> x;
    bitrep::quat<9> facing;
    std::optional<std::int16_t> pet;
    std::array<float, 2> stats{};
    double played = 0;
    bool hardcore = false;
    std::variant<ItemV1, Kind, bitrep::ranged<int, 0, 9>> equipped;
    bitrep::ranged_duration<std::chrono::milliseconds, 0, 60'000> cooldown;
    bitrep::bounded_vector<std::pair<int, ItemV1>, 6> stash; // keys may repeat: refused by the map
    bitrep::bounded_vector<std::uint8_t, 4> tags;
};
BOOST_DESCRIBE_STRUCT(SaveV1, (), (level, hero, inventory, x, facing, pet, stats, played, hardcore, equipped, cooldown,
                                    stash, tags))

struct ItemV2 {
    static constexpr std::string_view bitrep_name = "Item";
    static constexpr std::uint32_t save_version = 2;
    KindV2 kind = KindV2::key;
    bitrep::ranged<int, 1, 99> count = 1;
    bool cursed = false;
    // Version 1 cursed every item of 13; a version 0 (only a forged file
    // has one) is refused.
    bool migrate(std::uint32_t from)
    {
        if (from == 1)
            cursed = count == 13;
        return from != 0;
    }
};
BOOST_DESCRIBE_STRUCT(ItemV2, (), (kind, count, cursed))

struct SaveV2 {
    static constexpr std::uint32_t save_version = 2;
    bitrep::bounded_vector<ItemV2, 8> inventory;
    bitrep::ranged<int, 1, 200> level = 1;
    bitrep::bounded_string<16> hero;
    bitrep::quantized<-50.f, 50.f, 0.1f> x;
    bitrep::quat<12> facing;
    std::int32_t pet = 0;
    std::array<double, 3> stats{};
    bitrep::ranged<int, 0, 9999> gold = 10;
    bitrep::net_only<int> ping = 0;
    std::uint32_t migrated = 0;
    // Alternatives reordered, one dropped (the enum), the unnamed one widened.
    std::variant<bitrep::ranged<int, 0, 99>, ItemV2> equipped;
    // Milliseconds in the file, whole seconds here: converted, or refused.
    bitrep::ranged_duration<std::chrono::seconds, 0, 100> cooldown;
    // Vectors of pairs and keys into a map and a set.
    bitrep::bounded_map<bitrep::ranged<int, 0, 15>, ItemV2, 4> stash;
    bitrep::bounded_set<std::uint8_t, 4, std::unordered_set<std::uint8_t>> tags;
    void migrate(std::uint32_t from) { migrated = from; }
};
BOOST_DESCRIBE_STRUCT(SaveV2, (), (inventory, level, hero, x, facing, pet, stats, gold, ping, migrated, equipped,
                                    cooldown, stash, tags))

// A file the header checks accept: the right magic, lengths and CRCs
// (written with the library's own header and CRC helpers), in the current
// format (the schema compact-encoded) or format 1 (the names inline).
std::vector<std::uint8_t> file_around(std::span<const std::uint8_t> schema, std::span<const std::uint8_t> payload,
                                      std::uint32_t save_version,
                                      std::uint16_t format = bitrep::save_header::current_format)
{
    bitrep::save_header header;
    header.format = format;
    header.save_version = save_version;
    header.fingerprint = bitrep::schema_fingerprint(schema);
    header.schema_bytes = static_cast<std::uint32_t>(schema.size());
    header.payload_bits = payload.size() * 8;
    header.stored_payload_bytes = format >= 2 ? payload.size() : 0;
    std::vector<std::uint8_t> file(header.header_bytes());
    file.insert(file.end(), schema.begin(), schema.end());
    file.insert(file.end(), payload.begin(), payload.end());
    bitrep::detail::seal_save(file, header);
    return file;
}

/// A save slot's metadata, for the files with a metadata section.
struct Slot {
    bitrep::bounded_string<12> name;
    bitrep::ranged_duration<std::chrono::seconds, 0, 100000> played;
    bitrep::bounded_vector<std::uint8_t, 64> thumbnail;
};
BOOST_DESCRIBE_STRUCT(Slot, (), (name, played, thumbnail))

/// A file with a metadata section around the fuzzer's bytes: `metadata` as
/// a Slot's payload (its schema the program's), then SaveV2's schema and
/// `payload`; compressed with zstd when asked (and bitrep has it), one byte
/// of the frame then flipped at `damage` (resealed, so that it reaches the
/// decompressor).
std::vector<std::uint8_t> metadata_file_around(std::span<const std::uint8_t> metadata, std::span<const std::uint8_t> payload,
                                         bool compress, std::size_t damage)
{
    // Format 4: SaveV2's items have a version.
    const auto meta_schema = bitrep::schema_of<Slot>().encoding(bitrep::save_header::versioned_format);
    const auto schema = bitrep::schema_of<SaveV2>().encoding(bitrep::save_header::versioned_format);
    bitrep::save_header header;
    header.format = bitrep::save_header::versioned_format;
    header.save_version = 2;
    header.fingerprint = bitrep::schema_fingerprint(schema);
    header.schema_bytes = static_cast<std::uint32_t>(schema.size());
    header.payload_bits = payload.size() * 8;
    header.stored_payload_bytes = payload.size();
    header.metadata_schema_bytes = static_cast<std::uint32_t>(meta_schema.size());
    header.metadata_bits = metadata.size() * 8;
    std::vector<std::uint8_t> file(bitrep::save_header::extended_size);
    file.insert(file.end(), meta_schema.begin(), meta_schema.end());
    file.insert(file.end(), metadata.begin(), metadata.end());
    file.insert(file.end(), schema.begin(), schema.end());
    file.insert(file.end(), payload.begin(), payload.end());
    bitrep::detail::seal_save(file, header);
    if (compress && bitrep::detail::compress_save(file, 1).ok() && bitrep::read_save_header(file, header).ok() &&
        header.compressed()) {
        const auto frame_at = static_cast<std::size_t>(header.payload_offset());
        if (damage != 0 && file.size() > frame_at) {
            file[frame_at + damage % (file.size() - frame_at)] ^= static_cast<std::uint8_t>(damage >> 8 | 1);
            bitrep::detail::seal_save(file, header);
        }
    }
    return file;
}

} // namespace fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size < 2)
        return 0;
    const std::span<const std::uint8_t> input(data + 2, size - 2);
    std::vector<std::uint8_t> file;
    switch (data[0] % 5) {
    case 0:
        file = fuzz::file_around(bitrep::schema_of<fuzz::SaveV2>().versioned, input, 2,
                                 bitrep::save_header::versioned_format);
        break;
    case 1: file = fuzz::file_around(bitrep::schema_of<fuzz::SaveV1>().encoded, input, 1); break;
    case 3:
    case 4: {
        const std::size_t metadata_size = data[1] < input.size() ? data[1] % 48 : 0;
        const std::size_t damage = data[0] / 5 == 0 ? 0 : std::size_t{data[0]} << 3 | data[1];
        file = fuzz::metadata_file_around(input.first(metadata_size), input.subspan(metadata_size), data[0] % 5 == 4, damage);
        // The save menu's read: all or nothing as a load.
        fuzz::Slot slot;
        slot.name = "before";
        const std::vector<std::uint8_t> slot_before = bitrep::save_to_bytes(slot);
        bitrep::load_info info;
        if (!bitrep::read_save_info_from_bytes(file, slot, info) && bitrep::save_to_bytes(slot) != slot_before) {
            std::fprintf(stderr, "a failed read_save_info changed the metadata\n");
            std::abort();
        }
        break;
    }
    default: {
        const std::size_t schema_size = data[1] < input.size() ? data[1] : input.size();
        constexpr std::uint16_t formats[] = {bitrep::save_header::current_format, 1,
                                             bitrep::save_header::versioned_format};
        file = fuzz::file_around(input.first(schema_size), input.subspan(schema_size), 1, formats[data[0] / 5 % 3]);
    }
    }

    fuzz::SaveV2 save{};
    save.hero = "before";
    save.ping = 77;
    const std::vector<std::uint8_t> before = bitrep::save_to_bytes(save);
    bitrep::load_options options;
    options.clamp_out_of_range = data[0] / 10 % 2 == 1;
    bitrep::load_info loaded_info;
    const bitrep::status st = bitrep::load_from_bytes(file, save, loaded_info, options);
    // Clamping changes a load only where it says so: a load that clamped
    // nothing loads the same without it.
    if (st && options.clamp_out_of_range && loaded_info.clamped_fields.empty()) {
        fuzz::SaveV2 plain{};
        plain.ping = 77;
        if (!bitrep::load_from_bytes(file, plain) || bitrep::save_to_bytes(plain) != bitrep::save_to_bytes(save)) {
            std::fprintf(stderr, "a load that clamped nothing loads otherwise without clamping\n");
            std::abort();
        }
    }
    if (!st) {
        if (bitrep::save_to_bytes(save) != before || save.ping != 77) {
            std::fprintf(stderr, "a failed load changed the target: %s\n", st.message().c_str());
            std::abort();
        }
        return 0;
    }
    // Whatever loads is a valid value of the program's type: it saves, the
    // save loads back on the fast path, the fields a save does not carry
    // kept their values, and saving it again gives the same bytes.
    std::vector<std::uint8_t> again;
    const bitrep::status saved = bitrep::save_to_bytes(save, again);
    bitrep::load_info info;
    fuzz::SaveV2 reloaded{};
    if (!saved || !bitrep::load_from_bytes(again, reloaded, info) || info.path != bitrep::load_info::route::fast ||
        save.ping != 77) {
        std::fprintf(stderr, "a loaded value does not save and load again: %s\n", saved.message().c_str());
        std::abort();
    }
    // And saving what loaded gives the same file again: a game that loads
    // and saves without changing anything writes the bytes it read.
    if (bitrep::save_to_bytes(reloaded) != again) {
        std::fprintf(stderr, "a loaded save does not save to the same bytes\n");
        std::abort();
    }
    return 0;
}

#ifdef BITREP_SEED_GENERATOR
namespace fuzz {

using bytes = std::vector<std::uint8_t>;

// Earlier shapes of the save, for the mode whose input holds the file's
// schema (at most 255 bytes of it, so SaveV1's and SaveV2's are too long):
// each holds a few of SaveV2's fields as an older version did, to be
// converted, and `medals`, which SaveV2 no longer has (read and dropped; a
// bit each, they pad the payload to whole bytes).
struct FirstSave {
    bitrep::ranged<int, 1, 50> level = 1;
    std::optional<std::int16_t> pet;
    std::uint16_t gold = 0;
    bitrep::bounded_string<8> hero;
    bitrep::bounded_vector<bool, 7> medals;
};
BOOST_DESCRIBE_STRUCT(FirstSave, (), (level, pet, gold, hero, medals))

struct SecondSave {
    bitrep::bounded_vector<ItemV1, 3> inventory;
    bitrep::ranged_duration<std::chrono::milliseconds, 0, 60'000> cooldown;
    bitrep::bounded_vector<bool, 7> medals;
};
BOOST_DESCRIBE_STRUCT(SecondSave, (), (inventory, cooldown, medals))

struct ThirdSave {
    float x = 0;
    bitrep::quat<9> facing;
    std::array<float, 2> stats{};
    std::variant<ItemV1, bitrep::ranged<int, 0, 9>> equipped;
    bitrep::bounded_vector<bool, 7> medals;
};
BOOST_DESCRIBE_STRUCT(ThirdSave, (), (x, facing, stats, equipped, medals))

[[noreturn]] void seed_failure(const char* what, const bitrep::status& st = {})
{
    std::fprintf(stderr, "load_seeds: %s (%s)\n", what, st.message().c_str());
    std::abort();
}

/// The payload of `value`'s save file: the bytes the harness wraps in a
/// header of its own. That header says the payload is a whole number of
/// bytes long, so a value whose encoding leaves bits of its last byte
/// unused would not load: empty then.
template <class T>
bytes payload_of(const T& value)
{
    bytes file;
    bitrep::save_header header;
    if (const bitrep::status st = bitrep::save_to_bytes(value, file); !st || !bitrep::read_save_header(file, header))
        seed_failure("a seed value does not save", st);
    if (header.payload_bits % 8 != 0)
        return {};
    return bytes(file.begin() + static_cast<std::ptrdiff_t>(header.payload_offset()), file.end());
}

/// The program's save number `i`: containers from empty to their bounds,
/// both variant alternatives, every enumerator. `pad` (0 to 9) picks the
/// stash's size and the equipped alternative, which move the payload's end
/// by 7 and 4 bits modulo 8: one pad or another fills the last byte.
SaveV2 save_v2(int i, int pad)
{
    SaveV2 s;
    for (int k = 0; k < i % 9; ++k)
        s.inventory.push_back(ItemV2{static_cast<KindV2>((i + k) % 5), 1 + (13 * k + i) % 99, k % 2 == 0});
    s.level = 1 + (37 * i) % 200;
    s.hero = std::string(static_cast<std::size_t>(i % 17), static_cast<char>('a' + i % 26));
    s.x = -50.0f + static_cast<float>((17 * i) % 1001) * 0.1f;
    s.facing = i % 2 == 0 ? bitrep::quat<12>{} : bitrep::quat<12>{0.0f, 0.6f, 0.0f, 0.8f};
    s.pet = i % 3 == 0 ? -2'000'000'000 : 1000 * i;
    s.stats = {0.5 * i, i % 2 == 0 ? -1e300 : 0.0, 3.25};
    s.gold = (211 * i) % 10000;
    s.migrated = static_cast<std::uint32_t>(i);
    if (pad < 5)
        s.equipped = bitrep::ranged<int, 0, 99>((7 * i) % 100);
    else
        s.equipped = ItemV2{KindV2::bow, 99, true};
    s.cooldown = std::chrono::seconds((7 * i) % 101);
    for (int k = 0; k < pad % 5; ++k)
        s.stash[3 * k + i % 4] = ItemV2{static_cast<KindV2>(k % 5), 1 + k, k % 2 == 1};
    for (int k = 0; k < (i / 3) % 5; ++k)
        s.tags.insert(static_cast<std::uint8_t>(60 * k + i));
    return s;
}

/// The older version's save number `i`, of values that version 2 holds
/// exactly (no Kind::none, no equipped enum, whole seconds, at most four
/// distinct stash keys in 0..15, distinct tags). `pad` (0 to 7) picks the
/// inventory's size and one stash entry more, each 1 bit modulo 8.
SaveV1 save_v1(int i, int pad)
{
    SaveV1 s;
    for (int k = 0; k < std::min(pad, 6); ++k)
        s.inventory.push_back(ItemV1{static_cast<Kind>(1 + (i + k) % 4), 1 + (11 * k + i) % 64});
    s.level = 1 + (29 * i) % 99;
    s.hero = std::string(static_cast<std::size_t>(i % 13), static_cast<char>('z' - i % 26));
    s.x = -50.0f + static_cast<float>((23 * i) % 1001) * 0.1f;
    s.facing = i % 2 == 1 ? bitrep::quat<9>{} : bitrep::quat<9>{0.6f, 0.0f, 0.0f, 0.8f};
    if (i % 3 != 0)
        s.pet = static_cast<std::int16_t>(-300 * i);
    s.stats = {0.25f * static_cast<float>(i), -8.0f};
    s.played = 3600.5 * i;
    s.hardcore = i % 2 == 0;
    if (i % 2 == 0)
        s.equipped = ItemV1{Kind::sword, 64};
    else
        s.equipped = bitrep::ranged<int, 0, 9>(i % 10);
    s.cooldown = std::chrono::milliseconds(1000 * ((5 * i) % 61));
    for (int k = 0; k < (i / 2) % 4 + (pad == 7 ? 1 : 0); ++k)
        s.stash.push_back({4 * k + i % 4, ItemV1{static_cast<Kind>(1 + k % 4), 2 + k}});
    for (int k = 0; k < (i / 3) % 5; ++k)
        s.tags.push_back(static_cast<std::uint8_t>(50 * k + i));
    return s;
}

/// The earlier shapes' saves number `i`.
void older_saves(int i, FirstSave& first, SecondSave& second, ThirdSave& third)
{
    first.level = 1 + (7 * i) % 50;
    if (i % 2 == 0)
        first.pet = static_cast<std::int16_t>(-1000 * i);
    first.gold = static_cast<std::uint16_t>((313 * i) % 10000);
    first.hero = std::string(static_cast<std::size_t>(i % 9), 'q');
    for (int k = 0; k < i % 4; ++k)
        second.inventory.push_back(ItemV1{static_cast<Kind>(1 + (i + k) % 4), 1 + (5 * k + i) % 64});
    second.cooldown = std::chrono::milliseconds(1000 * ((3 * i) % 61));
    third.x = -50.0f + static_cast<float>((41 * i) % 1001) * 0.1f;
    third.facing = i % 2 == 0 ? bitrep::quat<9>{} : bitrep::quat<9>{0.0f, 0.0f, 0.6f, 0.8f};
    third.stats = {static_cast<float>(i), -0.5f};
    if (i % 2 == 0)
        third.equipped = ItemV1{Kind::potion, 1 + i % 64};
    else
        third.equipped = bitrep::ranged<int, 0, 9>(i % 10);
}

/// A save slot's metadata (format 2): the payload of its own save.
bytes slot_metadata(int i)
{
    Slot slot;
    slot.name = i % 2 == 0 ? "slot one" : "autosave";
    slot.played = std::chrono::seconds(3600 * i + 59);
    for (int k = 0; k < 4 * i; ++k)
        slot.thumbnail.push_back(static_cast<std::uint8_t>(17 * k));
    bytes file;
    bitrep::save_header header;
    if (const bitrep::status st = bitrep::save_to_bytes(slot, file); !st || !bitrep::read_save_header(file, header))
        seed_failure("a slot does not save", st);
    return bytes(file.begin() + static_cast<std::ptrdiff_t>(header.payload_offset()), file.end());
}

/// The payload of `make(pad)` for the first of pad = first, first + 1, ...
/// (up to `most`, then from 0) that fills its last byte.
template <class Make>
bytes whole_bytes(Make make, int first, int most)
{
    for (int k = 0; k <= most; ++k)
        if (bytes payload = payload_of(make((first + k) % (most + 1))); !payload.empty())
            return payload;
    seed_failure("no pad fills a payload's last byte");
}

/// The harness's input: its first byte (the mode), its second, the rest.
bytes harness_input(std::uint8_t mode, std::uint8_t second, std::initializer_list<std::span<const std::uint8_t>> rest)
{
    bytes input{mode, second};
    for (const std::span<const std::uint8_t> part : rest)
        input.insert(input.end(), part.begin(), part.end());
    return input;
}

/// `file`, as the harness builds it from a seed, loads by `path`.
void check_loads(std::span<const std::uint8_t> file, bitrep::load_info::route path, const char* what)
{
    SaveV2 loaded{};
    bitrep::load_info info;
    if (const bitrep::status st = bitrep::load_from_bytes(file, loaded, info); !st || info.path != path)
        seed_failure(what, st);
}

} // namespace fuzz

/// Seeds for each mode of the harness (its first byte): the payloads of
/// real saves of the program's type (0) and of the older version (1), a
/// small earlier shape's schema and payload (2, 7 for format 1's encoding
/// of it and 12 for format 4's), and a save slot's metadata, plain (3) and
/// compressed (4). Each loads.
void bitrep_fuzz_seeds(std::vector<std::vector<std::uint8_t>>& seeds)
{
    using fuzz::bytes;
    using route = bitrep::load_info::route;
    const bytes& schema_v1 = bitrep::schema_of<fuzz::SaveV1>().encoded;
    const bytes& schema_v2 = bitrep::schema_of<fuzz::SaveV2>().versioned;
    const auto schema_mode = [&](auto value) {
        bytes payload = fuzz::payload_of(value);
        while (payload.empty() && value.medals.size() < 7) {
            value.medals.push_back(value.medals.size() % 2 == 0);
            payload = fuzz::payload_of(value);
        }
        // The harness's mode for each format: 2, 7 and 12 (data[0] / 5 % 3).
        for (const std::uint8_t mode : {2, 7, 12}) {
            const std::uint16_t format = mode == 2 ? bitrep::save_header::current_format
                                         : mode == 7 ? 1
                                                     : bitrep::save_header::versioned_format;
            bitrep::save_header header;
            header.format = format;
            bytes schema;
            if (!bitrep::encode_schema(bitrep::schema_of<decltype(value)>().tree, schema, header.schema_encoding()) ||
                schema.size() > 255)
                fuzz::seed_failure("an earlier shape's schema is longer than the harness takes");
            fuzz::check_loads(fuzz::file_around(schema, payload, 1, format), route::schema,
                              "an earlier shape's save does not load");
            seeds.push_back(fuzz::harness_input(mode, static_cast<std::uint8_t>(schema.size()), {schema, payload}));
        }
    };
    for (int i = 0; i < 16; ++i) {
        const bytes v2 = fuzz::whole_bytes([&](int pad) { return fuzz::save_v2(i, pad); }, i, 9);
        fuzz::check_loads(fuzz::file_around(schema_v2, v2, 2, bitrep::save_header::versioned_format), route::fast,
                          "a save does not load");
        seeds.push_back(fuzz::harness_input(0, 0, {v2}));
        const bytes v1 = fuzz::whole_bytes([&](int pad) { return fuzz::save_v1(i, pad); }, i, 7);
        fuzz::check_loads(fuzz::file_around(schema_v1, v1, 1), route::schema, "an older save does not load");
        seeds.push_back(fuzz::harness_input(1, 0, {v1}));
    }
    for (int i = 0; i < 6; ++i) {
        fuzz::FirstSave first;
        fuzz::SecondSave second;
        fuzz::ThirdSave third;
        fuzz::older_saves(i, first, second, third);
        schema_mode(first);
        schema_mode(second);
        schema_mode(third);
    }
    // The same saves after a slot's metadata; compressed, with a hero and
    // stats zstd shrinks (else the file stays uncompressed).
    for (int i = 0; i < 6; ++i) {
        const bytes payload = fuzz::whole_bytes(
            [&](int pad) {
                fuzz::SaveV2 save = fuzz::save_v2(i, pad);
                save.hero = "aaaaaaaaaaaaaaaa";
                save.stats = {};
                return save;
            },
            2 * i, 9);
        const bytes metadata = fuzz::slot_metadata(i);
        for (const bool compress : {false, true}) {
            const bytes file = fuzz::metadata_file_around(metadata, payload, compress, 0);
            bitrep::save_header header;
            if (!bitrep::read_save_header(file, header) ||
                header.compressed() != (compress && bitrep::detail::zstd_available()))
                fuzz::seed_failure("a save with metadata is not compressed as asked");
            fuzz::check_loads(file, route::fast, "a save with metadata does not load");
            seeds.push_back(fuzz::harness_input(compress ? 4 : 3, static_cast<std::uint8_t>(metadata.size()),
                                                {metadata, payload}));
        }
    }
}
#endif
