// The engine: one interpreter over the programs compiled from descriptor
// tables (program.hpp), for every type, compiled once, for writing, reading
// and measuring. It runs with the stream in one local object and an
// explicit loop stack, no recursion, so that the bit writer's state can stay
// in registers; each kind's rule is in kinds.hpp.
#include <bitrep/engine/table.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include <bitrep/codecs/classes.hpp>

#include "kinds.hpp"
#include "leaf_stream.hpp"
#include "program.hpp"

namespace bitrep::engine {

namespace {

using namespace kinds;

struct loop_frame {
    unsigned char* outer;  // the base outside the container
    unsigned char* data;   // the first element
    std::size_t index;
    std::size_t count;
    std::uint32_t stride;
    std::uint32_t body;
    union {
        const void* const* entries; // a map being written: its entries in key order
        std::size_t start;          // a map being read: the entry's first bit
    };
};

/// Names the failing field: each enclosing field and element, innermost
/// first, as the codecs' walks do when they unwind.
[[gnu::cold, gnu::noinline]] void record_path(failure_record& failure, const path_node* node, const loop_frame* frames,
                                              int depth) noexcept
{
    for (; node != nullptr; node = node->parent) {
        if (node->id == nullptr) {
            --depth;
            if (node->indexed)
                failure.enter_index(frames[depth].index);
            else if (node->alternative != nullptr)
                failure.enter_alternative(*node->alternative);
        } else {
            bitrep::detail::enter_field(failure, *node->id);
        }
    }
}

/// A container's count (vector) or presence (optional), then its loop.
template <class Stream>
BITREP_ALWAYS_INLINE bool enter_container(Stream& stream, const instruction& in, unsigned char* p, loop_frame& frame)
{
    const field_entry& e = *in.entry;
    frame.index = 0;
    if (in.op == op::vector) {
        std::uint64_t size = e.container->size(p);
        if (!bitrep::detail::serialize_count(stream, size, e.min))
            return false;
        if constexpr (Stream::is_reading) {
            if (!bitrep::detail::count_fits_input(stream, size, e.element->min_bits))
                return false;
            e.container->resize(p, static_cast<std::size_t>(size));
        }
        frame.count = static_cast<std::size_t>(size);
        frame.data = static_cast<unsigned char*>(e.container->data(p));
        frame.stride = e.stride;
    } else if (in.op == op::array) {
        frame.count = static_cast<std::size_t>(e.min);
        frame.data = p;
        frame.stride = e.stride;
    } else if (in.op == op::map) {
        bool ok = false;
        stream.resume(out_of_line<Stream, &enter_map<Stream, loop_frame>>(stream.state(), stream.failure(), ok, e, p,
                                                                           frame));
        return ok;
    } else {
        bool present = e.maybe->has_value(p);
        if (!stream.serialize_bool(present))
            return false;
        if constexpr (Stream::is_reading) {
            if (!present)
                e.maybe->reset(p);
            else if (!e.maybe->has_value(p))
                e.maybe->emplace(p);
        }
        frame.count = present ? 1 : 0;
        frame.data = present ? static_cast<unsigned char*>(e.maybe->value(p)) : nullptr;
        frame.stride = 0;
    }
    return true;
}

/// A fixed-width leaf's rule, its op known where it is compiled: each case of
/// the interpreter's switch and of run_leaf's is one of these.
template <op Op, class Stream>
BITREP_ALWAYS_INLINE bool run_leaf_as(Stream& stream, const instruction& in, unsigned char* p)
{
    const field_entry& e = *in.entry;
    if constexpr (Op == op::boolean) {
        bool value = Stream::is_reading ? false : *reinterpret_cast<const bool*>(p);
        if (!stream.serialize_bool(value))
            return false;
        if constexpr (Stream::is_reading)
            *reinterpret_cast<bool*>(p) = value;
        return true;
    } else if constexpr (Op == op::integer8) {
        return run_integer<Stream, std::uint8_t>(stream, p);
    } else if constexpr (Op == op::integer16) {
        return run_integer<Stream, std::uint16_t>(stream, p);
    } else if constexpr (Op == op::integer32) {
        return run_integer<Stream, std::uint32_t>(stream, p);
    } else if constexpr (Op == op::integer64) {
        return run_integer<Stream, std::uint64_t>(stream, p);
    } else if constexpr (Op == op::ranged_u8) {
        return run_ranged<Stream, std::uint8_t>(stream, in, p);
    } else if constexpr (Op == op::ranged_i8) {
        return run_ranged<Stream, std::int8_t>(stream, in, p);
    } else if constexpr (Op == op::ranged_u16) {
        return run_ranged<Stream, std::uint16_t>(stream, in, p);
    } else if constexpr (Op == op::ranged_i16) {
        return run_ranged<Stream, std::int16_t>(stream, in, p);
    } else if constexpr (Op == op::ranged_u32) {
        return run_ranged<Stream, std::uint32_t>(stream, in, p);
    } else if constexpr (Op == op::ranged_i32) {
        return run_ranged<Stream, std::int32_t>(stream, in, p);
    } else if constexpr (Op == op::ranged_64) {
        return run_ranged<Stream, std::uint64_t>(stream, in, p);
    } else if constexpr (Op == op::enumeration) {
        return run_enumeration(stream, e, p);
    } else if constexpr (Op == op::float32) {
        return stream.serialize_float(*reinterpret_cast<float*>(p));
    } else if constexpr (Op == op::float64) {
        return stream.serialize_double(*reinterpret_cast<double*>(p));
    } else if constexpr (Op == op::quantized) {
        return run_quantized(stream, e, p);
    } else {
        static_assert(Op == op::quat);
        return bitrep::detail::serialize_smallest_three(stream, *reinterpret_cast<quat_floats*>(p), e.quantizer, e.low);
    }
}

/// Calls visit with the fixed-width leaf op `leaf` as a constant.
template <class Visit>
BITREP_ALWAYS_INLINE auto with_leaf_op(op leaf, Visit&& visit)
{
    switch (leaf) {
    case op::boolean: return visit(std::integral_constant<op, op::boolean>{});
    case op::integer8: return visit(std::integral_constant<op, op::integer8>{});
    case op::integer16: return visit(std::integral_constant<op, op::integer16>{});
    case op::integer32: return visit(std::integral_constant<op, op::integer32>{});
    case op::integer64: return visit(std::integral_constant<op, op::integer64>{});
    case op::ranged_u8: return visit(std::integral_constant<op, op::ranged_u8>{});
    case op::ranged_i8: return visit(std::integral_constant<op, op::ranged_i8>{});
    case op::ranged_u16: return visit(std::integral_constant<op, op::ranged_u16>{});
    case op::ranged_i16: return visit(std::integral_constant<op, op::ranged_i16>{});
    case op::ranged_u32: return visit(std::integral_constant<op, op::ranged_u32>{});
    case op::ranged_i32: return visit(std::integral_constant<op, op::ranged_i32>{});
    case op::ranged_64: return visit(std::integral_constant<op, op::ranged_64>{});
    case op::enumeration: return visit(std::integral_constant<op, op::enumeration>{});
    case op::float32: return visit(std::integral_constant<op, op::float32>{});
    case op::float64: return visit(std::integral_constant<op, op::float64>{});
    case op::quantized: return visit(std::integral_constant<op, op::quantized>{});
    case op::quat: return visit(std::integral_constant<op, op::quat>{});
    default: return visit(std::integral_constant<op, op::boolean>{}); // join_runs puts no other op in a run
    }
}

/// Where a run of leaves failed: the leaf, and the element it belongs to.
struct leaf_failure {
    const instruction* leaf = nullptr;
    std::size_t element = 0;
};

/// A run of fixed-width leaves [first, last), on `count` objects `stride`
/// apart (one for a run of fields; each element for a container whose
/// element is the run), on a leaf stream (leaf_stream.hpp): out of the
/// interpreter's loop, the bit writer's or reader's state stays in
/// registers, where in the interpreter's one big function the compilers
/// keep it in memory. Unchecked (Checked = false) where the room for all
/// `count` objects was checked once: a run that does not fit runs checked,
/// to refuse at the same bit as each leaf's own check.
template <bool Checked, class Stream>
BITREP_ALWAYS_INLINE void run_leaves_on(Stream& outer, const instruction* first, const instruction* last,
                                        unsigned char* data, std::size_t count, std::uint32_t stride,
                                        leaf_failure& failed)
{
    leaf_stream_for<Stream, Checked> stream(outer.state(), outer.failure());
    for (std::size_t i = 0; i < count; ++i, data += stride) {
        for (const instruction* ip = first; ip != last; ++ip) {
            const bool ok = with_leaf_op(ip->leaf, [&](auto leaf) BITREP_LAMBDA_ALWAYS_INLINE {
                return run_leaf_as<decltype(leaf)::value>(stream, *ip, data + ip->offset);
            });
            if (!ok) [[unlikely]] {
                failed = {ip, i};
                outer.resume(stream.state());
                return;
            }
        }
    }
    outer.resume(stream.state());
}

/// The checked form apart, so that the unchecked one keeps its function's
/// registers to itself (in one function, g++ spills them in both).
template <class Stream>
[[gnu::noinline, gnu::cold]] void run_leaves_checked(Stream& outer, const instruction* first,
                                                     const instruction* last, unsigned char* data, std::size_t count,
                                                     std::uint32_t stride, leaf_failure& failed)
{
    run_leaves_on<true>(outer, first, last, data, count, stride, failed);
}

template <class Stream>
[[gnu::noinline]] void run_leaves(Stream& outer, const instruction* first, const instruction* last,
                                  unsigned char* data, std::size_t count, std::uint32_t stride, leaf_failure& failed)
{
    if (!has_room_for(outer.state(), count, first->run_bits)) [[unlikely]]
        return run_leaves_checked(outer, first, last, data, count, stride, failed);
    run_leaves_on<false>(outer, first, last, data, count, stride, failed);
}

/// Elements that are one leaf each (a vector of bytes, of ranged integers):
/// one dispatch for all of them. A function of its own, since its loops,
/// one per kind, would crowd run_leaves' registers. Checked as run_leaves.
template <bool Checked, class Stream>
BITREP_ALWAYS_INLINE void run_leaf_elements_on(Stream& outer, const instruction& leaf, unsigned char* data,
                                               std::size_t count, std::uint32_t stride, leaf_failure& failed)
{
    leaf_stream_for<Stream, Checked> stream(outer.state(), outer.failure());
    const std::size_t done = with_leaf_op(leaf.leaf, [&](auto op) BITREP_LAMBDA_ALWAYS_INLINE {
        std::size_t i = 0;
        for (unsigned char* p = data + leaf.offset; i < count; ++i, p += stride)
            if (!run_leaf_as<decltype(op)::value>(stream, leaf, p)) [[unlikely]]
                break;
        return i;
    });
    if (done < count) [[unlikely]]
        failed = {&leaf, done};
    outer.resume(stream.state());
}

template <class Stream>
[[gnu::noinline, gnu::cold]] void run_leaf_elements_checked(Stream& outer, const instruction& leaf,
                                                            unsigned char* data, std::size_t count,
                                                            std::uint32_t stride, leaf_failure& failed)
{
    run_leaf_elements_on<true>(outer, leaf, data, count, stride, failed);
}

template <class Stream>
[[gnu::noinline]] void run_leaf_elements(Stream& outer, const instruction& leaf, unsigned char* data,
                                         std::size_t count, std::uint32_t stride, leaf_failure& failed)
{
    if (!has_room_for(outer.state(), count, leaf.run_bits)) [[unlikely]]
        return run_leaf_elements_checked(outer, leaf, data, count, stride, failed);
    run_leaf_elements_on<false>(outer, leaf, data, count, stride, failed);
}

/// Where the interpreter stands: the instruction, the object or element
/// its offsets are from, and the loops it is inside (frames[0, depth)).
struct cursor {
    const instruction* code;
    const instruction* ip;
    unsigned char* base;
    loop_frame* frames;
    int depth = 0;
};

/// Runs [first, last) on `count` objects (measuring, only counts their
/// bits: fixed-width leaves refuse nothing when measured). On a failure,
/// names the leaf, within element `frame.index` of the container `frame` is
/// when there is one.
template <class Stream>
BITREP_ALWAYS_INLINE bool run_fixed(Stream& stream, const cursor& at, const instruction* first, const instruction* last,
                                    loop_frame* frame, unsigned char* data, std::size_t count, std::uint32_t stride)
{
    if constexpr (Stream::is_measuring) {
        const std::size_t bits = first->run_bits * count;
        auto state = stream.state();
        state.bits += bits;
        state.exact_bits += bits;
        stream.resume(state);
        return true;
    } else {
        leaf_failure failed;
        if (last - first == 1)
            run_leaf_elements(stream, *first, data, count, stride, failed);
        else
            run_leaves(stream, first, last, data, count, stride, failed);
        if (failed.leaf == nullptr) [[likely]]
            return true;
        if (frame != nullptr)
            frame->index = failed.element;
        record_path(stream.failure(), failed.leaf->path, at.frames, at.depth + (frame != nullptr ? 1 : 0));
        return false;
    }
}

/// A run of fields.
template <class Stream>
BITREP_ALWAYS_INLINE bool run_fields(Stream& stream, cursor& at, const instruction& in)
{
    if (!run_fixed(stream, at, at.ip, at.code + in.end, nullptr, at.base, 1, 0)) [[unlikely]]
        return false;
    at.ip = at.code + in.end;
    return true;
}

/// A container instruction: its count or presence, then its loop, entered
/// when it has elements; a container whose element is one run runs them all
/// at once. False on a failure (its path recorded where it is a leaf's).
template <class Stream>
BITREP_ALWAYS_INLINE bool enter_loop(Stream& stream, cursor& at, const instruction& in, unsigned char* p, bool& named)
{
    loop_frame& frame = at.frames[at.depth];
    if (!enter_container(stream, in, p, frame)) [[unlikely]]
        return false;
    if (in.leaf_body && frame.count != 0) {
        named = true;
        if (!run_fixed(stream, at, at.ip + 1, at.code + in.end, &frame, frame.data, frame.count, frame.stride))
            [[unlikely]]
            return false;
        frame.count = 0;
    }
    if (frame.count == 0) {
        at.ip = at.code + in.end + 1;
        return true;
    }
    frame.outer = at.base;
    frame.body = static_cast<std::uint32_t>(at.ip - at.code + 1);
    at.base = frame.data;
    ++at.depth;
    ++at.ip;
    return true;
}

/// The end of a container's element: on to the next element, or out.
BITREP_ALWAYS_INLINE void next_element(cursor& at)
{
    loop_frame& frame = at.frames[at.depth - 1];
    if (++frame.index < frame.count) {
        at.base = frame.data + frame.index * frame.stride;
        at.ip = at.code + frame.body;
    } else {
        at.base = frame.outer;
        --at.depth;
        ++at.ip;
    }
}

/// After a map entry's body (a read adds the entry to the map).
template <class Stream>
BITREP_ALWAYS_INLINE bool next_entry(Stream& stream, const instruction& in, loop_frame& frame)
{
    bool ok = false;
    stream.resume(out_of_line<Stream, &next_map_entry<Stream, loop_frame>>(stream.state(), stream.failure(), ok,
                                                                            *in.entry, frame.outer + in.offset, frame));
    return ok;
}

/// A variant's index: on to the alternative instruction that many after
/// the next.
template <class Stream>
BITREP_ALWAYS_INLINE bool choose_alternative(Stream& stream, cursor& at, const instruction& in, unsigned char* p)
{
    std::size_t index = 0;
    if (!run_variant_index(stream, *in.entry, p, index)) [[unlikely]]
        return false;
    at.ip += index;
    return true;
}

/// Variants and proxies: into an alternative's or a wire object's
/// instructions and back out.
template <class Stream>
BITREP_ALWAYS_INLINE void enter_or_leave(cursor& at, const instruction& in, unsigned char* p)
{
    const field_entry& e = *in.entry;
    switch (in.op) {
    case op::alternative:
        at.frames[at.depth++].outer = at.base;
        at.base = alternative_object<Stream>(e, p, in.min);
        at.ip = at.code + in.end;
        return;
    case op::end_variant:
        at.base = at.frames[--at.depth].outer;
        at.ip = at.code + in.end;
        return;
    case op::proxy: {
        loop_frame& frame = at.frames[at.depth++];
        frame.outer = at.base;
        frame.data = proxy_wire<Stream>(e, p);
        at.base = frame.data;
        ++at.ip;
        return;
    }
    default: { // end_proxy
        const loop_frame& frame = at.frames[--at.depth];
        at.base = frame.outer;
        leave_proxy<Stream>(e, at.base + in.offset, frame.data);
        ++at.ip;
        return;
    }
    }
}

/// bounded_string: the stream's string.
template <class Stream>
BITREP_ALWAYS_INLINE bool run_string(Stream& stream, const instruction& in, unsigned char* p)
{
    return stream.serialize_string(*reinterpret_cast<std::string*>(p), static_cast<std::size_t>(in.min) + 1);
}

/// A rarer kind's rule (kinds.hpp), out of line: its loops would crowd the
/// interpreter's registers.
template <auto Rule, class Stream>
BITREP_ALWAYS_INLINE bool run_rare(Stream& stream, const instruction& in, unsigned char* p)
{
    bool ok = false;
    stream.resume(out_of_line<Stream, Rule>(stream.state(), stream.failure(), ok, *in.entry, p));
    return ok;
}

/// A class with a serialization hook: its compiled codec.
template <class Stream>
BITREP_ALWAYS_INLINE bool run_codec(Stream& stream, const instruction& in, unsigned char* p)
{
    bool ok = false;
    stream.resume(call_codec<Stream>(stream.state(), stream.failure(), *in.entry->codec, p, ok));
    return ok;
}

/// Runs the program: one switch over every instruction, leaves and loops
/// alike, so that each costs one dispatch (the helpers' own switches run
/// only in the cases they serve, where the compilers fold them away). The
/// leaf cases stay in it: a helper with a switch of its own would add a
/// second dispatch per leaf.
template <class Stream>
// NOLINTNEXTLINE(readability-function-size): one dispatch per instruction (above)
BITREP_ALWAYS_INLINE bool run_program(Stream& stream, const instruction* code, unsigned char* object)
{
    loop_frame frames[max_depth];
    cursor at{code, code, object, frames};
    for (;;) {
        const instruction& in = *at.ip;
        unsigned char* p = at.base + in.offset;
        bool ok = true;
        bool named = false; // the failure's path is recorded already
        switch (in.op) {
        case op::done: return true;
        case op::run:
            if (!run_fields(stream, at, in)) [[unlikely]]
                return false;
            continue;
        case op::vector:
        case op::array:
        case op::optional:
        case op::map:
            if (enter_loop(stream, at, in, p, named)) [[likely]]
                continue;
            ok = false;
            break;
        case op::end_map:
            ok = next_entry(stream, in, frames[at.depth - 1]);
            if (!ok) [[unlikely]]
                break;
            [[fallthrough]];
        case op::end_loop: next_element(at); continue;
        case op::variant: ok = choose_alternative(stream, at, in, p); break;
        case op::alternative:
        case op::end_variant:
        case op::proxy:
        case op::end_proxy: enter_or_leave<Stream>(at, in, p); continue;
        case op::boolean: ok = run_leaf_as<op::boolean>(stream, in, p); break;
        case op::integer8: ok = run_leaf_as<op::integer8>(stream, in, p); break;
        case op::integer16: ok = run_leaf_as<op::integer16>(stream, in, p); break;
        case op::integer32: ok = run_leaf_as<op::integer32>(stream, in, p); break;
        case op::integer64: ok = run_leaf_as<op::integer64>(stream, in, p); break;
        case op::ranged_u8: ok = run_leaf_as<op::ranged_u8>(stream, in, p); break;
        case op::ranged_i8: ok = run_leaf_as<op::ranged_i8>(stream, in, p); break;
        case op::ranged_u16: ok = run_leaf_as<op::ranged_u16>(stream, in, p); break;
        case op::ranged_i16: ok = run_leaf_as<op::ranged_i16>(stream, in, p); break;
        case op::ranged_u32: ok = run_leaf_as<op::ranged_u32>(stream, in, p); break;
        case op::ranged_i32: ok = run_leaf_as<op::ranged_i32>(stream, in, p); break;
        case op::ranged_64: ok = run_leaf_as<op::ranged_64>(stream, in, p); break;
        case op::enumeration: ok = run_leaf_as<op::enumeration>(stream, in, p); break;
        case op::float32: ok = run_leaf_as<op::float32>(stream, in, p); break;
        case op::float64: ok = run_leaf_as<op::float64>(stream, in, p); break;
        case op::quantized: ok = run_leaf_as<op::quantized>(stream, in, p); break;
        case op::quat: ok = run_leaf_as<op::quat>(stream, in, p); break;
        case op::string: ok = run_string(stream, in, p); break;
        case op::bit_vector: ok = run_rare<&run_bit_vector<Stream>>(stream, in, p); break;
        case op::flags: ok = run_rare<&run_flags<Stream>>(stream, in, p); break;
        case op::bitset: ok = run_rare<&run_bitset<Stream>>(stream, in, p); break;
        case op::codec: ok = run_codec(stream, in, p); break;
        }
        if (!ok) [[unlikely]] {
            if (!named)
                record_path(stream.failure(), in.path, frames, at.depth);
            return false;
        }
        ++at.ip;
    }
}

template <class Stream>
bool run(Stream& caller, program prog, unsigned char* object)
{
    Stream stream(caller.state(), caller.failure()); // a copy the compiler can keep in registers
    const bool ok = run_program(stream, prog.code, object);
    caller.resume(stream.state());
    return ok;
}

} // namespace

template <scope Scope>
bool write(basic_write_stream<Scope>& stream, const root& value_type, const void* object)
{
    return run(stream, program_for(value_type, Scope), static_cast<unsigned char*>(const_cast<void*>(object)));
}

template <scope Scope>
bool read(basic_read_stream<Scope>& stream, const root& value_type, void* object)
{
    return run(stream, program_for(value_type, Scope), static_cast<unsigned char*>(object));
}

template <scope Scope>
bool measure(basic_measure_stream<Scope>& stream, const root& value_type, const void* object)
{
    return run(stream, program_for(value_type, Scope), static_cast<unsigned char*>(const_cast<void*>(object)));
}

template bool write<scope::all>(basic_write_stream<scope::all>&, const root&, const void*);
template bool write<scope::save>(basic_write_stream<scope::save>&, const root&, const void*);
template bool write<scope::replication>(basic_write_stream<scope::replication>&, const root&, const void*);
template bool read<scope::all>(basic_read_stream<scope::all>&, const root&, void*);
template bool read<scope::save>(basic_read_stream<scope::save>&, const root&, void*);
template bool read<scope::replication>(basic_read_stream<scope::replication>&, const root&, void*);
template bool measure<scope::all>(basic_measure_stream<scope::all>&, const root&, const void*);
template bool measure<scope::save>(basic_measure_stream<scope::save>&, const root&, const void*);
template bool measure<scope::replication>(basic_measure_stream<scope::replication>&, const root&, const void*);

} // namespace bitrep::engine
