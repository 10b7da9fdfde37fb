// Save files: save / load to disk, save_to_bytes / load_from_bytes in
// memory, one format (docs/formats/save-format.md): a checked header, the schema of
// T's saved fields, and the payload in the core wire format with
// scope::save. Loading is all or nothing, refuses any damaged file, and
// carries a file written by an older shape of T over into the current one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>


#include <bitrep/detail/migrate.hpp>
#include <bitrep/detail/working_object.hpp>
#include <bitrep/bytes.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/save/file_io.hpp>
#include <bitrep/save/header.hpp>
#include <bitrep/save/schema.hpp>
#include <bitrep/save/schema_bind.hpp>
#include <bitrep/serialize.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep {

/// How a save's payload is stored.
enum class save_compression : std::uint8_t {
    none,
    /// zstd (needs bitrep built with libzstd-dev). Kept only when it makes
    /// the payload smaller; the header records which.
    zstd,
};

struct save_options {
    /// Keep the previous save as `<path>.bak` (replaced atomically too): a
    /// hard link, or a copy on a file system without hard links, which reads
    /// and writes the previous save once more; save_outcome::backup_copied
    /// says when it did (save's `outcome`, save_handle::outcome()).
    bool keep_backup = false;
    save_compression compression = save_compression::none;
    /// zstd's level: 1 (fastest) to 19 (smallest); 3 is zstd's default.
    int compression_level = 3;
};

struct load_options {
    /// A larger file (or a compressed payload that would decompress to
    /// more) is refused before anything is allocated for it.
    std::size_t max_file_bytes = std::size_t{1} << 30;
    /// read_save_info refuses a larger metadata section before reading it.
    std::size_t max_metadata_bytes = std::size_t{1} << 20;
    /// A file written before fields were removed (or stopped being saved)
    /// holds data the load leaves behind. By default that is allowed and
    /// listed in load_info::dropped_fields; with this set, such a file is
    /// refused (schema_mismatch, naming the first such field) and the
    /// destination stays as it was.
    bool refuse_dropped_fields = false;
    /// A file whose described struct lists its fields in another order than
    /// the program's loads each value into its own field (matched by name)
    /// and lists the struct in load_info::reordered_structs; with this set,
    /// it is refused instead (schema_mismatch naming the first such struct).
    bool refuse_reordered_fields = false;
    /// A file whose layout differs from the program's although its
    /// save_version is the program's (T changed without a new save_version:
    /// where fields have no names, an undescribed aggregate's, they are
    /// matched by position, so two swapped fields of one type would swap
    /// their values) sets load_info::unversioned_layout_change; with this
    /// set, it is refused instead (schema_mismatch).
    bool refuse_unversioned_layout_change = false;
    /// A number in the file outside the range the program's type holds (a
    /// range narrowed since: a ranged integer's, an integer type's, a
    /// quantized float's bounds, a float's largest finite value) is refused
    /// by default (out_of_range, naming the field); with this set, it loads
    /// as the bound nearest to it and its field is listed, with how many of
    /// its values were clamped, in load_info::clamped_fields.
    bool clamp_out_of_range = false;
};

