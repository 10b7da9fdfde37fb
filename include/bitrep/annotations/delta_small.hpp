// delta_small<V, MaxStep>: a quantized or ranged field whose small changes
// replicate as the difference (docs/formats/wire-format.md, section 6.4).
#pragma once

#include <cstdint>

namespace bitrep {

/// A quantized<...> or ranged<...> that behaves exactly as V everywhere
/// (to_bytes, saves, schemas) except in a delta against a baseline: a change
/// of at most MaxStep quanta (or integer steps) is sent as one flag bit and
/// the signed step in bits_required(0, 2 * MaxStep - 1) bits; a larger one
/// as the cleared flag and the absolute value.
template <class V, std::uint32_t MaxStep>
struct delta_small : V {
    static_assert(MaxStep >= 1, "delta_small: MaxStep must be at least 1");
    using annotated_type = V;
    static constexpr std::uint32_t max_step = MaxStep;

    using V::V;
    using V::operator=;
    constexpr delta_small() noexcept = default;
    constexpr delta_small(const V& value) noexcept : V(value) {}
};

} // namespace bitrep
