// The compile-time refusal of a type bitrep has no codec for, saying what to
// use instead. A field's refusal names its struct and the field: the
// condition the compiler prints with the message is
// `supported<reflect::named_field<&Player::weapon>, Weapon*>` (a described
// member) or `supported<reflect::positional_field<Player, 2>, Weapon*>` (an
// aggregate's field at position 2); a value that is no field has `no_field`.
#pragma once

#include <string>
#include <type_traits>

// Appended to the refusals of classes and of anything else not recognised.
#define BITREP_SUPPORTED_KINDS                                                                                       \
    " bitrep serializes: bool, integers, float, double; described enums and flag enums; ranged, quantized, quat, "   \
    "delta_small, bounded_string, bounded_vector, bounded_map, bounded_set; std::array, std::optional, std::pair, "  \
    "std::tuple, std::variant, std::bitset; std::chrono durations (ranged_duration, quantized_duration); "           \
    "entity_array; field flags (save_only, net_only, transient, owner_only, skip_owner, initial_only); "             \
    "each_component and smallest_three over a math library's types; aggregates; BOOST_DESCRIBE_STRUCT / "            \
    "BOOST_DESCRIBE_CLASS classes; classes with a serialize(Stream&) member or a bitrep_serialize(Stream&, T&) "     \
    "function."

namespace bitrep::detail {

/// Where a refused type is not a field: the value handed to bitrep itself,
/// or a part of a container or variant.
struct no_field {};

/// Never true: the condition of every refusal, so that the compiler prints
/// the field and the type next to the message.
template <class Where, class T>
inline constexpr bool supported = false;

template <class T, template <class...> class Template>
inline constexpr bool instance_of = false;
template <template <class...> class Template, class... A>
inline constexpr bool instance_of<Template<A...>, Template> = true;

template <class T>
concept smart_pointer = requires { typename T::element_type; } &&
                        (requires(const T& p) { p.operator->(); } || requires(const T& p) { p.lock(); });

/// std::vector, std::map, std::set, std::list, std::deque, std::unordered_map...
template <class T>
concept unbounded_container = requires(const T& c) {
    c.begin();
    c.end();
    c.size();
};

/// Fails to compile with the message that fits T, Where naming the field
/// that holds it. The common mistakes come first, each with its fix; the
/// last message lists every kind bitrep serializes.
template <class Where, class T>
constexpr void refuse_type()
{
    if constexpr (instance_of<T, std::basic_string>) {
        static_assert(supported<Where, T>,
                      "bitrep: std::string has no bound, and an unbounded length on the read path is an allocation "
                      "bomb. Use bitrep::bounded_string<MaxLength> instead.");
    } else if constexpr (unbounded_container<T>) {
        static_assert(supported<Where, T>,
                      "bitrep: std::vector, std::map, std::set and the other standard containers have no bound, and "
                      "an unbounded count on the read path is an allocation bomb. Use bitrep::bounded_vector<T, "
                      "MaxSize> for a vector (or a list, a deque), bitrep::bounded_map<K, V, MaxSize> for a map, "
                      "bitrep::bounded_set<K, MaxSize> for a set (each over the standard container you choose).");
    } else if constexpr (std::is_pointer_v<T> || smart_pointer<T>) {
        static_assert(supported<Where, T>,
                      "bitrep cannot serialize a pointer (raw or smart): an address means nothing in a save file or "
                      "on another machine. Store an entity id instead (the id of an entity_array slot, or a ranged "
                      "integer your game maps to the object), hold the object itself (std::optional<T> when it may "
                      "be absent), or mark the field bitrep::transient<T> to leave it out.");
    } else if constexpr (std::is_enum_v<T>) {
        static_assert(supported<Where, T>,
                      "bitrep: this enum is not described. Add BOOST_DESCRIBE_ENUM(YourEnum, enumerator1, "
                      "enumerator2, ...) after its declaration, at namespace scope (it comes with "
                      "<bitrep/bitrep.hpp>).");
    } else if constexpr (std::is_class_v<T>) {
        static_assert(supported<Where, T>,
                      "bitrep cannot serialize this class: it is not an aggregate (it has private members, "
                      "constructors or virtual functions) and has no description. If it has private members, put "
                      "BOOST_DESCRIBE_CLASS(Type, (bases), (public members), (protected members), (private "
                      "members)) inside the class (a member it does not list is left out of every save and packet: "
                      "that is how one is left out on purpose); or give it a serialize(Stream&) member, or a "
                      "bitrep_serialize(Stream&, T&) function beside it (one that goes through its public "
                      "functions serves a class you cannot edit)." BITREP_SUPPORTED_KINDS);
    } else {
        static_assert(supported<Where, T>,
                      "bitrep cannot serialize this type (a union, a C array, a function...)." BITREP_SUPPORTED_KINDS);
    }
}

} // namespace bitrep::detail

#undef BITREP_SUPPORTED_KINDS
