// quat<B>: smallest three (docs/formats/wire-format.md section 3).
#pragma once

#include <bitrep/annotations/quat.hpp>
#include <bitrep/codec.hpp>
#include <bitrep/kinds/quat.hpp>

namespace bitrep {

template <int Bits>
struct codec<quat<Bits>> {
    using type = quat<Bits>;

    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, type& value)
    {
        return detail::serialize_smallest_three(stream, value, type::component_quantizer, type::tie_margin);
    }
    static constexpr std::size_t max_bits() { return type::bits; }
    static constexpr std::size_t min_bits() { return type::bits; }
};

} // namespace bitrep
