// Delta encoding (docs/wire-format.md, "Deltas"): a value written against a
// baseline the receiver already holds, so that what did not change costs one
// bit. delta_codec<T> holds the facets per kind, each in terms of the codecs
// of codec.hpp (a changed value is sent with its ordinary encoding):
//   same<Scope>(a, b)          equal on the wire: a and b encode to the same bits
//   delta(stream, older, base, v)   a changed bit, then delta_changed when set
//   delta_changed(stream, older, base, v)   v, known to differ from base
//   max_delta_bits(), max_changed_bits()   upper bounds of the two, in bits
// As with serialize, one function serves write, read and measure. Reading
// assigns every carried part of `v`: from the stream where it changed, from
// `base` where it did not; parts the stream's scope does not carry take the
// baseline's value. `older` is the state the baseline was itself sent
// against (the baseline again when there is none): the bit-packed streams
// ignore it; the coded streams (coded_stream.hpp) predict from it and take
// their contexts from it. coded_slot_count<T> numbers the leaves for them.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <bitset>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <bitrep/annotations.hpp>
#include <bitrep/bytes.hpp>
#include <bitrep/codec.hpp>
#include <bitrep/codecs/quat.hpp>
#include <bitrep/detail/delta_cost.hpp>
#include <bitrep/detail/inline.hpp>
#include <bitrep/detail/resize.hpp>
#include <bitrep/engine/delta.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/serialize.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep {

template <class T>
struct delta_codec;

namespace detail {

/// Classes the class codec walks field by field (not hooks, not annotations).
template <class T>
concept walked_class = std::is_class_v<T> && requires { codec<T>::walks_fields; } && codec<T>::walks_fields;

/// Bitwise identical objects encode identically: a cheap first test that
/// settles unchanged entities (copies of each other) without quantizing.
template <class T>
BITREP_ALWAYS_INLINE bool identical_bytes(const T& a, const T& b) noexcept
{
    if constexpr (std::is_trivially_copyable_v<T>)
        return std::memcmp(static_cast<const void*>(&a), static_cast<const void*>(&b), sizeof(T)) == 0;
    else
        return false;
}

/// Two encodings of a hook type whose bound is too large for the stack, per
/// thread: they keep their capacity, so once they have grown to the largest
/// encoding compared, comparing allocates nothing.
struct encoding_scratch {
    std::vector<std::uint8_t> a, b;
};
inline encoding_scratch& this_threads_encoding_scratch()
{
    thread_local encoding_scratch scratch;
    return scratch;
}

/// Writes value into buffer (grown when too small) and says how many bits.
template <scope Scope, class T>
bool encode_for_comparison(const T& value, std::vector<std::uint8_t>& buffer, std::size_t& bits)
{
    failure_record failure;
    basic_measure_stream<Scope> measure(failure);
    if (!bitrep::serialize(measure, value))
        return false;
    bits = measure.exact_bits();
    if (buffer.size() < (bits + 7) / 8)
        buffer.resize((bits + 7) / 8);
    basic_write_stream<Scope> stream(std::span<std::uint8_t>(buffer.data(), (bits + 7) / 8), failure);
    if (!bitrep::serialize(stream, value))
        return false;
    stream.flush();
    return true;
}

/// Equality in wire space for any value: both encodings, compared bit for
/// bit. Used for kinds with no cheaper test (hooks), per entity, client and
/// tick, so it never allocates: a small bound encodes on the stack, a large
/// one into this thread's scratch. A value that cannot be encoded counts as
/// changed, so that the writer reports it.
template <scope Scope, class T>
bool same_encoding(const T& a, const T& b)
{
    constexpr std::size_t bound = max_bits<T>;
    if constexpr (bound <= std::size_t{8} * 512) {
        // Not zero-filled: only the bytes the writers flushed are compared.
        std::array<std::uint8_t, bound / 8 + 1> bytes_a;
        std::array<std::uint8_t, bound / 8 + 1> bytes_b;
        failure_record failure_a;
        failure_record failure_b;
        basic_write_stream<Scope> stream_a(bytes_a, failure_a);
        basic_write_stream<Scope> stream_b(bytes_b, failure_b);
        if (!bitrep::serialize(stream_a, a) || !bitrep::serialize(stream_b, b))
            return false;
        if (stream_a.bit_position() != stream_b.bit_position())
            return false;
        const std::size_t used = stream_a.flush();
        stream_b.flush();
        return std::equal(bytes_a.begin(), bytes_a.begin() + static_cast<std::ptrdiff_t>(used), bytes_b.begin());
    } else {
        encoding_scratch& scratch = this_threads_encoding_scratch();
        std::size_t bits_a = 0;
        std::size_t bits_b = 0;
        if (!encode_for_comparison<Scope>(a, scratch.a, bits_a) || !encode_for_comparison<Scope>(b, scratch.b, bits_b))
            return false;
        const auto used = static_cast<std::ptrdiff_t>((bits_a + 7) / 8);
        return bits_a == bits_b && std::equal(scratch.a.begin(), scratch.a.begin() + used, scratch.b.begin());
    }
}

/// The changed bit, then the change: the shape of every kind's delta.
template <class Stream, class T>
BITREP_ALWAYS_INLINE bool delta_with_changed_bit(Stream& stream, const T& older, const T& base, T& value)
{
    bool changed = false;
    if constexpr (!Stream::is_reading)
        changed = !delta_codec<T>::template same<Stream::field_scope>(base, value);
    bool changed_before = false;
    if constexpr (Stream::is_coded)
        changed_before = std::addressof(older) != std::addressof(base) && !identical_bytes(older, base) &&
                         !delta_codec<T>::template same<Stream::field_scope>(older, base);
    if (!stream.serialize_changed(changed, changed_before))
        return false;
    if (!changed) {
        if constexpr (Stream::is_reading)
            value = base;
        return true;
    }
    return delta_codec<T>::delta_changed(stream, older, base, value);
}

/// The `delta` facet of every kind but flags: the changed bit, then the
/// kind's delta_changed.
template <class T>
struct delta_by_changed_bit {
    static constexpr std::size_t max_delta_bits() { return add_bits(1, delta_codec<T>::max_changed_bits()); }
    template <class Stream>
    BITREP_ALWAYS_INLINE static bool delta(Stream& stream, const T& older, const T& base, T& value)
    {
        return delta_with_changed_bit(stream, older, base, value);
    }
};

/// Numbers the coded streams send as residuals: an index in [0, span] per
/// value (for a baseline the receiver holds, exactly what it decoded).
template <class T>
struct numeric_index;
template <std::integral Int, Int Min, Int Max>
struct numeric_index<ranged<Int, Min, Max>> {
    static constexpr std::uint64_t span = ranged<Int, Min, Max>::span;
    static bool get(const ranged<Int, Min, Max>& v, std::uint64_t& index) noexcept
    {
        index = static_cast<std::uint64_t>(v.value()) - static_cast<std::uint64_t>(Min); // above span when out of range
        return true;
    }
    static void set(ranged<Int, Min, Max>& v, std::uint64_t index) noexcept
    {
        v = static_cast<Int>(static_cast<std::uint64_t>(Min) + index);
    }
};
template <float_constant Min, float_constant Max, float_constant Resolution, range_policy Policy>
struct numeric_index<quantized<Min, Max, Resolution, Policy>> {
    using type = quantized<Min, Max, Resolution, Policy>;
    static constexpr std::uint64_t span = type::quantizer.max_integer;
    /// False for a value the codec refuses (the writer then refuses it as
    /// the codec does; a baseline's index is that of what it decoded).
    static bool get(const type& v, std::uint64_t& index) noexcept
    {
        index = v.quantum();
        return v.encodable();
    }
    static void set(type& v, std::uint64_t index) noexcept
    {
        v = type::quantizer.dequantize(static_cast<std::uint32_t>(index));
    }
};
template <class Int>
    requires(std::is_integral_v<Int> && !std::is_same_v<Int, bool>)
struct numeric_index<Int> {
    static constexpr std::uint64_t span = static_cast<std::uint64_t>(std::numeric_limits<Int>::max()) -
                                          static_cast<std::uint64_t>(std::numeric_limits<Int>::min());
    static bool get(Int v, std::uint64_t& index) noexcept
    {
        index = static_cast<std::uint64_t>(v) - static_cast<std::uint64_t>(std::numeric_limits<Int>::min());
        return true;
    }
    static void set(Int& v, std::uint64_t index) noexcept
    {
        v = static_cast<Int>(static_cast<std::uint64_t>(std::numeric_limits<Int>::min()) + index);
    }
};
template <class T>
concept has_numeric_index = requires { numeric_index<T>::span; };

/// A changed leaf on a coded stream: a number as its residual against the
/// prediction from base and older; a bool not at all (it is !base); the
/// rest as its ordinary encoding. On the bit-packed streams: the ordinary
/// encoding, as the standard's delta sends it.
template <class Stream, class T>
BITREP_ALWAYS_INLINE bool delta_changed_leaf(Stream& stream, const T& older, const T& base, T& value)
{
    if constexpr (Stream::is_coded && has_numeric_index<T>) {
        using index = numeric_index<T>;
        std::uint64_t i = 0;
        std::uint64_t b = 0;
        std::uint64_t o = 0;
        index::get(base, b);
        index::get(older, o);
        if constexpr (!Stream::is_reading) {
            if (!index::get(value, i)) [[unlikely]] // only a quantized value it cannot send
                return refuse_quantized(stream, static_cast<float>(value));
        }
        if (!stream.serialize_index_delta(i, b, o, index::span))
            return false;
        if constexpr (Stream::is_reading)
            index::set(value, i);
        return true;
    } else if constexpr (Stream::is_coded && std::is_same_v<T, bool>) {
        static_cast<void>(older);
        if constexpr (Stream::is_reading)
            value = !base;
        return true;
    } else {
        static_cast<void>(older);
        static_cast<void>(base);
        return bitrep::serialize(stream, value);
    }
}

/// Kinds that change as a whole: a change is the value's own encoding.
template <class T>
struct delta_as_whole : delta_by_changed_bit<T> {
    static constexpr std::size_t max_changed_bits() { return max_bits<T>; }
    template <class Stream>
    static bool delta_changed(Stream& stream, const T& older, const T& base, T& value)
    {
        return delta_changed_leaf(stream, older, base, value);
    }
};

/// Slots of models for the coded streams: one per leaf, one per container
/// or optional for its own decisions (element changed bits, presence),
/// elements sharing their element type's slots.
template <class T>
constexpr std::size_t coded_slot_count();
/// The types of a struct's fields as sent, and of a pair's or tuple's
/// members, by index: what the slot layout below is worked out over.
template <class T>
struct field_types {
    template <std::size_t I>
    using at = reflect::wire_type_at<T, I>;
};
template <class T>
struct member_types {
    template <std::size_t I>
    using at = std::tuple_element_t<I, T>;
};

/// The slots of the first `Count` of Types' types, one after another.
template <class Types, std::size_t Count>
constexpr std::size_t coded_slots_before()
{
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
        return (std::size_t{0} + ... + coded_slot_count<typename Types::template at<K>>());
    }(std::make_index_sequence<Count>{});
}
/// Fields (or members) of one type in one struct share their slots (x and
/// y of a position learn together): member I's first slot is that of the
/// first member of its type.
template <class Types, std::size_t I>
constexpr std::size_t coded_shared_offset()
{
    constexpr std::size_t first = [] {
        std::size_t at = I;
        [&]<std::size_t... J>(std::index_sequence<J...>) {
            ((at = at == I && std::is_same_v<typename Types::template at<J>, typename Types::template at<I>> ? J : at),
             ...);
        }(std::make_index_sequence<I>{});
        return at;
    }();
    return coded_slots_before<Types, first>();
}

