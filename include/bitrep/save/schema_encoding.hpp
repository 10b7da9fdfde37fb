// How a schema's texts and numbers are written, in each file format's
// schema encoding (docs/formats/save-format.md, section 2): the table of kinds
// (src/schema_kinds.hpp) describes a node once, through one of these codes.
//   inline_schema_code   formats 1 and 2: every name written where it is
//                        used, every number at a fixed width
//   compact_schema_code  format 3: names by their index in a string table
//                        written once, numbers as varints; format 4: the
//                        same, and each struct's and hook type's version
// Only compiled code includes this header (src/schema.cpp, and what
// src/schema_kinds.hpp reaches).
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <bitrep/save/schema_node.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/utf8.hpp>

namespace bitrep::detail {

template <class Stream>
bool serialize_schema_text(Stream& stream, std::string& text)
{
    return stream.serialize_string(text, schema_limits::max_name + 1);
}

/// Formats 1 and 2.
struct inline_schema_code {
    template <class Stream>
    bool text(Stream& stream, std::string& text)
    {
        return serialize_schema_text(stream, text);
    }
    /// A number in [0, max], in bits_required(max) bits.
    template <class Stream>
    bool count(Stream& stream, std::uint64_t& value, std::uint64_t max)
    {
        return stream.serialize_ranged_offset(value, max);
    }
    /// A field's position or an enumerator's value in [0, max], whatever
    /// came before it.
    template <class Stream>
    bool next(Stream& stream, std::uint64_t& value, std::uint64_t /*expected*/, std::uint64_t max)
    {
        return stream.serialize_ranged_offset(value, max);
    }
    /// A ranged integer's bounds: 64 bits each.
    template <class Stream>
    bool bounds(Stream& stream, std::uint64_t& min, std::uint64_t& max, bool /*is_signed*/)
    {
        return stream.serialize_bits(min, 64) && stream.serialize_bits(max, 64);
    }
    /// A struct's or hook type's version: not recorded (a reader's node
    /// keeps 1).
    template <class Stream>
    static bool version(Stream&, std::uint32_t&)
    {
        return true;
    }
    static constexpr bool records_versions() noexcept { return false; }
};

/// A number in groups of `varint_group_bits` bits, least significant group
/// first, each followed by a bit that says whether another follows. Most
/// numbers in a schema are 0 (a position one past the one before) or small,
/// a few in the thousands or millions: with 1, 2, 3, 4, 5 and 7 bits a
/// group, the trial game's schema (bench/trial_game.hpp) took 460, 461,
/// 472, 485, 505 and 539 bytes, save_bench's World 190, 192, 197, 204, 211
/// and 226; 2 keeps a large bound at half the bits 1 takes. Readers refuse
/// a number past 64 bits.
inline constexpr int varint_group_bits = 2;

template <class Stream>
bool serialize_varint(Stream& stream, std::uint64_t& value)
{
    const std::size_t start = stream.position();
    std::uint64_t rest = Stream::is_reading ? 0 : value;
    std::uint64_t read = 0;
    for (int shift = 0;; shift += varint_group_bits) {
        if (shift >= 64) [[unlikely]]
            return stream.fail(error::corrupt, start, "schema: a number longer than 64 bits");
        std::uint64_t group = rest & ((std::uint64_t{1} << varint_group_bits) - 1);
        bool more = (rest >> varint_group_bits) != 0;
        if (!stream.serialize_bits(group, varint_group_bits) || !stream.serialize_bool(more))
            return false;
        if constexpr (Stream::is_reading) {
            if (shift + varint_group_bits > 64 && (group >> (64 - shift)) != 0) [[unlikely]]
                return stream.fail(error::corrupt, start, "schema: a number longer than 64 bits");
            read |= group << shift;
        }
        rest >>= varint_group_bits;
        if (!more)
            break;
    }
    if constexpr (Stream::is_reading)
        value = read;
    return true;
}

/// A two's complement pattern as a varint of its zigzag form (0, -1, 1,
/// -2, ... as 0, 1, 2, 3, ...), so that small negative numbers stay short.
template <class Stream>
bool serialize_signed_varint(Stream& stream, std::uint64_t& pattern)
{
    std::uint64_t zigzag = (pattern << 1) ^ (0 - (pattern >> 63));
    if (!serialize_varint(stream, zigzag))
        return false;
    pattern = (zigzag >> 1) ^ (0 - (zigzag & 1));
    return true;
}

/// A character of a name in the string table, or its end: names are
/// mostly lower-case identifiers, so a character is a 5-bit code, and
/// only what is not a lower-case letter costs more (docs/formats/save-format.md,
/// section 2.3):
///   0-25  a-z          27  A-Z, then 5 bits (0-25)   29  ':'
///   26    '_'          28  0-9, then 4 bits (0-9)    30  any byte, then 8 bits
///   31    the end of the name
/// Against 8 bits a byte, this took the trial game's schema from 576 to
/// 461 bytes, and save_bench's World from 243 to 192.
inline constexpr unsigned name_end = 256; ///< the symbol that ends a name (code 31)

template <class Stream>
bool serialize_name_symbol(Stream& stream, unsigned& symbol)
{
    const std::size_t start = stream.position();
    std::uint64_t code = 30;
    std::uint64_t extra = symbol;
    if constexpr (!Stream::is_reading) {
        if (symbol == name_end)
            code = 31;
        else if (symbol >= 'a' && symbol <= 'z')
            code = symbol - 'a';
        else if (symbol == '_')
            code = 26;
        else if (symbol >= 'A' && symbol <= 'Z') {
            code = 27;
            extra = symbol - 'A';
        } else if (symbol >= '0' && symbol <= '9') {
            code = 28;
            extra = symbol - '0';
        } else if (symbol == ':')
            code = 29;
    }
    if (!stream.serialize_bits(code, 5))
        return false;
    const int extra_bits = code == 27 ? 5 : code == 28 ? 4 : code == 30 ? 8 : 0;
    if (extra_bits != 0 && !stream.serialize_bits(extra, extra_bits))
        return false;
    if constexpr (Stream::is_reading) {
        if ((code == 27 && extra > 25) || (code == 28 && extra > 9)) [[unlikely]]
            return stream.fail(error::corrupt, start, "schema: a name's character code out of range");
        symbol = code < 26    ? static_cast<unsigned>('a' + code)
                 : code == 26 ? '_'
                 : code == 27 ? static_cast<unsigned>('A' + extra)
                 : code == 28 ? static_cast<unsigned>('0' + extra)
                 : code == 29 ? ':'
                 : code == 30 ? static_cast<unsigned>(extra)
                              : name_end;
    }
    return true;
}

/// Formats 3 and 4. A schema's strings (names, type names, enumerators'
/// names), each once, in byte order, each written as how many leading
/// bytes it shares with the one before and the rest, in name symbols (so
/// `game::Player` after `game::Item` costs `Player` and its end); index 0
/// is the empty string and is not written. Format 4 (`versions`) also
/// records each struct's and hook type's version.
class compact_schema_code {
public:
    /// The writer's table: every text of `tree`.
    compact_schema_code(const schema& tree, bool versions) : versions_(versions)
    {
        std::set<std::string> texts;
        for (const schema_node& node : tree.nodes) {
            texts.insert(node.name);
            texts.insert(node.type_name);
        }
        texts.erase(std::string());
        strings_.emplace_back();
        strings_.insert(strings_.end(), texts.begin(), texts.end());
        for (std::size_t i = 0; i < strings_.size(); ++i)
            index_.emplace(strings_[i], i);
    }
    /// The reader's table, filled by serialize_table.
    explicit compact_schema_code(bool versions) : versions_(versions) { strings_.emplace_back(); }

