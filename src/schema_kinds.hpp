// The table of kinds: everything the save-file path knows about a kind of
// value without the program's types, one entry per schema_kind. Every place
// that treats kinds differently (the schema's encoding, its checks, the
// fewest bits of a value, which kinds load into which, reading a value by
// the file's node) asks its entry through with_kind(), the one switch over
// schema_kind. A kind's bits are written by the same functions its codec
// uses (codecs/), so the fast path and the schema-driven path cannot drift
// apart. docs/design/architecture.md, "One description per kind", lists
// every place a new kind touches. Only compiled
// code includes this table (src/, and bitrep-inspect through
// schema_walk.hpp): users' files see the functions schema_reader.hpp and
// schema.hpp declare.
#pragma once

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <bitrep/annotations/quat.hpp>
#include <bitrep/codecs/bounded_string.hpp>
#include <bitrep/codecs/containers.hpp>
#include <bitrep/codecs/duration.hpp>
#include <bitrep/codecs/quat.hpp>
#include <bitrep/codecs/ranged.hpp>
#include <bitrep/codecs/scalars.hpp>
#include <bitrep/codecs/variant.hpp>
#include <bitrep/save/schema_encoding.hpp>
#include <bitrep/save/schema_node.hpp>
#include <bitrep/save/schema_reader.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/bits.hpp>
#include <bitrep/wire/quantize.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep::detail {

constexpr std::uint32_t kind_bit(schema_kind kind) noexcept { return std::uint32_t{1} << static_cast<unsigned>(kind); }

/// What an entry has unless it says otherwise. Entries hold static members
/// only; with_kind() hands the visitor an empty object of the entry's type.
///   name             how messages and bitrep-inspect call the kind
///   child_role       how its children sit in it
///   loads_from       the file kinds a program's value of this kind loads
///                    from (converted, and checked per value)
///   serialize_node   the node's own bits after its kind, for every stream
///                    (docs/formats/save-format.md, section 2); readers refuse what
///                    a writer never produces
///   derive           fills what a node derives from its bits (quantizers)
///   fewest_bits      the fewest bits any value of the node takes, given its
///                    children's (a vector's count is checked against them)
///   same_encoding    whether two nodes of the kind encode alike
///   walk             reads one value by the node, for a schema_walker
///   read_integer / read_real   for the kinds that load into numbers
template <schema_kind K>
struct kind_base {
    static constexpr schema_kind kind = K;
    static constexpr node_role child_role = node_role::value;
    static constexpr std::uint32_t loads_from = kind_bit(K);

    template <class Stream, class Code>
    static bool serialize_node(Stream&, Code&, schema_node&, std::size_t)
    {
        return true;
    }
    static void derive(schema_node&) noexcept {}
    static bool same_encoding(const schema_node&, const schema_node&) noexcept { return true; }
};

inline constexpr std::uint32_t integer_kinds =
    kind_bit(schema_kind::boolean) | kind_bit(schema_kind::integer) | kind_bit(schema_kind::ranged);
inline constexpr std::uint32_t real_kinds =
    kind_bit(schema_kind::float32) | kind_bit(schema_kind::float64) | kind_bit(schema_kind::quantized);
inline constexpr std::uint32_t list_kinds = kind_bit(schema_kind::vector) | kind_bit(schema_kind::array);

template <class Stream>
bool refuse_node(Stream& stream, std::size_t start, std::string_view why)
{
    return stream.fail(error::corrupt, start, why);
}

template <class Stream, class Code>
bool serialize_schema_u32(Stream& stream, Code& code, std::uint64_t& value)
{
    return code.count(stream, value, 0xFFFFFFFFu);
}

/// The child count of a node that has at least one (an enum's enumerators,
/// a variant's alternatives): the count minus 1, in [0, max_children - 1].
template <class Stream, class Code>
bool serialize_child_count_from_one(Stream& stream, Code& code, schema_node& node)
{
    std::uint64_t count = node.children - 1;
    if (!code.count(stream, count, schema_limits::max_children - 1))
        return false;
    node.children = static_cast<std::uint32_t>(count + 1);
    return true;
}

