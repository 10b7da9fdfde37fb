// Boost.CRC behind the two functions of detail/checksums.hpp.
#include <bitrep/detail/checksums.hpp>

#include <boost/crc.hpp>

namespace bitrep::detail {

std::uint32_t crc32(std::span<const std::uint8_t> first, std::span<const std::uint8_t> second,
                    std::span<const std::uint8_t> third) noexcept
{
    boost::crc_32_type crc;
    crc.process_bytes(first.data(), first.size());
    crc.process_bytes(second.data(), second.size());
    crc.process_bytes(third.data(), third.size());
    return crc.checksum();
}

std::uint64_t crc64_xz(std::span<const std::uint8_t> bytes) noexcept
{
    boost::crc_optimal<64, 0x42F0E1EBA9EA3693ull, ~0ull, ~0ull, true, true> crc;
    crc.process_bytes(bytes.data(), bytes.size());
    return crc.checksum();
}

} // namespace bitrep::detail
