// The schema-driven load's second pass on the engine (docs/formats/save-format.md,
// section 3): a save file written by another shape of the program's type is
// read by its own schema, node by node, into the program's value, walked
// over the value's entries. bind() matched the two schemas once per load
// (src/schema_bind.cpp), so a struct's field costs a table lookup here, not
// a name comparison. A subtree the program encodes as the file does is read
// by the kinds' own rules (values.hpp); everything else is converted, and a
// value that does not fit the program's type is refused (out_of_range).
#include <bitrep/save/load_plan.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <string_view>
#include <utility>

#include <bitrep/codecs/duration.hpp>
#include <bitrep/detail/portability.hpp>
#include <bitrep/engine/entries.hpp>

#include "kinds.hpp"
#include "values.hpp"

namespace bitrep::engine {

namespace {

using bitrep::detail::integer_value;
using bitrep::detail::load_plan;
using bitrep::detail::real_value;
using bitrep::detail::save_read_stream;
using bytes = unsigned char;

const bytes* at(const void* p, std::size_t offset) noexcept
{
    return static_cast<const bytes*>(p) + offset;
}

std::uint32_t field_offset(const type_table& t, std::uint32_t i) noexcept
{
    if (!t.ready->load(std::memory_order_acquire)) [[unlikely]]
        t.compute_offsets();
    return t.offsets[i].load(std::memory_order_relaxed);
}

/// The least magnitude a double rounds to a float's infinity from: the
/// largest float plus half its last step.
constexpr double float_overflow = 0x1.ffffffp127;

BITREP_COLD BITREP_NOINLINE bool does_not_fit(save_read_stream& stream, std::size_t start, std::string_view why)
{
    return stream.fail(error::out_of_range, start, why);
}

/// Refuses a file's value whose enumerator, flag or alternative `name` the
/// program's `what` does not have, saying how a renamed one is kept. The
/// text is composed on the stack: a read path does not allocate to fail.
BITREP_COLD BITREP_NOINLINE bool name_not_in_program(save_read_stream& stream, std::size_t start,
                                                      std::string_view name, std::string_view what)
{
    const bitrep::detail::status_text<status::max_detail_length + 1> text(
        {"no `", name, "` in the program's ", what, ": if renamed, list the old name in bitrep_renames"});
    return stream.fail(error::out_of_range, start, text.view());
}

/// An integer's range as two's complement patterns, signed or not.
struct integer_range {
    std::uint64_t min = 0;
    std::uint64_t max = 0;
    bool is_signed = false;

    /// An integer of `width` bytes, all its values.
    static integer_range of_width(unsigned width, bool is_signed) noexcept
    {
        const unsigned bits = width * 8;
        if (is_signed) {
            const std::uint64_t top = (std::uint64_t{1} << (bits - 1)) - 1;
            return {~top, top, true};
        }
        return {0, bits >= 64 ? std::numeric_limits<std::uint64_t>::max() : (std::uint64_t{1} << bits) - 1, false};
    }
    /// A ranged<Int, Min, Max> entry's.
    static integer_range of_ranged(const field_entry& e) noexcept { return {e.ranged.min, e.ranged.min + e.ranged.span, e.is_signed}; }

