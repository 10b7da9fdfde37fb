// save_only / net_only / transient: the field, when the stream's scope
// carries it; the replication conditions: the field, always.
#pragma once

#include <bitrep/annotations/field_flags.hpp>
#include <bitrep/codec.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep {

namespace detail {
/// Whether streams of `field_scope` carry a field flagged `flag` (codecs
/// and deltas ask alike).
constexpr bool flag_carried(field_flag flag, scope field_scope) noexcept
{
    switch (flag) {
    case field_flag::transient: return false;
    case field_flag::save_only: return field_scope != scope::replication;
    case field_flag::net_only: return field_scope != scope::save;
    case field_flag::owner_only:
    case field_flag::skip_owner:
    case field_flag::initial_only: return true;
    }
    return false;
}
} // namespace detail

template <class T, field_flag Flag>
struct codec<flagged<T, Flag>> {
    template <class Stream>
    static constexpr bool carried()
    {
        return detail::flag_carried(Flag, Stream::field_scope);
    }

    template <class Stream>
    static bool serialize(Stream& stream, flagged<T, Flag>& value)
    {
        if constexpr (carried<Stream>())
            return bitrep::serialize(stream, value.get());
        else
            return true; // not carried by this stream: untouched on read
    }
    static constexpr std::size_t max_bits()
    {
        // A transient field is never encoded, so T need not be encodable
        // (a cache may be a std::string or anything else).
        if constexpr (Flag == field_flag::transient)
            return 0;
        else
            return codec<T>::max_bits();
    }
    /// Zero when some scope leaves the field out.
    static constexpr std::size_t min_bits()
    {
        if constexpr (is_condition(Flag))
            return codec<T>::min_bits();
        else
            return 0;
    }
};

} // namespace bitrep
