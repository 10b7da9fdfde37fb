// The standard's primitives (serialize 1.0) on three streams that share one
// description: write_stream packs, read_stream unpacks and refuses what a
// reader must refuse, measure_stream counts. Every composite primitive is
// written once, in stream_primitives, on top of the three operations that
// genuinely differ per stream: bits, align and bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <span>
#include <string>

#include <bitrep/detail/portability.hpp>
#include <bitrep/detail/resize.hpp>
#include <bitrep/failure_record.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/bits.hpp>
#include <bitrep/wire/quantize.hpp>
#include <bitrep/wire/utf8.hpp>

namespace bitrep {

/// Which fields a stream carries: `all` (to_bytes), `save` (save files: no
/// net_only), `replication` (network: no save_only). transient never goes.
enum class scope : std::uint8_t { all, save, replication };

namespace detail {
/// int_relative's tiers: differences [min, max] sent as a ranged offset
/// after one flag per tier tried; anything larger goes absolute in 32 bits.
struct int_relative_tier {
    std::uint32_t min, max;
};
inline constexpr int_relative_tier int_relative_tiers[] = {{1, 1}, {2, 6}, {7, 23}, {24, 280}, {281, 4377}, {4378, 69914}};

/// The bits int_relative spends on a difference of at least 1.
constexpr std::size_t int_relative_bits(std::uint64_t difference) noexcept
{
    std::size_t bits = 0;
    for (const int_relative_tier& t : int_relative_tiers) {
        ++bits;
        if (difference >= t.min && difference <= t.max)
            return bits + static_cast<std::size_t>(bits_required_for_span(t.max - t.min));
    }
    return bits + 32;
}
} // namespace detail

template <class Derived>
class stream_primitives {
public:
    explicit stream_primitives(failure_record& record) noexcept : failure_(&record) {}
    stream_primitives(const stream_primitives&) = delete;
    stream_primitives& operator=(const stream_primitives&) = delete;

    /// serialize 1.0 bits(value, n) for n in [1, 64]: above 32, the low 32
    /// bits go first, then the high n - 32.
    BITREP_ALWAYS_INLINE bool serialize_bits(std::uint64_t& value, int bits)
    {
        // Reads never look at the old value: the target may be uninitialised.
        const std::uint64_t written = Derived::is_reading ? 0 : value;
        if (bits <= 32) {
            std::uint32_t low = static_cast<std::uint32_t>(written);
            if (!self().serialize_bits(low, bits))
                return false;
            if constexpr (Derived::is_reading)
                value = low;
            return true;
        }
        const std::size_t start = position();
        std::uint32_t low = static_cast<std::uint32_t>(written);
        std::uint32_t high = static_cast<std::uint32_t>(written >> 32);
        if (!self().serialize_bits(low, 32) || !self().serialize_bits(high, bits - 32))
            return fail_from(start);
        if constexpr (Derived::is_reading)
            value = (static_cast<std::uint64_t>(high) << 32) | low;
        return true;
    }

    BITREP_ALWAYS_INLINE bool serialize_bool(bool& value)
    {
        std::uint32_t bit = 0;
        if constexpr (!Derived::is_reading)
            bit = value ? 1u : 0u;
        if (!self().serialize_bits(bit, 1))
            return false;
        if constexpr (Derived::is_reading)
            value = bit != 0;
        return true;
    }