/// The walk of the kinds that read as integers, and of those that read as
/// reals (Entry: the kind's entry, which reads the value).
template <class Entry>
struct walks_as_integer {
    template <class Walker>
    static bool walk(Walker& w, std::uint32_t index)
    {
        const schema_node& node = w.tree.nodes[index];
        integer_value value;
        if (!Entry::read_integer(w.stream, node, value))
            return false;
        w.visitor.scalar(node, value);
        return true;
    }
};
template <class Entry>
struct walks_as_real {
    template <class Walker>
    static bool walk(Walker& w, std::uint32_t index)
    {
        const schema_node& node = w.tree.nodes[index];
        double value = 0.0;
        if (!Entry::read_real(w.stream, node, value))
            return false;
        w.visitor.real(node, value);
        return true;
    }
};

// ---------------------------------------------------------------- numbers

struct boolean_kind : kind_base<schema_kind::boolean>, walks_as_integer<boolean_kind> {
    static constexpr std::string_view name = "bool";
    static std::uint64_t fewest_bits(const schema&, std::uint32_t, const std::vector<std::uint64_t>&) { return 1; }
    static bool read_integer(save_read_stream& stream, const schema_node&, integer_value& out)
    {
        bool bit = false;
        out.is_signed = false;
        if (!stream.serialize_bool(bit))
            return false;
        out.pattern = bit ? 1 : 0;
        return true;
    }
};

struct integer_kind : kind_base<schema_kind::integer>, walks_as_integer<integer_kind> {
    static constexpr std::string_view name = "integer";
    static constexpr std::uint32_t loads_from = integer_kinds;

    /// Width 8 << w bits for w in [0, 3].
    template <class Stream, class Code>
    static bool serialize_node(Stream& stream, Code&, schema_node& node, std::size_t)
    {
        std::uint64_t log_bytes = node.bits == 64 ? 3 : node.bits == 32 ? 2 : node.bits == 16 ? 1 : 0;
        if (!stream.serialize_bool(node.is_signed) || !stream.serialize_ranged_offset(log_bytes, 3))
            return false;
        node.bits = 8u << log_bytes;
        return true;
    }
    static std::uint64_t fewest_bits(const schema& tree, std::uint32_t index, const std::vector<std::uint64_t>&)
    {
        return tree.nodes[index].bits;
    }
    static bool same_encoding(const schema_node& a, const schema_node& b) noexcept
    {
        return a.is_signed == b.is_signed && a.bits == b.bits;
    }
    static bool read_integer(save_read_stream& stream, const schema_node& node, integer_value& out)
    {
        out.is_signed = node.is_signed;
        return serialize_integer_pattern(stream, out.pattern, static_cast<int>(node.bits), node.is_signed);
    }
};

struct ranged_kind : kind_base<schema_kind::ranged>, walks_as_integer<ranged_kind> {
    static constexpr std::string_view name = "ranged integer";
    static constexpr std::uint32_t loads_from = integer_kinds;

    template <class Stream, class Code>
    static bool serialize_node(Stream& stream, Code& code, schema_node& node, std::size_t start)
    {
        if (!stream.serialize_bool(node.is_signed) || !code.bounds(stream, node.min, node.max, node.is_signed))
            return false;
        if (node.is_signed ? static_cast<std::int64_t>(node.min) > static_cast<std::int64_t>(node.max)
                           : node.min > node.max) [[unlikely]]
            return refuse_node(stream, start, "schema: ranged minimum above maximum");
        return true;
    }
    static std::uint64_t fewest_bits(const schema& tree, std::uint32_t index, const std::vector<std::uint64_t>&)
    {
        const schema_node& node = tree.nodes[index];
        return static_cast<std::uint64_t>(bits_required_for_span(node.max - node.min));
    }
    static bool same_encoding(const schema_node& a, const schema_node& b) noexcept
    {
        return a.min == b.min && a.max == b.max;
    }
    static bool read_integer(save_read_stream& stream, const schema_node& node, integer_value& out)
    {
        out.is_signed = node.is_signed;
        return serialize_ranged_value(stream, out.pattern, node.min, node.max);
    }
};

