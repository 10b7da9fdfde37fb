// Types sent as another type bitrep already knows (their wire type): a
// std::chrono::duration as its count, a math library's vector as an array
// of annotated components, its quaternion as quat<B>. One codec, one delta
// and one save-file reader serve them all, through proxy_traits<T>:
//
//     using wire = ...;                           // what is sent
//     static wire to_wire(const T&);              // writing, comparing
//     static void from_wire(T&, const wire&);     // reading
//     template <class Schema>                     // optional: a schema of
//     static void describe(Schema&);              // its own (else wire's)
#pragma once

#include <bitrep/codec.hpp>
#include <bitrep/detail/portability.hpp>
#include <bitrep/detail/proxy_traits.hpp>

#include <cstddef>
#include <type_traits>

namespace bitrep {

template <class T>
    requires detail::proxied<T>
struct codec<T> {
    using traits = detail::proxy_traits<T>;
    using wire = typename traits::wire;

    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, T& value)
    {
        wire sent{};
        if constexpr (!Stream::is_reading)
            sent = traits::to_wire(value);
        if (!codec<wire>::serialize(stream, sent))
            return false;
        if constexpr (Stream::is_reading)
            traits::from_wire(value, sent);
        return true;
    }
    static constexpr std::size_t max_bits() { return codec<wire>::max_bits(); }
    static constexpr std::size_t min_bits() { return codec<wire>::min_bits(); }
};

} // namespace bitrep
