// Flag enums (an enum opted in with `constexpr bool bitrep_flags(E) { return
// true; }`): a bit per flag, in declaration order, so any set of flags
// costs as many bits as the enum has flags. A value with a bit that is no
// flag is refused on write.
#pragma once

#include <bitrep/codec.hpp>
#include <bitrep/detail/inline.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/renames.hpp>
#include <bitrep/serialize.hpp>
#include <bitrep/status.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace bitrep {

template <class T>
    requires reflect::flag_enum<T>
struct codec<T> {
    using flags = reflect::flags<T>;
    using bits_type = typename flags::bits_type;

    template <class Stream>
    BITREP_ALWAYS_INLINE static bool serialize(Stream& stream, T& value)
    {
        std::uint64_t word = 0;
        if constexpr (!Stream::is_reading) {
            const auto bits = static_cast<bits_type>(value);
            if ((bits & static_cast<bits_type>(~flags::table.all)) != 0) [[unlikely]]
                return stream.fail(error::value_out_of_range, stream.position(), "flag enum value has bits that are not flags");
            for (std::size_t i = 0; i < flags::count; ++i)
                word |= (bits & flags::table.masks[i]) != 0 ? std::uint64_t{1} << i : 0;
        }
        if (!stream.serialize_bits(word, static_cast<int>(flags::count)))
            return false;
        if constexpr (Stream::is_reading)
            value = from_word(word);
        return true;
    }

    /// The value whose flags are the set bits of `word` (bit i: flag i).
    static T from_word(std::uint64_t word) noexcept
    {
        bits_type bits = 0;
        for (std::size_t i = 0; i < flags::count; ++i)
            if (((word >> i) & 1u) != 0)
                bits = static_cast<bits_type>(bits | flags::table.masks[i]);
        return static_cast<T>(bits);
    }

    static constexpr std::size_t max_bits() { return flags::count; }
    static constexpr std::size_t min_bits() { return flags::count; }
    /// A struct of one bool per flag, named like the flags: the same bits,
    /// and a save loads after flags were added, removed or reordered.
    template <class Schema>
    static void describe(Schema& schema)
    {
        schema.begin_struct(reflect::stable_name<T>());
        detail::describe_renames<T, reflect::renames_target::flags>(schema);
        for (std::size_t i = 0; i < flags::count; ++i) {
            schema.field(flags::table.names[i], i);
            schema.boolean();
        }
        schema.end();
    }
};

} // namespace bitrep
