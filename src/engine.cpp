// The engine: one interpreter over descriptor tables (bitrep/engine/table.hpp)
// for every type, compiled once, for writing, reading and measuring.
//
// A type's table is compiled on first use into a flat program (one per
// scope): nested structs inlined at their offsets, fields the scope does
// not carry left out, containers as loops over an element body. The
// interpreter runs it with the stream in one local object and an explicit
// loop stack, no recursion, so the bit writer's state stays in registers.
// Each kind's rule is one case of run(), calling the same stream primitives
// as the codecs do: both give the same bits and the same refusals.
#include <bitrep/engine/table.hpp>

#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <bitrep/annotations/field_flags.hpp>
#include <bitrep/codecs/classes.hpp>
#include <bitrep/codecs/containers.hpp>
#include <bitrep/codecs/field_flags.hpp>
#include <bitrep/codecs/quantized.hpp>
#include <bitrep/codecs/scalars.hpp>

namespace bitrep::engine {

namespace {

/// Where an instruction's field sits, for the error path: a field of a
/// struct (id), or an element of the container instruction `parent` is.
struct path_node {
    const reflect::field_id* id = nullptr; // nullptr: a container's element
    const path_node* parent = nullptr;
    bool indexed = false; // an element the path names by index (not an optional's value)
};

enum class op : std::uint8_t {
    boolean,
    integer,
    ranged,
    enumeration,
    float32,
    float64,
    quantized,
    string,
    vector,
    array,
    optional,
    codec,
    end_loop, // the end of a container's element body
};

struct instruction {
    engine::op op;
    std::uint32_t offset;      // from the current base (the object, or the element)
    std::uint32_t end = 0;     // container: the index of its end_loop
    const field_entry* entry;  // the kind's constants
    const path_node* path;
};

struct program {
    std::vector<instruction> code;
    std::deque<path_node> nodes;
};

op op_of(kind k) noexcept
{
    switch (k) {
    case kind::boolean: return op::boolean;
    case kind::integer: return op::integer;
    case kind::ranged: return op::ranged;
    case kind::enumeration: return op::enumeration;
    case kind::float32: return op::float32;
    case kind::float64: return op::float64;
    case kind::quantized: return op::quantized;
    case kind::string: return op::string;
    case kind::vector: return op::vector;
    case kind::array: return op::array;
    case kind::optional: return op::optional;
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
        const std::size_t at = out_.code.size();
        out_.code.push_back(instruction{op_of(e.kind), offset, 0, &e, node});
        if (e.kind == kind::vector || e.kind == kind::array || e.kind == kind::optional) {
            add(*e.element, 0, &out_.nodes.emplace_back(path_node{nullptr, node, e.kind != kind::optional}));
            out_.code[at].end = static_cast<std::uint32_t>(out_.code.size());
            out_.code.push_back(instruction{op::end_loop, 0, 0, &e, node});
        }
    }

private:
    program& out_;
    scope scope_;
};

const program& program_for(const type_table& table, scope field_scope)
{
    std::atomic<const void*>& slot = table.programs[static_cast<int>(field_scope)];
    if (const void* ready = slot.load(std::memory_order_acquire)) [[likely]]
        return *static_cast<const program*>(ready);
    auto built = std::make_unique<program>();
    compiler(*built, field_scope).add_struct(table, 0, nullptr);
    const void* expected = nullptr;
    if (slot.compare_exchange_strong(expected, built.get(), std::memory_order_acq_rel))
        return *built.release(); // kept for the program's lifetime, like the table
    return *static_cast<const program*>(expected);
}

/// An integer of `width` bytes, sign-extended to 64 bits when signed.
BITREP_ALWAYS_INLINE std::uint64_t load_integer(const unsigned char* p, unsigned width, bool is_signed) noexcept
{
    switch (width) {
    case 1: {
        std::uint8_t v;
        std::memcpy(&v, p, 1);
        return is_signed ? static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int8_t>(v))) : v;
    }
    case 2: {
        std::uint16_t v;
        std::memcpy(&v, p, 2);
        return is_signed ? static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int16_t>(v))) : v;
    }
    case 4: {
        std::uint32_t v;
        std::memcpy(&v, p, 4);
        return is_signed ? static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(v))) : v;
    }
    default: {
        std::uint64_t v;
        std::memcpy(&v, p, 8);
        return v;
    }
    }
}

/// Stores the low `width` bytes of value.
BITREP_ALWAYS_INLINE void store_integer(unsigned char* p, unsigned width, std::uint64_t value) noexcept
{
    switch (width) {
    case 1: {
        const auto v = static_cast<std::uint8_t>(value);
        std::memcpy(p, &v, 1);
        return;
    }
    case 2: {
        const auto v = static_cast<std::uint16_t>(value);
        std::memcpy(p, &v, 2);
        return;
    }
    case 4: {
        const auto v = static_cast<std::uint32_t>(value);
        std::memcpy(p, &v, 4);
        return;
    }
    default: std::memcpy(p, &value, 8); return;
    }
}

template <class Stream>
[[gnu::noinline]] bool call_codec(Stream& stream, const codec_access& codec, unsigned char* p)
{
    if constexpr (Stream::is_reading)
        return codec.read(stream, p);
    else if constexpr (Stream::is_writing)
        return codec.write(stream, p);
    else
        return codec.measure(stream, p);
}

