// Sizing a decoded string or vector. A receive loop usually decodes into an
// object whose strings and vectors already have the decoded sizes, so the
// resize (and the allocation and memset calls inlined with it, around which
// compilers would otherwise save the reader's state on every string) sits on
// its own out-of-line path, taken only when the size changes.
#pragma once

#include <cstddef>

#include <bitrep/detail/portability.hpp>

namespace bitrep::detail {

template <class Container>
BITREP_NOINLINE void resize_out_of_line(Container& container, std::size_t size)
{
    container.resize(size);
}

template <class Container>
BITREP_ALWAYS_INLINE void resize_for_decode(Container& container, std::size_t size)
{
    if (container.size() != size) [[unlikely]]
        resize_out_of_line(container, size);
}

} // namespace bitrep::detail
