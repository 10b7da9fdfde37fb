// The descriptor tables the engine runs over: what a type costs the
// compiler is one constant table per struct (its fields' kinds, constants
// and offsets), not code. The engine (src/engine/) is compiled once.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include <bitrep/annotations/field_flags.hpp>
#include <bitrep/kinds/counts.hpp>
#include <bitrep/kinds/enumeration.hpp>
#include <bitrep/kinds/flags.hpp>
#include <bitrep/kinds/quantized.hpp>
#include <bitrep/kinds/quat.hpp>
#include <bitrep/kinds/ranged.hpp>
#include <bitrep/engine/scratch.hpp>
#include <bitrep/wire/delta_ticks.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/quantize.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep {
class schema_builder;
struct renamed;
template <scope Scope>
class basic_coded_write_stream;
template <scope Scope>
class basic_coded_read_stream;
} // namespace bitrep

namespace bitrep::engine {

/// What a field is, as far as the wire is concerned. Each kind's rule lives
/// in src/engine/kinds.hpp, run by a case of the interpreter's switch.
enum class kind : std::uint8_t {
    boolean,     // 1 bit
    integer,     // two's complement pattern at full width
    ranged,      // offset from min in bits_required(span) bits
    enumeration, // declaration index among `count` enumerators
    flags,       // a flag enum: a bit per flag
    bitset,      // std::bitset: its bits, bit 0 first, in words of 32
    float32,     // IEEE-754 bit pattern
    float64,
    quantized,   // compressed_float with a quantizer
    quat,        // smallest three: the largest's index, three quantized components
    string,      // bounded_string: length, then aligned bytes
    vector,      // bounded_vector: count, then elements
    bit_vector,  // bounded_vector<bool>: count, then a bit per element
    array,       // std::array: elements
    optional,    // presence bit, then the value
    variant,     // std::variant: the alternative's index, then the alternative
    map,         // bounded_map / bounded_set: count, then the entries by ascending key
    proxy,       // sent as its wire type (a duration as its count, a vector as its components)
    structure,   // a reflected class, a std::pair or a std::tuple: its own table
    codec,       // a class with a serialization hook: its compiled codec, through function pointers
};

struct type_table;
struct field_entry;

/// A contiguous container's elements (bounded_vector's std::vector).
struct container_access {
    std::size_t (*size)(const void* container) noexcept;
    void* (*data)(void* container) noexcept;
    /// resize_for_decode: a count the reader has already bounded.
    void (*resize)(void* container, std::size_t size);
    /// Exchanges two containers' elements (from_bytes hands a decoded value
    /// over by exchanging its parts). Every container has one.
    void (*swap)(void* a, void* b) noexcept;
};

/// A bounded_vector<bool>'s std::vector<bool>, whose elements are bits, not
/// objects: each goes through a bool.
struct bit_vector_access {
    std::size_t (*size)(const void* vector) noexcept;
    void (*resize)(void* vector, std::size_t size);
    bool (*test)(const void* vector, std::size_t index) noexcept;
    void (*assign)(void* vector, std::size_t index, bool bit) noexcept;
};

/// A std::bitset's bits, `count` (at most 32) at a time from bit `at`.
struct bitset_access {
    std::uint64_t (*word)(const void* set, std::size_t at, int count) noexcept;
    void (*set_word)(void* set, std::size_t at, int count, std::uint64_t word) noexcept;
};

/// std::optional<T>.
struct optional_access {
    bool (*has_value)(const void* optional) noexcept;
    void* (*value)(void* optional) noexcept;
    void (*reset)(void* optional) noexcept;
    void (*emplace)(void* optional);
};

/// std::variant<Ts...>: which alternative it holds, and where.
struct variant_access {
    /// std::variant_npos when valueless by exception.
    std::size_t (*index)(const void* variant) noexcept;
    /// Per alternative: its object, which the variant holds (writing).
    void* (*const* held)(void* variant) noexcept;
    /// Per alternative: makes it the one held (default-made, unless it is
    /// held already: a read then assigns every part it carries) and
    /// returns it (reading).
    void* (*const* hold)(void* variant);
    /// Per alternative: its type's name, which the error path gives
    /// (`Pickup.item<Weapon>.damage`).
    const std::string_view* names;
};

/// bounded_map<K, V, N> (entries: std::pair<K, V>) or bounded_set<K, N>
/// (entries: K), whose entries are not where a read can decode them.
struct map_access {
    bool has_values; // a map, not a set
    std::size_t (*size)(const void* map) noexcept;
    /// The entries in ascending key order: an array of pointers made in
    /// the walk's scratch.
    const void* const* (*sorted)(const void* map, scratch& work);
    void (*clear)(void* map) noexcept;
    /// An entry to decode into, made anew in the walk's scratch.
    void* (*fresh)(scratch& work);
    /// Moves that entry into the map: false when the map holds its key.
    bool (*insert)(void* map, void* entry);
    /// Whether stored entry a's key is below stored entry b's.
    bool (*key_below)(const void* a, const void* b);
    /// The map's stored entry with `entry`'s key, or nullptr.
    const void* (*find)(const void* map, const void* entry);
    /// Removes the map's entry with `entry`'s key.
    void (*erase)(void* map, const void* entry);
};

/// A value sent as another type, its wire type (detail::proxy_traits<T>, or
/// a field's annotation given outside its class): written from a wire
/// object made from it, read into one it is then made from; or, where the
/// value holds the wire type's object as it is, in place. An entity_array
/// is sent as its slots, the wire object it holds. The wire objects are
/// made in the walk's scratch, which the walk releases when it is done
/// with them.
struct proxy_access {
    /// Where the wire object lies in the value, from its start, when the
    /// value is it, as it is (nothing to convert); -1 when it is not.
    /// nullptr: never. Asked once per program.
    std::ptrdiff_t (*in_place)() noexcept;
    /// The wire object a write (or measure, or comparison) sends: made
    /// from the value (or the part of the value that is one).
    void* (*wire_to_write)(const void* value, scratch& work);
    /// The wire object a read decodes into: made anew (or the part of the
    /// value that is one).
    void* (*wire_to_read)(void* value, scratch& work);
    /// After a read: the value made from the wire object (or brought in line
    /// with its part).
    void (*from_wire)(void* value, const void* wire);
};

/// The compiled codec of a class with a serialization hook, on the streams
/// of one scope.
template <scope Scope>
struct codec_calls {
    bool (*write)(basic_write_stream<Scope>& stream, const void* value);
    bool (*read)(basic_read_stream<Scope>& stream, void* value);
    bool (*measure)(basic_measure_stream<Scope>& stream, const void* value);
    /// A delta's changed value on the coded streams (coded_stream.hpp).
    bool (*coded_write)(basic_coded_write_stream<Scope>& stream, const void* value);
    bool (*coded_read)(basic_coded_read_stream<Scope>& stream, void* value);
};

/// ... on every scope's streams (a hook may write a field only in saves).
struct codec_access {
    codec_calls<scope::all> all;
    codec_calls<scope::save> save;
    codec_calls<scope::replication> replication;
};

/// What a save file's schema says of a value that its kind and constants do
/// not (engine::describe, src/engine/describe.cpp): names, renames, and a
/// quantized float's bounds as declared.
struct schema_info {
    /// structure, enumeration, flags, codec: the type's stable name; proxy:
    /// a duration's, the name of the struct whose one field, `count`, it is.
    std::string_view type_name;
    /// enumeration: the enumerators' names; flags: the flags'; variant: the
    /// alternatives' (empty for a kind that has none); structure: each base
    /// class's stable name at its position (nullptr when it has no base).
    const std::string_view* names = nullptr;
    /// structure, enumeration, flags: bitrep_renames.
    const renamed* renames = nullptr;
    std::size_t rename_count = 0;
    /// quantized: min, max and resolution as the annotation gives them.
    float min = 0;
    float max = 0;
    float resolution = 0;
    /// proxy: the traits' own describe, when they have one.
    void (*describe)(schema_builder& builder) = nullptr;
    /// structure, codec: the type's save_version (1 when it declares none),
    /// and its migrate hook (nullptr when it has none), which a load runs on
    /// each value of it a file of an older version holds.
    std::uint32_t save_version = 1;
    bool (*migrate)(void* object, std::uint32_t from_version) = nullptr;
};

/// One field (or a container's element): its kind and the constants its
/// rule needs. Constant-initialized; nothing in it depends on an object.
struct field_entry {
    engine::kind kind = engine::kind::boolean;
    /// Bytes of the C++ integer (integer, ranged, enumeration, flags).
    std::uint8_t width = 0;
    bool is_signed = false;
    /// field_flag as an integer plus 1 (0: none): which streams carry the
    /// field.
    std::uint8_t flag = 0;
    /// The kind's own constants (include/bitrep/kinds/): the member its
    /// kind names, none for the kinds that have none.
    union {
        std::uint8_t none = 0;             // boolean, integer, floats, optional, structure, proxy, codec
        ranged_params ranged;              // ranged
        enumeration_params enumeration;    // enumeration
        flags_params flags;                // flags
        quantized_params quantized;        // quantized
        quat_params quat;                  // quat
        bounded_params bounded;            // string, vector, bit_vector, map
        fixed_count_params fixed;          // array, bitset, variant
    };
    /// structure: the nested type's table.
    const type_table* nested = nullptr;
    /// vector, array, optional: the element, and the distance between two;
    /// variant: the alternatives (`span` of them); map: the entry as a read
    /// decodes it (std::pair<K, V>, or K); proxy: the wire type.
    const field_entry* element = nullptr;
    std::uint32_t stride = 0;
    /// How the engine reaches into the kind's C++ object (a std::vector's
    /// elements, a std::optional's value, ...): the member its kind names,
    /// none for the kinds whose object the engine reads as it lies.
    union {
        const void* no_access = nullptr; // boolean to quat, string, array, structure
        const container_access* container; // vector
        const bit_vector_access* bits;     // bit_vector
        const bitset_access* bitset;       // bitset
        const optional_access* maybe;      // optional
        const variant_access* variant;     // variant
        const map_access* map;             // map
        const proxy_access* proxy;         // proxy
        const codec_access* codec;         // codec
    };
    /// What a save file's schema needs beyond the above (nullptr: nothing).
    const schema_info* schema = nullptr;
    /// The coded streams' model slots the value's delta uses (coded_stream.hpp):
    /// one per leaf (a quat's two), a container's or optional's one more for
    /// its own decisions, a struct's its fields' together.
    std::uint32_t slots = 1;
    /// A transient field's or a hook's value assigned (a delta's reader takes
    /// the baseline's where nothing changed); nullptr for the rest, which the
    /// engine assigns part by part.
    void (*copy)(void* to, const void* from) = nullptr;
    /// How a delta sends a changed value where its kind's own rule is not
    /// the one: a delta_small's step from the baseline's (up to `delta_limit`
    /// quanta or steps), a quat_code's smallest-three code (its components
    /// at most `delta_limit`) as a quaternion's.
    enum class delta_rule : std::uint8_t { kind, small_step, smallest_three_code };
    delta_rule rule = delta_rule::kind;
    std::uint32_t delta_limit = 0;
    /// How many containers deep the value nests (the engine's loop stack).
    std::uint8_t depth = 0;
    /// The most instructions and error-path nodes the engine's program for
    /// a value takes (its storage is sized by them: compiling allocates
    /// nothing).
    std::uint32_t instructions = 1;
    std::uint32_t nodes = 0;
    /// The fewest bits any value takes (a reader bounds a count by them),
    /// and the most (the standard's measure rule: 7 bits per alignment).
    std::size_t min_bits = 0;
    std::size_t max_bits = 0;
    /// The C++ object's size (0 for an empty class, which holds nothing),
    /// and whether it is trivially copyable: exchanged byte by byte.
    std::uint32_t object_size = 0;
    bool trivially_copyable = false;
    /// A default-made object of the type (a struct's default member
    /// initializers): what a value a save file lacks loads as.
    const void* defaults = nullptr;
};

/// Whether the entry is a transient field's, which no stream carries.
constexpr bool is_transient(const field_entry& e) noexcept
{
    return e.flag == static_cast<std::uint8_t>(field_flag::transient) + 1;
}

/// A reflected class (or a std::pair, a std::tuple): its fields in
/// declaration order, with their offsets.
struct type_table {
    std::string_view name;
    const field_entry* fields = nullptr;
    const reflect::field_id* ids = nullptr;
    std::uint32_t count = 0;
    /// Filled on first use (offsets are not constant expressions); `ready`
    /// says when. compute_offsets fills both.
    std::atomic<std::uint32_t>* offsets = nullptr;
    std::atomic<bool>* ready = nullptr;
    void (*compute_offsets)() noexcept = nullptr;
    /// Every member is a field (a description lists them all): a read
    /// leaves none of the object as it was.
    bool complete = true;
    /// Each field's first coded model slot: fields of one type share theirs
    /// (x and y of a position learn together).
    const std::uint32_t* slot_offsets = nullptr;
    /// A class's own prediction (predict.hpp), else nullptr: runs it on the
    /// older state and the baseline (the same object when there is no
    /// older state) and hands the predicted value, which lives on its
    /// stack, to `next(context, predicted)`, returning what next returns.
    bool (*predict)(const void* older, const void* base, const delta_ticks& ticks, void* context,
                    bool (*next)(void* context, const void* predicted)) = nullptr;
};

/// Room for one program the engine compiles from an entry on first use:
/// `instructions` slots of instruction_bytes and `nodes` of path_node_bytes
/// (the engine checks that its types fit), and its state (0: empty, 1:
/// being compiled, 2: ready).
inline constexpr std::size_t instruction_bytes = 80;
inline constexpr std::size_t path_node_bytes = 32;
struct program_room {
    unsigned char* code = nullptr;
    std::uint32_t instructions = 0;
    unsigned char* nodes = nullptr;
    std::uint32_t node_count = 0;
    std::atomic<std::uint8_t>* state = nullptr;
};

/// What the engine's entry points take: the value's entry, and the room for
/// the programs compiled from it (one per scope).
struct root {
    const field_entry* entry = nullptr;
    const program_room* programs = nullptr;
};

/// The deepest nesting of containers the engine runs (a type nested deeper
/// does not compile).
inline constexpr std::uint8_t max_depth = 32;

/// A std::array of at most this many fixed-width leaves is compiled as its
/// elements, one instruction each, with no loop (a position's three
/// coordinates, a rotation code's three components).
inline constexpr std::uint64_t unrolled_array_limit = 16;

// The engine: compiled once in the library, for every type, on the streams
// of every scope (whole values, save files, replication).
template <scope Scope>
bool write(basic_write_stream<Scope>& stream, const root& value_type, const void* object);
template <scope Scope>
bool read(basic_read_stream<Scope>& stream, const root& value_type, void* object);
template <scope Scope>
bool measure(basic_measure_stream<Scope>& stream, const root& value_type, const void* object);

// Instantiated once, in the library (src/engine/interpreter.cpp).
extern template bool write<scope::all>(basic_write_stream<scope::all>&, const root&, const void*);
extern template bool write<scope::save>(basic_write_stream<scope::save>&, const root&, const void*);
extern template bool write<scope::replication>(basic_write_stream<scope::replication>&, const root&, const void*);
extern template bool read<scope::all>(basic_read_stream<scope::all>&, const root&, void*);
extern template bool read<scope::save>(basic_read_stream<scope::save>&, const root&, void*);
extern template bool read<scope::replication>(basic_read_stream<scope::replication>&, const root&, void*);
extern template bool measure<scope::all>(basic_measure_stream<scope::all>&, const root&, const void*);
extern template bool measure<scope::save>(basic_measure_stream<scope::save>&, const root&, const void*);
extern template bool measure<scope::replication>(basic_measure_stream<scope::replication>&, const root&,
                                                 const void*);

/// What from_bytes does with a T it does not know: the working object it
/// keeps per thread and type, made, exchanged with the caller's and
/// destroyed through these (one constant per type, so that the header
/// compiles no decoding code per type).
struct object_ops {
    void* (*make)();                            // a new default-made T
    void (*destroy)(void* object) noexcept;     // deletes what make made
    void (*assign)(void* to, const void* from); // to = from; nullptr when a read writes every field
    /// out gets the decoded value (a swap); nullptr when the library
    /// exchanges the parts the type's entries describe (exchange_steps).
    void (*exchange)(void* out, void* working);
};

/// One step of handing a decoded value over part by part: `size` bytes at
/// `offset` exchanged as they are (entry nullptr), or the string or vector
/// there exchanged by its kind.
struct exchange_step {
    std::uint32_t offset = 0;
    std::uint32_t size = 0;
    const field_entry* entry = nullptr;
};

/// A type's steps, flattened through nested structs, runs of bytes merged:
/// made on their first use by whoever keeps them (a decoder keeps its own,
/// from_bytes makes them per call), then run on every success.
struct exchange_steps {
    std::vector<exchange_step> steps;
    bool planned = false;
};

/// A whole value's type as to_bytes / from_bytes / bit_size / decoder take
/// it: its root and its name for error paths.
struct value_type {
    engine::root root;
    std::string_view name;
    /// A read writes every field (nothing is transient, no hook, every
    /// member described), so the working object need not start as a copy.
    bool reads_every_field = false;
};

// The entry points of bytes.hpp, compiled once (src/engine/bytes.cpp).
std::size_t bit_size(const value_type& type, const void* object);
status to_bytes(const value_type& type, const void* object, std::span<std::uint8_t> buffer,
                std::size_t& bytes_written);
status to_bytes(const value_type& type, const void* object, std::vector<std::uint8_t>& out);
/// Reads a whole encoding into target in place (not all or nothing) and
/// refuses whole bytes left after the value.
status decode_in_place(const value_type& type, std::span<const std::uint8_t> bytes, void* target);
/// Decodes into working (a copy of out first, unless a read writes every
/// field) and gives out the result on success.
status decode_and_exchange(const value_type& type, const object_ops& ops, std::span<const std::uint8_t> bytes,
                           void* working, void* out, exchange_steps& steps);
/// decode_and_exchange with a working object made for the call.
status from_bytes(const value_type& type, const object_ops& ops, std::span<const std::uint8_t> bytes, void* out);

} // namespace bitrep::engine