namespace detail {
/// What a save without a metadata section passes as its metadata.
struct no_metadata {};

/// The format a save of T, with metadata of Meta when `with_metadata`, is
/// written in: format 4 when it must record a save_version other than 1
/// that the header does not hold (of a struct or hook type inside T, of
/// Meta, or of one inside Meta), else format 3, which every bitrep since
/// format 3 reads.
template <class T, class Meta>
std::uint16_t save_format(bool with_metadata)
{
    bool versions = schema_of<T>().nested_versions;
    if constexpr (!std::is_same_v<Meta, no_metadata>) {
        const program_schema& meta = schema_of<Meta>();
        versions = versions || (with_metadata && (meta.nested_versions || meta.root_version() != 1));
    }
    return versions ? save_header::versioned_format : save_header::current_format;
}

/// Encodes value (and metadata, when given) as a save file into out,
/// uncompressed and not yet sealed (finish_save does both, so that a saver
/// leaves the CRC and compression to its thread), in save_format's format.
template <class T, class Meta>
status encode_save(const T& value, const Meta* metadata, std::vector<std::uint8_t>& out)
{
    out.clear();
    const program_schema& schema = schema_of<T>();
    if (!schema.built)
        return schema.built;
    save_header header;
    header.format = save_format<T, Meta>(metadata != nullptr);
    header.save_version = save_version_of<T>();
    const std::span<const std::uint8_t> encoded = schema.encoding(header.format);
    header.fingerprint = schema.fingerprint_in(header.format);
    header.schema_bytes = static_cast<std::uint32_t>(encoded.size());
    out.resize(header.header_bytes());
    if constexpr (!std::is_same_v<Meta, no_metadata>) {
        if (metadata != nullptr) {
            const program_schema& meta_schema = schema_of<Meta>();
            if (!meta_schema.built)
                return meta_schema.built;
            const std::span<const std::uint8_t> meta_encoded = meta_schema.encoding(header.format);
            out.insert(out.end(), meta_encoded.begin(), meta_encoded.end());
            header.metadata_schema_bytes = static_cast<std::uint32_t>(meta_encoded.size());
            std::size_t bits = 0;
            if (status written = append_encoding<scope::save>(*metadata, out, bits); !written) {
                out.clear();
                return written;
            }
            header.metadata_bits = bits;
        }
    }
    out.insert(out.end(), encoded.begin(), encoded.end());
    std::size_t payload_bits = 0;
    if (status written = append_encoding<scope::save>(value, out, payload_bits); !written) {
        out.clear();
        return written;
    }
    header.payload_bits = payload_bits;
    header.stored_payload_bytes = header.format >= 2 ? header.payload_bytes() : 0;
    store_header(out, header);
    return {};
}

/// zstd, when bitrep was built with it (compiled in src/save_file.cpp).
bool zstd_available() noexcept;
/// Compresses a format-2 save's payload in place, when that makes it
/// smaller, and seals the file.
status compress_save(std::vector<std::uint8_t>& file, int level) noexcept;
/// Seals what encode_save made, compressing it first when asked.
status finish_save(std::vector<std::uint8_t>& file, const save_options& options) noexcept;
/// A compressed payload back into `out`, refused (corrupt) unless it is a
/// zstd frame of exactly `expected_bytes`.
status decompress_payload(std::span<const std::uint8_t> stored, std::size_t expected_bytes,
                          std::vector<std::uint8_t>& out) noexcept;
/// What every save to disk ends with: finish_save, then write durably.
status write_save_file(path_view path, std::vector<std::uint8_t>& bytes, const save_options& options,
                       save_outcome* outcome = nullptr) noexcept;
} // namespace detail

/// Writes the save file of value into out (replacing its contents; empty on
/// failure). Fails only as to_bytes does (value_out_of_range naming the
/// field), when T's schema exceeds the schema limits, or when compression
/// was asked of a bitrep built without zstd.
template <class T>
status save_to_bytes(const T& value, std::vector<std::uint8_t>& out, const save_options& options = {})
{
    status st = detail::encode_save(value, static_cast<const detail::no_metadata*>(nullptr), out);
    if (st)
        st = detail::finish_save(out, options);
    if (!st)
        out.clear();
    return st;
}

/// With a metadata section (a save slot's name, play time, date,
/// thumbnail: any saved struct), which read_save_info reads without the
/// payload.
template <class T, class Meta>
status save_to_bytes(const T& value, const Meta& metadata, std::vector<std::uint8_t>& out,
                     const save_options& options = {})
{
    status st = detail::encode_save(value, &metadata, out);
    if (st)
        st = detail::finish_save(out, options);
    if (!st)
        out.clear();
    return st;
}

/// Convenience: the file's bytes, or a thrown write_error carrying the status.
template <class T>
std::vector<std::uint8_t> save_to_bytes(const T& value)
{
    return detail::bytes_or_throw([&value](std::vector<std::uint8_t>& out) { return save_to_bytes(value, out); });
}

namespace detail {
/// A payload failure's status, its bit counted from the file's start.
inline status payload_status(const status& inner, std::size_t payload_offset_bits) noexcept
{
    const std::size_t bit = inner.bit_offset() == status::no_bit ? status::no_bit
                                                                  : inner.bit_offset() + payload_offset_bits;
    return status(inner.code(), bit, inner.field_path(), inner.detail());
}
} // namespace detail