    /// The core of every ranged integer: an offset in [0, span] in
    /// bits_required(span) bits (zero bits when span is 0). Writers refuse an
    /// offset above span; readers refuse a decoded one.
    BITREP_ALWAYS_INLINE bool serialize_ranged_offset(std::uint64_t& offset, std::uint64_t span)
    {
        return serialize_ranged_offset(offset, span, bits_required_for_span(span));
    }
    /// The same with bits_required_for_span(span) worked out ahead (the
    /// engine keeps it in each instruction). Offset is std::uint64_t, or
    /// std::uint32_t where the span fits 32 bits (bits is then at most 32,
    /// and the stream writes one group).
    template <class Offset>
    BITREP_ALWAYS_INLINE bool serialize_ranged_offset(Offset& offset, Offset span, int bits)
    {
        static_assert(std::is_same_v<Offset, std::uint64_t> || std::is_same_v<Offset, std::uint32_t>);
        if constexpr (Derived::is_writing) {
            if (offset > span) [[unlikely]]
                return fail(error::value_out_of_range, position(), "value outside its declared range");
        }
        if constexpr (Derived::is_reading) {
            offset = 0;
        }
        if (bits == 0)
            return true;
        const std::size_t start = position();
        bool ok = false;
        if constexpr (std::is_same_v<Offset, std::uint32_t>)
            ok = self().serialize_bits(offset, bits);
        else
            ok = serialize_bits(offset, bits);
        if (!ok)
            return false;
        if constexpr (Derived::is_reading) {
            if (offset > span) [[unlikely]]
                return fail(error::out_of_range, start, "decoded value above the range's maximum");
        }
        return true;
    }

    /// int(value, min, max), 32-bit.
    BITREP_ALWAYS_INLINE bool serialize_int(std::int32_t& value, std::int32_t min, std::int32_t max)
    {
        std::int64_t wide = Derived::is_reading ? 0 : value;
        if (!serialize_int64(wide, min, max))
            return false;
        if constexpr (Derived::is_reading)
            value = static_cast<std::int32_t>(wide);
        return true;
    }

    /// int64(value, min, max): over bounds that fit int32 the bytes equal int's.
    /// The offset is computed in unsigned arithmetic, so a value below min
    /// wraps far above the span and the one offset check refuses both sides.
    BITREP_ALWAYS_INLINE bool serialize_int64(std::int64_t& value, std::int64_t min, std::int64_t max)
    {
        const auto umin = static_cast<std::uint64_t>(min);
        std::uint64_t offset = Derived::is_reading ? 0 : static_cast<std::uint64_t>(value) - umin;
        if (!serialize_ranged_offset(offset, static_cast<std::uint64_t>(max) - umin))
            return false;
        if constexpr (Derived::is_reading)
            value = static_cast<std::int64_t>(umin + offset);
        return true;
    }

    /// int_relative(previous, current) for strictly increasing sequences:
    /// a ladder of tier flags, then the tier's ranged payload, or in the
    /// final tier the absolute current value (serialize 1.0 section 4).
    bool serialize_int_relative(std::int32_t previous, std::int32_t& current)
    {
        const std::size_t start = position();
        std::uint32_t difference = 0;
        if constexpr (Derived::is_writing) {
            if (current <= previous) [[unlikely]]
                return fail(error::value_out_of_range, position(), "int_relative needs current > previous");
        }
        if constexpr (!Derived::is_reading)
            difference = static_cast<std::uint32_t>(current) - static_cast<std::uint32_t>(previous);
        for (const detail::int_relative_tier& t : detail::int_relative_tiers) {
            bool fits = difference >= t.min && difference <= t.max;
            if (!serialize_bool(fits))
                return fail_from(start);
            if (fits) {
                std::uint64_t offset = difference - t.min;
                if (!serialize_ranged_offset(offset, t.max - t.min))
                    return fail_from(start);
                if constexpr (Derived::is_reading)
                    current = static_cast<std::int32_t>(static_cast<std::uint32_t>(previous) + t.min +
                                                        static_cast<std::uint32_t>(offset));
                return true;
            }
        }
        auto absolute = Derived::is_reading ? 0u : static_cast<std::uint32_t>(current);
        if (!self().serialize_bits(absolute, 32))
            return fail_from(start);
        if constexpr (Derived::is_reading) {
            current = static_cast<std::int32_t>(absolute);
            if (current <= previous) [[unlikely]]
                return fail(error::out_of_range, start, "int_relative final tier is not above previous");
        }
        return true;
    }

    /// IEEE-754 bit patterns, transparent both ways (NaN payloads, -0, inf).
    BITREP_ALWAYS_INLINE bool serialize_float(float& value)
    {
        auto pattern = Derived::is_reading ? 0u : std::bit_cast<std::uint32_t>(value);
        if (!self().serialize_bits(pattern, 32))
            return false;
        if constexpr (Derived::is_reading)
            value = std::bit_cast<float>(pattern);
        return true;
    }

