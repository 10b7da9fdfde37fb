// An adaptive binary range coder: the arithmetic behind the coded streams
// (docs/design/coded-deltas.md, docs/formats/wire-format.md, section 7).
//
// The coder narrows an interval [low, low + range) of a number written as
// bytes, most significant first. A decision with probability p of a zero
// splits the range at bound = (range >> 15) * p; a one moves low up past
// the bound. When the range falls below 2^24 its top byte is settled and
// shifted out, with a carry propagated through a run of 0xFF bytes held
// back until the carry is known. Integer arithmetic only: the bytes are the
// same on every compiler and platform.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <bitrep/detail/portability.hpp>

namespace bitrep::detail {

inline constexpr int probability_bits = 15;
inline constexpr std::uint32_t probability_one = 1u << probability_bits; // p = 1.0
inline constexpr std::uint32_t range_top = 1u << 24;

} // namespace bitrep::detail

namespace bitrep {

/// The estimated probability that the next decision is a zero. It moves a
/// fraction of the way to each decision: a large fraction while the model
/// is young (1/2, then 1/4, ...: close to counting), settling at 1/32, so a
/// model learns a skewed distribution within the few dozen decisions one
/// packet gives it and then follows it. It stays within [1, 2^15 - 1], so
/// neither side of a split is ever empty.
struct bit_model {
    std::uint16_t zero = detail::probability_one / 2;
    std::uint16_t seen = 0;

    constexpr bit_model() = default;
    /// A prior: the probability of a zero in 1/32768ths.
    constexpr explicit bit_model(std::uint16_t prior) noexcept : zero(prior) {}
    /// A prior held as if `seen_before` decisions had taught it (at most 15).
    constexpr bit_model(std::uint16_t prior, std::uint16_t seen_before) noexcept : zero(prior), seen(seen_before) {}

    BITREP_ALWAYS_INLINE std::uint32_t zero_probability() const noexcept { return zero; }
    BITREP_ALWAYS_INLINE void update(bool bit) noexcept
    {
        if (bit)
            update_one();
        else
            update_zero();
    }
    /// update(false) and update(true), for a caller that has branched on
    /// the bit already. A zero only raises the probability, so only the
    /// upper bound can be passed, and a one only the lower.
    BITREP_ALWAYS_INLINE void update_zero() noexcept
    {
        const std::uint32_t raised = zero + ((detail::probability_one - zero) >> next_shift());
        zero = static_cast<std::uint16_t>(raised > highest ? highest : raised);
    }
    BITREP_ALWAYS_INLINE void update_one() noexcept
    {
        const std::uint32_t lowered = zero - (static_cast<std::uint32_t>(zero) >> next_shift());
        zero = static_cast<std::uint16_t>(lowered < lowest ? lowest : lowered);
    }

private:
    static constexpr std::uint32_t lowest = 32;
    static constexpr std::uint32_t highest = detail::probability_one - 32;
    /// The fraction of the way to move (as a shift) and one more decision seen.
    BITREP_ALWAYS_INLINE int next_shift() noexcept
    {
        static constexpr std::uint8_t shifts[] = {1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5};
        const int shift = shifts[seen];
        seen = static_cast<std::uint16_t>(seen + (seen < 15 ? 1 : 0));
        return shift;
    }
};

} // namespace bitrep

namespace bitrep::detail {

/// Writes decisions into a caller-owned buffer; never writes outside it.
/// After the last decision, finish() settles the shortest byte string that
/// decodes to the same decisions when followed by zeros, and says its length.
class range_encoder {
public:
    explicit range_encoder(std::span<std::uint8_t> buffer) noexcept : out_(buffer.data()), capacity_(buffer.size()) {}

    BITREP_ALWAYS_INLINE void encode(bit_model& model, bool bit) noexcept
    {
        const std::uint32_t bound = (range_ >> probability_bits) * model.zero_probability();
        if (bit) {
            low_ += bound;
            range_ -= bound;
            model.update_one();
        } else {
            range_ = bound;
            model.update_zero();
        }
        normalize();
    }

    /// `count` (<= 16) equiprobable bits of value, most significant first.
    BITREP_ALWAYS_INLINE void encode_direct(std::uint32_t value, int count) noexcept
    {
        for (int k = count - 1; k >= 0; --k) {
            range_ >>= 1;
            if ((value >> k) & 1u)
                low_ += range_;
            normalize();
        }
    }

