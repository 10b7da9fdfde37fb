// to_bytes, from_bytes, bit_size and decoder<T> on the engine's path,
// compiled once: the header's templates only pass a type's constant
// value_type and the object, so a file using many types compiles none of
// this per type (bench/compile_time).
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include <bitrep/annotations/field_flags.hpp>
#include <bitrep/engine/table.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep::engine {

std::size_t bit_size(const value_type& type, const void* object)
{
    failure_record failure;
    measure_stream stream(failure);
    // Measuring checks no value, so only a hook that refuses can stop it; the
    // count then ends where it refused, and to_bytes reports that refusal.
    static_cast<void>(measure(stream, type.root, object));
    return stream.exact_bits();
}

status to_bytes(const value_type& type, const void* object, std::span<std::uint8_t> buffer,
                std::size_t& bytes_written)
{
    failure_record failure;
    write_stream stream(buffer, failure);
    if (!write(stream, type.root, object)) [[unlikely]] {
        bytes_written = 0;
        return stream.failure_status(type.name);
    }
    bytes_written = stream.flush();
    return {};
}

status to_bytes(const value_type& type, const void* object, std::vector<std::uint8_t>& out)
{
    // Growing the vector zero-fills what it adds. Up to a few hundred bytes,
    // filling the whole bound costs less than measuring first; beyond (a
    // bounded vector's bound is usually far above what it holds), an exact
    // measuring pass sizes it, so that only the encoding is filled.
    constexpr std::size_t small_bound_bytes = 256;
    std::size_t room_bits = type.root.entry->max_bits;
    if (room_bits > small_bound_bytes * 8)
        room_bits = bit_size(type, object); // to_bytes reports a refusing hook
    out.clear();
    out.resize((room_bits + 7) / 8);
    failure_record failure;
    write_stream stream(std::span<std::uint8_t>(out), failure);
    if (!write(stream, type.root, object)) [[unlikely]] {
        out.clear();
        return stream.failure_status(type.name);
    }
    out.resize(stream.flush());
    return {};
}

status decode_in_place(const value_type& type, std::span<const std::uint8_t> bytes, void* target)
{
    failure_record failure;
    read_stream stream(bytes, failure);
    if (!read(stream, type.root, target)) [[unlikely]]
        return stream.failure_status(type.name);
    const std::size_t used_bytes = (stream.bit_position() + 7) / 8;
    if (used_bytes != bytes.size()) [[unlikely]]
        return status(error::trailing_data, used_bytes * 8, type.name, "whole bytes left over after the value");
    return {};
}

namespace {

void exchange_part(const field_entry& e, unsigned char* a, unsigned char* b, std::size_t extent) noexcept;

/// Where field i of a struct (at `offsets`) ends at the latest: where the
/// next field in memory starts, or `limit`. A field's size may reach past
/// that: a base's or a [[no_unique_address]] member's tail padding may hold
/// the next member, which must not be exchanged twice.
std::size_t field_end(const type_table& table, std::uint32_t i, std::size_t limit) noexcept
{
    const std::uint32_t at = table.offsets[i].load(std::memory_order_relaxed);
    std::size_t end = limit;
    for (std::uint32_t j = 0; j < table.count; ++j) {
        const std::uint32_t other = table.offsets[j].load(std::memory_order_relaxed);
        if (table.fields[j].object_size != 0 && other > at && other < end)
            end = other;
    }
    return end;
}

/// Exchanges the fields of two objects of a struct, whose parts lie in the
/// first `limit` bytes.
void exchange_fields(const type_table& table, unsigned char* a, unsigned char* b, std::size_t limit) noexcept
{
    if (!table.ready->load(std::memory_order_acquire)) [[unlikely]]
        table.compute_offsets();
    for (std::uint32_t i = 0; i < table.count; ++i) {
        const std::uint32_t at = table.offsets[i].load(std::memory_order_relaxed);
        exchange_part(table.fields[i], a + at, b + at, field_end(table, i, limit) - at);
    }
}

/// Exchanges two objects of the type `e` describes (exchanged_by_parts),
/// of which the first `extent` bytes are theirs.
void exchange_part(const field_entry& e, unsigned char* a, unsigned char* b, std::size_t extent) noexcept
{
    if (e.flag == static_cast<std::uint8_t>(field_flag::transient) || e.object_size == 0)
        return; // a transient field is the same in both: the working object started as a copy
    const std::size_t size = std::min<std::size_t>(e.object_size, extent);
    if (e.trivially_copyable) {
        unsigned char held[256];
        for (std::size_t done = 0; done < size; done += sizeof(held)) {
            const std::size_t n = std::min(sizeof(held), size - done);
            std::memcpy(held, a + done, n);
            std::memcpy(a + done, b + done, n);
            std::memcpy(b + done, held, n);
        }
    } else if (e.kind == kind::string) {
        reinterpret_cast<std::string*>(a)->swap(*reinterpret_cast<std::string*>(b));
    } else if (e.kind == kind::vector) {
        e.container->swap(a, b);
    } else {
        exchange_fields(*e.nested, a, b, size);
    }
}

} // namespace