    BITREP_ALWAYS_INLINE bool serialize_double(double& value)
    {
        auto pattern = Derived::is_reading ? std::uint64_t{0} : std::bit_cast<std::uint64_t>(value);
        if (!serialize_bits(pattern, 64))
            return false;
        if constexpr (Derived::is_reading)
            value = std::bit_cast<double>(pattern);
        return true;
    }

    /// compressed_float with a precomputed quantizer (see wire/quantize.hpp),
    /// as bitrep's annotations send it: the standard's quantum, except that a
    /// range float32 cannot resolve sends the stable one (stable_quantize).
    BITREP_ALWAYS_INLINE bool serialize_quantized(float& value, const quantizer& q)
    {
        return serialize_quantum(value, q, true);
    }

    /// compressed_float(value, min, max, resolution) as the standard names it.
    BITREP_ALWAYS_INLINE bool serialize_compressed_float(float& value, float min, float max, float resolution)
    {
        return serialize_quantum(value, quantizer::from_resolution(min, max, resolution), false);
    }


    /// string(s, buffer_size): length in [0, buffer_size - 1], then the bytes
    /// (aligned). Readers refuse an over-long length before allocating, a zero
    /// byte, and malformed UTF-8; writers refuse the same of the value.
    BITREP_ALWAYS_INLINE bool serialize_string(std::string& text, std::size_t buffer_size)
    {
        const std::size_t start = position();
        const std::uint64_t max_length = buffer_size - 1;
        std::uint64_t length = text.size();
        if constexpr (Derived::is_writing) {
            if (length > max_length) [[unlikely]]
                return fail(error::value_out_of_range, start, "string longer than its bound");
            if (!check_text(text, start))
                return false;
        }
        if (!serialize_ranged_offset(length, max_length))
            return fail_from(start);
        if constexpr (Derived::is_reading) {
            if (length > self().bits_remaining() / 8) [[unlikely]]
                return fail(error::truncated, start, "string bytes past the end of the input");
            detail::resize_for_decode(text, static_cast<std::size_t>(length));
        }
        if (!self().serialize_bytes(reinterpret_cast<std::uint8_t*>(text.data()), static_cast<std::size_t>(length)))
            return fail_from(start);
        if constexpr (Derived::is_reading) {
            return check_text(text, start);
        }
        return true;
    }

    // Hooks for the coded streams (coded_stream.hpp), which choose adaptive
    // models by where in the value a primitive is. On these bit-packed
    // streams they cost nothing and change nothing on the wire.
    static constexpr bool is_coded = false;
    struct no_slot {};
    /// The models of the leaf `offset` slots further on, until the result dies.
    BITREP_ALWAYS_INLINE no_slot enter_slot(std::size_t) noexcept { return {}; }
    /// A new entity (or struct) begins: its fields' contexts start afresh.
    BITREP_ALWAYS_INLINE void begin_entity() noexcept {}
    /// A delta's changed bit; `changed_before` says whether the same part
    /// changed between the baseline and the state before it (a context).
    BITREP_ALWAYS_INLINE bool serialize_changed(bool& changed, bool /*changed_before*/) { return serialize_bool(changed); }

    /// Bit index of the next operation (exact, from the stream's start).
    std::size_t position() const noexcept { return static_cast<const Derived&>(*this).bit_position(); }

    // Failure reporting (see failure_record.hpp). Hooks call fail() to
    // refuse a value and serialize_field() to name a member.
    // A quiet stream (one whose Derived says `static constexpr bool quiet
    // = true`) records nothing: the engine's fast handlers run on one and,
    // on a refusal, run the instruction again on a stream that records, so
    // that no call to the record sits on their own path.
    bool failed() const noexcept { return failure_->failed(); }
    BITREP_ALWAYS_INLINE bool fail(error code, std::size_t bit, std::string_view detail) noexcept
    {
        if constexpr (!is_quiet())
            failure_->record(code, bit, detail);
        return false;
    }
    BITREP_ALWAYS_INLINE bool fail_from(std::size_t start) noexcept
    {
        if constexpr (!is_quiet())
            failure_->move_to(start);
        return false;
    }
    static constexpr bool is_quiet() noexcept
    {
        if constexpr (requires { Derived::quiet; })
            return Derived::quiet;
        else
            return false;
    }
    BITREP_ALWAYS_INLINE void enter_member(std::string_view name) noexcept { failure_->enter_member(name); }
    BITREP_ALWAYS_INLINE void enter_position(std::size_t position) noexcept { failure_->enter_position(position); }
    BITREP_ALWAYS_INLINE void enter_index(std::size_t index) noexcept { failure_->enter_index(index); }
    failure_record& failure() noexcept { return *failure_; }