/// Elements [0, common) on a coded stream: a changed bit per element in the
/// container's slot, in the context "this element changed between older
/// and base" and "the element before it changed now"; a changed element's
/// delta in the element's slots. An element older does not have counts as
/// changed before.
template <class Stream, class Container>
bool coded_delta_elements(Stream& stream, const Container& older, const Container& base, Container& value,
                          std::size_t common)
{
    using element = typename Container::value_type;
    constexpr scope field_scope = Stream::field_scope;
    const std::size_t older_common = std::min(common, older.size());
    bool previous = false;
    for (std::size_t i = 0; i < common; ++i) {
        const element& before = i < older_common ? older[i] : base[i];
        bool changed = false;
        if constexpr (!Stream::is_reading)
            changed = !identical_bytes(base[i], value[i]) && !delta_codec<element>::template same<field_scope>(base[i], value[i]);
        const bool changed_before = i >= older_common || (!identical_bytes(before, base[i]) &&
                                                          !delta_codec<element>::template same<field_scope>(before, base[i]));
        if (!stream.serialize_element_changed(changed, changed_before, previous))
            return false;
        previous = changed;
        if (!changed) {
            if constexpr (Stream::is_reading)
                value[i] = base[i];
            continue;
        }
        [[maybe_unused]] const auto slot = stream.enter_slot(1);
        stream.begin_entity();
        if (!delta_codec<element>::delta_changed(stream, before, base[i], value[i])) [[unlikely]] {
            stream.enter_index(i);
            return false;
        }
    }
    return true;
}

/// One changed element's delta; a failure names its index.
template <class Stream, class Container>
BITREP_ALWAYS_INLINE bool delta_changed_element(Stream& stream, const Container& base, Container& value, std::size_t i)
{
    using element = typename Container::value_type;
    if (!delta_codec<element>::delta_changed(stream, base[i], base[i], value[i])) [[unlikely]] {
        stream.enter_index(i);
        return false;
    }
    return true;
}

/// What a writer already knows of one container's changed elements, so
/// that it neither compares every element nor encodes again what it
/// encoded for another packet: the replication server sets these around
/// its write_delta (docs/replication.md, section 11). For the containers
/// whose elements start at `base` and `value`: the number of elements that
/// differ on the wire (same_elements answers from it: 0 is the same), and,
/// for delta_elements when `changed` is set, their indices, ascending, and
/// optionally, per one of them, its delta_changed bits (32-bit words,
/// lowest bits first) when they do not depend on where they start
/// (nullptr: encode it).
struct element_hint {
    const void* base = nullptr;
    const std::uint32_t* changed = nullptr;
    std::size_t count = 0;
    const std::uint32_t* const* words = nullptr;
    const std::uint32_t* bits = nullptr;
    const void* value = nullptr;
};
/// The hints in force on this thread (empty but inside such a write).
inline thread_local std::span<const element_hint> element_hints;

inline const element_hint* find_element_hint(const void* base, const void* value) noexcept
{
    for (const element_hint& hint : element_hints)
        if (hint.base == base && hint.value == value)
            return &hint;
    return nullptr;
}

/// A writer's changed elements among [0, common) of delta_elements, found
/// once (`find`), then handed out in order (`next`). Up to 4096 elements
/// their indices are kept on the stack; beyond, they are found again while
/// writing. Readers make one and leave it empty.
template <std::size_t Capacity, scope Scope, class Container>
struct changed_elements {
    using element = typename Container::value_type;
    static constexpr bool keep = Capacity <= 4096;

    const Container& base;
    const Container& value;
    std::size_t common;
    std::size_t count = 0;
    std::size_t index_bits = 0; ///< their listed_index_bits, summed: the index list's share
    std::size_t cursor = 0;     ///< how many `next` handed out
    const element_hint* hint = nullptr;
    std::array<std::uint16_t, keep ? Capacity : 1> kept;

    BITREP_ALWAYS_INLINE changed_elements(const Container& b, const Container& v, std::size_t n) noexcept
        : base(b), value(v), common(n)
    {
        // g++ unrolls the loops of a tiny container and then cannot see that
        // every index read was written first (-Wmaybe-uninitialized); filling
        // so few costs nothing.
        if constexpr (Capacity <= 16)
            kept.fill(0);
    }

    /// Whether element i changed on the wire (bitwise equal ones are
    /// settled without encoding them).
    BITREP_ALWAYS_INLINE bool differs(std::size_t i) const
    {
        return !identical_bytes(base[i], value[i]) && !delta_codec<element>::template same<Scope>(base[i], value[i]);
    }

    /// Counts the changed elements and prices their indices as a list
    /// (keeping them when they fit).
    BITREP_ALWAYS_INLINE void find()
    {
        std::size_t previous = no_listed_index;
        if (!element_hints.empty()) [[unlikely]] {
            const element_hint* found = find_element_hint(&base[0], &value[0]);
            if (found != nullptr && found->changed != nullptr) {
                hint = found;
                for (std::size_t k = 0; k < hint->count; ++k) {
                    index_bits += listed_index_bits(hint->changed[k], previous);
                    previous = hint->changed[k];
                }
                count = hint->count;
                return;
            }
        }
        for (std::size_t i = 0; i < common; ++i) {
            if (!differs(i))
                continue;
            if constexpr (keep)
                kept[count] = static_cast<std::uint16_t>(i);
            ++count;
            index_bits += listed_index_bits(i, previous);
            previous = i;
        }
    }

