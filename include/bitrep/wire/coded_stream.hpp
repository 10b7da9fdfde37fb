// Coded streams (docs/design/coded-deltas.md): the stream interface of stream.hpp
// over an adaptive binary range coder instead of a bit packer. Every codec
// works on them unchanged; what they add is where the models come from.
//
// A value's leaves each own a slot of models (coded_slot), numbered by
// their place in the reflected type, the elements of a container sharing
// their element type's slots, so that the 901 cubes of a snapshot all
// teach the same models. The delta codecs say which slot they are in
// (enter_slot), give each changed bit its context (serialize_changed), and
// send a changed number as a residual against a prediction from the
// baseline's own history (serialize_index_delta). Anything else a codec
// writes goes through the slot's per-bit-position models.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <bitrep/detail/portability.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/delta_ticks.hpp>
#include <bitrep/wire/range_coder.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep {

namespace detail {

inline constexpr std::size_t coded_classes = 24; // magnitude classes with models of their own; larger share the last

/// The priors of a residual's models (coded_slot::magnitude, sign and
/// mantissa): the probability of a zero in 1/32768ths, 0 where a model
/// starts at 1/2 with nothing seen. They are what the cube training scenes
/// (seeds 101-103 of every script, bench/cubes/score_scenes.sh --set train)
/// decided in each model, pooled over every slot, as (zeros + 0.4) /
/// (decisions + 0.8); models decided fewer than 64 times there keep 1/2.
/// A primed model starts as if it had seen prior_weight decisions: its
/// first decision in a packet moves it a quarter of the way, later ones
/// less (bit_model).
inline constexpr std::uint16_t magnitude_prior[3][4][coded_classes] = {
    {{16068, 16956, 0, 4809, 5322, 6590, 8122, 11784, 16542, 24707, 32683, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {19068, 0, 27702, 9455, 7098, 6527, 8382, 12697, 17195, 22844, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {18501, 0, 17395, 10023, 9501, 9563, 11736, 17781, 21935, 23622, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {15727, 11882, 6984, 7456, 7443, 0, 8177, 13581, 21339, 28430, 31734, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
    {{12339, 18933, 12253, 0, 9133, 14958, 16217, 24050, 21808, 24963, 32402, 32639, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {21419, 18376, 0, 17678, 13898, 19301, 23445, 18340, 19143, 27034, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {16010, 19546, 0, 12085, 14028, 19190, 23967, 22293, 25555, 28471, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {14311, 23071, 17329, 14829, 0, 14569, 17329, 18383, 23769, 28194, 31429, 32640, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
    {{13311, 20072, 10626, 6425, 7517, 0, 7136, 22823, 17704, 23303, 29974, 32647, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {19766, 19698, 0, 17126, 8075, 9458, 11220, 10833, 10611, 19419, 30433, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {16523, 19981, 0, 14224, 9661, 12709, 16707, 20176, 20618, 24154, 28867, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {12045, 21777, 18419, 16678, 14582, 0, 10685, 13600, 16443, 22718, 28438, 32724, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}};
inline constexpr std::uint16_t sign_prior[3] = {19612, 16207, 10395};
inline constexpr std::uint16_t mantissa_prior[coded_classes] = {0, 0, 20838, 18019, 18466, 19667, 12749, 20831, 21369, 24640, 30724, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
inline constexpr std::uint16_t prior_weight = 2;

template <std::size_t N>
constexpr std::array<bit_model, N> primed(const std::uint16_t (&priors)[N]) noexcept
{
    std::array<bit_model, N> models{};
    for (std::size_t i = 0; i < N; ++i)
        if (priors[i] != 0)
            models[i] = bit_model(priors[i], prior_weight);
    return models;
}

constexpr std::array<std::array<std::array<bit_model, coded_classes>, 4>, 3> primed_magnitude() noexcept
{
    std::array<std::array<std::array<bit_model, coded_classes>, 4>, 3> models{};
    for (std::size_t t = 0; t < 3; ++t)
        for (std::size_t q = 0; q < 4; ++q)
            models[t][q] = primed(magnitude_prior[t][q]);
    return models;
}

/// The primed models, built at compile time: a slot copies them.
inline constexpr auto magnitude_models = primed_magnitude();
inline constexpr auto sign_models = primed(sign_prior);
inline constexpr auto mantissa_models = primed(mantissa_prior);

} // namespace detail

/// The models of one slot, all at their priors when constructed.
struct coded_slot {
    static constexpr int classes = static_cast<int>(detail::coded_classes);
    /// Changed bits: [changed between older and base][the previous field or element changed].
    std::array<bit_model, 4> changed{};
    /// Residual magnitude class (its bit length): [the baseline's own
    /// delta: none, small, large][the last residual of this slot in this
    /// entity: none, zero, small, large][decision: 0 whether the class
    /// reaches the context's pivot (detail::class_pivot), k its unary
    /// steps away from it].
    std::array<std::array<std::array<bit_model, classes>, 4>, 3> magnitude = detail::magnitude_models;
    /// Residual sign: [the baseline's own delta: negative, none, positive].
    std::array<bit_model, 3> sign = detail::sign_models;
    /// The bit under a residual's leading one, per class.
    std::array<bit_model, classes> mantissa = detail::mantissa_models;
    /// Bits a codec writes directly (presence, a new entity's values, ...), by position.
    std::array<bit_model, 32> bits{};
    /// The last residual's size bucket sent in this slot, and the entity it was in.
    std::uint32_t residual_entity = 0;
    std::uint8_t residual_bucket = 0;
};

namespace detail {

/// A signed residual's bit length: 0 for 0.
BITREP_ALWAYS_INLINE int magnitude_class(std::uint64_t magnitude) noexcept
{
    return 64 - std::countl_zero(magnitude);
}
BITREP_ALWAYS_INLINE std::size_t size_bucket(std::uint64_t magnitude) noexcept
{
    return magnitude == 0 ? 0 : magnitude < 16 ? 1 : 2;
}

/// The magnitude class a residual's coding starts from, by [the trend's
/// size bucket][the bucket of the entity's previous residual in the slot]
/// (coded_slot::magnitude): per context, the class that needs the fewest
/// decisions on average over the cube training scenes (seeds 101-103 of
/// every script, bench/cubes/score_scenes.sh --set train).
inline constexpr std::uint8_t class_pivot[3][4] = {{2, 1, 1, 5}, {3, 2, 2, 4}, {5, 2, 2, 5}};

/// Numbers up to 2^62 wide get residuals; wider ones are sent as bits.
inline constexpr std::uint64_t widest_predicted_span = std::uint64_t{1} << 62;

} // namespace detail

/// What coded write and read share: the modelling. Derived supplies
/// code(model, bit) (encode or decode one decision, returning the bit) and
/// code_direct(value, count).
template <class Derived>
class coded_primitives : public stream_primitives<Derived> {
public:
    static constexpr bool is_coded = true;
    /// Whether the stream records decisions (basic_coded_record_stream)
    /// rather than coding them.
    static constexpr bool is_recording = false;

    coded_primitives(std::span<coded_slot> slots, failure_record& record) noexcept
        : stream_primitives<Derived>(record), slots_(slots)
    {
    }

    /// Each bit through the slot's model for its position in the group.
    BITREP_ALWAYS_INLINE bool serialize_bits(std::uint32_t& value, int bits)
    {
        std::uint32_t result = 0;
        coded_slot& models = slot();
        for (int k = bits - 1; k >= 0; --k) {
            const bool bit = self().code(models.bits[static_cast<std::size_t>(k & 31)], ((value >> k) & 1u) != 0);
            result = (result << 1) | (bit ? 1u : 0u);
        }
        if constexpr (Derived::is_reading)
            value = result;
        return self().check_input();
    }
    using stream_primitives<Derived>::serialize_bits;

    /// Alignment means nothing inside a range coder's output.
    BITREP_ALWAYS_INLINE bool serialize_align() noexcept { return true; }

    BITREP_ALWAYS_INLINE bool serialize_bytes(std::uint8_t* data, std::size_t count)
    {
        for (std::size_t i = 0; i < count; ++i) {
            const std::uint32_t byte = self().code_direct(data[i], 8);
            if constexpr (Derived::is_reading)
                data[i] = static_cast<std::uint8_t>(byte);
        }
        return self().check_input();
    }

    struct slot_guard {
        coded_primitives* stream;
        std::size_t offset;
        ~slot_guard() { stream->slot_ -= offset; }
    };
    [[nodiscard]] BITREP_ALWAYS_INLINE slot_guard enter_slot(std::size_t offset) noexcept
    {
        slot_ += offset;
        assert(slot_ < slots_.size());
        return {this, offset};
    }

    BITREP_ALWAYS_INLINE void begin_entity() noexcept
    {
        previous_changed_ = false;
        ++entity_;
    }

    /// Whether the last changed bit of the entity being coded was set: the
    /// context of the next one. A replayed entity (basic_coded_write_stream::
    /// replay) leaves it as its recording did.
    bool previous_changed() const noexcept { return previous_changed_; }

    BITREP_ALWAYS_INLINE bool serialize_changed(bool& changed, bool changed_before)
    {
        const std::size_t context = (changed_before ? 2u : 0u) + (previous_changed_ ? 1u : 0u);
        changed = self().code(slot().changed[context], changed);
        previous_changed_ = changed;
        return self().check_input();
    }

    /// An element's changed bit, in the container's own context: the caller
    /// says whether the element before it changed.
    BITREP_ALWAYS_INLINE bool serialize_element_changed(bool& changed, bool changed_before, bool previous)
    {
        const std::size_t context = (changed_before ? 2u : 0u) + (previous ? 1u : 0u);
        changed = self().code(slot().changed[context], changed);
        return self().check_input();
    }

    /// A number in [0, span] that differs from `base`, sent as its residual
    /// against the prediction base + (base - older) (the baseline when that
    /// leaves the range): its magnitude class (from a pivot), the sign, the bit
    /// under the leading one, then the rest as direct bits. Writers refuse an
    /// index above span, readers a decoded one.
    BITREP_ALWAYS_INLINE bool serialize_index_delta(std::uint64_t& index, std::uint64_t base, std::uint64_t older,
                                                    std::uint64_t span)
    {
        if (span >= detail::widest_predicted_span) [[unlikely]]
            return this->serialize_ranged_offset(index, span);
        // In [0, 2^62): every difference below fits an int64.
        const auto b = static_cast<std::int64_t>(base);
        const std::int64_t trend = b - static_cast<std::int64_t>(older);
        const std::int64_t extrapolated = b + trend;
        const bool inside = extrapolated >= 0 && extrapolated <= static_cast<std::int64_t>(span);
        return residual(index, inside ? extrapolated : b, trend, span);
    }

    /// serialize_index_delta against `predicted` (a type's own prediction,
    /// predict.hpp), in [0, span]: the trend its contexts see is
    /// predicted - base.
    BITREP_ALWAYS_INLINE bool serialize_index_predicted(std::uint64_t& index, std::uint64_t base,
                                                        std::uint64_t predicted, std::uint64_t span)
    {
        if (span >= detail::widest_predicted_span) [[unlikely]]
            return this->serialize_ranged_offset(index, span);
        const auto b = static_cast<std::int64_t>(base);
        const auto p = static_cast<std::int64_t>(predicted);
        return residual(index, p, p - b, span);
    }

    /// The ticks between the states of the delta being coded, which a type's
    /// own prediction is given (predict.hpp).
    const delta_ticks& ticks() const noexcept { return ticks_; }
    void set_ticks(const delta_ticks& ticks) noexcept { ticks_ = ticks; }

protected:
    Derived& self() noexcept { return static_cast<Derived&>(*this); }
    BITREP_ALWAYS_INLINE coded_slot& slot() noexcept { return slots_[slot_]; }
    void set_previous_changed(bool changed) noexcept { previous_changed_ = changed; }
    /// The models of the current slot, as bytes: where a recording's model
    /// offsets count from.
    unsigned char* slot_bytes() noexcept { return reinterpret_cast<unsigned char*>(slots_.data() + slot_); }

private:
    /// `index` (in [0, span], span below 2^62) as its residual against
    /// `predicted` (also in range), with `trend` (the motion the prediction
    /// expects) as the context of its size and sign.
    BITREP_ALWAYS_INLINE bool residual(std::uint64_t& index, std::int64_t predicted, std::int64_t trend,
                                       std::uint64_t span)
    {
        const std::size_t start = this->position();
        if constexpr (Derived::is_writing) {
            if (index > span) [[unlikely]]
                return this->fail(error::value_out_of_range, start, "value outside its declared range");
        }
        std::int64_t residual = 0;
        if constexpr (!Derived::is_reading)
            residual = static_cast<std::int64_t>(index) - predicted;
        const std::uint64_t size = magnitude_of(residual);
        coded_slot& models = slot();
        const int cls = code_magnitude_class(models, magnitude_of(trend), detail::magnitude_class(size),
                                             detail::magnitude_class(span));
        bool negative = residual < 0;
        const std::uint64_t magnitude = code_magnitude(models, cls, size, trend, negative);
        models.residual_entity = entity_;
        models.residual_bucket = static_cast<std::uint8_t>(cls == 0 ? 1 : cls <= 2 ? 2 : 3);
        if (!self().check_input())
            return false;
        if constexpr (Derived::is_reading) {
            const std::int64_t value =
                predicted + (negative ? -static_cast<std::int64_t>(magnitude) : static_cast<std::int64_t>(magnitude));
            if (magnitude > span || value < 0 || value > static_cast<std::int64_t>(span)) [[unlikely]]
                return this->fail(error::out_of_range, start, "decoded value outside the range");
            index = static_cast<std::uint64_t>(value);
        }
        return true;
    }

    BITREP_ALWAYS_INLINE static std::uint64_t magnitude_of(std::int64_t value) noexcept
    {
        return value < 0 ? 0 - static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value);
    }

    /// serialize_index_delta's magnitude class `cls`, at most `max_class`,
    /// in models picked by the trend's size and by the class of the entity's
    /// previous residual: first whether it reaches the context's pivot
    /// class, then in unary away from the pivot (up: `cls > k` for k =
    /// pivot, pivot + 1, ...; down: `cls < k` for k = pivot - 1, ..., 1).
    /// Returns the class coded.
    BITREP_ALWAYS_INLINE int code_magnitude_class(coded_slot& models, std::uint64_t trend_size, int cls,
                                                  int max_class)
    {
        if (max_class == 0)
            return 0;
        const std::size_t sibling = models.residual_entity == entity_ ? models.residual_bucket : 0u;
        const std::size_t trend = detail::size_bucket(trend_size);
        auto& m = models.magnitude[trend][sibling];
        const int pivot = std::min(static_cast<int>(detail::class_pivot[trend][sibling]), max_class);
        const bool up = self().code(m[0], cls >= pivot);
        // One loop for both ways: up, `cls > k` in m[k + 1] until max_class;
        // down, `cls < k` in m[k] until 0.
        int k = up ? pivot : pivot - 1;
        const int end = up ? max_class : 0;
        const int step = up ? 1 : -1;
        const int model_offset = up ? 1 : 0;
        for (; k != end; k += step) {
            const bool further = up ? cls > k : cls < k;
            if (!self().code(m[static_cast<std::size_t>(std::min(k + model_offset, coded_slot::classes - 1))], further))
                break;
        }
        return k;
    }

    /// serialize_index_delta's residual below its class: the sign (modelled
    /// by the trend's sign), the adaptive bit under the leading one, then
    /// the rest as direct bits. Returns the magnitude coded.
    BITREP_ALWAYS_INLINE std::uint64_t code_magnitude(coded_slot& models, int cls, std::uint64_t size,
                                                      std::int64_t trend, bool& negative)
    {
        if (cls == 0)
            return 0;
        negative = self().code(models.sign[trend < 0 ? 0u : trend == 0 ? 1u : 2u], negative);
        std::uint64_t magnitude = 1;
        if (cls > 1) {
            const int below = cls - 2; // bits after the adaptive one
            const bool top = self().code(models.mantissa[static_cast<std::size_t>(std::min(cls, coded_slot::classes - 1))],
                                         ((size >> below) & 1u) != 0);
            magnitude = (magnitude << 1) | (top ? 1u : 0u);
            for (int done = 0; done < below;) {
                const int chunk = std::min(16, below - done);
                const int shift = below - done - chunk;
                const std::uint32_t part = self().code_direct(
                    static_cast<std::uint32_t>((size >> shift) & ((std::uint64_t{1} << chunk) - 1)), chunk);
                magnitude = (magnitude << chunk) | part;
                done += chunk;
            }
        }
        return magnitude;
    }

private:
    std::span<coded_slot> slots_;
    std::size_t slot_ = 0;
    bool previous_changed_ = false;
    std::uint32_t entity_ = 1;
    delta_ticks ticks_{};
};

/// One entity's coded decisions, recorded once (basic_coded_record_stream)
/// and coded into any packet that sends the same delta from the same
/// states (basic_coded_write_stream::replay): the replication server shares
/// them between clients whose packets differ. Each op is a decision, its
/// model given as an offset from the entity's first slot, or a run of
/// direct bits.
struct recorded_delta {
    const std::uint32_t* ops = nullptr; ///< nullptr: none recorded; code the entity
    std::uint32_t count = 0;
    /// The entity's last changed bit (the next changed bit's context).
    bool previous_changed = false;
};

namespace detail {
/// An op with this bit set is a run of direct bits: count in bits 16-20,
/// value in bits 0-15. Otherwise it is a decision: the model's offset in
/// bytes (even) with the bit in its lowest bit.
inline constexpr std::uint32_t direct_op = 0x80000000u;
static_assert(alignof(bit_model) >= 2, "a recorded model's offset is even: its lowest bit carries the decision");
} // namespace detail

template <scope Scope = scope::replication>
class basic_coded_write_stream : public coded_primitives<basic_coded_write_stream<Scope>> {
public:
    static constexpr bool is_writing = true;
    static constexpr bool is_reading = false;
    static constexpr bool is_measuring = false;
    static constexpr bitrep::scope field_scope = Scope;

    basic_coded_write_stream(std::span<std::uint8_t> buffer, std::span<coded_slot> slots, failure_record& record) noexcept
        : coded_primitives<basic_coded_write_stream>(slots, record), encoder_(buffer)
    {
    }

    BITREP_ALWAYS_INLINE bool code(bit_model& model, bool bit) noexcept
    {
        encoder_.encode(model, bit);
        return bit;
    }
    BITREP_ALWAYS_INLINE std::uint32_t code_direct(std::uint32_t value, int count) noexcept
    {
        encoder_.encode_direct(value, count);
        return value;
    }
    BITREP_ALWAYS_INLINE bool check_input() noexcept { return true; }

    /// Codes an entity's recorded decisions with the models at the current
    /// slot, as coding the entity itself would (after begin_entity()).
    BITREP_ALWAYS_INLINE void replay(const recorded_delta& delta) noexcept
    {
        unsigned char* models = this->slot_bytes();
        // A copy the compiler keeps in registers: the models' stores cannot reach it.
        detail::range_encoder encoder = encoder_;
        for (const std::uint32_t* op = delta.ops; op != delta.ops + delta.count; ++op) {
            if ((*op & detail::direct_op) != 0)
                encoder.encode_direct(*op & 0xFFFFu, static_cast<int>((*op >> 16) & 0x1Fu));
            else
                encoder.encode(*reinterpret_cast<bit_model*>(models + static_cast<std::size_t>(*op & ~1u)), (*op & 1u) != 0);
        }
        encoder_ = encoder;
        this->set_previous_changed(delta.previous_changed);
    }

    /// Settles the packet; its length in bytes, or nothing when the buffer
    /// was too small (recorded as buffer_too_small).
    [[nodiscard]] bool finish(std::size_t& bytes)
    {
        bytes = encoder_.finish();
        if (encoder_.overflowed()) [[unlikely]]
            return this->fail(error::buffer_too_small, bit_position(), "output buffer is full");
        return true;
    }

    std::size_t bit_position() const noexcept { return encoder_.bytes_settled() * 8; }

private:
    detail::range_encoder encoder_;
};

/// Records the decisions a coded write stream would code, for replay:
/// recorded from an entity's first slot (its own models, which it never
/// changes but for the per-entity residual state), they replay into any
/// packet's models at that entity's slot. Values a codec of its own writes
/// (a hook) are not recorded: the recording fails and the entity is coded
/// directly.
template <scope Scope = scope::replication>
class basic_coded_record_stream : public coded_primitives<basic_coded_record_stream<Scope>> {
public:
    static constexpr bool is_writing = true;
    static constexpr bool is_reading = false;
    static constexpr bool is_measuring = false;
    static constexpr bool is_recording = true;
    static constexpr bitrep::scope field_scope = Scope;

    /// Records into `ops`, with `slots` (the entity's slot count) as the
    /// entity's models; each recording starts with begin_entity().
    basic_coded_record_stream(std::vector<std::uint32_t>& ops, std::span<coded_slot> slots,
                              failure_record& record) noexcept
        : coded_primitives<basic_coded_record_stream>(slots, record), ops_(ops)
    {
        for (coded_slot& slot : slots)
            slot.residual_entity = 0;
        base_ = this->slot_bytes();
    }

    BITREP_ALWAYS_INLINE bool code(bit_model& model, bool bit)
    {
        // Models are 2-byte aligned: the offset's lowest bit carries the bit.
        const auto offset = static_cast<std::uint32_t>(reinterpret_cast<unsigned char*>(&model) - base_);
        ops_.push_back(offset | (bit ? 1u : 0u));
        return bit;
    }
    BITREP_ALWAYS_INLINE std::uint32_t code_direct(std::uint32_t value, int count)
    {
        ops_.push_back(detail::direct_op | static_cast<std::uint32_t>(count) << 16 | value);
        return value;
    }
    BITREP_ALWAYS_INLINE bool check_input() noexcept { return true; }
    std::size_t bit_position() const noexcept { return 0; }

private:
    std::vector<std::uint32_t>& ops_;
    unsigned char* base_ = nullptr;
};

template <scope Scope = scope::replication>
class basic_coded_read_stream : public coded_primitives<basic_coded_read_stream<Scope>> {
public:
    static constexpr bool is_writing = false;
    static constexpr bool is_reading = true;
    static constexpr bool is_measuring = false;
    static constexpr bitrep::scope field_scope = Scope;

    basic_coded_read_stream(std::span<const std::uint8_t> bytes, std::span<coded_slot> slots, failure_record& record) noexcept
        : coded_primitives<basic_coded_read_stream>(slots, record), decoder_(bytes), size_(bytes.size())
    {
    }

    BITREP_ALWAYS_INLINE bool code(bit_model& model, bool) noexcept { return decoder_.decode(model); }
    BITREP_ALWAYS_INLINE std::uint32_t code_direct(std::uint32_t, int count) noexcept { return decoder_.decode_direct(count); }
    /// Refuses a packet once decoding has needed more than its bytes (and
    /// the coder's four of lookahead): no encoder wrote it.
    BITREP_ALWAYS_INLINE bool check_input() noexcept
    {
        if (decoder_.overran()) [[unlikely]]
            return this->fail(error::truncated, size_ * 8, "coded input ends before the value");
        return true;
    }

    /// At the end of a packet: refuses bytes left unread (no encoder wrote
    /// them) and a packet that needed more than its bytes.
    [[nodiscard]] bool finish() noexcept
    {
        if (!check_input()) [[unlikely]]
            return false;
        if (!decoder_.consumed_all()) [[unlikely]]
            return this->fail(error::trailing_data, bit_position(), "bytes left over after the coded state");
        return true;
    }

    std::size_t bit_position() const noexcept { return decoder_.bytes_read() * 8; }
    /// Codecs bound what they allocate by the bits left; a coded element can
    /// cost far less than a bit, so here that bound is the declared maximum
    /// of every container and string alone.
    std::size_t bits_remaining() const noexcept { return std::size_t{1} << 60; }

private:
    detail::range_decoder decoder_;
    std::size_t size_;
};

} // namespace bitrep
