// Compiles a type's tables into the interpreter's program (program.hpp).
#include "program.hpp"

#include <atomic>
#include <cstdlib>
#include <new>
#include <thread>

#include <bitrep/annotations/field_flags.hpp>
#include <bitrep/codecs/field_flags.hpp>
#include <bitrep/codecs/scalars.hpp>

namespace bitrep::engine {

namespace {

op integer_op(unsigned width) noexcept
{
    return width == 1 ? op::integer8 : width == 2 ? op::integer16 : width == 4 ? op::integer32 : op::integer64;
}

op ranged_op(unsigned width, bool is_signed) noexcept
{
    switch (width) {
    case 1: return is_signed ? op::ranged_i8 : op::ranged_u8;
    case 2: return is_signed ? op::ranged_i16 : op::ranged_u16;
    case 4: return is_signed ? op::ranged_i32 : op::ranged_u32;
    default: return op::ranged_64;
    }
}

op op_of(const field_entry& e) noexcept
{
    switch (e.kind) {
    case kind::boolean: return op::boolean;
    case kind::integer: return integer_op(e.width);
    case kind::ranged: return ranged_op(e.width, e.is_signed);
    case kind::enumeration: return op::enumeration;
    case kind::flags: return op::flags;
    case kind::bitset: return op::bitset;
    case kind::float32: return op::float32;
    case kind::float64: return op::float64;
    case kind::quantized: return op::quantized;
    case kind::quat: return op::quat;
    case kind::string: return op::string;
    case kind::vector: return op::vector;
    case kind::bit_vector: return op::bit_vector;
    case kind::array: return op::array;
    case kind::optional: return op::optional;
    case kind::variant: return op::variant;
    case kind::map: return op::map;
    case kind::proxy: return op::proxy;
    case kind::codec:
    case kind::structure: break;
    }
    return op::codec;
}

/// A fixed-width leaf's bits, which never depend on its value; -1 for any
/// other instruction.
int fixed_bits(const instruction& in) noexcept
{
    const field_entry& e = *in.entry;
    switch (in.op) {
    case op::boolean: return 1;
    case op::integer8: return 8;
    case op::integer16: return 16;
    case op::integer32:
    case op::float32: return 32;
    case op::integer64:
    case op::float64: return 64;
    case op::ranged_u8:
    case op::ranged_i8:
    case op::ranged_u16:
    case op::ranged_i16:
    case op::ranged_u32:
    case op::ranged_i32:
    case op::ranged_64: return in.bits;
    case op::enumeration: return bitrep::detail::enum_index_bits(e.enumeration.count);
    case op::quantized: return e.quantized.quantizer.bits;
    case op::quat: return 2 + 3 * e.quat.component.bits;
    default: return -1;
    }
}

/// Whether code[at] is a vector, array or optional whose element body ends
/// at `end` (its end_loop).
bool loop_ending_at(const instruction* code, std::uint32_t at, std::uint32_t end) noexcept
{
    const op o = code[at].op;
    return (o == op::vector || o == op::array || o == op::optional) && code[at].end == end;
}

/// Joins consecutive fixed-width leaves into runs: the first becomes a `run`
/// instruction that covers them all, run out of the interpreter's loop. A
/// lone leaf stays an instruction of its own (a run costs a call), unless it
/// is a container's whole element: such a container (marked leaf_body) runs
/// all its elements in that one call. No jump lands inside a run, since
/// every jump target follows a container, variant or proxy instruction,
/// never a leaf.
/// Makes code[first, next) one run instruction: the first leaf's.
void make_run(instruction* code, std::uint32_t first, std::uint32_t next, bool uniform) noexcept
{
    std::uint32_t total = 0;
    for (std::uint32_t i = first; i < next; ++i)
        total += static_cast<std::uint32_t>(fixed_bits(code[i]));
    code[first].op = op::run;
    code[first].uniform = uniform;
    code[first].run_bits = total;
    code[first].end = next;
}

/// Joins a container's element into a run when it is all fixed-width
/// leaves: such a container (marked leaf_body) runs all its elements in one
/// call out of line, with one room check. Every other leaf is an
/// instruction of its own, each its own handler (runs of fields measured
/// slower than their handlers' tail calls). No jump lands inside a run,
/// since every jump target follows a container, variant or proxy
/// instruction, never a leaf.
void join_runs(instruction* code, std::uint32_t size) noexcept
{
    for (std::uint32_t first = 0; first < size;) {
        std::uint32_t next = first;
        bool uniform = true;
        for (; next < size && fixed_bits(code[next]) >= 0; ++next) {
            code[next].leaf = code[next].op;
            uniform = uniform && code[next].op == code[first].op;
        }
        if (next > first && first > 0 && loop_ending_at(code, first - 1, next)) {
            code[first - 1].leaf_body = true;
            make_run(code, first, next, uniform);
        }
        first = next > first ? next : first + 1;
    }
}

void ensure_offsets(const type_table& table) noexcept
{
    if (!table.ready->load(std::memory_order_acquire)) [[unlikely]]
        table.compute_offsets();
}

/// Fills a program's room: nested structs inlined at their offsets, fields
/// the scope does not carry left out, containers as loops. The entries'
/// instruction and node counts bound what it writes (checked).
class compiler {
public:
    compiler(const program_room& room, scope field_scope)
        : code_(reinterpret_cast<instruction*>(room.code)), capacity_(room.instructions),
          nodes_(reinterpret_cast<path_node*>(room.nodes)), node_capacity_(room.node_count), scope_(field_scope)
    {
    }

