// libFuzzer target: hostile save files into load_from_bytes. A CRC would stop
// random bytes at the header, so the harness builds a header with the right
// lengths and CRC around the fuzzer's bytes, which then reach the schema
// parser, the schema/program matching and both payload paths. The first byte
// picks the schema: the program's own (the fast path), an older version's
// (the schema path with real conversions), or the fuzzer's bytes.
#include <bitrep/bitrep.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
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
    KindV2 kind = KindV2::key;
    bitrep::ranged<int, 1, 99> count = 1;
    bool cursed = false;
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

// A file the header checks accept: the right magic, lengths and CRC
// (written with the library's own little-endian and CRC helpers).
std::vector<std::uint8_t> file_around(std::span<const std::uint8_t> schema, std::span<const std::uint8_t> payload,
                                      std::uint32_t save_version)
{
    using bitrep::detail::store_le;
    std::vector<std::uint8_t> file(bitrep::save_header::size);
    std::copy(std::begin(bitrep::detail::save_magic), std::end(bitrep::detail::save_magic), file.begin());
    store_le<std::uint16_t>(file.data() + 4, 1); // format 1: no metadata, not compressed
    store_le<std::uint32_t>(file.data() + 8, save_version);
    store_le<std::uint64_t>(file.data() + 12, bitrep::schema_fingerprint(schema));
    store_le<std::uint32_t>(file.data() + 20, static_cast<std::uint32_t>(schema.size()));
    store_le<std::uint64_t>(file.data() + 24, payload.size() * 8);
    file.insert(file.end(), schema.begin(), schema.end());
    file.insert(file.end(), payload.begin(), payload.end());
    store_le<std::uint32_t>(file.data() + bitrep::detail::crc_offset, bitrep::detail::save_crc(file));
    return file;
}

/// A save slot's metadata, for the format-2 files.
struct Slot {
    bitrep::bounded_string<12> name;
    bitrep::ranged_duration<std::chrono::seconds, 0, 100000> played;
    bitrep::bounded_vector<std::uint8_t, 64> thumbnail;
};
BOOST_DESCRIBE_STRUCT(Slot, (), (name, played, thumbnail))

/// Format 2 around the fuzzer's bytes: `metadata` as a Slot's payload (its
/// schema the program's), then SaveV2's schema and `payload`; compressed
/// with zstd when asked (and bitrep has it), one byte of the frame then
/// flipped at `damage` (resealed, so that it reaches the decompressor).
std::vector<std::uint8_t> format2_around(std::span<const std::uint8_t> metadata, std::span<const std::uint8_t> payload,
                                         bool compress, std::size_t damage)
{
    const auto& meta_schema = bitrep::schema_of<Slot>().encoded;
    const auto& schema = bitrep::schema_of<SaveV2>().encoded;
    bitrep::save_header header;
    header.format = 2;
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
    case 0: file = fuzz::file_around(bitrep::schema_of<fuzz::SaveV2>().encoded, input, 2); break;
    case 1: file = fuzz::file_around(bitrep::schema_of<fuzz::SaveV1>().encoded, input, 1); break;
    case 3:
    case 4: {
        const std::size_t metadata_size = data[1] < input.size() ? data[1] % 48 : 0;
        const std::size_t damage = data[0] / 5 == 0 ? 0 : std::size_t{data[0]} << 3 | data[1];
        file = fuzz::format2_around(input.first(metadata_size), input.subspan(metadata_size), data[0] % 5 == 4, damage);
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
        file = fuzz::file_around(input.first(schema_size), input.subspan(schema_size), 1);
    }
    }

    fuzz::SaveV2 save{};
    save.hero = "before";
    save.ping = 77;
    const std::vector<std::uint8_t> before = bitrep::save_to_bytes(save);
    const bitrep::status st = bitrep::load_from_bytes(file, save);
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
