// The delta walk's rotations (delta_walk.hpp): a quat's or a quat_code's
// smallest-three code on the coded streams, against the baseline's and the
// older state's codes.
#pragma once

#include <cmath>

#include "quat_frame.hpp"

#include "delta_walk.hpp"

namespace bitrep::engine {

namespace deltas {

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

template <class Stream>
bitrep::detail::smallest_three_code walk<Stream>::code_of(const field_entry& e, const quat_floats& v) noexcept
{
    const auto s = bitrep::detail::stable_smallest_three(v.x, v.y, v.z, v.w, e.quat.component, e.quat.tie_margin);
    return bitrep::detail::quanta_of(s, e.quat.component);
}

template <class Stream>
bitrep::detail::smallest_three_code walk<Stream>::in_frame(const field_entry& e,
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

template <class Stream>
bitrep::detail::smallest_three_code walk<Stream>::code_at(const field_entry& e, const bytes* p) noexcept
{
    const type_table& t = *e.nested;
    const bytes* small = p + field_offset(t, 1);
    bitrep::detail::smallest_three_code code;
    code.largest = static_cast<std::uint32_t>(load_integer(p + field_offset(t, 0), 1, false));
    for (std::size_t k = 0; k < 3; ++k)
        code.quanta[k] = static_cast<std::uint32_t>(load_integer(small + k * t.fields[1].stride, 2, false));
    return code;
}

template <class Stream>
void walk<Stream>::store_code(const field_entry& e, bytes* p, const bitrep::detail::smallest_three_code& code) noexcept
{
    const type_table& t = *e.nested;
    bytes* small = p + field_offset(t, 1);
    store_integer(p + field_offset(t, 0), 1, code.largest);
    for (std::size_t k = 0; k < 3; ++k)
        store_integer(small + k * t.fields[1].stride, 2, code.quanta[k]);
}

template <class Stream>
bool walk<Stream>::code_changed(const field_entry& e, const bytes* older, const bytes* base, bytes* value)
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

template <class Stream>
bool walk<Stream>::quat_changed(const field_entry& e, const bytes* older, const bytes* base, bytes* value)
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

} // namespace deltas

} // namespace bitrep::engine
