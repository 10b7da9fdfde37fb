// The engine: one interpreter over the programs compiled from descriptor
// tables (program.hpp), for every type, compiled once, for writing, reading
// and measuring. It runs with the stream in one local object and an
// explicit loop stack, no recursion, so that the bit writer's state can stay
// in registers; each kind's rule is in kinds.hpp.
#include <bitrep/engine/table.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include <bitrep/codecs/classes.hpp>
#include <bitrep/detail/portability.hpp>

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
    scratch::mark mark; // a map's or a proxy's: what the scratch held before it
    union {
        const void* const* entries; // a map being written: its entries in key order
        std::size_t start;          // a map being read: the entry's first bit
    };
};

/// Names the failing field: each enclosing field and element, innermost
/// first, as the codecs' walks do when they unwind.
BITREP_COLD BITREP_NOINLINE void record_path(failure_record& failure, const path_node* node, const loop_frame* frames,
                                              int depth) noexcept
{
    for (; node != nullptr; node = node->parent) {
        if (node->unrolled != 0) {
            failure.enter_index(node->unrolled - 1);
        } else if (node->id == nullptr) {
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
BITREP_ALWAYS_INLINE bool enter_container(Stream& stream, const instruction& in, unsigned char* p, loop_frame& frame,
                                          scratch& work)
{
    const field_entry& e = *in.entry;
    frame.index = 0;
    if (in.op == op::vector) {
        std::uint64_t size = e.container->size(p);
        if (!bitrep::detail::serialize_count(stream, size, e.bounded.max))
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
        frame.count = static_cast<std::size_t>(e.fixed.count);
        frame.data = p;
        frame.stride = e.stride;
    } else if (in.op == op::map) {
        bool ok = false;
        stream.resume(out_of_line<Stream, &enter_map<Stream, loop_frame>>(stream.state(), stream.failure(), ok, e, p,
                                                                           frame, work));
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
        return bitrep::detail::serialize_smallest_three(stream, *reinterpret_cast<quat_floats*>(p), e.quat.component,
                                                        e.quat.tie_margin);
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
BITREP_COLD BITREP_NOINLINE void run_leaves_checked(Stream& outer, const instruction* first,
                                                     const instruction* last, unsigned char* data, std::size_t count,
                                                     std::uint32_t stride, leaf_failure& failed)
{
    run_leaves_on<true>(outer, first, last, data, count, stride, failed);
}

template <class Stream>
BITREP_NOINLINE void run_leaves(Stream& outer, const instruction* first, const instruction* last,
                                  unsigned char* data, std::size_t count, std::uint32_t stride, leaf_failure& failed)
{
    if (!has_room_for(outer.state(), count, first->run_bits)) [[unlikely]]
        return run_leaves_checked(outer, first, last, data, count, stride, failed);
    run_leaves_on<false>(outer, first, last, data, count, stride, failed);
}

/// Runs whose leaves are all of one op (a vector of bytes, of ranged
/// integers, of positions of three quantized floats): one dispatch for all
/// of them. A function of its own, since its loops, one per op, would crowd
/// run_leaves' registers. Checked as run_leaves.
template <bool Checked, class Stream>
BITREP_ALWAYS_INLINE void run_uniform_leaves_on(Stream& outer, const instruction* first, const instruction* last,
                                                unsigned char* data, std::size_t count, std::uint32_t stride,
                                                leaf_failure& failed)
{
    leaf_stream_for<Stream, Checked> stream(outer.state(), outer.failure());
    with_leaf_op(first->leaf, [&](auto op) BITREP_LAMBDA_ALWAYS_INLINE {
        for (std::size_t i = 0; i < count; ++i, data += stride)
            for (const instruction* ip = first; ip != last; ++ip)
                if (!run_leaf_as<decltype(op)::value>(stream, *ip, data + ip->offset)) [[unlikely]] {
                    failed = {ip, i};
                    return;
                }
    });
    outer.resume(stream.state());
}

template <class Stream>
BITREP_COLD BITREP_NOINLINE void run_uniform_leaves_checked(Stream& outer, const instruction* first,
                                                             const instruction* last, unsigned char* data,
                                                             std::size_t count, std::uint32_t stride,
                                                             leaf_failure& failed)
{
    run_uniform_leaves_on<true>(outer, first, last, data, count, stride, failed);
}

template <class Stream>
BITREP_NOINLINE void run_uniform_leaves(Stream& outer, const instruction* first, const instruction* last,
                                          unsigned char* data, std::size_t count, std::uint32_t stride,
                                          leaf_failure& failed)
{
    if (!has_room_for(outer.state(), count, first->run_bits)) [[unlikely]]
        return run_uniform_leaves_checked(outer, first, last, data, count, stride, failed);
    run_uniform_leaves_on<false>(outer, first, last, data, count, stride, failed);
}

/// Where the interpreter stands: the instruction, the object or element
/// its offsets are from, and the loops it is inside (frames[0, depth)).
struct cursor {
    const instruction* code;
    const instruction* ip;
    unsigned char* base;
    loop_frame* frames;
    int depth = 0;
    scratch* work;
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
        if (first->uniform)
            run_uniform_leaves(stream, first, last, data, count, stride, failed);
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
    if (!enter_container(stream, in, p, frame, *at.work)) [[unlikely]]
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
BITREP_ALWAYS_INLINE bool next_entry(Stream& stream, const instruction& in, loop_frame& frame, scratch& work)
{
    bool ok = false;
    stream.resume(out_of_line<Stream, &next_map_entry<Stream, loop_frame>>(
        stream.state(), stream.failure(), ok, *in.entry, frame.outer + in.offset, frame, work));
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
        at.base = alternative_object<Stream>(e, p, in.constants.alternative);
        at.ip = at.code + in.end;
        return;
    case op::end_variant:
        at.base = at.frames[--at.depth].outer;
        at.ip = at.code + in.end;
        return;
    case op::proxy: {
        loop_frame& frame = at.frames[at.depth++];
        frame.outer = at.base;
        frame.mark = at.work->top();
        frame.data = proxy_wire<Stream>(e, p, *at.work);
        at.base = frame.data;
        ++at.ip;
        return;
    }
    default: { // end_proxy
        const loop_frame& frame = at.frames[--at.depth];
        at.base = frame.outer;
        leave_proxy<Stream>(e, at.base + in.offset, frame.data, *at.work, frame.mark);
        ++at.ip;
        return;
    }
    }
}

/// bounded_string: the stream's string.
template <class Stream>
BITREP_ALWAYS_INLINE bool run_string(Stream& stream, const instruction& in, unsigned char* p)
{
    auto& text = *reinterpret_cast<std::string*>(p);
    if constexpr (requires { stream.serialize_string(text, std::size_t{1}, 0); })
        return stream.serialize_string(text, static_cast<std::size_t>(in.constants.max_length) + 1, in.bits);
    else
        return stream.serialize_string(text, static_cast<std::size_t>(in.constants.max_length) + 1);
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

/// The cursor's three changing values, as handlers pass them.
struct registers {
    std::uint64_t a;
    std::uint64_t b;
    std::uint64_t c;
};

/// One run of a program on a Stream: what stays the same from one
/// instruction to the next, the loop stack, and where the run stood when
/// it ended (`cursor`, which also gives the parts of the cursor that never
/// change). Lives on run()'s stack.
template <class Stream>
struct run_context {
    /// The loop stack is left unset: a loop sets its frame as it enters.
    run_context(const instruction* program, failure_record& record, const typename Stream::state_type& at,
                scratch& memory) noexcept
        : code(program), failure(&record), work(&memory), cursor(at)
    {
    }

    const instruction* code;
    failure_record* failure;
    scratch* work;
    typename Stream::state_type cursor;
    int depth = 0;
    loop_frame frames[max_depth];
    // Where a handler goes on, when handlers return to a loop
    // (BITREP_TAIL_CALLS 0).
    const instruction* next = nullptr;
    unsigned char* next_base = nullptr;
    registers next_registers{};
};

#if BITREP_TAIL_CALLS
#define BITREP_CONTINUE(context, to, to_base, stream)                                                               \
    do {                                                                                                            \
        const registers r_ = pack((stream).state());                                                                \
        const instruction* const n_ = (to);                                                                         \
        BITREP_MUSTTAIL return n_->fn[way](n_, (to_base), (context), r_.a, r_.b, r_.c);                            \
    } while (false)
#else
#define BITREP_CONTINUE(context, to, to_base, stream)                                                               \
    do {                                                                                                            \
        (context)->next = (to);                                                                                     \
        (context)->next_base = (to_base);                                                                           \
        (context)->next_registers = pack((stream).state());                                                         \
        return true;                                                                                                \
    } while (false)
#endif

/// The handlers of the programs run on Stream: one per op, each running
/// its instruction on a stream made from the registers, then going on to
/// the next instruction's handler (BITREP_CONTINUE). A bit writer's or
/// reader's handlers run on a leaf stream (leaf_stream.hpp), which carries
/// the cursor and the failure record's address and nothing else.
template <class Stream>
struct machine {
    using handler_stream = std::conditional_t<Stream::is_measuring, Stream, leaf_stream_for<Stream>>;
    /// The fast handlers' stream: refuses as handler_stream does, recording
    /// nothing (the slow handler runs the instruction again to record).
    using quiet_stream = std::conditional_t<Stream::is_measuring, Stream, leaf_stream_for<Stream, true, true>>;
    using context = run_context<Stream>;
    static constexpr int way = static_cast<int>(Stream::is_measuring ? direction::measure
                                                : Stream::is_reading ? direction::read
                                                                     : direction::write);

    BITREP_ALWAYS_INLINE static registers pack(const typename Stream::state_type& state) noexcept
    {
        if constexpr (Stream::is_measuring)
            return {state.bits, state.exact_bits, 0};
        else
            return {state.byte_index(), state.scratch(), static_cast<std::uint64_t>(state.scratch_bits())};
    }

    template <class S = handler_stream>
    BITREP_ALWAYS_INLINE static S resume(const context* c, std::uint64_t a, std::uint64_t b, std::uint64_t d) noexcept
    {
        if constexpr (Stream::is_measuring) {
            return S({a, b}, *c->failure);
        } else if constexpr (Stream::is_reading) {
            return S(bit_reader(c->cursor.data(), c->cursor.size_bytes(), a, b, static_cast<int>(d)), *c->failure);
        } else {
            return S(bit_writer(c->cursor.data(), c->cursor.capacity_bits(), a, b, static_cast<int>(d)), *c->failure);
        }
    }

    /// A failure: names the field unless the rule has, and keeps where the
    /// stream stood.
    BITREP_COLD BITREP_NOINLINE static bool fail(context* c, const instruction* ip, registers at, bool named)
    {
        if (!named)
            record_path(*c->failure, ip->path, c->frames, c->depth);
        c->cursor = resume(c, at.a, at.b, at.c).state();
        return false;
    }

    template <op Op>
    static bool step(const instruction* ip, unsigned char* base, void* run, std::uint64_t a, std::uint64_t b,
                     std::uint64_t d)
    {
        auto* const c = static_cast<context*>(run);
        handler_stream stream = resume(c, a, b, d);
        unsigned char* const p = base + ip->offset;
        if constexpr (Op == op::done) {
            c->cursor = stream.state();
            c->next = nullptr;
            return true;
        } else if constexpr ((is_fixed_leaf(Op) || Op == op::string) && !Stream::is_measuring) {
            quiet_stream quick = resume<quiet_stream>(c, a, b, d);
            if (!run_leaf<Op>(quick, *ip, p)) [[unlikely]]
                BITREP_MUSTTAIL return slow_step<Op>(ip, base, run, a, b, d);
            BITREP_CONTINUE(c, ip + 1, base, quick);
        } else if constexpr (is_fixed_leaf(Op) || Op == op::string || Op == op::flags || Op == op::bitset ||
                             Op == op::bit_vector || Op == op::codec) {
            if (!run_leaf<Op>(stream, *ip, p)) [[unlikely]]
                return fail(c, ip, pack(stream.state()), false);
            BITREP_CONTINUE(c, ip + 1, base, stream);
        } else {
            cursor at{c->code, ip, base, c->frames, c->depth, c->work};
            bool named = false;
            if (!move<Op>(stream, at, p, named)) [[unlikely]]
                return fail(c, ip, pack(stream.state()), named);
            c->depth = at.depth;
            BITREP_CONTINUE(c, at.ip, at.base, stream);
        }
    }

    /// A fast handler's instruction again, on a stream that records why it
    /// is refused; or one the fast handler declined (a string it does not
    /// move a word at a time), which it may then accept.
    template <op Op>
    BITREP_COLD BITREP_NOINLINE static bool slow_step(const instruction* ip, unsigned char* base, void* run,
                                                       std::uint64_t a, std::uint64_t b, std::uint64_t d)
    {
        auto* const c = static_cast<context*>(run);
        handler_stream stream = resume(c, a, b, d);
        if (!run_leaf<Op>(stream, *ip, base + ip->offset))
            return fail(c, ip, pack(stream.state()), false);
        BITREP_CONTINUE(c, ip + 1, base, stream);
    }

    /// An instruction that goes on to the next one: a leaf, a string, a
    /// rarer kind's rule, a hook's codec.
    template <op Op, class S>
    BITREP_ALWAYS_INLINE static bool run_leaf(S& stream, const instruction& in, unsigned char* p)
    {
        if constexpr (is_fixed_leaf(Op)) {
            return run_leaf_as<Op>(stream, in, p);
        } else if constexpr (Op == op::string) {
            return run_string(stream, in, p);
        } else if constexpr (Op == op::bit_vector) {
            return run_rare<&run_bit_vector<S>>(stream, in, p);
        } else if constexpr (Op == op::flags) {
            return run_rare<&run_flags<S>>(stream, in, p);
        } else if constexpr (Op == op::bitset) {
            return run_rare<&run_bitset<S>>(stream, in, p);
        } else {
            static_assert(Op == op::codec);
            bool ok = false; // the hook's codec runs on the scope's own stream
            stream.resume(call_codec<Stream>(stream.state(), stream.failure(), *in.entry->codec, p, ok));
            return ok;
        }
    }

    /// An instruction that moves the cursor: a run, a container's loop, a
    /// variant's or a proxy's way in and out.
    template <op Op>
    BITREP_ALWAYS_INLINE static bool move(handler_stream& stream, cursor& at, unsigned char* p, bool& named)
    {
        const instruction& in = *at.ip;
        if constexpr (Op == op::run) {
            named = true; // a failing leaf of the run has named itself
            return run_fields(stream, at, in);
        } else if constexpr (Op == op::vector || Op == op::array || Op == op::optional || Op == op::map) {
            return enter_loop(stream, at, in, p, named);
        } else if constexpr (Op == op::end_loop || Op == op::end_map) {
            if constexpr (Op == op::end_map) {
                if (!next_entry(stream, in, at.frames[at.depth - 1], *at.work)) [[unlikely]]
                    return false;
            }
            next_element(at);
            return true;
        } else if constexpr (Op == op::variant) {
            if (!choose_alternative(stream, at, in, p)) [[unlikely]]
                return false;
            ++at.ip;
            return true;
        } else {
            static_assert(Op == op::alternative || Op == op::end_variant || Op == op::proxy || Op == op::end_proxy);
            enter_or_leave<handler_stream>(at, in, p);
            return true;
        }
    }

    /// Every op's handler, by the op's number.
    template <std::size_t... I>
    static constexpr std::array<handler, sizeof...(I)> table(std::index_sequence<I...>) noexcept
    {
        return {&step<static_cast<op>(I)>...};
    }
    static constexpr auto handlers = table(std::make_index_sequence<static_cast<std::size_t>(op::done) + 1>{});
};

/// Runs prog on object. What the run makes in its scratch (proxies' wire
/// objects, maps' entries) goes with it, whether it ends or fails.
template <class Stream>
bool run(Stream& caller, program prog, unsigned char* object)
{
    using m = machine<Stream>;
    scratch work;
    typename m::context c(prog.code, caller.failure(), caller.state(), work);
    registers r = m::pack(caller.state());
#if BITREP_TAIL_CALLS
    const bool ok = prog.code->fn[m::way](prog.code, object, &c, r.a, r.b, r.c);
#else
    const instruction* ip = prog.code;
    unsigned char* base = object;
    bool ok = true;
    while (ok && ip != nullptr) {
        ok = ip->fn[m::way](ip, base, &c, r.a, r.b, r.c);
        ip = c.next;
        base = c.next_base;
        r = c.next_registers;
    }
#endif
    caller.resume(c.cursor);
    return ok;
}

template <scope Scope>
handler scope_handler(direction way, op o) noexcept
{
    const auto i = static_cast<std::size_t>(o);
    switch (way) {
    case direction::write: return machine<basic_write_stream<Scope>>::handlers[i];
    case direction::read: return machine<basic_read_stream<Scope>>::handlers[i];
    default: return machine<basic_measure_stream<Scope>>::handlers[i];
    }
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

handler handler_for(scope field_scope, direction way, op o) noexcept
{
    switch (field_scope) {
    case scope::all: return scope_handler<scope::all>(way, o);
    case scope::save: return scope_handler<scope::save>(way, o);
    default: return scope_handler<scope::replication>(way, o);
    }
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
