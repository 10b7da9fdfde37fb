// Values to bytes and back: to_bytes, from_bytes, bit_size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include <bitrep/detail/cross_check.hpp>
#include <bitrep/detail/exceptions.hpp>
#include <bitrep/detail/portability.hpp>
#include <bitrep/detail/working_object.hpp>
#include <bitrep/engine/objects.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/serialize.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep {

/// Opts T into a fully inlined codec for to_bytes / from_bytes / bit_size /
/// decoder: every field's code compiled into the calling function, for the
/// hot path of a game that wants the last nanosecond, at the price of build
/// time in each file that uses it. Either a member
/// `static constexpr bool bitrep_inline_codec = true;` or, for a type the
/// game cannot change, BITREP_INLINE_CODEC(T) at global scope. Otherwise
/// values go through the table engine, compiled once in the library.
/// BITREP_INLINE_CODECS=1 (the CMake option of that name) opts every type
/// in, e.g. for a shipping build whose build time matters less.
#ifndef BITREP_INLINE_CODECS
#define BITREP_INLINE_CODECS 0
#endif
template <class T>
inline constexpr bool inline_codec = BITREP_INLINE_CODECS != 0 || requires { requires T::bitrep_inline_codec; };

namespace detail {
/// Which code runs a whole value: the table engine, or T's inlined codec.
enum class codec_path { engine, inlined };
template <class T>
inline constexpr codec_path path_of = inline_codec<T> ? codec_path::inlined : codec_path::engine;

/// The engine runs the bit streams of every scope; a coded stream (a
/// range coder's) takes the codecs.
template <codec_path Path, class Stream>
inline constexpr bool engine_runs = Path == codec_path::engine && !Stream::is_coded;

template <codec_path Path, class Stream, class T>
BITREP_ALWAYS_INLINE bool write_value(Stream& stream, const T& value)
{
    if constexpr (engine_runs<Path, Stream>) {
        static_assert(engine::entry_v<T>.depth <= engine::max_depth, "bitrep: containers nested too deep");
#if BITREP_CROSS_CHECK
        cross_check<Stream::field_scope>(value);
#endif
        if constexpr (Stream::is_measuring)
            return engine::measure(stream, engine::root_v<T>, &value);
        else
            return engine::write(stream, engine::root_v<T>, &value);
    } else {
        return bitrep::serialize(stream, value);
    }
}

template <codec_path Path, class Stream, class T>
BITREP_ALWAYS_INLINE bool read_value(Stream& stream, T& value)
{
    if constexpr (engine_runs<Path, Stream>)
        return engine::read(stream, engine::root_v<T>, &value);
    else
        return bitrep::serialize(stream, value);
}

// On the engine's path each *_by form is one call into the library, forced
// inline even at -O0 into the entry point, which stays a function of its own
// (BITREP_EXTERN declares it); the inlined path's forms are as they always
// were.

template <codec_path Path, class T>
    requires(Path == codec_path::engine)
BITREP_FORCE_INLINE std::size_t bit_size_by(const T& value)
{
#if BITREP_CROSS_CHECK
    cross_check<scope::all>(value);
#endif
    return engine::bit_size(engine::value_type_v<T>, &value);
}

template <codec_path Path, class T>
    requires(Path == codec_path::inlined)
std::size_t bit_size_by(const T& value)
{
    failure_record failure;
    measure_stream stream(failure);
    // Measuring checks no value, so only a hook that refuses can stop it; the
    // count then ends where it refused, and to_bytes reports that refusal.
    static_cast<void>(write_value<Path>(stream, value));
    return stream.exact_bits();
}

template <codec_path Path, class T>
    requires(Path == codec_path::engine)
BITREP_FORCE_INLINE status to_bytes_by(const T& value, std::span<std::uint8_t> buffer,
                                                 std::size_t& bytes_written)
{
#if BITREP_CROSS_CHECK
    cross_check<scope::all>(value);
#endif
    return engine::to_bytes(engine::value_type_v<T>, &value, buffer, bytes_written);
}

template <codec_path Path, class T>
    requires(Path == codec_path::inlined)
status to_bytes_by(const T& value, std::span<std::uint8_t> buffer, std::size_t& bytes_written)
{
    failure_record failure;
    write_stream stream(buffer, failure);
    if (!write_value<Path>(stream, value)) [[unlikely]] {
        bytes_written = 0;
        return stream.failure_status(reflect::type_name<T>());
    }
    bytes_written = stream.flush();
    return {};
}
} // namespace detail

