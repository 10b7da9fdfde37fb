// The hand-written side of the compile-time benchmark: bit-packing streams
// and serialize_* functions in the style of the serialize 1.0 library and
// Glenn Fiedler's "Serialization Strategies" articles, written the way a
// careful engineer would (reads are bounds-checked and fail instead of
// crashing; writes refuse values outside their declared ranges). Each struct
// then has one `template <class Stream> bool serialize(Stream&)` member that
// runs for both directions. Standard library only: no Boost, no bitrep.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hand {

/// Bits needed for any value in [min, max]: 0 when min == max.
constexpr int bits_required(std::uint64_t min, std::uint64_t max) noexcept
{
    std::uint64_t span = max - min;
    int bits = 0;
    while (span != 0) {
        ++bits;
        span >>= 1;
    }
    return bits;
}

/// Appends bits LSB first to a byte vector through a 64-bit scratch word,
/// emitted little-endian in 32-bit chunks (the serialize 1.0 bit order).
class WriteStream {
public:
    enum { IsWriting = 1, IsReading = 0 };

    explicit WriteStream(std::vector<std::uint8_t>& out) : out_(out) {}

    bool SerializeBits(std::uint32_t value, int bits)
    {
        if (bits <= 0 || bits > 32) return bits == 0;
        if (bits < 32 && (value >> bits) != 0) return false; // more bits in the value than declared
        scratch_ |= static_cast<std::uint64_t>(value) << scratch_bits_;
        scratch_bits_ += bits;
        bits_written_ += static_cast<std::size_t>(bits);
        if (scratch_bits_ >= 32) {
            for (int i = 0; i < 4; ++i)
                out_.push_back(static_cast<std::uint8_t>(scratch_ >> (8 * i)));
            scratch_ >>= 32;
            scratch_bits_ -= 32;
        }
        return true;
    }

    bool SerializeAlign()
    {
        const int pad = static_cast<int>((8 - bits_written_ % 8) % 8);
        return SerializeBits(0, pad);
    }

    /// Writes out the partial word (whole bytes, the last one zero-padded).
    void Flush()
    {
        while (scratch_bits_ > 0) {
            out_.push_back(static_cast<std::uint8_t>(scratch_));
            scratch_ >>= 8;
            scratch_bits_ = scratch_bits_ > 8 ? scratch_bits_ - 8 : 0;
        }
    }

private:
    std::vector<std::uint8_t>& out_;
    std::uint64_t scratch_ = 0;
    int scratch_bits_ = 0;
    std::size_t bits_written_ = 0;
};

/// Reads bits LSB first from a byte buffer; every read is checked against
/// the end of the buffer and fails (returns false) rather than reading past it.
class ReadStream {
public:
    enum { IsWriting = 0, IsReading = 1 };

    explicit ReadStream(const std::vector<std::uint8_t>& in) : data_(in.data()), bytes_(in.size()) {}

    bool SerializeBits(std::uint32_t& value, int bits)
    {
        if (bits <= 0 || bits > 32) {
            value = 0;
            return bits == 0;
        }
        if (static_cast<std::size_t>(bits) > bytes_ * 8 - bits_read_) return false; // past the end
        while (scratch_bits_ < bits) {
            scratch_ |= static_cast<std::uint64_t>(data_[next_byte_++]) << scratch_bits_;
            scratch_bits_ += 8;
        }
        value = static_cast<std::uint32_t>(scratch_ & ((std::uint64_t{1} << bits) - 1));
        scratch_ >>= bits;
        scratch_bits_ -= bits;
        bits_read_ += static_cast<std::size_t>(bits);
        return true;
    }

    bool SerializeAlign()
    {
        const int pad = static_cast<int>((8 - bits_read_ % 8) % 8);
        std::uint32_t zero = 0;
        return SerializeBits(zero, pad) && zero == 0; // padding must be zero
    }

