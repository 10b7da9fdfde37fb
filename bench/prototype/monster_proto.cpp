// Monster batch: the record of the public cpp_serializers_benchmark, sent as
// one message holding 50 monsters, encoded and decoded two ways side by side:
//
//   Reflected   bitrep::to_bytes(batch, buffer, written) / bitrep::from_bytes
//   ReflectedDecoder  the same decode through a reused bitrep::decoder
//   HandWritten separate encode and decode functions written directly against
//               bitrep::bit_writer / bit_reader, the same checks and the same
//               all-or-nothing decode
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
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "../side_by_side.hpp"
#include "threaded.hpp"

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
// What a careful engineer writes by hand directly against the bit writer and
// reader, without reflection and without bitrep's streams: one encode and one
// decode function per struct, one write_bits / read_bits per wire field, the
// range checks bitrep makes on write, the refusals a conforming reader makes
// on read, and from_bytes' all-or-nothing decode. The only bitrep pieces used
// are bit_writer / bit_reader, bits_required, the quantizer and the UTF-8
// validator. Errors come back as a bitrep::status with the same code and bit
// as bitrep's, so the checks before timing can compare the two.
//
// Every helper is [[gnu::always_inline]], as bitrep forces its own thin
// layers inline (BITREP_ALWAYS_INLINE): left to themselves, g++ 12 keeps
// put_text, put_unit, get_unit, get_size, ... out of line and clang 14 keeps
// put_text, put_vec3, get_text and get_vec3 out of line, and the writer or
// reader passed to them by reference then lives in memory. The failure
// record is an object of its own, so the cold path never takes the writer's
// or the reader's address either.
namespace hand {

using bitrep::bit_reader;
using bitrep::bit_writer;
using bitrep::error;

constexpr auto unit_quantizer = bitrep::quantizer::from_resolution(-1.f, 1.f, 0.01f); // 8 bits
constexpr int color_bits = 2; // Color's enumerators are 0, 1, 2: the wire's index is the value

using side_by_side::failure;

// ------------------------------------------------------------------ encode

[[gnu::always_inline]] inline bool put_int16(bit_writer& out, failure& why, std::int16_t value)
{
    if (!out.write_bits(static_cast<std::uint16_t>(value), 16)) [[unlikely]]
        return why.set(error::buffer_too_small, out.bits_written(), "output buffer is full");
    return true;
}

[[gnu::always_inline]] inline bool put_unit(bit_writer& out, failure& why, float value)
{
    if (value != value) [[unlikely]]
        return why.set(error::value_out_of_range, out.bits_written(), "NaN cannot be quantized");
    if (!out.write_bits(unit_quantizer.quantize(value), unit_quantizer.bits)) [[unlikely]] // clamps to [-1, 1]
        return why.set(error::buffer_too_small, out.bits_written(), "output buffer is full");
    return true;
}

[[gnu::always_inline]] inline bool put_vec3(bit_writer& out, failure& why, const Vec3& v)
{
    return put_unit(out, why, v.x.value()) && put_unit(out, why, v.y.value()) && put_unit(out, why, v.z.value());
}

/// The standard's string with buffer_size N + 1: the length in
/// bits_required(0, N) bits, zero bits up to a byte boundary, the bytes.
template <std::size_t N>
[[gnu::always_inline]] inline bool put_text(bit_writer& out, failure& why, const bitrep::bounded_string<N>& text)
{
    constexpr int length_bits = bitrep::bits_required(std::size_t{0}, N);
    const std::string& s = text.str();
    const std::size_t start = out.bits_written();
    if (s.size() > N) [[unlikely]]
        return why.set(error::value_out_of_range, start, "string longer than its bound");
    if (std::memchr(s.data(), 0, s.size()) != nullptr) [[unlikely]]
        return why.set(error::interior_nul, start, "zero byte inside a string");
    if (!bitrep::detail::is_valid_utf8(reinterpret_cast<const unsigned char*>(s.data()), s.size())) [[unlikely]]
        return why.set(error::bad_utf8, start, "string is not well-formed UTF-8");
    if (!out.write_bits(static_cast<std::uint32_t>(s.size()), length_bits)) [[unlikely]]
        return why.set(error::buffer_too_small, start, "output buffer is full");
    const int padding = static_cast<int>((8 - out.bits_written() % 8) % 8);
    if (padding != 0 && !out.write_bits(0, padding)) [[unlikely]]
        return why.set(error::buffer_too_small, start, "output buffer is full");
    if (!out.write_bytes(reinterpret_cast<const std::uint8_t*>(s.data()), s.size())) [[unlikely]]
        return why.set(error::buffer_too_small, start, "output buffer is full");
    return true;
}

/// A vector's size in bits_required(0, N) bits (its elements follow).
template <std::size_t N>
[[gnu::always_inline]] inline bool put_size(bit_writer& out, failure& why, std::size_t size)
{
    constexpr int size_bits = bitrep::bits_required(std::size_t{0}, N);
    if (size > N) [[unlikely]]
        return why.set(error::value_out_of_range, out.bits_written(), "vector longer than its bound");
    if (!out.write_bits(static_cast<std::uint32_t>(size), size_bits)) [[unlikely]]
        return why.set(error::buffer_too_small, out.bits_written(), "output buffer is full");
    return true;
}

[[gnu::always_inline]] inline bool put_byte(bit_writer& out, failure& why, std::uint8_t value)
{
    if (!out.write_bits(value, 8)) [[unlikely]]
        return why.set(error::buffer_too_small, out.bits_written(), "output buffer is full");
    return true;
}

[[gnu::always_inline]] inline bool put_weapon(bit_writer& out, failure& why, const Weapon& weapon)
{
    return put_text(out, why, weapon.name) && put_int16(out, why, weapon.damage);
}

[[gnu::always_inline]] inline bool put_color(bit_writer& out, failure& why, Color color)
{
    const auto index = static_cast<std::uint32_t>(color);
    if (index > 2) [[unlikely]]
        return why.set(error::bad_enum, out.bits_written(), "enum value is not an enumerator");
    if (!out.write_bits(index, color_bits)) [[unlikely]]
        return why.set(error::buffer_too_small, out.bits_written(), "output buffer is full");
    return true;
}

[[gnu::always_inline]] inline bool put_monster(bit_writer& out, failure& why, const Monster& monster)
{
    if (!put_vec3(out, why, monster.pos) || !put_int16(out, why, monster.mana) || !put_int16(out, why, monster.hp) ||
        !put_text(out, why, monster.name))
        return false;
    if (!put_size<10>(out, why, monster.inventory.size()))
        return false;
    for (std::uint8_t item : monster.inventory)
        if (!put_byte(out, why, item))
            return false;
    if (!put_color(out, why, monster.color) || !put_size<10>(out, why, monster.weapons.size()))
        return false;
    for (const Weapon& weapon : monster.weapons)
        if (!put_weapon(out, why, weapon))
            return false;
    if (!put_weapon(out, why, monster.equipped) || !put_size<10>(out, why, monster.path.size()))
        return false;
    for (const Vec3& point : monster.path)
        if (!put_vec3(out, why, point))
            return false;
    return true;
}

[[gnu::always_inline]] inline bool put_batch(bit_writer& out, failure& why, const Batch& batch)
{
    if (!put_size<batch_size>(out, why, batch.monsters.size()))
        return false;
    for (const Monster& monster : batch.monsters)
        if (!put_monster(out, why, monster))
            return false;
    return true;
}

/// Mirrors bitrep::to_bytes(value, buffer, written).
bitrep::status to_bytes(const Batch& batch, std::span<std::uint8_t> buffer, std::size_t& bytes_written)
{
    bit_writer out(buffer);
    failure why;
    if (!put_batch(out, why, batch)) [[unlikely]] {
        bytes_written = 0;
        return why.to_status("Batch");
    }
    out.flush();
    bytes_written = out.bytes_written();
    return {};
}

// ------------------------------------------------------------------ decode

[[gnu::always_inline]] inline bool get_int16(bit_reader& in, failure& why, std::int16_t& value)
{
    std::uint32_t pattern;
    if (!in.read_bits(pattern, 16)) [[unlikely]]
        return why.set(error::truncated, in.bits_read(), "input ends before the value");
    value = static_cast<std::int16_t>(static_cast<std::uint16_t>(pattern));
    return true;
}

[[gnu::always_inline]] inline bool get_unit(bit_reader& in, failure& why, unit_float& value)
{
    const std::size_t start = in.bits_read();
    std::uint32_t quantum;
    if (!in.read_bits(quantum, unit_quantizer.bits)) [[unlikely]]
        return why.set(error::truncated, start, "input ends before the value");
    if (quantum > unit_quantizer.max_integer) [[unlikely]]
        return why.set(error::out_of_range, start, "quantum above the range's maximum");
    value = unit_quantizer.dequantize(quantum);
    return true;
}

[[gnu::always_inline]] inline bool get_vec3(bit_reader& in, failure& why, Vec3& v)
{
    return get_unit(in, why, v.x) && get_unit(in, why, v.y) && get_unit(in, why, v.z);
}

/// The standard's string with buffer_size N + 1: its length, the padding to
/// a byte, then the bytes, into the memory `prepare(length)` gives, and
/// the checks a conforming reader makes of them.
template <std::size_t N, class Prepare>
[[gnu::always_inline]] inline bool get_text_into(bit_reader& in, failure& why, Prepare&& prepare)
{
    constexpr int length_bits = bitrep::bits_required(std::size_t{0}, N);
    const std::size_t start = in.bits_read();
    std::uint32_t length;
    if (!in.read_bits(length, length_bits)) [[unlikely]]
        return why.set(error::truncated, start, "input ends before the value");
    if (length > N) [[unlikely]]
        return why.set(error::out_of_range, start, "decoded value above the range's maximum");
    if (const int padding = static_cast<int>((8 - in.bits_read() % 8) % 8); padding != 0) {
        std::uint32_t zeros;
        if (!in.read_bits(zeros, padding)) [[unlikely]]
            return why.set(error::truncated, start, "input ends before the value");
        if (zeros != 0) [[unlikely]]
            return why.set(error::bad_padding, start, "non-zero alignment padding");
    }
    char* const bytes = prepare(length);
    if (!in.read_bytes(reinterpret_cast<std::uint8_t*>(bytes), length)) [[unlikely]]
        return why.set(error::truncated, start, "string bytes past the end of the input");
    if (std::memchr(bytes, 0, length) != nullptr) [[unlikely]]
        return why.set(error::interior_nul, start, "zero byte inside a string");
    if (!bitrep::detail::is_valid_utf8(reinterpret_cast<const unsigned char*>(bytes), length)) [[unlikely]]
        return why.set(error::bad_utf8, start, "string is not well-formed UTF-8");
    return true;
}

template <std::size_t N>
[[gnu::always_inline]] inline bool get_text(bit_reader& in, failure& why, bitrep::bounded_string<N>& text)
{
    return get_text_into<N>(in, why, [&text](std::uint32_t length) {
        std::string& s = text.str();
        s.resize(length); // length <= N: a bounded allocation
        return s.data();
    });
}

/// A vector's size, refused above its bound before anything is allocated.
template <std::size_t N>
[[gnu::always_inline]] inline bool get_size(bit_reader& in, failure& why, std::size_t& size)
{
    constexpr int size_bits = bitrep::bits_required(std::size_t{0}, N);
    const std::size_t start = in.bits_read();
    std::uint32_t value;
    if (!in.read_bits(value, size_bits)) [[unlikely]]
        return why.set(error::truncated, start, "input ends before the value");
    if (value > N) [[unlikely]]
        return why.set(error::out_of_range, start, "decoded value above the range's maximum");
    size = value;
    return true;
}

[[gnu::always_inline]] inline bool get_byte(bit_reader& in, failure& why, std::uint8_t& value)
{
    std::uint32_t byte;
    if (!in.read_bits(byte, 8)) [[unlikely]]
        return why.set(error::truncated, in.bits_read(), "input ends before the value");
    value = static_cast<std::uint8_t>(byte);
    return true;
}

[[gnu::always_inline]] inline bool get_weapon(bit_reader& in, failure& why, Weapon& weapon)
{
    return get_text(in, why, weapon.name) && get_int16(in, why, weapon.damage);
}

[[gnu::always_inline]] inline bool get_color(bit_reader& in, failure& why, Color& color)
{
    const std::size_t start = in.bits_read();
    std::uint32_t index;
    if (!in.read_bits(index, color_bits)) [[unlikely]]
        return why.set(error::truncated, start, "input ends before the value");
    if (index > 2) [[unlikely]]
        return why.set(error::bad_enum, start, "enum index is not an enumerator");
    color = static_cast<Color>(index);
    return true;
}

/// Vectors are resized to the decoded size (at most 10 elements) and their
/// elements decoded in place.
[[gnu::always_inline]] inline bool get_monster(bit_reader& in, failure& why, Monster& monster)
{
    std::size_t size;
    if (!get_vec3(in, why, monster.pos) || !get_int16(in, why, monster.mana) || !get_int16(in, why, monster.hp) ||
        !get_text(in, why, monster.name) || !get_size<10>(in, why, size))
        return false;
    monster.inventory.resize(size);
    for (std::uint8_t& item : monster.inventory)
        if (!get_byte(in, why, item))
            return false;
    if (!get_color(in, why, monster.color) || !get_size<10>(in, why, size))
        return false;
    monster.weapons.resize(size);
    for (Weapon& weapon : monster.weapons)
        if (!get_weapon(in, why, weapon))
            return false;
    if (!get_weapon(in, why, monster.equipped) || !get_size<10>(in, why, size))
        return false;
    monster.path.resize(size);
    for (Vec3& point : monster.path)
        if (!get_vec3(in, why, point))
            return false;
    return true;
}

[[gnu::always_inline]] inline bool get_batch(bit_reader& in, failure& why, Batch& batch)
{
    std::size_t size;
    if (!get_size<batch_size>(in, why, size))
        return false;
    batch.monsters.resize(size);
    for (Monster& monster : batch.monsters)
        if (!get_monster(in, why, monster))
            return false;
    return true;
}

/// Mirrors bitrep::from_bytes: decode into a copy of the target, refuse
/// whole trailing bytes, and move into the target only on success.
bitrep::status from_bytes(std::span<const std::uint8_t> bytes, Batch& out)
{
    Batch decoded(out);
    bit_reader in(bytes);
    failure why;
    if (!get_batch(in, why, decoded)) [[unlikely]]
        return why.to_status("Batch");
    const std::size_t used_bytes = (in.bits_read() + 7) / 8;
    if (used_bytes != bytes.size()) [[unlikely]]
        return bitrep::status(error::trailing_data, used_bytes * 8, "Batch", "whole bytes left over after the value");
    out = std::move(decoded);
    return {};
}

} // namespace hand

