// bitrep-inspect FILE: prints a save file's header, its schema and every
// value it holds as JSON, without the program that wrote it. Everything it
// knows comes from the file itself (docs/formats/save-format.md): the header is
// checked, the schema is parsed and the payload is walked by that schema,
// with the same bounded readers the schema-driven load uses, so a hostile
// file is refused with one line on stderr rather than crashing the tool.
// With --salvage, a damaged file is not refused: what can be read up to the
// damage is printed, with where and why reading stopped (exit code 3).
#include <bitrep/save/file_io.hpp>
#include <bitrep/save/save.hpp>
#include <bitrep/save/schema.hpp>
#include <bitrep/status.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

// The walk by a file's own schema is the library's (src/), not installed.
#include "schema_walk.hpp"

#ifndef BITREP_VERSION
#define BITREP_VERSION "unknown"
#endif

namespace {

using bitrep::schema;
using bitrep::schema_kind;
using bitrep::schema_node;
using bitrep::status;

// Insertion-ordered, so that fields print in declaration order, not sorted.
using json = nlohmann::ordered_json;

// Larger files are refused before anything is allocated for them.
constexpr std::size_t max_file_bytes = std::size_t{1} << 30;

std::string hex(std::uint64_t value, int digits)
{
    char text[24];
    std::snprintf(text, sizeof text, "0x%0*llx", digits, static_cast<unsigned long long>(value));
    return text;
}

json integer_json(std::uint64_t pattern, bool is_signed)
{
    if (is_signed)
        return static_cast<std::int64_t>(pattern);
    return pattern;
}

// JSON has no NaN or infinity; a raw float field may hold them, and null
// would hide which one it was.
json non_finite_json(double value)
{
    if (std::isnan(value))
        return "NaN";
    return value > 0 ? "Infinity" : "-Infinity";
}

// A value that was a float in the file prints as the shortest decimal that
// reads back as that float (12.34, not 12.340000152587891): the double
// nearest to that decimal is what the JSON writer then prints exactly.
json float_json(double widened)
{
    if (!std::isfinite(widened))
        return non_finite_json(widened);
    char text[32];
    const auto written = std::to_chars(text, text + sizeof text, static_cast<float>(widened));
    double shortest = widened;
    if (written.ec != std::errc{} || std::from_chars(text, written.ptr, shortest).ec != std::errc{})
        return widened;
    return shortest;
}

// A decimal: significand / 10^places, with its sign.
struct decimal {
    bool negative = false;
    std::uint64_t significand = 0;
    int places = 0;
};

// As a reader parses it ("-2198e-1"); to_chars and from_chars use no locale.
std::string decimal_text(const decimal& number)
{
    std::array<char, 24> digits{}; // 20 digits of a 64-bit significand at most
    std::string text = number.negative ? "-" : "";
    text.append(digits.data(), std::to_chars(digits.data(), digits.data() + digits.size(), number.significand).ptr);
    text += 'e';
    text.append(digits.data(), std::to_chars(digits.data(), digits.data() + digits.size(), -number.places).ptr);
    return text;
}

// The decimals of `places` places around `value`: the nearest (to_chars
// rounds exactly), then its neighbours below and above in magnitude, which
// hold the other of the two on either side of `value`. None when the
// digits do not fit in 64 bits.
std::vector<decimal> decimals_around(float value, int places)
{
    char text[128]; // 39 digits before the point at most, then `places`
    const char* const end =
        std::to_chars(text, text + sizeof text, std::fabs(value), std::chars_format::fixed, places).ptr;
    std::uint64_t nearest = 0;
    for (const char* at = text; at != end; ++at) {
        if (*at == '.')
            continue;
        const auto digit = static_cast<std::uint64_t>(*at - '0');
        if (nearest > (UINT64_MAX - digit) / 10)
            return {};
        nearest = nearest * 10 + digit;
    }
    const bool negative = std::signbit(value);
    std::vector<decimal> around{{negative && nearest != 0, nearest, places}};
    if (nearest != 0)
        around.push_back({negative && nearest != 1, nearest - 1, places});
    if (nearest != UINT64_MAX)
        around.push_back({negative, nearest + 1, places});
    return around;
}

// A quantized value prints as the shortest decimal that a reader, parsing it
// as a float and quantizing it as the field does (min, max and resolution
// from the schema), turns into the quantum the value is saved as: 219.8, not
// the float 219.79999 it decodes to. Each candidate is checked by the
// field's own quantization, so the text is exact. The decimals that give one
// quantum form an interval around the value (parsing and quantizing are
// monotone), so of those with n places only the two around the value can be
// in it. Enough places read back as the float itself, which is in it.
json quantized_json(const bitrep::quantizer& quantizer, double widened)
{
    const auto value = static_cast<float>(widened);
    if (!std::isfinite(value))
        return non_finite_json(widened);
    const std::uint32_t quantum = quantizer.stable_quantize(value);
    constexpr int most_places = 60; // the smallest floats read back with fewer
    for (int places = 0; places <= most_places; ++places) {
        const std::vector<decimal> around = decimals_around(value, places);
        for (const decimal& candidate : around) {
            const std::string text = decimal_text(candidate);
            const char* const end = text.data() + text.size();
            float parsed = 0.0f;
            double shortest = 0.0;
            if (std::from_chars(text.data(), end, parsed).ec == std::errc{} &&
                quantizer.stable_quantize(parsed) == quantum &&
                std::from_chars(text.data(), end, shortest).ec == std::errc{})
                return shortest; // printed by the JSON writer as exactly these digits
        }
        if (around.empty())
            break;
    }
    return float_json(widened);
}

json double_json(double value)
{
    if (!std::isfinite(value))
        return non_finite_json(value);
    return value;
}

std::uint32_t index_of(const schema& tree, const schema_node& node)
{
    return static_cast<std::uint32_t>(&node - tree.nodes.data());
}

// Each struct field's (and variant alternative's) key in the value, by node:
// its name, or "#<position>" for an aggregate's field (Boost.PFR cannot name
// it) or an alternative without one, as status paths show it. Computed once per schema rather than once per value, and unique within
// each struct (a forged schema may repeat a name: the repeats become
// "name~2", "name~3", ...), so that the builder appends without lookups.
std::vector<std::string> field_keys(const schema& tree)
{
    std::vector<std::string> keys(tree.nodes.size());
    for (std::uint32_t index = 0; index < tree.nodes.size(); ++index) {
        const schema_node& node = tree.nodes[index];
        if (node.kind != schema_kind::structure && node.kind != schema_kind::variant)
            continue;
        std::set<std::string, std::less<>> taken;
        // Per name, the last suffix tried: linear however many repeats.
        std::map<std::string, std::uint32_t, std::less<>> last_suffix;
        for (std::uint32_t child = index + 1; child < node.end; child = tree.nodes[child].end) {
            const schema_node& field = tree.nodes[child];
            const std::string name = field.name.empty() ? "#" + std::to_string(field.position) : field.name;
            std::string key = name;
            if (taken.contains(key)) {
                std::uint32_t& suffix = last_suffix.try_emplace(name, 1).first->second;
                do
                    key = name + "~" + std::to_string(++suffix);
                while (taken.contains(key));
            }
            taken.insert(key);
            keys[child] = std::move(key);
        }
    }
    return keys;
}

json schema_json(const schema& tree, std::uint32_t index, bool versions);

/// A number's attributes: its signedness and range where it has them, and
/// its width on the wire.
void number_json(json& out, const schema_node& node)
{
    switch (node.kind) {
    case schema_kind::integer:
        out["signed"] = node.is_signed;
        out["bits"] = node.bits;
        break;
    case schema_kind::ranged:
        out["signed"] = node.is_signed;
        out["min"] = integer_json(node.min, node.is_signed);
        out["max"] = integer_json(node.max, node.is_signed);
        out["bits"] = bitrep::bits_required_for_span(node.max - node.min);
        break;
    case schema_kind::quantized:
        out["min"] = float_json(node.real_min);
        out["max"] = float_json(node.real_max);
        out["resolution"] = float_json(node.resolution);
        out["bits"] = node.quantizer.bits;
        break;
    default: // quat
        out["bits_per_component"] = node.bits;
        out["bits"] = 2 + 3 * node.bits;
        break;
    }
}

/// The enumerators of enumeration node `index`, which follow it in the tree.
json enumerators_json(const schema& tree, std::uint32_t index)
{
    const schema_node& node = tree.nodes[index];
    json enumerators = json::array();
    for (std::uint32_t e = index + 1; e < node.end; ++e)
        enumerators.push_back({{"name", tree.nodes[e].name}, {"value", integer_json(tree.nodes[e].min, node.is_signed)}});
    return enumerators;
}

/// The children of node `index` in order: a structure's fields or a
/// variant's alternatives.
json children_json(const schema& tree, std::uint32_t index, bool versions)
{
    json children = json::array();
    for (std::uint32_t child = index + 1; child < tree.nodes[index].end; child = tree.nodes[child].end)
        children.push_back(schema_json(tree, child, versions));
    return children;
}

// Recursion is bounded by parse_schema, which refuses trees deeper than
// schema_limits::max_depth. `versions`: the file records each struct's and
// hook type's save_version (format 4).
json schema_json(const schema& tree, std::uint32_t index, bool versions)
{
    const schema_node& node = tree.nodes[index];
    json out = json::object();
    if (bitrep::detail::role_in(tree, node) == bitrep::detail::node_role::field) {
        if (!node.name.empty())
            out["name"] = node.name;
        out["position"] = node.position;
    }
    out["kind"] = std::string(bitrep::to_string(node.kind));
    switch (node.kind) {
    case schema_kind::boolean:
    case schema_kind::float32:
    case schema_kind::float64:
    case schema_kind::enumerator:
        break;
    case schema_kind::integer:
    case schema_kind::ranged:
    case schema_kind::quantized:
    case schema_kind::quat:
        number_json(out, node);
        break;
    case schema_kind::enumeration:
        out["type"] = node.type_name;
        out["signed"] = node.is_signed;
        out["enumerators"] = enumerators_json(tree, index);
        break;
    case schema_kind::string:
        out["max_length"] = node.max;
        break;
    case schema_kind::vector:
        out["max_size"] = node.max;
        out["element"] = schema_json(tree, index + 1, versions);
        break;
    case schema_kind::array:
        out["count"] = node.max;
        out["element"] = schema_json(tree, index + 1, versions);
        break;
    case schema_kind::optional:
        out["element"] = schema_json(tree, index + 1, versions);
        break;
    case schema_kind::structure:
        out["type"] = node.type_name;
        if (versions)
            out["save_version"] = node.version;
        out["fields"] = children_json(tree, index, versions);
        break;
    case schema_kind::opaque:
        out["type"] = node.type_name;
        if (versions)
            out["save_version"] = node.version;
        break;
    case schema_kind::variant:
        out["index_bits"] = bitrep::detail::enum_index_bits(node.children);
        out["alternatives"] = children_json(tree, index, versions);
        break;
    }
    return out;
}

/// A walk_value visitor that builds the value as JSON. Containers are
/// filled in place (a stack of the open ones), so when the walk stops early
/// at a hook-serialized value, everything read so far is already in the tree.
class json_builder {
public:
    explicit json_builder(const schema& tree) : tree_(tree), keys_(field_keys(tree)) {}

