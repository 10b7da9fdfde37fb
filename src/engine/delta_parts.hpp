// The parts the engine's delta walk (delta_walk.hpp) and its sameness and
// assignment (compare.cpp) share: raw bytes, field offsets, proxies' wire
// objects, a quantized value's quantum, a map's mapped value.
#pragma once

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <bitrep/codecs/field_flags.hpp>
#include <bitrep/detail/portability.hpp>
#include <bitrep/engine/table.hpp>

#include "kinds.hpp"

namespace bitrep::engine {

using bytes = unsigned char;
using kinds::quat_floats;

template <class P>
BITREP_ALWAYS_INLINE bytes* ptr(P* p) noexcept
{
    return static_cast<bytes*>(const_cast<void*>(static_cast<const void*>(p)));
}

constexpr bool carried(const field_entry& e, scope s) noexcept
{
    return e.flag == 0 || bitrep::detail::flag_carried(static_cast<field_flag>(e.flag - 1), s);
}

/// A struct's field offsets, taken on first use.
BITREP_ALWAYS_INLINE const std::atomic<std::uint32_t>* field_offsets(const type_table& t) noexcept
{
    if (!t.ready->load(std::memory_order_acquire)) [[unlikely]]
        t.compute_offsets();
    return t.offsets;
}
BITREP_ALWAYS_INLINE std::uint32_t field_offset(const type_table& t, std::uint32_t i) noexcept
{
    return field_offsets(t)[i].load(std::memory_order_relaxed);
}

BITREP_ALWAYS_INLINE std::uint64_t load_word(const bytes* p) noexcept
{
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    return word;
}
BITREP_ALWAYS_INLINE std::uint32_t load_half(const bytes* p) noexcept
{
    std::uint32_t half;
    std::memcpy(&half, p, 4);
    return half;
}

/// n bytes of a and b equal; words at a time, the last word overlapping the
/// one before, inline (a field's or an element's few bytes, where a call to
/// memcmp costs more than comparing).
BITREP_ALWAYS_INLINE bool equal_bytes(const bytes* a, const bytes* b, std::size_t n) noexcept
{
    if (n >= 8) {
        const std::size_t last = n - 8;
        for (std::size_t i = 0; i < last; i += 8)
            if (load_word(a + i) != load_word(b + i))
                return false;
        return load_word(a + last) == load_word(b + last);
    }
    if (n >= 4)
        return load_half(a) == load_half(b) && load_half(a + n - 4) == load_half(b + n - 4);
    for (; n != 0; --n, ++a, ++b)
        if (*a != *b)
            return false;
    return true;
}

/// to = from, n bytes, inline like equal_bytes.
BITREP_ALWAYS_INLINE void copy_bytes(bytes* to, const bytes* from, std::size_t n) noexcept
{
    if (n >= 8) {
        const std::size_t last = n - 8;
        for (std::size_t i = 0; i < last; i += 8)
            std::memcpy(to + i, from + i, 8);
        std::memcpy(to + last, from + last, 8);
        return;
    }
    for (; n != 0; --n)
        *to++ = *from++;
}

/// Bitwise identical objects encode identically (delta.hpp's identical_bytes).
BITREP_ALWAYS_INLINE bool identical(const field_entry& e, const void* a, const void* b) noexcept
{
    return e.trivially_copyable && e.object_size != 0 &&
           equal_bytes(static_cast<const bytes*>(a), static_cast<const bytes*>(b), e.object_size);
}

/// A proxy's wire object: in place in the value, or made from it in the
/// scratch (the caller releases it).
BITREP_ALWAYS_INLINE bytes* wire_part(const field_entry& e, const void* value, scratch& work)
{
    const std::ptrdiff_t at = e.proxy->in_place != nullptr ? e.proxy->in_place() : -1;
    if (at >= 0)
        return ptr(value) + at;
    return static_cast<bytes*>(e.proxy->wire_to_write(value, work));
}

BITREP_ALWAYS_INLINE bool quantum_of(const field_entry& e, const void* p, std::uint64_t& index) noexcept
{
    const float v = *static_cast<const float*>(p);
    index = e.quantized.quantizer.stable_quantize(v);
    return bitrep::detail::quantized_encodable(v, e.quantized);
}

/// A unit quaternion as the writer checks it: anything else is a change it refuses.
inline bool unit_length(const quat_floats& q) noexcept
{
    const float norm = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    return std::fabs(norm - 1.0f) <= bitrep::detail::unit_norm_tolerance;
}

/// unit_length for a value both ends must judge alike (a class's own
/// prediction of a rotation): the norm rounded step by step, as a reader
/// rebuilds a rotation, so no fused multiply-add can tip it either way.
inline bool unit_length_on_both_ends(const quat_floats& q) noexcept
{
    using bitrep::detail::add_square;
    const float norm = add_square(add_square(add_square(add_square(0.0f, q.x), q.y), q.z), q.w);
    return std::fabs(norm - 1.0f) <= bitrep::detail::unit_norm_tolerance;
}

template <scope Scope>
const codec_calls<Scope>& calls_of(const codec_access& codec) noexcept
{
    if constexpr (Scope == scope::save)
        return codec.save;
    else if constexpr (Scope == scope::replication)
        return codec.replication;
    else
        return codec.all;
}

/// A map's entry's value (the second of its std::pair), or nullptr for a set.
BITREP_ALWAYS_INLINE const field_entry* mapped_entry(const field_entry& e) noexcept
{
    return e.map->has_values ? &e.element->nested->fields[1] : nullptr;
}
BITREP_ALWAYS_INLINE std::uint32_t mapped_offset(const field_entry& e) noexcept
{
    return field_offset(*e.element->nested, 1);
}

/// Whether a and b are the same on the wire of Scope (compare.cpp).
template <scope Scope>
bool same_value(const field_entry& e, const void* a, const void* b, scratch& work);

/// to = from, part by part (compare.cpp).
void assign(const field_entry& e, void* to, const void* from, scratch& work);

/// Elements [from, to) of a container taken from the baseline's (compare.cpp).
void assign_run(const field_entry& element, std::uint32_t stride, bytes* value, const bytes* base, std::size_t from,
                std::size_t to, scratch& work);

} // namespace bitrep::engine
