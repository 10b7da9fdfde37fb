// Sameness on the wire and assignment, part by part, on the engine's
// entries: what a delta's writer asks of each part (is it unchanged?) and
// what its reader does with one that is (take the baseline's).
#include <bitrep/engine/delta.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include <bitrep/codecs/classes.hpp>

#include "delta_parts.hpp"
#include "values.hpp"

namespace bitrep::engine {

using namespace kinds;

// ---- sameness on the wire ----------------------------------------------

namespace {

template <scope Scope>
bool same_elements(const field_entry& element, std::uint32_t stride, const bytes* a, const bytes* b, std::size_t n,
                   scratch& work)
{
    for (std::size_t i = 0; i < n; ++i, a += stride, b += stride)
        if (!identical(element, a, b) && !same_value<Scope>(element, a, b, work))
            return false;
    return true;
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


/// The same keys, and for a map the same values on the wire.
template <scope Scope>
bool same_map(const field_entry& e, const void* a, const void* b, scratch& work)
{
    const map_access& map = *e.map;
    const std::size_t n = map.size(a);
    if (n != map.size(b))
        return false;
    const scratch_scope held(work);
    const void* const* entries = n != 0 ? map.sorted(a, work) : nullptr;
    const field_entry* mapped = mapped_entry(e);
    for (std::size_t i = 0; i < n; ++i) {
        const void* other = map.find(b, entries[i]);
        if (other == nullptr)
            return false;
        if (mapped != nullptr) {
            const std::uint32_t at = mapped_offset(e);
            const bytes* x = ptr(entries[i]) + at;
            const bytes* y = ptr(other) + at;
            if (!identical(*mapped, x, y) && !same_value<Scope>(*mapped, x, y, work))
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
bool same_fields(const type_table& t, const bytes* a, const bytes* b, scratch& work)
{
    const std::atomic<std::uint32_t>* offsets = field_offsets(t);
    for (std::uint32_t i = 0; i < t.count; ++i) {
        const std::uint32_t at = offsets[i].load(std::memory_order_relaxed);
        const field_entry& f = t.fields[i];
        const bool equal = f.flag == 0 && is_number(f.kind) ? same_number(f, a + at, b + at)
                                                             : same_value<Scope>(f, a + at, b + at, work);
        if (!equal)
            return false;
    }
    return true;
}

/// A proxy's wire objects compared, in place or made from the values.
template <scope Scope>
bool same_proxy(const field_entry& e, const void* a, const void* b, scratch& work)
{
    const scratch_scope held(work);
    return same_value<Scope>(*e.element, wire_part(e, a, work), wire_part(e, b, work), work);
}

} // namespace

template <scope Scope>
bool same_value(const field_entry& e, const void* a, const void* b, scratch& work)
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
                                    static_cast<const bytes*>(e.container->data(ptr(b))), n, work);
    }
    case kind::array:
        return same_elements<Scope>(*e.element, e.stride, pa, pb, static_cast<std::size_t>(e.fixed.count), work);
    case kind::optional: {
        const bool has = e.maybe->has_value(a);
        if (has != e.maybe->has_value(b))
            return false;
        return !has || same_value<Scope>(*e.element, e.maybe->value(ptr(a)), e.maybe->value(ptr(b)), work);
    }
    case kind::variant: {
        const std::size_t index = e.variant->index(a);
        if (index != e.variant->index(b) || index >= e.fixed.count)
            return false;
        return same_value<Scope>(e.element[index], e.variant->held[index](ptr(a)), e.variant->held[index](ptr(b)),
                                 work);
    }
    case kind::proxy: return same_proxy<Scope>(e, a, b, work);
    case kind::structure: return same_fields<Scope>(*e.nested, pa, pb, work);
    case kind::codec: return same_encoding<Scope>(e, a, b);
    case kind::map: return same_map<Scope>(e, a, b, work);
    }
    return false;
}

// ---- assignment ----------------------------------------------------------

/// Elements [from, to) of a container taken from the baseline's: one copy
/// for elements that are bytes.
void assign_run(const field_entry& element, std::uint32_t stride, bytes* value, const bytes* base, std::size_t from,
                std::size_t to, scratch& work)
{
    if (from >= to)
        return;
    if (element.copy == nullptr && element.trivially_copyable) {
        std::memcpy(value + from * stride, base + from * stride, (to - from) * stride);
        return;
    }
    for (std::size_t j = from; j < to; ++j)
        assign(element, value + j * stride, base + j * stride, work);
}

namespace {

/// A proxy's value taken from another's: its wire object, in place or made
/// from it and made into the value.
void assign_proxy(const field_entry& e, void* to, const void* from, scratch& work)
{
    const std::ptrdiff_t at = e.proxy->in_place != nullptr ? e.proxy->in_place() : -1;
    if (at >= 0) {
        assign(*e.element, ptr(to) + at, ptr(from) + at, work);
        return;
    }
    const scratch_scope held(work);
    void* wire = e.proxy->wire_to_read(to, work);
    assign(*e.element, wire, e.proxy->wire_to_write(from, work), work);
    e.proxy->from_wire(to, wire);
}

} // namespace

/// to = from, part by part (a delta's reader takes the baseline's value where
/// nothing changed).
void assign(const field_entry& e, void* to, const void* from, scratch& work)
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
                   static_cast<const bytes*>(e.container->data(ptr(from))), 0, n, work);
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
        assign_run(*e.element, e.stride, ptr(to), ptr(from), 0, static_cast<std::size_t>(e.fixed.count), work);
        return;
    case kind::optional:
        if (!e.maybe->has_value(from)) {
            e.maybe->reset(to);
            return;
        }
        if (!e.maybe->has_value(to))
            e.maybe->emplace(to);
        assign(*e.element, e.maybe->value(to), e.maybe->value(ptr(from)), work);
        return;
    case kind::variant: {
        const std::size_t index = e.variant->index(from);
        if (index >= e.fixed.count) [[unlikely]]
            return; // valueless: nothing to take (a baseline a receiver holds never is)
        assign(e.element[index], e.variant->hold[index](to), e.variant->held[index](ptr(from)), work);
        return;
    }
    case kind::proxy: assign_proxy(e, to, from, work); return;
    case kind::structure:
        for (std::uint32_t i = 0; i < e.nested->count; ++i) {
            const std::uint32_t at = field_offset(*e.nested, i);
            assign(e.nested->fields[i], ptr(to) + at, ptr(from) + at, work);
        }
        return;
    default: std::memcpy(to, from, e.object_size); return;
    }
}

template <scope Scope>
bool same(const field_entry& entry, const void* a, const void* b)
{
    scratch work;
    return same_value<Scope>(entry, a, b, work);
}

void assign_value(const field_entry& entry, void* to, const void* from)
{
    scratch work;
    assign(entry, to, from, work);
}

template bool same_value<scope::all>(const field_entry&, const void*, const void*, scratch&);
template bool same_value<scope::save>(const field_entry&, const void*, const void*, scratch&);
template bool same_value<scope::replication>(const field_entry&, const void*, const void*, scratch&);
template bool same<scope::all>(const field_entry&, const void*, const void*);
template bool same<scope::save>(const field_entry&, const void*, const void*);
template bool same<scope::replication>(const field_entry&, const void*, const void*);

} // namespace bitrep::engine
