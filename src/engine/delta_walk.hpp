// The engine's delta walk: one recursive walk over a value's entries, its
// baseline's and the older state's, for every stream (delta.cpp compiles
// it once). Its containers' and maps' parts are in delta_elements.hpp, its
// rotations' codes in delta_codes.hpp.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include <bitrep/codecs/classes.hpp>
#include <bitrep/engine/delta.hpp>
#include <bitrep/engine/delta_cost.hpp>

#include "delta_parts.hpp"

namespace bitrep::engine {

/// The delta walk, which only delta.cpp compiles.
namespace deltas {

using namespace kinds;

// ---- the walk --------------------------------------------------------------

template <class Stream>
struct walk {
    static constexpr bool reading = Stream::is_reading;
    static constexpr bool coded = Stream::is_coded;
    static constexpr bool recording = requires { requires Stream::is_recording; };
    static constexpr scope field_scope = Stream::field_scope;

    Stream& stream;
    /// The walk's working memory (proxies' wire objects, maps' entries).
    scratch& work;
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
            return same_value<field_scope>(e, a, b, work);
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
        case kind::proxy: {
            const scratch_scope held(work);
            return hinted_same(*e.element, static_cast<const bytes*>(wire_part(e, a, work)),
                               static_cast<const bytes*>(wire_part(e, b, work)));
        }
        case kind::vector: {
            const std::size_t n = e.container->size(a);
            const auto* hint = n != 0 && n == e.container->size(b)
                                   ? find_hint(*e.element, e.container->data(ptr(a)), e.container->data(ptr(b)))
                                   : nullptr;
            return hint != nullptr ? hint->count == 0 : same_value<field_scope>(e, a, b, work);
        }
        case kind::array: {
            const auto* hint = e.fixed.count != 0 ? find_hint(*e.element, a, b) : nullptr;
            return hint != nullptr ? hint->count == 0 : same_value<field_scope>(e, a, b, work);
        }
        default: return same_value<field_scope>(e, a, b, work);
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
        const scratch::mark mark = work.top();
        bytes* wire = proxy_wire<Stream>(e, p, work);
        if (!whole(*e.element, wire)) {
            work.release(mark);
            return false;
        }
        leave_proxy<Stream>(e, p, wire, work, mark); // releases it
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
            const scratch_scope held(work);
            const void* const* entries = size != 0 ? map.sorted(p, work) : nullptr;
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
            const scratch_scope held(work);
            void* entry = map.fresh(work);
            if (!whole(*e.element, static_cast<bytes*>(entry))) [[unlikely]]
                return fail_index(i);
            if (!map.insert(p, entry)) [[unlikely]] {
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
                assign(e, value, base, work);
            return true;
        }
        bool changed = false;
        if constexpr (!reading)
            changed = !same(e, base, value);
        bool changed_before = false;
        if constexpr (coded)
            changed_before = older != base && !identical(e, older, base) &&
                             !same_value<field_scope>(e, older, base, work);
        if (!stream.serialize_changed(changed, changed_before))
            return false;
        if (!changed) {
            if constexpr (reading)
                assign(e, value, base, work);
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

    bool vector_changed(const field_entry& e, const bytes* older, const bytes* base, bytes* value);

    bool proxy_changed(const field_entry& e, const bytes* older, const bytes* base, bytes* value);

    /// A map's or set's delta (docs/formats/wire-format.md, section 6.3): the
    /// baseline's entries removed, by their index in its key order; for a
    /// map, those whose value changed, with the value's delta; then the new
    /// entries in full. Each index is bounded by the ones still to come.
    bool map_changed(const field_entry& e, const bytes* older, const bytes* base, bytes* value);

    enum class step : std::uint8_t { removed, kept, inserted };

    /// Walks the baseline's and the value's entries in key order together.
    template <class F>
    static void merge(const map_access& map, const void* const* b, std::size_t nb, const void* const* v,
                      std::size_t nv, F&& f);

    /// The next of ascending indices below `size`, at or above `lowest`, with
    /// `left` more after it: its offset from lowest, bounded so that the
    /// rest still fit.
    bool map_index(std::uint64_t& index, std::uint64_t& lowest, std::uint64_t left, std::uint64_t size);

    /// The older state's entry with base_entry's key, else base_entry.
    static const bytes* older_entry(const map_access& map, const bytes* older, const void* base_entry);

    bool value_changed(const field_entry& e, const void* b, const void* v);

    bool map_write(const field_entry& e, const bytes* older, const bytes* base, bytes* value);

    bool map_read(const field_entry& e, const bytes* older, const bytes* base, bytes* value);

    // A container's elements [0, common).
    bool elements(const field_entry& element, std::uint32_t stride, std::size_t older_count, const bytes* older,
                  const bytes* base, bytes* value, std::size_t common, std::size_t min_count, std::size_t capacity);

    bool coded_elements(const field_entry& element, std::uint32_t stride, std::size_t older_count,
                        const bytes* older, const bytes* base, bytes* value, std::size_t common);

    /// coded_elements as a writer told by `hint` which elements changed,
    /// which changed before, and per changed one its recorded decisions:
    /// the same bytes, without comparing elements or walking them again.
    bool hinted_coded_elements(const element_hint& hint, const field_entry& element, std::uint32_t stride,
                               std::size_t older_common, const bytes* older, const bytes* base, bytes* value,
                               std::size_t common);

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

    bool differs(const field_entry& element, const bytes* b, const bytes* v) const;

    void find_changed(changed_list& list, const field_entry& element, std::uint32_t stride, const bytes* base,
                      const bytes* value, std::size_t common) const;

    std::size_t next_changed(changed_list& list, const field_entry& element, std::uint32_t stride,
                             const bytes* base, const bytes* value, std::size_t from);

    /// Element i's delta: the hint's bits when it has them, else encoded.
    bool write_changed(changed_list& list, const field_entry& element, const bytes* b, bytes* v, std::size_t i);

    bool packed_elements(const field_entry& element, std::uint32_t stride, const bytes* base, bytes* value,
                         std::size_t common, std::size_t min_count, std::size_t capacity);

    bool listed(changed_list& list, const field_entry& element, std::uint32_t stride, const bytes* base,
                bytes* value, std::size_t common, std::size_t min_count);

    bool masked(changed_list& list, const field_entry& element, std::uint32_t stride, const bytes* base,
                bytes* value, std::size_t common);

    /// The code the writer sends for a rotation (a baseline's is the one it
    /// was sent).
    static bitrep::detail::smallest_three_code code_of(const field_entry& e, const quat_floats& v) noexcept;

    /// A code's rotation as it would be sent with `axis` largest.
    static bitrep::detail::smallest_three_code in_frame(const field_entry& e,
                                                        const bitrep::detail::smallest_three_code& code,
                                                        std::uint32_t axis) noexcept;

    /// A quat_code's fields as a smallest-three code, and back.
    static bitrep::detail::smallest_three_code code_at(const field_entry& e, const bytes* p) noexcept;
    static void store_code(const field_entry& e, bytes* p, const bitrep::detail::smallest_three_code& code) noexcept;

    /// A quat_code on a coded stream: as a quaternion's code, with the
    /// predictions moved to a new largest axis in integers (quat_code.hpp).
    bool code_changed(const field_entry& e, const bytes* older, const bytes* base, bytes* value);

    bool quat_changed(const field_entry& e, const bytes* older, const bytes* base, bytes* value);
};

} // namespace deltas

} // namespace bitrep::engine
