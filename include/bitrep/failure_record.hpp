// Where a read or write failed: the first failure's code, bit and detail,
// plus the field path, collected innermost-first as the failure unwinds
// through each enclosing struct, container and optional. Nothing is recorded
// on success, and recording never allocates (so a read never throws).
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <bitrep/detail/portability.hpp>
#include <bitrep/status.hpp>

namespace bitrep {

/// Where a stream records its first failure. A stream made by bitrep's own
/// entry points (to_bytes, from_bytes, ...) keeps it outside the stream
/// object: the cold failure paths then take the record's address, never the
/// stream's, so compilers keep the stream's bit position and scratch word in
/// registers. A stream constructed without one carries its own.
class failure_record {
public:
    bool failed() const noexcept { return code_ != error::none; }
    error code() const noexcept { return code_; }

    // Every recording function is cold and out of line, and returns nothing:
    // the streams' inline wrappers return the constant false themselves, so
    // compilers see each failure path end in `return false` and fold it.

    /// Records the first failure only; later calls keep the original cause.
    /// The detail is copied, so a hook may pass text it has just formatted.
    BITREP_COLD BITREP_NOINLINE void record(error code, std::size_t bit, std::string_view detail) noexcept
    {
        if (code_ == error::none) {
            code_ = code;
            bit_ = bit;
            // One character more than a status keeps tells it to mark the cut.
            detail_length_ = std::min(detail.size(), detail_.size());
            std::copy_n(detail.data(), detail_length_, detail_.data());
        }
    }

    /// A primitive built from smaller reads or writes (int64, int_relative,
    /// string, bytes, quat) reports its failures at its own first bit.
    BITREP_COLD BITREP_NOINLINE void move_to(std::size_t start) noexcept { bit_ = start; }

    /// Called by an enclosing struct, container or optional as the failure
    /// unwinds through it. The segment's text is copied at once (a hook may
    /// name a member with a string it has just built), innermost first, into
    /// the back of a fixed buffer.
    BITREP_COLD BITREP_NOINLINE void enter_member(std::string_view name) noexcept { push(".", name, ""); }
    BITREP_COLD BITREP_NOINLINE void enter_position(std::size_t position) noexcept
    {
        number_text digits(position);
        push(".#", digits.view(), "");
    }
    /// A variant's alternative, by its type: `.item<Weapon>`.
    BITREP_COLD BITREP_NOINLINE void enter_alternative(std::string_view type) noexcept { push("<", type, ">"); }
    BITREP_COLD BITREP_NOINLINE void enter_index(std::size_t index) noexcept
    {
        number_text digits(index);
        push("[", digits.view(), "]");
    }

    /// The status of an operation that returned false, with the stream at
    /// `stop`. A hook may return false without recording why; that is still
    /// a failure (hook_failed, at the bit where the stream stopped).
    BITREP_COLD BITREP_NOINLINE status final_status(std::string_view root, std::size_t stop) noexcept
    {
        if (!failed())
            record(error::hook_failed, stop, "a serialization hook returned false without recording an error");
        return to_status(root);
    }

    /// Renders e.g. `Player.items[3].count` (or `.#4` for fields of aggregates,
    /// which Boost.PFR in Boost 1.81 cannot name), without allocating.
    status to_status(std::string_view root) const noexcept
    {
        std::array<char, 2 * status::max_path_length> path;
        std::size_t length = 0;
        for (std::string_view piece : {root, cut_ ? std::string_view(".…") : std::string_view(),
                                       std::string_view(text_.data() + begin_, text_.size() - begin_)}) {
            const std::size_t n = std::min(piece.size(), path.size() - length);
            std::copy_n(piece.data(), n, path.data() + length);
            length += n;
        }
        return status(code_, bit_, {path.data(), length}, {detail_.data(), detail_length_});
    }

private:
    static constexpr std::size_t max_segments = 24;

    struct number_text {
        explicit number_text(std::size_t number) noexcept
            : length(static_cast<std::size_t>(std::to_chars(digits, digits + sizeof digits, number).ptr - digits))
        {
        }
        std::string_view view() const noexcept { return {digits, length}; }
        char digits[24];
        std::size_t length;
    };

    /// Prepends prefix + body + suffix. Past max_segments segments, or once
    /// the buffer is full, the outer segments are dropped and the cut marked.
    void push(std::string_view prefix, std::string_view body, std::string_view suffix) noexcept
    {
        const std::size_t size = prefix.size() + body.size() + suffix.size();
        if (cut_ || segments_ == max_segments || size > begin_) {
            cut_ = true;
            return;
        }
        ++segments_;
        for (std::string_view piece : {suffix, body, prefix}) {
            begin_ -= piece.size();
            std::copy(piece.begin(), piece.end(), text_.data() + begin_);
        }
    }

    error code_ = error::none;
    std::size_t bit_ = 0;
    // Left uninitialised until a failure unwinds (only the parts the lengths
    // cover are read): every stream carries one of these, so zero-filling it
    // would cost each small message hundreds of bytes of stores.
    std::array<char, status::max_detail_length + 1> detail_; // the first detail_length_ are set
    std::size_t detail_length_ = 0;
    std::array<char, 2 * status::max_path_length> text_; // the path's segments in [begin_, end)
    std::size_t begin_ = 2 * status::max_path_length;
    std::size_t segments_ = 0;
    bool cut_ = false;
};

} // namespace bitrep
