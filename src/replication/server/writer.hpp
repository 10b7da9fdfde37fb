// The packet writer: one client's packet for this tick, built into its
// connection's draft. It plans the packet (the fields other than entities,
// the budget and messages, the selection), then writes it: header, input
// ack, messages, the state section bit-packed or range coded, the seal.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <optional>
#include <span>

#include "connection.hpp"
#include "scratch.hpp"
#include "selection.hpp"
#include <bitrep/wire/coded_stream.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep::replication::server_side {

template <class SlotIndex>
class packet_writer {
public:
    /// The writer of client `id`'s packet (its connection `c`) from
    /// `state`, with the scratch `sc` this call borrows.
    packet_writer(const server_shared& s, connection<SlotIndex>& c, scratch& sc, client_id id,
                  const void* state) noexcept
        : s_(s), c_(c), sc_(sc), id_(id), state_(state)
    {
    }

    /// Builds the packet into the draft, in the configured encoding. A
    /// coded packet that does not fit is dropped and built again with a
    /// more cautious ratio, and as a last resort bit-packed, whose
    /// selection fits by construction. A full state (no acknowledged
    /// baseline) goes bit-packed: with nothing to predict from, coding it
    /// saves few bytes for a much slower encode (docs/benchmarks.md,
    /// "Bytes per packet"). On failure the caller drops the draft.
    status build()
    {
        packet_draft<SlotIndex>& draft = c_.draft;
        packet_header against;
        const void* base = c_.views.baseline(against, c_.schedule, c_.figures.stats.baselines_skipped);
        double ratio = c_.figures.coded_ratio;
        std::uint64_t rebuilds = c_.figures.stats.coded_rebuilds;
        const auto start = [&] {
            draft.start(c_.figures, ratio, rebuilds);
            draft.header.has_baseline = against.has_baseline;
            draft.header.baseline = against.baseline;
        };
        if (s_.options_.encoding == replication_encoding::coded && against.has_baseline) {
            constexpr int attempts = 3;
            for (int attempt = 0; attempt < attempts; ++attempt) {
                start();
                status result = build_packet(base, true);
                // A coded packet that left out every entity waiting (its
                // header is larger, or the ratio grew too cautious) would
                // starve them: the bit-packed one carries what it can.
                const server_client_statistics& now = c_.figures.stats;
                const bool starved = draft.figures.stats.entities_sent == now.entities_sent &&
                                     draft.figures.stats.entities_deferred != now.entities_deferred;
                if (result && starved) {
                    ratio = draft.figures.coded_ratio;
                    break;
                }
                if (result || result.code() != error::buffer_too_small)
                    return result;
                drop();
                rebuilds += 1;
                ratio = std::min(4.0, draft.figures.coded_ratio * 1.25);
            }
            drop();
            start();
            draft.figures.stats.bit_packed_fallbacks += 1;
        } else {
            start();
        }
        return build_packet(base, false);
    }

    /// The packet will not be sent: nothing of the draft reaches the
    /// connection, and the messages it planned stay queued.
    void drop() noexcept
    {
        if (message_endpoint* messages = c_.parts ? c_.parts->messages() : nullptr)
            messages->cancel();
    }

private:
    const server_shared& s_;
    connection<SlotIndex>& c_;
    scratch& sc_;
    const client_id id_;
    const void* const state_;