struct float32_kind : kind_base<schema_kind::float32>, walks_as_real<float32_kind> {
    static constexpr std::string_view name = "float";
    static constexpr std::uint32_t loads_from = integer_kinds | real_kinds;
    static std::uint64_t fewest_bits(const schema&, std::uint32_t, const std::vector<std::uint64_t>&) { return 32; }
    static bool read_real(save_read_stream& stream, const schema_node&, double& out)
    {
        float value = 0.0f;
        if (!stream.serialize_float(value))
            return false;
        out = value;
        return true;
    }
};

struct float64_kind : kind_base<schema_kind::float64>, walks_as_real<float64_kind> {
    static constexpr std::string_view name = "double";
    static constexpr std::uint32_t loads_from = integer_kinds | real_kinds;
    static std::uint64_t fewest_bits(const schema&, std::uint32_t, const std::vector<std::uint64_t>&) { return 64; }
    static bool read_real(save_read_stream& stream, const schema_node&, double& out)
    {
        return stream.serialize_double(out);
    }
};

struct quantized_kind : kind_base<schema_kind::quantized>, walks_as_real<quantized_kind> {
    static constexpr std::string_view name = "quantized float";
    static constexpr std::uint32_t loads_from = integer_kinds | real_kinds;

    template <class Stream, class Code>
    static bool serialize_node(Stream& stream, Code&, schema_node& node, std::size_t start)
    {
        if (!stream.serialize_float(node.real_min) || !stream.serialize_float(node.real_max) ||
            !stream.serialize_float(node.resolution))
            return false;
        // Also refuses NaN and infinities (every comparison with NaN is false).
        if (!(node.real_min < node.real_max && node.resolution > 0.0f && node.real_max - node.real_min <= 3.4e38f &&
              node.resolution <= 3.4e38f)) [[unlikely]]
            return refuse_node(stream, start, "schema: quantized range or resolution is not valid");
        derive(node);
        return true;
    }
    static void derive(schema_node& node) noexcept
    {
        node.quantizer = quantizer::from_resolution(node.real_min, node.real_max, node.resolution);
    }
    static std::uint64_t fewest_bits(const schema& tree, std::uint32_t index, const std::vector<std::uint64_t>&)
    {
        return static_cast<std::uint64_t>(tree.nodes[index].quantizer.bits);
    }
    static bool same_encoding(const schema_node& a, const schema_node& b) noexcept
    {
        return a.quantizer == b.quantizer;
    }
    static bool read_real(save_read_stream& stream, const schema_node& node, double& out)
    {
        float value = 0.0f;
        if (!stream.serialize_quantized(value, node.quantizer))
            return false;
        out = value;
        return true;
    }
};

// ------------------------------------------------------- other leaf values

struct quat_kind : kind_base<schema_kind::quat> {
    static constexpr std::string_view name = "quaternion";

    template <class Stream, class Code>
    static bool serialize_node(Stream& stream, Code&, schema_node& node, std::size_t)
    {
        std::uint64_t extra = node.bits - 3;
        if (!stream.serialize_ranged_offset(extra, 24 - 3))
            return false;
        node.bits = static_cast<std::uint32_t>(extra + 3);
        derive(node);
        return true;
    }
    static void derive(schema_node& node) noexcept
    {
        node.quantizer = quat_component_quantizer(static_cast<int>(node.bits));
    }
    static std::uint64_t fewest_bits(const schema& tree, std::uint32_t index, const std::vector<std::uint64_t>&)
    {
        return 2 + 3 * std::uint64_t{tree.nodes[index].bits};
    }
    static bool same_encoding(const schema_node& a, const schema_node& b) noexcept { return a.bits == b.bits; }
    template <class Walker>
    static bool walk(Walker& w, std::uint32_t index)
    {
        const schema_node& node = w.tree.nodes[index];
        quat<3> rotation; // any bit count: the layout is the same
        if (!serialize_smallest_three(w.stream, rotation, node.quantizer))
            return false;
        w.visitor.rotation(node, rotation);
        return true;
    }
};

struct enumeration_kind : kind_base<schema_kind::enumeration> {
    static constexpr std::string_view name = "enum";
    static constexpr node_role child_role = node_role::enumerator;

