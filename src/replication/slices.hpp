// State packets too large for one datagram, sent in slices
// (docs/formats/packets.md, section 4): the server's sender, per
// connection, and the client's reassembly.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include <bitrep/replication/packet.hpp>
#include <bitrep/replication/security.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep::replication {

/// Which slices of a cut are held, as bits.
class slice_set {
public:
    void reset(std::uint32_t count)
    {
        words_.assign((count + 63) / 64, 0);
        count_ = count;
        held_ = 0;
    }
    bool has(std::uint32_t index) const noexcept { return (words_[index / 64] >> (index % 64) & 1u) != 0; }
    /// Marks `index` (< count); whether it was new.
    bool add(std::uint32_t index) noexcept
    {
        std::uint64_t& word = words_[index / 64];
        const std::uint64_t bit = std::uint64_t{1} << (index % 64);
        if ((word & bit) != 0)
            return false;
        word |= bit;
        ++held_;
        return true;
    }
    bool whole() const noexcept { return held_ == count_; }
    std::uint32_t count() const noexcept { return count_; }
    /// The first index not held, from `from` on (count when none).
    std::uint32_t first_missing(std::uint32_t from = 0) const noexcept
    {
        for (std::uint32_t index = from; index < count_; ++index)
            if (!has(index))
                return index;
        return count_;
    }

private:
    std::vector<std::uint64_t> words_;
    std::uint32_t count_ = 0;
    std::uint32_t held_ = 0;
};

/// The server's side, per connection: one large state packet on its way,
/// a slice per replicate() call, the ones not acknowledged round and round
/// until the client holds them all (or acknowledges the packet).
class slice_sender {
public:
    bool active() const noexcept { return active_; }
    std::uint16_t sequence() const noexcept { return sequence_; }
    std::uint32_t count() const noexcept { return cut_.count; }

    /// The memory the packet's body (what follows the CRC, or the connection
    /// id and number) is written into, `bytes` long.
    std::span<std::uint8_t> body(std::size_t bytes)
    {
        body_.resize(bytes);
        return body_;
    }
    /// Starts sending the body's first `bytes`, packet `sequence`, in
    /// slices of at most `room` bytes.
    void start(std::uint16_t sequence, std::size_t bytes, std::size_t room)
    {
        sequence_ = sequence;
        cut_ = slicing::for_room(bytes, room);
        acked_.reset(cut_.count);
        next_ = 0;
        active_ = true;
    }
    /// Writes the next slice not acknowledged (header, then its bytes) at
    /// the start of `out`, which holds room for it; returns its size.
    std::size_t write_next(std::span<std::uint8_t> out)
    {
        next_ = acked_.first_missing(next_);
        if (next_ == cut_.count)
            next_ = acked_.first_missing(0);
        slice_header header{sequence_, cut_, next_};
        failure_record failure;
        basic_write_stream<scope::replication> stream(out.first(slice_header::bytes), failure);
        static_cast<void>(header.serialize(stream));
        static_cast<void>(stream.flush());
        const std::size_t size = cut_.size(next_);
        std::memcpy(out.data() + slice_header::bytes, body_.data() + cut_.offset(next_), size);
        ++next_;
        return slice_header::bytes + size;
    }
    /// Takes the client's acknowledgement of slices (of this packet only;
    /// indices past its slices, which no honest client sends, are ignored).
    void acknowledged(const slice_ack& ack) noexcept
    {
        if (!active_ || !ack.any || ack.sequence != sequence_)
            return;
        for (std::uint32_t index = 0; index < std::min(ack.first_missing, cut_.count); ++index)
            acked_.add(index);
        for (std::uint32_t i = 0; i <= 64 && i <= ack.newest; ++i) {
            // i = 0: the newest itself; then the mask's bit i - 1.
            const std::uint32_t index = ack.newest - i;
            if (index < cut_.count && (i == 0 || (ack.mask >> (i - 1) & 1u) != 0))
                acked_.add(index);
        }
        if (acked_.whole())
            finish();
    }
    void finish() noexcept { active_ = false; }
    std::size_t bytes() const noexcept { return body_.capacity() + acked_.count() / 8; }

private:
    std::vector<std::uint8_t> body_;
    slicing cut_;
    slice_set acked_;
    std::uint32_t next_ = 0; ///< where the next slice is looked for
    std::uint16_t sequence_ = 0;
    bool active_ = false;
};