    /// True when no whole byte is left unread (the last byte's spare bits are ignored).
    bool AtEnd() const { return (bits_read_ + 7) / 8 == bytes_; }

private:
    const std::uint8_t* data_;
    std::size_t bytes_;
    std::size_t next_byte_ = 0;
    std::size_t bits_read_ = 0;
    std::uint64_t scratch_ = 0;
    int scratch_bits_ = 0;
};

// --- serialize functions: one body for both directions -------------------

template <class Stream>
bool serialize_bits(Stream& s, std::uint32_t& value, int bits)
{
    return s.SerializeBits(value, bits);
}

template <class Stream>
bool serialize_bool(Stream& s, bool& value)
{
    std::uint32_t bit = value ? 1u : 0u;
    if (!serialize_bits(s, bit, 1)) return false;
    if constexpr (Stream::IsReading) value = bit != 0;
    return true;
}

/// An integer in [min, max] as its offset from min in bits_required(min, max) bits.
template <class Stream, class Int>
bool serialize_int(Stream& s, Int& value, std::int64_t min, std::int64_t max)
{
    const std::uint64_t span = static_cast<std::uint64_t>(max) - static_cast<std::uint64_t>(min);
    const int bits = bits_required(0, span); // constant-folded: min and max are literals
    std::uint32_t offset = 0;
    if constexpr (Stream::IsWriting) {
        const auto v = static_cast<std::int64_t>(value);
        if (v < min || v > max) return false;
        offset = static_cast<std::uint32_t>(static_cast<std::uint64_t>(v) - static_cast<std::uint64_t>(min));
    }
    if (!serialize_bits(s, offset, bits)) return false;
    if constexpr (Stream::IsReading) {
        if (offset > span) return false;
        value = static_cast<Int>(static_cast<std::int64_t>(static_cast<std::uint64_t>(min) + offset));
    }
    return true;
}

/// A float in [min, max] quantized at res (clamped on write, NaN refused).
template <class Stream>
bool serialize_compressed_float(Stream& s, float& value, float min, float max, float res)
{
    const float delta = max - min;
    const float values = delta / res;
    const auto max_integer = static_cast<std::uint32_t>(std::ceil(values));
    const int bits = bits_required(0, max_integer);
    std::uint32_t integer = 0;
    if constexpr (Stream::IsWriting) {
        if (std::isnan(value)) return false;
        float normalized = (value - min) / delta;
        normalized = normalized < 0.0f ? 0.0f : (normalized > 1.0f ? 1.0f : normalized);
        integer = static_cast<std::uint32_t>(std::floor(normalized * static_cast<float>(max_integer) + 0.5f));
    }
    if (!serialize_bits(s, integer, bits)) return false;
    if constexpr (Stream::IsReading) {
        if (integer > max_integer) return false;
        value = static_cast<float>(integer) / static_cast<float>(max_integer) * delta + min;
    }
    return true;
}

/// A string of at most max_length bytes: its length, then the bytes, aligned.
template <class Stream>
bool serialize_string(Stream& s, std::string& value, std::size_t max_length)
{
    std::size_t length = value.size();
    if (!serialize_int(s, length, 0, static_cast<std::int64_t>(max_length)))
        return false; // longer than allowed, on either side
    if (!s.SerializeAlign()) return false;
    if constexpr (Stream::IsWriting) {
        for (char c : value)
            if (c == '\0' || !s.SerializeBits(static_cast<unsigned char>(c), 8)) return false;
    } else {
        value.resize(length); // bounded: length <= max_length
        for (char& c : value) {
            std::uint32_t byte = 0;
            if (!s.SerializeBits(byte, 8) || byte == 0) return false;
            c = static_cast<char>(byte);
        }
    }
    return true;
}

/// A byte vector of at most max_size elements, each in [0, max_element].
template <class Stream>
bool serialize_byte_vector(Stream& s, std::vector<std::uint8_t>& value, std::size_t max_size, int max_element)
{
    std::size_t size = value.size();
    if (!serialize_int(s, size, 0, static_cast<std::int64_t>(max_size))) return false;
    if constexpr (Stream::IsReading)
        value.resize(size);
    for (std::uint8_t& e : value)
        if (!serialize_int(s, e, 0, max_element)) return false;
    return true;
}