/// Exactly the number of bits to_bytes writes for this value (its byte count
/// is the ceiling over 8). Unlike measure_stream::bits() it counts the real
/// alignment padding from an aligned start instead of the standard's 7.
template <class T>
std::size_t bit_size(const T& value)
{
    return detail::bit_size_by<detail::path_of<T>>(value);
}

/// Encodes every field that is not transient into a caller buffer. Never
/// allocates on success; buffer_too_small when it does not fit, and
/// value_out_of_range (naming the field) for a value outside its annotation.
template <class T>
status to_bytes(const T& value, std::span<std::uint8_t> buffer, std::size_t& bytes_written)
{
    return detail::to_bytes_by<detail::path_of<T>>(value, buffer, bytes_written);
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
        static_cast<void>(write_value<path_of<T>>(measure, value)); // to_bytes reports a refusing hook
        room_bits = measure.exact_bits();
    }
    const std::size_t offset = out.size();
    out.resize(offset + (room_bits + 7) / 8);
    failure_record failure;
    basic_write_stream<Scope> stream(std::span<std::uint8_t>(out).subspan(offset), failure);
    if (!write_value<path_of<T>>(stream, value)) [[unlikely]] {
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
    if constexpr (detail::path_of<T> == detail::codec_path::engine) {
#if BITREP_CROSS_CHECK
        detail::cross_check<scope::all>(value);
#endif
        return engine::to_bytes(engine::value_type_v<T>, &value, out);
    } else {
        out.clear();
        std::size_t bits = 0;
        return detail::append_encoding<scope::all>(value, out, bits);
    }
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
        throw write_error(result);
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
/// pass a copy or a working object) and refuses whole bytes left after the
/// value.
template <codec_path Path, class T>
BITREP_ALWAYS_INLINE status decode_in_place(std::span<const std::uint8_t> bytes, T& target)
{
    if constexpr (Path == codec_path::engine) {
        return engine::decode_in_place(engine::value_type_v<T>, bytes, &target);
    } else {
        failure_record failure;
        read_stream stream(bytes, failure);
        if (!read_value<Path>(stream, target)) [[unlikely]]
            return stream.failure_status(reflect::type_name<T>());
        const std::size_t used_bytes = (stream.bit_position() + 7) / 8;
        if (used_bytes != bytes.size()) [[unlikely]]
            return status(error::trailing_data, used_bytes * 8, reflect::type_name<T>(),
                          "whole bytes left over after the value");
        return {};
    }
}

/// Whether a read by Path writes every field of T (the engine asks T's
/// entries; the codecs, T's codecs).
template <codec_path Path, class T>
constexpr bool reads_every_field_by()
{
    if constexpr (Path == codec_path::engine)
        return engine::value_type_v<T>.reads_every_field;
    else
        return every_field_carried<T, scope::all>::value;
}

/// Decodes into `working` (a decoder's, kept between messages, or one made
/// for the call) and exchanges it with `out` on success. A read that writes every field needs nothing of
/// `out` in it: whatever an earlier message, refused or not, left there is
/// overwritten (containers resized, optionals reset or filled), and its
/// containers' capacity is reused. Otherwise it first copies `out` into it,
/// by assignment, which reuses that capacity too.
template <codec_path Path, class T>
BITREP_ALWAYS_INLINE status decode_and_exchange(std::span<const std::uint8_t> bytes, T& working, T& out,
                                                [[maybe_unused]] engine::exchange_steps& steps)
{
    if constexpr (Path == codec_path::engine && engine::detail::made_working<T>) {
        return engine::decode_and_exchange(engine::value_type_v<T>, engine::detail::object_ops_v<T>, bytes, &working,
                                           &out, steps);
    } else {
        if constexpr (!reads_every_field_by<Path, T>())
            working = out; // the fields the encoding does not carry come from out
        status result = decode_in_place<Path>(bytes, working);
        if (result) {
            // A swap exchanges pointers for containers; for a flat T (an
            // array of plain structs) it would copy three times what one
            // assignment copies once.
            if constexpr (std::is_trivially_copyable_v<T>) {
                out = working;
            } else {
                using std::swap;
                swap(out, working);
            }
        }
        return result;
    }
}

template <codec_path Path, class T>
    requires(Path == codec_path::engine)
BITREP_FORCE_INLINE status from_bytes_by(std::span<const std::uint8_t> bytes, T& out)
{
    if constexpr (engine::detail::made_working<T>) {
        return engine::from_bytes(engine::value_type_v<T>, engine::detail::object_ops_v<T>, bytes, &out);
    } else {
        T decoded(out);
        status result = engine::decode_in_place(engine::value_type_v<T>, bytes, &decoded);
        if (result)
            out = std::move(decoded);
        return result;
    }
}

template <codec_path Path, class T>
    requires(Path == codec_path::inlined)
status from_bytes_by(std::span<const std::uint8_t> bytes, T& out)
{
    if constexpr (std::is_trivially_copyable_v<T> || !std::is_default_constructible_v<T>) {
        T decoded(out);
        status result = decode_in_place<Path>(bytes, decoded);
        if (result)
            out = std::move(decoded);
        return result;
    } else {
        // On the heap: a T with containers may be large for a stack.
        struct on_heap {
            T* object = new T();
            on_heap() = default;
            on_heap(const on_heap&) = delete;
            on_heap& operator=(const on_heap&) = delete;
            ~on_heap() { delete object; }
        } working;
        engine::exchange_steps unused;
        return decode_and_exchange<Path>(bytes, *working.object, out, unused);
    }
}
} // namespace detail

