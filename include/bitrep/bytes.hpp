// Values to bytes and back: to_bytes, from_bytes, bit_size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include <bitrep/detail/exceptions.hpp>
#include <bitrep/detail/inline.hpp>
#include <bitrep/detail/working_object.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/serialize.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep {

/// Exactly the number of bits to_bytes writes for this value (its byte count
/// is the ceiling over 8). Unlike measure_stream::bits() it counts the real
/// alignment padding from an aligned start instead of the standard's 7.
template <class T>
std::size_t bit_size(const T& value)
{
    failure_record failure;
    measure_stream stream(failure);
    // Measuring checks no value, so only a hook that refuses can stop it; the
    // count then ends where it refused, and to_bytes reports that refusal.
    static_cast<void>(bitrep::serialize(stream, value));
    return stream.exact_bits();
}

/// Encodes every field that is not transient into a caller buffer. Never
/// allocates on success; buffer_too_small when it does not fit, and
/// value_out_of_range (naming the field) for a value outside its annotation.
template <class T>
status to_bytes(const T& value, std::span<std::uint8_t> buffer, std::size_t& bytes_written)
{
    failure_record failure;
    write_stream stream(buffer, failure);
    if (!bitrep::serialize(stream, value)) [[unlikely]] {
        bytes_written = 0;
        return stream.failure_status(reflect::type_name<T>());
    }
    bytes_written = stream.flush();
    return {};
}

namespace detail {
/// Appends value's encoding in Scope to out (out is unchanged on failure).
template <scope Scope, class T>
status append_encoding(const T& value, std::vector<std::uint8_t>& out, std::size_t& bits_written)
{
    // Growing the vector zero-fills what it adds. Up to a few hundred bytes,
    // filling the whole compile-time bound costs less than measuring first;
    // beyond (a bounded vector's bound is usually far above what it holds),
    // an exact measuring pass sizes it, so that only the encoding is filled.
    // (if constexpr: a small type's measuring codecs are never compiled.)
    constexpr std::size_t small_bound_bytes = 256;
    constexpr std::size_t bound_bits = max_bits<T>;
    std::size_t room_bits = bound_bits;
    if constexpr (bound_bits > small_bound_bytes * 8) {
        failure_record failure;
        basic_measure_stream<Scope> measure(failure);
        static_cast<void>(bitrep::serialize(measure, value)); // to_bytes reports a refusing hook
        room_bits = measure.exact_bits();
    }
    const std::size_t offset = out.size();
    out.resize(offset + (room_bits + 7) / 8);
    failure_record failure;
    basic_write_stream<Scope> stream(std::span<std::uint8_t>(out).subspan(offset), failure);
    if (!bitrep::serialize(stream, value)) [[unlikely]] {
        out.resize(offset);
        bits_written = 0;
        return stream.failure_status(reflect::type_name<T>());
    }
    bits_written = stream.bit_position();
    out.resize(offset + stream.flush());
    return {};
}
} // namespace detail

/// Encodes into out, replacing its contents (out is empty on failure).
template <class T>
status to_bytes(const T& value, std::vector<std::uint8_t>& out)
{
    out.clear();
    std::size_t bits = 0;
    return detail::append_encoding<scope::all>(value, out, bits);
}

namespace detail {
/// The bytes `encode(out)` produces, or a thrown write_error carrying its
/// status: the convenience form of every encoder that fills a vector.
template <class Encode>
std::vector<std::uint8_t> bytes_or_throw(Encode encode)
{
#if BITREP_HAS_EXCEPTIONS
    std::vector<std::uint8_t> out;
    if (status result = encode(out); !result)
        throw write_error(std::move(result));
    return out;
#else
    static_assert(always_false<Encode>,
                  "bitrep: this form reports a failure by throwing bitrep::write_error, and exceptions are disabled. "
                  "Call the overload that takes the output vector (or a caller buffer) and returns a bitrep::status.");
    static_cast<void>(encode);
    return {};
#endif
}
} // namespace detail

/// Convenience: the bytes, or a thrown write_error carrying the status.
template <class T>
std::vector<std::uint8_t> to_bytes(const T& value)
{
    return detail::bytes_or_throw([&value](std::vector<std::uint8_t>& out) { return to_bytes(value, out); });
}

namespace detail {
/// Reads a whole encoding into target in place (not all-or-nothing: callers
/// pass a copy) and refuses whole bytes left after the value.
template <class T>
BITREP_ALWAYS_INLINE status decode_in_place(std::span<const std::uint8_t> bytes, T& target)
{
    failure_record failure;
    read_stream stream(bytes, failure);
    if (!bitrep::serialize(stream, target)) [[unlikely]]
        return stream.failure_status(reflect::type_name<T>());
    const std::size_t used_bytes = (stream.bit_position() + 7) / 8;
    if (used_bytes != bytes.size()) [[unlikely]]
        return status(error::trailing_data, used_bytes * 8, reflect::type_name<T>(),
                      "whole bytes left over after the value");
    return {};
}
} // namespace detail

/// Decodes bytes written by to_bytes. All or nothing: on any error `out` is
/// left exactly as it was, and the status names the error, the field path and
/// the bit. Fields the encoding does not carry (transient) keep their values.
/// Whole bytes left after the value are refused as trailing_data; the unused
/// bits of the last byte are ignored, as the standard requires.
/// It decodes into a copy of `out`, which allocates for each container; a
/// receive loop that wants no allocation uses bitrep::decoder. (A new T
/// instead of the copy, when every field is read, measured more
/// instructions: 180,210 against 165,742 per Monster batch with g++, and
/// 1.5% more per cube snapshot, docs/benchmarks.md.)
template <class T>
status from_bytes(std::span<const std::uint8_t> bytes, T& out)
{
    T decoded(out);
    status result = detail::decode_in_place(bytes, decoded);
    if (result)
        out = std::move(decoded);
    return result;
}

/// from_bytes for a receive loop: the same all-or-nothing guarantee, but the
/// working object is kept between calls: it is decoded into (after a copy of
/// `out` only when T has fields the encoding does not carry) and then
/// exchanged with `out`, so its containers' capacity is reused and a steady
/// stream of messages allocates nothing.
template <class T>
class decoder {
public:
    status decode(std::span<const std::uint8_t> bytes, T& out)
    {
        // A read that writes every field needs nothing of `out` in the
        // working copy: whatever an earlier message left there is
        // overwritten (containers resized, optionals reset or filled).
        if constexpr (!detail::every_field_carried<T, scope::all>::value)
            scratch_ = out; // the fields the encoding does not carry come from out
        status result = detail::decode_in_place(bytes, scratch_);
        if (result) {
            // A swap exchanges pointers for containers; for a flat T (an
            // array of plain structs) it would copy three times what one
            // assignment copies once.
            if constexpr (std::is_trivially_copyable_v<T>) {
                out = scratch_;
            } else {
                using std::swap;
                swap(out, scratch_);
            }
        }
        return result;
    }

private:
    T scratch_{};
};

} // namespace bitrep
