// Authenticated, encrypted packets (docs/security.md, section 1):
// ChaCha20-Poly1305 (IETF) from libsodium, compiled into the library
// (src/packet_security.cpp) so that no user file includes libsodium.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include <bitrep/replication/packet.hpp>
#include <bitrep/status.hpp>

namespace bitrep {

/// How a connection's packets are protected; both ends must agree.
enum class packet_security : std::uint8_t {
    /// A CRC-32 over the protocol id: catches damage and other games'
    /// traffic, not an attacker. For transports that already authenticate.
    crc,
    /// ChaCha20-Poly1305 with a per-connection key: packets are encrypted,
    /// authenticated and numbered, and replays are refused.
    aead,
};

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

} // namespace replication
} // namespace bitrep
