// Compiling a type's codecs once for a whole program instead of once per
// translation unit that encodes it (docs/benchmarks.md, "Build times").
//
//     // player.hpp, beside the type (after #include <bitrep/bitrep.hpp>):
//     BITREP_EXTERN(game::Player)
//     // player_codec.cpp, exactly one file of the program:
//     BITREP_INSTANTIATE(game::Player)
//
// Files that include player.hpp then call to_bytes, from_bytes, bit_size,
// save_to_bytes, load_from_bytes, save, load, decoder<Player> and
// loader<Player> without compiling them: the explicit instantiation
// declarations tell the compiler the one definition lives elsewhere, and
// player_codec.cpp provides it. The type must be named from the global
// namespace (qualified), and the macros used outside any namespace.
#pragma once

#include <bitrep/bytes.hpp>
#include <bitrep/detail/exceptions.hpp>
#include <bitrep/save/save.hpp>

#if BITREP_HAS_EXCEPTIONS
#define BITREP_DETAIL_THROWING_FORMS(prefix, T)                                                                     \
    prefix std::vector<std::uint8_t> to_bytes<T>(const T&);                                                         \
    prefix std::vector<std::uint8_t> save_to_bytes<T>(const T&);
#else
#define BITREP_DETAIL_THROWING_FORMS(prefix, T)
#endif

// NOLINTBEGIN(bugprone-macro-parentheses): T is a type and prefix a keyword, neither of which parentheses may enclose
#define BITREP_DETAIL_INSTANTIATIONS(prefix, T)                                                                     \
    namespace bitrep {                                                                                              \
    prefix std::size_t bit_size<T>(const T&);                                                                       \
    prefix status to_bytes<T>(const T&, std::span<std::uint8_t>, std::size_t&);                                     \
    prefix status to_bytes<T>(const T&, std::vector<std::uint8_t>&);                                                \
    prefix status from_bytes<T>(std::span<const std::uint8_t>, T&);                                                 \
    prefix class decoder<T>;                                                                                        \
    prefix status save_to_bytes<T>(const T&, std::vector<std::uint8_t>&, const save_options&);                      \
    prefix status load_from_bytes<T>(std::span<const std::uint8_t>, T&, load_info&, const load_options&);           \
    prefix status load_from_bytes<T>(std::span<const std::uint8_t>, T&, const load_options&);                       \
    prefix status save<T>(path_view, const T&, const save_options&, save_outcome*);                                 \
    prefix status load<T>(path_view, T&, load_info&, const load_options&);                                          \
    prefix status load<T>(path_view, T&, load_options);                                                             \
    prefix class loader<T>;                                                                                         \
    BITREP_DETAIL_THROWING_FORMS(prefix, T)                                                                         \
    }

// NOLINTEND(bugprone-macro-parentheses)

/// In a header beside T: other files use T's codecs without compiling them.
#define BITREP_EXTERN(T) BITREP_DETAIL_INSTANTIATIONS(extern template, T)
/// In exactly one source file of the program: T's codecs, compiled once.
#define BITREP_INSTANTIATE(T) BITREP_DETAIL_INSTANTIATIONS(template, T)