status decode_and_exchange(const value_type& type, const object_ops& ops, std::span<const std::uint8_t> bytes,
                           void* working, void* out)
{
    // A read that writes every field needs nothing of `out` in `working`:
    // whatever an earlier message, refused or not, left there is overwritten
    // (containers resized, optionals reset or filled), and its containers'
    // capacity is reused. Otherwise `working` starts as a copy of `out`, by
    // assignment, which reuses that capacity too.
    if (!type.reads_every_field)
        ops.assign(working, out);
    status result = decode_in_place(type, bytes, working);
    if (result) {
        if (ops.exchange != nullptr)
            ops.exchange(out, working);
        else
            exchange_part(*type.root.entry, static_cast<unsigned char*>(out), static_cast<unsigned char*>(working),
                          type.root.entry->object_size);
    }
    return result;
}

namespace {

/// The thread's working objects, one per type (keyed by its operations),
/// kept from its first from_bytes until the thread exits.
class working_objects {
public:
    using slot = std::pair<const object_ops* const, void*>;

    working_objects() = default;
    working_objects(const working_objects&) = delete;
    working_objects& operator=(const working_objects&) = delete;
    ~working_objects()
    {
        for (auto& [ops, object] : slots_)
            if (object != nullptr)
                ops->destroy(object);
    }

    /// The type's slot (made on the type's first call, which may allocate;
    /// a node's address outlives rehashing, so the last one is kept).
    slot& slot_for(const object_ops* ops)
    {
        if (last_ == nullptr || last_->first != ops)
            last_ = &*slots_.try_emplace(ops, nullptr).first;
        return *last_;
    }

private:
    std::unordered_map<const object_ops*, void*> slots_;
    slot* last_ = nullptr;
};

thread_local working_objects kept;

/// Takes the type's working object out of its slot while in use, so that a
/// nested from_bytes for the same type finds the slot empty (and decodes
/// into a new object) rather than a half-written one it would share; puts
/// it back afterwards, also after a refusal or an exception. A nested call
/// that put its own back first loses it.
class borrowed_object {
public:
    explicit borrowed_object(const object_ops& ops) : ops_(ops), slot_(kept.slot_for(&ops))
    {
        object_ = slot_.second;
        slot_.second = nullptr;
        if (object_ == nullptr)
            object_ = ops_.make();
    }
    borrowed_object(const borrowed_object&) = delete;
    borrowed_object& operator=(const borrowed_object&) = delete;
    ~borrowed_object()
    {
        if (slot_.second != nullptr)
            ops_.destroy(slot_.second);
        slot_.second = object_;
    }
    void* get() const noexcept { return object_; }

private:
    const object_ops& ops_;
    working_objects::slot& slot_;
    void* object_ = nullptr;
};

} // namespace

status from_bytes(const value_type& type, const object_ops& ops, std::span<const std::uint8_t> bytes, void* out)
{
    borrowed_object working(ops);
    return decode_and_exchange(type, ops, bytes, working.get(), out);
}

} // namespace bitrep::engine