    /// What one build of a packet decided before writing it.
    struct packet_plan {
        bool coded;
        const void* base;  ///< the baseline, as values
        view_parts older;  ///< the view a coded packet predicts from (refs nullptr: none)
        view_parts previous;
        std::optional<input_ack> inputs;
        message_endpoint* messages;
        /// What is sent as it is, never coded: CRC or tag, headers, input
        /// ack and the messages' section.
        std::size_t header_bits = 0;
        /// The packet's bound so far, in bit-packed bits.
        std::size_t used_bits = 0;
        std::size_t budget_bytes = 0;
        /// Where the packet goes: the connection's packet, or for a large
        /// one (large: its fields alone exceed a packet) the slice sender's
        /// body, without prefix or suffix, not sealed (its slices are).
        std::span<std::uint8_t> out{};
        bool large = false;
        /// The top-level field other than entities whose delta takes the
        /// most bits, for the message of a state packet too large.
        std::size_t largest_field = 0;
        std::size_t largest_field_bits = 0;
        double ratio = 1.0; ///< coded bits per planned bit (with a little room to spare)
        bool exact = false; ///< used_bits measured, not the entities' upper bounds
        std::uint64_t sent_before = 0;
    };

    /// Builds the packet into the draft (started): c.packet's bytes and the
    /// view they bring the client to.
    status build_packet(const void* base, bool coded)
    {
        packet_draft<SlotIndex>& draft = c_.draft;
        draft.header.sequence = c_.views.next_sequence();
        draft.header.has_check_value = s_.options_.check_value;
        draft.header.coded = coded;
        packet_plan plan{coded,
                         base,
                         coded ? c_.views.older_view(draft.header) : view_parts{nullptr, nullptr, {}},
                         c_.views.previous_view(c_.figures.stats.packets_sent),
                         c_.parts ? c_.parts->inputs_ack() : std::nullopt,
                         c_.parts ? c_.parts->messages() : nullptr};
        plan.header_bits = 8 * (c_.guard.prefix() + c_.guard.suffix()) + packet_header::bits +
                           (coded ? packet_header::coded_bits + 7 : 0);
        if (plan.inputs)
            plan.header_bits += 1 + (plan.inputs->any ? 16 : 0);
        plan.used_bits = plan.header_bits + 1 + (s_.options_.check_value ? 32 : 0);
        c_.views.start_next_view(draft.view);
        bring_fields(plan);
        plan_budget(plan);
        select(plan);
        if (status placed = place(plan); !placed) [[unlikely]]
            return placed;
        return write_packet(plan);
    }

    /// Where the packet is written: a bit-packed packet whose header and
    /// fields alone exceed max_packet_bytes is a large one, sent in slices
    /// (docs/formats/packets.md, section 4), within max_state_bytes. A
    /// coded one that large overflows, and is built again bit-packed.
    status place(packet_plan& plan)
    {
        const replication_options& options = s_.options_;
        plan.out = c_.packet;
        if (plan.coded || plan.used_bits <= 8 * options.max_packet_bytes)
            return {};
        // used_bits bounds the packet; its fields left no room for
        // messages or entities.
        const std::size_t bytes = (plan.used_bits + 7) / 8;
        if (bytes > options.max_state_bytes) [[unlikely]]
            return too_large(bytes, plan);
        plan.large = true;
        plan.out = c_.slices.body(bytes);
        c_.draft.large = true;
        return {};
    }

    /// Brings the fields other than entities to this tick (or, when the
    /// tick's value cannot be encoded, keeps them as the client may have
    /// them), counting their bits; entities start as the client has them
    /// and are taken by priority (select).
    void bring_fields(packet_plan& plan)
    {
        plan.used_bits += s_.layout_.shared.size(); // a changed bit each
        for (std::size_t k = 0; k < s_.layout_.kept.size(); ++k) {
            const kept_field& f = s_.layout_.kept[k];
            void* field = c_.draft.view.fields.at(k);
            if (f.entity_array) {
                // Its slots are taken one by one, from the baseline's.
                f.ops->assign(field, f.in(plan.base));
                plan.used_bits += 1;
                continue;
            }
            const bool keep = c_.keeps(s_.slot_count + f.field);
            f.ops->assign(field, keep ? plan.previous.fields->at(k) : f.in(state_));
            const std::size_t bits = measured_delta_bits(*f.entry, f.in(plan.base), field);
            plan.used_bits += bits;
            if (bits > plan.largest_field_bits) {
                plan.largest_field_bits = bits;
                plan.largest_field = f.field;
            }
            if (!keep)
                c_.note_sent_as_is(s_, s_.slot_count + f.field);
        }
    }