    /// The status of an operation that returned false, its path rooted at
    /// `root` (e.g. "Player"). A hook may return false without recording
    /// why; that is still a failure (hook_failed, where the stream stopped).
    BITREP_ALWAYS_INLINE status failure_status(std::string_view root) noexcept
    {
        return failure_->final_status(root, position());
    }

protected:
    Derived& self() noexcept { return static_cast<Derived&>(*this); }

    BITREP_ALWAYS_INLINE bool serialize_quantum(float& value, const quantizer& q, bool stable)
    {
        std::uint32_t quantum = 0;
        if constexpr (Derived::is_writing) {
            if (value != value) [[unlikely]]
                return fail(error::value_out_of_range, position(), "NaN cannot be quantized");
            quantum = stable ? q.stable_quantize(value) : q.quantize(value);
        }
        const std::size_t start = position();
        if (!self().serialize_bits(quantum, q.bits))
            return false;
        if constexpr (Derived::is_reading) {
            if (quantum > q.max_integer) [[unlikely]]
                return fail(error::out_of_range, start, "quantum above the range's maximum");
            value = q.dequantize(quantum);
        }
        return true;
    }

    /// One inline pass finds zero bytes and bytes above 0x7F; only a string
    /// that has the latter goes through the full UTF-8 check, out of line.
    /// (Calling memchr and the validator for every string made compilers save
    /// the stream's state around both calls, and left the encode's speed to
    /// whether GCC inlined the validator.) The pass reads eight bytes
    /// at a time, the last eight (or four) overlapping the ones before: both
    /// findings are ors over the bytes, which a byte read twice leaves alone.
    BITREP_ALWAYS_INLINE bool check_text(const std::string& text, std::size_t bit) noexcept
    {
        const text_bytes found = scan_text(reinterpret_cast<const unsigned char*>(text.data()), text.size());
        if (found.zero) [[unlikely]]
            return fail(error::interior_nul, bit, "zero byte inside a string");
        if (found.high && !valid_utf8(reinterpret_cast<const unsigned char*>(text.data()), text.size())) [[unlikely]]
            return fail(error::bad_utf8, bit, "string is not well-formed UTF-8");
        return true;
    }

    struct text_bytes {
        bool zero;
        bool high;
    };
    /// Whether any byte is zero, and whether any is above 0x7F. A word's
    /// (w - 0x01..01) & ~w & 0x80..80 is non-zero exactly when one of its
    /// bytes is zero.
    BITREP_ALWAYS_INLINE static text_bytes scan_text(const unsigned char* bytes, std::size_t size) noexcept
    {
        constexpr std::uint64_t ones = 0x0101010101010101u;
        constexpr std::uint64_t highs = 0x8080808080808080u;
        std::uint64_t zeros = 0;
        std::uint64_t all = 0;
        const auto word = [&](std::uint64_t w) BITREP_LAMBDA_ALWAYS_INLINE {
            zeros |= (w - ones) & ~w & highs;
            all |= w;
        };
        if (size >= 8) {
            for (std::size_t at = 0; at + 8 < size; at += 8)
                word(load_bytes<std::uint64_t>(bytes + at));
            word(load_bytes<std::uint64_t>(bytes + size - 8));
        } else if (size >= 4) {
            // Two overlapping halves, each in the low half of the word.
            word(load_bytes<std::uint32_t>(bytes) | 0xFFFFFFFF00000000u);
            word(load_bytes<std::uint32_t>(bytes + size - 4) | 0xFFFFFFFF00000000u);
            all &= 0xFFFFFFFFu;
        } else {
            for (std::size_t at = 0; at < size; ++at)
                word(bytes[at] | 0xFFFFFFFFFFFFFF00u);
            all &= 0xFFu;
        }
        return {zeros != 0, (all & highs) != 0};
    }
    template <class Word>
    BITREP_ALWAYS_INLINE static std::uint64_t load_bytes(const unsigned char* at) noexcept
    {
        Word w;
        std::memcpy(&w, at, sizeof w);
        return w;
    }