    /// The index of the next changed element, the first at `from` or after
    /// it; called once per changed element.
    BITREP_ALWAYS_INLINE std::size_t next(std::size_t from)
    {
        if (hint != nullptr) [[unlikely]]
            return hint->changed[cursor++];
        if constexpr (keep) {
            static_cast<void>(from);
            // Never true (cursor < count <= Capacity); it shows g++ that
            // `kept` is not read past its end (for a one-element std::array
            // it warned otherwise, failing -Werror builds).
            if (cursor >= Capacity) [[unlikely]]
                return common;
            return static_cast<std::size_t>(kept[cursor++]);
        } else {
            while (!differs(from))
                ++from;
            ++cursor; // the bitmask loop stops asking after the last changed element
            return from;
        }
    }

    /// Element i's delta, the one `next` handed out last: copied from the
    /// hint's bits when it has them, else encoded.
    template <class Stream>
    BITREP_ALWAYS_INLINE bool write(Stream& stream, const Container& b, Container& v, std::size_t i)
    {
        if constexpr (Stream::is_writing && !Stream::is_coded) {
            if (hint != nullptr && hint->words != nullptr && hint->words[cursor - 1] != nullptr) [[unlikely]] {
                const std::uint32_t* words = hint->words[cursor - 1];
                for (std::uint32_t left = hint->bits[cursor - 1]; left != 0; ++words) {
                    const int take = static_cast<int>(left < 32 ? left : 32);
                    std::uint32_t word = *words;
                    if (!stream.serialize_bits(word, take)) [[unlikely]]
                        return false;
                    left -= static_cast<std::uint32_t>(take);
                }
                return true;
            }
        }
        return delta_changed_element(stream, b, v, i);
    }
};

/// delta_elements' index list: the count, then per changed element its
/// index as int_relative from the previous and its delta.
template <class Stream, class Container, class Changed>
BITREP_ALWAYS_INLINE bool delta_elements_listed(Stream& stream, const Container& base, Container& value,
                                                std::size_t min_count, Changed& changed)
{
    const std::size_t common = changed.common;
    std::uint64_t count_offset = changed.count - min_count;
    if (!stream.serialize_ranged_offset(count_offset, common - min_count))
        return false;
    const std::size_t count = static_cast<std::size_t>(count_offset) + min_count;
    std::int32_t previous = -1;
    for (std::size_t k = 0; k < count; ++k) {
        std::int32_t index = 0;
        if constexpr (!Stream::is_reading)
            index = static_cast<std::int32_t>(changed.next(static_cast<std::size_t>(previous) + 1));
        const std::size_t at = stream.position();
        if (!stream.serialize_int_relative(previous, index))
            return false;
        const auto i = static_cast<std::size_t>(index);
        if constexpr (Stream::is_reading) {
            if (i >= common) [[unlikely]]
                return stream.fail(error::out_of_range, at, "changed element's index past the end");
            for (auto j = static_cast<std::size_t>(previous) + 1; j < i; ++j)
                value[j] = base[j];
        }
        if (!changed.write(stream, base, value, i))
            return false;
        previous = index;
    }
    if constexpr (Stream::is_reading)
        for (auto j = static_cast<std::size_t>(previous) + 1; j < common; ++j)
            value[j] = base[j];
    return true;
}

/// delta_elements' bitmask: a bit per element, each set one followed by
/// the element's delta.
template <class Stream, class Container, class Changed>
BITREP_ALWAYS_INLINE bool delta_elements_masked(Stream& stream, const Container& base, Container& value,
                                                Changed& changed)
{
    const std::size_t common = changed.common;
    std::size_t next = changed.count != 0 ? changed.next(0) : common;
    for (std::size_t i = 0; i < common; ++i) {
        bool is_changed = i == next;
        if (!stream.serialize_bool(is_changed))
            return false;
        if (!is_changed) {
            if constexpr (Stream::is_reading)
                value[i] = base[i];
            continue;
        }
        if (!changed.write(stream, base, value, i))
            return false;
        if constexpr (!Stream::is_reading)
            next = changed.cursor < changed.count ? changed.next(i + 1) : common;
    }
    return true;
}

/// Elements [0, common) of two indexable containers, written as the ones
/// that changed: either a bitmask (a bit per element, each set one followed
/// by the element's delta) or an index list (the count, then per changed
/// element its index as int_relative from the previous, starting at -1, and
/// its delta), whichever is fewer bits (changed_elements_form_of); one bit
/// says which (1: list). The count is an offset from min_count (1 when a
/// change is known to be among these elements). Reading assigns unlisted
/// elements from base.
template <std::size_t Capacity, class Stream, class Container>
bool delta_elements(Stream& stream, const Container& older, const Container& base, Container& value,
                    std::size_t common, std::size_t min_count)
{
    if (common == 0)
        return true;
    if constexpr (Stream::is_coded)
        return coded_delta_elements(stream, older, base, value, common);
    changed_elements<Capacity, Stream::field_scope, Container> changed(base, value, common);
    bool index_list = false;
    if constexpr (!Stream::is_reading) {
        const std::size_t start = stream.position();
        changed.find();
        if (changed.count < min_count) [[unlikely]]
            return stream.fail(error::value_out_of_range, start, "delta: no element changed"); // a broken same()
        index_list = changed_elements_form_of(common, min_count, changed.index_bits).index_list;
    }
    if (!stream.serialize_bool(index_list))
        return false;
    if (index_list)
        return delta_elements_listed(stream, base, value, min_count, changed);
    return delta_elements_masked(stream, base, value, changed);
}

/// All elements [0, n) of two containers equal on the wire.
template <scope Scope, class Container>
bool same_elements(const Container& a, const Container& b, std::size_t n)
{
    using element = typename Container::value_type;
    if (n != 0 && !element_hints.empty()) [[unlikely]] {
        if (const element_hint* hint = find_element_hint(&a[0], &b[0]); hint != nullptr)
            return hint->count == 0;
    }
    for (std::size_t i = 0; i < n; ++i)
        if (!identical_bytes(a[i], b[i]) && !delta_codec<element>::template same<Scope>(a[i], b[i]))
            return false;
    return true;
}

} // namespace detail

/// Leaves and classes. A leaf (integer, bool, enum, ranged, string, hook
/// class) changes as a whole and is sent with its ordinary encoding; a
/// reflected class costs one bit when unchanged, else a delta per field.
template <class T>
struct delta_codec : detail::delta_by_changed_bit<T> {
    static constexpr std::size_t max_changed_bits()
    {
        if constexpr (detail::walked_class<T>)
            return reflect::fold_field_types<T>(std::size_t{0},
                                                []<class Field>() { return delta_codec<Field>::max_delta_bits(); },
                                                detail::add_bits);
        else
            return max_bits<T>;
    }
    template <scope Scope>
    static bool same(const T& a, const T& b)
    {
        if constexpr (detail::walked_class<T>) {
            return [&]<std::size_t... I>(std::index_sequence<I...>) {
                return (reflect::with_field_as_sent<I, false>(
                            [](const auto& x, const auto& y) {
                                return delta_codec<std::remove_cvref_t<decltype(x)>>::template same<Scope>(x, y);
                            },
                            a, b) &&
                        ...);
            }(std::make_index_sequence<reflect::field_count<T>>{});
        } else if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T> || requires { T::span; } ||
                             requires { T::max_length; }) {
            return a == b; // integers, bools, enums, ranged, bounded_string: equal values encode equally
        } else {
            return detail::same_encoding<Scope>(a, b);
        }
    }

    template <class Stream>
    static bool delta_changed(Stream& stream, const T& older, const T& base, T& value)
    {
        if constexpr (detail::walked_class<T>) {
            stream.begin_entity();
            return [&]<std::size_t... I>(std::index_sequence<I...>) {
                return (delta_field<I>(stream, older, base, value) && ...);
            }(std::make_index_sequence<reflect::field_count<T>>{});
        } else {
            return detail::delta_changed_leaf(stream, older, base, value);
        }
    }