    /// The failure of a state packet of `bytes` larger than max_state_bytes,
    /// at the path of its largest field (its bytes in the detail).
    status too_large(std::size_t bytes, const packet_plan& plan) const noexcept
    {
        std::array<char, 4 * 24> digits{};
        const auto text = [&digits](std::size_t slot, std::size_t number) {
            char* first = digits.data() + 24 * slot;
            return std::string_view(first, static_cast<std::size_t>(std::to_chars(first, first + 24, number).ptr - first));
        };
        const std::string_view name = s_.layout_.field_names[plan.largest_field];
        const bitrep::detail::status_text<status::max_path_length> path(
            {s_.layout_.name, name.empty() ? ".#" : ".", name.empty() ? text(2, plan.largest_field) : name});
        const bitrep::detail::status_text<status::max_detail_length> detail(
            {"the state packet needs ", text(0, bytes), " bytes (this field ", text(1, (plan.largest_field_bits + 7) / 8),
             "), more than max_state_bytes (", text(3, s_.options_.max_state_bytes), ")"});
        return status(error::buffer_too_small, status::no_bit, path.view(), detail.view());
    }

    /// The packet's byte budget (the token bucket's, refilled for this
    /// tick), and the reliable messages in their share of it: like the
    /// header they are sent as they are, never coded. The unreliable
    /// part's end bit and the padding after the section count with them.
    void plan_budget(packet_plan& plan) const
    {
        const replication_options& options = s_.options_;
        connection_figures& figures = c_.draft.figures;
        plan.budget_bytes = options.max_packet_bytes;
        if (options.bytes_per_second != 0) {
            const double per_tick = static_cast<double>(options.bytes_per_second) / options.tick_rate;
            figures.tokens =
                std::min(figures.tokens + per_tick, std::max(per_tick, static_cast<double>(options.max_packet_bytes)));
            plan.budget_bytes =
                figures.tokens <= 0 ? 0 : std::min(plan.budget_bytes, static_cast<std::size_t>(figures.tokens));
        }
        if (plan.messages == nullptr)
            return;
        const std::size_t budget_bits = plan.budget_bytes * 8;
        const std::size_t share =
            static_cast<std::size_t>(static_cast<double>(budget_bits) * std::clamp(options.reliable_share, 0.0, 1.0));
        // The section's room: what the header and the fields always sent
        // leave, less the padding after it.
        const std::size_t whole = budget_bits > plan.used_bits + 7 ? budget_bits - plan.used_bits - 7 : 0;
        const std::size_t message_bits =
            plan.messages->plan_reliable(c_.figures.stats.packets_sent, share, whole) + 1 + 7;
        plan.header_bits += message_bits;
        plan.used_bits += message_bits;
    }

    /// The entities the packet takes, and the unreliable messages in the
    /// room they leave. The selection plans in bit-packed bits; a coded
    /// packet holds about 1 / coded_ratio as many.
    void select(packet_plan& plan)
    {
        plan.ratio = plan.coded ? std::max(c_.draft.figures.coded_ratio, 0.05) * 1.03 : 1.0;
        std::size_t plan_bits = plan.budget_bytes * 8;
        if (plan.coded && plan_bits > plan.header_bits)
            plan_bits = plan.header_bits +
                        static_cast<std::size_t>(static_cast<double>(plan_bits - plan.header_bits) / plan.ratio);
        plan.sent_before = c_.draft.figures.stats.entities_sent;
        plan.exact = selection<SlotIndex>(s_, c_, sc_, id_, state_, plan.base, plan.previous)
                         .select(plan.used_bits, plan_bits);
        if (plan.messages != nullptr) {
            // Unreliable messages in the room the state left, in real bits.
            const double state_bits = static_cast<double>(plan.used_bits - plan.header_bits) * plan.ratio;
            const double left =
                static_cast<double>(plan.budget_bytes * 8) - static_cast<double>(plan.header_bits) - state_bits;
            plan.messages->plan_unreliable(left > 1 ? static_cast<std::size_t>(left) + 1 : 1);
        }
    }