/// A field of the file whose values a load clamped into the program's range
/// (load_options::clamp_out_of_range).
struct clamped_field {
    /// Where, e.g. `World.enemies[].health` (elements of a vector or array as `[]`).
    std::string path;
    /// How many of its values were clamped.
    std::uint64_t count = 0;

    friend bool operator==(const clamped_field&, const clamped_field&) = default;
};

/// What a load found, for diagnostics and tests.
struct load_info {
    save_header header;
    /// Whether the payload was decoded directly (the file's schema is the
    /// program's) or through the file's schema (T changed since).
    enum class route : std::uint8_t { none, fast, schema } path = route::none;
    /// The file's fields the program no longer loads (removed from T, or
    /// made net_only or transient since), e.g. `Hero.stats.luck` (elements of
    /// a vector or array as `[]`): data the file holds that this load left
    /// behind. Empty on the fast path, which loads everything.
    std::vector<std::string> dropped_fields;
    /// The described structs whose fields the file holds in another order
    /// than the program declares them, e.g. `Hero.stats`: each value went to
    /// the field of its name, but the layout changed. An undescribed
    /// aggregate's fields have no names in the file and are matched by
    /// position, so its reordering cannot be seen; see
    /// unversioned_layout_change.
    std::vector<std::string> reordered_structs;
    /// The file's layout (its schema, type names aside) differs from the
    /// program's, but its save_version is the program's: T changed without
    /// a new save_version. Harmless where fields are matched by name; where
    /// they are matched by position (undescribed aggregates), a reorder of
    /// same-typed fields cannot be told from no change at all, so describe
    /// the types whose saves must survive edits, and raise save_version
    /// with each change.
    bool unversioned_layout_change = false;
    /// With load_options::clamp_out_of_range: the file's fields holding
    /// values outside the program's range, which loaded as the nearest
    /// bound, each once with how many, in the order of the file's schema.
    /// Empty on the fast path, where every value is in range.
    std::vector<clamped_field> clamped_fields;
};

