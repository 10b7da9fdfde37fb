// The wire: packing groups of up to 32 bits into bytes, least significant bit
// first, exactly as serialize 1.0 lays them out (stream bit i is bit i%8 of
// byte i/8). Nothing here knows about values, ranges or fields.
#pragma once

#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include <bitrep/detail/portability.hpp>

namespace bitrep {

/// Bits needed for an unsigned span (max - min): 0 when the span is 0, else
/// the bit length of the span. serialize 1.0 section 3.
constexpr int bits_required_for_span(std::uint64_t span) noexcept
{
    return span == 0 ? 0 : 64 - std::countl_zero(span);
}

/// bits_required(min, max) for any integer bounds, computed on the unsigned
/// span so that ranges wider than 2^31 (and full 64-bit ranges) work.
template <class Int>
constexpr int bits_required(Int min, Int max) noexcept
{
    return bits_required_for_span(static_cast<std::uint64_t>(max) - static_cast<std::uint64_t>(min));
}

namespace detail {

// Callers only store or load four bytes where four bytes remain (a writer's
// capacity check, a reader's), but GCC 12 at -O3, seeing a stream built
// over a small array, cannot prove that guard and warns about the untaken
// path (-Warray-bounds). Users build with -Werror too, so the false positive
// is silenced here, at the one guarded store and the one guarded load.
BITREP_GUARDED_ACCESS_BEGIN
inline void store_le32(std::uint8_t* out, std::uint32_t value) noexcept
{
    if constexpr (std::endian::native == std::endian::big)
        value = byte_swap32(value);
    std::memcpy(out, &value, 4);
}

inline std::uint32_t load_le32(const std::uint8_t* in) noexcept
{
    std::uint32_t value;
    std::memcpy(&value, in, 4);
    if constexpr (std::endian::native == std::endian::big)
        value = byte_swap32(value);
    return value;
}
BITREP_GUARDED_ACCESS_END

/// The n <= 8 bytes at `bytes` as a little-endian word, loaded within those
/// n bytes (two overlapping loads, or single bytes below four).
BITREP_ALWAYS_INLINE std::uint64_t load_short(const std::uint8_t* bytes, std::size_t n) noexcept
{
    if (n >= 4) {
        const std::uint64_t low = load_le32(bytes);
        const std::uint64_t high = load_le32(bytes + n - 4);
        return low | (high << (8 * (n - 4)));
    }
    if (n == 0)
        return 0;
    return std::uint64_t{bytes[0]} | (std::uint64_t{bytes[n / 2]} << (8 * (n / 2))) |
           (std::uint64_t{bytes[n - 1]} << (8 * (n - 1)));
}

} // namespace detail

/// Packs bit groups into a caller-owned buffer. Never writes outside it:
/// every write checks the room left first (or, unchecked, relies on a
/// has_room for the whole run) and reports false when it would not fit,
/// leaving the buffer's meaningful content unchanged.
class bit_writer {
public:
    explicit bit_writer(std::span<std::uint8_t> buffer) noexcept
        : data_(buffer.data()), capacity_bits_(buffer.size() * 8)
    {
    }

    /// A writer standing where another one stood, made from the three
    /// values that change as it writes (byte_index(), scratch(),
    /// scratch_bits()): the engine carries those in registers from one field
    /// to the next.
    bit_writer(std::uint8_t* data, std::size_t capacity_bits, std::size_t byte_index, std::uint64_t scratch,
               int scratch_bits) noexcept
        : data_(data), capacity_bits_(capacity_bits),
          bits_written_(byte_index * 8 + static_cast<std::size_t>(scratch_bits)), byte_index_(byte_index),
          scratch_(scratch), scratch_bits_(scratch_bits)
    {
    }

    /// Appends the low `bits` bits of value (1 <= bits <= 32).
    BITREP_ALWAYS_INLINE bool write_bits(std::uint32_t value, int bits) noexcept
    {
        if (!has_room(static_cast<std::size_t>(bits))) [[unlikely]]
            return false;
        write_bits_unchecked(value, bits);
        return true;
    }

    /// Whether `bits` more bits fit: a run of fixed-width writes checks once,
    /// then writes unchecked.
    BITREP_ALWAYS_INLINE bool has_room(std::size_t bits) const noexcept
    {
        return bits <= capacity_bits_ - bits_written_;
    }

