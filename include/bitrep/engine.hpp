// Values to bytes and back through the engine (src/engine.cpp): the table
// path. Same bytes, same refusals, same all-or-nothing reads as bytes.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include <bitrep/detail/working_object.hpp>
#include <bitrep/engine/entries.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/stream.hpp>

namespace bitrep::engine {

template <class T>
inline constexpr std::size_t max_bits = entry_v<T>.max_bits;

template <class T>
std::size_t bit_size(const T& value)
{
    failure_record failure;
    measure_stream stream(failure);
    static_cast<void>(engine::measure(stream, root_v<T>, &value));
    return stream.exact_bits();
}

template <class T>
status to_bytes(const T& value, std::span<std::uint8_t> buffer, std::size_t& bytes_written)
{
    failure_record failure;
    write_stream stream(buffer, failure);
    if (!engine::write(stream, root_v<T>, &value)) [[unlikely]] {
        bytes_written = 0;
        return stream.failure_status(reflect::type_name<T>());
    }
    bytes_written = stream.flush();
    return {};
}

template <class T>
status to_bytes(const T& value, std::vector<std::uint8_t>& out)
{
    out.assign((max_bits<T> + 7) / 8, 0);
    std::size_t written = 0;
    status result = engine::to_bytes(value, std::span<std::uint8_t>(out), written);
    out.resize(written);
    return result;
}

namespace detail {
template <class T>
status decode_in_place(std::span<const std::uint8_t> bytes, T& target)
{
    failure_record failure;
    read_stream stream(bytes, failure);
    if (!engine::read(stream, root_v<T>, &target)) [[unlikely]]
        return stream.failure_status(reflect::type_name<T>());
    const std::size_t used_bytes = (stream.bit_position() + 7) / 8;
    if (used_bytes != bytes.size()) [[unlikely]]
        return status(error::trailing_data, used_bytes * 8, reflect::type_name<T>(),
                      "whole bytes left over after the value");
    return {};
}
} // namespace detail

template <class T>
status from_bytes(std::span<const std::uint8_t> bytes, T& out)
{
    if constexpr (std::is_trivially_copyable_v<T> || !std::is_default_constructible_v<T>) {
        T decoded(out);
        status result = detail::decode_in_place(bytes, decoded);
        if (result)
            out = std::move(decoded);
        return result;
    } else {
        thread_local std::unique_ptr<T> kept;
        std::unique_ptr<T> working = std::move(kept);
        if (!working)
            working = std::make_unique<T>();
        if constexpr (!bitrep::detail::every_field_carried<T, scope::all>::value)
            *working = out;
        status result = detail::decode_in_place(bytes, *working);
        if (result) {
            using std::swap;
            swap(out, *working);
        }
        kept = std::move(working);
        return result;
    }
}

} // namespace bitrep::engine