private:
    template <std::size_t I, class Stream>
    BITREP_ALWAYS_INLINE static bool delta_field(Stream& stream, const T& older, const T& base, T& value)
    {
        using field = reflect::wire_type_at<T, I>;
        [[maybe_unused]] const auto slot = stream.enter_slot(detail::coded_shared_offset<detail::field_types<T>, I>());
        if (reflect::with_field_as_sent<I, Stream::is_reading>(
                [&stream](field& now, const field& was_older, const field& was_base) BITREP_LAMBDA_ALWAYS_INLINE {
                    return delta_codec<field>::delta(stream, was_older, was_base, now);
                },
                value, older, base)) [[likely]]
            return true;
        detail::enter_field(stream.failure(), reflect::field_id_at<T, I>());
        return false;
    }
};

/// Floats and doubles: the same bit pattern (the wire sends it verbatim).
template <class T>
    requires std::is_floating_point_v<T>
struct delta_codec<T> : detail::delta_as_whole<T> {
    template <scope>
    static bool same(const T& a, const T& b) noexcept
    {
        return std::memcmp(&a, &b, sizeof(T)) == 0;
    }
};

/// Quantized floats compare their quanta: a drift below one quantum is not
/// resent, and the receiver's value is what the sender compares against. A
/// value the codec refuses is a change, so that the writer refuses it (5000
/// and the 1024 a client holds share the top quantum of [-1024, 1024]).
template <float_constant Min, float_constant Max, float_constant Resolution, range_policy Policy>
struct delta_codec<quantized<Min, Max, Resolution, Policy>>
    : detail::delta_as_whole<quantized<Min, Max, Resolution, Policy>> {
    using type = quantized<Min, Max, Resolution, Policy>;
    template <scope>
    static bool same(const type& a, const type& b) noexcept
    {
        return a.encodable() && b.encodable() && a.quantum() == b.quantum();
    }
};

namespace detail {
/// The coded delta of a smallest-three code (quat and quat_code share it):
/// a decision whether the largest axis moved, and to which of the other
/// three (in index order), then the three components as residuals against
/// the baseline's and the older state's codes re-expressed with that axis by
/// `in_frame`, in the components' slot. Writing reads `code`; reading fills it.
template <class Stream, class InFrame>
bool coded_smallest_three(Stream& stream, smallest_three_code& code, const smallest_three_code& base,
                          const smallest_three_code& older, std::uint64_t max, InFrame in_frame)
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
    const smallest_three_code predicted_base = in_frame(base, axis);
    const smallest_three_code predicted_older = in_frame(older, axis);
    [[maybe_unused]] const auto slot = stream.enter_slot(1);
    for (std::size_t k = 0; k < 3; ++k) {
        std::uint64_t quantum = code.quanta[k];
        if (!stream.serialize_index_delta(quantum, predicted_base.quanta[k], predicted_older.quanta[k], max))
            return false;
        code.quanta[k] = static_cast<std::uint32_t>(quantum);
    }
    return true;
}
} // namespace detail

/// Quaternions compare what smallest-three sends: the largest component's
/// index and the other three's quanta, as the writer settles them.
template <int Bits>
struct delta_codec<quat<Bits>> : detail::delta_by_changed_bit<quat<Bits>> {
    using type = quat<Bits>;
    static constexpr std::size_t coded_slots = 2; // the axis; the three components
    static constexpr std::size_t max_changed_bits() { return max_bits<type>; }
    template <scope>
    static bool same(const type& a, const type& b) noexcept
    {
        auto unit = [](const type& q) {
            const float norm = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
            return std::fabs(norm - 1.0f) <= 0.01f; // as the writer checks: anything else is a change it refuses
        };
        if (!unit(a) || !unit(b))
            return false;
        // The code sent is a function of the quanta the standard's arithmetic
        // gives (settle_largest of them), so equal quanta send equal codes.
        // Different ones may still settle alike, but only near a tie.
        constexpr const detail::quantizer& q = type::component_quantizer;
        const auto sa = detail::smallest_three::of(a.x, a.y, a.z, a.w);
        const auto sb = detail::smallest_three::of(b.x, b.y, b.z, b.w);
        bool equal = sa.largest == sb.largest;
        for (int k = 0; k < 3 && equal; ++k) // most changed rotations differ in the first
            equal = q.stable_quantize(sa.small[k]) == q.stable_quantize(sb.small[k]);
        if (equal)
            return true;
        if (q.exact && sa.gap >= type::tie_margin && sb.gap >= type::tie_margin)
            return false;
        detail::smallest_three_code ca = detail::quanta_of(sa, q);
        detail::smallest_three_code cb = detail::quanta_of(sb, q);
        detail::settle_largest(ca, q);
        detail::settle_largest(cb, q);
        return ca == cb;
    }

    /// Bit-packed: the ordinary encoding. Coded: the code the writer sends,
    /// as quat_code's delta (whether the largest axis moved, then the three
    /// quanta against the baseline's and the older state's codes re-expressed
    /// with the new axis), rebuilt on reading exactly as the codec reads it.
    template <class Stream>
    static bool delta_changed(Stream& stream, const type& older, const type& base, type& value)
    {
        if constexpr (!Stream::is_coded) {
            static_cast<void>(older);
            static_cast<void>(base);
            return bitrep::serialize(stream, value);
        } else {
            constexpr const detail::quantizer& q = type::component_quantizer;
            const std::size_t start = stream.position();
            detail::smallest_three_code code;
            if constexpr (!Stream::is_reading) {
                const float norm = value.x * value.x + value.y * value.y + value.z * value.z + value.w * value.w;
                if (!(std::fabs(norm - 1.0f) <= 0.01f)) [[unlikely]]
                    return stream.fail(error::value_out_of_range, start,
                                       "quaternion is not unit length (|q|^2 off by more than 1%)");
                code = code_of(value);
            }
            if (!detail::coded_smallest_three(stream, code, code_of(base), code_of(older), q.max_integer, &in_frame))
                return false;
            if constexpr (Stream::is_reading) {
                // As serialize_smallest_three reads a code.
                float sum = 0.0f;
                for (std::uint32_t k = 0; k < 3; ++k) {
                    float& component = value.*detail::quat_components<type>[k + (k >= code.largest ? 1u : 0u)];
                    component = q.dequantize(code.quanta[k]);
                    sum = detail::add_square(sum, component);
                }
                if (sum > 1.0f) [[unlikely]]
                    return stream.fail(error::out_of_range, start, "smallest-three components exceed unit length");
                value.*detail::quat_components<type>[code.largest] = std::sqrt(1.0f - sum);
            }
            return true;
        }
    }

private:
    /// The code the writer sends for q (the baseline's and the older state's
    /// are what the receiver decoded: their codes are those it was sent).
    static detail::smallest_three_code code_of(const type& v) noexcept
    {
        const detail::smallest_three s =
            detail::stable_smallest_three(v.x, v.y, v.z, v.w, type::component_quantizer, type::tie_margin);
        return detail::quanta_of(s, type::component_quantizer);
    }
    /// A code's rotation as it would be sent with `axis` largest: the
    /// components rebuilt as a reader does, sign-folded, quantized again.
    static detail::smallest_three_code in_frame(const detail::smallest_three_code& code, std::uint32_t axis) noexcept
    {
        if (code.largest == axis)
            return code;
        constexpr const detail::quantizer& q = type::component_quantizer;
        float c[4] = {};
        float sum = 0.0f;
        for (std::uint32_t k = 0; k < 3; ++k) {
            c[k + (k >= code.largest ? 1u : 0u)] = q.dequantize(code.quanta[k]);
            sum = detail::add_square(sum, c[k + (k >= code.largest ? 1u : 0u)]);
        }
        c[code.largest] = sum <= 1.0f ? std::sqrt(1.0f - sum) : 0.0f;
        const bool flip = c[axis] < 0.0f;
        detail::smallest_three_code out;
        out.largest = axis;
        for (std::uint32_t k = 0; k < 3; ++k) {
            const float component = c[k + (k >= axis ? 1u : 0u)];
            out.quanta[k] = q.stable_quantize(flip ? -component : component);
        }
        return out;
    }
};

