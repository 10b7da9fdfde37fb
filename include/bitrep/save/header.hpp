// A save file's header (docs/formats/save-format.md, section 1): its
// fields, how a writer stores and seals them, and how a reader parses and
// checks them (lengths against the file's size, the CRCs) before anything
// of the schema or payload is decoded.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string_view>

#include <bitrep/detail/checksums.hpp>
#include <bitrep/detail/little_endian.hpp>
#include <bitrep/save/schema.hpp>
#include <bitrep/status.hpp>

namespace bitrep {

/// A save file's header, as read by read_save_header. Format 1 (36 bytes)
/// holds the value; format 2 (64 bytes) adds a metadata section and a
/// compressed payload; format 3 is format 2 with its schemas in the compact
/// encoding; format 4 is format 3 whose schemas record each struct's and
/// hook type's save_version. A save is written in format 4 when a struct
/// inside the saved type (or the metadata's type, or that type itself)
/// declares a save_version other than 1, else in format 3. All four are read.
struct save_header {
    static constexpr std::size_t size = 36;          ///< format 1's header
    static constexpr std::size_t extended_size = 64; ///< format 2's
    static constexpr std::uint16_t current_format = 3;   ///< what a save is written in, versions aside
    static constexpr std::uint16_t versioned_format = 4; ///< the newest: a save whose inner structs have versions
    static constexpr std::uint16_t zstd_payload = 1; ///< flags: the payload is a zstd frame

    std::uint16_t format = 1;
    std::uint16_t flags = 0;
    std::uint32_t save_version = 1;
    std::uint64_t fingerprint = 0;
    std::uint32_t schema_bytes = 0;
    std::uint64_t payload_bits = 0;
    std::uint32_t crc = 0;
    // Format 2 only (zero in format 1).
    std::uint32_t metadata_schema_bytes = 0; ///< 0: no metadata section
    std::uint64_t metadata_bits = 0;
    std::uint64_t stored_payload_bytes = 0;  ///< the payload as stored (compressed or not)
    std::uint32_t info_crc = 0;              ///< CRC-32 of bytes 0-31, 36-59 and the metadata section