template <class Stream>
BITREP_ALWAYS_INLINE bool run_enumeration(Stream& stream, const field_entry& e, unsigned char* p)
{
    std::uint64_t index = 0;
    const std::size_t start = stream.position();
    if constexpr (!Stream::is_reading) {
        const std::uint64_t value = load_integer(p, e.width, e.is_signed);
        if (e.values == nullptr) {
            index = value < e.span ? value : e.span;
        } else {
            index = e.span;
            for (std::uint64_t i = 0; i < e.span; ++i)
                if (e.values[i] == value) {
                    index = i;
                    break;
                }
        }
        if (Stream::is_writing && index == e.span) [[unlikely]]
            return stream.fail(error::bad_enum, start, "enum value is not an enumerator");
    }
    if (!bitrep::detail::serialize_enum_index(stream, index, e.span, start))
        return false;
    if constexpr (Stream::is_reading)
        store_integer(p, e.width, e.values == nullptr ? index : e.values[index]);
    return true;
}

/// One leaf field: the rule of its kind.
template <class Stream>
BITREP_ALWAYS_INLINE bool run_leaf(Stream& stream, op code, const field_entry& e, unsigned char* p)
{
    switch (code) {
    case op::boolean: {
        bool value = Stream::is_reading ? false : *reinterpret_cast<const bool*>(p);
        if (!stream.serialize_bool(value))
            return false;
        if constexpr (Stream::is_reading)
            *reinterpret_cast<bool*>(p) = value;
        return true;
    }
    case op::integer: {
        std::uint64_t pattern = Stream::is_reading ? 0 : load_integer(p, e.width, false);
        if (!bitrep::detail::serialize_integer_pattern(stream, pattern, e.width * 8, false))
            return false;
        if constexpr (Stream::is_reading)
            store_integer(p, e.width, pattern);
        return true;
    }
    case op::ranged: {
        std::uint64_t offset = Stream::is_reading ? 0 : load_integer(p, e.width, e.is_signed) - e.min;
        if (!stream.serialize_ranged_offset(offset, e.span))
            return false;
        if constexpr (Stream::is_reading)
            store_integer(p, e.width, e.min + offset);
        return true;
    }
    case op::enumeration: return run_enumeration(stream, e, p);
    case op::float32: return stream.serialize_float(*reinterpret_cast<float*>(p));
    case op::float64: return stream.serialize_double(*reinterpret_cast<double*>(p));
    case op::quantized: {
        float& value = *reinterpret_cast<float*>(p);
        if constexpr (Stream::is_writing) {
            const bool encodable = e.clamp ? value == value : (e.low <= value && value <= e.top);
            if (!encodable) [[unlikely]]
                return bitrep::detail::refuse_quantized(stream, value);
        }
        return stream.serialize_quantized(value, e.quantizer);
    }
    case op::string:
        return stream.serialize_string(*reinterpret_cast<std::string*>(p), static_cast<std::size_t>(e.min) + 1);
    case op::codec: return call_codec(stream, *e.codec, p);
    default: return false;
    }
}

struct loop_frame {
    unsigned char* outer;  // the base outside the container
    unsigned char* data;   // the first element
    std::size_t index;
    std::size_t count;
    std::uint32_t stride;
    std::uint32_t body;
};

/// Names the failing field: each enclosing field and element, innermost
/// first, as the codecs' walks do when they unwind.
template <class Stream>
[[gnu::cold, gnu::noinline]] void record_path(Stream& stream, const path_node* node, const loop_frame* frames,
                                              int depth) noexcept
{
    for (; node != nullptr; node = node->parent) {
        if (node->id == nullptr) {
            --depth;
            if (node->indexed)
                stream.enter_index(frames[depth].index);
        } else
            bitrep::detail::enter_field(stream.failure(), *node->id);
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

template <class Stream>
bool run(Stream& stream, const program& prog, unsigned char* object)
{
    const instruction* code = prog.code.data();
    const std::size_t size = prog.code.size();
    loop_frame frames[max_depth];
    int depth = 0;
    unsigned char* base = object;
    std::size_t pc = 0;
    while (pc < size) {
        const instruction& in = code[pc];
        unsigned char* p = base + in.offset;
        switch (in.op) {
        case op::vector:
        case op::array:
        case op::optional: {
            loop_frame& frame = frames[depth];
            if (!enter_container(stream, in, p, frame)) [[unlikely]] {
                record_path(stream, in.path, frames, depth);
                return false;
            }
            if (frame.count == 0) {
                pc = in.end + 1;
                break;
            }
            frame.outer = base;
            frame.body = static_cast<std::uint32_t>(pc + 1);
            base = frame.data;
            ++depth;
            ++pc;
            break;
        }
        case op::end_loop: {
            loop_frame& frame = frames[depth - 1];
            if (++frame.index < frame.count) {
                base = frame.data + frame.index * frame.stride;
                pc = frame.body;
            } else {
                base = frame.outer;
                --depth;
                ++pc;
            }
            break;
        }
        default:
            if (!run_leaf(stream, in.op, *in.entry, p)) [[unlikely]] {
                record_path(stream, in.path, frames, depth);
                return false;
            }
            ++pc;
            break;
        }
    }
    return true;
}

} // namespace

bool write(write_stream& stream, const type_table& table, const void* object)
{
    return run(stream, program_for(table, write_stream::field_scope),
               static_cast<unsigned char*>(const_cast<void*>(object)));
}

bool read(read_stream& stream, const type_table& table, void* object)
{
    return run(stream, program_for(table, read_stream::field_scope), static_cast<unsigned char*>(object));
}

bool measure(measure_stream& stream, const type_table& table, const void* object)
{
    return run(stream, program_for(table, measure_stream::field_scope),
               static_cast<unsigned char*>(const_cast<void*>(object)));
}

} // namespace bitrep::engine
