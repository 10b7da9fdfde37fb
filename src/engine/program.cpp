// Compiles a type's tables into the interpreter's program (program.hpp).
#include "program.hpp"

#include <atomic>
#include <memory>

#include <bitrep/annotations/field_flags.hpp>
#include <bitrep/codecs/field_flags.hpp>

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

void ensure_offsets(const type_table& table) noexcept
{
    if (!table.ready->load(std::memory_order_acquire)) [[unlikely]]
        table.compute_offsets();
}

class compiler {
public:
    compiler(program& out, scope field_scope) : out_(out), scope_(field_scope) {}

    void add_struct(const type_table& table, std::uint32_t base, const path_node* parent)
    {
        ensure_offsets(table);
        for (std::uint32_t i = 0; i < table.count; ++i) {
            const field_entry& e = table.fields[i];
            if (e.flag != 0 && !bitrep::detail::flag_carried(static_cast<field_flag>(e.flag), scope_))
                continue;
            const path_node* node = &out_.nodes.emplace_back(path_node{&table.ids[i], parent});
            add(e, base + table.offsets[i].load(std::memory_order_relaxed), node);
        }
    }

    void add(const field_entry& e, std::uint32_t offset, const path_node* node)
    {
        if (e.kind == kind::structure) {
            add_struct(*e.nested, offset, node);
            return;
        }
        if (e.kind == kind::variant) {
            add_variant(e, offset, node);
            return;
        }
        if (e.kind == kind::proxy) {
            add_proxy(e, offset, node);
            return;
        }
        const std::size_t at = out_.code.size();
        out_.code.push_back(instruction{op_of(e), offset, 0, e.min, e.span, &e, node});
        if (e.kind == kind::vector || e.kind == kind::array || e.kind == kind::optional || e.kind == kind::map) {
            const path_node* element = &out_.nodes.emplace_back(path_node{nullptr, node, e.kind != kind::optional});
            add(*e.element, 0, element);
            out_.code[at].end = static_cast<std::uint32_t>(out_.code.size());
            // A map's end adds a read entry, refusing a duplicate key at the element.
            if (e.kind == kind::map)
                out_.code.push_back(instruction{op::end_map, offset, 0, 0, 0, &e, element});
            else
                out_.code.push_back(instruction{op::end_loop, 0, 0, 0, 0, &e, node});
        }
    }

private:
    /// The index instruction, one `alternative` instruction per alternative
    /// (the index picks one by its distance), then each alternative's body
    /// on the alternative's object, ending at the same place.
    void add_variant(const field_entry& e, std::uint32_t offset, const path_node* node)
    {
        const std::size_t at = out_.code.size();
        out_.code.push_back(instruction{op::variant, offset, 0, 0, e.span, &e, node});
        for (std::uint64_t k = 0; k < e.span; ++k)
            out_.code.push_back(instruction{op::alternative, offset, 0, k, 0, &e, node});
        std::vector<std::size_t> ends;
        for (std::uint64_t k = 0; k < e.span; ++k) {
            out_.code[at + 1 + k].end = static_cast<std::uint32_t>(out_.code.size());
            const path_node* held =
                &out_.nodes.emplace_back(path_node{nullptr, node, false, e.variant->names[k]});
            add(e.element[k], 0, held);
            ends.push_back(out_.code.size());
            out_.code.push_back(instruction{op::end_variant, 0, 0, 0, 0, &e, held});
        }
        const auto past = static_cast<std::uint32_t>(out_.code.size());
        out_.code[at].end = past;
        for (std::size_t end : ends)
            out_.code[end].end = past;
    }

    /// The wire type's instructions: where the value holds the wire object
    /// as it is, on it; else on a wire object the proxy instruction makes
    /// (on the value's side of the error path, which names no step for it).
    void add_proxy(const field_entry& e, std::uint32_t offset, const path_node* node)
    {
        const std::ptrdiff_t in_place = e.proxy->in_place != nullptr ? e.proxy->in_place() : -1;
        if (in_place >= 0) {
            add(*e.element, offset + static_cast<std::uint32_t>(in_place), node);
            return;
        }
        const std::size_t at = out_.code.size();
        out_.code.push_back(instruction{op::proxy, offset, 0, 0, 0, &e, node});
        const path_node* wire = &out_.nodes.emplace_back(path_node{nullptr, node, false});
        add(*e.element, 0, wire);
        out_.code[at].end = static_cast<std::uint32_t>(out_.code.size());
        out_.code.push_back(instruction{op::end_proxy, offset, 0, 0, 0, &e, wire});
    }

    program& out_;
    scope scope_;
};

} // namespace

const program& program_for(const root& value_type, scope field_scope)
{
    std::atomic<const void*>& slot = value_type.programs[static_cast<int>(field_scope)];
    if (const void* ready = slot.load(std::memory_order_acquire)) [[likely]]
        return *static_cast<const program*>(ready);
    auto built = std::make_unique<program>();
    compiler(*built, field_scope).add(*value_type.entry, 0, nullptr);
    static constexpr field_entry none{};
    built->code.push_back(instruction{op::done, 0, 0, 0, 0, &none, nullptr});
    const void* expected = nullptr;
    if (slot.compare_exchange_strong(expected, built.get(), std::memory_order_acq_rel))
        return *built.release(); // kept for the program's lifetime, like the table
    return *static_cast<const program*>(expected);
}

} // namespace bitrep::engine