    /// write_bits where has_room has already vouched for these bits.
    BITREP_ALWAYS_INLINE void write_bits_unchecked(std::uint32_t value, int bits) noexcept
    {
        assert(bits >= 1 && bits <= 32);
        assert(bits == 32 || (value >> bits) == 0);
        assert(has_room(static_cast<std::size_t>(bits)));
        scratch_ |= static_cast<std::uint64_t>(value) << scratch_bits_;
        scratch_bits_ += bits;
        bits_written_ += static_cast<std::size_t>(bits);
        if (scratch_bits_ >= 32) {
            // These 32 bits are all meaningful, so the capacity check above
            // already proved the 4 bytes lie inside the buffer.
            detail::store_le32(data_ + byte_index_, static_cast<std::uint32_t>(scratch_));
            byte_index_ += 4;
            scratch_ >>= 32;
            scratch_bits_ -= 32;
        }
    }

    /// Appends whole bytes at a byte-aligned position: the few that complete
    /// the scratch word go through it, the rest are copied straight into the
    /// buffer (stream bit byte_index_ * 8 + j is scratch bit j throughout).
    bool write_bytes(const std::uint8_t* bytes, std::size_t count) noexcept
    {
        assert(bits_written_ % 8 == 0);
        if (count > (capacity_bits_ - bits_written_) / 8) [[unlikely]]
            return false;
        std::size_t i = 0;
        for (; i < count && scratch_bits_ != 0; ++i)
            write_bits_unchecked(bytes[i], 8);
        if (i < count) {
            std::memcpy(data_ + byte_index_, bytes + i, count - i);
            byte_index_ += count - i;
            bits_written_ += (count - i) * 8;
        }
        return true;
    }

    /// Stores the partially filled last bytes. Call once, after the last write.
    void flush() noexcept
    {
        while (scratch_bits_ > 0) {
            data_[byte_index_++] = static_cast<std::uint8_t>(scratch_);
            scratch_ >>= 8;
            scratch_bits_ = scratch_bits_ > 8 ? scratch_bits_ - 8 : 0;
        }
    }

    std::size_t bits_written() const noexcept { return bits_written_; }
    std::size_t bytes_written() const noexcept { return (bits_written_ + 7) / 8; }
    std::size_t bits_available() const noexcept { return capacity_bits_ - bits_written_; }
    std::uint8_t* data() const noexcept { return data_; }
    std::size_t capacity_bits() const noexcept { return capacity_bits_; }
    /// Where the next whole word goes, and the bits held before it.
    std::size_t byte_index() const noexcept { return byte_index_; }
    std::uint64_t scratch() const noexcept { return scratch_; }
    int scratch_bits() const noexcept { return scratch_bits_; }

private:
    std::uint8_t* data_;
    std::size_t capacity_bits_;
    std::size_t bits_written_ = 0;
    std::size_t byte_index_ = 0;
    std::uint64_t scratch_ = 0;
    int scratch_bits_ = 0;
};

/// Unpacks bit groups from untrusted bytes. Never loads a byte outside the
/// span (no slack is required of callers) and fails, consuming nothing, when
/// a read needs more bits than remain.
class bit_reader {
public:
    explicit bit_reader(std::span<const std::uint8_t> data) noexcept
        : data_(data.data()), size_bytes_(data.size()), total_bits_(data.size() * 8)
    {
    }

    /// A reader standing where another one stood, made from the three values
    /// that change as it reads (byte_index(), scratch(), scratch_bits()), as
    /// bit_writer's.
    bit_reader(const std::uint8_t* data, std::size_t size_bytes, std::size_t byte_index, std::uint64_t scratch,
               int scratch_bits) noexcept
        : data_(data), size_bytes_(size_bytes), total_bits_(size_bytes * 8),
          bits_read_(byte_index * 8 - static_cast<std::size_t>(scratch_bits)), byte_index_(byte_index),
          scratch_(scratch), scratch_bits_(scratch_bits)
    {
    }

    /// Reads `bits` bits (1 <= bits <= 32) into value.
    BITREP_ALWAYS_INLINE bool read_bits(std::uint32_t& value, int bits) noexcept
    {
        if (!has_bits(static_cast<std::size_t>(bits))) [[unlikely]]
            return false;
        value = read_bits_unchecked(bits);
        return true;
    }

    /// Whether `bits` more bits remain: a run of fixed-width reads checks
    /// once, then reads unchecked.
    BITREP_ALWAYS_INLINE bool has_bits(std::size_t bits) const noexcept { return bits <= total_bits_ - bits_read_; }