// ------------------------------------- the hand-written in-place baseline
//
// The decoder a careful engineer writes in the serialize 1.0 style when
// nothing asks for all-or-nothing reads: plain structs with fixed-size char
// buffers and arrays with counts, read straight into the caller's object,
// no copy. The same refusals as the hand-written side above (and bitrep)
// make; a refused message leaves the target half written, which is the
// guarantee bitrep keeps and this side does not.
namespace in_place {

using bitrep::bit_reader;
using bitrep::error;
using side_by_side::failure;

struct Vec3 {
    float x, y, z;
};
struct Weapon {
    char name[11]; // up to 10 bytes and a terminating zero
    std::int16_t damage;
};
struct Monster {
    Vec3 pos;
    std::int16_t mana, hp;
    char name[11];
    std::uint8_t inventory[10];
    std::uint8_t inventory_count;
    Color color;
    Weapon weapons[10];
    std::uint8_t weapon_count;
    Weapon equipped;
    Vec3 path[10];
    std::uint8_t path_count;
};
struct Batch {
    Monster monsters[batch_size];
    std::uint8_t count;
};

[[gnu::always_inline]] inline bool get_unit(bit_reader& in, failure& why, float& value)
{
    const std::size_t start = in.bits_read();
    std::uint32_t quantum;
    if (!in.read_bits(quantum, hand::unit_quantizer.bits)) [[unlikely]]
        return why.set(error::truncated, start, "input ends before the value");
    if (quantum > hand::unit_quantizer.max_integer) [[unlikely]]
        return why.set(error::out_of_range, start, "quantum above the range's maximum");
    value = hand::unit_quantizer.dequantize(quantum);
    return true;
}

[[gnu::always_inline]] inline bool get_vec3(bit_reader& in, failure& why, Vec3& v)
{
    return get_unit(in, why, v.x) && get_unit(in, why, v.y) && get_unit(in, why, v.z);
}

/// The standard's string with buffer_size 11, into a char buffer.
[[gnu::always_inline]] inline bool get_text(bit_reader& in, failure& why, char (&text)[11])
{
    return hand::get_text_into<10>(in, why, [&text](std::uint32_t length) {
        text[length] = 0;
        return text;
    });
}

[[gnu::always_inline]] inline bool get_weapon(bit_reader& in, failure& why, Weapon& weapon)
{
    return get_text(in, why, weapon.name) && hand::get_int16(in, why, weapon.damage);
}

[[gnu::always_inline]] inline bool get_monster(bit_reader& in, failure& why, Monster& monster)
{
    std::size_t size;
    if (!get_vec3(in, why, monster.pos) || !hand::get_int16(in, why, monster.mana) ||
        !hand::get_int16(in, why, monster.hp) || !get_text(in, why, monster.name) || !hand::get_size<10>(in, why, size))
        return false;
    monster.inventory_count = static_cast<std::uint8_t>(size);
    for (std::size_t i = 0; i < size; ++i)
        if (!hand::get_byte(in, why, monster.inventory[i]))
            return false;
    if (!hand::get_color(in, why, monster.color) || !hand::get_size<10>(in, why, size))
        return false;
    monster.weapon_count = static_cast<std::uint8_t>(size);
    for (std::size_t i = 0; i < size; ++i)
        if (!get_weapon(in, why, monster.weapons[i]))
            return false;
    if (!get_weapon(in, why, monster.equipped) || !hand::get_size<10>(in, why, size))
        return false;
    monster.path_count = static_cast<std::uint8_t>(size);
    for (std::size_t i = 0; i < size; ++i)
        if (!get_vec3(in, why, monster.path[i]))
            return false;
    return true;
}

/// Straight into `out`: no copy, and a refused message leaves it half written.
bitrep::status from_bytes(std::span<const std::uint8_t> bytes, Batch& out)
{
    bit_reader in(bytes);
    failure why;
    std::size_t size;
    if (!hand::get_size<batch_size>(in, why, size)) [[unlikely]]
        return why.to_status("Batch");
    out.count = static_cast<std::uint8_t>(size);
    for (std::size_t i = 0; i < size; ++i)
        if (!get_monster(in, why, out.monsters[i])) [[unlikely]]
            return why.to_status("Batch");
    const std::size_t used_bytes = (in.bits_read() + 7) / 8;
    if (used_bytes != bytes.size()) [[unlikely]]
        return bitrep::status(error::trailing_data, used_bytes * 8, "Batch", "whole bytes left over after the value");
    return {};
}

bool same_vec3(const Vec3& a, const ::Vec3& b) { return a.x == b.x.value() && a.y == b.y.value() && a.z == b.z.value(); }
bool same_weapon(const Weapon& a, const ::Weapon& b) { return b.name.str() == a.name && a.damage == b.damage; }

/// Whether the plain batch holds exactly the annotated one's values.
bool same(const Batch& a, const ::Batch& b)
{
    if (a.count != b.monsters.size())
        return false;
    for (std::size_t i = 0; i < a.count; ++i) {
        const Monster& m = a.monsters[i];
        const ::Monster& n = b.monsters[i];
        bool ok = same_vec3(m.pos, n.pos) && m.mana == n.mana && m.hp == n.hp && n.name.str() == m.name &&
                  m.inventory_count == n.inventory.size() && m.color == n.color && m.weapon_count == n.weapons.size() &&
                  same_weapon(m.equipped, n.equipped) && m.path_count == n.path.size();
        for (std::size_t k = 0; ok && k < m.inventory_count; ++k)
            ok = m.inventory[k] == n.inventory[k];
        for (std::size_t k = 0; ok && k < m.weapon_count; ++k)
            ok = same_weapon(m.weapons[k], n.weapons[k]);
        for (std::size_t k = 0; ok && k < m.path_count; ++k)
            ok = same_vec3(m.path[k], n.path[k]);
        if (!ok)
            return false;
    }
    return true;
}

} // namespace in_place

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
    static in_place::Batch plain{};
    check(in_place::from_bytes(reflected, plain).ok() && in_place::same(plain, batch),
          "the in-place hand-written decode of reflected bytes reproduces the batch");

    // Same refusals, same all-or-nothing: a truncated message fails with the
    // same code and leaves both targets untouched. bitrep refuses a vector
    // whose count the rest of the input cannot hold before allocating for it
    // (one of its guarantees, not the baseline's), so it may stop at that
    // count rather than at the element where the input runs out.
    const std::span<const std::uint8_t> truncated(reflected.data(), reflected.size() - 3);
    const bitrep::status reflected_refusal = bitrep::from_bytes(truncated, from_reflected);
    const bitrep::status hand_refusal = hand::from_bytes(truncated, from_hand);
    check(!reflected_refusal.ok() && !hand_refusal.ok(), "truncated input is refused");
    check(reflected_refusal.code() == hand_refusal.code() && reflected_refusal.bit_offset() <= hand_refusal.bit_offset(),
          "truncated input is refused with the same error, no later than the baseline");
    check(from_reflected == batch && from_hand == batch, "a refused decode leaves the target untouched");
    check(in_place::from_bytes(truncated, plain).code() == hand_refusal.code(),
          "the in-place decode refuses truncated input with the same error (leaving its target half written)");

    // Same write-side checks: each bad value is refused by both sides with the
    // same code at the same bit.
    std::vector<std::uint8_t> scratch = encoding_buffer();
    std::size_t ignored = 0;
    const auto check_write_refusal = [&](const Batch& bad, bitrep::error expected, const char* what) {
        const bitrep::status r = bitrep::to_bytes(bad, std::span<std::uint8_t>(scratch), ignored);
        const bitrep::status h = hand::to_bytes(bad, scratch, ignored);
        check(side_by_side::refused_alike(r, h, expected), what);
    };
    const auto with = [&batch](auto change) {
        Batch changed = batch;
        change(changed.monsters[7]);
        return changed;
    };
    check_write_refusal(with([](Monster& m) { m.name = "Excalibur!!"; }), bitrep::error::value_out_of_range,
                        "an over-long name is refused on write by both, at the same bit");
    check_write_refusal(with([](Monster& m) { m.name = std::string("a\0b", 3); }), bitrep::error::interior_nul,
                        "a name holding a zero byte is refused on write by both, at the same bit");
    check_write_refusal(with([](Monster& m) { m.equipped.name = "\xff"; }), bitrep::error::bad_utf8,
                        "a name that is not UTF-8 is refused on write by both, at the same bit");
    check_write_refusal(with([](Monster& m) { m.pos.y = std::numeric_limits<float>::quiet_NaN(); }),
                        bitrep::error::value_out_of_range, "a NaN float is refused on write by both, at the same bit");
    check_write_refusal(with([](Monster& m) { m.color = static_cast<Color>(3); }), bitrep::error::bad_enum,
                        "a Color that is not an enumerator is refused on write by both, at the same bit");
    check_write_refusal(with([](Monster& m) { m.inventory.vector().resize(11); }), bitrep::error::value_out_of_range,
                        "an 11-item inventory is refused on write by both, at the same bit");
    {
        const std::span<std::uint8_t> small(scratch.data(), reflected_size - 3);
        const bitrep::status r = bitrep::to_bytes(batch, small, ignored);
        const bitrep::status h = hand::to_bytes(batch, small, ignored);
        check(side_by_side::refused_alike(r, h, bitrep::error::buffer_too_small),
              "a buffer 3 bytes short is refused by both, at the same bit");
    }

    // Same read-side refusals, on forged variants of a one-monster batch whose
    // layout is known: count 0-5, pos 6-29, mana 30-45, hp 46-61, name length
    // 62-65, padding 66-71, "abc" 72-95, inventory size 96-99, color 100-101.
    Batch probe;
    probe.monsters.push_back(Monster{});
    probe.monsters[0].name = "abc";
    const std::vector<std::uint8_t> probe_bytes = side_by_side::encoded(probe);
    check(bitrep::bit_size(probe) == 132, "the probe batch has the expected layout");
    const auto check_read_refusal = [&](auto forge, bitrep::error expected, std::size_t bit, const char* what) {
        std::vector<std::uint8_t> forged = probe_bytes;
        forge(forged);
        Batch r_target = batch;
        Batch h_target = batch;
        const bitrep::status r = bitrep::from_bytes(forged, r_target);
        const bitrep::status h = hand::from_bytes(forged, h_target);
        check(side_by_side::refused_alike(r, h, expected) && r.bit_offset() == bit, what);
        check(r_target == batch && h_target == batch, "a refused decode leaves the target untouched");
    };
    using side_by_side::overwrite_bits;
    using bytes_t = std::vector<std::uint8_t>;
    check_read_refusal([](bytes_t& b) { overwrite_bits(b, 0, 6, 51); }, bitrep::error::out_of_range, 0,
                       "a batch count above 50 is refused on read by both");
    check_read_refusal([](bytes_t& b) { overwrite_bits(b, 6, 8, 201); }, bitrep::error::out_of_range, 6,
                       "a quantum above 200 is refused on read by both");
    check_read_refusal([](bytes_t& b) { overwrite_bits(b, 62, 4, 11); }, bitrep::error::out_of_range, 62,
                       "a name length above 10 is refused on read by both");
    check_read_refusal([](bytes_t& b) { overwrite_bits(b, 70, 1, 1); }, bitrep::error::bad_padding, 62,
                       "non-zero padding is refused on read by both");
    check_read_refusal([](bytes_t& b) { b[10] = 0; }, bitrep::error::interior_nul, 62,
                       "a zero byte in a name is refused on read by both");
    check_read_refusal([](bytes_t& b) { b[10] = 0xC0; }, bitrep::error::bad_utf8, 62,
                       "malformed UTF-8 is refused on read by both");
    check_read_refusal([](bytes_t& b) { overwrite_bits(b, 96, 4, 11); }, bitrep::error::out_of_range, 96,
                       "an inventory size above 10 is refused on read by both");
    check_read_refusal([](bytes_t& b) { overwrite_bits(b, 100, 2, 3); }, bitrep::error::bad_enum, 100,
                       "a Color index above 2 is refused on read by both");
    check_read_refusal([](bytes_t& b) { b.push_back(0); }, bitrep::error::trailing_data, 136,
                       "a whole trailing byte is refused on read by both");

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

