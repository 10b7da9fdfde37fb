// Save files built around any schema and payload bytes, with the header
// and CRCs right, so that hostile contents reach the schema parser, the
// decompressor and the decoders (allocation_bound_test, inspect_test).
#pragma once

#include <bitrep/bitrep.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace hostile_saves {

/// A save file in the current format (its payload compressed when `zstd`)
/// around `schema` (in the format's compact encoding), whose header says
/// `payload_bits` and whose CRCs match.
inline std::vector<std::uint8_t> save_around(std::span<const std::uint8_t> schema, std::span<const std::uint8_t> stored,
                                             std::uint64_t payload_bits, std::uint32_t version, bool zstd)
{
    bitrep::save_header header;
    header.format = bitrep::save_header::current_format;
    header.flags = zstd ? bitrep::save_header::zstd_payload : 0;
    header.save_version = version;
    header.fingerprint = bitrep::schema_fingerprint(schema);
    header.schema_bytes = static_cast<std::uint32_t>(schema.size());
    header.payload_bits = payload_bits;
    header.stored_payload_bytes = stored.size();
    std::vector<std::uint8_t> file(header.header_bytes() + schema.size() + stored.size());
    const auto schema_at = file.begin() + static_cast<std::ptrdiff_t>(header.header_bytes());
    std::ranges::copy(stored, std::ranges::copy(schema, schema_at).out);
    bitrep::detail::seal_save(file, header);
    return file;
}

/// A zstd frame that declares `content` bytes and holds none: a few bytes
/// that would have a careless reader allocate `content` bytes.
inline std::vector<std::uint8_t> frame_declaring(std::uint64_t content)
{
    std::vector<std::uint8_t> frame{0x28, 0xB5, 0x2F, 0xFD, 0xE0}; // magic; 8-byte content size, single segment
    for (int i = 0; i < 8; ++i)
        frame.push_back(static_cast<std::uint8_t>(content >> (8 * i)));
    frame.insert(frame.end(), {0x01, 0x00, 0x00}); // the last block: raw, empty
    return frame;
}

} // namespace hostile_saves
