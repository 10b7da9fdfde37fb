// ChaCha20-Poly1305 (IETF) sealing and opening of replication packets
// (docs/security.md, section 1), when bitrep is built with libsodium.
#include <bitrep/replication/security.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#ifndef BITREP_HAS_SODIUM
#define BITREP_HAS_SODIUM 0
#endif
#if BITREP_HAS_SODIUM
#include <sodium.h>
#endif

namespace bitrep {

namespace {

#if BITREP_HAS_SODIUM
bool sodium_ready() noexcept
{
    // sodium_init is thread-safe and idempotent; -1 means it cannot work.
    static const bool ready = ::sodium_init() >= 0;
    return ready;
}

using nonce_bytes = std::array<unsigned char, crypto_aead_chacha20poly1305_IETF_NPUBBYTES>;
static_assert(crypto_aead_chacha20poly1305_IETF_NPUBBYTES == 12);
static_assert(crypto_aead_chacha20poly1305_IETF_ABYTES == replication::aead_tag_bytes);
static_assert(crypto_aead_chacha20poly1305_IETF_KEYBYTES == 32);

nonce_bytes nonce_for(replication::direction way, std::uint64_t number) noexcept
{
    nonce_bytes nonce{};
    const auto w = static_cast<std::uint32_t>(way);
    for (std::size_t i = 0; i < 4; ++i)
        nonce[i] = static_cast<unsigned char>(w >> (8 * i));
    for (std::size_t i = 0; i < 8; ++i)
        nonce[4 + i] = static_cast<unsigned char>(number >> (8 * i));
    return nonce;
}

/// Protocol id, kind, and the packet's cleartext number.
std::array<unsigned char, 13> associated_data(std::uint32_t protocol_id, replication::packet_kind kind,
                                              std::span<const std::uint8_t> number) noexcept
{
    std::array<unsigned char, 13> data{};
    for (std::size_t i = 0; i < 4; ++i)
        data[i] = static_cast<unsigned char>(protocol_id >> (8 * i));
    data[4] = static_cast<unsigned char>(kind);
    std::copy(number.begin(), number.end(), data.begin() + 5);
    return data;
}
#endif

constexpr std::size_t overhead = replication::aead_number_bytes + replication::aead_tag_bytes;

} // namespace

packet_key packet_key::random() noexcept
{
    packet_key key;
#if BITREP_HAS_SODIUM
    if (sodium_ready())
        ::randombytes_buf(key.bytes.data(), key.bytes.size());
#endif
    return key;
}

namespace replication {

bool aead_available() noexcept
{
#if BITREP_HAS_SODIUM
    return sodium_ready();
#else
    return false;
#endif
}

status aead_number(std::span<const std::uint8_t> packet, std::uint64_t& number) noexcept
{
    if (packet.size() <= overhead)
        return status(error::truncated, packet.size() * 8, "packet", "shorter than its number, body and tag");
    number = 0;
    for (std::size_t i = 0; i < aead_number_bytes; ++i)
        number |= std::uint64_t{packet[i]} << (8 * i);
    return {};
}

// Without libsodium only the length checks use the parameters.
status aead_seal([[maybe_unused]] const packet_key& key, [[maybe_unused]] direction way,
                 [[maybe_unused]] std::uint32_t protocol_id, [[maybe_unused]] packet_kind kind,
                 [[maybe_unused]] std::uint64_t number, std::span<std::uint8_t> packet) noexcept
{
    if (packet.size() <= overhead)
        return status(error::buffer_too_small, packet.size() * 8, "packet", "no room for a body between number and tag");
#if BITREP_HAS_SODIUM
    if (!sodium_ready())
        return status(error::io_error, 0, "packet", "libsodium could not initialise");
    for (std::size_t i = 0; i < aead_number_bytes; ++i)
        packet[i] = static_cast<std::uint8_t>(number >> (8 * i));
    const nonce_bytes nonce = nonce_for(way, number);
    const auto data = associated_data(protocol_id, kind, packet.first(aead_number_bytes));
    const std::span<std::uint8_t> body = packet.subspan(aead_number_bytes, packet.size() - overhead);
    unsigned long long tag_length = 0;
    ::crypto_aead_chacha20poly1305_ietf_encrypt_detached(body.data(), packet.data() + packet.size() - aead_tag_bytes,
                                                         &tag_length, body.data(), body.size(), data.data(),
                                                         data.size(), nullptr, nonce.data(), key.bytes.data());
    return {};
#else
    return status(error::io_error, 0, "packet", "this bitrep was built without libsodium (libsodium-dev)");
#endif
}

status aead_open([[maybe_unused]] const packet_key& key, [[maybe_unused]] direction way,
                 [[maybe_unused]] std::uint32_t protocol_id, [[maybe_unused]] packet_kind kind,
                 std::span<const std::uint8_t> packet, std::span<std::uint8_t> body) noexcept
{
    std::uint64_t number = 0;
    if (status numbered = aead_number(packet, number); !numbered)
        return numbered;
    if (body.size() != packet.size() - overhead)
        return status(error::buffer_too_small, 0, "packet", "the body buffer is not the packet's body size");
#if BITREP_HAS_SODIUM
    if (!sodium_ready())
        return status(error::io_error, 0, "packet", "libsodium could not initialise");
    const nonce_bytes nonce = nonce_for(way, number);
    const auto data = associated_data(protocol_id, kind, packet.first(aead_number_bytes));
    const std::span<const std::uint8_t> sealed = packet.subspan(aead_number_bytes, body.size());
    const int refused = ::crypto_aead_chacha20poly1305_ietf_decrypt_detached(
        body.data(), nullptr, sealed.data(), sealed.size(), packet.data() + packet.size() - aead_tag_bytes,
        data.data(), data.size(), nonce.data(), key.bytes.data());
    if (refused != 0) {
        std::fill(body.begin(), body.end(), std::uint8_t{0});
        return status(error::corrupt, 0, "packet",
                      "not authentic: tampered, other key, or peer on CRC (replication_options::security)");
    }
    return {};
#else
    std::fill(body.begin(), body.end(), std::uint8_t{0});
    return status(error::io_error, 0, "packet", "this bitrep was built without libsodium (libsodium-dev)");
#endif
}

} // namespace replication
} // namespace bitrep