    bool holds(const integer_value& value) const noexcept
    {
        if (is_signed) {
            const auto lo = static_cast<std::int64_t>(min);
            const auto hi = static_cast<std::int64_t>(max);
            if (value.negative()) {
                const auto v = static_cast<std::int64_t>(value.pattern);
                return lo <= v && v <= hi;
            }
            return std::cmp_less_equal(lo, value.pattern) && std::cmp_less_equal(value.pattern, hi);
        }
        return !value.negative() && min <= value.pattern && value.pattern <= max;
    }
    /// The bound nearest a value the range does not hold.
    std::uint64_t nearest_bound(const integer_value& value) const noexcept
    {
        bool below = false;
        if (value.negative())
            below = !is_signed || static_cast<std::int64_t>(value.pattern) < static_cast<std::int64_t>(min);
        else
            below = is_signed ? std::cmp_less(value.pattern, static_cast<std::int64_t>(min)) : value.pattern < min;
        return below ? min : max;
    }
};

/// How a count in the file's period becomes one in the program's: times
/// num / den, reduced. False when the terms do not fit 63 bits.
bool duration_scale(bitrep::detail::duration_period file, bitrep::detail::duration_period program,
                    bitrep::detail::duration_period& scale) noexcept
{
    // (file.num / file.den) / (program.num / program.den)
    const std::uint64_t g1 = std::gcd(file.num, program.num);
    const std::uint64_t g2 = std::gcd(file.den, program.den);
    if (bitrep::detail::mul_overflow(file.num / g1, program.den / g2, &scale.num) ||
        bitrep::detail::mul_overflow(file.den / g2, program.num / g1, &scale.den))
        return false;
    const std::uint64_t g = std::gcd(scale.num, scale.den);
    scale.num /= g;
    scale.den /= g;
    constexpr auto limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    return scale.num <= limit && scale.den <= limit;
}

/// An integer times num / den, when the result is a whole number that fits
/// 64 bits.
bool scale_integer(integer_value& value, bitrep::detail::duration_period scale) noexcept
{
    if (value.negative()) {
        auto n = static_cast<std::int64_t>(value.pattern);
        if (n % static_cast<std::int64_t>(scale.den) != 0)
            return false;
        n /= static_cast<std::int64_t>(scale.den);
        std::int64_t result = 0;
        if (bitrep::detail::mul_overflow(n, static_cast<std::int64_t>(scale.num), &result))
            return false;
        value.pattern = static_cast<std::uint64_t>(result);
        return true;
    }
    if (value.pattern % scale.den != 0)
        return false;
    if (bitrep::detail::mul_overflow(value.pattern / scale.den, scale.num, &value.pattern))
        return false;
    value.is_signed = false; // not negative, whatever its top bit
    return true;
}

struct loader {
    save_read_stream& stream;
    load_plan& plan;
    /// The section's root, whose migrate the caller runs (decode_section).
    const field_entry& root;
    /// The load's working memory (proxies' wire objects, maps' entries).
    scratch& work;

    const schema_node& node(std::uint32_t f) const noexcept { return plan.file.nodes[f]; }

    bool fail_field(std::uint32_t c)
    {
        bitrep::detail::enter_schema_field(stream.failure(), node(c));
        return false;
    }

    bool fail_index(std::size_t i)
    {
        stream.enter_index(i);
        return false;
    }

    /// A value the file's node `f` held (read from `start`) outside the
    /// program's range: refused (out_of_range, `why`), or, with
    /// load_options::clamp_out_of_range and a bound nearest to it (`clamps`:
    /// NaN has none), counted against `f` for load_info::clamped_fields; the
    /// caller then stores that bound.
    bool outside_range(std::uint32_t f, std::size_t start, std::string_view why, bool clamps = true)
    {
        if (plan.clamped.empty() || !clamps)
            return does_not_fit(stream, start, why);
        ++plan.clamped[f];
        return true;
    }

    /// An integer the file's node `f` held (read from `start`) into the
    /// program's range, stored at `width` bytes.
    bool store_within(std::uint32_t f, std::size_t start, integer_range range, integer_value value, unsigned width,
                      bytes* p, std::string_view why)
    {
        if (!range.holds(value)) [[unlikely]] {
            if (!outside_range(f, start, why))
                return false;
            value.pattern = range.nearest_bound(value);
        }
        kinds::store_integer(p, width, value.pattern);
        return true;
    }

    /// An integer of any file kind into the program's range, stored at the
    /// entry's width.
    bool integer_within(std::uint32_t f, const field_entry& e, integer_range range, bytes* p, std::string_view why)
    {
        const std::size_t start = stream.position();
        integer_value value;
        if (!bitrep::detail::read_integer(stream, node(f), value))
            return false;
        return store_within(f, start, range, value, e.width, p, why);
    }

