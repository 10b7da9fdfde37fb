// Authenticated, encrypted packets (docs/design/security.md, "The AEAD path"):
// ChaCha20-Poly1305 (IETF) from libsodium, compiled into the library
// (src/packet_security.cpp) so that no user file includes libsodium.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <bitrep/replication/packet.hpp>
#include <bitrep/status.hpp>

namespace bitrep {

/// Overwrites `secret` with zeros in a way the compiler may not drop
/// (sodium_memzero where libsodium is built in), so that a key or a
/// decrypted body does not outlive its owner in freed memory.
void wipe_secret(std::span<std::uint8_t> secret) noexcept;

/// A connection's 32-byte key, established by the game's login. One key may
/// serve several connections one after another (a reconnection) when the
/// login also hands out a connection id for each: each connection seals
/// under keys derived from both (docs/design/security.md, "The AEAD path").
struct packet_key {
    std::array<std::uint8_t, 32> bytes{};

    ~packet_key() { wipe_secret(bytes); }

    /// A key from libsodium's CSPRNG (all zeros, and false from
    /// aead_available(), in a bitrep built without libsodium).
    static packet_key random() noexcept;
    /// Whether any byte is set: the all-zero key is no key.
    bool present() const noexcept
    {
        for (std::uint8_t b : bytes)
            if (b != 0)
                return true;
        return false;
    }
    friend bool operator==(const packet_key&, const packet_key&) = default;
};

namespace replication {

/// Which way a packet goes: part of its nonce, so that a packet reflected
/// back at its sender does not open.
enum class direction : std::uint32_t { server_to_client = 1, client_to_server = 2 };

constexpr std::size_t aead_connection_bytes = 8; ///< the connection id, first, in clear
constexpr std::size_t aead_number_bytes = 8;     ///< the cleartext packet number, after the id
constexpr std::size_t aead_prefix_bytes = aead_connection_bytes + aead_number_bytes;
constexpr std::size_t aead_tag_bytes = 16; ///< the Poly1305 tag, last
constexpr std::size_t aead_overhead_bytes = aead_prefix_bytes + aead_tag_bytes;

/// Whether this bitrep was built with libsodium.
bool aead_available() noexcept;

/// The key one direction's packets of one connection are sealed under:
/// derived from the long-term `key` by libsodium's KDF (BLAKE2b) with the
/// direction as context and the `connection` id as subkey id. Both ends
/// know the id before any packet, so each derives both directions' keys at
/// once; a new id per connection gives it keys of its own, so that its
/// packet numbers starting again at 0 never repeat a nonce under one key,
/// and no packet of another connection opens.
packet_key connection_key(const packet_key& key, direction way, std::uint64_t connection) noexcept;

/// A one-way 64-bit fingerprint of the pair (`key`, `connection`), by the
/// same KDF under a context of its own: lets a server notice a pair it has
/// used before without keeping any key (0 without libsodium).
std::uint64_t connection_fingerprint(const packet_key& key, std::uint64_t connection) noexcept;

/// Seals `packet` in place under `sealing_key` (a connection_key): its
/// first 8 bytes receive `connection`, the next 8 `number`, the bytes
/// between the number and the last 16 are encrypted, and the last 16
/// receive the tag. The associated data is the protocol id, the kind, the
/// connection id and the number. Fails (io_error) without libsodium, or
/// when the packet has no body.
status aead_seal(const packet_key& sealing_key, direction way, std::uint64_t connection, std::uint32_t protocol_id,
                 packet_kind kind, std::uint64_t number, std::span<std::uint8_t> packet) noexcept;

/// The connection id and the packet number of a sealed packet,
/// unauthenticated: for refusing another connection's packets and the
/// replay check before any decryption. Fails (truncated) when the packet is
/// too short to hold them, a tag and a body.
status aead_prefix(std::span<const std::uint8_t> packet, std::uint64_t& connection, std::uint64_t& number) noexcept;

/// Authenticates and decrypts `packet` into `body` (packet.size() - 32
/// bytes) under `sealing_key`, the connection_key of its sender. On
/// any failure (corrupt) `body` is left zeroed: nothing of an
/// unauthenticated packet is ever handed on.
status aead_open(const packet_key& sealing_key, direction way, std::uint32_t protocol_id, packet_kind kind,
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
/// the connection id and the packet number) and after it (the tag).
constexpr std::size_t prefix_bytes(packet_security security) noexcept
{
    return security == packet_security::aead ? aead_prefix_bytes : crc_bytes;
}
constexpr std::size_t suffix_bytes(packet_security security) noexcept
{
    return security == packet_security::aead ? aead_tag_bytes : 0;
}

/// The largest packet the server sends with `options`: max_packet_bytes,
/// raised where it leaves no room for the path's overhead and a header.
constexpr std::size_t server_packet_bytes(const replication_options& options) noexcept
{
    return std::max(options.max_packet_bytes,
                    16 - crc_bytes + prefix_bytes(options.security) + suffix_bytes(options.security));
}

/// The largest packet either end of a connection writes with `options`:
/// the server's, or a client's acks (of state packets and of slices) where
/// they need more. A received packet longer than this is refused before
/// anything of it is read.
constexpr std::size_t largest_packet(const replication_options& options) noexcept
{
    constexpr std::size_t acks_bytes = (ack_bits + slice_ack::bits + 7) / 8;
    return std::max(server_packet_bytes(options),
                    acks_bytes + prefix_bytes(options.security) + suffix_bytes(options.security));
}

/// Whether one end of a connection is inside its receive(), where the
/// game's handlers run. A handler that calls receive() again for the same
/// connection is refused (would_block) instead of overwriting the packet
/// still being read. A copied or moved end starts outside.
class receiving_flag {
public:
    receiving_flag() = default;
    receiving_flag(const receiving_flag&) noexcept {}
    // An end keeps its own mark: whether the other is receiving says nothing of it.
    receiving_flag& operator=(const receiving_flag&) noexcept { return *this; } // NOLINT(cert-oop54-cpp): copies nothing

    /// Marks the end as receiving for its lifetime (left by return or by a
    /// handler's exception alike), unless it already was: then entered()
    /// says why not, and nothing is marked.
    class scope {
    public:
        explicit scope(receiving_flag& flag) noexcept : flag_(flag.on_ ? nullptr : &flag)
        {
            if (flag_ != nullptr)
                flag_->on_ = true;
        }
        scope(const scope&) = delete;
        scope& operator=(const scope&) = delete;
        ~scope()
        {
            if (flag_ != nullptr)
                flag_->on_ = false;
        }
        status entered() const noexcept
        {
            if (flag_ != nullptr) [[likely]]
                return {};
            return status(error::would_block, 0, "packet",
                          "receive() for this connection inside its own receive() (a handler): call it after");
        }

    private:
        receiving_flag* flag_;
    };

private:
    bool on_ = false;
};

/// One end of one connection: seals what it sends and opens what it
/// receives, on the connection's path (docs/design/security.md, "The AEAD path").
/// Two guards holding one key and one next packet number would seal two
/// packets under one nonce, so only one ever seals: a copy opens what its
/// original opens and seals nothing, and a moved-from guard does neither.
class packet_guard {
public:
    packet_guard() = default;
    /// On the AEAD path: seals under the key of (`key`, this direction,
    /// `connection`) and opens only the peer's packets sealed under the key
    /// of (`key`, the other direction, `connection`). The pair (key,
    /// connection id) must never have served another connection: a fresh
    /// key per connection may keep id 0; a key used again needs a new id.
    packet_guard(packet_security security, const packet_key& key, direction sends,
                 std::uint64_t connection = 0) noexcept
        : security_(security), sends_(sends), connection_(connection), keyed_(key.present())
    {
        if (security != packet_security::aead)
            return;
        const direction receives =
            sends == direction::server_to_client ? direction::client_to_server : direction::server_to_client;
        sealing_key_ = connection_key(key, sends, connection);
        opening_key_ = connection_key(key, receives, connection);
    }
    packet_guard(const packet_guard& other) { copy(other); }
    packet_guard& operator=(const packet_guard& other)
    {
        if (this != &other)
            copy(other);
        return *this;
    }
    packet_guard(packet_guard&& other) noexcept { take(other); }
    packet_guard& operator=(packet_guard&& other) noexcept
    {
        if (this != &other)
            take(other);
        return *this;
    }
    ~packet_guard() { clear_body(); }

    /// Drops the keys of a (key, connection id) pair that served an earlier
    /// connection: sealing again under it would repeat that connection's
    /// nonces. Every packet is then refused, saying why.
    void refuse_reused_pair() noexcept
    {
        wipe_secret(sealing_key_.bytes);
        wipe_secret(opening_key_.bytes);
        keyed_ = false;
        reused_ = true;
    }

    /// Opens packets up to `packet_bytes` long (largest_packet of the
    /// connection's options) and refuses longer ones before reading
    /// anything of them; on the AEAD path the body's memory is taken here,
    /// so that open() allocates nothing.
    void open_up_to(std::size_t packet_bytes)
    {
        largest_ = packet_bytes;
        if (security_ == packet_security::aead)
            body_.resize(std::max(body_.size(), packet_bytes));
    }

    /// Wipes the guard's decrypted body when it ends, however it is left
    /// (a handler reading the body may throw).
    class body_scope {
    public:
        explicit body_scope(packet_guard& guard) noexcept : guard_(guard) {}
        body_scope(const body_scope&) = delete;
        body_scope& operator=(const body_scope&) = delete;
        ~body_scope() { guard_.clear_body(); }

    private:
        packet_guard& guard_;
    };

    packet_security security() const noexcept { return security_; }
    std::size_t prefix() const noexcept { return prefix_bytes(security_); }
    std::size_t suffix() const noexcept { return suffix_bytes(security_); }
    /// The connection id, sent in clear in each AEAD packet.
    std::uint64_t connection() const noexcept { return connection_; }

    /// Why seal() would fail whatever the packet (ok when it would not), so
    /// that a sender can refuse before it commits anything to a packet.
    status can_seal() const noexcept
    {
        if (security_ == packet_security::crc)
            return {};
        if (!keyed_) [[unlikely]]
            return no_key();
        if (!seals_) [[unlikely]]
            return status(error::options_mismatch, 0, "packet",
                          "a copy seals nothing: it would repeat its original's nonces (move the client instead)");
        if (next_ == ~std::uint64_t{0}) [[unlikely]]
            return status(error::io_error, 0, "packet", "packet numbers used up: the connection needs a new key");
        if (!aead_available()) [[unlikely]]
            return status(error::io_error, 0, "packet", "this bitrep was built without libsodium (libsodium-dev)");
        return {};
    }

    /// Seals `packet` (prefix, body, suffix) of `kind`; each AEAD packet
    /// takes the next number, and none is ever used twice.
    status seal(std::uint32_t protocol_id, packet_kind kind, std::span<std::uint8_t> packet) noexcept
    {
        if (security_ == packet_security::crc) {
            replication::seal(protocol_id, kind, packet);
            return {};
        }
        if (status able = can_seal(); !able) [[unlikely]]
            return able;
        if (status sealed = aead_seal(sealing_key_, sends_, connection_, protocol_id, kind, next_, packet); !sealed)
            [[unlikely]]
            return sealed;
        ++next_;
        return {};
    }

    /// Checks a received packet and gives its body: on the CRC path the
    /// bytes after the CRC; on the AEAD path the decrypted body (in this
    /// guard, valid until the next open or clear_body), once the packet is
    /// of this connection (else corrupt, before any decryption), its number
    /// fresh (else stale) and it authenticates (else corrupt). Only an
    /// authentic packet moves the replay window.
    status open(std::uint32_t protocol_id, packet_kind kind, std::span<const std::uint8_t> packet,
                std::span<const std::uint8_t>& body)
    {
        if (packet.size() > largest_) [[unlikely]]
            return status(error::corrupt, 0, "packet",
                          "longer than any packet of this connection (replication_options::max_packet_bytes)");
        if (security_ == packet_security::crc) {
            if (status sealed = check_seal(protocol_id, kind, packet); !sealed)
                return sealed;
            body = packet.subspan(crc_bytes);
            return {};
        }
        if (!keyed_) [[unlikely]]
            return no_key();
        std::uint64_t connection = 0;
        std::uint64_t number = 0;
        if (status numbered = aead_prefix(packet, connection, number); !numbered)
            return numbered;
        if (connection != connection_)
            return status(error::corrupt, 0, "packet",
                          "sealed for another connection under this key (an earlier one, or a replay of it)");
        if (!window_.fresh(number))
            return status(error::stale, 0, "packet", "a packet number seen before, or older than the replay window");
        // The body's memory holds no other packet (body_scope wiped it) and
        // is large enough (open_up_to): nothing is allocated or overwritten
        // before the packet authenticates.
        clear_body();
        body_bytes_ = packet.size() - aead_overhead_bytes;
        const std::span<std::uint8_t> opened_body(body_.data(), body_bytes_);
        const direction receives =
            sends_ == direction::server_to_client ? direction::client_to_server : direction::server_to_client;
        if (status opened = aead_open(opening_key_, receives, protocol_id, kind, packet, opened_body); !opened)
            return opened;
        window_.accept(number);
        body = opened_body;
        return {};
    }

    /// Zeroes the decrypted body of the last open, once it has been read.
    void clear_body() noexcept
    {
        wipe_secret(std::span<std::uint8_t>(body_.data(), body_bytes_));
        body_bytes_ = 0;
    }

private:
    status no_key() const noexcept
    {
        if (reused_)
            return status(error::options_mismatch, 0, "packet",
                          "this key and connection id served an earlier connection: give each connection under "
                          "one key a new connection id (add_client(key, connection_id))");
        return status(error::options_mismatch, 0, "packet",
                      "no packet key: security aead needs the connection's packet_key (add_client(key), "
                      "replication_client(options, key)); the all-zero key is none, and a moved-from end has none");
    }

    /// `other`'s connection, but not its sealing (see the class comment),
    /// nor its decrypted body, which only the original is reading.
    void copy(const packet_guard& other)
    {
        assign(other);
        body_.resize(std::max(body_.size(), other.body_.size())); // as open_up_to, for the copy
        seals_ = false;
        wipe_secret(sealing_key_.bytes);
    }

    /// Takes `other`'s connection and leaves it keyless, so that only one
    /// guard can go on numbering its packets.
    void take(packet_guard& other) noexcept
    {
        assign(other);
        body_ = std::move(other.body_);
        body_bytes_ = std::exchange(other.body_bytes_, 0);
        other.body_.clear();
        wipe_secret(other.sealing_key_.bytes);
        wipe_secret(other.opening_key_.bytes);
        other.keyed_ = false;
    }

    void assign(const packet_guard& other) noexcept
    {
        clear_body();
        security_ = other.security_;
        sends_ = other.sends_;
        connection_ = other.connection_;
        sealing_key_ = other.sealing_key_;
        keyed_ = other.keyed_;
        reused_ = other.reused_;
        seals_ = other.seals_;
        largest_ = other.largest_;
        next_ = other.next_;
        opening_key_ = other.opening_key_;
        window_ = other.window_;
    }

    packet_security security_ = packet_security::crc;
    direction sends_ = direction::server_to_client;
    std::uint64_t connection_ = 0;
    packet_key sealing_key_{}; ///< this end's direction
    packet_key opening_key_{}; ///< the peer's direction
    bool keyed_ = false;       ///< holds a key (not all zero, not moved from)
    bool reused_ = false;      ///< refuse_reused_pair() dropped the keys
    bool seals_ = true;        ///< not a copy
    std::size_t largest_ = 0;  ///< open_up_to: the longest packet opened
    std::uint64_t next_ = 0;
    replay_window window_;
    /// The decrypted body is its first body_bytes_; the rest is zero.
    std::vector<std::uint8_t> body_;
    std::size_t body_bytes_ = 0;
};

} // namespace replication
} // namespace bitrep
