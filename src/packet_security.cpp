// ChaCha20-Poly1305 (IETF) sealing and opening of replication packets
// (docs/design/security.md, "The AEAD path"), when bitrep is built with libsodium.
#include <bitrep/replication/security.hpp>

#include <bitrep/detail/little_endian.hpp>

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
    detail::store_le(nonce.data(), static_cast<std::uint32_t>(way));
    detail::store_le(nonce.data() + 4, number);
    return nonce;
}

/// Protocol id, kind, and the packet's cleartext connection id and number.
std::array<unsigned char, 5 + replication::aead_prefix_bytes>
associated_data(std::uint32_t protocol_id, replication::packet_kind kind, std::span<const std::uint8_t> prefix) noexcept
{
    std::array<unsigned char, 5 + replication::aead_prefix_bytes> data{};
    detail::store_le(data.data(), protocol_id);
    data[4] = static_cast<unsigned char>(kind);
    std::copy(prefix.begin(), prefix.end(), data.begin() + 5);
    return data;
}
#endif

constexpr std::size_t overhead = replication::aead_overhead_bytes;

} // namespace

void wipe_secret(std::span<std::uint8_t> secret) noexcept
{
#if BITREP_HAS_SODIUM
    ::sodium_memzero(secret.data(), secret.size());
#else
    // Volatile stores: the compiler may not drop them as dead.
    volatile std::uint8_t* bytes = secret.data();
    for (std::size_t i = 0; i < secret.size(); ++i)
        bytes[i] = 0;
#endif
}

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

packet_key connection_key([[maybe_unused]] const packet_key& key, [[maybe_unused]] direction way,
                          [[maybe_unused]] std::uint64_t connection) noexcept
{
    packet_key derived;
#if BITREP_HAS_SODIUM
    static_assert(crypto_kdf_CONTEXTBYTES == 8 && crypto_kdf_KEYBYTES == 32);
    // The context names the direction, so that the two directions of one
    // connection seal under different keys.
    const char* context = way == direction::server_to_client ? "bitrepSC" : "bitrepCS";
    if (sodium_ready())
        ::crypto_kdf_derive_from_key(derived.bytes.data(), derived.bytes.size(), connection, context, key.bytes.data());
#endif
    return derived;
}

std::uint64_t connection_fingerprint([[maybe_unused]] const packet_key& key,
                                    [[maybe_unused]] std::uint64_t connection) noexcept
{
    std::uint64_t fingerprint = 0;
#if BITREP_HAS_SODIUM
    static_assert(crypto_kdf_BYTES_MIN == 16);
    std::array<std::uint8_t, crypto_kdf_BYTES_MIN> derived{};
    if (sodium_ready())
        ::crypto_kdf_derive_from_key(derived.data(), derived.size(), connection, "bitrepFP", key.bytes.data());
    fingerprint = detail::load_le<std::uint64_t>(derived.data());
    wipe_secret(derived);
#endif
    return fingerprint;
}

status aead_prefix(std::span<const std::uint8_t> packet, std::uint64_t& connection, std::uint64_t& number) noexcept
{
    if (packet.size() <= overhead)
        return status(error::truncated, packet.size() * 8, "packet",
                      "shorter than its connection id, number, body and tag");
    connection = detail::load_le<std::uint64_t>(packet.data());
    number = detail::load_le<std::uint64_t>(packet.data() + aead_connection_bytes);
    return {};
}

// Without libsodium only the length checks use the parameters.
status aead_seal([[maybe_unused]] const packet_key& key, [[maybe_unused]] direction way,
                 [[maybe_unused]] std::uint64_t connection, [[maybe_unused]] std::uint32_t protocol_id,
                 [[maybe_unused]] packet_kind kind, [[maybe_unused]] std::uint64_t number,
                 std::span<std::uint8_t> packet) noexcept
{
    if (packet.size() <= overhead)
        return status(error::buffer_too_small, packet.size() * 8, "packet", "no room for a body between the number and the tag");
#if BITREP_HAS_SODIUM
    if (!sodium_ready())
        return status(error::io_error, 0, "packet", "libsodium could not initialise");
    detail::store_le(packet.data(), connection);
    detail::store_le(packet.data() + aead_connection_bytes, number);
    const nonce_bytes nonce = nonce_for(way, number);
    const auto data = associated_data(protocol_id, kind, packet.first(aead_prefix_bytes));
    const std::span<std::uint8_t> body = packet.subspan(aead_prefix_bytes, packet.size() - overhead);
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
    std::uint64_t connection = 0;
    std::uint64_t number = 0;
    if (status numbered = aead_prefix(packet, connection, number); !numbered)
        return numbered;
    if (body.size() != packet.size() - overhead)
        return status(error::buffer_too_small, 0, "packet", "the body buffer is not the packet's body size");
#if BITREP_HAS_SODIUM
    if (!sodium_ready())
        return status(error::io_error, 0, "packet", "libsodium could not initialise");
    const nonce_bytes nonce = nonce_for(way, number);
    const auto data = associated_data(protocol_id, kind, packet.first(aead_prefix_bytes));
    const std::span<const std::uint8_t> sealed = packet.subspan(aead_prefix_bytes, body.size());
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
