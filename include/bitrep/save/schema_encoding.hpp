// How a schema's texts and numbers are written, in each file format's
// schema encoding (docs/save-format.md, section 2): the table of kinds
// (schema_kinds.hpp) describes a node once, through one of these codes.
//   inline_schema_code   formats 1 and 2: every name written where it is
//                        used, every number at a fixed width
//   compact_schema_code  format 3: names by their index in a string table
//                        written once, numbers as varints
// Only compiled code includes this header (src/schema.cpp, and what
// schema_kinds.hpp reaches).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <bitrep/save/schema_node.hpp>
#include <bitrep/status.hpp>

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
};

/// A number in groups of `varint_group_bits` bits, least significant group
/// first, each followed by a bit that says whether another follows. Four
/// measured best of 3, 4, 5 and 7 on the schemas of bench/save_bench.cpp
/// (docs/benchmarks.md): most counts and bounds are under 16, a few in the
/// thousands. Readers refuse a number past 64 bits.
inline constexpr int varint_group_bits = 4;

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

/// Format 3. A schema's strings (names, type names, enumerators' names),
/// each once, in the order of first use; index 0 is the empty string and
/// is not written.
class compact_schema_code {
public:
    /// The writer's table: every text of `tree`.
    explicit compact_schema_code(const schema& tree)
    {
        strings_.emplace_back();
        index_.emplace(std::string(), 0);
        for (const schema_node& node : tree.nodes) {
            add(node.name);
            add(node.type_name);
        }
    }
    /// The reader's table, filled by serialize_table.
    compact_schema_code() { strings_.emplace_back(); }

    /// The table: its count, then each string as the standard's string of
    /// buffer size 256 (at most 255 bytes). A forged count costs the reader
    /// nothing before its strings are there: each takes at least 8 bits.
    template <class Stream>
    bool serialize_table(Stream& stream)
    {
        std::uint64_t count = strings_.size() - 1;
        if (!serialize_varint(stream, count))
            return false;
        if constexpr (Stream::is_reading) {
            if (count > 2 * schema_limits::max_nodes || count * 8 > stream.bits_remaining()) [[unlikely]]
                return stream.fail(error::corrupt, stream.position(), "schema: more strings than the schema holds");
            strings_.resize(static_cast<std::size_t>(count) + 1);
        }
        for (std::size_t i = 1; i < strings_.size(); ++i)
            if (!serialize_schema_text(stream, strings_[i]))
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

private:
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

    void add(const std::string& text)
    {
        if (index_.emplace(text, strings_.size()).second)
            strings_.push_back(text);
    }

    std::vector<std::string> strings_;
    std::unordered_map<std::string, std::uint64_t> index_;
};

} // namespace bitrep::detail