namespace detail {
/// Checks everything that needs no decoding: the header, the CRC, the
/// save_version against the program's, and the program's own schema.
template <class T>
status check_save(std::span<const std::uint8_t> file, load_info& info)
{
    info = {};
    if (status checked = read_save_header(file, info.header); !checked)
        return checked;
    if (info.header.save_version > save_version_of<T>())
        return header_error(error::newer_version, 8, "written by a newer save_version of this type");
    return schema_of<T>().built;
}

/// What a schema-path load found that load_info reports and load_options
/// may refuse: dropped fields, reordered structs, and (when `same_version`:
/// the file's save_version is the program's, and no inner struct's differs)
/// a changed layout.
inline status note_layout_changes(const schema& theirs, const load_plan& plan, std::string_view root,
                                  bool same_version, load_info& info, const load_options& options)
{
    for (const std::uint32_t node : plan.dropped)
        info.dropped_fields.push_back(schema_path(theirs, node, root));
    for (const std::uint32_t node : plan.reordered)
        info.reordered_structs.push_back(schema_path(theirs, node, root));
    info.unversioned_layout_change = same_version && !plan.versions_differ && plan.identical[0] == 0;
    if (options.refuse_dropped_fields && !info.dropped_fields.empty())
        return status(error::schema_mismatch, status::no_bit, info.dropped_fields.front(),
                      "the file holds a field the program does not load (refuse_dropped_fields)");
    if (options.refuse_reordered_fields && !info.reordered_structs.empty())
        return status(error::schema_mismatch, status::no_bit, info.reordered_structs.front(),
                      "the file holds these fields in another order (refuse_reordered_fields)");
    if (options.refuse_unversioned_layout_change && info.unversioned_layout_change)
        return status(error::schema_mismatch, status::no_bit, root,
                      "the layout changed, save_version did not (refuse_unversioned_layout_change)");
    return {};
}

/// Lists the file's fields whose values a schema-path load clamped
/// (load_options::clamp_out_of_range), each once with its count, in the
/// schema's order.
inline void note_clamped(const schema& theirs, const load_plan& plan, std::string_view root, load_info& info)
{
    for (std::size_t node = 0; node < plan.clamped.size(); ++node)
        if (plan.clamped[node] != 0)
            info.clamped_fields.push_back(
                {schema_path(theirs, static_cast<std::uint32_t>(node), root), plan.clamped[node]});
}

/// Which section of a save a decode reads: the value, whose root's
/// save_version the header holds, or the metadata, whose root's the schema
/// records (format 4; 1 before).
enum class save_section : std::uint8_t { value, metadata };

/// Whether a file's schema section, in `format`, is the program's byte for
/// byte, so that its payload decodes as from_bytes decodes (the fast path).
/// Format 3 records no version but the header's: it is the program's only
/// when no struct inside the program's type declares one.
inline bool is_programs_schema(std::span<const std::uint8_t> file_schema, std::uint16_t format,
                               const program_schema& mine) noexcept
{
    if (format < 3 || (format == 3 && mine.nested_versions))
        return false;
    const std::span<const std::uint8_t> encoded = mine.encoding(format);
    return std::equal(file_schema.begin(), file_schema.end(), encoded.begin(), encoded.end());
}

/// The schema path of decode_section: parses the file's schema, binds it
/// to the program's, fills info's lists and reads the payload by the plan
/// (every inner struct's migrate runs as its value is read); `root_version`
/// gets the file's version of the section's root.
template <class T>
status decode_by_schema(std::span<const std::uint8_t> file_schema, save_read_stream& stream,
                        std::uint64_t payload_bits, std::size_t schema_offset, std::size_t payload_offset, T& target,
                        load_info& info, const load_options& options, save_section section,
                        std::uint32_t& root_version)
{
    constexpr std::string_view root = reflect::type_name<T>();
    const program_schema& mine = schema_of<T>();
    const save_header& header = info.header;
    schema theirs;
    if (status parsed = parse_schema(file_schema, theirs, header.schema_encoding()); !parsed)
        return payload_status(parsed, schema_offset);
    if (section == save_section::value && header.format < save_header::versioned_format)
        theirs.nodes.front().version = header.save_version;
    root_version = section == save_section::value ? header.save_version : theirs.nodes.front().version;
    // (The value's was checked with the header.)
    if (section == save_section::metadata && root_version > mine.root_version())
        return status(error::newer_version, status::no_bit, root, "written by a newer save_version of this type");
    load_plan plan(theirs);
    plan.budget = walk_budget::for_payload(payload_bits);
    if (options.clamp_out_of_range)
        plan.clamped.assign(theirs.nodes.size(), 0);
    failure_record mismatch;
    if (!bind(plan, 0, mine.tree, 0, mismatch))
        return mismatch.to_status(root);
    const bool same_version = section == save_section::value && header.save_version == save_version_of<T>();
    if (status noted = note_layout_changes(theirs, plan, root, same_version, info, options); !noted)
        return noted;
    if (!load_by_plan(stream, plan, 0, *engine::root_v<T>.entry, &target)) [[unlikely]]
        return payload_status(stream.failure_status(root), payload_offset);
    note_clamped(theirs, plan, root, info);
    return {};
}

/// Decodes one section of a checked file (the value, or the metadata) into
/// `target` by the fast or the schema path, filling info.path and what the
/// schema path notices, then runs the root's migrate when the file's version
/// of it is older than the program's (an inner struct's ran as its value
/// was read: inner before outer). Offsets are in bits from the file's start.
template <class T>
status decode_section(std::span<const std::uint8_t> file_schema, std::span<const std::uint8_t> payload,
                      std::uint64_t payload_bits, std::size_t schema_offset, std::size_t payload_offset, T& target,
                      load_info& info, const load_options& options, save_section section)
{
    const program_schema& mine = schema_of<T>();
    constexpr std::string_view root = reflect::type_name<T>();
    const save_header& header = info.header;
    failure_record failure;
    save_read_stream stream(payload, failure);
    load_info::route path = load_info::route::fast;
    // On the fast path the file's versions are the program's, but for what
    // the format does not record: the value's root is the header's, and
    // before format 4 the metadata's root is 1.
    std::uint32_t root_version = section == save_section::value                   ? header.save_version
                                 : header.format >= save_header::versioned_format ? mine.root_version()
                                                                                  : 1;
    if (is_programs_schema(file_schema, header.format, mine)) {
        if (!read_value<path_of<T>>(stream, target)) [[unlikely]]
            return payload_status(stream.failure_status(root), payload_offset);
    } else {
        path = load_info::route::schema;
        if (status read = decode_by_schema(file_schema, stream, payload_bits, schema_offset, payload_offset, target,
                                           info, options, section, root_version);
            !read)
            return read;
    }
    if (stream.bit_position() != payload_bits) [[unlikely]]
        return status(error::corrupt, payload_offset + stream.bit_position(), root,
                      "the payload's length differs from the value's");
    if (root_version < save_version_of<T>() && !run_migrate(target, root_version))
        return status(error::hook_failed, payload_offset, root, "migrate(from_version) refused the file");
    info.path = path;
    return {};
}

/// The most bits a payload written with `file_schema` can take: T's own
/// bound when the schema is T's (the fast path), else the schema's (0 when
/// it does not parse: the load refuses it anyway).
template <class T>
std::uint64_t payload_bound(std::span<const std::uint8_t> file_schema, const save_header& header)
{
    if (is_programs_schema(file_schema, header.format, schema_of<T>()))
        return max_bits<T>;
    schema theirs;
    return parse_schema(file_schema, theirs, header.schema_encoding()) ? max_payload_bits(theirs) : 0;
}

/// A checked file's payload, inflated into `inflated` when compressed.
/// Refused before anything is allocated: a declared size past
/// `max_file_bytes` (io_error), or past `bound_bits`, what a value of the
/// file's schema can take (corrupt; a few bytes must not cost the reader
/// megabytes).
inline status inflate_payload(std::span<const std::uint8_t> file, const save_header& header, std::uint64_t bound_bits,
                              std::size_t max_file_bytes, std::vector<std::uint8_t>& inflated,
                              std::span<const std::uint8_t>& payload)
{
    const auto payload_at = static_cast<std::size_t>(header.payload_offset());
    payload = file.subspan(payload_at);
    if (!header.compressed())
        return {};
    if (header.payload_bytes() > max_file_bytes)
        return header_error(error::io_error, 24, "the payload would decompress past the load limit");
    if (header.payload_bits > bound_bits)
        return header_error(error::corrupt, 24, "the payload claims more bits than its schema's values can take");
    if (status unpacked = decompress_payload(payload, static_cast<std::size_t>(header.payload_bytes()), inflated);
        !unpacked)
        return status(unpacked.code(), payload_at * 8, unpacked.field_path(), unpacked.detail());
    payload = inflated;
    return {};
}

/// Decodes a checked file into `target` (a copy of the destination, or any
/// T when every field is saved), by the fast or the schema path, and runs
/// migrate. A compressed payload is inflated into `inflated` first. `target`
/// is garbage on failure; callers keep the destination.
template <class T>
status decode_save(std::span<const std::uint8_t> file, T& target, load_info& info, const load_options& options,
                   std::vector<std::uint8_t>& inflated)
{
    const save_header& header = info.header;
    const auto schema_at = static_cast<std::size_t>(header.schema_offset());
    const auto payload_at = static_cast<std::size_t>(header.payload_offset());
    const std::span<const std::uint8_t> file_schema = file.subspan(schema_at, header.schema_bytes);
    std::span<const std::uint8_t> payload;
    if (status inflated_ok = inflate_payload(file, header, header.compressed() ? payload_bound<T>(file_schema, header) : 0,
                                             options.max_file_bytes, inflated, payload);
        !inflated_ok)
        return inflated_ok;
    return decode_section(file_schema, payload, header.payload_bits, schema_at * 8, payload_at * 8, target, info,
                          options, save_section::value);
}
} // namespace detail

