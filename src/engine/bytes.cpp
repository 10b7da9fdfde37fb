// to_bytes, from_bytes, bit_size and decoder<T> on the engine's path,
// compiled once: the header's templates only pass a type's constant
// value_type and the object, so a file using many types compiles none of
// this per type (bench/compile_time).
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

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

using exchange_plan = std::vector<exchange_step>;

std::uint32_t offset_of(const type_table& table, std::uint32_t i) noexcept
{
    return table.offsets[i].load(std::memory_order_relaxed);
}

/// Where field i ends at the latest: where the next field in memory starts,
/// or `limit`. A field's size may reach past that: a base's or a
/// [[no_unique_address]] member's tail padding may hold the next member,
/// which must not be exchanged twice.
std::size_t field_end(const type_table& table, std::uint32_t i, std::size_t limit) noexcept
{
    const std::uint32_t at = offset_of(table, i);
    std::size_t end = limit;
    for (std::uint32_t j = 0; j < table.count; ++j) {
        const std::uint32_t other = offset_of(table, j);
        if (table.fields[j].object_size != 0 && other > at && other < end)
            end = other;
    }
    return end;
}

void plan_part(const field_entry& e, std::size_t at, std::size_t extent, exchange_plan& plan);

/// The steps for a struct at `base` whose parts lie in its first `limit`
/// bytes. A transient field is left out: it is the same in both objects,
/// since the working object started as a copy.
void plan_fields(const type_table& table, std::size_t base, std::size_t limit, exchange_plan& plan)
{
    if (!table.ready->load(std::memory_order_acquire)) [[unlikely]]
        table.compute_offsets();
    for (std::uint32_t i = 0; i < table.count; ++i) {
        const field_entry& e = table.fields[i];
        if (is_transient(e) || e.object_size == 0)
            continue;
        const std::size_t at = offset_of(table, i);
        plan_part(e, base + at, field_end(table, i, limit) - at, plan);
    }
}

/// The steps for an object of the type `e` describes (exchanged_by_parts)
/// at `at`, of which the first `extent` bytes are its own.
void plan_part(const field_entry& e, std::size_t at, std::size_t extent, exchange_plan& plan)
{
    const std::size_t size = std::min<std::size_t>(e.object_size, extent);
    if (e.trivially_copyable) {
        if (!plan.empty() && plan.back().entry == nullptr && plan.back().offset + plan.back().size == at)
            plan.back().size += static_cast<std::uint32_t>(size);
        else
            plan.push_back({static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(size), nullptr});
    } else if (e.kind == kind::string || e.kind == kind::vector) {
        plan.push_back({static_cast<std::uint32_t>(at), 0, &e});
    } else {
        plan_fields(*e.nested, at, size, plan);
    }
}

void swap_bytes(unsigned char* a, unsigned char* b, std::size_t size) noexcept
{
    for (; size >= 8; a += 8, b += 8, size -= 8) {
        std::uint64_t x;
        std::uint64_t y;
        std::memcpy(&x, a, 8);
        std::memcpy(&y, b, 8);
        std::memcpy(a, &y, 8);
        std::memcpy(b, &x, 8);
    }
    for (; size > 0; ++a, ++b, --size)
        std::swap(*a, *b);
}

void run_plan(const exchange_plan& plan, unsigned char* a, unsigned char* b) noexcept
{
    for (const exchange_step& step : plan) {
        unsigned char* x = a + step.offset;
        unsigned char* y = b + step.offset;
        if (step.entry == nullptr)
            swap_bytes(x, y, step.size);
        else if (step.entry->kind == kind::string)
            reinterpret_cast<std::string*>(x)->swap(*reinterpret_cast<std::string*>(y));
        else
            step.entry->container->swap(x, y);
    }
}

/// Gives `out` the decoded value in `working` (`steps`: the type's, made
/// on first use).
void hand_over(const value_type& type, const object_ops& ops, exchange_steps& steps, void* working, void* out)
{
    if (ops.exchange != nullptr) {
        ops.exchange(out, working);
        return;
    }
    if (!steps.planned) [[unlikely]] {
        plan_part(*type.root.entry, 0, type.root.entry->object_size, steps.steps);
        steps.planned = true;
    }
    run_plan(steps.steps, static_cast<unsigned char*>(out), static_cast<unsigned char*>(working));
}

status decode_and_hand_over(const value_type& type, const object_ops& ops, exchange_steps& steps,
                            std::span<const std::uint8_t> bytes, void* working, void* out)
{
    // A read that writes every field needs nothing of `out` in `working`:
    // whatever an earlier message, refused or not, left there is overwritten
    // (containers resized, optionals reset or filled), and its containers'
    // capacity is reused. Otherwise `working` starts as a copy of `out`, by
    // assignment, which reuses that capacity too.
    if (!type.reads_every_field)
        ops.assign(working, out);
    status result = decode_in_place(type, bytes, working);
    if (result)
        hand_over(type, ops, steps, working, out);
    return result;
}

} // namespace

status decode_and_exchange(const value_type& type, const object_ops& ops, std::span<const std::uint8_t> bytes,
                           void* working, void* out, exchange_steps& steps)
{
    return decode_and_hand_over(type, ops, steps, bytes, working, out);
}

status from_bytes(const value_type& type, const object_ops& ops, std::span<const std::uint8_t> bytes, void* out)
{
    const std::unique_ptr<void, void (*)(void*)> working(ops.make(), ops.destroy);
    exchange_steps steps;
    return decode_and_hand_over(type, ops, steps, bytes, working.get(), out);
}

} // namespace bitrep::engine