    /// Writes the planned packet into c.packet and seals it.
    status write_packet(const packet_plan& plan)
    {
        failure_record failure;
        const std::size_t prefix = plan.large ? 0 : c_.guard.prefix();
        const std::size_t suffix = plan.large ? 0 : c_.guard.suffix();
        basic_write_stream<scope::replication> stream(plan.out.subspan(prefix, plan.out.size() - prefix - suffix),
                                                      failure);
        if (!c_.draft.header.serialize(stream)) [[unlikely]]
            return stream.failure_status("packet");
        if (plan.inputs) {
            input_ack ack = *plan.inputs;
            if (!ack.serialize(stream)) [[unlikely]]
                return stream.failure_status("packet");
        }
        if (plan.messages != nullptr) {
            if (!plan.messages->write(stream) || !stream.serialize_align()) [[unlikely]]
                return stream.failure_status("packet");
        }
        const status written = plan.coded ? write_coded(plan, prefix + stream.flush()) : write_bit_packed(plan, stream);
        if (!written || plan.large) [[unlikely]] // a large one's slices are sealed one by one
            return written ? c_.guard.can_seal() : written;
        return c_.guard.seal(s_.options_.protocol_id, packet_kind::state,
                             std::span<std::uint8_t>(c_.packet.data(), c_.draft.size));
    }

    /// The draft's view as values, for the encoder: every value it names is
    /// the baseline's or the world's now, so the history has it.
    status materialize_view()
    {
        const view_draft<SlotIndex>& view = c_.draft.view;
        if (!c_.views.materialize(view.refs.data(), view.fields, sc_.view.get(), sc_.view_refs)) [[unlikely]]
            return status(error::no_baseline, 0, s_.layout_.name, "a value of the view left the history");
        return {};
    }

    /// The state section bit-packed, after the head, and the check value.
    status write_bit_packed(const packet_plan& plan, basic_write_stream<scope::replication>& stream)
    {
        if (status made = materialize_view(); !made) [[unlikely]]
            return made;
        const void* view = sc_.view.get();
        bool ok = engine::delta(stream, *s_.layout_.state_entry, plan.base, plan.base, const_cast<void*>(view),
                                element_hints(plan.base, view, true));
        if (ok && s_.options_.check_value) {
            std::uint32_t check = check_value;
            ok = stream.serialize_bits(check, 32);
        }
        if (!ok) [[unlikely]]
            return stream.failure_status(s_.layout_.name);
        c_.draft.size = stream.flush() + (plan.large ? 0 : c_.guard.prefix() + c_.guard.suffix());
        return {};
    }

    /// The state section range coded, from byte `start`: copied from
    /// another client's packet of this tick built from the same views, or
    /// encoded. It fills the budget at most (or the packet, when only what
    /// must go is in it).
    status write_coded(const packet_plan& plan, std::size_t start)
    {
        packet_draft<SlotIndex>& draft = c_.draft;
        const std::size_t suffix = c_.guard.suffix(); // the tag, on the AEAD path
        const std::size_t end = draft.figures.stats.entities_sent != plan.sent_before
                                    ? std::max(plan.budget_bytes, start + suffix)
                                    : s_.options_.max_packet_bytes;
        const std::span<std::uint8_t> room =
            std::span<std::uint8_t>(c_.packet).subspan(start, std::max(start, end - suffix) - start);
        const view_parts base_parts = c_.views.base_parts();
        const view_parts view_parts_{draft.view.refs.data(), &draft.view.fields, draft.view.hash};
        std::size_t coded_bytes = 0;
        const coded_section* shared = sc_.sections.find(s_, plan.older, base_parts, view_parts_);
        if (shared != nullptr && shared->bytes.size() <= room.size()) {
            std::copy(shared->bytes.begin(), shared->bytes.end(), room.begin());
            coded_bytes = shared->bytes.size();
            draft.figures.stats.shared_sections += 1;
        } else {
            if (status coded = encode_coded(plan, room, coded_bytes); !coded) [[unlikely]]
                return coded;
            sc_.sections.keep(s_, plan.older, base_parts, view_parts_, room.first(coded_bytes));
        }
        draft.size = start + coded_bytes + suffix;
        if (plan.exact && draft.figures.stats.entities_sent != plan.sent_before) {
            // Learn from full packets: quickly when coded grew, slowly when it shrank.
            double& ratio = draft.figures.coded_ratio;
            const double sample =
                static_cast<double>(8 * coded_bytes) / static_cast<double>(plan.used_bits - plan.header_bits);
            ratio += (sample - ratio) * (sample > ratio ? 0.5 : 0.125);
        }
        return {};
    }

