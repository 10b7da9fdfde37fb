// A type's own prediction for the coded deltas (docs/design/coded-deltas.md,
// "A prediction of the game's own"). A class that knows its physics supplies
//
//   static T predict(const bitrep::history<T>& h, std::uint32_t ticks_ahead);
//
// (or a free function predict(const bitrep::history<T>&, std::uint32_t)
// found by argument-dependent lookup), and the coded delta sends each of its
// changed numbers as the residual against the predicted value instead of
// the library's linear extrapolation. Both ends run it on the same states,
// so it must be a pure function of its arguments: the same result on every
// machine (integers, or float arithmetic without -ffast-math and without
// FMA contraction), no state of its own, no exception. A field the
// prediction leaves at its baseline's value (start from h.baseline and set
// what you know), or sets outside its range, gets the library's own
// prediction: a changed field is never its baseline's value, so predicting
// that would always miss.
#pragma once

#include <concepts>
#include <cstdint>

namespace bitrep {

/// What the receiver holds of an entity when it decodes its delta: the
/// baseline, and the state the baseline was itself sent against.
template <class T>
struct history {
    const T& older;    ///< the baseline itself when older_ticks is 0
    const T& baseline;
    /// Ticks from older to baseline; 0 when the receiver holds no older state.
    std::uint32_t older_ticks = 0;
};

namespace detail {
template <class T>
concept member_predictor = requires(const history<T>& h, std::uint32_t ticks) {
    { T::predict(h, ticks) } -> std::convertible_to<T>;
};
template <class T>
concept free_predictor = requires(const history<T>& h, std::uint32_t ticks) {
    { predict(h, ticks) } -> std::convertible_to<T>;
};
} // namespace detail

/// T supplies a prediction of its own (a static member, else a free function).
template <class T>
concept predicts = detail::member_predictor<T> || detail::free_predictor<T>;

namespace detail {
template <predicts T>
T predicted(const history<T>& h, std::uint32_t ticks_ahead)
{
    if constexpr (member_predictor<T>)
        return T::predict(h, ticks_ahead);
    else
        return predict(h, ticks_ahead);
}
} // namespace detail

} // namespace bitrep