/// Smallest-three codes: bit-packed, the code as a whole. Coded: whether the
/// largest axis moved (and to which of the other three), then each small
/// component as a residual against the baseline and the state before it,
/// both re-expressed with the new largest axis, so a rotation that crosses
/// an axis costs little more than one that does not.
template <int Bits>
struct delta_codec<quat_code<Bits>> : detail::delta_by_changed_bit<quat_code<Bits>> {
    using type = quat_code<Bits>;
    static constexpr std::size_t coded_slots = 2; // the axis; the three components
    static constexpr std::size_t max_changed_bits() { return max_bits<type>; }
    template <scope>
    static bool same(const type& a, const type& b) noexcept
    {
        return a == b;
    }
    template <class Stream>
    static bool delta_changed(Stream& stream, const type& older, const type& base, type& value)
    {
        if constexpr (!Stream::is_coded) {
            static_cast<void>(older);
            static_cast<void>(base);
            return bitrep::serialize(stream, value);
        } else {
            detail::smallest_three_code code;
            if constexpr (!Stream::is_reading) {
                if (value.largest.value() > 3) [[unlikely]]
                    return stream.fail(error::value_out_of_range, stream.position(), "largest axis outside 0-3");
                code = code_of(value);
            }
            if (!detail::coded_smallest_three(stream, code, code_of(base), code_of(older), type::max, &in_frame))
                return false;
            if constexpr (Stream::is_reading) {
                value.largest = static_cast<std::uint8_t>(code.largest);
                for (std::size_t k = 0; k < 3; ++k)
                    value.small[k] = static_cast<std::uint16_t>(code.quanta[k]);
            }
            return true;
        }
    }

private:
    static detail::smallest_three_code code_of(const type& v) noexcept
    {
        detail::smallest_three_code code;
        code.largest = v.largest.value();
        for (std::size_t k = 0; k < 3; ++k)
            code.quanta[k] = v.small[k].value();
        return code;
    }
    static detail::smallest_three_code in_frame(const detail::smallest_three_code& code, std::uint32_t axis) noexcept
    {
        type v;
        v.largest = static_cast<std::uint8_t>(code.largest);
        for (std::size_t k = 0; k < 3; ++k)
            v.small[k] = static_cast<std::uint16_t>(code.quanta[k]);
        const std::array<std::int64_t, 3> moved = detail::quat_code_in_frame(v, axis);
        detail::smallest_three_code out;
        out.largest = axis;
        for (std::size_t k = 0; k < 3; ++k)
            out.quanta[k] = static_cast<std::uint32_t>(std::clamp<std::int64_t>(moved[k], 0, type::max));
        return out;
    }
};

/// save_only / net_only / transient: nothing at all (not even the changed
/// bit) when the stream's scope does not carry the field; reading then
/// takes the baseline's value.
template <class T, field_flag Flag>
struct delta_codec<flagged<T, Flag>> {
    using type = flagged<T, Flag>;
    // Bounds over every scope: the field's own when some scope carries it. A
    // transient field's type need not be encodable (a cache may be a
    // std::string), so nothing here may name its codecs.
    static constexpr std::size_t max_delta_bits()
    {
        if constexpr (Flag == field_flag::transient)
            return 0;
        else
            return delta_codec<T>::max_delta_bits();
    }
    static constexpr std::size_t max_changed_bits()
    {
        if constexpr (Flag == field_flag::transient)
            return 0;
        else
            return delta_codec<T>::max_changed_bits();
    }
    template <scope Scope>
    static constexpr bool carried()
    {
        return detail::flag_carried(Flag, Scope);
    }
    template <scope Scope>
    static bool same(const type& a, const type& b)
    {
        if constexpr (carried<Scope>())
            return delta_codec<T>::template same<Scope>(a.get(), b.get());
        else
            return true;
    }
    template <class Stream>
    BITREP_ALWAYS_INLINE static bool delta(Stream& stream, const type& older, const type& base, type& value)
    {
        if constexpr (carried<Stream::field_scope>()) {
            return delta_codec<T>::delta(stream, older.get(), base.get(), value.get());
        } else {
            if constexpr (Stream::is_reading)
                value = base;
            return true;
        }
    }
    template <class Stream>
    static bool delta_changed(Stream& stream, const type& older, const type& base, type& value)
    {
        if constexpr (carried<Stream::field_scope>()) {
            return delta_codec<T>::delta_changed(stream, older.get(), base.get(), value.get());
        } else {
            if constexpr (Stream::is_reading)
                value = base;
            return true;
        }
    }
};

/// Optionals: when changed, the presence bit; a value present on both sides
/// is sent as its delta against the baseline's, a new one in full.
template <class T>
struct delta_codec<std::optional<T>> : detail::delta_by_changed_bit<std::optional<T>> {
    using type = std::optional<T>;
    static constexpr std::size_t max_changed_bits()
    {
        return detail::add_bits(1, std::max(max_bits<T>, delta_codec<T>::max_changed_bits()));
    }
    template <scope Scope>
    static bool same(const type& a, const type& b)
    {
        if (a.has_value() != b.has_value())
            return false;
        return !a.has_value() || delta_codec<T>::template same<Scope>(*a, *b);
    }
    template <class Stream>
    static bool delta_changed(Stream& stream, const type& older, const type& base, type& value)
    {
        bool present = false;
        if (!detail::serialize_presence(stream, value, present))
            return false;
        if (!present)
            return true;
        [[maybe_unused]] const auto slot = stream.enter_slot(1);
        if (base.has_value())
            return delta_codec<T>::delta_changed(stream, older.has_value() ? *older : *base, *base, *value);
        return bitrep::serialize(stream, *value);
    }
};

/// Variants: when changed, whether the alternative switched from the
/// baseline's. Not switched: the alternative's delta against the
/// baseline's. Switched: the new alternative's index among the other
/// count - 1 (enum_index_bits(count - 1) bits: none for two alternatives),
/// then the value in full. On the coded streams the decision and the index
/// use the variant's own model slot, each alternative its own slots.
template <class... Ts>
struct delta_codec<std::variant<Ts...>> : detail::delta_by_changed_bit<std::variant<Ts...>> {
    using type = std::variant<Ts...>;
    static constexpr std::size_t count = sizeof...(Ts);
    static constexpr std::size_t max_changed_bits()
    {
        const std::size_t same_alternative = std::max({delta_codec<Ts>::max_changed_bits()...});
        const std::size_t switched = count < 2 ? 0
                                               : detail::add_bits(static_cast<std::size_t>(detail::enum_index_bits(count - 1)),
                                                                  std::max({max_bits<Ts>...}));
        return detail::add_bits(1, std::max(same_alternative, switched));
    }
    static constexpr std::size_t coded_slots = (std::size_t{1} + ... + detail::coded_slot_count<Ts>());

    template <scope Scope>
    static bool same(const type& a, const type& b)
    {
        if (a.index() != b.index() || a.valueless_by_exception())
            return false;
        return detail::with_index<count>(a.index(), [&](auto i) {
            constexpr std::size_t I = decltype(i)::value;
            return delta_codec<std::variant_alternative_t<I, type>>::template same<Scope>(*std::get_if<I>(&a),
                                                                                         *std::get_if<I>(&b));
        });
    }

    template <class Stream>
    static bool delta_changed(Stream& stream, const type& older, const type& base, type& value)
    {
        const std::size_t start = stream.position();
        if constexpr (!Stream::is_reading) {
            if (value.valueless_by_exception() || base.valueless_by_exception()) [[unlikely]]
                return stream.fail(error::value_out_of_range, start, "variant valueless by exception");
        }
        const std::size_t from = base.index(); // a baseline the receiver holds holds an alternative
        bool switched = value.index() != from;
        if (!stream.serialize_bool(switched))
            return false;
        if (!switched) {
            return detail::with_index<count>(from, [&](auto i) {
                constexpr std::size_t I = decltype(i)::value;
                using alternative = std::variant_alternative_t<I, type>;
                [[maybe_unused]] const auto slot = stream.enter_slot(offset<I>());
                alternative* now;
                if constexpr (Stream::is_reading)
                    now = &detail::hold_alternative<I>(value);
                else
                    now = std::get_if<I>(&value);
                const alternative& was = *std::get_if<I>(&base);
                const alternative* was_older = std::get_if<I>(&older);
                if (delta_codec<alternative>::delta_changed(stream, was_older != nullptr ? *was_older : was, was, *now))
                    [[likely]]
                    return true;
                detail::enter_alternative<alternative>(stream.failure());
                return false;
            });
        }
        if constexpr (count < 2) {
            return stream.fail(error::bad_enum, start, "variant switched, but it has one alternative");
        } else {
            // The index among the alternatives other than the baseline's.
            // (A reader's target may hold anything: it starts from 0.)
            std::uint64_t other = 0;
            if constexpr (!Stream::is_reading)
                other = value.index() < from ? value.index() : value.index() - 1;
            if (!detail::serialize_alternative_index(stream, other, count - 1, stream.position()))
                return false;
            const std::size_t to = other < from ? static_cast<std::size_t>(other) : static_cast<std::size_t>(other) + 1;
            return detail::with_index<count>(to, [&](auto i) {
                constexpr std::size_t I = decltype(i)::value;
                [[maybe_unused]] const auto slot = stream.enter_slot(offset<I>());
                return codec<type>::template serialize_alternative<I>(stream, value);
            });
        }
    }

private:
    /// Alternative I's first model slot, past the variant's own.
    template <std::size_t I>
    static constexpr std::size_t offset()
    {
        return [&]<std::size_t... J>(std::index_sequence<J...>) {
            return (std::size_t{1} + ... + detail::coded_slot_count<std::variant_alternative_t<J, type>>());
        }(std::make_index_sequence<I>{});
    }
};