struct Quat {
    float x = 0, y = 0, z = 0, w = 1;
};

/// Smallest three: index of the largest component (2 bits), the other three
/// quantized in [-1/sqrt(2), 1/sqrt(2)] to Bits bits each (2^Bits - 2 quanta,
/// so 0 is exact); the reader rebuilds the largest from the unit norm.
template <int Bits, class Stream>
bool serialize_quat(Stream& s, Quat& q)
{
    constexpr float limit = 0.707106781f;
    constexpr std::uint32_t max_integer = (1u << Bits) - 2;
    float* c[4] = {&q.x, &q.y, &q.z, &q.w};
    std::uint32_t largest = 0;
    std::uint32_t code[3] = {0, 0, 0};
    if constexpr (Stream::IsWriting) {
        const float norm = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
        if (!(norm >= 0.99f && norm <= 1.01f)) return false; // not a unit quaternion (or NaN)
        for (std::uint32_t i = 1; i < 4; ++i)
            if (std::fabs(*c[i]) > std::fabs(*c[largest])) largest = i;
        const float sign = *c[largest] < 0.0f ? -1.0f : 1.0f;
        for (std::uint32_t i = 0, k = 0; i < 4; ++i) {
            if (i == largest) continue;
            float n = (sign * *c[i] + limit) / (2.0f * limit);
            n = n < 0.0f ? 0.0f : (n > 1.0f ? 1.0f : n);
            code[k++] = static_cast<std::uint32_t>(std::floor(n * static_cast<float>(max_integer) + 0.5f));
        }
    }
    if (!serialize_bits(s, largest, 2)) return false;
    for (std::uint32_t& v : code)
        if (!serialize_bits(s, v, Bits)) return false;
    if constexpr (Stream::IsReading) {
        float sum = 0.0f;
        for (std::uint32_t i = 0, k = 0; i < 4; ++i) {
            if (i == largest) continue;
            if (code[k] > max_integer) return false;
            const float v = static_cast<float>(code[k++]) / static_cast<float>(max_integer) * (2.0f * limit) - limit;
            *c[i] = v;
            sum += v * v;
        }
        if (sum > 1.0f) return false; // forged: not the smallest three of a unit quaternion
        *c[largest] = std::sqrt(1.0f - sum);
    }
    return true;
}

/// An optional integer in [min, max]: a presence bit, then the value.
template <class Stream>
bool serialize_optional_int(Stream& s, std::optional<int>& value, int min, int max)
{
    bool present = value.has_value();
    if (!serialize_bool(s, present)) return false;
    if (!present) {
        if constexpr (Stream::IsReading) value.reset();
        return true;
    }
    int v = 0;
    if constexpr (Stream::IsWriting) v = *value;
    if (!serialize_int(s, v, min, max)) return false;
    if constexpr (Stream::IsReading) value = v;
    return true;
}

/// Encodes value into out (replacing it); false if any field refuses.
/// The hooks are non-const (one body reads and writes), so writing casts
/// const away; the write path never modifies the value.
template <class T>
bool write(const T& value, std::vector<std::uint8_t>& out)
{
    out.clear();
    WriteStream w(out);
    if (!const_cast<T&>(value).serialize(w)) {
        out.clear();
        return false;
    }
    w.Flush();
    return true;
}

/// Decodes all or nothing into out: a copy is decoded and moved in on success.
/// Whole bytes left after the value are refused.
template <class T>
bool read(const std::vector<std::uint8_t>& in, T& out)
{
    T decoded(out);
    ReadStream r(in);
    if (!decoded.serialize(r) || !r.AtEnd()) return false;
    out = std::move(decoded);
    return true;
}

} // namespace hand