    /// Range codes the draft's view against the baseline (predicting from
    /// the older view) into `room`; `bytes` is what it took.
    status encode_coded(const packet_plan& plan, std::span<std::uint8_t> room, std::size_t& bytes)
    {
        if (status made = materialize_view(); !made) [[unlikely]]
            return made;
        const void* older = plan.base;
        if (plan.older.refs != nullptr) {
            // Made into values only now (not when the section is copied
            // from another client's packet).
            if (!c_.views.materialize(plan.older.refs, *plan.older.fields, sc_.older.get(), sc_.older_refs))
                [[unlikely]]
                return status(error::no_baseline, 0, s_.layout_.name, "a value of the older view left the history");
            older = sc_.older.get();
        }
        const void* view = sc_.view.get();
        if (status coded = encode_state(room, older, plan.base, view, coded_hints(plan, older, view), bytes); !coded)
            [[unlikely]]
            return coded;
#ifndef NDEBUG
        // The recorded decisions make the same bytes as coding each entity.
        std::size_t direct = 0;
        const std::span<const std::uint8_t> replayed = room.first(bytes);
        const bool same = encode_state(sc_.verify, older, plan.base, view, element_hints(plan.base, view, false),
                                       direct) &&
                          direct == bytes && std::equal(replayed.begin(), replayed.end(), sc_.verify.begin());
        assert(same && "a coded section replayed from records differs from its direct encoding");
#endif
        return {};
    }

    /// Range codes `view` against `base`, predicting from `older`, into
    /// `room` with the given hints; `bytes` is what it took.
    status encode_state(std::span<std::uint8_t> room, const void* older, const void* base, const void* view,
                        engine::element_hints hints, std::size_t& bytes)
    {
        // The models start afresh for each packet, so one set serves every
        // client this scratch encodes for.
        std::fill(sc_.models.begin(), sc_.models.end(), coded_slot{});
        failure_record failure;
        basic_coded_write_stream<scope::replication> coder(room, sc_.models, failure);
        coder.set_ticks(ticks_of(c_.draft.header));
        std::uint32_t check = check_value;
        if (!engine::delta(coder, *s_.layout_.state_entry, older, base, const_cast<void*>(view), hints) ||
            (s_.options_.check_value && !coder.serialize_bits(check, 32)) || !coder.finish(bytes)) [[unlikely]]
            return coder.failure_status(s_.layout_.name);
        return {};
    }