/// The in-place hand-written decoder: no all-or-nothing copy (the baseline decoder<T> is held to).
struct hand_written_in_place {
    [[gnu::noinline]] static bitrep::status from_bytes(std::span<const std::uint8_t> bytes, in_place::Batch& out)
    {
        return in_place::from_bytes(bytes, out);
    }
};

} // namespace


namespace threaded {
template <class V>
const proto::seq_access* seq()
{
    static const proto::seq_access a{[](const void* p) noexcept { return static_cast<const V*>(p)->size(); },
                                     [](void* p) noexcept -> void* { return static_cast<V*>(p)->data(); }};
    return &a;
}
proto::ins quant(std::uint32_t off)
{
    proto::ins i{&proto::h_quantized};
    i.offset = off;
    i.q = hand::unit_quantizer;
    i.bits = static_cast<std::uint8_t>(i.q.bits);
    i.low = -1.f;
    i.top = 1.f;
    i.fmax = static_cast<float>(i.q.max_integer);
    return i;
}
proto::ins simple(proto::handler h, std::uint32_t off, unsigned bits = 0, std::uint64_t max = 0)
{
    proto::ins i{h};
    i.offset = off;
    i.bits = static_cast<std::uint8_t>(bits);
    i.max = max;
    return i;
}
const proto::ins* program()
{
    static proto::ins p[24];
    static bool made = false;
    if (made)
        return p;
    made = true;
    using namespace proto;
    const std::uint32_t pos = offsetof(Monster, pos);
    p[0] = simple(h_vector, offsetof(Batch, monsters), 6, 50);
    p[0].stride = sizeof(Monster);
    p[0].seq = seq<bitrep::bounded_vector<Monster, batch_size>>();
    p[0].skip = &p[23];
    p[1] = quant(pos + offsetof(Vec3, x));
    p[1].fn = h_quantized3;
    p[1].skip = &p[4];
    p[2] = simple(h_nop, 0);
    p[3] = simple(h_nop, 0);
    p[4] = simple(h_int16, offsetof(Monster, mana));
    p[5] = simple(h_int16, offsetof(Monster, hp));
    p[6] = simple(h_string, offsetof(Monster, name), 4, 10);
    p[7] = simple(h_vector, offsetof(Monster, inventory), 4, 10);
    p[7].stride = 1;
    p[7].seq = seq<bitrep::bounded_vector<std::uint8_t, 10>>();
    p[7].skip = &p[10];
    p[7].fn = h_vector_u8;
    p[8] = simple(h_uint8, 0);
    p[9] = simple(h_end_loop, 0);
    p[10] = simple(h_enum32, offsetof(Monster, color), 2, 3);
    p[11] = simple(h_vector, offsetof(Monster, weapons), 4, 10);
    p[11].stride = sizeof(Weapon);
    p[11].seq = seq<bitrep::bounded_vector<Weapon, 10>>();
    p[11].skip = &p[15];
    p[12] = simple(h_string, offsetof(Weapon, name), 4, 10);
    p[13] = simple(h_int16, offsetof(Weapon, damage));
    p[14] = simple(h_end_loop, 0);
    p[15] = simple(h_string, offsetof(Monster, equipped) + offsetof(Weapon, name), 4, 10);
    p[16] = simple(h_int16, offsetof(Monster, equipped) + offsetof(Weapon, damage));
    p[17] = simple(h_vector, offsetof(Monster, path), 4, 10);
    p[17].stride = sizeof(Vec3);
    p[17].seq = seq<bitrep::bounded_vector<Vec3, 10>>();
    p[17].skip = &p[22];
    p[18] = quant(offsetof(Vec3, x));
    p[18].fn = h_quantized3;
    p[18].skip = &p[21];
    p[19] = simple(h_nop, 0);
    p[20] = simple(h_nop, 0);
    p[21] = simple(h_end_loop, 0);
    p[22] = simple(h_end_loop, 0);
    p[23] = simple(h_done, 0);
    return p;
}
} // namespace threaded