    std::size_t header_bytes() const noexcept { return format >= 2 ? extended_size : size; }
    bool compressed() const noexcept { return (flags & zstd_payload) != 0; }
    bool has_metadata() const noexcept { return metadata_schema_bytes != 0; }
    std::uint64_t payload_bytes() const noexcept { return payload_bits / 8 + (payload_bits % 8 != 0 ? 1 : 0); }
    std::uint64_t metadata_bytes() const noexcept
    {
        return metadata_schema_bytes + metadata_bits / 8 + (metadata_bits % 8 != 0 ? 1 : 0);
    }
    std::uint64_t schema_offset() const noexcept { return header_bytes() + metadata_bytes(); }
    std::uint64_t payload_offset() const noexcept { return schema_offset() + schema_bytes; }
    std::uint64_t stored_bytes() const noexcept { return format >= 2 ? stored_payload_bytes : payload_bytes(); }
    bitrep::schema_encoding schema_encoding() const noexcept
    {
        if (format >= 4)
            return bitrep::schema_encoding::compact_versioned;
        return format == 3 ? bitrep::schema_encoding::compact : bitrep::schema_encoding::names_inline;
    }
    std::size_t file_bytes() const noexcept { return static_cast<std::size_t>(payload_offset() + stored_bytes()); }
};

namespace detail {
inline constexpr std::uint8_t save_magic[4] = {'B', 'R', 'S', 'V'};
inline constexpr std::size_t crc_offset = 32;
inline constexpr std::size_t info_crc_offset = 60;

/// CRC-32 of every byte of the file but the CRC's own four.
inline std::uint32_t save_crc(std::span<const std::uint8_t> file) noexcept
{
    return crc32(file.first(crc_offset), file.subspan(save_header::size));
}

/// Format 2: CRC-32 of the header's bytes but the two CRCs (0-31 and
/// 36-59) and the metadata section, so that read_save_info checks what it
/// reads without the payload.
inline std::uint32_t save_info_crc(std::span<const std::uint8_t> file, std::size_t metadata_bytes) noexcept
{
    return crc32(file.first(crc_offset), file.subspan(save_header::size, info_crc_offset - save_header::size),
                 file.subspan(save_header::extended_size, metadata_bytes));
}

inline status header_error(error code, std::size_t byte, std::string_view detail) noexcept
{
    return status(code, byte * 8, "header", detail);
}

/// Writes `header`'s fields into the file's first bytes, CRCs aside.
inline void store_header(std::span<std::uint8_t> file, const save_header& header) noexcept
{
    std::uint8_t* at = file.data();
    std::copy(std::begin(save_magic), std::end(save_magic), at);
    store_le<std::uint16_t>(at + 4, header.format);
    store_le<std::uint16_t>(at + 6, header.flags);
    store_le<std::uint32_t>(at + 8, header.save_version);
    store_le<std::uint64_t>(at + 12, header.fingerprint);
    store_le<std::uint32_t>(at + 20, header.schema_bytes);
    store_le<std::uint64_t>(at + 24, header.payload_bits);
    if (header.format >= 2) {
        store_le<std::uint32_t>(at + 36, header.metadata_schema_bytes);
        store_le<std::uint64_t>(at + 40, header.metadata_bits);
        store_le<std::uint64_t>(at + 48, header.stored_payload_bytes);
        store_le<std::uint32_t>(at + 56, 0); // reserved
    }
}

/// Writes `header` into the file's first bytes and seals it with its CRCs
/// (format 2: the info CRC first, since the file's CRC covers it).
inline void seal_save(std::span<std::uint8_t> file, const save_header& header) noexcept
{
    store_header(file, header);
    if (header.format >= 2)
        store_le<std::uint32_t>(file.data() + info_crc_offset,
                                save_info_crc(file, static_cast<std::size_t>(header.metadata_bytes())));
    store_le<std::uint32_t>(file.data() + crc_offset, save_crc(file));
}

/// The fields both read_save_header and read_save_info check: everything in
/// the header but the CRCs, the lengths against the file's `file_size`.
inline status parse_save_header(std::span<const std::uint8_t> prefix, std::uint64_t file_size,
                                save_header& header) noexcept
{
    if (file_size == 0)
        return header_error(error::not_a_save, 0, "the file is empty");
    const std::size_t magic_bytes = prefix.size() < 4 ? prefix.size() : 4;
    if (!std::equal(prefix.begin(), prefix.begin() + static_cast<std::ptrdiff_t>(magic_bytes), save_magic))
        return header_error(error::not_a_save, 0, "no bitrep save magic (BRSV) at the start");
    if (prefix.size() < save_header::size)
        return header_error(error::truncated, prefix.size(), "the file ends inside the header");
    const std::uint8_t* at = prefix.data();
    header = {};
    header.format = load_le<std::uint16_t>(at + 4);
    header.flags = load_le<std::uint16_t>(at + 6);
    header.save_version = load_le<std::uint32_t>(at + 8);
    header.fingerprint = load_le<std::uint64_t>(at + 12);
    header.schema_bytes = load_le<std::uint32_t>(at + 20);
    header.payload_bits = load_le<std::uint64_t>(at + 24);
    header.crc = load_le<std::uint32_t>(at + crc_offset);
    if (header.format == 0)
        return header_error(error::corrupt, 4, "file format 0 does not exist");
    const std::uint16_t known_flags = header.format >= 2 ? save_header::zstd_payload : 0;
    if (header.format > save_header::versioned_format || (header.flags & ~known_flags) != 0)
        return header_error(error::newer_version, 4, "written in a newer save file format than this bitrep reads");
    if (header.format >= 2) {
        if (prefix.size() < save_header::extended_size)
            return header_error(error::truncated, prefix.size(), "the file ends inside the header");
        header.metadata_schema_bytes = load_le<std::uint32_t>(at + 36);
        header.metadata_bits = load_le<std::uint64_t>(at + 40);
        header.stored_payload_bytes = load_le<std::uint64_t>(at + 48);
        header.info_crc = load_le<std::uint32_t>(at + info_crc_offset);
        if (load_le<std::uint32_t>(at + 56) != 0)
            return header_error(error::newer_version, 56, "a reserved header field is set");
        if (header.metadata_schema_bytes == 0 && header.metadata_bits != 0)
            return header_error(error::corrupt, 40, "metadata without a schema");
        if (!header.compressed() && header.stored_payload_bytes != header.payload_bytes())
            return header_error(error::corrupt, 48, "the stored payload's length differs from the payload's");
    }
    // The lengths are checked by subtraction from what the file holds, never
    // by adding the header's values, which a damaged header could overflow.
    std::uint64_t left = file_size - header.header_bytes();
    const std::uint64_t metadata_payload = header.metadata_bits / 8 + (header.metadata_bits % 8 != 0 ? 1 : 0);
    for (const std::uint64_t part :
         {std::uint64_t{header.metadata_schema_bytes}, metadata_payload, std::uint64_t{header.schema_bytes}}) {
        if (part > left)
            return header_error(error::truncated, file_size, "the file is shorter than its header says");
        left -= part;
    }
    if (header.stored_bytes() > left)
        return header_error(error::truncated, file_size, "the file is shorter than its header says");
    if (header.stored_bytes() < left)
        return header_error(error::corrupt, static_cast<std::size_t>(file_size - (left - header.stored_bytes())),
                            "bytes after the end the header gives");
    return {};
}
} // namespace detail

namespace detail {
/// Format 2: the info CRC of a parsed header, over `prefix` (at least the
/// header and metadata section).
inline status check_info_crc(std::span<const std::uint8_t> prefix, const save_header& header) noexcept
{
    if (save_info_crc(prefix, static_cast<std::size_t>(header.metadata_bytes())) != header.info_crc)
        return header_error(error::corrupt, info_crc_offset,
                            "CRC-32 of the header and metadata mismatch: the file is damaged");
    return {};
}

/// The file's CRC of a parsed header, over the whole `file`.
inline status check_file_crc(std::span<const std::uint8_t> file, const save_header& header) noexcept
{
    if (save_crc(file) != header.crc)
        return header_error(error::corrupt, crc_offset, "CRC-32 mismatch: the file is damaged");
    return {};
}

/// How much of a save read_save_info reads and checks by a CRC: the header
/// and metadata section (the info CRC), or all of a format-1 file, whose
/// only CRC is the file's.
inline std::uint64_t info_bytes(const save_header& header) noexcept
{
    return header.format >= 2 ? save_header::extended_size + header.metadata_bytes() : header.file_bytes();
}
} // namespace detail

/// Checks everything about a save file that does not depend on T: magic,
/// format, lengths against the file's size, and the CRCs.
inline status read_save_header(std::span<const std::uint8_t> file, save_header& header) noexcept
{
    if (status parsed = detail::parse_save_header(file, file.size(), header); !parsed)
        return parsed;
    if (header.format >= 2)
        if (status checked = detail::check_info_crc(file, header); !checked)
            return checked;
    return detail::check_file_crc(file, header);
}

} // namespace bitrep
