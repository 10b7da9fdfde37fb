// The delta walk's containers and maps (delta_walk.hpp): a container's
// changed elements as a bitmask or an index list, a map's removed, changed
// and inserted entries.
#pragma once

#include "delta_walk.hpp"

namespace bitrep::engine {

namespace deltas {

template <class Stream>
bool walk<Stream>::vector_changed(const field_entry& e, const bytes* older, const bytes* base, bytes* value)
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

template <class Stream>
bool walk<Stream>::proxy_changed(const field_entry& e, const bytes* older, const bytes* base, bytes* value)
{
    const std::ptrdiff_t at = e.proxy->in_place != nullptr ? e.proxy->in_place() : -1;
    if (at >= 0)
        return changed_part(*e.element, older + at, base + at, value + at);
    const scratch_scope held(work);
    bytes* wire = reading ? static_cast<bytes*>(e.proxy->wire_to_read(value, work)) : wire_part(e, value, work);
    if (!changed_part(*e.element, wire_part(e, older, work), wire_part(e, base, work), wire))
        return false;
    if constexpr (reading)
        e.proxy->from_wire(value, wire);
    return true;
}

template <class Stream>
bool walk<Stream>::map_changed(const field_entry& e, const bytes* older, const bytes* base, bytes* value)
{
    if constexpr (reading)
        return map_read(e, older, base, value);
    else
        return map_write(e, older, base, value);
}

template <class Stream>
template <class F>
void walk<Stream>::merge(const map_access& map, const void* const* b, std::size_t nb, const void* const* v,
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

template <class Stream>
bool walk<Stream>::map_index(std::uint64_t& index, std::uint64_t& lowest, std::uint64_t left, std::uint64_t size)
{
    std::uint64_t offset = index - lowest;
    if (!stream.serialize_ranged_offset(offset, size - 1 - left - lowest))
        return false;
    index = lowest + offset;
    lowest = index + 1;
    return true;
}

template <class Stream>
const bytes* walk<Stream>::older_entry(const map_access& map, const bytes* older, const void* base_entry)
{
    const void* found = map.find(older, base_entry);
    return ptr(found != nullptr ? found : base_entry);
}

template <class Stream>
bool walk<Stream>::value_changed(const field_entry& e, const void* b, const void* v)
{
    const field_entry* mapped = mapped_entry(e);
    if (mapped == nullptr)
        return false;
    const std::uint32_t at = mapped_offset(e);
    return !identical(*mapped, ptr(b) + at, ptr(v) + at) &&
           !same_value<field_scope>(*mapped, ptr(b) + at, ptr(v) + at, work);
}

template <class Stream>
bool walk<Stream>::map_write(const field_entry& e, const bytes* older, const bytes* base, bytes* value)
{
    const map_access& map = *e.map;
    const std::uint64_t most = e.bounded.max;
    const std::size_t nb = map.size(base);
    const std::size_t nv = map.size(value);
    if (nv > most) [[unlikely]]
        return stream.fail(error::value_out_of_range, stream.position(),
                           map.has_values ? "map larger than its bound" : "set larger than its bound");
    const scratch_scope held(work);
    const void* const* b = nb != 0 ? map.sorted(base, work) : nullptr;
    const void* const* v = nv != 0 ? map.sorted(value, work) : nullptr;
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

template <class Stream>
bool walk<Stream>::map_read(const field_entry& e, const bytes* older, const bytes* base, bytes* value)
{
    const map_access& map = *e.map;
    const std::size_t nb = map.size(base);
    const scratch_scope held(work);
    const void* const* b = nb != 0 ? map.sorted(base, work) : nullptr;
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

template <class Stream>
bool walk<Stream>::elements(const field_entry& element, std::uint32_t stride, std::size_t older_count, const bytes* older,
              const bytes* base, bytes* value, std::size_t common, std::size_t min_count, std::size_t capacity)
{
    if (common == 0)
        return true;
    if constexpr (coded)
        return coded_elements(element, stride, older_count, older, base, value, common);
    else
        return packed_elements(element, stride, base, value, common, min_count, capacity);
}

template <class Stream>
bool walk<Stream>::coded_elements(const field_entry& element, std::uint32_t stride, std::size_t older_count,
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
            changed = !identical(element, b, v) && !same_value<field_scope>(element, b, v, work);
        const bool changed_before =
            i >= older_common || (!identical(element, before, b) && !same_value<field_scope>(element, before, b, work));
        if (!stream.serialize_element_changed(changed, changed_before, previous))
            return false;
        previous = changed;
        if (!changed)
            continue;
        if constexpr (reading) {
            assign_run(element, stride, value, base, unchanged_from, i, work);
            unchanged_from = i + 1;
        }
        [[maybe_unused]] const auto slot = stream.enter_slot(1);
        stream.begin_entity();
        if (!changed_part(element, before, b, v)) [[unlikely]]
            return fail_index(i);
    }
    if constexpr (reading)
        assign_run(element, stride, value, base, unchanged_from, common, work);
    return true;
}

template <class Stream>
bool walk<Stream>::hinted_coded_elements(const element_hint& hint, const field_entry& element, std::uint32_t stride,
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

template <class Stream>
bool walk<Stream>::differs(const field_entry& element, const bytes* b, const bytes* v) const
{
    return !identical(element, b, v) && !same_value<field_scope>(element, b, v, work);
}

template <class Stream>
void walk<Stream>::find_changed(changed_list& list, const field_entry& element, std::uint32_t stride, const bytes* base,
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

template <class Stream>
std::size_t walk<Stream>::next_changed(changed_list& list, const field_entry& element, std::uint32_t stride,
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

template <class Stream>
bool walk<Stream>::write_changed(changed_list& list, const field_entry& element, const bytes* b, bytes* v, std::size_t i)
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

template <class Stream>
bool walk<Stream>::packed_elements(const field_entry& element, std::uint32_t stride, const bytes* base, bytes* value,
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

template <class Stream>
bool walk<Stream>::listed(changed_list& list, const field_entry& element, std::uint32_t stride, const bytes* base,
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
            assign_run(element, stride, value, base, static_cast<std::size_t>(previous) + 1, i, work);
        }
        if (!write_changed(list, element, base + i * stride, value + i * stride, i))
            return false;
        previous = index;
    }
    if constexpr (reading)
        assign_run(element, stride, value, base, static_cast<std::size_t>(previous) + 1, common, work);
    return true;
}

template <class Stream>
bool walk<Stream>::masked(changed_list& list, const field_entry& element, std::uint32_t stride, const bytes* base,
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
            assign_run(element, stride, value, base, unchanged_from, i, work);
            unchanged_from = i + 1;
        }
        if (!write_changed(list, element, base + i * stride, value + i * stride, i))
            return false;
        if constexpr (!reading)
            next = list.cursor < list.count ? next_changed(list, element, stride, base, value, i + 1) : common;
    }
    if constexpr (reading)
        assign_run(element, stride, value, base, unchanged_from, common, work);
    return true;
}

} // namespace deltas

} // namespace bitrep::engine