    /// Settles the final bytes; returns the packet's length, or 0 when the
    /// buffer was too small at any point (overflowed() then says so).
    std::size_t finish() noexcept
    {
        // Any value in [low, low + range) decodes alike: take the one with
        // the most trailing zero bytes, then flush the window and drop up to
        // four trailing zero bytes, which the reader supplies itself. The
        // reader then reads exactly the bytes written before the drop, so it
        // never needs more than four past the end of a packet.
        const std::uint64_t high = low_ + range_ - 1;
        for (int shift = 32; shift >= 0; shift -= 8) {
            const std::uint64_t mask = (std::uint64_t{1} << shift) - 1;
            const std::uint64_t rounded = (low_ + mask) & ~mask;
            if (rounded <= high) {
                low_ = rounded;
                break;
            }
        }
        for (int k = 0; k < 5; ++k)
            shift_low();
        int dropped = 0;
        for (; dropped < 4 && virtual_zeros_ > 0; ++dropped)
            --virtual_zeros_;
        for (; dropped < 4 && virtual_zeros_ == 0 && written_ > 0 && out_[written_ - 1] == 0; ++dropped)
            --written_;
        if (virtual_zeros_ > 0)
            overflow_ = true;
        return overflow_ ? 0 : written_;
    }

    bool overflowed() const noexcept { return overflow_; }
    /// Bytes settled so far (a lower bound on the final length).
    std::size_t bytes_settled() const noexcept { return written_ + pending_; }

private:
    BITREP_ALWAYS_INLINE void normalize() noexcept
    {
        while (range_ < range_top) {
            range_ <<= 8;
            shift_low();
        }
    }

    void shift_low() noexcept
    {
        if (low_ < 0xFF000000u || low_ >= (std::uint64_t{1} << 32)) {
            const auto carry = static_cast<std::uint8_t>(low_ >> 32);
            if (started_)
                put(static_cast<std::uint8_t>(cache_ + carry));
            started_ = true; // the byte above the first interval is always 0: never sent
            for (; pending_ > 0; --pending_)
                put(static_cast<std::uint8_t>(0xFF + carry));
            cache_ = static_cast<std::uint8_t>(low_ >> 24);
        } else {
            ++pending_; // 0xFF: held back until the carry into it is known
        }
        low_ = (low_ & 0x00FFFFFFu) << 8;
    }

    /// Zero bytes past the buffer's end are counted, not refused: finish()
    /// may drop them.
    void put(std::uint8_t byte) noexcept
    {
        if (written_ < capacity_ && virtual_zeros_ == 0)
            out_[written_++] = byte;
        else if (byte == 0)
            ++virtual_zeros_;
        else
            overflow_ = true;
    }

    std::uint8_t* out_;
    std::size_t capacity_;
    std::size_t written_ = 0;
    std::uint64_t low_ = 0;
    std::uint32_t range_ = 0xFFFFFFFFu;
    std::size_t pending_ = 0;
    std::size_t virtual_zeros_ = 0;
    std::uint8_t cache_ = 0;
    bool started_ = false;
    bool overflow_ = false;
};

/// Reads decisions from untrusted bytes. Never reads outside them: bytes
/// past the end read as zeros (the encoder drops trailing zeros), and
/// overran() says when decoding needed more than the four bytes of
/// lookahead past the end, which no encoder's packet needs.
class range_decoder {
public:
    explicit range_decoder(std::span<const std::uint8_t> bytes) noexcept : in_(bytes.data()), size_(bytes.size())
    {
        for (int k = 0; k < 4; ++k)
            code_ = (code_ << 8) | next();
    }

    BITREP_ALWAYS_INLINE bool decode(bit_model& model) noexcept
    {
        const std::uint32_t bound = (range_ >> probability_bits) * model.zero_probability();
        bool bit;
        if (code_ < bound) {
            range_ = bound;
            bit = false;
            model.update_zero();
        } else {
            code_ -= bound;
            range_ -= bound;
            bit = true;
            model.update_one();
        }
        normalize();
        return bit;
    }

    BITREP_ALWAYS_INLINE std::uint32_t decode_direct(int count) noexcept
    {
        std::uint32_t value = 0;
        for (int k = 0; k < count; ++k) {
            range_ >>= 1;
            const bool bit = code_ >= range_;
            if (bit)
                code_ -= range_;
            value = (value << 1) | (bit ? 1u : 0u);
            normalize();
        }
        return value;
    }

    bool overran() const noexcept { return read_ > size_ + 4; }
    /// Whether decoding has read every byte: at the end of an encoder's
    /// packet it has (it reads exactly what was written before the trailing
    /// zeros were dropped), so bytes left unread are not the encoder's.
    bool consumed_all() const noexcept { return read_ >= size_; }
    std::size_t bytes_read() const noexcept { return read_ < size_ ? read_ : size_; }

private:
    BITREP_ALWAYS_INLINE void normalize() noexcept
    {
        while (range_ < range_top) {
            range_ <<= 8;
            code_ = (code_ << 8) | next();
        }
    }
    BITREP_ALWAYS_INLINE std::uint32_t next() noexcept
    {
        const std::uint32_t byte = read_ < size_ ? in_[read_] : 0u;
        ++read_;
        return byte;
    }

    const std::uint8_t* in_;
    std::size_t size_;
    std::size_t read_ = 0;
    std::uint32_t range_ = 0xFFFFFFFFu;
    std::uint32_t code_ = 0;
};

} // namespace bitrep::detail