/// The client's side: the slices of one large state packet, put together.
class slice_receiver {
public:
    /// Packets of at most `max_bytes` (replication_options::max_state_bytes).
    explicit slice_receiver(std::size_t max_bytes) noexcept : max_bytes_(max_bytes) {}
    slice_receiver(const slice_receiver& other) : max_bytes_(other.max_bytes_) {}
    slice_receiver& operator=(const slice_receiver& other)
    {
        if (this != &other) {
            clear();
            max_bytes_ = other.max_bytes_;
        }
        return *this;
    }
    slice_receiver(slice_receiver&&) noexcept = default;
    slice_receiver& operator=(slice_receiver&&) noexcept = default;
    ~slice_receiver() { clear(); }

    /// Takes a slice (its header and bytes: the datagram's body; bit
    /// offsets count from `head_bits`); `whole` says whether it completed
    /// its packet (then body() holds it). A slice of a packet not newer than
    /// the newest the client applied (`applied`), or older than the one
    /// being put together, is stale; a newer one starts over. Malformed
    /// slices change nothing.
    status take(std::span<const std::uint8_t> slice, std::size_t head_bits, const ack_record& applied, bool& whole);
    /// The packet put together, once whole.
    std::span<const std::uint8_t> body() const noexcept { return {bytes_.data(), cut_.total}; }
    bool active() const noexcept { return active_; }
    std::uint16_t sequence() const noexcept { return sequence_; }
    /// What the client's next packet acknowledges (nothing when no packet
    /// is being put together).
    slice_ack ack() const noexcept;
    /// Forgets the packet being put together, wiping its bytes.
    void clear() noexcept
    {
        wipe_secret(std::span<std::uint8_t>(bytes_.data(), std::min<std::size_t>(cut_.total, bytes_.size())));
        active_ = false;
        cut_ = {};
    }

private:
    std::size_t max_bytes_;
    std::vector<std::uint8_t> bytes_;
    slicing cut_;
    slice_set held_;
    std::uint32_t newest_ = 0;
    std::uint16_t sequence_ = 0;
    bool active_ = false;
};

inline status slice_receiver::take(std::span<const std::uint8_t> slice, std::size_t head_bits,
                                   const ack_record& applied, bool& whole)
{
    whole = false;
    failure_record failure;
    basic_read_stream<scope::replication> stream(slice.first(std::min(slice.size(), slice_header::bytes)), failure);
    slice_header header;
    if (!header.serialize(stream)) [[unlikely]]
        return stream.failure_status("slice");
    if (!header.cut.valid() || header.index >= header.cut.count) [[unlikely]]
        return status(error::out_of_range, head_bits, "slice", "slice count, index and packet size disagree");
    if (header.cut.total > max_bytes_) [[unlikely]]
        return status(error::out_of_range, head_bits + 48, "slice",
                      "a state packet larger than replication_options::max_state_bytes");
    const std::span<const std::uint8_t> part = slice.subspan(slice_header::bytes);
    if (part.size() != header.cut.size(header.index)) [[unlikely]]
        return status(error::out_of_range, head_bits + slice_header::bits, "slice", "not the slice's length");
    if (active_ && header.sequence == sequence_ &&
        (header.cut.total != cut_.total || header.cut.count != cut_.count)) [[unlikely]]
        return status(error::out_of_range, head_bits, "slice", "cut otherwise than the packet's other slices");
    if (applied.any && !sequence_newer(header.sequence, applied.newest))
        return status(error::stale, head_bits, "slice", "of a packet not newer than the newest applied");
    if (active_ && header.sequence != sequence_) {
        if (!sequence_newer(header.sequence, sequence_))
            return status(error::stale, head_bits, "slice", "of an older packet than the one being put together");
        clear();
    }
    if (!active_) {
        bytes_.resize(std::max<std::size_t>(bytes_.size(), header.cut.total));
        held_.reset(header.cut.count);
        cut_ = header.cut;
        sequence_ = header.sequence;
        newest_ = 0;
        active_ = true;
    }
    if (!held_.add(header.index))
        return status(error::stale, head_bits, "slice", "a slice held already");
    std::memcpy(bytes_.data() + cut_.offset(header.index), part.data(), part.size());
    newest_ = std::max(newest_, header.index); // 0 at the start, then a slice held
    whole = held_.whole();
    return {};
}

inline slice_ack slice_receiver::ack() const noexcept
{
    slice_ack ack;
    if (!active_)
        return ack;
    ack.any = true;
    ack.sequence = sequence_;
    ack.first_missing = held_.first_missing();
    ack.newest = newest_;
    for (std::uint32_t i = 0; i < 64 && i < newest_; ++i)
        ack.mask |= std::uint64_t{held_.has(newest_ - 1 - i) ? 1u : 0u} << i;
    return ack;
}

} // namespace bitrep::replication