    BITREP_NOINLINE static bool valid_utf8(const unsigned char* bytes, std::size_t size) noexcept
    {
        return detail::is_valid_utf8(bytes, size);
    }

private:
    failure_record* failure_;
};

/// What a stream over a bit cursor (a bit_writer or a bit_reader) is besides
/// its primitives: its direction and scope, and the cursor, which the
/// engine copies out with state(), runs on in registers and hands back with
/// resume(). The write and read streams and the engine's leaf streams
/// differ only in what they do with the cursor.
template <class Derived, class Cursor, scope Scope>
class cursor_stream : public stream_primitives<Derived> {
public:
    static constexpr bool is_writing = std::is_same_v<Cursor, bit_writer>;
    static constexpr bool is_reading = !is_writing;
    static constexpr bool is_measuring = false;
    static constexpr bitrep::scope field_scope = Scope;

    /// Resumes where `state` (another stream's state()) stands.
    using state_type = Cursor;
    BITREP_ALWAYS_INLINE cursor_stream(const Cursor& state, failure_record& record) noexcept
        : stream_primitives<Derived>(record), cursor_(state)
    {
    }
    const Cursor& state() const noexcept { return cursor_; }
    void resume(const Cursor& state) noexcept { cursor_ = state; }

    /// Zero bits up to a byte boundary; a reader refuses any that is not.
    BITREP_ALWAYS_INLINE bool serialize_align()
    {
        const int padding = static_cast<int>((8 - bit_position() % 8) % 8);
        if (padding == 0)
            return true;
        const std::size_t start = bit_position();
        std::uint32_t bits = 0;
        if (!derived().serialize_bits(bits, padding))
            return false;
        if constexpr (is_reading) {
            if (bits != 0) [[unlikely]]
                return this->fail(error::bad_padding, start, "non-zero alignment padding");
        }
        return true;
    }

    /// Whole bytes at the next byte boundary.
    BITREP_ALWAYS_INLINE bool serialize_bytes(std::uint8_t* data, std::size_t count)
    {
        const std::size_t start = bit_position();
        if (!serialize_align())
            return false;
        if constexpr (is_writing) {
            if (!cursor_.write_bytes(data, count)) [[unlikely]]
                return this->fail(error::buffer_too_small, start, "output buffer is full");
        } else {
            if (!cursor_.read_bytes(data, count)) [[unlikely]]
                return this->fail(error::truncated, start, "bytes past the end of the input");
        }
        return true;
    }

    std::size_t bit_position() const noexcept
    {
        if constexpr (is_writing)
            return cursor_.bits_written();
        else
            return cursor_.bits_read();
    }
    std::size_t bits_remaining() const noexcept
        requires is_reading
    {
        return cursor_.bits_remaining();
    }

protected:
    Cursor cursor_;

private:
    Derived& derived() noexcept { return static_cast<Derived&>(*this); }
};

template <scope Scope = scope::all>
class basic_write_stream : public bitrep::cursor_stream<basic_write_stream<Scope>, bit_writer, Scope> {
    using cursor_stream = bitrep::cursor_stream<basic_write_stream, bit_writer, Scope>;

public:
    /// Resumes where `state` (another stream's state()) stands: the engine
    /// runs on a copy it keeps in registers and hands back what it wrote.
    using cursor_stream::cursor_stream;
    /// Records failures in `record`, outside the stream (the fast form).
    basic_write_stream(std::span<std::uint8_t> buffer, failure_record& record) noexcept
        : cursor_stream(bit_writer(buffer), record)
    {
    }
    explicit basic_write_stream(std::span<std::uint8_t> buffer) noexcept : basic_write_stream(buffer, own_failure_) {}