namespace threaded {
template <class V>
void (*resizer())(void*, std::size_t)
{
    return [](void* p, std::size_t n) { static_cast<V*>(p)->resize(n); };
}
proto::rins rq(std::uint32_t off, const proto::rins* skip)
{
    proto::rins i{&proto::r_quantized3};
    i.offset = off;
    i.q = hand::unit_quantizer;
    i.bits = static_cast<std::uint8_t>(i.q.bits);
    i.fmax = static_cast<float>(i.q.max_integer);
    i.skip = skip;
    return i;
}
proto::rins rs(proto::rhandler h, std::uint32_t off, unsigned bits = 0, std::uint64_t max = 0)
{
    proto::rins i{h};
    i.offset = off;
    i.bits = static_cast<std::uint8_t>(bits);
    i.max = max;
    return i;
}
const proto::rins* rprogram()
{
    static proto::rins p[24];
    static bool made = false;
    if (made)
        return p;
    made = true;
    using namespace proto;
    const std::uint32_t pos = offsetof(Monster, pos);
    p[0] = rs(r_vector, offsetof(Batch, monsters), 6, 50);
    p[0].stride = sizeof(Monster);
    p[0].resize = resizer<bitrep::bounded_vector<Monster, batch_size>>();
    p[0].skip = &p[23];
    p[1] = rq(pos, &p[4]);
    p[4] = rs(r_int16, offsetof(Monster, mana));
    p[5] = rs(r_int16, offsetof(Monster, hp));
    p[6] = rs(r_string, offsetof(Monster, name), 4, 10);
    p[7] = rs(r_vector_u8, offsetof(Monster, inventory), 4, 10);
    p[7].stride = 1;
    p[7].resize = resizer<bitrep::bounded_vector<std::uint8_t, 10>>();
    p[7].skip = &p[10];
    p[10] = rs(r_enum32, offsetof(Monster, color), 2, 3);
    p[11] = rs(r_vector, offsetof(Monster, weapons), 4, 10);
    p[11].stride = sizeof(Weapon);
    p[11].resize = resizer<bitrep::bounded_vector<Weapon, 10>>();
    p[11].skip = &p[15];
    p[12] = rs(r_string, offsetof(Weapon, name), 4, 10);
    p[13] = rs(r_int16, offsetof(Weapon, damage));
    p[14] = rs(r_end_loop, 0);
    p[14].skip = &p[12];
    p[15] = rs(r_string, offsetof(Monster, equipped) + offsetof(Weapon, name), 4, 10);
    p[16] = rs(r_int16, offsetof(Monster, equipped) + offsetof(Weapon, damage));
    p[17] = rs(r_vector, offsetof(Monster, path), 4, 10);
    p[17].stride = sizeof(Vec3);
    p[17].resize = resizer<bitrep::bounded_vector<Vec3, 10>>();
    p[17].skip = &p[22];
    p[18] = rq(0, &p[21]);
    p[21] = rs(r_end_loop, 0);
    p[21].skip = &p[18];
    p[22] = rs(r_end_loop, 0);
    p[22].skip = &p[1];
    p[23] = rs(r_done, 0);
    return p;
}
} // namespace threaded

