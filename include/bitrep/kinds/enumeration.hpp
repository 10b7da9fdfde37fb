// The enumeration kind (an enum described with BOOST_DESCRIBE_ENUM): the
// value's declaration index among its enumerators.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include <bitrep/detail/portability.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/bits.hpp>

namespace bitrep {

/// An enum's enumerators: how many, and their values in declaration order
/// (sign-extended patterns), or nullptr when they are 0, 1, 2, ...
struct enumeration_params {
    std::uint64_t count;
    const std::uint64_t* values;
};

namespace detail {
/// The bits of an enum's declaration index among `count` enumerators.
constexpr int enum_index_bits(std::uint64_t count) noexcept { return bits_required_for_span(count - 1); }

/// An enumerator's declaration index among `count` (or a variant's
/// alternative's, with its own refusal); an index past them is refused
/// (bad_enum) when reading.
template <class Stream>
BITREP_ALWAYS_INLINE bool serialize_enum_index(Stream& stream, std::uint64_t& index, std::uint64_t count,
                                               std::size_t start,
                                               std::string_view refusal = "enum index is not an enumerator")
{
    const int bits = enum_index_bits(count);
    if (bits > 0 && !stream.serialize_bits(index, bits))
        return false;
    if (Stream::is_reading && index >= count) [[unlikely]]
        return stream.fail(error::bad_enum, start, refusal);
    return true;
}
} // namespace detail

} // namespace bitrep