/// Bitsets change as a whole: the N bits again.
template <std::size_t N>
struct delta_codec<std::bitset<N>> : detail::delta_as_whole<std::bitset<N>> {
    template <scope>
    static bool same(const std::bitset<N>& a, const std::bitset<N>& b) noexcept
    {
        return a == b;
    }
};

/// Proxies (durations, adapted math types): their wire type's delta (a
/// ranged count as a residual on the coded streams, so a cooldown ticking
/// down costs a few bits).
template <class T>
    requires detail::proxied<T>
struct delta_codec<T> : detail::delta_by_changed_bit<T> {
    using traits = detail::proxy_traits<T>;
    using wire = typename traits::wire;
    static constexpr std::size_t coded_slots = detail::coded_slot_count<wire>();
    static constexpr std::size_t max_changed_bits() { return delta_codec<wire>::max_changed_bits(); }
    template <scope Scope>
    static bool same(const T& a, const T& b)
    {
        return delta_codec<wire>::template same<Scope>(traits::to_wire(a), traits::to_wire(b));
    }
    template <class Stream>
    static bool delta_changed(Stream& stream, const T& older, const T& base, T& value)
    {
        wire now{};
        if constexpr (!Stream::is_reading)
            now = traits::to_wire(value);
        if (!delta_codec<wire>::delta_changed(stream, traits::to_wire(older), traits::to_wire(base), now))
            return false;
        if constexpr (Stream::is_reading)
            traits::from_wire(value, now);
        return true;
    }
};

/// Pairs and tuples: as an aggregate's fields, a delta per member (members
/// of one type sharing their model slots on the coded streams, as fields
/// do).
template <class T>
    requires detail::std_tuple<T>
struct delta_codec<T> : detail::delta_by_changed_bit<T> {
    static constexpr std::size_t size = std::tuple_size_v<T>;
    static constexpr std::size_t max_changed_bits()
    {
        return detail::fold_member_types<T>(
            0, []<class Member>() { return delta_codec<Member>::max_delta_bits(); }, detail::add_bits);
    }
    static constexpr std::size_t coded_slots = std::max<std::size_t>(
        1, detail::fold_member_types<T>(
               0, []<class Member>() { return detail::coded_slot_count<Member>(); }, detail::add_bits));

    template <scope Scope>
    static bool same(const T& a, const T& b)
    {
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return (delta_codec<std::tuple_element_t<I, T>>::template same<Scope>(std::get<I>(a), std::get<I>(b)) &&
                    ...);
        }(std::make_index_sequence<size>{});
    }
    template <class Stream>
    static bool delta_changed(Stream& stream, const T& older, const T& base, T& value)
    {
        stream.begin_entity();
        return detail::for_each_member(value, [&](auto& member, auto i) BITREP_LAMBDA_ALWAYS_INLINE {
            constexpr std::size_t I = decltype(i)::value;
            [[maybe_unused]] const auto slot = stream.enter_slot(detail::coded_shared_offset<detail::member_types<T>, I>());
            if (delta_codec<std::tuple_element_t<I, T>>::delta(stream, std::get<I>(older), std::get<I>(base), member))
                [[likely]]
                return true;
            stream.failure().enter_position(I);
            return false;
        });
    }
};

/// Arrays: the changed elements (at least one when the array changed).
template <class T, std::size_t N>
struct delta_codec<std::array<T, N>> : detail::delta_by_changed_bit<std::array<T, N>> {
    using type = std::array<T, N>;
    /// The list form is used only when shorter than the bitmask.
    static constexpr std::size_t max_changed_bits()
    {
        return detail::add_bits(1 + N, detail::multiply_bits(N, delta_codec<T>::max_changed_bits()));
    }
    template <scope Scope>
    static bool same(const type& a, const type& b)
    {
        return detail::same_elements<Scope>(a, b, N);
    }
    template <class Stream>
    static bool delta_changed(Stream& stream, const type& older, const type& base, type& value)
    {
        return detail::delta_elements<N>(stream, older, base, value, N, 1);
    }
};

/// Entity slots: the array of optional slots they are encoded as, so a
/// created entity is sent in full, a destroyed one as its cleared presence
/// bit and a changed one as its delta.
template <class T, std::size_t N>
struct delta_codec<entity_array<T, N>> : detail::delta_by_changed_bit<entity_array<T, N>> {
    using type = entity_array<T, N>;
    using slots = delta_codec<typename type::slots_type>;
    static constexpr std::size_t max_changed_bits() { return slots::max_changed_bits(); }
    template <scope Scope>
    static bool same(const type& a, const type& b)
    {
        return slots::template same<Scope>(a.slots(), b.slots());
    }
    template <class Stream>
    static bool delta_changed(Stream& stream, const type& older, const type& base, type& value)
    {
        using access = detail::entity_array_access;
        if constexpr (Stream::is_reading)
            return access::rewrite(value, [&](auto& all) { return slots::delta_changed(stream, older.slots(), base.slots(), all); });
        else
            return slots::delta_changed(stream, older.slots(), base.slots(), access::slots(value));
    }
};

/// Bounded vectors: the size, the changed elements among those both sides
/// have, then each element past the baseline's size in full.
template <class T, std::size_t MaxSize>
    requires(!std::is_same_v<T, bool>) // vector<bool> has no element references: it changes as a whole
struct delta_codec<bounded_vector<T, MaxSize>> : detail::delta_by_changed_bit<bounded_vector<T, MaxSize>> {
    using type = bounded_vector<T, MaxSize>;
    static constexpr std::size_t max_changed_bits()
    {
        const std::size_t each = std::max(max_bits<T>, delta_codec<T>::max_changed_bits());
        return detail::add_bits(static_cast<std::size_t>(bits_required_for_span(MaxSize)) + 1 + MaxSize,
                                detail::multiply_bits(MaxSize, each));
    }
    template <scope Scope>
    static bool same(const type& a, const type& b)
    {
        return a.size() == b.size() && detail::same_elements<Scope>(a.vector(), b.vector(), a.size());
    }
    template <class Stream>
    static bool delta_changed(Stream& stream, const type& older, const type& base, type& value)
    {
        std::uint64_t size = value.size();
        const std::size_t start = stream.position();
        // Measuring refuses too: delta_elements keeps at most MaxSize indices.
        if constexpr (!Stream::is_reading) {
            if (size > MaxSize) [[unlikely]]
                return stream.fail(error::value_out_of_range, start, "vector longer than its bound");
        }
        if (!stream.serialize_ranged_offset(size, MaxSize))
            return false;
        const std::size_t common = std::min(base.size(), static_cast<std::size_t>(size));
        if constexpr (Stream::is_reading) {
            constexpr std::size_t each = codec<T>::min_bits();
            if (each != 0 && size - common > stream.bits_remaining() / each) [[unlikely]]
                return stream.fail(error::truncated, stream.position(), "vector elements past the end of the input");
            detail::resize_for_decode(value, static_cast<std::size_t>(size));
        }
        if (!detail::delta_elements<MaxSize>(stream, older.vector(), base.vector(), value.vector(), common, 0))
            return false;
        [[maybe_unused]] const auto slot = stream.enter_slot(1);
        for (std::size_t i = common; i < size; ++i) {
            if (!bitrep::serialize(stream, value[i])) [[unlikely]] {
                stream.enter_index(i);
                return false;
            }
        }
        return true;
    }
};

/// Bounded maps and sets: which of the baseline's entries were removed,
/// which of a map's changed (with the value's delta) and the entries
/// inserted, in full. Entries are named by their index in the baseline's
/// key order, ascending, each bounded by the ones still to come
/// (docs/wire-format.md, section 6.3).
template <class T>
    requires detail::keyed_container<T>
struct delta_codec<T> : detail::delta_by_changed_bit<T> {
    using traits = detail::keyed_traits<T>;
    using key_type = typename traits::key_type;
    using entry = typename traits::entry;
    using sorted = std::vector<const entry*>;
    static constexpr std::size_t N = traits::max_entries;
    static constexpr std::size_t key_slots = detail::coded_slot_count<key_type>();
    static constexpr std::size_t coded_slots = [] {
        if constexpr (traits::has_values)
            return 1 + key_slots + detail::coded_slot_count<typename traits::mapped_type>();
        else
            return 1 + key_slots;
    }();

