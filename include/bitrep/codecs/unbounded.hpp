// std::string and std::vector are refused at compile time: an unbounded
// length on the read path is an allocation bomb.
#pragma once

#include <bitrep/codec.hpp>
#include <string>
#include <vector>

namespace bitrep {

template <class Char, class Traits, class Allocator>
struct codec<std::basic_string<Char, Traits, Allocator>> {
    static_assert(detail::always_false<Char>,
                  "bitrep: std::string has no bound, and an unbounded length on the read path is an allocation "
                  "bomb. Use bitrep::bounded_string<MaxLength> instead.");
};

template <class T, class Allocator>
struct codec<std::vector<T, Allocator>> {
    static_assert(detail::always_false<T>,
                  "bitrep: std::vector has no bound, and an unbounded length on the read path is an allocation "
                  "bomb. Use bitrep::bounded_vector<T, MaxSize> instead.");
};

} // namespace bitrep