    /// At least one enumerator, as C++ requires of a described enum.
    template <class Stream, class Code>
    static bool serialize_node(Stream& stream, Code& code, schema_node& node, std::size_t)
    {
        return code.text(stream, node.type_name) && stream.serialize_bool(node.is_signed) &&
               serialize_child_count_from_one(stream, code, node);
    }
    static std::uint64_t fewest_bits(const schema& tree, std::uint32_t index, const std::vector<std::uint64_t>&)
    {
        return static_cast<std::uint64_t>(enum_index_bits(tree.nodes[index].children));
    }
    /// The enumerator's declaration index in the file's enumeration.
    static bool read_index(save_read_stream& stream, const schema_node& node, std::uint64_t& index)
    {
        index = 0;
        return serialize_enum_index(stream, index, node.children, stream.position());
    }
    template <class Walker>
    static bool walk(Walker& w, std::uint32_t index)
    {
        std::uint64_t i = 0;
        if (!read_index(w.stream, w.tree.nodes[index], i))
            return false;
        w.visitor.enumerator(w.tree.nodes[index], w.tree.nodes[index + 1 + i]);
        return true;
    }
};

/// Only as a child of an enumeration (a name and a value, read by the
/// enumeration's node encoding); never a value of its own.
struct enumerator_kind : kind_base<schema_kind::enumerator> {
    static constexpr std::string_view name = "enumerator";
    template <class Stream, class Code>
    static bool serialize_node(Stream& stream, Code&, schema_node&, std::size_t start)
    {
        return refuse_node(stream, start, "schema: enumerator outside an enum");
    }
    static std::uint64_t fewest_bits(const schema&, std::uint32_t, const std::vector<std::uint64_t>&) { return 0; }
    template <class Walker>
    static bool walk(Walker& w, std::uint32_t)
    {
        return w.stream.fail(error::schema_mismatch, w.stream.position(), "schema: enumerator outside an enum");
    }
};

struct string_kind : kind_base<schema_kind::string> {
    static constexpr std::string_view name = "string";

    template <class Stream, class Code>
    static bool serialize_node(Stream& stream, Code& code, schema_node& node, std::size_t)
    {
        node.children = 0;
        return serialize_schema_u32(stream, code, node.max);
    }
    /// Its length.
    static std::uint64_t fewest_bits(const schema& tree, std::uint32_t index, const std::vector<std::uint64_t>&)
    {
        return static_cast<std::uint64_t>(string_length_bits(tree.nodes[index].max));
    }
    static bool same_encoding(const schema_node& a, const schema_node& b) noexcept { return a.max == b.max; }
    template <class Walker>
    static bool walk(Walker& w, std::uint32_t index)
    {
        const schema_node& node = w.tree.nodes[index];
        std::string text;
        if (!w.stream.serialize_string(text, node.max + 1))
            return false;
        w.visitor.text(node, text);
        return true;
    }
};

// ------------------------------------------------------------- composites

/// Vectors and arrays: a count (a vector's, in [0, max]; an array's is its
/// node's), then the elements by the one child.
template <schema_kind K>
struct list_kind : kind_base<K> {
    static constexpr std::uint32_t loads_from = list_kinds;

    template <class Stream, class Code>
    static bool serialize_node(Stream& stream, Code& code, schema_node& node, std::size_t)
    {
        node.children = 1;
        return serialize_schema_u32(stream, code, node.max);
    }
    static bool same_encoding(const schema_node& a, const schema_node& b) noexcept { return a.max == b.max; }

    /// How many elements this value holds.
    static bool read_count(save_read_stream& stream, const schema_node& node, std::uint64_t& count)
    {
        if constexpr (K == schema_kind::array) {
            static_cast<void>(stream);
            count = node.max;
            return true;
        } else {
            return serialize_count(stream, count, node.max);
        }
    }
    template <class Walker>
    static bool walk(Walker& w, std::uint32_t index)
    {
        const schema_node& node = w.tree.nodes[index];
        std::uint64_t count = 0;
        if (!read_count(w.stream, node, count)) // the walk allocates nothing per element
            return false;
        w.visitor.begin_list(node, count);
        for (std::uint64_t i = 0; i < count; ++i) {
            if (!w.value(index + 1)) {
                w.stream.enter_index(static_cast<std::size_t>(i));
                return false;
            }
        }
        w.visitor.end_list();
        return true;
    }
};