/// Loads a save file written by save_to_bytes / save. All or nothing: on any
/// error `out` is unchanged and the status says what and where (section 5 of
/// docs/formats/save-format.md). Fields a save does not carry (net_only, transient)
/// keep their values. It decodes into a new T (a copy of `out` when T has
/// fields a save does not carry); bitrep::loader reuses one between loads.
template <class T>
status load_from_bytes(std::span<const std::uint8_t> file, T& out, load_info& info, const load_options& options = {})
{
    if (status checked = detail::check_save<T>(file, info); !checked)
        return checked;
    T loaded = detail::working_object<scope::save>(out);
    std::vector<std::uint8_t> inflated;
    status decoded = detail::decode_save(file, loaded, info, options, inflated);
    if (decoded)
        out = std::move(loaded);
    return decoded;
}

template <class T>
status load_from_bytes(std::span<const std::uint8_t> file, T& out, const load_options& options = {})
{
    load_info info;
    return load_from_bytes(file, out, info, options);
}

/// Loads save files again and again (a level reload, a server's player
/// files) with the same all-or-nothing guarantee as load_from_bytes, but
/// keeping its working object and file buffer between calls, so that in a
/// steady state a load allocates nothing and copies nothing: it decodes into
/// the working object (reusing its containers) and swaps it with `out`.
template <class T>
class loader {
public:
    status load_from_bytes(std::span<const std::uint8_t> file, T& out, load_info& info,
                           const load_options& options = {})
    {
        if (status checked = detail::check_save<T>(file, info); !checked)
            return checked;
        if constexpr (!detail::every_field_carried<T, scope::save>::value)
            scratch_ = out; // the fields a save does not carry come from out
        status decoded = detail::decode_save(file, scratch_, info, options, inflated_);
        if (decoded) {
            using std::swap;
            swap(out, scratch_);
        }
        return decoded;
    }
    status load_from_bytes(std::span<const std::uint8_t> file, T& out, const load_options& options = {})
    {
        load_info info;
        return load_from_bytes(file, out, info, options);
    }