    void add_struct(const type_table& table, std::uint32_t base, const path_node* parent) noexcept
    {
        ensure_offsets(table);
        for (std::uint32_t i = 0; i < table.count; ++i) {
            const field_entry& e = table.fields[i];
            if (!carried(e))
                continue;
            const std::uint32_t at = base + table.offsets[i].load(std::memory_order_relaxed);
            add(e, at, node(path_node{.id = &table.ids[i], .parent = parent}));
        }
    }

    /// Whether the scope carries values of this entry (a flagged field or
    /// element: save_only, net_only, transient).
    bool carried(const field_entry& e) const noexcept
    {
        return e.flag == 0 || bitrep::detail::flag_carried(static_cast<field_flag>(e.flag - 1), scope_);
    }

    void add(const field_entry& e, std::uint32_t offset, const path_node* path) noexcept
    {
        if (!carried(e))
            return; // an element the scope leaves out: a container of nothing
        if (e.kind == kind::structure) {
            add_struct(*e.nested, offset, path);
            return;
        }
        if (e.kind == kind::variant) {
            add_variant(e, offset, path);
            return;
        }
        if (e.kind == kind::proxy) {
            add_proxy(e, offset, path);
            return;
        }
        if (unrolled(e)) {
            add_unrolled(e, offset, path);
            return;
        }
        const std::uint32_t at = emit(leaf_or_loop(e, offset, path));
        if (e.kind == kind::vector || e.kind == kind::array || e.kind == kind::optional || e.kind == kind::map) {
            const path_node* element = node(path_node{.parent = path, .indexed = e.kind != kind::optional});
            add(*e.element, 0, element);
            // A map's end adds a read entry, refusing a duplicate key at the element.
            if (e.kind == kind::map)
                code_[at].end = emit(instruction{.op = op::end_map, .offset = offset, .entry = &e, .path = element});
            else
                code_[at].end = emit(instruction{.op = op::end_loop, .entry = &e, .path = path});
        }
    }

    void finish() noexcept
    {
        join_runs(code_, size_);
        static constexpr field_entry none{};
        emit(instruction{.op = op::done, .entry = &none});
        for (std::uint32_t i = 0; i < size_; ++i)
            for (direction way : {direction::write, direction::read, direction::measure})
                code_[i].fn[static_cast<int>(way)] = handler_for(scope_, way, code_[i].op);
    }

private:
    /// Whether e is a std::array of at most unrolled_array_limit fixed-width
    /// leaves the scope carries: compiled as its elements' instructions one
    /// after another, which join the run around them, with no loop.
    bool unrolled(const field_entry& e) const noexcept
    {
        return e.kind == kind::array && e.fixed.count <= unrolled_array_limit && e.element->instructions == 1 &&
               carried(*e.element) && is_fixed_leaf(op_of(*e.element));
    }

    void add_unrolled(const field_entry& e, std::uint32_t offset, const path_node* path) noexcept
    {
        for (std::uint32_t i = 0; i < e.fixed.count; ++i)
            emit(leaf_or_loop(*e.element, offset + i * e.stride, node(path_node{.parent = path, .unrolled = i + 1})));
    }