    /// A coded packet's element hints: per shared entity array it takes
    /// nothing from, that the baseline's and the view's are the same; per
    /// array it changes, the slots that changed between the older view and
    /// the baseline, the slots it changes, and each one's recorded
    /// decisions, shared with the clients that send the same.
    engine::element_hints coded_hints(const packet_plan& plan, const void* older, const void* view)
    {
        // The slots the packet takes, in order: marked, then read word by word.
        std::uint64_t* sent = sc_.sent_slots.data();
        for (const auto& [field, id] : c_.draft.view.sent_ids) {
            const std::size_t slot = s_.layout_.array_of(field).first_slot + id;
            sent[slot / 64] |= std::uint64_t{1} << (slot % 64);
        }
        sc_.hint_changed.clear();
        sc_.hint_entries.clear();
        sc_.hint_records.clear();
        std::size_t count = 0;
        std::size_t words = 0;
        for (const entity_array_layout& array : s_.layout_.shared) {
            const void* base_slots = array.slot(plan.base, 0);
            const void* view_slots = array.slot(view, 0);
            // Both lists are reserved for every slot: they do not move.
            const std::size_t first = sc_.hint_changed.size();
            for_each_sent(array, sent, [&](std::size_t id) {
                record(array, id, plan.older.refs, older, plan.base, view);
            });
            if (sc_.hint_changed.size() == first) {
                sc_.hints[count++] = {base_slots, nullptr, 0,      nullptr,          nullptr,
                                      view_slots, nullptr, nullptr, array.ops->entry};
                continue;
            }
            std::uint64_t* before = sc_.hint_before.data() + words;
            words += (array.capacity + 63) / 64;
            changed_before(array, plan.older.refs, older, plan.base, before);
            sc_.hints[count++] = {base_slots,         sc_.hint_changed.data() + first,
                                  sc_.hint_changed.size() - first, nullptr, nullptr, view_slots, before,
                                  sc_.hint_records.data() + first, array.ops->entry};
        }
        // The decisions, once every record is made (making one may move them).
        for (std::size_t k = 0; k < sc_.hint_records.size(); ++k)
            sc_.hint_records[k] = sc_.records.delta_of(*sc_.hint_entries[k]);
        return engine::element_hints(sc_.hints.data(), count);
    }