    void scalar(const schema_node& node, const bitrep::detail::integer_value& value)
    {
        if (node.kind == schema_kind::boolean)
            place(value.pattern != 0);
        else
            place(integer_json(value.pattern, value.is_signed));
    }
    void real(const schema_node& node, double value)
    {
        if (node.kind == schema_kind::quantized)
            place(quantized_json(node.quantizer, value));
        else
            place(node.kind == schema_kind::float64 ? double_json(value) : float_json(value));
    }
    void rotation(const schema_node&, const bitrep::quat<3>& q)
    {
        place({{"x", float_json(q.x)}, {"y", float_json(q.y)}, {"z", float_json(q.z)}, {"w", float_json(q.w)}});
    }
    void enumerator(const schema_node&, const schema_node& which) { place(which.name); }
    void text(const schema_node&, std::string& value) { place(std::move(value)); }
    void absent(const schema_node&) { place(nullptr); }

    // No reserve(count): the count is the file's claim, and each element
    // is paid for by the walk's budget only as it is read.
    void begin_list(const schema_node& node, std::uint64_t) { open(json::array(), node, true); }
    void end_list() { open_.pop_back(); }
    void begin_struct(const schema_node& node) { open(json::object(), node, false); }
    void field(const schema_node& field) { last_field_ = index_of(tree_, field); }
    void end_struct() { open_.pop_back(); }
    /// A variant is an object of one member: its alternative's name (`#`
    /// and its index for one without), then its value.
    void begin_variant(const schema_node& node, const schema_node& alternative)
    {
        open(json::object(), node, false);
        last_field_ = index_of(tree_, alternative);
    }
    void end_variant() { open_.pop_back(); }

