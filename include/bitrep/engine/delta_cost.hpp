// The one model of what a delta spends saying which elements of an array,
// vector or entity array changed: the engine's encoder (src/engine/delta.cpp)
// picks its form by it, and replication_server plans its packets by it
// (src/replication/server/selection.hpp), so the two cannot drift apart.
// Both folders of src/ include it from here rather than one reaching into
// the other's; what it computes is the wire format's
// (docs/formats/wire-format.md, section 6.3).
#pragma once

#include <cstddef>
#include <cstdint>

#include <bitrep/wire/bits.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep::detail {

/// The `previous` of the first listed index: the list counts from -1.
inline constexpr std::size_t no_listed_index = static_cast<std::size_t>(-1);

/// The bits of one index in the list: int_relative from the one listed
/// before it. From no_listed_index it bounds the index wherever it is listed.
constexpr std::size_t listed_index_bits(std::size_t index, std::size_t previous) noexcept
{
    return int_relative_bits(index - previous);
}

/// How delta_elements says which elements changed, and what that costs.
struct changed_elements_form {
    bool index_list; ///< else the bitmask
    std::size_t bits;
};

/// The form of `common` elements with `index_bits` (the sum of their
/// listed_index_bits) changed: the index list (the count, an offset from
/// min_count, then the indices) only when shorter than the bitmask (a bit
/// per element), after the one bit that says which. The changed elements'
/// own deltas are not counted.
constexpr changed_elements_form changed_elements_form_of(std::size_t common, std::size_t min_count,
                                                         std::size_t index_bits) noexcept
{
    const std::size_t list = static_cast<std::size_t>(bits_required_for_span(common - min_count)) + index_bits;
    const bool index_list = list < common;
    return {index_list, 1 + (index_list ? list : common)};
}

// The worked examples of docs/formats/wire-format.md, section 6.3: elements 5 and 9 of 16
// are listed (4 + 5 + 5 < 16 bits); one entity of 1024 at slot 700 is
// listed in 1 + 10 + 18 bits; every slot changed goes as a bitmask.
static_assert(changed_elements_form_of(16, 1, listed_index_bits(5, no_listed_index) + listed_index_bits(9, 5)).bits ==
              1 + 14);
static_assert(changed_elements_form_of(1024, 1, listed_index_bits(700, no_listed_index)).bits == 1 + 10 + 18);
static_assert(!changed_elements_form_of(1024, 1, 1024 * listed_index_bits(1, 0)).index_list);

} // namespace bitrep::detail
