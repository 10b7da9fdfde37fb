// Save files: save / load to disk, save_to_bytes / load_from_bytes in
// memory, one format (docs/save-format.md): a checked header, the schema of
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


#include <bitrep/detail/working_object.hpp>
#include <bitrep/bytes.hpp>
#include <bitrep/detail/checksums.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/save/file_io.hpp>
#include <bitrep/save/schema.hpp>
#include <bitrep/save/schema_load.hpp>
#include <bitrep/serialize.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep {

struct save_options {
    /// Keep the previous save as `<path>.bak` (replaced atomically too).
    bool keep_backup = false;
};

struct load_options {
    /// A larger file is refused before anything is allocated for it.
    std::size_t max_file_bytes = std::size_t{1} << 30;
    /// A file written before fields were removed (or stopped being saved)
    /// holds data the load leaves behind. By default that is allowed and
    /// listed in load_info::dropped_fields; with this set, such a file is
    /// refused (schema_mismatch, naming the first such field) and the
    /// destination stays as it was.
    bool refuse_dropped_fields = false;
};

/// The save_version a type declares (`static constexpr std::uint32_t
/// save_version = 3;`), or 1.
template <class T>
constexpr std::uint32_t save_version_of() noexcept
{
    if constexpr (requires { T::save_version; })
        return static_cast<std::uint32_t>(T::save_version);
    else
        return 1;
}

/// A save file's header, as read by read_save_header.
struct save_header {
    static constexpr std::size_t size = 36;
    static constexpr std::uint16_t current_format = 1;

    std::uint16_t format = current_format;
    std::uint16_t flags = 0;
    std::uint32_t save_version = 1;
    std::uint64_t fingerprint = 0;
    std::uint32_t schema_bytes = 0;
    std::uint64_t payload_bits = 0;
    std::uint32_t crc = 0;

    std::size_t file_bytes() const noexcept { return size + schema_bytes + (payload_bits + 7) / 8; }
};

namespace detail {
inline constexpr std::uint8_t save_magic[4] = {'B', 'R', 'S', 'V'};
inline constexpr std::size_t crc_offset = 32;

template <class Int>
void store_le(std::uint8_t* at, Int value) noexcept
{
    for (std::size_t i = 0; i < sizeof(Int); ++i)
        at[i] = static_cast<std::uint8_t>(static_cast<std::uint64_t>(value) >> (8 * i));
}
template <class Int>
Int load_le(const std::uint8_t* at) noexcept
{
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < sizeof(Int); ++i)
        value |= static_cast<std::uint64_t>(at[i]) << (8 * i);
    return static_cast<Int>(value);
}

/// CRC-32 of every byte of the file but the CRC's own four.
inline std::uint32_t save_crc(std::span<const std::uint8_t> file) noexcept
{
    return crc32(file.first(crc_offset), file.subspan(save_header::size));
}

inline status header_error(error code, std::size_t byte, std::string_view detail) noexcept
{
    return status(code, byte * 8, "header", detail);
}
} // namespace detail