    status load(path_view path, T& out, load_info& info, load_options options = {})
    {
        if (status read = detail::read_file(path, file_, options.max_file_bytes); !read) {
            info = {};
            return read;
        }
        return load_from_bytes(std::span<const std::uint8_t>(file_), out, info, options);
    }
    status load(path_view path, T& out, load_options options = {})
    {
        load_info info;
        return load(path, out, info, options);
    }

private:
    T scratch_{};
    std::vector<std::uint8_t> file_;
    std::vector<std::uint8_t> inflated_;
};

/// Saves value to `path` atomically and durably: afterwards the file holds
/// either the previous save or this one, whatever happens (crash, power
/// loss, a full disk); on failure the previous save is intact, except for
/// durability_unknown: this save is in place, but the directory's fsync
/// failed, so a power cut may still bring the previous one back.
/// When `outcome` is given, the save fills it (whether keep_backup had to
/// copy). (bitrep::save_async, save/async.hpp, does the file work on
/// another thread.)
template <class T>
status save(path_view path, const T& value, const save_options& options = {}, save_outcome* outcome = nullptr)
{
    std::vector<std::uint8_t> bytes;
    if (status encoded = detail::encode_save(value, static_cast<const detail::no_metadata*>(nullptr), bytes);
        !encoded)
        return encoded;
    return detail::write_save_file(path, bytes, options, outcome);
}

/// With a metadata section (see save_to_bytes), read by read_save_info.
template <class T, class Meta>
status save(path_view path, const T& value, const Meta& metadata, const save_options& options = {},
            save_outcome* outcome = nullptr)
{
    std::vector<std::uint8_t> bytes;
    if (status encoded = detail::encode_save(value, &metadata, bytes); !encoded)
        return encoded;
    return detail::write_save_file(path, bytes, options, outcome);
}