    /// The walk stops at a hook-serialized value (its length is the
    /// hook's secret): it is shown as such where it belongs.
    void opaque(const schema_node& node)
    {
        place("<opaque " + node.type_name + ": written by a serialization hook>");
        stopped_at_hook_ = true;
    }
    bool stopped_at_hook() const noexcept { return stopped_at_hook_; }

    json take() { return std::move(root_); }

private:
    struct open_container {
        json* value;
        std::uint32_t node;
        bool is_list;
    };

    // References stay valid while a container is open: only the innermost
    // open container ever grows, and each ancestor holds its open child as
    // its last-added element.
    json& place(json value)
    {
        if (open_.empty()) {
            root_ = std::move(value);
            return root_;
        }
        json& parent = *open_.back().value;
        if (open_.back().is_list) {
            parent.push_back(std::move(value));
            return parent.back();
        }
        // ordered_map's own insertion looks the key up linearly, which is
        // quadratic in a struct's field count: a forged file of 256 structs
        // of 4096 fields took minutes. The keys are unique (field_keys).
        json::object_t& fields = parent.get_ref<json::object_t&>();
        fields.emplace_back(keys_[last_field_], std::move(value));
        return fields.back().second;
    }
    void open(json empty, const schema_node& node, bool is_list)
    {
        json& value = place(std::move(empty));
        open_.push_back({&value, index_of(tree_, node), is_list});
    }

