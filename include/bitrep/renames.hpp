// Earlier names of fields, enumerators, flags and variant alternatives
// (bitrep_renames), so that a save written before a rename loads: what a
// type declares, the compile-time check that it names what the type has, and
// its listing in the type's schema node.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>

#include <bitrep/reflect.hpp>

namespace bitrep {

/// An earlier name, so that saves written before a rename load: the file's
/// `from` is the program's `to`. A struct lists its renamed fields inside
/// itself, `static constexpr bitrep::renamed bitrep_renames[] = {{.from =
/// "gold", .to = "coins"}};`; an enum its renamed enumerators (or flags)
/// next to its description, `constexpr auto bitrep_renames(Color) { return
/// std::array{bitrep::renamed{.from = "azure", .to = "blue"}}; }` (found by
/// argument-dependent lookup). An entry whose `to` is the type's own stable
/// name is the type's earlier name, by which a variant's alternative is
/// matched.
struct renamed {
    std::string_view from;
    std::string_view to;
};

namespace reflect {
namespace detail {
template <class E>
inline constexpr auto enum_renames = bitrep_renames(E{});
} // namespace detail

/// T's bitrep_renames (none when it gives none).
template <class T>
constexpr std::span<const renamed> renames() noexcept
{
    if constexpr (requires { std::span<const renamed>(T::bitrep_renames); })
        return std::span<const renamed>(T::bitrep_renames);
    else if constexpr (std::is_enum_v<T> && requires { std::span<const renamed>(bitrep_renames(T{})); })
        return std::span<const renamed>(detail::enum_renames<T>);
    else
        return {};
}

/// Whether a rename's `to` names the type of stable name `self`: all of it,
/// or its last part (`Elixir` for `game::Elixir`).
constexpr bool names_type(std::string_view to, std::string_view self) noexcept
{
    return to == self || (self.size() > to.size() + 2 && self.ends_with(to) &&
                          self.substr(self.size() - to.size() - 2, 2) == "::");
}

/// Whether every rename's `to` is one of `names` (T's fields or
/// enumerators) or the type's own name `self`, and no `from` is one of
/// `names`: a file's field of a name the program still has is that field.
constexpr bool renames_fit(std::span<const renamed> list, std::span<const std::string_view> names,
                           std::string_view self) noexcept
{
    for (const renamed& entry : list) {
        bool to_known = names_type(entry.to, self);
        for (const std::string_view name : names) {
            if (name == entry.from)
                return false;
            to_known = to_known || name == entry.to;
        }
        if (!to_known || entry.from.empty())
            return false;
    }
    return true;
}

/// Whether no `from` is given twice: a file's name two entries give would
/// load into whichever of their `to` the reader met first.
constexpr bool renames_distinct(std::span<const renamed> list) noexcept
{
    for (std::size_t i = 0; i < list.size(); ++i)
        for (std::size_t j = i + 1; j < list.size(); ++j)
            if (list[i].from == list[j].from)
                return false;
    return true;
}

/// Which of a type's names its renames' `to` may give.
enum class renames_target { fields, enumerators, flags };

/// renames_fit for T's fields (a described class) or enumerators (an enum,
/// or a flag enum).
template <class T, renames_target Target>
constexpr bool renames_fit_target() noexcept
{
    if constexpr (renames<T>().empty()) {
        return true;
    } else if constexpr (Target == renames_target::fields) {
        constexpr auto names = []<std::size_t... I>(std::index_sequence<I...>) {
            return std::array<std::string_view, sizeof...(I)>{field_id_at<T, I>().name...};
        }(std::make_index_sequence<field_count<T>>{});
        return renames_fit(renames<T>(), names, stable_name<T>());
    } else {
        return renames_fit(renames<T>(), enumerators<T>::names, stable_name<T>());
    }
}

} // namespace reflect

namespace detail {
/// T's bitrep_renames, once they are known at compile time to name what T
/// has (Target): every schema node with named children takes them from here.
template <class T, reflect::renames_target Target>
constexpr std::span<const renamed> checked_renames() noexcept
{
    constexpr bool fit = reflect::renames_fit_target<T, Target>();
    // One message per target, as a static_assert's message is a literal.
    if constexpr (Target == reflect::renames_target::fields)
        static_assert(fit, "bitrep: in bitrep_renames, each .to must name a field of this described type (or the "
                           "type's own bitrep_name), and no .from a field it still has");
    else if constexpr (Target == reflect::renames_target::enumerators)
        static_assert(fit, "bitrep: in bitrep_renames, each .to must name an enumerator (or the enum's own "
                           "bitrep_name), and no .from an enumerator it still has");
    else
        static_assert(fit, "bitrep: in bitrep_renames, each .to must name a flag (or the enum's own bitrep_name), "
                           "and no .from a flag it still has");
    static_assert(reflect::renames_distinct(reflect::renames<T>()),
                  "bitrep: in bitrep_renames, a .from given twice: which name the file's value loads into is unknown");
    return reflect::renames<T>();
}

} // namespace detail
} // namespace bitrep
