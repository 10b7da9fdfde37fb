// Coded deltas (docs/coded-deltas.md): write_delta and read_delta through
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

#include <bitrep/coded_stream.hpp>
#include <bitrep/delta.hpp>
#include <bitrep/reflect.hpp>
#include <bitrep/status.hpp>

namespace bitrep {

template <class T, scope Scope = scope::replication>
class delta_coder {
public:
    static constexpr std::size_t slot_count = detail::coded_slot_count<T>();

    /// Writes `current` against `baseline`, predicting from `older` (the
    /// state the receiver decoded the baseline against; the baseline itself
    /// when there is none). `bytes` is the packet's length.
    status write(std::span<std::uint8_t> out, std::size_t& bytes, const T& older, const T& baseline, const T& current)
    {
        reset();
        failure_record failure;
        basic_coded_write_stream<Scope> stream(out, models_, failure);
        bytes = 0;
        if (!write_delta(stream, older, baseline, current) || !stream.finish(bytes)) [[unlikely]]
            return stream.failure_status(reflect::type_name<T>());
        return {};
    }

    /// Reads what write() wrote into `out`, which must be neither baseline
    /// nor older. On failure `out` is partly written and the status says
    /// where; decode into a working copy for all-or-nothing.
    status read(std::span<const std::uint8_t> in, const T& older, const T& baseline, T& out)
    {
        reset();
        failure_record failure;
        basic_coded_read_stream<Scope> stream(in, models_, failure);
        if (!read_delta(stream, older, baseline, out)) [[unlikely]]
            return stream.failure_status(reflect::type_name<T>());
        return {};
    }

private:
    void reset() noexcept { models_.fill(coded_slot{}); }
    std::array<coded_slot, slot_count> models_{};
};

} // namespace bitrep