    const schema& tree_;
    std::vector<std::string> keys_;
    json root_;
    std::vector<open_container> open_;
    std::uint32_t last_field_ = 0;
    bool stopped_at_hook_ = false;
};

/// How the file is read: refusing any damage, or (--salvage) reading up
/// to it and saying where it is.
struct reading {
    bool schema_only = false;
    bool salvage = false;
    bitrep::schema_encoding encoding = bitrep::schema_encoding::compact; ///< the file format's
    json damage = json::array(); ///< --salvage: what is wrong besides where reading stopped
};

/// Where and why reading stopped, for --salvage.
json stop_json(std::string_view section, const status& why)
{
    json out = {{"section", section}, {"bit", why.bit_offset()}};
    if (!why.field_path().empty())
        out["field"] = why.field_path();
    out["error"] = std::string(bitrep::to_string(why.code()));
    out["reason"] = why.detail();
    return out;
}

/// One section of a save, its schema and (unless schema_only) its value,
/// into `out` ("schema", "value", "complete"). Offsets are in bits from
/// the file's start, for messages. When the payload is damaged, `out`
/// holds the value as far as it was read ("complete" false) and the
/// failure is returned.
status section_json(std::span<const std::uint8_t> schema_bytes, std::span<const std::uint8_t> payload,
                    std::uint64_t payload_bits, std::size_t schema_offset, std::size_t payload_offset,
                    const reading& how, json& out)
{
    schema tree;
    if (status parsed = bitrep::parse_schema(schema_bytes, tree, how.encoding); !parsed)
        return bitrep::detail::payload_status(parsed, schema_offset);
    out["schema"] = schema_json(tree, 0, how.encoding == bitrep::schema_encoding::compact_versioned);
    if (how.schema_only)
        return {};
    const schema_node& root = tree.nodes[0];
    const std::string_view root_name = root.type_name.empty() ? std::string_view("payload") : root.type_name;
    bitrep::failure_record failure;
    bitrep::detail::save_read_stream stream(payload, failure);
    // The same allowance as the schema-driven load: one value per payload
    // bit, plus room for zero-bit values (empty structs, one-value ranges);
    // the bits the file holds, should a salvaged header claim more.
    bitrep::detail::walk_budget budget =
        bitrep::detail::walk_budget::for_payload(std::min<std::uint64_t>(payload_bits, payload.size() * 8));
    json_builder builder(tree);
    const bool complete = bitrep::detail::walk_value(stream, tree, 0, builder, budget);
    out["complete"] = complete;
    out["value"] = builder.take();
    // Only a hook's bits stop an intact payload; its length is private to
    // the hook, so nothing after it can be located.
    if (!complete && !builder.stopped_at_hook())
        return bitrep::detail::payload_status(stream.failure_status(root_name), payload_offset);
    if (complete && stream.bit_position() != payload_bits)
        return status(bitrep::error::corrupt, payload_offset + stream.bit_position(), root_name,
                      "the payload's length differs from the value's");
    return {};
}

/// The bytes of [offset, offset + size) that the file holds: all of them
/// unless it is cut short (--salvage reads a file whose lengths are wrong).
std::span<const std::uint8_t> held(std::span<const std::uint8_t> file, std::uint64_t offset, std::uint64_t size)
{
    if (offset >= file.size())
        return {};
    return file.subspan(static_cast<std::size_t>(offset),
                        static_cast<std::size_t>(std::min<std::uint64_t>(size, file.size() - offset)));
}

/// --salvage: a header whose fields agree with each other is used even
/// when the file's length or CRCs do not agree with it; what is wrong goes
/// into how.damage. Refuses only a header that cannot be read at all.
status salvage_header(std::span<const std::uint8_t> file, bitrep::save_header& header, reading& how)
{
    const status checked = bitrep::read_save_header(file, header);
    if (checked)
        return {};
    const status fields = bitrep::detail::parse_save_header(file, file.size(), header);
    if (!fields) {
        // The lengths against the file's: do the fields agree with a file
        // of the length they give?
        bitrep::save_header claimed;
        if (header.header_bytes() > file.size() ||
            !bitrep::detail::parse_save_header(file, header.file_bytes(), claimed))
            return fields;
        how.damage.push_back(stop_json("header", fields));
        how.damage.back()["reason"] = "the file is " + std::to_string(file.size()) + " bytes, its header gives " +
                                      std::to_string(header.file_bytes()) + " (so its CRCs cannot be checked)";
        return {};
    }
    if (header.format >= 2 && file.size() >= bitrep::save_header::extended_size + header.metadata_bytes() &&
        bitrep::detail::save_info_crc(file, static_cast<std::size_t>(header.metadata_bytes())) != header.info_crc)
        how.damage.push_back(stop_json("header", status(bitrep::error::corrupt, bitrep::detail::info_crc_offset * 8,
                                                        "header", "CRC-32 of the header and metadata mismatch")));
    if (bitrep::detail::save_crc(file) != header.crc)
        how.damage.push_back(stop_json(
            "file", status(bitrep::error::corrupt, bitrep::detail::crc_offset * 8, "header",
                           "CRC-32 mismatch: some byte differs from what was written, so values read may be wrong")));
    return {};
}

json header_json(const bitrep::save_header& header)
{
    json out = {
        {"format", header.format},
        {"save_version", header.save_version},
        {"fingerprint", hex(header.fingerprint, 16)},
        {"schema_bytes", header.schema_bytes},
        {"payload_bits", header.payload_bits},
        {"crc32", hex(header.crc, 8)},
        {"file_bytes", header.file_bytes()},
    };
    if (header.format >= 2) {
        out["compression"] = header.compressed() ? "zstd" : "none";
        out["stored_payload_bytes"] = header.stored_payload_bytes;
        out["metadata_schema_bytes"] = header.metadata_schema_bytes;
        out["metadata_bits"] = header.metadata_bits;
        out["info_crc32"] = hex(header.info_crc, 8);
    }
    return out;
}

/// The metadata section into document["metadata"]; --salvage marks where
/// it stopped there and goes on to the value, which does not depend on it.
status metadata_json(std::span<const std::uint8_t> file, const bitrep::save_header& header, const reading& how,
                     json& document)
{
    const std::size_t schema_at = bitrep::save_header::extended_size;
    const std::size_t payload_at = schema_at + header.metadata_schema_bytes;
    json metadata = json::object();
    const status read = section_json(held(file, schema_at, header.metadata_schema_bytes),
                                     held(file, payload_at, header.metadata_bytes() - header.metadata_schema_bytes),
                                     header.metadata_bits, schema_at * 8, payload_at * 8, how, metadata);
    if (!read && !how.salvage)
        return read;
    if (!read)
        metadata["stopped"] = stop_json(metadata.contains("schema") ? "value" : "schema", read);
    document["metadata"] = std::move(metadata);
    return {};
}

/// Reads `path` and fills `document`. Any failure is the file's: without
/// --salvage the file is refused; with it, a failure after the header is
/// marked in the document (document["stopped"]) and returned.
status inspect(const std::string& path, reading& how, json& document)
{
    std::vector<std::uint8_t> bytes;
    if (status read = bitrep::detail::read_file(path, bytes, max_file_bytes); !read)
        return read;
    const std::span<const std::uint8_t> file(bytes);
    bitrep::save_header header;
    if (status checked = how.salvage ? salvage_header(file, header, how) : bitrep::read_save_header(file, header);
        !checked)
        return checked;
    how.encoding = header.schema_encoding();
    document["file"] = path;
    document["header"] = header_json(header);
    if (header.has_metadata())
        if (status read = metadata_json(file, header, how, document); !read)
            return read;
    const std::uint64_t schema_at = header.schema_offset();
    const std::uint64_t payload_at = header.payload_offset();
    const std::span<const std::uint8_t> schema_bytes = held(file, schema_at, header.schema_bytes);
    std::span<const std::uint8_t> payload = held(file, payload_at, header.stored_bytes());
    std::vector<std::uint8_t> inflated;
    status inflated_ok;
    if (!how.schema_only && header.compressed()) {
        // As the loader: inflated only up to what the file's schema allows.
        schema tree;
        const std::uint64_t bound =
            bitrep::parse_schema(schema_bytes, tree, how.encoding) ? bitrep::max_payload_bits(tree) : 0;
        inflated_ok = payload.size() < header.stored_bytes()
                          ? status(bitrep::error::truncated, file.size() * 8, "payload",
                                   "the file ends inside the compressed payload")
                          : bitrep::detail::inflate_payload(file, header, bound, max_file_bytes, inflated, payload);
        if (!inflated_ok && !how.salvage)
            return inflated_ok;
    }
    reading section = how;
    section.schema_only = how.schema_only || !inflated_ok; // --salvage: the schema, at least
    json value;
    status read = section_json(schema_bytes, payload, header.payload_bits, static_cast<std::size_t>(schema_at) * 8,
                               static_cast<std::size_t>(payload_at) * 8, section, value);
    if (value.contains("schema"))
        document["schema"] = std::move(value["schema"]);
    if (value.contains("value")) {
        document["complete"] = value["complete"];
        document["value"] = std::move(value["value"]);
    }
    if (read && !inflated_ok) {
        read = inflated_ok;
        document["stopped"] = stop_json("payload", read);
    } else if (!read) {
        document["stopped"] = stop_json(value.contains("schema") ? "value" : "schema", read);
    }
    return read;
}

// The one stderr line must stay one line whatever the file's name holds.
std::string single_line(std::string text)
{
    for (char& c : text)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            c = '?';
    return text;
}

int fail(const std::string& path, std::string_view why)
{
    const std::string line = single_line("bitrep-inspect: " + path + ": " + std::string(why)) + "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
    return 1;
}

} // namespace