    /// Calls f(id) for each slot of `array` marked in `sent`, in order, and
    /// clears the marks.
    template <class F>
    static void for_each_sent(const entity_array_layout& array, std::uint64_t* sent, F&& f)
    {
        const std::size_t from = array.first_slot;
        const std::size_t to = from + array.capacity;
        for (std::size_t w = from / 64; w * 64 < to; ++w) {
            std::uint64_t marks = sent[w];
            if (marks == 0)
                continue;
            // Bits of the word outside the array belong to its neighbours.
            const std::size_t low = w * 64 < from ? from - w * 64 : 0;
            const std::size_t high = std::min<std::size_t>(64, to - w * 64);
            const std::uint64_t mine = (high == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << high) - 1) &
                                       ~((std::uint64_t{1} << low) - 1);
            marks &= mine;
            sent[w] &= ~mine;
            for (; marks != 0; marks &= marks - 1)
                f(w * 64 + static_cast<std::size_t>(std::countr_zero(marks)) - from);
        }
    }

    /// Per slot of `array`, whether it changed between the older view (refs
    /// `older_refs`, nullptr: none) and the baseline, as bits into `before`.
    void changed_before(const entity_array_layout& array, const value_ref* older_refs, const void* older,
                        const void* base, std::uint64_t* before)
    {
        const std::size_t words = (array.capacity + 63) / 64;
        std::fill(before, before + words, 0);
        if (older_refs == nullptr)
            return;
        const value_ref* base_refs = c_.views.base_refs().data() + array.first_slot;
        older_refs += array.first_slot;
        for (std::size_t id = 0; id < array.capacity; ++id) {
            if (older_refs[id] == base_refs[id])
                continue;
            const bool same = sc_.records.same_before(array, array.first_slot + id, older_refs[id], base_refs[id],
                                                      array.slot(older, id), array.slot(base, id));
            before[id / 64] |= std::uint64_t{same ? 0u : 1u} << (id % 64);
        }
    }

    /// Slot `id` of `array` as the packet sends it: its recorded decisions
    /// (made now, or for another client this tick) when it differs from the
    /// baseline.
    void record(const entity_array_layout& array, std::size_t id, const value_ref* older_refs, const void* older,
                const void* base, const void* view)
    {
        const std::size_t slot = array.first_slot + id;
        const value_ref base_ref = c_.views.base_refs()[slot];
        const recorded_entry& entry =
            sc_.records.find(array, slot, older_refs != nullptr ? older_refs[slot] : base_ref, base_ref,
                             c_.draft.view.refs[slot], array.slot(older, id), array.slot(base, id),
                             array.slot(view, id), ticks_of(c_.draft.header));
        if (!entry.differs)
            return;
        sc_.hint_changed.push_back(static_cast<std::uint32_t>(id));
        sc_.hint_entries.push_back(&entry);
        sc_.hint_records.emplace_back();
    }

    /// The element hints of this packet, from `base` to `view`: per shared
    /// entity array it takes nothing from, that the two are the same (which
    /// the encoder would otherwise learn by comparing every slot); and, for
    /// the bit-packed encoder (`changes`), per array it changes, the slots
    /// it takes and their cached bits.
    engine::element_hints element_hints(const void* base, const void* view, bool changes)
    {
        auto& sent_ids = c_.draft.view.sent_ids;
        std::size_t count = 0;
        if (!changes) {
            for (const entity_array_layout& array : s_.layout_.shared) {
                const auto in_array = [&](const auto& sent) { return sent.first == array.field; };
                if (std::none_of(sent_ids.begin(), sent_ids.end(), in_array))
                    sc_.hints[count++] = {array.slot(base, 0), nullptr, 0,      nullptr,
                                          nullptr,             array.slot(view, 0), nullptr, nullptr,
                                          array.ops->entry};
            }
            return engine::element_hints(sc_.hints.data(), count);
        }
        std::sort(sent_ids.begin(), sent_ids.end());
        sc_.hint_changed.clear();
        sc_.hint_offsets.clear();
        sc_.hint_bits.clear();
        for (const auto& [field, id] : sent_ids) {
            // take() lists the slots of shared entity arrays only.
            const entity_array_layout& array = s_.layout_.array_of(field);
            const std::size_t slot = array.first_slot + id;
            const value_ref ref = c_.draft.view.refs[slot];
            const void* had = array.slot(base, id);
            const void* target = c_.views.value_of(array, id, ref);
            cached_delta& entry = sc_.cache.find(array, slot, c_.views.base_refs()[slot], ref, had, target);
            c_.draft.figures.stats.shared_entity_deltas += entry.offset != cached_delta::no_words ? 1 : 0;
            const bool has_words = sc_.cache.encode(entry, array, had, target);
            sc_.hint_changed.push_back(id);
            sc_.hint_offsets.push_back(has_words ? entry.offset : cached_delta::no_words);
            sc_.hint_bits.push_back(entry.exact);
        }
        sc_.hint_words.resize(sc_.hint_offsets.size());
        for (std::size_t k = 0; k < sc_.hint_offsets.size(); ++k)
            sc_.hint_words[k] = sc_.hint_offsets[k] == cached_delta::no_words
                                    ? nullptr
                                    : sc_.cache.words.data() + sc_.hint_offsets[k];
        std::size_t start = 0;
        for (const entity_array_layout& array : s_.layout_.shared) {
            std::size_t end = start;
            while (end < sent_ids.size() && sent_ids[end].first == array.field)
                ++end;
            const auto* changed = end != start ? sc_.hint_changed.data() + start : nullptr;
            sc_.hints[count++] = {array.slot(base, 0), changed, end - start,
                                  changed != nullptr ? sc_.hint_words.data() + start : nullptr,
                                  changed != nullptr ? sc_.hint_bits.data() + start : nullptr, array.slot(view, 0),
                                  nullptr, nullptr, array.ops->entry};
            start = end;
        }
        return engine::element_hints(sc_.hints.data(), count);
    }
};

} // namespace bitrep::replication::server_side