struct threaded_in_place {
    [[gnu::noinline]] static bitrep::status from_bytes(std::span<const std::uint8_t> bytes, Batch& out)
    {
        proto::rctx c;
        if (!proto::decode(threaded::rprogram(), &out, bytes.data(), bytes.size(), c)) [[unlikely]]
            return bitrep::status(c.code, c.bit, "Batch", "failed");
        if (static_cast<std::size_t>(c.end - c.in) + (c.sbits / 8) != 0) [[unlikely]]
            return bitrep::status(bitrep::error::trailing_data, 0, "Batch", "trailing");
        return {};
    }
    static bitrep::status to_bytes(const Batch&, std::span<std::uint8_t>, std::size_t&) { return {}; }
};

struct threaded_side {
    [[gnu::noinline]] static bitrep::status to_bytes(const Batch& value, std::span<std::uint8_t> buffer, std::size_t& written)
    {
        proto::ctx c;
        if (!proto::encode(threaded::program(), &value, buffer.data(), buffer.size(), written, c)) [[unlikely]]
            return bitrep::status(c.code, c.bit, "Batch", "failed");
        return {};
    }
    static bitrep::status from_bytes(std::span<const std::uint8_t>, Batch&) { return {}; }
};

void verify_threaded()
{
    std::vector<std::uint8_t> a = encoding_buffer(), b = encoding_buffer();
    std::size_t na = 0, nb = 0;
    check(bitrep::to_bytes(sample_batch(), std::span<std::uint8_t>(a), na).ok(), "reflected");
    check(threaded_side::to_bytes(sample_batch(), b, nb).ok(), "threaded encode succeeds");
    a.resize(na);
    b.resize(nb);
    check(a == b, "threaded bytes identical");
    {
        Batch target;
        { auto st = threaded_in_place::from_bytes(a, target); if (!st.ok()) std::fprintf(stderr, "code %d bit %zu of %zu\n", (int)st.code(), st.bit_offset(), na * 8); check(st.ok(), "threaded decode succeeds"); }
        check(target == sample_batch(), "threaded decode reproduces");
        check(threaded_in_place::from_bytes(a, target).ok() && target == sample_batch(), "again in place");
        for (std::size_t cut = 0; cut < na; cut += 5) {
            Batch t2;
            check(!threaded_in_place::from_bytes(std::span<const std::uint8_t>(a.data(), cut), t2).ok(), "truncated refused");
        }
    }
    for (std::size_t cut = 0; cut < na; cut += 7) {
        std::vector<std::uint8_t> small(cut);
        std::size_t n1 = 0, n2 = 0;
        auto s1 = bitrep::to_bytes(sample_batch(), std::span<std::uint8_t>(small), n1);
        auto s2 = threaded_side::to_bytes(sample_batch(), small, n2);
        check(!s1.ok() && !s2.ok() && s1.code() == s2.code(), "both refuse a small buffer");
    }
}