struct vector_kind : list_kind<schema_kind::vector> {
    static constexpr std::string_view name = "vector";
    /// Its count.
    static std::uint64_t fewest_bits(const schema& tree, std::uint32_t index, const std::vector<std::uint64_t>&)
    {
        return static_cast<std::uint64_t>(count_bits(tree.nodes[index].max));
    }
};

/// Saturates at 2^62: counts multiply.
inline constexpr std::uint64_t fewest_bits_cap = std::uint64_t{1} << 62;

struct array_kind : list_kind<schema_kind::array> {
    static constexpr std::string_view name = "array";
    static std::uint64_t fewest_bits(const schema& tree, std::uint32_t index, const std::vector<std::uint64_t>& min_bits)
    {
        const std::uint64_t count = tree.nodes[index].max;
        const std::uint64_t each = min_bits[index + 1];
        return each == 0 ? 0 : (count > fewest_bits_cap / each ? fewest_bits_cap : count * each);
    }
};

struct optional_kind : kind_base<schema_kind::optional> {
    static constexpr std::string_view name = "optional";

    template <class Stream, class Code>
    static bool serialize_node(Stream&, Code&, schema_node& node, std::size_t)
    {
        node.children = 1;
        return true;
    }
    /// Its presence bit.
    static std::uint64_t fewest_bits(const schema&, std::uint32_t, const std::vector<std::uint64_t>&) { return 1; }
    template <class Walker>
    static bool walk(Walker& w, std::uint32_t index)
    {
        bool present = false;
        if (!w.stream.serialize_bool(present))
            return false;
        if (!present) {
            w.visitor.absent(w.tree.nodes[index]);
            return true;
        }
        return w.value(index + 1);
    }
};

struct structure_kind : kind_base<schema_kind::structure> {
    static constexpr std::string_view name = "struct";
    static constexpr node_role child_role = node_role::field;

    /// Type names do not change a struct's encoding, except a duration's:
    /// its name is its period, and its count means another length in
    /// another period. Another version reads alike, but its values need
    /// their migrate.
    static bool same_encoding(const schema_node& a, const schema_node& b) noexcept
    {
        return a.version == b.version &&
               (a.type_name == b.type_name ||
                (!a.type_name.starts_with(duration_name_prefix) && !b.type_name.starts_with(duration_name_prefix)));
    }

    template <class Stream, class Code>
    static bool serialize_node(Stream& stream, Code& code, schema_node& node, std::size_t)
    {
        std::uint64_t count = node.children;
        if (!code.text(stream, node.type_name) ||
            !code.count(stream, count, schema_limits::max_children) || !code.version(stream, node.version))
            return false;
        node.children = static_cast<std::uint32_t>(count);
        return true;
    }
    static std::uint64_t fewest_bits(const schema& tree, std::uint32_t index, const std::vector<std::uint64_t>& min_bits)
    {
        std::uint64_t sum = 0;
        for (std::uint32_t c = index + 1; c < tree.nodes[index].end; c = tree.nodes[c].end) {
            sum += min_bits[c];
            sum = sum < fewest_bits_cap ? sum : fewest_bits_cap;
        }
        return sum;
    }
    template <class Walker>
    static bool walk(Walker& w, std::uint32_t index)
    {
        const schema_node& node = w.tree.nodes[index];
        w.visitor.begin_struct(node);
        for (std::uint32_t child = index + 1; child < node.end; child = w.tree.nodes[child].end) {
            w.visitor.field(w.tree.nodes[child]);
            if (!w.value(child)) {
                enter_schema_field(w.stream.failure(), w.tree.nodes[child]);
                return false;
            }
        }
        w.visitor.end_struct();
        return true;
    }
};

/// A serialization hook's own bits: its length is the hook's, so a value
/// cannot be read without the program that wrote it.
struct opaque_kind : kind_base<schema_kind::opaque> {
    static constexpr std::string_view name = "hook-serialized type";

    template <class Stream, class Code>
    static bool serialize_node(Stream& stream, Code& code, schema_node& node, std::size_t)
    {
        return code.text(stream, node.type_name) && code.version(stream, node.version);
    }
    static std::uint64_t fewest_bits(const schema&, std::uint32_t, const std::vector<std::uint64_t>&) { return 0; }
    /// A type name decides whose bits they are (a struct's does not change
    /// its encoding: a renamed struct reads the same); another version's
    /// values need their migrate.
    static bool same_encoding(const schema_node& a, const schema_node& b) noexcept
    {
        return a.type_name == b.type_name && a.version == b.version;
    }
    template <class Walker>
    static bool walk(Walker& w, std::uint32_t index)
    {
        w.visitor.opaque(w.tree.nodes[index]);
        return w.stream.fail(error::schema_mismatch, w.stream.position(),
                             "a hook-serialized value cannot be read without the program that wrote it");
    }
};

