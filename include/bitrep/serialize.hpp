// Encoding per kind. codec.hpp is the customization point, codecs/ holds one
// header per kind of value, and this header adds the codec for classes
// (hooks, described classes, aggregates) and includes them all. Delta, save
// files and replication reuse these codecs; nothing else knows how a kind is
// written.
#pragma once

#include <cstddef>

#include <bitrep/codec.hpp>
#include <bitrep/codecs/bounded_string.hpp>
#include <bitrep/codecs/containers.hpp>
#include <bitrep/codecs/field_flags.hpp>
#include <bitrep/codecs/quantized.hpp>
#include <bitrep/codecs/quat.hpp>
#include <bitrep/codecs/ranged.hpp>
#include <bitrep/codecs/scalars.hpp>
#include <bitrep/codecs/unbounded.hpp>
#include <bitrep/detail/inline.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/stream.hpp>

namespace bitrep {

namespace detail {
template <class T>
concept has_member_hook = requires(T& value, write_stream& w, read_stream& r, measure_stream& m) {
    { value.serialize(w) } -> std::convertible_to<bool>;
    { value.serialize(r) } -> std::convertible_to<bool>;
    { value.serialize(m) } -> std::convertible_to<bool>;
};

template <class T>
concept has_free_hook = requires(T& value, write_stream& w, read_stream& r, measure_stream& m) {
    { bitrep_serialize(w, value) } -> std::convertible_to<bool>;
    { bitrep_serialize(r, value) } -> std::convertible_to<bool>;
    { bitrep_serialize(m, value) } -> std::convertible_to<bool>;
};

/// Takes the failure record, not the stream, so that the stream's address
/// never escapes into this out-of-line cold path.
[[gnu::cold, gnu::noinline]] inline void enter_field(failure_record& record, const reflect::field_id& id) noexcept
{
    if (id.is_base)
        return;
    if (id.name.empty())
        record.enter_position(id.position);
    else
        record.enter_member(id.name);
}
} // namespace detail

/// Classes: a serialization hook wins over a Boost.Describe description,
/// which wins over Boost.PFR because it has names.
template <class T>
struct codec {
    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, T& value)
    {
        if constexpr (detail::has_member_hook<T>) {
            return value.serialize(stream);
        } else if constexpr (detail::has_free_hook<T>) {
            return bitrep_serialize(stream, value);
        } else if constexpr (reflect::described<T> || reflect::aggregate<T>) {
            return reflect::for_each_field(value, [&stream]<class Field>(Field& field, const reflect::field_id& id)
                                                      BITREP_LAMBDA_ALWAYS_INLINE {
                if (bitrep::serialize(stream, field)) [[likely]]
                    return true;
                detail::enter_field(stream.failure(), id);
                return false;
            });
        } else {
            static_assert(detail::always_false<T>,
                          "bitrep cannot serialize this type: it is not an annotation (ranged, quantized, quat, "
                          "bounded_string, bounded_vector), a bool, integer, float, double, described enum, "
                          "std::array or std::optional, an aggregate (Boost.PFR), a BOOST_DESCRIBE_STRUCT/CLASS "
                          "type, nor does it have a serialize(Stream&) member or bitrep_serialize(Stream&, T&) hook.");
            return false;
        }
    }

    static constexpr std::size_t max_bits()
    {
        if constexpr (detail::has_member_hook<T> || detail::has_free_hook<T>) {
            if constexpr (requires { T::bitrep_max_bits; })
                return T::bitrep_max_bits;
            else
                return unbounded_bits;
        } else {
            return reflect::fold_field_types<T>(std::size_t{0}, []<class Field>() { return codec<Field>::max_bits(); },
                                                detail::add_bits);
        }
    }
};

} // namespace bitrep