    /// A number the file's node `f` held (read from `start`) into the
    /// program's float, double or quantized float: the rule of the program's
    /// real kinds for every value converted into one
    /// (docs/formats/save-format.md, section 3). An integer must arrive
    /// exactly. A real is rounded to the nearest value the target holds,
    /// within its range: a float's finite values (infinities and NaN carry
    /// over as they are), a quantized float's bounds (accept_quantized).
    bool accept_real(std::uint32_t f, const field_entry& e, std::size_t start, const real_value& number, bytes* p)
    {
        if (e.kind == kind::quantized)
            return accept_quantized(f, *e.schema, start, number.value, p);
        const bool wide = e.kind == kind::float64;
        if (number.integral &&
            !number.whole.exact_in(wide ? std::numeric_limits<double>::digits : std::numeric_limits<float>::digits))
            [[unlikely]]
            return does_not_fit(stream, start,
                                wide ? "the program's double cannot hold the file's integer exactly"
                                     : "the program's float cannot hold the file's integer exactly");
        if (wide) {
            *reinterpret_cast<double*>(p) = number.value;
            return true;
        }
        double value = number.value;
        if (std::isfinite(value) && !(std::abs(value) < float_overflow)) [[unlikely]] {
            if (!outside_range(f, start, "the file's value is outside the program's float range"))
                return false;
            value = std::copysign(double{std::numeric_limits<float>::max()}, value);
        }
        *reinterpret_cast<float*>(p) = static_cast<float>(value);
        return true;
    }

    /// A real into a quantized float of the `declared` range: within half a
    /// step of its range it loads as the edge, the quantum a save of it
    /// would have sent, so that the loaded value can be saved again.
    bool accept_quantized(std::uint32_t f, const schema_info& declared, std::size_t start, double value, bytes* p)
    {
        const double slack = 0.5 * static_cast<double>(declared.resolution);
        if (!(value >= declared.min - slack && value <= declared.max + slack) &&
            !outside_range(f, start, "the file's value is outside the program's range", !std::isnan(value)))
            [[unlikely]]
            return false;
        *reinterpret_cast<float*>(p) =
            static_cast<float>(std::clamp(value, static_cast<double>(declared.min), static_cast<double>(declared.max)));
        return true;
    }

    bool real(std::uint32_t f, const field_entry& e, bytes* p)
    {
        const std::size_t start = stream.position();
        real_value number;
        if (!bitrep::detail::read_real(stream, node(f), number))
            return false;
        return accept_real(f, e, start, number, p);
    }

    bool enumeration(std::uint32_t f, const field_entry& e, bytes* p)
    {
        const std::size_t start = stream.position();
        std::uint64_t index = 0;
        if (!bitrep::detail::read_enum_index(stream, node(f), index))
            return false;
        const std::int32_t mine = plan.target[f + 1 + index];
        if (mine < 0) [[unlikely]]
            return name_not_in_program(stream, start, node(f + 1 + static_cast<std::uint32_t>(index)).name, "enum");
        const auto i = static_cast<std::size_t>(mine);
        kinds::store_integer(p, e.width, e.enumeration.values == nullptr ? i : e.enumeration.values[i]);
        return true;
    }

    /// A file's flags (a struct of bools) into a flag enum, matched by name:
    /// a flag the file lacks is clear, and a set flag the program no longer
    /// has is refused (clear, it is nothing lost). A file's field that is no
    /// bool and no flag (a struct that became a flag enum) is skipped by its
    /// kind, as a struct's dropped field is, and bind() listed it as dropped.
    bool flags(std::uint32_t f, const field_entry& e, bytes* p)
    {
        std::uint64_t word = 0;
        for (std::uint32_t c = f + 1; c < node(f).end; c = node(c).end) {
            const std::size_t start = stream.position();
            const std::int32_t flag = plan.target[c];
            bool set = false;
            const bool ok = flag < 0 && node(c).kind != schema_kind::boolean
                                ? bitrep::detail::skip_value(stream, plan.file, c, plan.budget)
                                : value(c, entry_v<bool>, reinterpret_cast<bytes*>(&set));
            if (!ok) [[unlikely]]
                return fail_field(c);
            if (set && flag < 0) [[unlikely]] {
                name_not_in_program(stream, start, node(c).name, "flag enum");
                return fail_field(c);
            }
            if (set)
                word |= std::uint64_t{1} << flag;
        }
        kinds::store_integer(p, e.width,
                             bitrep::detail::flags_of_word(word, e.flags.masks, static_cast<std::size_t>(e.flags.count)));
        return true;
    }