    static constexpr std::size_t max_changed_bits()
    {
        const auto count = static_cast<std::size_t>(bits_required_for_span(N));
        std::size_t each_changed = count;
        if constexpr (traits::has_values)
            each_changed = detail::add_bits(count, delta_codec<typename traits::mapped_type>::max_changed_bits());
        return detail::add_bits(
            3 * count, detail::add_bits(detail::multiply_bits(N, count),
                                        detail::add_bits(detail::multiply_bits(N, each_changed),
                                                         detail::multiply_bits(N, codec<T>::entry_max_bits()))));
    }

    template <scope Scope>
    static bool same(const T& a, const T& b)
    {
        const auto& x = traits::entries(a);
        const auto& y = traits::entries(b);
        if (x.size() != y.size())
            return false;
        for (const auto& e : x) {
            const auto it = y.find(traits::key_of(e));
            if (it == y.end())
                return false;
            if constexpr (traits::has_values) {
                using V = typename traits::mapped_type;
                if (!detail::identical_bytes(e.second, it->second) &&
                    !delta_codec<V>::template same<Scope>(e.second, it->second))
                    return false;
            }
        }
        return true;
    }

    template <class Stream>
    static bool delta_changed(Stream& stream, const T& older, const T& base, T& value)
    {
        if constexpr (Stream::is_reading) {
            // The baseline's entries are named by index while value is
            // rebuilt: a value that is the baseline (or older) is read
            // into from a copy.
            if (std::addressof(value) == std::addressof(base) || std::addressof(value) == std::addressof(older)) {
                const T base_copy = base;
                const T older_copy = older;
                return read_delta(stream, older_copy, base_copy, value);
            }
            return read_delta(stream, older, base, value);
        } else {
            return write_delta(stream, older, base, value);
        }
    }

private:
    enum class step : std::uint8_t { removed, kept, inserted };

    /// Walks the baseline's and the value's entries in key order together.
    template <class F>
    static void merge(const sorted& b, const sorted& v, F&& f)
    {
        std::size_t i = 0;
        std::size_t j = 0;
        while (i < b.size() || j < v.size()) {
            if (j == v.size() || (i < b.size() && traits::key_of(*b[i]) < traits::key_of(*v[j])))
                f(step::removed, i++, j);
            else if (i == b.size() || traits::key_of(*v[j]) < traits::key_of(*b[i]))
                f(step::inserted, i, j++);
            else
                f(step::kept, i++, j++);
        }
    }

    /// The next of ascending indices below `size`, at or above `lowest`,
    /// with `left` more to come after it: its offset from lowest, bounded so
    /// that the rest still fit.
    template <class Stream>
    static bool serialize_index(Stream& stream, std::uint64_t& index, std::uint64_t& lowest, std::uint64_t left,
                                std::uint64_t size)
    {
        std::uint64_t offset = index - lowest;
        if (!stream.serialize_ranged_offset(offset, size - 1 - left - lowest))
            return false;
        index = lowest + offset;
        lowest = index + 1;
        return true;
    }

    static const entry* older_or(const T& older, const entry& base_entry)
    {
        const auto& entries = traits::entries(older);
        const auto it = entries.find(traits::key_of(base_entry));
        return it == entries.end() ? std::addressof(base_entry) : std::addressof(*it);
    }

    template <class Stream>
    static bool value_changed(const entry& a, const entry& b)
    {
        if constexpr (traits::has_values) {
            using V = typename traits::mapped_type;
            return !detail::identical_bytes(a.second, b.second) &&
                   !delta_codec<V>::template same<Stream::field_scope>(a.second, b.second);
        } else {
            return false;
        }
    }

    template <class Stream>
    static bool write_delta(Stream& stream, const T& older, const T& base, const T& value)
    {
        if (traits::entries(value).size() > N) [[unlikely]]
            return stream.fail(error::value_out_of_range, stream.position(),
                               traits::has_values ? "map larger than its bound" : "set larger than its bound");
        const sorted& b = detail::sorted_entries<T, 0>(base);
        const sorted& v = detail::sorted_entries<T, 1>(value);
        std::uint64_t removed = 0;
        std::uint64_t changed = 0;
        std::uint64_t inserted = 0;
        merge(b, v, [&](step s, std::size_t i, std::size_t j) {
            removed += s == step::removed;
            inserted += s == step::inserted;
            changed += s == step::kept && value_changed<Stream>(*b[i], *v[j]);
        });
        bool ok = stream.serialize_ranged_offset(removed, b.size());
        std::uint64_t lowest = 0;
        std::uint64_t left = removed;
        merge(b, v, [&](step s, std::size_t i, std::size_t) {
            if (ok && s == step::removed) {
                std::uint64_t index = i;
                ok = serialize_index(stream, index, lowest, --left, b.size());
            }
        });
        if constexpr (traits::has_values) {
            using V = typename traits::mapped_type;
            ok = ok && stream.serialize_ranged_offset(changed, b.size() - removed);
            lowest = 0;
            left = changed;
            std::size_t n = 0;
            merge(b, v, [&](step s, std::size_t i, std::size_t j) {
                if (!ok || s != step::kept || !value_changed<Stream>(*b[i], *v[j]))
                    return;
                std::uint64_t index = i;
                ok = serialize_index(stream, index, lowest, --left, b.size());
                [[maybe_unused]] const auto slot = stream.enter_slot(1 + key_slots);
                stream.begin_entity();
                ok = ok && delta_codec<V>::delta_changed(stream, older_or(older, *b[i])->second, b[i]->second,
                                                         const_cast<V&>(v[j]->second)); // written, never stored to
                if (!ok)
                    stream.enter_index(n);
                ++n;
            });
        }
        ok = ok && stream.serialize_ranged_offset(inserted, N - (b.size() - removed));
        std::size_t n = 0;
        merge(b, v, [&](step s, std::size_t, std::size_t j) {
            if (!ok || s != step::inserted)
                return;
            [[maybe_unused]] const auto slot = stream.enter_slot(1);
            ok = detail::write_entry<traits>(stream, *v[j]);
            if (!ok)
                stream.enter_index(n);
            ++n;
        });
        return ok;
    }

    template <class Stream>
    static bool read_delta(Stream& stream, const T& older, const T& base, T& value)
    {
        const sorted& b = detail::sorted_entries<T, 0>(base);
        auto& entries = traits::entries(value);
        entries = traits::entries(base);
        std::uint64_t removed = 0;
        if (!stream.serialize_ranged_offset(removed, b.size()))
            return false;
        std::uint64_t lowest = 0;
        for (std::uint64_t left = removed; left-- > 0;) {
            std::uint64_t index = 0;
            if (!serialize_index(stream, index, lowest, left, b.size()))
                return false;
            entries.erase(traits::key_of(*b[index]));
        }
        if constexpr (traits::has_values) {
            using V = typename traits::mapped_type;
            std::uint64_t changed = 0;
            if (!stream.serialize_ranged_offset(changed, b.size() - removed))
                return false;
            lowest = 0;
            for (std::uint64_t n = 0, left = changed; left-- > 0; ++n) {
                const std::size_t start = stream.position();
                std::uint64_t index = 0;
                if (!serialize_index(stream, index, lowest, left, b.size()))
                    return false;
                const auto it = entries.find(traits::key_of(*b[index]));
                if (it == entries.end()) [[unlikely]]
                    return stream.fail(error::out_of_range, start, "a changed entry the delta removed");
                [[maybe_unused]] const auto slot = stream.enter_slot(1 + key_slots);
                stream.begin_entity();
                if (!delta_codec<V>::delta_changed(stream, older_or(older, *b[index])->second, b[index]->second,
                                                   it->second)) [[unlikely]] {
                    stream.enter_index(static_cast<std::size_t>(n));
                    return false;
                }
            }
        }
        std::uint64_t inserted = 0;
        if (!stream.serialize_ranged_offset(inserted, N - (b.size() - removed)))
            return false;
        if (!detail::count_fits_input(stream, inserted, codec<T>::entry_min_bits()))
            return false;
        [[maybe_unused]] const auto slot = stream.enter_slot(1);
        return detail::read_entries<traits>(stream, entries, inserted);
    }
};