    /// The table: its count, then each string. A reader refuses a count
    /// past what the bytes left could hold (each string takes at least 13
    /// bits: its varint, a character and its end) before allocating for
    /// it, and strings out of order (so that one table has one encoding),
    /// longer than 255 bytes or not UTF-8.
    template <class Stream>
    bool serialize_table(Stream& stream)
    {
        std::uint64_t count = strings_.size() - 1;
        if (!serialize_varint(stream, count))
            return false;
        if constexpr (Stream::is_reading) {
            if (count > 2 * schema_limits::max_nodes || count * 13 > stream.bits_remaining()) [[unlikely]]
                return stream.fail(error::corrupt, stream.position(), "schema: more strings than the schema holds");
            strings_.resize(static_cast<std::size_t>(count) + 1);
        }
        for (std::size_t i = 1; i < strings_.size(); ++i)
            if (!serialize_string(stream, strings_[i - 1], strings_[i]))
                return false;
        return true;
    }

    template <class Stream>
    bool text(Stream& stream, std::string& text)
    {
        std::uint64_t index = 0;
        if constexpr (!Stream::is_reading)
            index = index_.find(text)->second; // the writer's table holds every text of its tree
        if (!stream.serialize_ranged_offset(index, strings_.size() - 1))
            return false;
        if constexpr (Stream::is_reading)
            text = strings_[static_cast<std::size_t>(index)];
        return true;
    }
    template <class Stream>
    bool count(Stream& stream, std::uint64_t& value, std::uint64_t max)
    {
        const std::size_t start = stream.position();
        return serialize_varint(stream, value) && within(stream, value, max, start);
    }
    /// Fields' positions and enumerators' values mostly count up by one:
    /// the difference from `expected` (the previous one's plus one).
    template <class Stream>
    bool next(Stream& stream, std::uint64_t& value, std::uint64_t expected, std::uint64_t max)
    {
        const std::size_t start = stream.position();
        std::uint64_t difference = value - expected;
        if (!serialize_signed_varint(stream, difference))
            return false;
        value = expected + difference;
        return within(stream, value, max, start);
    }
    /// The minimum (zigzag when signed), then how far the maximum is above
    /// it, so that a minimum above the maximum cannot be written.
    template <class Stream>
    bool bounds(Stream& stream, std::uint64_t& min, std::uint64_t& max, bool is_signed)
    {
        std::uint64_t span = max - min;
        if (!(is_signed ? serialize_signed_varint(stream, min) : serialize_varint(stream, min)) ||
            !serialize_varint(stream, span))
            return false;
        max = min + span;
        return true;
    }
    /// A struct's or hook type's version, a varint (format 4 only: a
    /// reader of format 3 leaves 1).
    template <class Stream>
    bool version(Stream& stream, std::uint32_t& version)
    {
        if (!versions_)
            return true;
        std::uint64_t value = version;
        if (!count(stream, value, 0xFFFFFFFFu))
            return false;
        version = static_cast<std::uint32_t>(value);
        return true;
    }
    bool records_versions() const noexcept { return versions_; }

private:
    template <class Stream>
    static bool serialize_string(Stream& stream, const std::string& previous, std::string& text)
    {
        const std::size_t start = stream.position();
        std::uint64_t shared = 0;
        if constexpr (!Stream::is_reading)
            while (shared < previous.size() && shared < text.size() && previous[shared] == text[shared])
                ++shared;
        if (!serialize_varint(stream, shared))
            return false;
        if constexpr (Stream::is_reading) {
            if (shared > previous.size()) [[unlikely]]
                return stream.fail(error::corrupt, start, "schema: a string shares more than the one before holds");
            text.assign(previous, 0, static_cast<std::size_t>(shared));
        }
        for (std::size_t i = static_cast<std::size_t>(shared);; ++i) {
            unsigned symbol = name_end;
            if constexpr (!Stream::is_reading)
                symbol = i < text.size() ? static_cast<unsigned char>(text[i]) : name_end;
            if (!serialize_name_symbol(stream, symbol))
                return false;
            if (symbol == name_end)
                break;
            if constexpr (Stream::is_reading) {
                if (text.size() == schema_limits::max_name) [[unlikely]]
                    return stream.fail(error::corrupt, start, "schema: a string longer than 255 bytes");
                text.push_back(static_cast<char>(symbol));
            }
        }
        if constexpr (Stream::is_reading) {
            if (!(previous < text)) [[unlikely]]
                return stream.fail(error::corrupt, start, "schema: the string table is not in byte order");
            if (!is_valid_utf8(reinterpret_cast<const unsigned char*>(text.data()), text.size())) [[unlikely]]
                return stream.fail(error::bad_utf8, start, "schema: a string is not well-formed UTF-8");
        }
        return true;
    }

    /// As the inline code's fixed widths do: a writer refuses a number past
    /// its limit, and a reader refuses to have read one.
    template <class Stream>
    static bool within(Stream& stream, std::uint64_t value, std::uint64_t max, std::size_t start)
    {
        if (value <= max) [[likely]]
            return true;
        return Stream::is_reading ? stream.fail(error::corrupt, start, "schema: a number above its limit")
                                  : stream.fail(error::value_out_of_range, start, "schema: a number above its limit");
    }

    bool versions_ = false;
    std::vector<std::string> strings_;
    std::unordered_map<std::string, std::uint64_t> index_;
};

} // namespace bitrep::detail