/// Decodes bytes written by to_bytes. All or nothing: on any error `out` is
/// left exactly as it was, and the status names the error, the field path and
/// the bit. Fields the encoding does not carry (transient) keep their values.
/// Whole bytes left after the value are refused as trailing_data; the unused
/// bits of the last byte are ignored, as the standard requires.
///
/// A T that is not trivially copyable (one with containers) is decoded into a
/// working T made for the call, on the heap, and then exchanged with `out`
/// part by part: `out`'s old strings and vectors go with the working object,
/// and the decoded ones are allocated anew on every call (146 allocations per
/// Monster batch). A receive loop that should allocate nothing once warm
/// uses bitrep::decoder<T>, which keeps its working object and its capacity.
/// Nothing is kept between calls, per thread or per type. A trivially
/// copyable T (or one with no default constructor) is decoded into a copy of
/// `out` on the stack: nothing allocated.
template <class T>
status from_bytes(std::span<const std::uint8_t> bytes, T& out)
{
    return detail::from_bytes_by<detail::path_of<T>>(bytes, out);
}


/// from_bytes for a receive loop: the same all-or-nothing guarantee, with a
/// working object of the decoder's own kept between messages: decoded into
/// (after a copy of `out` only when T has fields the encoding does not carry)
/// and then exchanged with `out`, so its containers' capacity is reused and a
/// steady stream of messages allocates nothing.
template <class T>
class decoder {
public:
    status decode(std::span<const std::uint8_t> bytes, T& out)
    {
        return detail::decode_and_exchange<detail::path_of<T>>(bytes, working_, out, steps_);
    }

private:
    T working_{};
    engine::exchange_steps steps_;
};

} // namespace bitrep

/// BITREP_INLINE_CODEC(T): bitrep::inline_codec for a type the game cannot
/// change (at global scope).
#define BITREP_INLINE_CODEC(...) \
    template <>                   \
    inline constexpr bool bitrep::inline_codec<__VA_ARGS__> = true;