    using stream_primitives<basic_write_stream>::serialize_bits;
    BITREP_ALWAYS_INLINE bool serialize_bits(std::uint32_t& value, int bits)
    {
        if (!cursor_.write_bits(value, bits)) [[unlikely]]
            return this->fail(error::buffer_too_small, cursor_.bits_written(), "output buffer is full");
        return true;
    }

    /// Stores the final partial bytes; returns the meaningful byte count.
    std::size_t flush() noexcept
    {
        cursor_.flush();
        return cursor_.bytes_written();
    }

private:
    using cursor_stream::cursor_;
    failure_record own_failure_;
};

template <scope Scope = scope::all>
class basic_read_stream : public bitrep::cursor_stream<basic_read_stream<Scope>, bit_reader, Scope> {
    using cursor_stream = bitrep::cursor_stream<basic_read_stream, bit_reader, Scope>;

public:
    using cursor_stream::cursor_stream;
    /// Records failures in `record`, outside the stream (the fast form).
    basic_read_stream(std::span<const std::uint8_t> data, failure_record& record) noexcept
        : cursor_stream(bit_reader(data), record)
    {
    }
    explicit basic_read_stream(std::span<const std::uint8_t> data) noexcept : basic_read_stream(data, own_failure_) {}

    using stream_primitives<basic_read_stream>::serialize_bits;
    BITREP_ALWAYS_INLINE bool serialize_bits(std::uint32_t& value, int bits)
    {
        if (!cursor_.read_bits(value, bits)) [[unlikely]]
            return this->fail(error::truncated, cursor_.bits_read(), "input ends before the value");
        return true;
    }

private:
    using cursor_stream::cursor_;
    failure_record own_failure_;
};

/// Counts bits. bits() follows the standard's conservative rule (7 bits per
/// alignment, so it bounds the size at any starting offset); exact_bits()
/// counts real padding from an aligned start, which is what to_bytes writes.
template <scope Scope = scope::all>
class basic_measure_stream : public stream_primitives<basic_measure_stream<Scope>> {
public:
    static constexpr bool is_writing = false;
    static constexpr bool is_reading = false;
    static constexpr bool is_measuring = true;
    static constexpr bitrep::scope field_scope = Scope;

    basic_measure_stream() noexcept : stream_primitives<basic_measure_stream>(own_failure_) {}
    explicit basic_measure_stream(failure_record& record) noexcept : stream_primitives<basic_measure_stream>(record) {}
    struct state_type {
        std::size_t bits;
        std::size_t exact_bits;
    };
    basic_measure_stream(const state_type& state, failure_record& record) noexcept
        : stream_primitives<basic_measure_stream>(record), bits_(state.bits), exact_bits_(state.exact_bits)
    {
    }
    state_type state() const noexcept { return {bits_, exact_bits_}; }
    void resume(const state_type& state) noexcept
    {
        bits_ = state.bits;
        exact_bits_ = state.exact_bits;
    }

    using stream_primitives<basic_measure_stream>::serialize_bits;
    BITREP_ALWAYS_INLINE bool serialize_bits(std::uint32_t&, int bits) noexcept
    {
        bits_ += static_cast<std::size_t>(bits);
        exact_bits_ += static_cast<std::size_t>(bits);
        return true;
    }

    bool serialize_align() noexcept
    {
        bits_ += 7;
        exact_bits_ += (8 - exact_bits_ % 8) % 8;
        return true;
    }

    bool serialize_bytes(std::uint8_t*, std::size_t count) noexcept
    {
        serialize_align();
        bits_ += count * 8;
        exact_bits_ += count * 8;
        return true;
    }

    std::size_t bits() const noexcept { return bits_; }
    std::size_t exact_bits() const noexcept { return exact_bits_; }
    std::size_t bit_position() const noexcept { return exact_bits_; }

private:
    std::size_t bits_ = 0;
    std::size_t exact_bits_ = 0;
    failure_record own_failure_;
};

using write_stream = basic_write_stream<>;
using read_stream = basic_read_stream<>;
using measure_stream = basic_measure_stream<>;

} // namespace bitrep
