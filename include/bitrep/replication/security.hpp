// Authenticated, encrypted packets (docs/security.md, section 1):
// ChaCha20-Poly1305 (IETF) from libsodium, compiled into the library
// (src/packet_security.cpp) so that no user file includes libsodium.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <bitrep/replication/packet.hpp>
#include <bitrep/status.hpp>

namespace bitrep {

/// A connection's 32-byte key, established by the game's login. Never give
/// one key to two connections: packet numbers start again at 0 with each.
struct packet_key {
    std::array<std::uint8_t, 32> bytes{};

    /// A key from libsodium's CSPRNG (all zeros, and false from
    /// aead_available(), in a bitrep built without libsodium).
    static packet_key random() noexcept;
    friend bool operator==(const packet_key&, const packet_key&) = default;
};

namespace replication {

/// Which way a packet goes: part of its nonce, so that a packet reflected
/// back at its sender does not open.
enum class direction : std::uint32_t { server_to_client = 1, client_to_server = 2 };

constexpr std::size_t aead_number_bytes = 8; ///< the cleartext packet number, first
constexpr std::size_t aead_tag_bytes = 16;   ///< the Poly1305 tag, last

/// Whether this bitrep was built with libsodium.
bool aead_available() noexcept;

/// Seals `packet` in place: its first 8 bytes receive `number`, the bytes
/// between them and the last 16 are encrypted, and the last 16 receive the
/// tag. The associated data is the protocol id, the kind and the number.
/// Fails (io_error) without libsodium, or when the packet has no body.
status aead_seal(const packet_key& key, direction way, std::uint32_t protocol_id, packet_kind kind,
                 std::uint64_t number, std::span<std::uint8_t> packet) noexcept;

/// The packet number of a sealed packet, unauthenticated: for the replay
/// check before any decryption. Fails (truncated) when the packet is too
/// short to hold a number, a tag and a body.
status aead_number(std::span<const std::uint8_t> packet, std::uint64_t& number) noexcept;

/// Authenticates and decrypts `packet` into `body` (packet.size() - 24
/// bytes). On any failure (corrupt) `body` is left zeroed: nothing of an
/// unauthenticated packet is ever handed on.
status aead_open(const packet_key& key, direction way, std::uint32_t protocol_id, packet_kind kind,
                 std::span<const std::uint8_t> packet, std::span<std::uint8_t> body) noexcept;

/// The receiver's record of packet numbers: the highest accepted and a bit
/// for each of the 64 below it.
class replay_window {
public:
    static constexpr std::uint64_t size = 64;

    /// Whether `number` may be opened: not accepted before, and not 64 or
    /// more below the highest accepted.
    bool fresh(std::uint64_t number) const noexcept
    {
        if (!any_ || number > highest_)
            return true;
        const std::uint64_t behind = highest_ - number;
        if (behind >= size)
            return false;
        return behind != 0 && (seen_ & (std::uint64_t{1} << (behind - 1))) == 0;
    }
    /// Records an authenticated packet's number (fresh(number) held).
    void accept(std::uint64_t number) noexcept
    {
        if (!any_) {
            any_ = true;
            highest_ = number;
            seen_ = 0;
            return;
        }
        if (number > highest_) {
            const std::uint64_t ahead = number - highest_;
            seen_ = ahead > size ? 0 : ((ahead == size ? 0 : seen_ << ahead) | (std::uint64_t{1} << (ahead - 1)));
            highest_ = number;
        } else {
            seen_ |= std::uint64_t{1} << (highest_ - number - 1);
        }
    }

private:
    bool any_ = false;
    std::uint64_t highest_ = 0;
    std::uint64_t seen_ = 0; ///< bit i: highest - 1 - i was accepted
};

/// How many bytes a path adds to a packet's body: before it (the CRC, or
/// the packet number) and after it (the tag).
constexpr std::size_t prefix_bytes(packet_security security) noexcept
{
    return security == packet_security::aead ? aead_number_bytes : crc_bytes;
}
constexpr std::size_t suffix_bytes(packet_security security) noexcept
{
    return security == packet_security::aead ? aead_tag_bytes : 0;
}

/// One end of one connection: seals what it sends and opens what it
/// receives, on the connection's path (docs/security.md, section 1).
class packet_guard {
public:
    packet_guard() = default;
    packet_guard(packet_security security, const packet_key& key, direction sends) noexcept
        : security_(security), key_(key), sends_(sends)
    {
    }

    packet_security security() const noexcept { return security_; }
    std::size_t prefix() const noexcept { return prefix_bytes(security_); }
    std::size_t suffix() const noexcept { return suffix_bytes(security_); }

    /// Seals `packet` (prefix, body, suffix) of `kind`; each AEAD packet
    /// takes the next number, and none is ever used twice.
    status seal(std::uint32_t protocol_id, packet_kind kind, std::span<std::uint8_t> packet) noexcept
    {
        if (security_ == packet_security::crc) {
            replication::seal(protocol_id, kind, packet);
            return {};
        }
        if (next_ == ~std::uint64_t{0}) [[unlikely]]
            return status(error::io_error, 0, "packet", "packet numbers used up: the connection needs a new key");
        if (status sealed = aead_seal(key_, sends_, protocol_id, kind, next_, packet); !sealed) [[unlikely]]
            return sealed;
        ++next_;
        return {};
    }

    /// Checks a received packet and gives its body: on the CRC path the
    /// bytes after the CRC; on the AEAD path the decrypted body (in this
    /// guard, valid until the next open), once the number is fresh (else
    /// stale, before any decryption) and the packet authenticates (else
    /// corrupt). Only an authentic packet moves the replay window.
    status open(std::uint32_t protocol_id, packet_kind kind, std::span<const std::uint8_t> packet,
                std::span<const std::uint8_t>& body)
    {
        if (security_ == packet_security::crc) {
            if (status sealed = check_seal(protocol_id, kind, packet); !sealed)
                return sealed;
            body = packet.subspan(crc_bytes);
            return {};
        }
        std::uint64_t number = 0;
        if (status numbered = aead_number(packet, number); !numbered)
            return numbered;
        if (!window_.fresh(number))
            return status(error::stale, 0, "packet", "a packet number seen before, or older than the replay window");
        body_.resize(packet.size() - aead_number_bytes - aead_tag_bytes);
        const direction receives =
            sends_ == direction::server_to_client ? direction::client_to_server : direction::server_to_client;
        if (status opened = aead_open(key_, receives, protocol_id, kind, packet, body_); !opened)
            return opened;
        window_.accept(number);
        body = body_;
        return {};
    }

private:
    packet_security security_ = packet_security::crc;
    packet_key key_{};
    direction sends_ = direction::server_to_client;
    std::uint64_t next_ = 0;
    replay_window window_;
    std::vector<std::uint8_t> body_;
};

} // namespace replication
} // namespace bitrep