/// A variant: the alternative's index among the children, then the value
/// by that child. Its children are the alternatives, each named by its
/// type (a class's or an enum's stable name; empty for other kinds) with
/// its index as its position.
struct variant_kind : kind_base<schema_kind::variant> {
    static constexpr std::string_view name = "variant";
    static constexpr node_role child_role = node_role::field;

    /// At least one alternative, as C++ requires of a std::variant.
    template <class Stream, class Code>
    static bool serialize_node(Stream& stream, Code& code, schema_node& node, std::size_t)
    {
        return serialize_child_count_from_one(stream, code, node);
    }
    /// Its index, and its smallest alternative.
    static std::uint64_t fewest_bits(const schema& tree, std::uint32_t index, const std::vector<std::uint64_t>& min_bits)
    {
        std::uint64_t smallest = fewest_bits_cap;
        for (std::uint32_t c = index + 1; c < tree.nodes[index].end; c = tree.nodes[c].end)
            smallest = std::min(smallest, min_bits[c]);
        return static_cast<std::uint64_t>(enum_index_bits(tree.nodes[index].children)) + smallest;
    }
    /// Reads the index and finds the alternative's node. Each step past a
    /// sibling counts against the walk's budget, as a value does, so that a
    /// forged file of 4,096 alternatives read at the last one cannot cost
    /// thousands of steps per 12 bits of payload.
    static bool read_alternative(save_read_stream& stream, const schema& tree, std::uint32_t index,
                                 std::uint32_t& alternative, walk_budget& budget)
    {
        const schema_node& node = tree.nodes[index];
        std::uint64_t which = 0;
        if (!serialize_alternative_index(stream, which, node.children, stream.position()))
            return false;
        if (which > budget.values_left) [[unlikely]]
            return stream.fail(error::corrupt, stream.position(), "more values than the payload could hold");
        budget.values_left -= which;
        alternative = index + 1;
        for (std::uint64_t i = 0; i < which; ++i)
            alternative = tree.nodes[alternative].end;
        return true;
    }
    template <class Walker>
    static bool walk(Walker& w, std::uint32_t index)
    {
        std::uint32_t alternative = 0;
        if (!read_alternative(w.stream, w.tree, index, alternative, w.budget))
            return false;
        w.visitor.begin_variant(w.tree.nodes[index], w.tree.nodes[alternative]);
        if (!w.value(alternative)) {
            enter_schema_alternative(w.stream.failure(), w.tree.nodes[alternative]);
            return false;
        }
        w.visitor.end_variant();
        return true;
    }
};

/// The one switch over schema_kind: calls `f` with the kind's entry (an
/// empty object whose static members are the kind's operations). Every
/// kind a parsed or built schema holds is in range.
template <class F>
constexpr decltype(auto) with_kind(schema_kind kind, F&& f)
{
    switch (kind) {
    case schema_kind::boolean: return f(boolean_kind{});
    case schema_kind::integer: return f(integer_kind{});
    case schema_kind::ranged: return f(ranged_kind{});
    case schema_kind::float32: return f(float32_kind{});
    case schema_kind::float64: return f(float64_kind{});
    case schema_kind::quantized: return f(quantized_kind{});
    case schema_kind::quat: return f(quat_kind{});
    case schema_kind::enumeration: return f(enumeration_kind{});
    case schema_kind::enumerator: break;
    case schema_kind::string: return f(string_kind{});
    case schema_kind::vector: return f(vector_kind{});
    case schema_kind::array: return f(array_kind{});
    case schema_kind::optional: return f(optional_kind{});
    case schema_kind::structure: return f(structure_kind{});
    case schema_kind::opaque: return f(opaque_kind{});
    case schema_kind::variant: return f(variant_kind{});
    }
    return f(enumerator_kind{});
}

} // namespace bitrep::detail

