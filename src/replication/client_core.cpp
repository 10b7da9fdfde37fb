// replication::client_core: the replication client compiled once, over the
// State's layout (include/bitrep/replication/client_core.hpp). Applies the
// server's packets (all or nothing), keeps the states it applied as
// baselines, and says what it applied in its acks (docs/design/replication-server.md).
#include <bitrep/replication/client_core.hpp>

#include <algorithm>
#include <vector>

#include <bitrep/engine/delta.hpp>
#include <bitrep/replication/state_layout.hpp>
#include <bitrep/wire/coded_stream.hpp>
#include <bitrep/wire/stream.hpp>

#include "slices.hpp"

namespace bitrep::replication {

class client_core::impl {
public:
    impl(const state_layout& layout, const replication_options& options, const packet_key& key,
         std::uint64_t connection_id)
        : options_(options), layout_(layout), scratch_(layout), models_(layout.state_entry->slots),
          packet_(largest_packet(options)),
          guard_(options.security, key, direction::client_to_server, connection_id),
          slices_(options.max_state_bytes)
    {
        options_.window = ring_size(options_.window);
        ring_.resize(options_.window, applied_view{0, false, state_object(layout)});
        guard_.open_up_to(largest_packet(options_));
    }

    status receive(std::span<const std::uint8_t> bytes, client_sections* sections, const void*& before)
    {
        before = nullptr;
        status result;
        {
            const packet_guard::body_scope wiped(guard_);
            result = apply(bytes, sections, before);
        }
        if (result && before == nullptr)
            stats_.slices += 1; // a slice taken, its packet not yet whole
        else if (result)
            stats_.applied += 1;
        else if (result == error::stale)
            stats_.stale += 1;
        else if (result == error::no_baseline)
            stats_.no_baseline += 1;
        else
            stats_.refused += 1;
        return result;
    }

    const void* state() const noexcept
    {
        return current_ != no_state ? ring_[current_].view.get() : layout_.state_defaults;
    }

    status packet(std::span<const std::uint8_t>& out, client_sections* sections)
    {
        out = {};
        if (status able = guard_.can_seal(); !able) [[unlikely]]
            return able;
        failure_record failure;
        const std::size_t prefix = guard_.prefix();
        const std::size_t end = packet_.size() - guard_.suffix();
        message_write_stream stream(std::span<std::uint8_t>(packet_).subspan(prefix, end - prefix), failure);
        ack_record record = acks_;
        slice_ack slices = slices_.ack();
        // The acks always fit (largest_packet).
        static_cast<void>(record.serialize(stream) && slices.serialize(stream));
        if (sections != nullptr)
            sections->write(stream, 8 * (end - prefix) - stream.bit_position(), packets_);
        const std::size_t size = prefix + stream.flush() + guard_.suffix();
        const std::span<std::uint8_t> sealed(packet_.data(), size);
        if (status result = guard_.seal(options_.protocol_id, packet_kind::ack, sealed); !result) [[unlikely]] {
            if (sections != nullptr)
                sections->cancel();
            return result;
        }
        if (sections != nullptr)
            sections->commit(packets_);
        ++packets_;
        out = sealed;
        return {};
    }

    /// Applies a packet, or takes a slice of one too large for a datagram;
    /// `before` receives the state it replaced (valid until the next
    /// packet; nullptr when none was applied).
    status apply(std::span<const std::uint8_t> packet, client_sections* sections, const void*& before)
    {
        // The packet's body: after the CRC, or decrypted once authentic.
        std::span<const std::uint8_t> bytes;
        const status opened = guard_.open(options_.protocol_id, packet_kind::state, packet, bytes);
        if (opened)
            return apply_body(bytes, 8 * guard_.prefix(), sections, before);
        if (opened != error::corrupt || !guard_.open(options_.protocol_id, packet_kind::slice, packet, bytes))
            return opened;
        bool whole = false;
        if (status taken = slices_.take(bytes, 8 * guard_.prefix(), acks_, whole); !taken || !whole)
            return taken;
        // The packet put together, as if it had come in one datagram; its
        // bytes are wiped once read (bit offsets count from its start).
        struct cleared {
            slice_receiver& slices;
            ~cleared() { slices.clear(); }
        } done{slices_};
        return apply_body(slices_.body(), 0, sections, before);
    }