    bool string(std::uint32_t f, const field_entry& e, bytes* p)
    {
        const std::size_t start = stream.position();
        std::string& out = *reinterpret_cast<std::string*>(p);
        if (!stream.serialize_string(out, static_cast<std::size_t>(node(f).max) + 1))
            return false;
        if (out.size() > e.bounded.max) [[unlikely]]
            return does_not_fit(stream, start, "the file's string is longer than the program's bound");
        return true;
    }

    /// A vector node's count, at most `most`, which what is left of the
    /// payload must be able to hold.
    bool bounded_count(std::uint32_t f, std::uint64_t most, std::string_view longer, std::uint64_t& count)
    {
        const std::size_t start = stream.position();
        if (!bitrep::detail::read_list_count(stream, node(f), count))
            return false;
        if (count > most) [[unlikely]]
            return does_not_fit(stream, start, longer);
        return bitrep::detail::count_fits_input(stream, count, plan.min_bits[f + 1]);
    }

    bool vector(std::uint32_t f, const field_entry& e, bytes* p)
    {
        std::uint64_t count = 0;
        if (!bounded_count(f, e.bounded.max, "the file's vector is longer than the program's bound", count))
            return false;
        const auto n = static_cast<std::size_t>(count);
        e.container->resize(p, n);
        auto* data = static_cast<bytes*>(e.container->data(p));
        for (std::size_t i = 0; i < n; ++i)
            if (!value(f + 1, *e.element, data + i * e.stride)) [[unlikely]]
                return fail_index(i);
        return true;
    }

    bool bit_vector(std::uint32_t f, const field_entry& e, bytes* p)
    {
        std::uint64_t count = 0;
        if (!bounded_count(f, e.bounded.max, "the file's vector is longer than the program's bound", count))
            return false;
        const auto n = static_cast<std::size_t>(count);
        e.bits->resize(p, n);
        for (std::size_t i = 0; i < n; ++i) {
            bool bit = false;
            if (!value(f + 1, entry_v<bool>, reinterpret_cast<bytes*>(&bit))) [[unlikely]]
                return fail_index(i);
            e.bits->assign(p, i, bit);
        }
        return true;
    }

    /// A file's array or vector into a fixed number `n` of the program's
    /// elements (`read(i)` reads element i): a longer list is refused, and
    /// the elements the file lacks get `reset(i)`.
    template <class Read, class Reset>
    bool fixed_list(std::uint32_t f, std::size_t n, std::string_view longer, Read read, Reset reset)
    {
        const std::size_t start = stream.position();
        std::uint64_t count = 0;
        if (!bitrep::detail::read_list_count(stream, node(f), count))
            return false;
        if (count > n) [[unlikely]]
            return does_not_fit(stream, start, longer);
        for (std::size_t i = 0; i < count; ++i)
            if (!read(i)) [[unlikely]]
                return fail_index(i);
        for (auto i = static_cast<std::size_t>(count); i < n; ++i)
            reset(i);
        return true;
    }

    /// An array the file holds fewer elements of gives the rest their
    /// defaults.
    bool array(std::uint32_t f, const field_entry& e, bytes* p)
    {
        const field_entry& element = *e.element;
        return fixed_list(
            f, static_cast<std::size_t>(e.fixed.count), "the file's array is longer than the program's",
            [&](std::size_t i) { return value(f + 1, element, p + i * e.stride); },
            [&](std::size_t i) { assign_value(element, p + i * e.stride, element.defaults); });
    }

