// A runtime index into a compile-time one: for the alternatives of a
// variant and the elements of a tuple, chosen by a number read or matched
// at run time.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include <bitrep/detail/portability.hpp>

namespace bitrep::detail {

/// f(std::integral_constant<std::size_t, I>) for the I equal to `index`
/// (below Count), which says whether it succeeded; false for an index past
/// Count.
template <std::size_t Count, class F>
BITREP_ALWAYS_INLINE bool with_index(std::size_t index, F&& f)
{
    return [&]<std::size_t... I>(std::index_sequence<I...>) BITREP_LAMBDA_ALWAYS_INLINE {
        bool ok = false;
        static_cast<void>(((index == I ? (ok = f(std::integral_constant<std::size_t, I>{}), true) : false) || ...));
        return ok;
    }(std::make_index_sequence<Count>{});
}

} // namespace bitrep::detail