    /// Applies a state packet's body (its bit offsets count from `head`).
    status apply_body(std::span<const std::uint8_t> bytes, std::size_t head, client_sections* sections,
                      const void*& before)
    {
        failure_record failure;
        basic_read_stream<scope::replication> stream(bytes, failure);
        packet_header header;
        if (!header.serialize(stream)) [[unlikely]]
            return stream.failure_status("packet");
        if (header.has_check_value != options_.check_value) [[unlikely]]
            return status(error::options_mismatch, head + packet_header::has_check_value_at, "packet",
                          header.has_check_value ? "the server sends a check value, and this client expects none"
                                                 : "this client expects a check value, and the server sends none");
        if (acks_.any && !sequence_newer(header.sequence, acks_.newest)) {
            // Packet after packet a whole window or more behind are no late
            // copies: the server's sequence numbers went round while this
            // client heard nothing, and its states can no longer be told
            // from the server's new packets of the same numbers. It then
            // forgets them as baselines (the state shown stays) and takes
            // the next full state. One such packet alone changes nothing.
            if (static_cast<std::uint16_t>(acks_.newest - header.sequence) >= options_.window &&
                ++far_behind_ >= far_behind_limit)
                forget_baselines();
            return status(error::stale, head, "packet", "not newer than the newest packet applied");
        }
        if (header.coded && options_.encoding != replication_encoding::coded) [[unlikely]]
            return status(error::options_mismatch, head + packet_header::coded_at, "packet",
                          "the server sends coded packets, and this client expects bit-packed ones");
        if (sections != nullptr && !sections->read(stream)) [[unlikely]]
            return stream.failure_status("packet");
        if (status decoded = decode_state(header, stream, bytes, head); !decoded) [[unlikely]]
            return decoded;
        const std::size_t index = header.sequence % options_.window;
        applied_view& slot = ring_[index];
        slot.view.swap(scratch_);
        slot.sequence = header.sequence;
        slot.valid = true;
        // When the new state took the current one's slot, the old one is in scratch_ now.
        before = current_ == no_state ? layout_.state_defaults
                                      : (current_ == index ? scratch_.get() : ring_[current_].view.get());
        current_ = index;
        acks_.applied(header.sequence);
        far_behind_ = 0;
        if (sections != nullptr)
            sections->apply(bytes);
        return {};
    }

    /// Decodes the packet's state, after its header and sections, into
    /// scratch_ (the ring is untouched until the whole packet is accepted).
    status decode_state(const packet_header& header, basic_read_stream<scope::replication>& stream,
                        std::span<const std::uint8_t> bytes, std::size_t head)
    {
        const void* base = layout_.state_defaults;
        if (header.has_baseline) {
            base = held(header.baseline);
            if (base == nullptr)
                return status(error::no_baseline, head + packet_header::baseline_at, "packet", "the packet's baseline is not held");
        }
        if (header.coded) {
            const void* older = base;
            if (header.has_older) {
                older = held(header.older);
                if (older == nullptr)
                    return status(error::no_baseline, head + packet_header::older_at, "packet", "the state the packet predicts from is not held");
            }
            return decode_coded(older, base, ticks_of(header),
                                bytes.subspan(std::min((stream.bit_position() + 7) / 8, bytes.size())),
                                head + 8 * bytes.size());
        }
        if (!engine::delta(stream, *layout_.state_entry, base, base, scratch_.get())) [[unlikely]]
            return stream.failure_status(layout_.name);
        if (options_.check_value) {
            const std::size_t at = stream.bit_position();
            std::uint32_t check = 0;
            if (!stream.serialize_bits(check, 32)) [[unlikely]]
                return stream.failure_status("packet");
            if (check != check_value) [[unlikely]]
                return status(error::corrupt, head + at, "packet", "end-of-packet check value is wrong");
        }
        const std::size_t used = (stream.bit_position() + 7) / 8;
        if (used != bytes.size()) [[unlikely]]
            return status(error::trailing_data, head + used * 8, "packet", "whole bytes left over after the state");
        return {};
    }

    /// The coded state in `coded` (from the byte after the header to the
    /// packet's end, bit `end` of the packet), predicted from `older`,
    /// `ticks` apart.
    status decode_coded(const void* older, const void* base, const delta_ticks& ticks,
                        std::span<const std::uint8_t> coded, std::size_t end)
    {
        // The models start afresh for each packet, as the server's did.
        std::fill(models_.begin(), models_.end(), coded_slot{});
        failure_record failure;
        basic_coded_read_stream<scope::replication> coder(coded, models_, failure);
        coder.set_ticks(ticks);
        std::uint32_t check = check_value;
        if (!engine::delta(coder, *layout_.state_entry, older, base, scratch_.get()) ||
            (options_.check_value && !coder.serialize_bits(check, 32)) || !coder.finish()) [[unlikely]]
            return coder.failure_status(layout_.name);
        if (check != check_value) [[unlikely]]
            return status(error::corrupt, end, "packet", "end-of-packet check value is wrong");
        return {};
    }

    /// The state packet `sequence` brought, while this client holds it.
    const void* held(std::uint16_t sequence) const noexcept
    {
        const applied_view& slot = ring_[sequence % options_.window];
        return slot.valid && slot.sequence == sequence ? slot.view.get() : nullptr;
    }

