// Monster batch: the record of the public cpp_serializers_benchmark, sent as
// one message holding 50 monsters, encoded and decoded two ways side by side:
//
//   Reflected   bitrep::to_bytes(batch, buffer, written) / bitrep::from_bytes
//   ReflectedDecoder  the same decode through a reused bitrep::decoder
//   HandWritten explicit per-field calls on bitrep's write_stream/read_stream,
//               the same checks and the same all-or-nothing decode
//
// Before timing anything the binary checks that both produce identical bytes
// and decode each other's output back to the original batch; it aborts if not.
#include <benchmark/benchmark.h>

#include <bitrep/bitrep.hpp>

#include <boost/describe/enum.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "side_by_side.hpp"

namespace {

// ---------------------------------------------------------------- the record

enum class Color { red, green, blue };
BOOST_DESCRIBE_ENUM(Color, red, green, blue)

using unit_float = bitrep::quantized<-1.f, 1.f, 0.01f>; // 200 quanta: 8 bits

struct Vec3 {
    unit_float x, y, z;
    friend bool operator==(const Vec3&, const Vec3&) = default;
};

struct Weapon {
    bitrep::bounded_string<10> name;
    std::int16_t damage = 0;
    friend bool operator==(const Weapon&, const Weapon&) = default;
};

struct Monster {
    Vec3 pos;
    std::int16_t mana = 0;
    std::int16_t hp = 0;
    bitrep::bounded_string<10> name;
    bitrep::bounded_vector<std::uint8_t, 10> inventory;
    Color color = Color::red;
    bitrep::bounded_vector<Weapon, 10> weapons;
    Weapon equipped;
    bitrep::bounded_vector<Vec3, 10> path;
    friend bool operator==(const Monster&, const Monster&) = default;
};

/// One message per batch, as cpp_serializers_benchmark serializes its
/// vector of monsters in one call: a 6-bit count, then the monsters.
constexpr std::size_t batch_size = 50;
struct Batch {
    bitrep::bounded_vector<Monster, batch_size> monsters;
    friend bool operator==(const Batch&, const Batch&) = default;
};

// ------------------------------------------------- the hand-written baseline
//
// What a careful engineer writes against the stream primitives without
// reflection: one function per struct serving read and write (the serialize
// idiom), explicit per-field calls, the primitives' own range checks on write
// and refusals on read, and from_bytes' all-or-nothing decode.
namespace hand {

using bitrep::error;

constexpr auto unit_quantizer = bitrep::detail::quantizer::from_resolution(-1.f, 1.f, 0.01f);

template <class Stream>
bool serialize_int16(Stream& stream, std::int16_t& value)
{
    std::uint32_t pattern = static_cast<std::uint16_t>(value);
    if (!stream.serialize_bits(pattern, 16))
        return false;
    if constexpr (Stream::is_reading)
        value = static_cast<std::int16_t>(static_cast<std::uint16_t>(pattern));
    return true;
}

/// Color's enumerators are 0, 1, 2 in declaration order, so the wire's
/// enumerator index is the value itself, in 2 bits.
template <class Stream>
bool serialize_color(Stream& stream, Color& color)
{
    const std::size_t start = stream.position();
    std::uint32_t index = static_cast<std::uint32_t>(color);
    if constexpr (Stream::is_writing) {
        if (index > 2) [[unlikely]]
            return stream.fail(error::bad_enum, start, "enum value is not an enumerator");
    }
    if (!stream.serialize_bits(index, 2))
        return false;
    if constexpr (Stream::is_reading) {
        if (index > 2) [[unlikely]]
            return stream.fail(error::bad_enum, start, "enum index is not an enumerator");
        color = static_cast<Color>(index);
    }
    return true;
}

template <class Stream, std::size_t MaxLength>
bool serialize_text(Stream& stream, bitrep::bounded_string<MaxLength>& text)
{
    return stream.serialize_string(text.str(), MaxLength + 1);
}

/// The count in bits_required(0, MaxSize) bits, then each element.
template <class Stream, class T, std::size_t MaxSize, class SerializeElement>
bool serialize_items(Stream& stream, bitrep::bounded_vector<T, MaxSize>& items, SerializeElement serialize_element)
{
    std::uint64_t size = items.size();
    if (!stream.serialize_ranged_offset(size, MaxSize)) // refuses size > MaxSize both ways
        return false;
    if constexpr (Stream::is_reading)
        items.resize(static_cast<std::size_t>(size));
    for (std::size_t i = 0; i < items.size(); ++i)
        if (!serialize_element(stream, items[i]))
            return false;
    return true;
}

template <class Stream>
bool serialize_vec3(Stream& stream, Vec3& v)
{
    return stream.serialize_quantized(v.x.get(), unit_quantizer) &&
           stream.serialize_quantized(v.y.get(), unit_quantizer) &&
           stream.serialize_quantized(v.z.get(), unit_quantizer);
}

template <class Stream>
bool serialize_weapon(Stream& stream, Weapon& weapon)
{
    return serialize_text(stream, weapon.name) && serialize_int16(stream, weapon.damage);
}

template <class Stream>
bool serialize_inventory_item(Stream& stream, std::uint8_t& item)
{
    std::uint32_t byte = item;
    if (!stream.serialize_bits(byte, 8))
        return false;
    if constexpr (Stream::is_reading)
        item = static_cast<std::uint8_t>(byte);
    return true;
}

template <class Stream>
bool serialize_monster(Stream& stream, Monster& monster)
{
    return serialize_vec3(stream, monster.pos) &&
           serialize_int16(stream, monster.mana) &&
           serialize_int16(stream, monster.hp) &&
           serialize_text(stream, monster.name) &&
           serialize_items(stream, monster.inventory, [](Stream& s, std::uint8_t& item) { return serialize_inventory_item(s, item); }) &&
           serialize_color(stream, monster.color) &&
           serialize_items(stream, monster.weapons, [](Stream& s, Weapon& weapon) { return serialize_weapon(s, weapon); }) &&
           serialize_weapon(stream, monster.equipped) &&
           serialize_items(stream, monster.path, [](Stream& s, Vec3& point) { return serialize_vec3(s, point); });
}

template <class Stream>
bool serialize_batch(Stream& stream, Batch& batch)
{
    return serialize_items(stream, batch.monsters, [](Stream& s, Monster& monster) { return serialize_monster(s, monster); });
}

bitrep::status to_bytes(const Batch& value, std::span<std::uint8_t> buffer, std::size_t& bytes_written)
{
    return side_by_side::hand_to_bytes([](auto& stream, Batch& v) { return serialize_batch(stream, v); }, "Batch", value, buffer,
                                       bytes_written);
}

bitrep::status from_bytes(std::span<const std::uint8_t> bytes, Batch& out)
{
    return side_by_side::hand_from_bytes([](auto& stream, Batch& v) { return serialize_batch(stream, v); }, "Batch", bytes, out);
}

} // namespace hand

// ---------------------------------------------------------------- test data

/// 50 monsters from a fixed seed. Floats are put on their quantum so that a
/// round trip must give back exactly the original batch.
Batch make_batch()
{
    std::mt19937 random(20240521u);
    const auto between = [&random](int low, int high) {
        return low + static_cast<int>(random() % static_cast<std::uint32_t>(high - low + 1));
    };
    const auto unit = [&] {
        const float value = static_cast<float>(between(-100000, 100000)) / 100000.0f;
        return unit_float(unit_float(value).quantized_value());
    };
    const auto vec3 = [&] { return Vec3{unit(), unit(), unit()}; };
    const auto int16 = [&] { return static_cast<std::int16_t>(between(-32768, 32767)); };
    const auto name = [&] {
        static constexpr char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
        std::string text(static_cast<std::size_t>(between(0, 10)), ' ');
        for (char& c : text)
            c = letters[between(0, 51)];
        return bitrep::bounded_string<10>(std::move(text));
    };
    const auto weapon = [&] { return Weapon{name(), int16()}; };

    Batch batch;
    for (std::size_t m = 0; m < batch_size; ++m) {
        Monster monster;
        monster.pos = vec3();
        monster.mana = int16();
        monster.hp = int16();
        monster.name = name();
        for (int i = between(0, 10); i > 0; --i)
            monster.inventory.push_back(static_cast<std::uint8_t>(between(0, 255)));
        monster.color = static_cast<Color>(between(0, 2));
        for (int i = between(0, 10); i > 0; --i)
            monster.weapons.push_back(weapon());
        monster.equipped = weapon();
        for (int i = between(0, 10); i > 0; --i)
            monster.path.push_back(vec3());
        batch.monsters.push_back(std::move(monster));
    }
    return batch;
}

const Batch& sample_batch()
{
    static const Batch batch = make_batch();
    return batch;
}

std::vector<std::uint8_t> encoding_buffer() { return side_by_side::encoding_buffer(bitrep::max_bits<Batch>); }

const std::vector<std::uint8_t>& sample_bytes()
{
    static const std::vector<std::uint8_t> bytes = side_by_side::encoded(sample_batch());
    return bytes;
}

// ------------------------------------------------------ correctness, untimed

using side_by_side::check;

void verify_reflected_equals_hand_written()
{
    const Batch& batch = sample_batch();
    std::vector<std::uint8_t> reflected = encoding_buffer();
    std::vector<std::uint8_t> hand_written = encoding_buffer();
    std::size_t reflected_size = 0;
    std::size_t hand_size = 0;
    check(bitrep::to_bytes(batch, std::span<std::uint8_t>(reflected), reflected_size).ok(), "reflected encode succeeds");
    check(hand::to_bytes(batch, hand_written, hand_size).ok(), "hand-written encode succeeds");
    reflected.resize(reflected_size);
    hand_written.resize(hand_size);
    check(reflected == hand_written, "reflected and hand-written encodings are identical bytes");
    check(reflected_size == (bitrep::bit_size(batch) + 7) / 8, "to_bytes writes bit_size's byte count");

    Batch from_reflected;
    Batch from_hand;
    check(bitrep::from_bytes(hand_written, from_reflected).ok(), "reflected decode of hand-written bytes succeeds");
    check(hand::from_bytes(reflected, from_hand).ok(), "hand-written decode of reflected bytes succeeds");
    check(from_reflected == batch, "reflected decode round-trips the batch exactly");
    check(from_hand == batch, "hand-written decode round-trips the batch exactly");

    // Same refusals, same all-or-nothing: a truncated message fails with the
    // same code at the same bit and leaves both targets untouched.
    const std::span<const std::uint8_t> truncated(reflected.data(), reflected.size() - 3);
    const bitrep::status reflected_refusal = bitrep::from_bytes(truncated, from_reflected);
    const bitrep::status hand_refusal = hand::from_bytes(truncated, from_hand);
    check(!reflected_refusal.ok() && !hand_refusal.ok(), "truncated input is refused");
    check(reflected_refusal.code() == hand_refusal.code() && reflected_refusal.bit_offset() == hand_refusal.bit_offset(),
          "truncated input is refused with the same error at the same bit");
    check(from_reflected == batch && from_hand == batch, "a refused decode leaves the target untouched");

    // Same write-side range checks: an 11-letter name is refused by both.
    Batch too_long = batch;
    too_long.monsters[7].name = "Excalibur!!";
    std::vector<std::uint8_t> scratch = encoding_buffer();
    std::size_t ignored = 0;
    const bitrep::status reflected_write = bitrep::to_bytes(too_long, std::span<std::uint8_t>(scratch), ignored);
    const bitrep::status hand_write = hand::to_bytes(too_long, scratch, ignored);
    check(reflected_write.code() == bitrep::error::value_out_of_range && hand_write.code() == reflected_write.code() &&
              hand_write.bit_offset() == reflected_write.bit_offset(),
          "an over-long name is refused on write by both, at the same bit");

    std::fprintf(stderr,
                 "monster_bench: verified: %zu monsters -> %zu bytes (%.2f bytes/monster), reflected == hand-written "
                 "bytes, both decodes round-trip, same refusals\n",
                 batch.monsters.size(), reflected_size,
                 static_cast<double>(reflected_size) / static_cast<double>(batch.monsters.size()));
}

// ---------------------------------------------------------------- benchmarks

struct hand_written {
    [[gnu::noinline]] static bitrep::status to_bytes(const Batch& batch, std::span<std::uint8_t> buffer, std::size_t& written)
    {
        return hand::to_bytes(batch, buffer, written);
    }
    [[gnu::noinline]] static bitrep::status from_bytes(std::span<const std::uint8_t> bytes, Batch& out) { return hand::from_bytes(bytes, out); }
};

} // namespace

int main(int argc, char** argv)
{
    verify_reflected_equals_hand_written();

    using side_by_side::decode;
    using side_by_side::encode;
    using reflected = side_by_side::reflected<Batch>;
    using reflected_decoder = side_by_side::reflected_decoder<Batch>;
    const auto encode_with = [](auto codec) {
        return [](benchmark::State& state) { encode<decltype(codec)>(state, sample_batch(), batch_size); };
    };
    const auto decode_with = [](auto codec) {
        return [](benchmark::State& state) {
            Batch target;
            decode<decltype(codec)>(state, sample_bytes(), target, batch_size);
            if (target != sample_batch())
                state.SkipWithError("decode did not reproduce the batch");
        };
    };
    benchmark::RegisterBenchmark("Monster/Encode/Reflected", encode_with(reflected{}))->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("Monster/Encode/HandWritten", encode_with(hand_written{}))->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("Monster/Decode/Reflected", decode_with(reflected{}))->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("Monster/Decode/HandWritten", decode_with(hand_written{}))->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("Monster/Decode/ReflectedDecoder", decode_with(reflected_decoder{}))
        ->Unit(benchmark::kMicrosecond);

    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