/// Checks everything about a save file that does not depend on T: magic,
/// format, lengths against the file's size, and the CRC.
inline status read_save_header(std::span<const std::uint8_t> file, save_header& header) noexcept
{
    using detail::header_error;
    if (file.empty())
        return header_error(error::not_a_save, 0, "the file is empty");
    const std::size_t magic_bytes = file.size() < 4 ? file.size() : 4;
    if (!std::equal(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(magic_bytes), detail::save_magic))
        return header_error(error::not_a_save, 0, "no bitrep save magic (BRSV) at the start");
    if (file.size() < save_header::size)
        return header_error(error::truncated, file.size(), "the file ends inside the header");
    const std::uint8_t* at = file.data();
    header.format = detail::load_le<std::uint16_t>(at + 4);
    header.flags = detail::load_le<std::uint16_t>(at + 6);
    header.save_version = detail::load_le<std::uint32_t>(at + 8);
    header.fingerprint = detail::load_le<std::uint64_t>(at + 12);
    header.schema_bytes = detail::load_le<std::uint32_t>(at + 20);
    header.payload_bits = detail::load_le<std::uint64_t>(at + 24);
    header.crc = detail::load_le<std::uint32_t>(at + detail::crc_offset);
    if (header.format == 0)
        return header_error(error::corrupt, 4, "file format 0 does not exist");
    if (header.format > save_header::current_format || header.flags != 0)
        return header_error(error::newer_version, 4, "written in a newer save file format than this bitrep reads");
    // The lengths are checked by subtraction from what the file holds, never
    // by adding the header's values, which a damaged header could overflow.
    const std::uint64_t payload_bytes = header.payload_bits / 8 + (header.payload_bits % 8 != 0 ? 1 : 0);
    const std::uint64_t body = file.size() - save_header::size;
    if (header.schema_bytes > body || payload_bytes > body - header.schema_bytes)
        return header_error(error::truncated, file.size(), "the file is shorter than its header says");
    if (payload_bytes < body - header.schema_bytes)
        return header_error(error::corrupt, save_header::size + header.schema_bytes + payload_bytes,
                            "bytes after the end the header gives");
    if (detail::save_crc(file) != header.crc)
        return header_error(error::corrupt, detail::crc_offset, "CRC-32 mismatch: the file is damaged");
    return {};
}

/// Writes the save file of value into out (replacing its contents; empty on
/// failure). Fails only as to_bytes does (value_out_of_range naming the
/// field), or when T's schema exceeds the schema limits.
template <class T>
status save_to_bytes(const T& value, std::vector<std::uint8_t>& out)
{
    out.clear();
    const program_schema& schema = schema_of<T>();
    if (!schema.built)
        return schema.built;
    out.resize(save_header::size);
    out.insert(out.end(), schema.encoded.begin(), schema.encoded.end());
    std::size_t payload_bits = 0;
    if (status written = detail::append_encoding<scope::save>(value, out, payload_bits); !written) {
        out.clear();
        return written;
    }
    std::uint8_t* at = out.data();
    std::copy(std::begin(detail::save_magic), std::end(detail::save_magic), at);
    detail::store_le<std::uint16_t>(at + 4, save_header::current_format);
    detail::store_le<std::uint16_t>(at + 6, 0);
    detail::store_le<std::uint32_t>(at + 8, save_version_of<T>());
    detail::store_le<std::uint64_t>(at + 12, schema.fingerprint);
    detail::store_le<std::uint32_t>(at + 20, static_cast<std::uint32_t>(schema.encoded.size()));
    detail::store_le<std::uint64_t>(at + 24, payload_bits);
    detail::store_le<std::uint32_t>(at + detail::crc_offset, detail::save_crc(out));
    return {};
}

/// Convenience: the file's bytes, or a thrown write_error carrying the status.
template <class T>
std::vector<std::uint8_t> save_to_bytes(const T& value)
{
    return detail::bytes_or_throw([&value](std::vector<std::uint8_t>& out) { return save_to_bytes(value, out); });
}

namespace detail {
template <class T>
concept has_member_migrate = requires(T& value, std::uint32_t from) { value.migrate(from); };
template <class T>
concept has_free_migrate = requires(T& value, std::uint32_t from) { migrate(from, value); };

/// Runs T's migrate hook, if it has one; a hook returning false refuses.
template <class T>
bool run_migrate(T& value, std::uint32_t from_version)
{
    if constexpr (has_member_migrate<T>) {
        if constexpr (std::is_convertible_v<decltype(value.migrate(from_version)), bool>)
            return static_cast<bool>(value.migrate(from_version));
        else
            value.migrate(from_version);
    } else if constexpr (has_free_migrate<T>) {
        if constexpr (std::is_convertible_v<decltype(migrate(from_version, value)), bool>)
            return static_cast<bool>(migrate(from_version, value));
        else
            migrate(from_version, value);
    }
    return true;
}

/// A payload failure's status, its bit counted from the file's start.
inline status payload_status(const status& inner, std::size_t payload_offset_bits) noexcept
{
    return status(inner.code(), inner.bit_offset() + payload_offset_bits, inner.field_path(), inner.detail());
}
} // namespace detail

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