    /// A file's array or vector of bools (a bitset's schema) into a bitset;
    /// the bits the file lacks are 0, and a longer list is refused.
    bool bitset(std::uint32_t f, const field_entry& e, bytes* p)
    {
        return fixed_list(
            f, static_cast<std::size_t>(e.fixed.count), "the file's bitset is longer than the program's",
            [&](std::size_t i) {
                bool bit = false;
                if (!value(f + 1, entry_v<bool>, reinterpret_cast<bytes*>(&bit)))
                    return false;
                e.bitset->set_word(p, i, 1, bit ? 1 : 0);
                return true;
            },
            [&](std::size_t i) { e.bitset->set_word(p, i, 1, 0); });
    }

    /// A file's list of pairs (a map's schema) or of keys (a set's) into a
    /// bounded map or set: in any order (a vector's, too), a key given twice
    /// refused (duplicate_key), a list longer than the bound refused.
    bool map(std::uint32_t f, const field_entry& e, bytes* p)
    {
        std::uint64_t count = 0;
        if (!bounded_count(f, e.bounded.max, "the file holds more entries than the program's bound", count))
            return false;
        e.map->clear(p);
        for (std::uint64_t i = 0; i < count; ++i) {
            const std::size_t start = stream.position();
            const scratch_scope held(work);
            void* entry = e.map->fresh(work);
            if (!value(f + 1, *e.element, static_cast<bytes*>(entry)) ||
                (!e.map->insert(p, entry) && !bitrep::detail::refuse_duplicate_key(stream, start, e.map->has_values)))
                [[unlikely]]
                return fail_index(static_cast<std::size_t>(i));
        }
        return true;
    }

    /// After the file's node `f` was read (from `start`) into a value of a
    /// struct or hook type: its migrate, when the file's version of the type
    /// is older than the program's (bind() refused a newer one). The root's
    /// runs once its whole section is read (decode_section).
    bool migrated(std::uint32_t f, const field_entry& e, bytes* p, std::size_t start)
    {
        const schema_info& info = *e.schema;
        if (node(f).version >= info.save_version || info.migrate == nullptr || &e == &root) [[likely]]
            return true;
        if (info.migrate(p, node(f).version))
            return true;
        return stream.fail(error::hook_failed, start, "migrate(from_version) refused the file");
    }

    /// A file's struct into a reflected class's fields (bind() matched
    /// them by name, else by position) or a pair's or tuple's members (by
    /// position); a field the file lacks gets its default. Then its migrate.
    bool structure(std::uint32_t f, const field_entry& e, bytes* p)
    {
        const std::size_t start = stream.position();
        const type_table& t = *e.nested;
        for (std::uint32_t c = f + 1; c < node(f).end; c = node(c).end) {
            const std::int32_t position = plan.target[c];
            bool ok;
            if (position < 0) {
                ok = bitrep::detail::skip_value(stream, plan.file, c, plan.budget);
            } else {
                const auto i = static_cast<std::uint32_t>(position);
                ok = value(c, t.fields[i], p + field_offset(t, i));
            }
            if (!ok) [[unlikely]]
                return fail_field(c);
        }
        const auto [begin, stop] = plan.missing[f];
        for (std::uint32_t k = begin; k < stop; ++k) {
            const std::uint32_t i = plan.missing_fields[k];
            const std::uint32_t offset = field_offset(t, i);
            assign_value(t.fields[i], p + offset, at(e.defaults, offset));
        }
        return migrated(f, e, p, start);
    }

    /// A hook type's own bits (bind() checked it is the same hook type),
    /// then its migrate.
    bool codec(std::uint32_t f, const field_entry& e, bytes* p)
    {
        const std::size_t start = stream.position();
        return e.codec->save.read(stream, p) && migrated(f, e, p, start);
    }

