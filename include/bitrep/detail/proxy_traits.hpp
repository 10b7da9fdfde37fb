// proxy_traits<T>: how a type is sent as another bitrep knows (its wire
// type). Declared apart from the codec (codecs/proxy.hpp), so that the
// headers that specialize it (durations, adapters) need not include the
// codecs, which include them.
#pragma once

#include <type_traits>

namespace bitrep::detail {

/// Specialized with: `using wire = ...;`, `static wire to_wire(const T&)`,
/// `static void from_wire(T&, const wire&)`, and optionally
/// `template <class Schema> static void describe(Schema&)` for a schema of
/// its own (else the wire type's).
template <class T>
struct proxy_traits : std::false_type {};

template <class T>
concept proxied = proxy_traits<T>::value;

} // namespace bitrep::detail