    void forget_baselines() noexcept
    {
        for (applied_view& slot : ring_)
            slot.valid = false;
        shown_sequence_ = acks_.newest;
        acks_ = {};
        far_behind_ = 0;
    }

    struct applied_view {
        std::uint16_t sequence = 0;
        bool valid = false;
        state_object view;
    };

    replication_options options_;
    const state_layout& layout_;
    std::vector<applied_view> ring_;
    state_object scratch_;
    std::vector<coded_slot> models_; ///< the coded reads' models
    static constexpr std::size_t no_state = static_cast<std::size_t>(-1);
    /// The ring slot of the newest state applied: an index, not a pointer,
    /// so that a copy of the client holds its own state.
    std::size_t current_ = no_state;
    ack_record acks_;
    static constexpr int far_behind_limit = 8;
    int far_behind_ = 0;               ///< packets in a row a window or more behind
    std::uint16_t shown_sequence_ = 0; ///< sequence() after forget_baselines()
    std::vector<std::uint8_t> packet_;
    packet_guard guard_;        ///< seals packet() and opens receive()'s packets
    slice_receiver slices_;     ///< a state packet too large for a datagram, put together
    std::uint64_t packets_ = 0; ///< packets written, which number the message channels' packets
    client_statistics stats_;
};

client_core::client_core(const state_layout& layout, const replication_options& options, const packet_key& key,
                         std::uint64_t connection_id)
    : layout_(&layout), impl_(std::make_unique<impl>(layout, options, key, connection_id))
{
}
client_core::client_core(const client_core& other)
    : layout_(other.layout_), impl_(other.impl_ ? std::make_unique<impl>(*other.impl_) : nullptr)
{
}
client_core& client_core::operator=(const client_core& other)
{
    if (this != &other) {
        client_core copy(other);
        *this = std::move(copy);
    }
    return *this;
}
client_core::client_core(client_core&& other) noexcept = default;
client_core& client_core::operator=(client_core&& other) noexcept = default;
client_core::~client_core() = default;

status client_core::receive(std::span<const std::uint8_t> bytes, client_sections* sections, const void*& before)
{
    if (impl_ == nullptr) [[unlikely]]
        return status(error::options_mismatch, 0, "client", "moved from: the client that took it receives now");
    return impl_->receive(bytes, sections, before);
}
status client_core::packet(std::span<const std::uint8_t>& out, client_sections* sections)
{
    out = {};
    if (impl_ == nullptr) [[unlikely]]
        return status(error::options_mismatch, 0, "client", "moved from: its buffers and its key went with the move");
    return impl_->packet(out, sections);
}
const void* client_core::state() const noexcept
{
    return impl_ != nullptr ? impl_->state() : layout_->state_defaults;
}
bool client_core::has_state() const noexcept { return impl_ != nullptr && impl_->current_ != impl::no_state; }
std::uint16_t client_core::sequence() const noexcept
{
    if (impl_ == nullptr)
        return 0;
    return impl_->acks_.any ? impl_->acks_.newest : impl_->shown_sequence_;
}
const client_statistics& client_core::statistics() const noexcept
{
    static const client_statistics none{};
    return impl_ != nullptr ? impl_->stats_ : none;
}

void client_core::changes(const void* before, const void* after, void* context,
                          void (*report)(void* context, const state_change& change)) const
{
    const state_layout& layout = *layout_;
    const kept_field* kept = layout.kept.data();
    for (std::size_t f = 0; f < layout.field_count; ++f) {
        state_change change;
        change.field = static_cast<std::uint16_t>(f);
        change.field_name = layout.field_names[f];
        if (const entity_array_layout* array = layout.by_field[f]) {
            const slot_ops& ops = *array->ops;
            for (std::size_t id = 0; id < array->capacity; ++id) {
                const void* old_slot = array->slot(before, id);
                const void* new_slot = array->slot(after, id);
                const bool was = ops.has_value(old_slot);
                const bool is = ops.has_value(new_slot);
                if (!was && !is)
                    continue;
                if (was && is &&
                    (ops.next_differing(old_slot, new_slot, 0, 1) == 1 ||
                     engine::same<scope::replication>(*ops.entry, old_slot, new_slot)))
                    continue;
                change.what = !was ? state_change::kind::created
                                   : (!is ? state_change::kind::destroyed : state_change::kind::changed);
                change.id = static_cast<std::uint32_t>(id);
                report(context, change);
            }
            if (!array->shared)
                ++kept;
            continue;
        }
        if (!engine::same<scope::replication>(*kept->entry, kept->in(before), kept->in(after))) {
            change.what = state_change::kind::field;
            report(context, change);
        }
        ++kept;
    }
}

} // namespace bitrep::replication
