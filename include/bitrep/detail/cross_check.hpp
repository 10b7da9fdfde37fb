// A test build's proof that the engine and the inlined codecs are one
// encoding (BITREP_CROSS_CHECK=1, the CMake option of that name): every
// value the engine writes or measures is also written and measured by its
// inlined codec, on a stream of the same scope, and any difference in the
// bits, the count or the refusal (code, bit, field path) aborts, naming the
// type. Off (0) in every build but the tests'.
#pragma once

#ifndef BITREP_CROSS_CHECK
#define BITREP_CROSS_CHECK 0
#endif

#if BITREP_CROSS_CHECK
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string_view>
#include <vector>

#include <bitrep/detail/portability.hpp>
#include <bitrep/engine/objects.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/serialize.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep::detail {

/// One encoding of a value: its bytes, or its refusal.
struct checked_encoding {
    bool ok = false;
    std::vector<std::uint8_t> bytes;
    status refusal;
    std::size_t bits = 0;       // measured: the standard's count
    std::size_t exact_bits = 0; // measured: the real one
};

[[noreturn]] inline void cross_check_failed(std::string_view type, const char* what)
{
    std::fprintf(stderr, "bitrep cross-check: the engine and the inlined codec of %.*s differ in %s\n",
                 static_cast<int>(type.size()), type.data(), what);
    std::abort();
}

template <scope Scope, bool Engine, class T>
checked_encoding encode_for_check(const T& value, std::size_t capacity)
{
    checked_encoding out;
    failure_record measured;
    basic_measure_stream<Scope> measure(measured);
    if constexpr (Engine)
        static_cast<void>(engine::measure(measure, engine::root_v<T>, &value));
    else
        static_cast<void>(bitrep::serialize(measure, const_cast<T&>(value)));
    out.bits = measure.bits();
    out.exact_bits = measure.exact_bits();
    out.bytes.resize(capacity);
    failure_record failure;
    basic_write_stream<Scope> stream(std::span<std::uint8_t>(out.bytes), failure);
    if constexpr (Engine)
        out.ok = engine::write(stream, engine::root_v<T>, &value);
    else
        out.ok = bitrep::serialize(stream, const_cast<T&>(value));
    out.bytes.resize(out.ok ? stream.flush() : 0);
    if (!out.ok)
        out.refusal = stream.failure_status(reflect::type_name<T>());
    return out;
}

/// The check itself: both encodings of `value` in streams of Scope, into
/// room for the larger measure (the same for both unless they differ).
template <scope Scope, class T>
BITREP_NOINLINE void cross_check(const T& value)
{
    failure_record failure;
    basic_measure_stream<Scope> measure(failure);
    static_cast<void>(bitrep::serialize(measure, const_cast<T&>(value)));
    const std::size_t capacity = measure.bits() / 8 + 16;
    const checked_encoding engine = encode_for_check<Scope, true>(value, capacity);
    const checked_encoding codec = encode_for_check<Scope, false>(value, capacity);
    const std::string_view type = reflect::type_name<T>();
    if (engine.bits != codec.bits || engine.exact_bits != codec.exact_bits)
        cross_check_failed(type, "the measured bits");
    if (engine.ok != codec.ok)
        cross_check_failed(type, "whether the value is refused");
    if (engine.bytes != codec.bytes)
        cross_check_failed(type, "the bytes written");
    if (engine.refusal.code() != codec.refusal.code() || engine.refusal.bit_offset() != codec.refusal.bit_offset() ||
        engine.refusal.field_path() != codec.refusal.field_path())
        cross_check_failed(type, "the refusal (code, bit or field path)");
}

} // namespace bitrep::detail
#endif
