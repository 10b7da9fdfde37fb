// Fixed-width little-endian integers in byte buffers: the save file's
// header, the packet CRC, and the AEAD prefix, nonce and associated data.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bitrep::detail {

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

} // namespace bitrep::detail
