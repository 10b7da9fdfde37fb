// Deltas on the engine (engine/delta.hpp): one recursive walk over a
// value's entries, its baseline's and the older state's, compiled once for
// every stream and every type. Each kind's rule is here (a changed bit per
// part, a struct's fields one by one, a container's changed elements as a
// bitmask or an index list, a number on the coded streams as a residual
// against the baseline's trend); a part sent in full uses the kinds' own
// rules (kinds.hpp).
#include <bitrep/engine/delta.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <bitrep/codecs/classes.hpp>
#include <bitrep/codecs/field_flags.hpp>
#include <bitrep/engine/delta_cost.hpp>
#include <bitrep/quat_code.hpp>

#include "kinds.hpp"
#include "values.hpp"

namespace bitrep::engine {

namespace {

using namespace kinds;
using bytes = unsigned char;

/// The coded delta of a smallest-three code (quat and quat_code share it):
/// a decision whether the largest axis moved, and to which of the other
/// three (in index order), then the three components as residuals against
/// the baseline's and the older state's codes re-expressed with that axis by
/// `in_frame`, in the components' slot; with `predicted` (a class's own
/// prediction, predict.hpp), against that code re-expressed instead. Writing
/// reads `code`; reading fills it.
template <class Stream, class InFrame>
bool coded_smallest_three(Stream& stream, bitrep::detail::smallest_three_code& code,
                          const bitrep::detail::smallest_three_code& base,
                          const bitrep::detail::smallest_three_code& older,
                          const bitrep::detail::smallest_three_code* predicted, std::uint64_t max, InFrame in_frame)
{
    std::uint32_t moved = code.largest != base.largest ? 1u : 0u;
    if (!stream.serialize_bits(moved, 1))
        return false;
    std::uint32_t axis = base.largest;
    if (moved != 0) {
        std::uint64_t which = 0;
        if constexpr (!Stream::is_reading)
            which = code.largest - (code.largest > axis ? 1u : 0u);
        if (!stream.serialize_ranged_offset(which, 2))
            return false;
        axis = static_cast<std::uint32_t>(which) + (which >= axis ? 1u : 0u);
    }
    code.largest = axis;
    const bitrep::detail::smallest_three_code in_base = in_frame(base, axis);
    // The class's own prediction when there is one, else the older state
    // the library extrapolates through.
    const bitrep::detail::smallest_three_code toward = in_frame(predicted != nullptr ? *predicted : older, axis);
    [[maybe_unused]] const auto slot = stream.enter_slot(1);
    for (std::size_t k = 0; k < 3; ++k) {
        std::uint64_t quantum = code.quanta[k];
        const bool ok = predicted != nullptr
                            ? stream.serialize_index_predicted(quantum, in_base.quanta[k], toward.quanta[k], max)
                            : stream.serialize_index_delta(quantum, in_base.quanta[k], toward.quanta[k], max);
        if (!ok)
            return false;
        code.quanta[k] = static_cast<std::uint32_t>(quantum);
    }
    return true;
}
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

/// A proxy's wire object: in place in the value, or made from it (`which`
/// of the thread's three: 0 the older state's, 1 the baseline's, 2 the
/// value's).
BITREP_ALWAYS_INLINE bytes* wire_part(const field_entry& e, const void* value, int which)
{
    const std::ptrdiff_t at = e.proxy->in_place != nullptr ? e.proxy->in_place() : -1;
    if (at >= 0)
        return ptr(value) + at;
    return static_cast<bytes*>(e.proxy->wire_copy(value, which));
}

BITREP_ALWAYS_INLINE bool quantum_of(const field_entry& e, const void* p, std::uint64_t& index) noexcept
{
    const float v = *static_cast<const float*>(p);
    index = e.quantized.quantizer.stable_quantize(v);
    return bitrep::detail::quantized_encodable(v, e.quantized);
}

// ---- sameness on the wire ----------------------------------------------

template <scope Scope>
bool same_value(const field_entry& e, const void* a, const void* b);

template <scope Scope>
bool same_elements(const field_entry& element, std::uint32_t stride, const bytes* a, const bytes* b, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i, a += stride, b += stride)
        if (!identical(element, a, b) && !same_value<Scope>(element, a, b))
            return false;
    return true;
}

/// A unit quaternion as the writer checks it: anything else is a change it refuses.
bool unit_length(const quat_floats& q) noexcept
{
    const float norm = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    return std::fabs(norm - 1.0f) <= bitrep::detail::unit_norm_tolerance;
}

/// unit_length for a value both ends must judge alike (a class's own
/// prediction of a rotation): the norm rounded step by step, as a reader
/// rebuilds a rotation, so no fused multiply-add can tip it either way.
bool unit_length_on_both_ends(const quat_floats& q) noexcept
{
    using bitrep::detail::add_square;
    const float norm = add_square(add_square(add_square(add_square(0.0f, q.x), q.y), q.z), q.w);
    return std::fabs(norm - 1.0f) <= bitrep::detail::unit_norm_tolerance;
}

/// What smallest-three sends of a and b is the same code.
bool same_quat(const field_entry& e, const quat_floats& a, const quat_floats& b) noexcept
{
    namespace d = bitrep::detail;
    if (!unit_length(a) || !unit_length(b))
        return false;
    const bitrep::quantizer& q = e.quat.component;
    const auto sa = d::smallest_three_parts::of(a.x, a.y, a.z, a.w);
    const auto sb = d::smallest_three_parts::of(b.x, b.y, b.z, b.w);
    bool equal = sa.largest == sb.largest;
    for (int k = 0; k < 3 && equal; ++k)
        equal = q.stable_quantize(sa.small[k]) == q.stable_quantize(sb.small[k]);
    if (equal)
        return true;
    if (q.exact && sa.gap >= e.quat.tie_margin && sb.gap >= e.quat.tie_margin)
        return false;
    d::smallest_three_code ca = d::quanta_of(sa, q);
    d::smallest_three_code cb = d::quanta_of(sb, q);
    d::settle_largest(ca, q);
    d::settle_largest(cb, q);
    return ca == cb;
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

/// Whether two values encode to the same bits, each written into its
/// buffer (large enough for either encoding).
template <scope Scope>
bool same_bits_written(const codec_calls<Scope>& calls, const void* a, const void* b, std::span<std::uint8_t> buffer_a,
                       std::span<std::uint8_t> buffer_b)
{
    failure_record failure_a;
    failure_record failure_b;
    basic_write_stream<Scope> stream_a(buffer_a, failure_a);
    basic_write_stream<Scope> stream_b(buffer_b, failure_b);
    if (!calls.write(stream_a, a) || !calls.write(stream_b, b))
        return false;
    if (stream_a.bit_position() != stream_b.bit_position())
        return false;
    const std::size_t used = stream_a.flush();
    stream_b.flush();
    return std::equal(buffer_a.begin(), buffer_a.begin() + static_cast<std::ptrdiff_t>(used), buffer_b.begin());
}

/// A hook's values compared by their encodings, bit for bit; a value that
/// cannot be encoded counts as changed, so that the writer reports it.
/// Encodings of up to 512 bytes are written on the stack; a hook without a
/// bound that small is measured first, and only a value whose encoding is
/// larger is written on the heap, for this comparison.
template <scope Scope>
bool same_encoding(const field_entry& e, const void* a, const void* b)
{
    const codec_calls<Scope>& calls = calls_of<Scope>(*e.codec);
    constexpr std::size_t on_stack = 512;
    std::size_t bits = e.max_bits;
    if (bits > 8 * on_stack) {
        failure_record failure;
        basic_measure_stream<Scope> measure_a(failure);
        basic_measure_stream<Scope> measure_b(failure);
        if (!calls.measure(measure_a, a) || !calls.measure(measure_b, b) ||
            measure_a.exact_bits() != measure_b.exact_bits())
            return false;
        bits = measure_a.exact_bits();
    }
    const std::size_t bytes = bits / 8 + 1;
    if (bytes <= on_stack + 1) {
        std::array<std::uint8_t, on_stack + 1> bytes_a;
        std::array<std::uint8_t, on_stack + 1> bytes_b;
        return same_bits_written(calls, a, b, std::span(bytes_a.data(), bytes), std::span(bytes_b.data(), bytes));
    }
    std::vector<std::uint8_t> heap(2 * bytes);
    return same_bits_written(calls, a, b, std::span(heap.data(), bytes), std::span(heap.data() + bytes, bytes));
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

/// The same keys, and for a map the same values on the wire.
template <scope Scope>
bool same_map(const field_entry& e, const void* a, const void* b)
{
    const map_access& map = *e.map;
    const std::size_t n = map.size(a);
    if (n != map.size(b))
        return false;
    const void* const* entries = n != 0 ? map.sorted_in(a, 2) : nullptr;
    const field_entry* mapped = mapped_entry(e);
    for (std::size_t i = 0; i < n; ++i) {
        const void* other = map.find(b, entries[i]);
        if (other == nullptr)
            return false;
        if (mapped != nullptr) {
            const std::uint32_t at = mapped_offset(e);
            const bytes* x = ptr(entries[i]) + at;
            const bytes* y = ptr(other) + at;
            if (!identical(*mapped, x, y) && !same_value<Scope>(*mapped, x, y))
                return false;
        }
    }
    return true;
}

/// Whether a number of this kind is compared by same_number.
constexpr bool is_number(kind k) noexcept
{
    return k == kind::boolean || k == kind::integer || k == kind::ranged || k == kind::enumeration ||
           k == kind::flags || k == kind::float32 || k == kind::float64 || k == kind::quantized;
}

/// A number's sameness, inline in a struct's loop (most fields are numbers).
BITREP_ALWAYS_INLINE bool same_number(const field_entry& e, const bytes* a, const bytes* b) noexcept
{
    switch (e.kind) {
    case kind::boolean: return *reinterpret_cast<const bool*>(a) == *reinterpret_cast<const bool*>(b);
    case kind::float32: return std::memcmp(a, b, sizeof(float)) == 0;
    case kind::float64: return std::memcmp(a, b, sizeof(double)) == 0;
    case kind::quantized: {
        std::uint64_t qa = 0;
        std::uint64_t qb = 0;
        const bool ea = quantum_of(e, a, qa);
        if (std::memcmp(a, b, sizeof(float)) == 0) // the same float: the same quantum
            return ea;
        const bool eb = quantum_of(e, b, qb);
        return ea && eb && qa == qb;
    }
    default: return load_integer(a, e.width, false) == load_integer(b, e.width, false); // integers, enums, flags
    }
}

/// A bitset's bits, or a bounded_vector<bool>'s count and bits (which a
/// writer refuses past its bound: never the same as anything).
bool same_bits(const field_entry& e, const void* a, const void* b)
{
    if (e.kind == kind::bitset) {
        for (std::size_t at = 0; at < e.fixed.count; at += 32) {
            const int count = static_cast<int>(std::min<std::uint64_t>(32, e.fixed.count - at));
            if (e.bitset->word(a, at, count) != e.bitset->word(b, at, count))
                return false;
        }
        return true;
    }
    const std::size_t n = e.bits->size(a);
    if (n != e.bits->size(b) || n > e.bounded.max)
        return false;
    for (std::size_t i = 0; i < n; ++i)
        if (e.bits->test(a, i) != e.bits->test(b, i))
            return false;
    return true;
}

/// A struct's fields, the numbers among them compared inline.
template <scope Scope>
bool same_fields(const type_table& t, const bytes* a, const bytes* b)
{
    const std::atomic<std::uint32_t>* offsets = field_offsets(t);
    for (std::uint32_t i = 0; i < t.count; ++i) {
        const std::uint32_t at = offsets[i].load(std::memory_order_relaxed);
        const field_entry& f = t.fields[i];
        const bool equal = f.flag == 0 && is_number(f.kind) ? same_number(f, a + at, b + at)
                                                             : same_value<Scope>(f, a + at, b + at);
        if (!equal)
            return false;
    }
    return true;
}

template <scope Scope>
bool same_value(const field_entry& e, const void* a, const void* b)
{
    if (!carried(e, Scope))
        return true;
    const bytes* pa = ptr(a);
    const bytes* pb = ptr(b);
    switch (e.kind) {
    case kind::boolean:
    case kind::integer:
    case kind::ranged:
    case kind::enumeration:
    case kind::flags:
    case kind::float32:
    case kind::float64:
    case kind::quantized: return same_number(e, pa, pb);
    case kind::quat: return same_quat(e, *static_cast<const quat_floats*>(a), *static_cast<const quat_floats*>(b));
    case kind::string: return *static_cast<const std::string*>(a) == *static_cast<const std::string*>(b);
    case kind::bitset:
    case kind::bit_vector: return same_bits(e, a, b);
    case kind::vector: {
        const std::size_t n = e.container->size(a);
        return n == e.container->size(b) &&
               same_elements<Scope>(*e.element, e.stride, static_cast<const bytes*>(e.container->data(ptr(a))),
                                    static_cast<const bytes*>(e.container->data(ptr(b))), n);
    }
    case kind::array: return same_elements<Scope>(*e.element, e.stride, pa, pb, static_cast<std::size_t>(e.fixed.count));
    case kind::optional: {
        const bool has = e.maybe->has_value(a);
        if (has != e.maybe->has_value(b))
            return false;
        return !has || same_value<Scope>(*e.element, e.maybe->value(ptr(a)), e.maybe->value(ptr(b)));
    }
    case kind::variant: {
        const std::size_t index = e.variant->index(a);
        if (index != e.variant->index(b) || index >= e.fixed.count)
            return false;
        return same_value<Scope>(e.element[index], e.variant->held[index](ptr(a)), e.variant->held[index](ptr(b)));
    }
    case kind::proxy: return same_value<Scope>(*e.element, wire_part(e, a, 0), wire_part(e, b, 1));
    case kind::structure: return same_fields<Scope>(*e.nested, pa, pb);
    case kind::codec: return same_encoding<Scope>(e, a, b);
    case kind::map: return same_map<Scope>(e, a, b);
    }
    return false;
}

// ---- assignment ----------------------------------------------------------

void assign(const field_entry& e, void* to, const void* from);

/// Elements [from, to) of a container taken from the baseline's: one copy
/// for elements that are bytes.
void assign_run(const field_entry& element, std::uint32_t stride, bytes* value, const bytes* base, std::size_t from,
                std::size_t to)
{
    if (from >= to)
        return;
    if (element.copy == nullptr && element.trivially_copyable) {
        std::memcpy(value + from * stride, base + from * stride, (to - from) * stride);
        return;
    }
    for (std::size_t j = from; j < to; ++j)
        assign(element, value + j * stride, base + j * stride);
}

/// A proxy's value taken from another's: its wire object, in place or made
/// from it and made into the value.
void assign_proxy(const field_entry& e, void* to, const void* from)
{
    const std::ptrdiff_t at = e.proxy->in_place != nullptr ? e.proxy->in_place() : -1;
    if (at >= 0) {
        assign(*e.element, ptr(to) + at, ptr(from) + at);
        return;
    }
    void* wire = e.proxy->wire_to_read(to);
    assign(*e.element, wire, e.proxy->wire_copy(from, 0));
    e.proxy->from_wire(to, wire);
}

/// to = from, part by part (a delta's reader takes the baseline's value where
/// nothing changed).
void assign(const field_entry& e, void* to, const void* from)
{
    if (e.copy != nullptr) {
        e.copy(to, from);
        return;
    }
    if (e.trivially_copyable) {
        copy_bytes(static_cast<bytes*>(to), static_cast<const bytes*>(from), e.object_size);
        return;
    }
    switch (e.kind) {
    case kind::string: *static_cast<std::string*>(to) = *static_cast<const std::string*>(from); return;
    case kind::vector: {
        const std::size_t n = e.container->size(from);
        e.container->resize(to, n);
        assign_run(*e.element, e.stride, static_cast<bytes*>(e.container->data(to)),
                   static_cast<const bytes*>(e.container->data(ptr(from))), 0, n);
        return;
    }
    case kind::bit_vector: {
        const std::size_t n = e.bits->size(from);
        e.bits->resize(to, n);
        for (std::size_t i = 0; i < n; ++i)
            e.bits->assign(to, i, e.bits->test(from, i));
        return;
    }
    case kind::array:
        assign_run(*e.element, e.stride, ptr(to), ptr(from), 0, static_cast<std::size_t>(e.fixed.count));
        return;
    case kind::optional:
        if (!e.maybe->has_value(from)) {
            e.maybe->reset(to);
            return;
        }
        if (!e.maybe->has_value(to))
            e.maybe->emplace(to);
        assign(*e.element, e.maybe->value(to), e.maybe->value(ptr(from)));
        return;
    case kind::variant: {
        const std::size_t index = e.variant->index(from);
        if (index >= e.fixed.count) [[unlikely]]
            return; // valueless: nothing to take (a baseline a receiver holds never is)
        assign(e.element[index], e.variant->hold[index](to), e.variant->held[index](ptr(from)));
        return;
    }
    case kind::proxy: assign_proxy(e, to, from); return;
    case kind::structure:
        for (std::uint32_t i = 0; i < e.nested->count; ++i) {
            const std::uint32_t at = field_offset(*e.nested, i);
            assign(e.nested->fields[i], ptr(to) + at, ptr(from) + at);
        }
        return;
    default: std::memcpy(to, from, e.object_size); return;
    }
}

// ---- the walk --------------------------------------------------------------

template <class Stream>
struct walk {
    static constexpr bool reading = Stream::is_reading;
    static constexpr bool coded = Stream::is_coded;
    static constexpr bool recording = requires { requires Stream::is_recording; };
    static constexpr scope field_scope = Stream::field_scope;

    Stream& stream;
    /// What the writer was told of its containers' changed elements.
    element_hints hints{};
    /// While a class with a prediction of its own (predict.hpp) is walked:
    /// its predicted value, of object_size bytes, for the baseline at
    /// `predicted_for`.
    const bytes* predicted = nullptr;
    const bytes* predicted_for = nullptr;
    std::size_t predicted_size = 0;

    /// The predicted value of the part of the predicted class whose
    /// baseline is at `base`, else nullptr (no prediction, or a part that
    /// does not lie inside the class's own bytes).
    const bytes* prediction_of(const bytes* base) const noexcept
    {
        if (predicted == nullptr) [[likely]]
            return nullptr;
        const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(base) - reinterpret_cast<std::uintptr_t>(predicted_for);
        return at < predicted_size ? predicted + at : nullptr;
    }

    /// Walks `part` with no prediction of the class's own: an optional's
    /// or a variant's value lies in the class's bytes, but the prediction
    /// may hold none, or another alternative.
    template <class Part>
    bool unpredicted(Part&& part)
    {
        const bytes* const saved = predicted;
        predicted = nullptr;
        const bool ok = part();
        predicted = saved;
        return ok;
    }

    /// The hint for the container of `element`s at `base` and `value`. The
    /// element's entry is part of the key: a container nested at the start
    /// of the first element has the same addresses.
    const element_hint* find_hint(const field_entry& element, const void* base, const void* value) const noexcept
    {
        for (const element_hint& hint : hints)
            if (hint.base == base && hint.value == value && hint.element == &element)
                return &hint;
        return nullptr;
    }

    /// same_value, answered from the hints for the containers they name.
    bool same(const field_entry& e, const bytes* a, const bytes* b)
    {
        if (hints.empty()) [[likely]]
            return same_value<field_scope>(e, a, b);
        return hinted_same(e, a, b);
    }
    bool hinted_same(const field_entry& e, const bytes* a, const bytes* b)
    {
        if (!carried(e, field_scope))
            return true;
        switch (e.kind) {
        case kind::structure:
            for (std::uint32_t i = 0; i < e.nested->count; ++i) {
                const std::uint32_t at = field_offset(*e.nested, i);
                if (!hinted_same(e.nested->fields[i], a + at, b + at))
                    return false;
            }
            return true;
        case kind::proxy:
            return hinted_same(*e.element, static_cast<const bytes*>(wire_part(e, a, 0)),
                               static_cast<const bytes*>(wire_part(e, b, 1)));
        case kind::vector: {
            const std::size_t n = e.container->size(a);
            const auto* hint = n != 0 && n == e.container->size(b)
                                   ? find_hint(*e.element, e.container->data(ptr(a)), e.container->data(ptr(b)))
                                   : nullptr;
            return hint != nullptr ? hint->count == 0 : same_value<field_scope>(e, a, b);
        }
        case kind::array: {
            const auto* hint = e.fixed.count != 0 ? find_hint(*e.element, a, b) : nullptr;
            return hint != nullptr ? hint->count == 0 : same_value<field_scope>(e, a, b);
        }
        default: return same_value<field_scope>(e, a, b);
        }
    }

    bool fail_named_field(const type_table& t, std::uint32_t i)
    {
        bitrep::detail::enter_field(stream.failure(), t.ids[i]);
        return false;
    }

    bool fail_index(std::size_t i)
    {
        stream.enter_index(i);
        return false;
    }

    // A value in full: its ordinary encoding.
    template <class Int>
    bool ranged_whole(const field_entry& e, bytes* p)
    {
        Int value{};
        if constexpr (!reading)
            std::memcpy(&value, p, sizeof value);
        if (!bitrep::detail::serialize_ranged_value(stream, value, e.ranged.min, e.ranged.min + e.ranged.span,
                                                    bits_required_for_span(e.ranged.span)))
            return false;
        if constexpr (reading)
            std::memcpy(p, &value, sizeof value);
        return true;
    }

    bool integer_whole(const field_entry& e, bytes* p)
    {
        switch (e.width) {
        case 1: return run_integer<Stream, std::uint8_t>(stream, p);
        case 2: return run_integer<Stream, std::uint16_t>(stream, p);
        case 4: return run_integer<Stream, std::uint32_t>(stream, p);
        default: return run_integer<Stream, std::uint64_t>(stream, p);
        }
    }

    bool ranged_by_width(const field_entry& e, bytes* p)
    {
        switch (e.width) {
        case 1: return e.is_signed ? ranged_whole<std::int8_t>(e, p) : ranged_whole<std::uint8_t>(e, p);
        case 2: return e.is_signed ? ranged_whole<std::int16_t>(e, p) : ranged_whole<std::uint16_t>(e, p);
        case 4: return e.is_signed ? ranged_whole<std::int32_t>(e, p) : ranged_whole<std::uint32_t>(e, p);
        default: return ranged_whole<std::uint64_t>(e, p);
        }
    }

    bool elements_whole(const field_entry& element, std::uint32_t stride, bytes* data, std::size_t from,
                        std::size_t to)
    {
        for (std::size_t i = from; i < to; ++i)
            if (!whole(element, data + i * stride)) [[unlikely]]
                return fail_index(i);
        return true;
    }

    bool vector_whole(const field_entry& e, bytes* p)
    {
        std::uint64_t size = e.container->size(p);
        if (!bitrep::detail::serialize_count(stream, size, e.bounded.max))
            return false;
        if constexpr (reading) {
            if (!bitrep::detail::count_fits_input(stream, size, e.element->min_bits))
                return false;
            e.container->resize(p, static_cast<std::size_t>(size));
        }
        return elements_whole(*e.element, e.stride, static_cast<bytes*>(e.container->data(p)), 0,
                              static_cast<std::size_t>(size));
    }

    /// An optional's presence bit; a reader resets the optional or makes
    /// sure it holds a value to read into.
    bool presence(const field_entry& e, bytes* p, bool& present)
    {
        present = e.maybe->has_value(p);
        if (!stream.serialize_bool(present))
            return false;
        if constexpr (reading) {
            if (!present)
                e.maybe->reset(p);
            else if (!e.maybe->has_value(p))
                e.maybe->emplace(p);
        }
        return true;
    }

    bool optional_whole(const field_entry& e, bytes* p)
    {
        bool present = false;
        if (!presence(e, p, present))
            return false;
        return !present || whole(*e.element, static_cast<bytes*>(e.maybe->value(p)));
    }

    bool alternative_whole(const field_entry& e, bytes* p, std::size_t index)
    {
        if (whole(e.element[index], alternative_object<Stream>(e, p, index))) [[likely]]
            return true;
        stream.failure().enter_alternative(e.variant->names[index]);
        return false;
    }

    bool structure_whole(const field_entry& e, bytes* p)
    {
        const type_table& t = *e.nested;
        for (std::uint32_t i = 0; i < t.count; ++i) {
            const field_entry& f = t.fields[i];
            if (!carried(f, field_scope))
                continue;
            if (!whole(f, p + field_offset(t, i))) [[unlikely]]
                return fail_named_field(t, i);
        }
        return true;
    }

    bool proxy_whole(const field_entry& e, bytes* p)
    {
        const std::ptrdiff_t at = e.proxy->in_place != nullptr ? e.proxy->in_place() : -1;
        if (at >= 0)
            return whole(*e.element, p + at);
        bytes* wire = proxy_wire<Stream>(e, p);
        if (!whole(*e.element, wire))
            return false;
        leave_proxy<Stream>(e, p, wire);
        return true;
    }

    bool whole(const field_entry& e, bytes* p)
    {
        switch (e.kind) {
        case kind::boolean: {
            bool value = reading ? false : *reinterpret_cast<const bool*>(p);
            if (!stream.serialize_bool(value))
                return false;
            if constexpr (reading)
                *reinterpret_cast<bool*>(p) = value;
            return true;
        }
        case kind::integer: return integer_whole(e, p);
        case kind::ranged: return ranged_by_width(e, p);
        case kind::enumeration: return run_enumeration(stream, e, p);
        case kind::flags: return run_flags(stream, e, p);
        case kind::bitset: return run_bitset(stream, e, p);
        case kind::float32: return stream.serialize_float(*reinterpret_cast<float*>(p));
        case kind::float64: return stream.serialize_double(*reinterpret_cast<double*>(p));
        case kind::quantized: return run_quantized(stream, e, p);
        case kind::quat:
            return bitrep::detail::serialize_smallest_three(stream, *reinterpret_cast<quat_floats*>(p),
                                                            e.quat.component, e.quat.tie_margin);
        case kind::string:
            return stream.serialize_string(*reinterpret_cast<std::string*>(p), static_cast<std::size_t>(e.bounded.max) + 1);
        case kind::bit_vector: return run_bit_vector(stream, e, p);
        case kind::vector: return vector_whole(e, p);
        case kind::array: return elements_whole(*e.element, e.stride, p, 0, static_cast<std::size_t>(e.fixed.count));
        case kind::optional: return optional_whole(e, p);
        case kind::variant: {
            std::size_t index = 0;
            if (!run_variant_index(stream, e, p, index))
                return false;
            return alternative_whole(e, p, index);
        }
        case kind::proxy: return proxy_whole(e, p);
        case kind::structure: return structure_whole(e, p);
        case kind::codec: return codec_whole(e, p);
        case kind::map: return map_whole(e, p);
        }
        return false;
    }

    /// A map's or set's count, then its entries by ascending key.
    bool map_whole(const field_entry& e, bytes* p)
    {
        const map_access& map = *e.map;
        std::uint64_t size = map.size(p);
        if (!bitrep::detail::serialize_keyed_count(stream, size, e.bounded.max, e.element->min_bits, map.has_values))
            return false;
        if constexpr (reading) {
            map.clear(p);
            return read_entries(e, p, static_cast<std::size_t>(size));
        } else {
            const void* const* entries = size != 0 ? map.sorted_in(p, 2) : nullptr;
            for (std::size_t i = 0; i < size; ++i)
                if (!whole(*e.element, ptr(entries[i]))) [[unlikely]]
                    return fail_index(i);
            return true;
        }
    }

    /// `count` entries read into the map, each refused when its key is there.
    bool read_entries(const field_entry& e, bytes* p, std::size_t count)
    {
        const map_access& map = *e.map;
        for (std::size_t i = 0; i < count; ++i) {
            const std::size_t start = stream.position();
            if (!whole(*e.element, static_cast<bytes*>(map.fresh()))) [[unlikely]]
                return fail_index(i);
            if (!map.insert(p)) [[unlikely]] {
                bitrep::detail::refuse_duplicate_key(stream, start, map.has_values);
                return fail_index(i);
            }
        }
        return true;
    }

    bool codec_whole(const field_entry& e, bytes* p)
    {
        const codec_calls<field_scope>& calls = calls_of<field_scope>(*e.codec);
        if constexpr (recording)
            return stream.fail(error::hook_failed, stream.position(), "a codec of its own is not recorded");
        else if constexpr (coded && reading)
            return calls.coded_read(stream, p);
        else if constexpr (coded)
            return calls.coded_write(stream, p);
        else if constexpr (reading)
            return calls.read(stream, p);
        else if constexpr (Stream::is_writing)
            return calls.write(stream, p);
        else
            return calls.measure(stream, p);
    }

    // A changed bit, then what changed.
    bool delta(const field_entry& e, const bytes* older, const bytes* base, bytes* value)
    {
        if (!carried(e, field_scope)) {
            if constexpr (reading)
                assign(e, value, base);
            return true;
        }
        bool changed = false;
        if constexpr (!reading)
            changed = !same(e, base, value);
        bool changed_before = false;
        if constexpr (coded)
            changed_before = older != base && !identical(e, older, base) && !same_value<field_scope>(e, older, base);
        if (!stream.serialize_changed(changed, changed_before))
            return false;
        if (!changed) {
            if constexpr (reading)
                assign(e, value, base);
            return true;
        }
        return changed_part(e, older, base, value);
    }

    /// A number's index in [0, span] (a quantized value's quantum, a
    /// ranged's offset from min, an integer's from its lowest): false for a
    /// quantized value a writer refuses.
    static bool index_of(const field_entry& e, const bytes* p, std::uint64_t& index) noexcept
    {
        if (e.kind == kind::quantized)
            return quantum_of(e, p, index);
        index = load_integer(p, e.width, e.is_signed) - lowest(e);
        return true;
    }
    static std::uint64_t lowest(const field_entry& e) noexcept
    {
        if (e.kind == kind::ranged)
            return e.ranged.min;
        return e.is_signed ? ~std::uint64_t{0} << (e.width * 8u - 1) : 0;
    }
    static std::uint64_t index_span(const field_entry& e) noexcept
    {
        if (e.kind == kind::quantized)
            return e.quantized.quantizer.max_integer;
        if (e.kind == kind::ranged)
            return e.ranged.span;
        const unsigned bits = e.width * 8u;
        return bits == 64 ? std::numeric_limits<std::uint64_t>::max() : (std::uint64_t{1} << bits) - 1;
    }
    static void set_index(const field_entry& e, bytes* p, std::uint64_t index) noexcept
    {
        if (e.kind == kind::quantized)
            *reinterpret_cast<float*>(p) = e.quantized.quantizer.dequantize(static_cast<std::uint32_t>(index));
        else
            store_integer(p, e.width, lowest(e) + index);
    }

    /// A changed number on a coded stream: its residual against the
    /// baseline's trend.
    bool residual(const field_entry& e, const bytes* older, const bytes* base, bytes* value)
    {
        std::uint64_t i = 0;
        std::uint64_t b = 0;
        std::uint64_t o = 0;
        index_of(e, base, b);
        if constexpr (!reading) {
            if (!index_of(e, value, i)) [[unlikely]] // only a quantized value it cannot send
                return bitrep::detail::refuse_quantized(stream, *reinterpret_cast<const float*>(value));
        }
        const std::uint64_t span = index_span(e);
        // The class's own prediction when it has one in range that moves
        // (a changed number is never its baseline), else the library's.
        std::uint64_t p = 0;
        const bytes* own = prediction_of(base);
        const bool predicted_here = own != nullptr && index_of(e, own, p) && p <= span && p != b;
        if (!predicted_here)
            index_of(e, older, o);
        if (!(predicted_here ? stream.serialize_index_predicted(i, b, p, span)
                             : stream.serialize_index_delta(i, b, o, span)))
            return false;
        if constexpr (reading)
            set_index(e, value, i);
        return true;
    }

    /// delta_small on the bit-packed streams: a bit saying whether the value
    /// moved at most `delta_step` from the baseline's, then the step (steps
    /// -max..-1 and 1..max as codes 0..2 max - 1), else the value.
    bool small_step(const field_entry& e, const bytes* base, bytes* value)
    {
        const std::uint64_t most = e.delta_limit;
        const std::uint64_t span = index_span(e);
        std::uint64_t from = 0;
        index_of(e, base, from); // a baseline the receiver holds is in range
        bool small = false;
        std::uint64_t code = 0;
        if constexpr (!reading) {
            if (std::uint64_t to = 0; index_of(e, value, to) && to <= span) {
                if (to > from && to - from <= most) {
                    small = true;
                    code = most - 1 + (to - from);
                } else if (to < from && from - to <= most) {
                    small = true;
                    code = most - (from - to);
                }
            }
        }
        if (!stream.serialize_bool(small))
            return false;
        if (!small)
            return whole(e, value);
        const std::size_t start = stream.position();
        if (!stream.serialize_ranged_offset(code, 2 * most - 1))
            return false;
        if constexpr (reading) {
            const bool up = code >= most;
            const std::uint64_t step = up ? code - (most - 1) : most - code;
            if (up ? step > span - from : step > from) [[unlikely]]
                return stream.fail(error::out_of_range, start, "small change steps outside the range");
            set_index(e, value, up ? from + step : from - step);
        }
        return true;
    }

    bool changed_part(const field_entry& e, const bytes* older, const bytes* base, bytes* value)
    {
        switch (e.kind) {
        case kind::integer:
        case kind::ranged:
        case kind::quantized:
            if constexpr (coded)
                return residual(e, older, base, value);
            else if (e.rule == field_entry::delta_rule::small_step)
                return small_step(e, base, value);
            else
                return whole(e, value);
        case kind::boolean:
            if constexpr (coded) {
                if constexpr (reading)
                    *reinterpret_cast<bool*>(value) = !*reinterpret_cast<const bool*>(base);
                return true;
            } else {
                return whole(e, value);
            }
        case kind::quat:
            if constexpr (coded)
                return quat_changed(e, older, base, value);
            else
                return whole(e, value);
        case kind::structure:
            if (e.rule == field_entry::delta_rule::smallest_three_code) {
                if constexpr (coded)
                    return code_changed(e, older, base, value);
                else
                    return whole(e, value);
            }
            return structure_changed(e, older, base, value);
        case kind::optional:
            return unpredicted([&] { return optional_changed(e, older, base, value); });
        case kind::variant:
            return unpredicted([&] { return variant_changed(e, older, base, value); });
        case kind::array:
            return elements(*e.element, e.stride, static_cast<std::size_t>(e.fixed.count), older, base, value,
                            static_cast<std::size_t>(e.fixed.count), 1, static_cast<std::size_t>(e.fixed.count));
        case kind::vector: return vector_changed(e, older, base, value);
        case kind::proxy: return proxy_changed(e, older, base, value);
        case kind::map: return map_changed(e, older, base, value);
        default: return whole(e, value);
        }
    }

    bool structure_changed(const field_entry& e, const bytes* older, const bytes* base, bytes* value)
    {
        if constexpr (coded) {
            if (e.nested->predict != nullptr) [[unlikely]]
                return predicted_structure(e, older, base, value);
        }
        return fields_changed(*e.nested, older, base, value);
    }

    /// structure_changed of a class with a prediction of its own: its
    /// fields walked against the value its predict returns.
    bool predicted_structure(const field_entry& e, const bytes* older, const bytes* base, bytes* value)
    {
        struct call {
            walk* w;
            const field_entry* e;
            const bytes* older;
            const bytes* base;
            bytes* value;
        };
        call c{this, &e, older, base, value};
        return e.nested->predict(older, base, stream.ticks(), &c, [](void* context, const void* own) {
            const call& c = *static_cast<const call*>(context);
            walk& w = *c.w;
            const bytes* const saved[2] = {w.predicted, w.predicted_for};
            const std::size_t saved_size = w.predicted_size;
            w.predicted = static_cast<const bytes*>(own);
            w.predicted_for = c.base;
            w.predicted_size = c.e->object_size;
            const bool ok = w.fields_changed(*c.e->nested, c.older, c.base, c.value);
            w.predicted = saved[0];
            w.predicted_for = saved[1];
            w.predicted_size = saved_size;
            return ok;
        });
    }

    bool fields_changed(const type_table& t, const bytes* older, const bytes* base, bytes* value)
    {
        stream.begin_entity();
        for (std::uint32_t i = 0; i < t.count; ++i) {
            const std::uint32_t at = field_offset(t, i);
            [[maybe_unused]] const auto slot = stream.enter_slot(t.slot_offsets[i]);
            if (!delta(t.fields[i], older + at, base + at, value + at)) [[unlikely]]
                return fail_named_field(t, i);
        }
        return true;
    }

    bool optional_changed(const field_entry& e, const bytes* older, const bytes* base, bytes* value)
    {
        bool present = false;
        if (!presence(e, value, present))
            return false;
        if (!present)
            return true;
        [[maybe_unused]] const auto slot = stream.enter_slot(1);
        bytes* now = static_cast<bytes*>(e.maybe->value(value));
        if (!e.maybe->has_value(base))
            return whole(*e.element, now);
        const bytes* was = static_cast<const bytes*>(e.maybe->value(ptr(base)));
        const bytes* was_older = e.maybe->has_value(older) ? static_cast<const bytes*>(e.maybe->value(ptr(older))) : was;
        return changed_part(*e.element, was_older, was, now);
    }

    /// Alternative k's first model slot, past the variant's own.
    static std::size_t alternative_slot(const field_entry& e, std::size_t k) noexcept
    {
        std::size_t slot = 1;
        for (std::size_t j = 0; j < k; ++j)
            slot += e.element[j].slots;
        return slot;
    }

    bool variant_changed(const field_entry& e, const bytes* older, const bytes* base, bytes* value)
    {
        const std::size_t start = stream.position();
        const std::size_t from = e.variant->index(base);
        if constexpr (!reading) {
            if (e.variant->index(value) >= e.fixed.count || from >= e.fixed.count) [[unlikely]]
                return stream.fail(error::value_out_of_range, start, "variant valueless by exception");
        }
        bool switched = e.variant->index(value) != from;
        if (!stream.serialize_bool(switched))
            return false;
        if (!switched) {
            [[maybe_unused]] const auto slot = stream.enter_slot(alternative_slot(e, from));
            bytes* now = alternative_object<Stream>(e, value, from);
            const bytes* was = static_cast<const bytes*>(e.variant->held[from](ptr(base)));
            const bytes* was_older =
                e.variant->index(older) == from ? static_cast<const bytes*>(e.variant->held[from](ptr(older))) : was;
            if (changed_part(e.element[from], was_older, was, now)) [[likely]]
                return true;
            stream.failure().enter_alternative(e.variant->names[from]);
            return false;
        }
        if (e.fixed.count < 2)
            return stream.fail(error::bad_enum, start, "variant switched, but it has one alternative");
        std::uint64_t other = 0;
        if constexpr (!reading) {
            const std::size_t index = e.variant->index(value);
            other = index < from ? index : index - 1;
        }
        if (!bitrep::detail::serialize_alternative_index(stream, other, e.fixed.count - 1, stream.position()))
            return false;
        const std::size_t to = other < from ? static_cast<std::size_t>(other) : static_cast<std::size_t>(other) + 1;
        [[maybe_unused]] const auto slot = stream.enter_slot(alternative_slot(e, to));
        return alternative_whole(e, value, to);
    }

    bool vector_changed(const field_entry& e, const bytes* older, const bytes* base, bytes* value)
    {
        const std::uint64_t max = e.bounded.max;
        std::uint64_t size = e.container->size(value);
        const std::size_t start = stream.position();
        if constexpr (!reading) {
            if (size > max) [[unlikely]]
                return stream.fail(error::value_out_of_range, start, "vector longer than its bound");
        }
        if (!stream.serialize_ranged_offset(size, max))
            return false;
        const std::size_t common = std::min(e.container->size(base), static_cast<std::size_t>(size));
        if constexpr (reading) {
            const std::size_t each = e.element->min_bits;
            if (each != 0 && size - common > stream.bits_remaining() / each) [[unlikely]]
                return stream.fail(error::truncated, stream.position(), "vector elements past the end of the input");
            e.container->resize(value, static_cast<std::size_t>(size));
        }
        bytes* now = static_cast<bytes*>(e.container->data(value));
        if (!elements(*e.element, e.stride, e.container->size(older),
                      static_cast<const bytes*>(e.container->data(ptr(older))),
                      static_cast<const bytes*>(e.container->data(ptr(base))), now, common, 0,
                      static_cast<std::size_t>(max)))
            return false;
        [[maybe_unused]] const auto slot = stream.enter_slot(1);
        return elements_whole(*e.element, e.stride, now, common, static_cast<std::size_t>(size));
    }

    bool proxy_changed(const field_entry& e, const bytes* older, const bytes* base, bytes* value)
    {
        const std::ptrdiff_t at = e.proxy->in_place != nullptr ? e.proxy->in_place() : -1;
        if (at >= 0)
            return changed_part(*e.element, older + at, base + at, value + at);
        bytes* wire = reading ? static_cast<bytes*>(e.proxy->wire_to_read(value)) : wire_part(e, value, 2);
        if (!changed_part(*e.element, wire_part(e, older, 0), wire_part(e, base, 1), wire))
            return false;
        if constexpr (reading)
            e.proxy->from_wire(value, wire);
        return true;
    }

    /// A map's or set's delta (docs/formats/wire-format.md, section 6.3): the
    /// baseline's entries removed, by their index in its key order; for a
    /// map, those whose value changed, with the value's delta; then the new
    /// entries in full. Each index is bounded by the ones still to come.
    bool map_changed(const field_entry& e, const bytes* older, const bytes* base, bytes* value)
    {
        if constexpr (reading)
            return map_read(e, older, base, value);
        else
            return map_write(e, older, base, value);
    }

    enum class step : std::uint8_t { removed, kept, inserted };

    /// Walks the baseline's and the value's entries in key order together.
    template <class F>
    static void merge(const map_access& map, const void* const* b, std::size_t nb, const void* const* v,
                      std::size_t nv, F&& f)
    {
        std::size_t i = 0;
        std::size_t j = 0;
        while (i < nb || j < nv) {
            if (j == nv || (i < nb && map.key_below(b[i], v[j])))
                f(step::removed, i++, j);
            else if (i == nb || map.key_below(v[j], b[i]))
                f(step::inserted, i, j++);
            else
                f(step::kept, i++, j++);
        }
    }

    /// The next of ascending indices below `size`, at or above `lowest`, with
    /// `left` more after it: its offset from lowest, bounded so that the
    /// rest still fit.
    bool map_index(std::uint64_t& index, std::uint64_t& lowest, std::uint64_t left, std::uint64_t size)
    {
        std::uint64_t offset = index - lowest;
        if (!stream.serialize_ranged_offset(offset, size - 1 - left - lowest))
            return false;
        index = lowest + offset;
        lowest = index + 1;
        return true;
    }

    /// The older state's entry with base_entry's key, else base_entry.
    static const bytes* older_entry(const map_access& map, const bytes* older, const void* base_entry)
    {
        const void* found = map.find(older, base_entry);
        return ptr(found != nullptr ? found : base_entry);
    }

    bool value_changed(const field_entry& e, const void* b, const void* v)
    {
        const field_entry* mapped = mapped_entry(e);
        if (mapped == nullptr)
            return false;
        const std::uint32_t at = mapped_offset(e);
        return !identical(*mapped, ptr(b) + at, ptr(v) + at) &&
               !same_value<field_scope>(*mapped, ptr(b) + at, ptr(v) + at);
    }

    bool map_write(const field_entry& e, const bytes* older, const bytes* base, bytes* value)
    {
        const map_access& map = *e.map;
        const std::uint64_t most = e.bounded.max;
        const std::size_t nb = map.size(base);
        const std::size_t nv = map.size(value);
        if (nv > most) [[unlikely]]
            return stream.fail(error::value_out_of_range, stream.position(),
                               map.has_values ? "map larger than its bound" : "set larger than its bound");
        const void* const* b = nb != 0 ? map.sorted_in(base, 0) : nullptr;
        const void* const* v = nv != 0 ? map.sorted_in(value, 1) : nullptr;
        std::uint64_t removed = 0;
        std::uint64_t changed = 0;
        std::uint64_t inserted = 0;
        merge(map, b, nb, v, nv, [&](step s, std::size_t i, std::size_t j) {
            removed += s == step::removed ? 1 : 0;
            inserted += s == step::inserted ? 1 : 0;
            changed += s == step::kept && value_changed(e, b[i], v[j]) ? 1 : 0;
        });
        bool ok = stream.serialize_ranged_offset(removed, nb);
        std::uint64_t lowest = 0;
        std::uint64_t left = removed;
        merge(map, b, nb, v, nv, [&](step s, std::size_t i, std::size_t) {
            if (ok && s == step::removed) {
                std::uint64_t index = i;
                ok = map_index(index, lowest, --left, nb);
            }
        });
        if (const field_entry* mapped = mapped_entry(e); mapped != nullptr) {
            const std::uint32_t at = mapped_offset(e);
            const std::uint32_t key_slots = e.element->nested->fields[0].slots;
            ok = ok && stream.serialize_ranged_offset(changed, nb - removed);
            lowest = 0;
            left = changed;
            std::size_t n = 0;
            merge(map, b, nb, v, nv, [&](step s, std::size_t i, std::size_t j) {
                if (!ok || s != step::kept || !value_changed(e, b[i], v[j]))
                    return;
                std::uint64_t index = i;
                ok = map_index(index, lowest, --left, nb);
                [[maybe_unused]] const auto slot = stream.enter_slot(1 + key_slots);
                stream.begin_entity();
                ok = ok && changed_part(*mapped, older_entry(map, older, b[i]) + at, ptr(b[i]) + at, ptr(v[j]) + at);
                if (!ok)
                    stream.enter_index(n);
                ++n;
            });
        }
        ok = ok && stream.serialize_ranged_offset(inserted, most - (nb - removed));
        std::size_t n = 0;
        merge(map, b, nb, v, nv, [&](step s, std::size_t, std::size_t j) {
            if (!ok || s != step::inserted)
                return;
            [[maybe_unused]] const auto slot = stream.enter_slot(1);
            ok = whole(*e.element, ptr(v[j]));
            if (!ok)
                stream.enter_index(n);
            ++n;
        });
        return ok;
    }

    bool map_read(const field_entry& e, const bytes* older, const bytes* base, bytes* value)
    {
        const map_access& map = *e.map;
        const std::size_t nb = map.size(base);
        const void* const* b = nb != 0 ? map.sorted_in(base, 0) : nullptr;
        e.copy(value, base);
        std::uint64_t removed = 0;
        if (!stream.serialize_ranged_offset(removed, nb))
            return false;
        std::uint64_t lowest = 0;
        for (std::uint64_t left = removed; left-- > 0;) {
            std::uint64_t index = 0;
            if (!map_index(index, lowest, left, nb))
                return false;
            map.erase(value, b[index]); // NOLINT(clang-analyzer-core.NullDereference): index < nb, and b is null only when nb is 0
        }
        if (const field_entry* mapped = mapped_entry(e); mapped != nullptr) {
            const std::uint32_t at = mapped_offset(e);
            const std::uint32_t key_slots = e.element->nested->fields[0].slots;
            std::uint64_t changed = 0;
            if (!stream.serialize_ranged_offset(changed, nb - removed))
                return false;
            lowest = 0;
            for (std::uint64_t n = 0, left = changed; left-- > 0; ++n) {
                const std::size_t start = stream.position();
                std::uint64_t index = 0;
                if (!map_index(index, lowest, left, nb))
                    return false;
                const void* now = map.find(value, b[index]); // NOLINT(clang-analyzer-core.NullDereference): index < nb
                if (now == nullptr) [[unlikely]]
                    return stream.fail(error::out_of_range, start, "a changed entry the delta removed");
                [[maybe_unused]] const auto slot = stream.enter_slot(1 + key_slots);
                stream.begin_entity();
                if (!changed_part(*mapped, older_entry(map, older, b[index]) + at, ptr(b[index]) + at, ptr(now) + at))
                    [[unlikely]]
                    return fail_index(static_cast<std::size_t>(n));
            }
        }
        std::uint64_t inserted = 0;
        if (!stream.serialize_ranged_offset(inserted, e.bounded.max - (nb - removed)))
            return false;
        if (!bitrep::detail::count_fits_input(stream, inserted, e.element->min_bits))
            return false;
        [[maybe_unused]] const auto slot = stream.enter_slot(1);
        return read_entries(e, value, static_cast<std::size_t>(inserted));
    }

    // A container's elements [0, common).
    bool elements(const field_entry& element, std::uint32_t stride, std::size_t older_count, const bytes* older,
                  const bytes* base, bytes* value, std::size_t common, std::size_t min_count, std::size_t capacity)
    {
        if (common == 0)
            return true;
        if constexpr (coded)
            return coded_elements(element, stride, older_count, older, base, value, common);
        else
            return packed_elements(element, stride, base, value, common, min_count, capacity);
    }

    bool coded_elements(const field_entry& element, std::uint32_t stride, std::size_t older_count,
                        const bytes* older, const bytes* base, bytes* value, std::size_t common)
    {
        const std::size_t older_common = std::min(common, older_count);
        if constexpr (Stream::is_writing && coded && !recording) {
            if (!hints.empty()) [[unlikely]] {
                const element_hint* hint = find_hint(element, base, value);
                if (hint != nullptr && hint->changed_before != nullptr)
                    return hinted_coded_elements(*hint, element, stride, older_common, older, base, value, common);
            }
        }
        bool previous = false;
        std::size_t unchanged_from = 0; // a reader's run of elements to take from the baseline
        for (std::size_t i = 0; i < common; ++i) {
            const bytes* b = base + i * stride;
            bytes* v = value + i * stride;
            const bytes* before = i < older_common ? older + i * stride : b;
            bool changed = false;
            if constexpr (!reading)
                changed = !identical(element, b, v) && !same_value<field_scope>(element, b, v);
            const bool changed_before =
                i >= older_common || (!identical(element, before, b) && !same_value<field_scope>(element, before, b));
            if (!stream.serialize_element_changed(changed, changed_before, previous))
                return false;
            previous = changed;
            if (!changed)
                continue;
            if constexpr (reading) {
                assign_run(element, stride, value, base, unchanged_from, i);
                unchanged_from = i + 1;
            }
            [[maybe_unused]] const auto slot = stream.enter_slot(1);
            stream.begin_entity();
            if (!changed_part(element, before, b, v)) [[unlikely]]
                return fail_index(i);
        }
        if constexpr (reading)
            assign_run(element, stride, value, base, unchanged_from, common);
        return true;
    }

    /// coded_elements as a writer told by `hint` which elements changed,
    /// which changed before, and per changed one its recorded decisions:
    /// the same bytes, without comparing elements or walking them again.
    bool hinted_coded_elements(const element_hint& hint, const field_entry& element, std::uint32_t stride,
                               std::size_t older_common, const bytes* older, const bytes* base, bytes* value,
                               std::size_t common)
    {
        std::size_t next = 0; // the next of the hint's changed elements
        bool previous = false;
        for (std::size_t i = 0; i < common; ++i) {
            bool changed = next < hint.count && hint.changed[next] == i;
            const bool changed_before =
                i >= older_common || ((hint.changed_before[i / 64] >> (i % 64)) & 1u) != 0;
            if (!stream.serialize_element_changed(changed, changed_before, previous))
                return false;
            previous = changed;
            if (!changed)
                continue;
            const recorded_delta& record = hint.records[next++];
            [[maybe_unused]] const auto slot = stream.enter_slot(1);
            stream.begin_entity();
            if (record.ops != nullptr) {
                stream.replay(record);
                continue;
            }
            const bytes* b = base + i * stride;
            const bytes* before = i < older_common ? older + i * stride : b;
            if (!changed_part(element, before, b, value + i * stride)) [[unlikely]]
                return fail_index(i);
        }
        return true;
    }

    /// A writer's changed elements: found once, then handed out in order
    /// (delta.hpp's changed_elements).
    struct changed_list {
        static constexpr std::size_t kept_most = 4096;
        std::size_t count = 0;
        std::size_t index_bits = 0;
        std::size_t cursor = 0;
        bool keep = false;
        const element_hint* hint = nullptr;
        std::array<std::uint16_t, kept_most> kept;
    };

    static bool differs(const field_entry& element, const bytes* b, const bytes* v)
    {
        return !identical(element, b, v) && !same_value<field_scope>(element, b, v);
    }

    void find_changed(changed_list& list, const field_entry& element, std::uint32_t stride, const bytes* base,
                      const bytes* value, std::size_t common) const
    {
        std::size_t previous = bitrep::detail::no_listed_index;
        if (!hints.empty()) [[unlikely]] {
            const auto* found = find_hint(element, base, value);
            if (found != nullptr && found->changed != nullptr) {
                list.hint = found;
                for (std::size_t k = 0; k < found->count; ++k) {
                    list.index_bits += bitrep::detail::listed_index_bits(found->changed[k], previous);
                    previous = found->changed[k];
                }
                list.count = found->count;
                return;
            }
        }
        for (std::size_t i = 0; i < common; ++i) {
            if (!differs(element, base + i * stride, value + i * stride))
                continue;
            if (list.keep)
                list.kept[list.count] = static_cast<std::uint16_t>(i);
            ++list.count;
            list.index_bits += bitrep::detail::listed_index_bits(i, previous);
            previous = i;
        }
    }

    static std::size_t next_changed(changed_list& list, const field_entry& element, std::uint32_t stride,
                                    const bytes* base, const bytes* value, std::size_t from)
    {
        if (list.hint != nullptr) [[unlikely]]
            return list.hint->changed[list.cursor++];
        if (list.keep)
            return list.kept[list.cursor++];
        while (!differs(element, base + from * stride, value + from * stride))
            ++from;
        ++list.cursor;
        return from;
    }

    /// Element i's delta: the hint's bits when it has them, else encoded.
    bool write_changed(changed_list& list, const field_entry& element, const bytes* b, bytes* v, std::size_t i)
    {
        if constexpr (Stream::is_writing && !coded) {
            const auto* hint = list.hint;
            if (hint != nullptr && hint->words != nullptr && hint->words[list.cursor - 1] != nullptr) [[unlikely]] {
                const std::uint32_t* words = hint->words[list.cursor - 1];
                for (std::uint32_t left = hint->bits[list.cursor - 1]; left != 0; ++words) {
                    const int take = static_cast<int>(left < 32 ? left : 32);
                    std::uint32_t word = *words;
                    if (!stream.serialize_bits(word, take)) [[unlikely]]
                        return false;
                    left -= static_cast<std::uint32_t>(take);
                }
                return true;
            }
        }
        if (!changed_part(element, b, b, v)) [[unlikely]]
            return fail_index(i);
        return true;
    }

    bool packed_elements(const field_entry& element, std::uint32_t stride, const bytes* base, bytes* value,
                         std::size_t common, std::size_t min_count, std::size_t capacity)
    {
        changed_list list;
        list.keep = capacity <= changed_list::kept_most;
        bool index_list = false;
        if constexpr (!reading) {
            const std::size_t start = stream.position();
            find_changed(list, element, stride, base, value, common);
            if (list.count < min_count) [[unlikely]]
                return stream.fail(error::value_out_of_range, start, "delta: no element changed");
            index_list = bitrep::detail::changed_elements_form_of(common, min_count, list.index_bits).index_list;
        }
        if (!stream.serialize_bool(index_list))
            return false;
        if (index_list)
            return listed(list, element, stride, base, value, common, min_count);
        return masked(list, element, stride, base, value, common);
    }

    bool listed(changed_list& list, const field_entry& element, std::uint32_t stride, const bytes* base,
                bytes* value, std::size_t common, std::size_t min_count)
    {
        std::uint64_t count_offset = list.count - min_count;
        if (!stream.serialize_ranged_offset(count_offset, common - min_count))
            return false;
        const std::size_t count = static_cast<std::size_t>(count_offset) + min_count;
        std::int32_t previous = -1;
        for (std::size_t k = 0; k < count; ++k) {
            std::int32_t index = 0;
            if constexpr (!reading)
                index = static_cast<std::int32_t>(
                    next_changed(list, element, stride, base, value, static_cast<std::size_t>(previous) + 1));
            const std::size_t at = stream.position();
            if (!stream.serialize_int_relative(previous, index))
                return false;
            const auto i = static_cast<std::size_t>(index);
            if constexpr (reading) {
                if (i >= common) [[unlikely]]
                    return stream.fail(error::out_of_range, at, "changed element's index past the end");
                assign_run(element, stride, value, base, static_cast<std::size_t>(previous) + 1, i);
            }
            if (!write_changed(list, element, base + i * stride, value + i * stride, i))
                return false;
            previous = index;
        }
        if constexpr (reading)
            assign_run(element, stride, value, base, static_cast<std::size_t>(previous) + 1, common);
        return true;
    }

    bool masked(changed_list& list, const field_entry& element, std::uint32_t stride, const bytes* base,
                bytes* value, std::size_t common)
    {
        std::size_t next = list.count != 0 ? next_changed(list, element, stride, base, value, 0) : common;
        std::size_t unchanged_from = 0; // a reader's run of elements to take from the baseline
        for (std::size_t i = 0; i < common; ++i) {
            bool is_changed = i == next;
            if (!stream.serialize_bool(is_changed))
                return false;
            if (!is_changed)
                continue;
            if constexpr (reading) {
                assign_run(element, stride, value, base, unchanged_from, i);
                unchanged_from = i + 1;
            }
            if (!write_changed(list, element, base + i * stride, value + i * stride, i))
                return false;
            if constexpr (!reading)
                next = list.cursor < list.count ? next_changed(list, element, stride, base, value, i + 1) : common;
        }
        if constexpr (reading)
            assign_run(element, stride, value, base, unchanged_from, common);
        return true;
    }

    /// The code the writer sends for a rotation (a baseline's is the one it
    /// was sent).
    static bitrep::detail::smallest_three_code code_of(const field_entry& e, const quat_floats& v) noexcept
    {
        const auto s = bitrep::detail::stable_smallest_three(v.x, v.y, v.z, v.w, e.quat.component, e.quat.tie_margin);
        return bitrep::detail::quanta_of(s, e.quat.component);
    }

    /// A code's rotation as it would be sent with `axis` largest.
    static bitrep::detail::smallest_three_code in_frame(const field_entry& e,
                                                        const bitrep::detail::smallest_three_code& code,
                                                        std::uint32_t axis) noexcept
    {
        if (code.largest == axis)
            return code;
        const auto& q = e.quat.component;
        float c[4] = {};
        float sum = 0.0f;
        for (std::uint32_t k = 0; k < 3; ++k) {
            c[k + (k >= code.largest ? 1u : 0u)] = q.dequantize(code.quanta[k]);
            sum = bitrep::detail::add_square(sum, c[k + (k >= code.largest ? 1u : 0u)]);
        }
        c[code.largest] = sum <= 1.0f ? std::sqrt(1.0f - sum) : 0.0f;
        const bool flip = c[axis] < 0.0f;
        bitrep::detail::smallest_three_code out;
        out.largest = axis;
        for (std::uint32_t k = 0; k < 3; ++k) {
            const float component = c[k + (k >= axis ? 1u : 0u)];
            out.quanta[k] = q.stable_quantize(flip ? -component : component);
        }
        return out;
    }

    /// A quat_code's fields as a smallest-three code, and back.
    static bitrep::detail::smallest_three_code code_at(const field_entry& e, const bytes* p) noexcept
    {
        const type_table& t = *e.nested;
        const bytes* small = p + field_offset(t, 1);
        bitrep::detail::smallest_three_code code;
        code.largest = static_cast<std::uint32_t>(load_integer(p + field_offset(t, 0), 1, false));
        for (std::size_t k = 0; k < 3; ++k)
            code.quanta[k] = static_cast<std::uint32_t>(load_integer(small + k * t.fields[1].stride, 2, false));
        return code;
    }
    static void store_code(const field_entry& e, bytes* p, const bitrep::detail::smallest_three_code& code) noexcept
    {
        const type_table& t = *e.nested;
        bytes* small = p + field_offset(t, 1);
        store_integer(p + field_offset(t, 0), 1, code.largest);
        for (std::size_t k = 0; k < 3; ++k)
            store_integer(small + k * t.fields[1].stride, 2, code.quanta[k]);
    }

    /// A quat_code on a coded stream: as a quaternion's code, with the
    /// predictions moved to a new largest axis in integers (quat_code.hpp).
    bool code_changed(const field_entry& e, const bytes* older, const bytes* base, bytes* value)
    {
        const auto max = static_cast<std::int64_t>(e.delta_limit);
        bitrep::detail::smallest_three_code code;
        if constexpr (!reading) {
            code = code_at(e, value);
            if (code.largest > 3) [[unlikely]]
                return stream.fail(error::value_out_of_range, stream.position(), "largest axis outside 0-3");
        }
        const auto in_frame = [max](const bitrep::detail::smallest_three_code& c, std::uint32_t axis) {
            const std::array<std::int64_t, 3> moved = bitrep::detail::code_in_frame(
                c.largest, {c.quanta[0], c.quanta[1], c.quanta[2]}, max, axis);
            bitrep::detail::smallest_three_code out;
            out.largest = axis;
            for (std::size_t k = 0; k < 3; ++k)
                out.quanta[k] = static_cast<std::uint32_t>(std::clamp<std::int64_t>(moved[k], 0, max));
            return out;
        };
        bitrep::detail::smallest_three_code own;
        const bytes* p = prediction_of(base);
        if (p != nullptr) {
            own = code_at(e, p);
            if (own.largest > 3 || own == code_at(e, base) ||
                std::any_of(std::begin(own.quanta), std::end(own.quanta),
                            [max](std::uint32_t q) { return q > static_cast<std::uint64_t>(max); }))
                p = nullptr; // outside the code, or no motion: the library's own prediction
        }
        if (!coded_smallest_three(stream, code, code_at(e, base), code_at(e, older), p != nullptr ? &own : nullptr,
                                  static_cast<std::uint64_t>(max), in_frame))
            return false;
        if constexpr (reading)
            store_code(e, value, code);
        return true;
    }

    bool quat_changed(const field_entry& e, const bytes* older, const bytes* base, bytes* value)
    {
        const auto& q = e.quat.component;
        const std::size_t start = stream.position();
        auto& v = *reinterpret_cast<quat_floats*>(value);
        bitrep::detail::smallest_three_code code;
        if constexpr (!reading) {
            if (!unit_length(v)) [[unlikely]]
                return stream.fail(error::value_out_of_range, start,
                                   "quaternion is not unit length (|q|^2 off by more than 1%)");
            code = code_of(e, v);
        }
        const auto base_code = code_of(e, *reinterpret_cast<const quat_floats*>(base));
        const auto older_code = code_of(e, *reinterpret_cast<const quat_floats*>(older));
        bitrep::detail::smallest_three_code own;
        const bytes* p = prediction_of(base);
        if (p != nullptr) {
            const auto& r = *reinterpret_cast<const quat_floats*>(p);
            const bool rotation = unit_length_on_both_ends(r);
            if (rotation)
                own = code_of(e, r);
            if (!rotation || own == base_code)
                p = nullptr; // not a rotation, or no motion: the library's own prediction
        }
        if (!coded_smallest_three(stream, code, base_code, older_code, p != nullptr ? &own : nullptr, q.max_integer,
                                                  [&e](const auto& c, std::uint32_t axis) { return in_frame(e, c, axis); }))
            return false;
        if constexpr (reading) {
            float c[4] = {};
            float sum = 0.0f;
            for (std::uint32_t k = 0; k < 3; ++k) {
                float& component = c[k + (k >= code.largest ? 1u : 0u)];
                component = q.dequantize(code.quanta[k]);
                sum = bitrep::detail::add_square(sum, component);
            }
            if (sum > 1.0f) [[unlikely]]
                return stream.fail(error::out_of_range, start, "smallest-three components exceed unit length");
            c[code.largest] = std::sqrt(1.0f - sum);
            v = {c[0], c[1], c[2], c[3]};
        }
        return true;
    }
};

} // namespace

template <class Stream>
bool delta(Stream& stream, const field_entry& entry, const void* older, const void* base, void* value,
           element_hints hints)
{
    walk<Stream> w{stream, hints};
    return w.delta(entry, ptr(older), ptr(base), static_cast<bytes*>(value));
}

template <class Stream>
bool changed(Stream& stream, const field_entry& entry, const void* older, const void* base, void* value)
{
    walk<Stream> w{stream};
    return w.changed_part(entry, ptr(older), ptr(base), static_cast<bytes*>(value));
}

template <scope Scope>
bool same(const field_entry& entry, const void* a, const void* b)
{
    return same_value<Scope>(entry, a, b);
}

void assign_value(const field_entry& entry, void* to, const void* from)
{
    assign(entry, to, from);
}

bool read_whole(basic_read_stream<scope::save>& stream, const field_entry& entry, void* value)
{
    walk<basic_read_stream<scope::save>> w{stream};
    return w.whole(entry, static_cast<bytes*>(value));
}

template bool delta(basic_write_stream<scope::all>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_read_stream<scope::all>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_measure_stream<scope::all>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_coded_write_stream<scope::all>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_coded_read_stream<scope::all>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_write_stream<scope::save>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_read_stream<scope::save>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_measure_stream<scope::save>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_coded_write_stream<scope::save>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_coded_read_stream<scope::save>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_write_stream<scope::replication>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_read_stream<scope::replication>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_measure_stream<scope::replication>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool delta(basic_coded_write_stream<scope::replication>&, const field_entry&, const void*, const void*,
                    void*, element_hints);
template bool delta(basic_coded_read_stream<scope::replication>&, const field_entry&, const void*, const void*, void*, element_hints);
template bool changed(basic_write_stream<scope::all>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_read_stream<scope::all>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_measure_stream<scope::all>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_coded_write_stream<scope::all>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_coded_read_stream<scope::all>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_write_stream<scope::save>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_read_stream<scope::save>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_measure_stream<scope::save>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_coded_write_stream<scope::save>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_coded_read_stream<scope::save>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_write_stream<scope::replication>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_read_stream<scope::replication>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_measure_stream<scope::replication>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_coded_write_stream<scope::replication>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_coded_read_stream<scope::replication>&, const field_entry&, const void*, const void*, void*);
template bool changed(basic_coded_record_stream<scope::replication>&, const field_entry&, const void*, const void*,
                      void*);
template bool same<scope::all>(const field_entry&, const void*, const void*);
template bool same<scope::save>(const field_entry&, const void*, const void*);
template bool same<scope::replication>(const field_entry&, const void*, const void*);

} // namespace bitrep::engine