int main(int argc, char** argv)
{
    verify_reflected_equals_hand_written();
    verify_threaded();

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
    benchmark::RegisterBenchmark("Monster/Encode/Threaded", encode_with(threaded_side{}))->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("Monster/Encode/HandWritten", encode_with(hand_written{}))->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("Monster/Encode/Inlined", encode_with(side_by_side::inlined<Batch>{}))
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("Monster/Decode/Reflected", decode_with(reflected{}))->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("Monster/Decode/HandWritten", decode_with(hand_written{}))->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("Monster/Decode/Inlined", decode_with(side_by_side::inlined<Batch>{}))
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("Monster/Decode/ReflectedDecoder", decode_with(reflected_decoder{}))
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("Monster/Decode/ThreadedInPlace", [](benchmark::State& state) {
        static Batch target{};
        side_by_side::decode<threaded_in_place>(state, sample_bytes(), target, batch_size);
        if (target != sample_batch())
            state.SkipWithError("threaded decode did not reproduce the batch");
    })->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("Monster/Decode/HandWrittenInPlace", [](benchmark::State& state) {
        static in_place::Batch target{};
        side_by_side::decode<hand_written_in_place>(state, sample_bytes(), target, batch_size);
        if (!in_place::same(target, sample_batch()))
            state.SkipWithError("the in-place decode did not reproduce the batch");
    })->Unit(benchmark::kMicrosecond);

    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
