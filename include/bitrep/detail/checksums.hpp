// The checksums of save files and packets (Boost.CRC), compiled once into
// the library (src/checksums.cpp) so that no user translation unit parses
// Boost.CRC.
#pragma once

#include <cstdint>
#include <span>

namespace bitrep::detail {

/// CRC-32 (ISO-HDLC, as zlib's) over `first` then `second`.
std::uint32_t crc32(std::span<const std::uint8_t> first, std::span<const std::uint8_t> second = {},
                    std::span<const std::uint8_t> third = {}) noexcept;

/// CRC-64/XZ over `bytes`.
std::uint64_t crc64_xz(std::span<const std::uint8_t> bytes) noexcept;

} // namespace bitrep::detail