    /// A leaf's or a container's instruction, with the constants its
    /// handler takes from the instruction itself.
    static instruction leaf_or_loop(const field_entry& e, std::uint32_t offset, const path_node* path) noexcept
    {
        instruction in{.op = op_of(e), .offset = offset, .entry = &e, .path = path};
        if (e.kind == kind::ranged) {
            in.constants.ranged = e.ranged;
            in.bits = static_cast<std::uint8_t>(bits_required_for_span(e.ranged.span));
        } else if (e.kind == kind::string) {
            in.constants.max_length = e.bounded.max;
            in.bits = static_cast<std::uint8_t>(bits_required_for_span(e.bounded.max)); // the length field's
        }
        return in;
    }

    /// The index instruction, one `alternative` instruction per alternative
    /// (the index picks one by its distance), then each alternative's body
    /// on the alternative's object, each ending where the last one does.
    void add_variant(const field_entry& e, std::uint32_t offset, const path_node* path) noexcept
    {
        const std::uint64_t alternatives = e.fixed.count;
        const std::uint32_t at = emit(instruction{.op = op::variant, .offset = offset, .entry = &e, .path = path});
        for (std::uint64_t k = 0; k < alternatives; ++k)
            emit(instruction{.op = op::alternative, .offset = offset, .constants = {.alternative = k}, .entry = &e, .path = path});
        for (std::uint64_t k = 0; k < alternatives; ++k) {
            code_[at + 1 + k].end = size_;
            const path_node* held = node(path_node{.parent = path, .alternative = &e.variant->names[k]});
            add(e.element[k], 0, held);
            emit(instruction{.op = op::end_variant, .entry = &e, .path = held});
        }
        code_[at].end = size_;
        for (std::uint64_t k = 0; k < alternatives; ++k) {
            const std::uint32_t next = k + 1 < alternatives ? code_[at + 2 + k].end : size_;
            code_[next - 1].end = size_; // body k's end_variant
        }
    }

    /// The wire type's instructions: where the value holds the wire object
    /// as it is, on it; else on a wire object the proxy instruction makes
    /// (on the value's side of the error path, which names no step for it).
    void add_proxy(const field_entry& e, std::uint32_t offset, const path_node* path) noexcept
    {
        const std::ptrdiff_t in_place = e.proxy->in_place != nullptr ? e.proxy->in_place() : -1;
        if (in_place >= 0) {
            add(*e.element, offset + static_cast<std::uint32_t>(in_place), path);
            return;
        }
        const std::uint32_t at = emit(instruction{.op = op::proxy, .offset = offset, .entry = &e, .path = path});
        const path_node* wire = node(path_node{.parent = path});
        add(*e.element, 0, wire);
        code_[at].end = emit(instruction{.op = op::end_proxy, .offset = offset, .entry = &e, .path = wire});
    }

    std::uint32_t emit(const instruction& in) noexcept
    {
        if (size_ >= capacity_) [[unlikely]]
            std::abort(); // the entries' counts are wrong: a bug in bitrep, never input
        new (code_ + size_) instruction(in);
        return size_++;
    }
    const path_node* node(const path_node& n) noexcept
    {
        if (node_size_ >= node_capacity_) [[unlikely]]
            std::abort();
        return new (nodes_ + node_size_++) path_node(n);
    }

    instruction* code_;
    std::uint32_t capacity_;
    std::uint32_t size_ = 0;
    path_node* nodes_;
    std::uint32_t node_capacity_;
    std::uint32_t node_size_ = 0;
    scope scope_;
};

enum : std::uint8_t { empty, compiling, ready };

} // namespace

program program_for(const root& value_type, scope field_scope) noexcept
{
    const program_room& room = value_type.programs[static_cast<int>(field_scope)];
    std::atomic<std::uint8_t>& state = *room.state;
    if (state.load(std::memory_order_acquire) != ready) [[unlikely]] {
        std::uint8_t expected = empty;
        if (state.compare_exchange_strong(expected, compiling, std::memory_order_acquire)) {
            compiler build(room, field_scope);
            build.add(*value_type.entry, 0, nullptr);
            build.finish();
            state.store(ready, std::memory_order_release);
        } else {
            while (state.load(std::memory_order_acquire) != ready)
                std::this_thread::yield(); // another thread compiles it, in microseconds
        }
    }
    return program{std::launder(reinterpret_cast<const instruction*>(room.code))};
}

} // namespace bitrep::engine
