// The engine's programs: a type's table compiled, on first use, into a
// flat list of instructions (one list per scope). Nested structs are inlined
// at their offsets, fields the scope does not carry are left out, and each
// container is a loop over its element's instructions.
#pragma once

#include <cstdint>
#include <string_view>

#include <bitrep/engine/table.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep::engine {

/// Where an instruction's field sits, for the error path: a field of a
/// struct (id), or an element of the container instruction `parent` is.
struct path_node {
    const reflect::field_id* id = nullptr; // nullptr: a container's element
    const path_node* parent = nullptr;
    bool indexed = false; // an element the path names by index (not an optional's value)
    /// An element of an unrolled array (no loop of its own): its index + 1;
    /// 0 for any other node.
    std::uint32_t unrolled = 0;
    const std::string_view* alternative = nullptr; // a variant's alternative, named by its type
};

/// The kinds, with integers split by width and signedness so that the
/// interpreter's one switch also picks the load and the store.
enum class op : std::uint8_t {
    boolean,
    integer8,
    integer16,
    integer32,
    integer64,
    ranged_u8,
    ranged_i8,
    ranged_u16,
    ranged_i16,
    ranged_u32,
    ranged_i32,
    ranged_64,
    enumeration,
    float32,
    float64,
    quantized,
    quat, // the last fixed-width leaf: boolean to quat join runs
    flags,
    bitset,
    string,
    vector,
    bit_vector,
    array,
    optional,
    variant,     // the index; then the alternative instruction that follows it at that distance
    alternative, // enters alternative `min` (its body at `end`)
    end_variant, // the end of an alternative's body: on to `end`, past the last
    map,
    end_map, // the end of a map's entry body (a read adds the entry to the map)
    proxy,
    end_proxy, // the end of a proxy's wire body (a read makes the value from the wire object)
    codec,
    run,      // consecutive fixed-width leaves, run out of line with the stream in registers
    end_loop, // the end of a container's element body
    done,     // the end of the program
};

/// Whether an op is a fixed-width leaf (joined into runs): boolean to quat.
constexpr bool is_fixed_leaf(op o) noexcept { return o <= op::quat; }

struct instruction;

/// An instruction's rule on one kind of stream (interpreter.cpp): it runs
/// the instruction, then the next one's handler, with the stream's cursor
/// in the last three arguments (registers), so that the cursor never goes
/// to memory between two instructions. `run` is the interpreter's
/// context for that stream.
using handler = bool (*)(const instruction* ip, unsigned char* base, void* run, std::uint64_t a, std::uint64_t b,
                         std::uint64_t c);

/// The three kinds of stream a program runs on (an index into
/// instruction::fn).
enum class direction : std::uint8_t { write, read, measure };

struct instruction {
    /// Its handler on each direction's stream of the program's scope.
    handler fn[3] = {};
    engine::op op;
    /// A fixed-width leaf's own op (its `op` is `run` where a run starts).
    engine::op leaf = op::done;
    std::uint8_t bits = 0;         // ranged: bits_required_for_span(span); string: its length field's
    bool leaf_body = false;        // vector, array, optional: the element is one run
    bool uniform = false;          // run: its leaves are all of one op
    std::uint32_t offset = 0;      // from the current base (the object, or the element)
    std::uint32_t end = 0;         // container: the index of its end_loop; run: the index past its last leaf
    std::uint32_t run_bits = 0;    // run: the bits of its leaves together
    /// The constants a handler takes from the instruction rather than
    /// through its entry.
    union kind_constants {
        ranged_params ranged;      // ranged: copied here, next to the offset
        std::uint64_t max_length;  // string
        std::uint64_t alternative; // alternative: which one it enters
    } constants{.ranged = {}};
    const field_entry* entry = nullptr; // the kind's constants
    const path_node* path = nullptr;
};

static_assert(sizeof(instruction) <= instruction_bytes && alignof(instruction) <= 16);
static_assert(sizeof(path_node) <= path_node_bytes && alignof(path_node) <= 16);

/// A compiled program: its instructions, ending with `done`, in the room
/// the value's root gives it.
struct program {
    const instruction* code;
};


/// The handler of `o` on the streams of `field_scope` going `way`.
handler handler_for(scope field_scope, direction way, op o) noexcept;

/// The program for a value of `value_type` in streams of `field_scope`,
/// compiled on the first call into the root's room and kept there.
program program_for(const root& value_type, scope field_scope) noexcept;

} // namespace bitrep::engine
