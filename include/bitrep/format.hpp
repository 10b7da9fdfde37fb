// std::format for the value annotations, where the standard library has
// <format> (libstdc++ 13, libc++ 17 and later; not g++ 12's libstdc++, which
// this project's machine has: there the annotations print through
// operator<<, and format through their value, e.g. std::format("{}", p.hp.get())).
// `std::format("{:.2f}", p.x)` formats the held value with the value
// type's own format specification.
#pragma once

#include <version>

#if defined(__cpp_lib_format)
#include <format>

#include <bitrep/annotations/delta_small.hpp>
#include <bitrep/annotations/field_flags.hpp>
#include <bitrep/annotations/quantized.hpp>
#include <bitrep/annotations/ranged.hpp>

template <std::integral Int, Int Min, Int Max, class CharT>
struct std::formatter<bitrep::ranged<Int, Min, Max>, CharT> : std::formatter<Int, CharT> {
    template <class Context>
    auto format(const bitrep::ranged<Int, Min, Max>& value, Context& context) const
    {
        return std::formatter<Int, CharT>::format(value.get(), context);
    }
};

template <bitrep::float_constant Min, bitrep::float_constant Max, bitrep::float_constant Resolution,
          bitrep::range_policy Policy, class CharT>
struct std::formatter<bitrep::quantized<Min, Max, Resolution, Policy>, CharT> : std::formatter<float, CharT> {
    template <class Context>
    auto format(const bitrep::quantized<Min, Max, Resolution, Policy>& value, Context& context) const
    {
        return std::formatter<float, CharT>::format(value.get(), context);
    }
};

template <class V, std::uint32_t MaxStep, class CharT>
struct std::formatter<bitrep::delta_small<V, MaxStep>, CharT> : std::formatter<V, CharT> {
    template <class Context>
    auto format(const bitrep::delta_small<V, MaxStep>& value, Context& context) const
    {
        return std::formatter<V, CharT>::format(value, context);
    }
};

template <class T, bitrep::field_flag Flag, class CharT>
    requires(!bitrep::detail::inheritable<T>)
struct std::formatter<bitrep::flagged<T, Flag>, CharT> : std::formatter<T, CharT> {
    template <class Context>
    auto format(const bitrep::flagged<T, Flag>& value, Context& context) const
    {
        return std::formatter<T, CharT>::format(value.get(), context);
    }
};
#endif