/// delta_small: the step in quanta (or integer steps) from the baseline when
/// it is at most MaxStep, else the absolute value.
template <class V, std::uint32_t MaxStep>
struct delta_codec<delta_small<V, MaxStep>> : detail::delta_by_changed_bit<delta_small<V, MaxStep>> {
    using type = delta_small<V, MaxStep>;
    static constexpr std::size_t max_changed_bits()
    {
        constexpr std::size_t step_bits = static_cast<std::size_t>(bits_required_for_span(2 * std::uint64_t{MaxStep} - 1));
        return 1 + std::max(step_bits, max_bits<V>);
    }

    template <scope Scope>
    static bool same(const type& a, const type& b)
    {
        return delta_codec<V>::template same<Scope>(a, b);
    }
    template <class Stream>
    static bool delta_changed(Stream& stream, const type& older, const type& base, type& value)
    {
        // The coded streams' residuals are the general case of this tuned one.
        if constexpr (Stream::is_coded)
            return detail::delta_changed_leaf(stream, static_cast<const V&>(older), static_cast<const V&>(base),
                                              static_cast<V&>(value));
        // Steps -MaxStep..-1 and 1..MaxStep as codes 0..2*MaxStep-1.
        constexpr std::uint64_t code_span = 2 * std::uint64_t{MaxStep} - 1;
        using number = detail::numeric_index<V>;
        std::uint64_t from = 0;
        number::get(base, from); // a baseline the receiver holds is in range
        bool small = false;
        std::uint64_t code = 0;
        if constexpr (!Stream::is_reading) {
            if (std::uint64_t to = 0; number::get(value, to) && to <= number::span) {
                if (to > from && to - from <= MaxStep) {
                    small = true;
                    code = MaxStep - 1 + (to - from);
                } else if (to < from && from - to <= MaxStep) {
                    small = true;
                    code = MaxStep - (from - to);
                }
            }
        }
        if (!stream.serialize_bool(small))
            return false;
        if (!small)
            return bitrep::serialize(stream, static_cast<V&>(value));
        const std::size_t start = stream.position();
        if (!stream.serialize_ranged_offset(code, code_span))
            return false;
        if constexpr (Stream::is_reading) {
            const bool up = code >= MaxStep;
            const std::uint64_t step = up ? code - (MaxStep - 1) : MaxStep - code;
            if (up ? step > number::span - from : step > from) [[unlikely]]
                return stream.fail(error::out_of_range, start, "small change steps outside the range");
            number::set(value, up ? from + step : from - step);
        }
        return true;
    }
};

namespace detail {
/// The streams the library's engine runs deltas on (engine/delta.hpp).
template <class Stream>
inline constexpr bool engine_delta_stream =
    std::is_same_v<Stream, basic_write_stream<Stream::field_scope>> ||
    std::is_same_v<Stream, basic_read_stream<Stream::field_scope>> ||
    std::is_same_v<Stream, basic_measure_stream<Stream::field_scope>> ||
    std::is_same_v<Stream, basic_coded_write_stream<Stream::field_scope>> ||
    std::is_same_v<Stream, basic_coded_read_stream<Stream::field_scope>>;

/// Whether T's deltas run on the engine: a type not opted into the inlined
/// codecs, whose kinds the engine has delta rules for.
template <class T>
constexpr bool deltas_by_engine()
{
    if constexpr (path_of<T> != codec_path::engine)
        return false;
    else
        return engine::runs_delta(engine::entry_v<T>);
}
template <class T, class Stream>
constexpr bool delta_by_engine()
{
    if constexpr (!engine_delta_stream<Stream>)
        return false;
    else
        return deltas_by_engine<T>();
}

/// A delta (the changed bit, then what changed), on the engine where it
/// runs T's, else through delta_codec<T>.
template <class Stream, class T>
BITREP_ALWAYS_INLINE bool run_delta(Stream& stream, const T& older, const T& base, T& value)
{
    if constexpr (delta_by_engine<T, Stream>())
        return engine::delta(stream, engine::entry_v<T>, &older, &base, &value);
    else
        return delta_codec<T>::delta(stream, older, base, value);
}

/// What changed of a value known to have changed (no changed bit).
template <class Stream, class T>
BITREP_ALWAYS_INLINE bool run_changed(Stream& stream, const T& older, const T& base, T& value)
{
    if constexpr (delta_by_engine<T, Stream>())
        return engine::changed(stream, engine::entry_v<T>, &older, &base, &value);
    else
        return delta_codec<T>::delta_changed(stream, older, base, value);
}

/// Whether a and b are equal on the wire in Scope's streams: a delta of one
/// against the other is one bit.
template <scope Scope, class T>
BITREP_ALWAYS_INLINE bool same_on_wire(const T& a, const T& b)
{
    if constexpr (deltas_by_engine<T>())
        return engine::same<Scope>(engine::entry_v<T>, &a, &b);
    else
        return delta_codec<T>::template same<Scope>(a, b);
}

/// The most bits a delta of a T takes, and a changed T's delta after its
/// changed bit.
template <class T>
constexpr std::size_t max_delta_bits_of()
{
    if constexpr (deltas_by_engine<T>())
        return engine::max_delta_bits(engine::entry_v<T>);
    else
        return delta_codec<T>::max_delta_bits();
}
template <class T>
constexpr std::size_t max_changed_bits_of()
{
    if constexpr (deltas_by_engine<T>())
        return engine::max_changed_bits(engine::entry_v<T>);
    else
        return delta_codec<T>::max_changed_bits();
}
} // namespace detail

/// Writes `current` as a delta against `baseline` (which the receiver must
/// hold exactly as the sender's quantization rebuilds it).
template <class Stream, class T>
[[nodiscard]] bool write_delta(Stream& stream, const T& baseline, const T& current)
{
    static_assert(!Stream::is_reading, "bitrep::write_delta: use read_delta with a read stream");
    return detail::run_delta(stream, baseline, baseline, const_cast<T&>(current));
}

/// write_delta with the state the baseline was itself sent against, which
/// the receiver also holds: the coded streams predict from it. On the
/// bit-packed streams the bytes are those of write_delta(stream, baseline, current).
template <class Stream, class T>
[[nodiscard]] bool write_delta(Stream& stream, const T& older, const T& baseline, const T& current)
{
    static_assert(!Stream::is_reading, "bitrep::write_delta: use read_delta with a read stream");
    return detail::run_delta(stream, older, baseline, const_cast<T&>(current));
}

/// Reads a delta written against `baseline` into `out`: every carried part of
/// `out` is assigned. `out` must not be `baseline`. On failure `out` is
/// partly written and the stream's status says where; decode into a working
/// copy for all-or-nothing (replication_client does).
template <class Stream, class T>
[[nodiscard]] bool read_delta(Stream& stream, const T& baseline, T& out)
{
    static_assert(Stream::is_reading, "bitrep::read_delta needs a read stream");
    return detail::run_delta(stream, baseline, baseline, out);
}

/// read_delta of what write_delta(stream, older, baseline, current) wrote.
template <class Stream, class T>
[[nodiscard]] bool read_delta(Stream& stream, const T& older, const T& baseline, T& out)
{
    static_assert(Stream::is_reading, "bitrep::read_delta needs a read stream");
    return detail::run_delta(stream, older, baseline, out);
}

/// The exact number of bits write_delta writes (in scope Scope).
template <scope Scope = scope::all, class T>
std::size_t delta_bit_size(const T& baseline, const T& current)
{
    failure_record failure;
    basic_measure_stream<Scope> stream(failure);
    static_cast<void>(write_delta(stream, baseline, current));
    return stream.exact_bits();
}

namespace detail {
template <class T>
constexpr std::size_t coded_slot_count()
{
    // Containers are recognised before classes, so that no codec is named
    // for a type that has none (a transient std::string).
    if constexpr (requires { delta_codec<T>::coded_slots; })
        return delta_codec<T>::coded_slots; // kinds that say
    else if constexpr (requires { typename T::slots_type; })
        return coded_slot_count<typename T::slots_type>(); // entity_array
    else if constexpr (requires { T::flag; typename T::value_type; })
        return T::flag == field_flag::transient ? 1 : coded_slot_count<typename T::value_type>(); // flagged
    else if constexpr (requires { typename T::value_type; std::declval<T&>()[0]; } ||
                       requires { typename T::value_type; std::declval<T&>().has_value(); })
        return 1 + coded_slot_count<typename T::value_type>(); // containers and optionals
    else if constexpr (walked_class<T>)
        return std::max<std::size_t>(1, coded_slots_before<field_types<T>, reflect::field_count<T>>());
    else
        return 1;
}
} // namespace detail

} // namespace bitrep
