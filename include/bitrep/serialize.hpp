// The entry point: bitrep::serialize(stream, value) dispatches to codec<T>
// (codec.hpp), for writing, reading and measuring alike. Every kind's codec
// is included at the end, so that this header (or bitrep.hpp) is all a user
// needs. Delta, save files and replication reuse these codecs; nothing else
// knows how a kind is written.
#pragma once

#include <string_view>
#include <type_traits>

#include <bitrep/codec.hpp>
#include <bitrep/detail/inline.hpp>

namespace bitrep {

/// The one entry point: serializes value through any stream. Hand-written
/// hooks call it for their members, so they share every encoding. A const
/// value can be written or measured, never read into.
template <class Stream, class T>
[[nodiscard]] BITREP_ALWAYS_INLINE bool serialize(Stream& stream, T& value)
{
    using plain = std::remove_cv_t<T>;
    static_assert(!(std::is_const_v<T> && Stream::is_reading), "bitrep::serialize: cannot read into a const value");
    return codec<plain>::serialize(stream, const_cast<plain&>(value));
}

/// serialize() that names the field in the error path when it fails; for
/// hand-written hooks.
template <class Stream, class T>
[[nodiscard]] BITREP_ALWAYS_INLINE bool serialize_field(Stream& stream, std::string_view name, T& value)
{
    if (serialize(stream, value)) [[likely]]
        return true;
    stream.enter_member(name);
    return false;
}

} // namespace bitrep

// After the entry point, which the codecs of composite kinds call for their
// parts (each of those includes this header; #pragma once ends the cycle).
#include <bitrep/codecs/adapted.hpp>
#include <bitrep/codecs/bitset.hpp>
#include <bitrep/codecs/bounded_map.hpp>
#include <bitrep/codecs/bounded_string.hpp>
#include <bitrep/codecs/classes.hpp>
#include <bitrep/codecs/containers.hpp>
#include <bitrep/codecs/delta_small.hpp>
#include <bitrep/codecs/duration.hpp>
#include <bitrep/codecs/entity_array.hpp>
#include <bitrep/codecs/field_flags.hpp>
#include <bitrep/codecs/flags.hpp>
#include <bitrep/codecs/proxy.hpp>
#include <bitrep/codecs/quantized.hpp>
#include <bitrep/codecs/quat.hpp>
#include <bitrep/codecs/ranged.hpp>
#include <bitrep/codecs/scalars.hpp>
#include <bitrep/codecs/tuple.hpp>
#include <bitrep/codecs/unsupported.hpp>
#include <bitrep/codecs/variant.hpp>