namespace detail {
/// The metadata section of a save whose first info_bytes (at least) are in
/// `prefix`, of a file of `file_size` bytes: the header's lengths and its
/// CRC (the info CRC; a format-1 file's own) are checked, with or without
/// metadata, then the metadata is decoded (by its schema, so a metadata
/// struct may change like any saved struct).
template <class Meta>
status read_info_section(std::span<const std::uint8_t> prefix, std::uint64_t file_size, Meta& meta, load_info& info,
                         const load_options& options)
{
    info = {};
    if (status parsed = parse_save_header(prefix, file_size, info.header); !parsed)
        return parsed;
    const save_header& header = info.header;
    if (prefix.size() < info_bytes(header))
        return header_error(error::truncated, prefix.size(), "the bytes the header's CRC covers were not read");
    const std::span<const std::uint8_t> covered = prefix.first(static_cast<std::size_t>(info_bytes(header)));
    if (status checked = header.format >= 2 ? check_info_crc(covered, header) : check_file_crc(covered, header);
        !checked)
        return checked;
    if (!header.has_metadata())
        return {}; // nothing to read: meta unchanged, info.header.has_metadata() false
    const auto metadata_bytes = static_cast<std::size_t>(header.metadata_bytes());
    const std::size_t schema_at = save_header::extended_size;
    const std::size_t payload_at = schema_at + header.metadata_schema_bytes;
    Meta loaded = working_object<scope::save>(meta);
    if (status decoded = decode_section(prefix.subspan(schema_at, header.metadata_schema_bytes),
                                        prefix.subspan(payload_at, metadata_bytes - header.metadata_schema_bytes),
                                        header.metadata_bits, schema_at * 8, payload_at * 8, loaded, info, options,
                                        save_section::metadata);
        !decoded)
        return decoded;
    meta = std::move(loaded);
    return {};
}

} // namespace detail

/// A save's metadata section and header, read from a save file's bytes
/// (see read_save_info).
template <class Meta>
status read_save_info_from_bytes(std::span<const std::uint8_t> file, Meta& meta, load_info& info,
                                 const load_options& options = {})
{
    return detail::read_info_section(file, file.size(), meta, info, options);
}

namespace detail {
/// Reads the info_bytes of the save at `path`, whose header (read from its
/// first bytes) is `header`, into `head`, within the load's limits.
inline status read_info_bytes(path_view path, const save_header& header, const load_options& options,
                              std::vector<std::uint8_t>& head, std::uint64_t& file_size)
{
    if (header.format < 2) {
        const status read = read_file(path, head, options.max_file_bytes);
        file_size = head.size();
        return read;
    }
    if (header.metadata_bytes() > options.max_metadata_bytes)
        return header_error(error::io_error, 36, "the metadata section is larger than max_metadata_bytes");
    return read_file_head(path, static_cast<std::size_t>(info_bytes(header)), head, file_size);
}
} // namespace detail

/// Reads a save's header and metadata section into `meta` without reading
/// (or checking) the payload: for a menu of save slots. All or nothing like
/// a load: the header's lengths against the file's size and the CRC of the
/// header and metadata are checked, with or without metadata, and `meta` is
/// unchanged on any error. A save with no metadata section (written without
/// one, or in format 1) leaves `meta` unchanged and
/// `info.header.has_metadata()` false. The payload's own CRC is checked when
/// the save is loaded; a format-1 file, whose header has no CRC of its own,
/// is read whole (within max_file_bytes) to check the file's.
template <class Meta>
status read_save_info(path_view path, Meta& meta, load_info& info, const load_options& options = {})
{
    std::vector<std::uint8_t> head;
    std::uint64_t file_size = 0;
    status read = detail::read_file_head(path, save_header::extended_size, head, file_size);
    if (read && detail::parse_save_header(head, file_size, info.header) &&
        head.size() < detail::info_bytes(info.header))
        read = detail::read_info_bytes(path, info.header, options, head, file_size);
    if (!read) {
        info = {};
        return read;
    }
    return detail::read_info_section(head, file_size, meta, info, options);
}

template <class Meta>
status read_save_info(path_view path, Meta& meta, const load_options& options = {})
{
    load_info info;
    return read_save_info(path, meta, info, options);
}

/// Loads the save at `path` into out: all or nothing, as load_from_bytes.
template <class T>
status load(path_view path, T& out, load_info& info, const load_options& options = {})
{
    std::vector<std::uint8_t> bytes;
    if (status read = detail::read_file(path, bytes, options.max_file_bytes); !read) {
        info = {};
        return read;
    }
    return load_from_bytes(std::span<const std::uint8_t>(bytes), out, info, options);
}

template <class T>
status load(path_view path, T& out, load_options options = {})
{
    load_info info;
    return load(path, out, info, options);
}

} // namespace bitrep
