// Coded deltas (docs/design/coded-deltas.md): write_delta and read_delta through
// the coded streams, with the models they need. One delta_coder per thread
// (or per connection) holds the models; each packet starts them again from
// the same fixed priors, so packets decode independently and a lost one
// costs nothing.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <bitrep/delta.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/status.hpp>
#include <bitrep/wire/coded_stream.hpp>

namespace bitrep {

template <class T, scope Scope = scope::replication>
class delta_coder {
public:
    static constexpr std::size_t slot_count = engine::entry_v<T>.slots;

    /// Writes `current` against `baseline`, predicting from `older` (the
    /// state the receiver decoded the baseline against; the baseline itself
    /// when there is none). `bytes` is the packet's length.
    /// `ticks` says how far apart the three are, for a type's own
    /// prediction (predict.hpp); the library's own assumes the baseline is
    /// as far from `current` as `older` is from the baseline.
    status write(std::span<std::uint8_t> out, std::size_t& bytes, const T& older, const T& baseline, const T& current,
                 const delta_ticks& ticks = {})
    {
        return write_with(
            out, bytes,
            [&](auto& stream) { return write_delta(stream, older, baseline, current); }, ticks);
    }

    /// Reads what write() wrote into `out`, which must be neither baseline
    /// nor older. On failure `out` is partly written and the status says
    /// where; decode into a working copy for all-or-nothing.
    status read(std::span<const std::uint8_t> in, const T& older, const T& baseline, T& out,
                const delta_ticks& ticks = {})
    {
        return read_with(
            in, [&](auto& stream) { return read_delta(stream, older, baseline, out); }, ticks);
    }

    /// write() of whatever `body(stream)` writes on a coded write stream
    /// over these models (a delta and a trailer, say); body returns false
    /// on failure, with the stream's failure set.
    template <class Body>
    status write_with(std::span<std::uint8_t> out, std::size_t& bytes, Body&& body, const delta_ticks& ticks = {})
    {
        reset();
        failure_record failure;
        basic_coded_write_stream<Scope> stream(out, models_, failure);
        stream.set_ticks(ticks);
        bytes = 0;
        if (!body(stream) || !stream.finish(bytes)) [[unlikely]]
            return stream.failure_status(reflect::type_name<T>());
        return {};
    }

    /// read() of what write_with wrote, read back by `body(stream)`.
    template <class Body>
    status read_with(std::span<const std::uint8_t> in, Body&& body, const delta_ticks& ticks = {})
    {
        reset();
        failure_record failure;
        basic_coded_read_stream<Scope> stream(in, models_, failure);
        stream.set_ticks(ticks);
        if (!body(stream) || !stream.finish()) [[unlikely]]
            return stream.failure_status(reflect::type_name<T>());
        return {};
    }

private:
    void reset() noexcept { models_.fill(coded_slot{}); }
    std::array<coded_slot, slot_count> models_{};
};

} // namespace bitrep