/// Decodes a checked file into `target` (a copy of the destination, or any
/// T when every field is saved), by the fast or the schema path, and runs
/// migrate. `target` is garbage on failure; callers keep the destination.
template <class T>
status decode_save(std::span<const std::uint8_t> file, T& target, load_info& info, const load_options& options)
{
    const save_header& header = info.header;
    const program_schema& mine = schema_of<T>();
    const auto file_schema = file.subspan(save_header::size, header.schema_bytes);
    const auto payload = file.subspan(save_header::size + header.schema_bytes);
    const std::size_t payload_offset = (save_header::size + header.schema_bytes) * 8;
    constexpr std::string_view root = reflect::type_name<T>();

    failure_record failure;
    save_read_stream stream(payload, failure);
    load_info::route path = load_info::route::fast;
    if (header.fingerprint == mine.fingerprint &&
        std::equal(file_schema.begin(), file_schema.end(), mine.encoded.begin(), mine.encoded.end())) {
        if (!bitrep::serialize(stream, target)) [[unlikely]]
            return payload_status(stream.failure_status(root), payload_offset);
    } else {
        path = load_info::route::schema;
        schema theirs;
        if (status parsed = parse_schema(file_schema, theirs); !parsed)
            return payload_status(parsed, save_header::size * 8);
        load_plan plan(theirs);
        plan.budget = walk_budget::for_payload(header.payload_bits);
        failure_record mismatch;
        if (!bind(plan, 0, mine.tree, 0, mismatch))
            return mismatch.to_status(root);
        for (const std::uint32_t node : plan.dropped)
            info.dropped_fields.push_back(schema_path(theirs, node, root));
        if (options.refuse_dropped_fields && !info.dropped_fields.empty())
            return status(error::schema_mismatch, 0, info.dropped_fields.front(),
                          "the file holds a field the program does not load (refuse_dropped_fields)");
        if (!read_as(stream, plan, 0, target)) [[unlikely]]
            return payload_status(stream.failure_status(root), payload_offset);
    }
    if (stream.bit_position() != header.payload_bits) [[unlikely]]
        return status(error::corrupt, payload_offset + stream.bit_position(), root,
                      "the payload's length differs from the value's");
    if (header.save_version < save_version_of<T>() && !run_migrate(target, header.save_version))
        return status(error::hook_failed, payload_offset, root, "migrate(from_version) refused the file");
    info.path = path;
    return {};
}
} // namespace detail

/// Loads a save file written by save_to_bytes / save. All or nothing: on any
/// error `out` is unchanged and the status says what and where (section 5 of
/// docs/save-format.md). Fields a save does not carry (net_only, transient)
/// keep their values. It decodes into a new T (a copy of `out` when T has
/// fields a save does not carry); bitrep::loader reuses one between loads.
template <class T>
status load_from_bytes(std::span<const std::uint8_t> file, T& out, load_info& info, const load_options& options = {})
{
    if (status checked = detail::check_save<T>(file, info); !checked)
        return checked;
    T loaded = detail::working_object<scope::save>(out);
    status decoded = detail::decode_save(file, loaded, info, options);
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
        status decoded = detail::decode_save(file, scratch_, info, options);
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
};

/// Saves value to `path` atomically and durably: afterwards the file holds
/// either the previous save or this one, whatever happens (crash, power
/// loss, a full disk); on failure the previous save is intact.
template <class T>
status save(path_view path, const T& value, save_options options = {})
{
    std::vector<std::uint8_t> bytes;
    if (status encoded = save_to_bytes(value, bytes); !encoded)
        return encoded;
    return detail::write_file_atomically(path, bytes, options.keep_backup);
}

/// Loads the save at `path` into out: all or nothing, as load_from_bytes.
template <class T>
status load(path_view path, T& out, load_info& info, load_options options = {})
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
