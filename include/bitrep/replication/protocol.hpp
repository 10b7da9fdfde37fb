// The protocol a client and a server speak: their State, Input and message
// types. The names of the Input and message types are mixed into the
// protocol id every packet's CRC covers (docs/formats/packets.md, section 3),
// so that two builds that disagree on them refuse each other's packets as
// corrupt instead of misreading them.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>

#include <bitrep/reflect.hpp>
#include <bitrep/replication/inputs.hpp>
#include <bitrep/replication/messages.hpp>
#include <bitrep/replication/packet.hpp>

namespace bitrep::replication {

namespace detail {
/// FNV-1a, 32 bits.
constexpr std::uint32_t mix(std::uint32_t hash, std::string_view text) noexcept
{
    for (const char c : text) {
        hash ^= static_cast<std::uint8_t>(c);
        hash *= 16777619u;
    }
    return hash;
}
} // namespace detail

template <class Input, class Set>
struct protocol_names;

template <class Input, class... M>
struct protocol_names<Input, message_set<M...>> {
    static constexpr std::uint32_t hash = [] {
        std::uint32_t h = detail::mix(2166136261u, "bitrep two-way 1");
        if constexpr (has_inputs<Input>)
            h = detail::mix(h, reflect::type_name<Input>());
        h = detail::mix(h, ";");
        ((h = detail::mix(detail::mix(h, reflect::type_name<M>()), ",")), ...);
        return h;
    }();
};

/// The protocol id packets are sealed with: the game's own, unchanged for
/// a game without inputs and messages (its packets are those of sections
/// 1-4), else mixed with the names of its Input and message types.
template <class Input, class Set>
constexpr std::uint32_t protocol_id_for(std::uint32_t protocol_id) noexcept
{
    if constexpr (!has_inputs<Input> && Set::count == 0)
        return protocol_id;
    else
        return protocol_id ^ protocol_names<Input, Set>::hash;
}

/// A part of a connection that a protocol may not need (the inputs of a
/// game without them, the message channels of one without messages):
/// `Part` when `Needed`, else an empty placeholder that takes no room.
struct no_part {};
template <bool Needed, class Part>
using optional_part = std::conditional_t<Needed, Part, no_part>;

/// Builds a part from both ends' options (Part::from_options), and what
/// that end adds (a message port: the bits its packets spend on other things).
template <class Part, class... Extra>
Part make_part(const replication_options& options, Extra... extra)
{
    if constexpr (std::is_same_v<Part, no_part>)
        return {};
    else
        return Part::from_options(options, extra...);
}

/// The most bits a message section's own framing takes around one message
/// that fills the rest of a packet: ack flag and ack, "another follows",
/// id, type index, padding before the body, both end bits.
template <class Set>
constexpr std::size_t message_framing_bits = 1 + 16 + 1 + 16 + static_cast<std::size_t>(message_codec<Set>::type_bits) + 7 + 2;

} // namespace bitrep::replication
