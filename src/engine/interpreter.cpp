// The engine: one interpreter over the programs compiled from descriptor
// tables (program.hpp), for every type, compiled once, for writing, reading
// and measuring. It runs with the stream in one local object and an
// explicit loop stack, no recursion, so that the bit writer's state can stay
// in registers; each kind's rule is in kinds.hpp.
#include <bitrep/engine/table.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

#include <bitrep/codecs/classes.hpp>

#include "kinds.hpp"
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

/// Runs the program: one switch over every instruction, leaves and loops
/// alike, so that each costs one dispatch.
template <class Stream>
BITREP_ALWAYS_INLINE bool run_program(Stream& stream, const instruction* code, unsigned char* object)
{
    loop_frame frames[max_depth];
    int depth = 0;
    unsigned char* base = object;
    const instruction* ip = code;
    for (;;) {
        const instruction& in = *ip;
        unsigned char* p = base + in.offset;
        const field_entry& e = *in.entry;
        bool ok = true;
        switch (in.op) {
        case op::done: return true;
        case op::vector:
        case op::array:
        case op::optional:
        case op::map: {
            loop_frame& frame = frames[depth];
            if (!enter_container(stream, in, p, frame)) [[unlikely]] {
                ok = false;
                break;
            }
            if (frame.count == 0) {
                ip = code + in.end + 1;
                continue;
            }
            frame.outer = base;
            frame.body = static_cast<std::uint32_t>(ip - code + 1);
            base = frame.data;
            ++depth;
            ++ip;
            continue;
        }
        case op::end_map:
            stream.resume(out_of_line<Stream, &next_map_entry<Stream, loop_frame>>(
                stream.state(), stream.failure(), ok, e, frames[depth - 1].outer + in.offset, frames[depth - 1]));
            if (!ok) [[unlikely]]
                break;
            [[fallthrough]];
        case op::end_loop: {
            loop_frame& frame = frames[depth - 1];
            if (++frame.index < frame.count) {
                base = frame.data + frame.index * frame.stride;
                ip = code + frame.body;
            } else {
                base = frame.outer;
                --depth;
                ++ip;
            }
            continue;
        }
        case op::variant: {
            std::size_t index = 0;
            if (!run_variant_index(stream, e, p, index)) [[unlikely]] {
                ok = false;
                break;
            }
            ip += 1 + index;
            continue;
        }
        case op::alternative:
            frames[depth++].outer = base;
            base = alternative_object<Stream>(e, p, in.min);
            ip = code + in.end;
            continue;
        case op::end_variant:
            base = frames[--depth].outer;
            ip = code + in.end;
            continue;
        case op::proxy: {
            loop_frame& frame = frames[depth++];
            frame.outer = base;
            frame.data = proxy_wire<Stream>(e, p);
            base = frame.data;
            ++ip;
            continue;
        }
        case op::end_proxy: {
            const loop_frame& frame = frames[--depth];
            base = frame.outer;
            leave_proxy<Stream>(e, base + in.offset, frame.data);
            ++ip;
            continue;
        }
        case op::boolean: {
            bool value = Stream::is_reading ? false : *reinterpret_cast<const bool*>(p);
            ok = stream.serialize_bool(value);
            if constexpr (Stream::is_reading)
                *reinterpret_cast<bool*>(p) = value;
            break;
        }
        case op::integer8: ok = run_integer<Stream, std::uint8_t>(stream, p); break;
        case op::integer16: ok = run_integer<Stream, std::uint16_t>(stream, p); break;
        case op::integer32: ok = run_integer<Stream, std::uint32_t>(stream, p); break;
        case op::integer64: ok = run_integer<Stream, std::uint64_t>(stream, p); break;
        case op::ranged_u8: ok = run_ranged<Stream, std::uint8_t>(stream, in, p); break;
        case op::ranged_i8: ok = run_ranged<Stream, std::int8_t>(stream, in, p); break;
        case op::ranged_u16: ok = run_ranged<Stream, std::uint16_t>(stream, in, p); break;
        case op::ranged_i16: ok = run_ranged<Stream, std::int16_t>(stream, in, p); break;
        case op::ranged_u32: ok = run_ranged<Stream, std::uint32_t>(stream, in, p); break;
        case op::ranged_i32: ok = run_ranged<Stream, std::int32_t>(stream, in, p); break;
        case op::ranged_64: ok = run_ranged<Stream, std::uint64_t>(stream, in, p); break;
        case op::enumeration: ok = run_enumeration(stream, e, p); break;
        case op::float32: ok = stream.serialize_float(*reinterpret_cast<float*>(p)); break;
        case op::float64: ok = stream.serialize_double(*reinterpret_cast<double*>(p)); break;
        case op::quantized: ok = run_quantized(stream, e, p); break;
        case op::quat:
            ok = bitrep::detail::serialize_smallest_three(stream, *reinterpret_cast<quat_floats*>(p), e.quantizer, e.low);
            break;
        case op::string:
            ok = stream.serialize_string(*reinterpret_cast<std::string*>(p), static_cast<std::size_t>(e.min) + 1);
            break;
        case op::bit_vector:
            stream.resume(out_of_line<Stream, &run_bit_vector<Stream>>(stream.state(), stream.failure(), ok, e, p));
            break;
        case op::flags:
            stream.resume(out_of_line<Stream, &run_flags<Stream>>(stream.state(), stream.failure(), ok, e, p));
            break;
        case op::bitset:
            stream.resume(out_of_line<Stream, &run_bitset<Stream>>(stream.state(), stream.failure(), ok, e, p));
            break;
        case op::codec: stream.resume(call_codec<Stream>(stream.state(), stream.failure(), *e.codec, p, ok)); break;
        }
        if (!ok) [[unlikely]] {
            record_path(stream.failure(), in.path, frames, depth);
            return false;
        }
        ++ip;
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

BITREP_ENGINE_ENTRY_POINTS(, scope::all);
BITREP_ENGINE_ENTRY_POINTS(, scope::save);
BITREP_ENGINE_ENTRY_POINTS(, scope::replication);

} // namespace bitrep::engine