    /// The file's alternative into the program's alternative bind() matched
    /// it with (a file's alternative the program no longer has is refused).
    bool variant(std::uint32_t f, const field_entry& e, bytes* p)
    {
        const std::size_t start = stream.position();
        std::uint32_t alternative = 0;
        if (!bitrep::detail::read_alternative(stream, plan.file, f, alternative, plan.budget))
            return false;
        const std::int32_t mine = plan.target[alternative];
        if (mine < 0) [[unlikely]] {
            const schema_node& missing = node(alternative);
            if (missing.name.empty())
                does_not_fit(stream, start, "the file's alternative is not in the program's variant");
            else
                name_not_in_program(stream, start, missing.name, "variant");
            bitrep::detail::enter_schema_alternative(stream.failure(), missing);
            return false;
        }
        const auto k = static_cast<std::size_t>(mine);
        if (!value(alternative, e.element[k], static_cast<bytes*>(e.variant->hold[k](p)))) [[unlikely]] {
            bitrep::detail::enter_schema_alternative(stream.failure(), node(alternative));
            return false;
        }
        return true;
    }

    /// A count in the file's period into the program's count (an integer,
    /// ranged, float or quantized) in the program's period: an integer count
    /// must come out whole and in range (1500 ms are not a whole number of
    /// seconds: out_of_range, nothing rounded away); a real one is scaled.
    bool scaled_count(std::uint32_t c, const field_entry& count, bitrep::detail::duration_period scale, bytes* p)
    {
        const std::size_t start = stream.position();
        if (count.kind == kind::float32 || count.kind == kind::float64 || count.kind == kind::quantized) {
            real_value number;
            if (!bitrep::detail::read_real(stream, node(c), number))
                return false;
            // Scaled, the count is a real, whatever the file held.
            const double scaled = number.value * static_cast<double>(scale.num) / static_cast<double>(scale.den);
            return accept_real(c, count, start, real_value{.value = scaled, .integral = false, .whole = {}}, p);
        }
        integer_value value;
        if (!bitrep::detail::read_integer(stream, node(c), value))
            return false;
        if (!scale_integer(value, scale)) [[unlikely]]
            return does_not_fit(stream, start, "the file's duration is no whole number of the program's units");
        const bool ranged = count.kind == kind::ranged;
        const integer_range range =
            ranged ? integer_range::of_ranged(count) : integer_range::of_width(count.width, count.is_signed);
        return store_within(c, start, range, value, count.width, p,
                            ranged ? "the file's duration is outside the program's range"
                                   : "the file's duration does not fit the program's count");
    }

    /// A file's duration (bind() let only durations in) in any period into
    /// the program's: the count converted, a count the file lacks the
    /// default's.
    bool duration(std::uint32_t f, const field_entry& e, bytes* p)
    {
        const std::size_t start = stream.position();
        bitrep::detail::duration_period file_period;
        bitrep::detail::duration_period program_period;
        bitrep::detail::duration_period scale;
        if (!bitrep::detail::parse_duration_period(node(f).type_name, file_period) ||
            !bitrep::detail::parse_duration_period(e.schema->type_name, program_period) ||
            !duration_scale(file_period, program_period, scale)) [[unlikely]]
            return does_not_fit(stream, start, "the file's duration period cannot be converted to the program's");
        const field_entry& count = *e.element;
        const scratch_scope held(work);
        auto* wire = static_cast<bytes*>(e.proxy->wire_to_read(p, work));
        assign_value(count, wire, e.proxy->wire_to_write(e.defaults, work));
        for (std::uint32_t c = f + 1; c < node(f).end; c = node(c).end) {
            bool ok;
            if (plan.target[c] != 0)
                ok = bitrep::detail::skip_value(stream, plan.file, c, plan.budget);
            else if (scale.num == 1 && scale.den == 1)
                ok = value(c, count, wire);
            else
                ok = scaled_count(c, count, scale, wire);
            if (!ok) [[unlikely]]
                return fail_field(c);
        }
        e.proxy->from_wire(p, wire);
        return true;
    }