// NOLINTNEXTLINE(bugprone-exception-escape): only CLI11's set-up above the first try can throw (std::bad_alloc), before anything is read
int main(int argc, char** argv)
{
    CLI::App app{"Prints a bitrep save file's header, schema and values as JSON, without the program that wrote it.",
                 "bitrep-inspect"};
    std::string path;
    reading how;
    bool compact = false;
    app.add_option("FILE", path, "The save file")->required();
    app.add_flag("--schema-only", how.schema_only, "Print the header and schema, not the values");
    app.add_flag("--salvage", how.salvage,
                 "For a damaged file: print everything up to the damage, mark where and why reading stopped "
                 "(\"stopped\", \"damage\"), and exit with 3");
    app.add_flag("--compact", compact, "Print the JSON on one line");
    app.set_version_flag("--version", std::string("bitrep-inspect " BITREP_VERSION " (save file format ") +
                                          std::to_string(bitrep::save_header::versioned_format) + ")");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help and --version exit 0; CLI11's own codes for usage errors
        // (100+) are mapped to the conventional 2.
        return app.exit(e) == 0 ? 0 : 2;
    }

    std::string text;
    bool damaged = false;
    try {
        json document = json::object();
        const status result = inspect(path, how, document);
        damaged = !result || !how.damage.empty();
        if (!result && (!how.salvage || !document.contains("header")))
            return fail(path, result.message());
        if (!how.damage.empty())
            document["damage"] = std::move(how.damage);
        // Strings were checked as UTF-8 when read; replacing what is not
        // keeps a forged name from making the writer throw.
        text = document.dump(compact ? -1 : 2, ' ', false, json::error_handler_t::replace);
        text += '\n';
    } catch (const std::exception& e) {
        // Out of memory for a very large payload's tree, in practice.
        return fail(path, e.what());
    }
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
        return fail(path, "cannot write to standard output: " + std::generic_category().message(errno));
    return damaged ? 3 : 0;
}