    /// read_bits where has_bits has already vouched for these bits.
    BITREP_ALWAYS_INLINE std::uint32_t read_bits_unchecked(int bits) noexcept
    {
        assert(bits >= 1 && bits <= 32);
        assert(has_bits(static_cast<std::size_t>(bits)));
        if (scratch_bits_ < bits) {
            if (size_bytes_ - byte_index_ >= 4) [[likely]] {
                scratch_ |= static_cast<std::uint64_t>(detail::load_le32(data_ + byte_index_)) << scratch_bits_;
                byte_index_ += 4;
                scratch_bits_ += 32;
            } else {
                // The last bytes, which the check above says hold these bits:
                // scratch_bits_ counts only bytes loaded, so that bits_read_
                // is always byte_index_ * 8 - scratch_bits_.
                const std::size_t left = size_bytes_ - byte_index_; // 0 to 3
                std::uint64_t word = 0;
                if (left > 0)
                    word = data_[byte_index_];
                if (left > 1)
                    word |= std::uint64_t{data_[byte_index_ + 1]} << 8;
                if (left > 2)
                    word |= std::uint64_t{data_[byte_index_ + 2]} << 16;
                scratch_ |= word << scratch_bits_;
                scratch_bits_ += static_cast<int>(8 * left);
                byte_index_ += left;
            }
        }
        const auto value = static_cast<std::uint32_t>(scratch_ & ((std::uint64_t{1} << bits) - 1));
        scratch_ >>= bits;
        scratch_bits_ -= bits;
        bits_read_ += static_cast<std::size_t>(bits);
        return value;
    }

    /// At a byte-aligned position, n <= 8 whole bytes that has_bits has
    /// vouched for, as a little-endian word: those the scratch word holds,
    /// then the rest straight from the buffer.
    BITREP_ALWAYS_INLINE std::uint64_t read_short_bytes_unchecked(std::size_t n) noexcept
    {
        assert(bits_read_ % 8 == 0 && n <= 8 && has_bits(8 * n));
        const auto held = static_cast<std::size_t>(scratch_bits_) / 8; // at most 7
        std::uint64_t word = 0;
        if (n <= held) {
            if (n != 0) {
                word = scratch_ & (~std::uint64_t{0} >> (64 - 8 * n));
                scratch_ >>= 8 * n;
                scratch_bits_ -= static_cast<int>(8 * n);
            }
        } else {
            const std::size_t rest = n - held;
            word = scratch_ | (detail::load_short(data_ + byte_index_, rest) << (8 * held));
            byte_index_ += rest;
            scratch_ = 0;
            scratch_bits_ = 0;
        }
        bits_read_ += 8 * n;
        return word;
    }

    /// Reads whole bytes at a byte-aligned position; the mirror of
    /// bit_writer::write_bytes. Fails, consuming nothing, past the end.
    bool read_bytes(std::uint8_t* out, std::size_t count) noexcept
    {
        assert(bits_read_ % 8 == 0);
        if (count > (total_bits_ - bits_read_) / 8) [[unlikely]]
            return false;
        // At a byte-aligned position the scratch word holds whole bytes (at
        // most seven), all vouched for by the check above: those come first,
        // straight out of it, with no check or load per byte.
        std::size_t i = 0;
        for (; i < count && scratch_bits_ != 0; ++i) {
            out[i] = static_cast<std::uint8_t>(scratch_);
            scratch_ >>= 8;
            scratch_bits_ -= 8;
        }
        bits_read_ += 8 * i;
        // Only reached with an empty scratch word, which means every loaded
        // byte was consumed and byte_index_ is the next unread byte.
        if (i < count) {
            std::memcpy(out + i, data_ + byte_index_, count - i);
            byte_index_ += count - i;
            bits_read_ += (count - i) * 8;
        }
        return true;
    }

    std::size_t bits_read() const noexcept { return bits_read_; }
    std::size_t bits_remaining() const noexcept { return total_bits_ - bits_read_; }
    std::size_t total_bits() const noexcept { return total_bits_; }
    const std::uint8_t* data() const noexcept { return data_; }
    std::size_t size_bytes() const noexcept { return size_bytes_; }
    /// The next byte to load, and the loaded bits not yet read.
    std::size_t byte_index() const noexcept { return byte_index_; }
    std::uint64_t scratch() const noexcept { return scratch_; }
    int scratch_bits() const noexcept { return scratch_bits_; }

private:
    const std::uint8_t* data_;
    std::size_t size_bytes_;
    std::size_t total_bits_;
    std::size_t bits_read_ = 0;
    std::size_t byte_index_ = 0;
    std::uint64_t scratch_ = 0;
    int scratch_bits_ = 0;
};

} // namespace bitrep