    /// A proxy by its wire type's node (a duration by its own rules).
    bool proxy(std::uint32_t f, const field_entry& e, bytes* p)
    {
        if (e.schema != nullptr && e.schema->describe == nullptr)
            return duration(f, e, p); // a struct named after its period, whose one field is the count
        const std::ptrdiff_t in_place = e.proxy->in_place != nullptr ? e.proxy->in_place() : -1;
        if (in_place >= 0)
            return value(f, *e.element, p + in_place);
        const scratch_scope held(work);
        auto* wire = static_cast<bytes*>(e.proxy->wire_to_read(p, work));
        const bool ok = value(f, *e.element, wire);
        // The value's own part (an entity_array's slots) is brought in line
        // even after a failure: the value is garbage then, not broken.
        if (ok || (wire >= p && wire < p + e.object_size))
            e.proxy->from_wire(p, wire);
        return ok;
    }

    /// The file's node `f` into a value of the program's kind: the
    /// conversions the program's kind allows.
    bool converted(std::uint32_t f, const field_entry& e, bytes* p)
    {
        switch (e.kind) {
        case kind::boolean: return stream.serialize_bool(*reinterpret_cast<bool*>(p));
        case kind::integer:
            return integer_within(f, e, integer_range::of_width(e.width, e.is_signed), p,
                                  "the file's value does not fit the program's integer type");
        case kind::ranged:
            return integer_within(f, e, integer_range::of_ranged(e), p,
                                  "the file's value is outside the program's range");
        case kind::float32:
        case kind::float64:
        case kind::quantized: return real(f, e, p);
        case kind::quat:
            return bitrep::detail::serialize_smallest_three(stream, *reinterpret_cast<kinds::quat_floats*>(p),
                                                            node(f).quantizer);
        case kind::enumeration: return enumeration(f, e, p);
        case kind::flags: return flags(f, e, p);
        case kind::bitset: return bitset(f, e, p);
        case kind::string: return string(f, e, p);
        case kind::vector: return vector(f, e, p);
        case kind::bit_vector: return bit_vector(f, e, p);
        case kind::array: return array(f, e, p);
        case kind::map: return map(f, e, p);
        case kind::variant: return variant(f, e, p);
        case kind::proxy: return proxy(f, e, p);
        case kind::structure: return structure(f, e, p);
        case kind::codec: return codec(f, e, p);
        case kind::optional: break; // value() took it
        }
        return false;
    }

    /// Reads the file's node `f` into `p`: unwraps optionals on either side,
    /// then reads by kind. bind() stepped into an optional on one side only
    /// before it compared the nodes within, so `identical[f]` says that f
    /// encodes like the program's value *inside* such an optional: it is
    /// looked at only once the value is unwrapped the same way (an int in a
    /// file marked identical to the program's int must not be read as the
    /// program's std::optional<int>, presence bit and all).
    bool value(std::uint32_t f, const field_entry& e, bytes* p)
    {
        const bool file_optional = node(f).kind == schema_kind::optional;
        if (e.kind == kind::optional) {
            if (!file_optional) {
                // The file's plain value into the program's optional: present.
                if (!e.maybe->has_value(p))
                    e.maybe->emplace(p);
                return value(f, *e.element, static_cast<bytes*>(e.maybe->value(p)));
            }
            if (plan.identical[f])
                return read_whole(stream, e, p);
            bool present = false;
            if (!stream.serialize_bool(present))
                return false;
            if (!present) {
                e.maybe->reset(p);
                return true;
            }
            if (!e.maybe->has_value(p))
                e.maybe->emplace(p);
            return value(f + 1, *e.element, static_cast<bytes*>(e.maybe->value(p)));
        }
        if (file_optional) {
            // The file's optional into a plain value: absent gives the default.
            bool present = false;
            if (!stream.serialize_bool(present))
                return false;
            if (!present) {
                assign_value(e, p, e.defaults);
                return true;
            }
            return value(f + 1, e, p);
        }
        if (plan.identical[f])
            return read_whole(stream, e, p);
        return converted(f, e, p);
    }
};

} // namespace

} // namespace bitrep::engine

namespace bitrep::detail {

bool load_by_plan(save_read_stream& stream, load_plan& plan, std::uint32_t f, const engine::field_entry& value,
                  void* object)
{
    engine::scratch work;
    engine::loader walk{stream, plan, value, work};
    return walk.value(f, value, static_cast<unsigned char*>(object));
}

} // namespace bitrep::detail
