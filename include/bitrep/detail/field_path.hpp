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

#include <bitrep/status.hpp>

namespace bitrep::detail {

class failure_record {
public:
    bool failed() const noexcept { return code_ != error::none; }
    error code() const noexcept { return code_; }

    // Every recording function is cold and out of line, and returns nothing:
    // the streams' inline wrappers return the constant false themselves, so
    // compilers see each failure path end in `return false` and fold it.

    /// Records the first failure only; later calls keep the original cause.
    /// The detail is copied, so a hook may pass text it has just formatted.
    [[gnu::cold, gnu::noinline]] void record(error code, std::size_t bit, std::string_view detail) noexcept
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
    [[gnu::cold, gnu::noinline]] void move_to(std::size_t start) noexcept { bit_ = start; }

    /// Called by an enclosing struct as the failure unwinds through it.
    [[gnu::cold, gnu::noinline]] void enter_member(std::string_view name) noexcept
    {
        push({segment::member_name, name.data(), name.size()});
    }
    [[gnu::cold, gnu::noinline]] void enter_position(std::size_t index) noexcept { push({segment::position_number, nullptr, index}); }
    [[gnu::cold, gnu::noinline]] void enter_index(std::size_t index) noexcept { push({segment::element_index, nullptr, index}); }

    /// The status of an operation that returned false, with the stream at
    /// `stop`. A hook may return false without recording why; that is still
    /// a failure (hook_failed, at the bit where the stream stopped).
    [[gnu::cold, gnu::noinline]] status final_status(std::string_view root, std::size_t stop) noexcept
    {
        if (!failed())
            record(error::hook_failed, stop, "a serialization hook returned false without recording an error");
        return to_status(root);
    }

    /// Renders e.g. `Player.items[3].count` (or `.#4` for fields of aggregates,
    /// which Boost.PFR in Boost 1.81 cannot name), without allocating.
    status to_status(std::string_view root) const noexcept
    {
        path_text path;
        path.append(root);
        if (depth_ > segments_.size())
            path.append(".…");
        for (std::size_t i = depth_ < segments_.size() ? depth_ : segments_.size(); i-- > 0;) {
            const auto& s = segments_[i];
            switch (s.kind) {
            case segment::member_name: path.append(".").append({s.name, s.number}); break;
            case segment::position_number: path.append(".#").append_number(s.number); break;
            case segment::element_index: path.append("[").append_number(s.number).append("]"); break;
            }
        }
        return status(code_, bit_, path.view(), {detail_.data(), detail_length_});
    }

private:
    /// A fixed buffer a little longer than a status holds, so the status can
    /// still mark a truncated path.
    class path_text {
    public:
        path_text& append(std::string_view text) noexcept
        {
            const std::size_t n = std::min(text.size(), buffer_.size() - length_);
            std::copy_n(text.data(), n, buffer_.data() + length_);
            length_ += n;
            return *this;
        }
        path_text& append_number(std::size_t number) noexcept
        {
            char digits[24];
            const auto end = std::to_chars(digits, digits + sizeof digits, number).ptr;
            return append({digits, static_cast<std::size_t>(end - digits)});
        }
        std::string_view view() const noexcept { return {buffer_.data(), length_}; }

    private:
        std::array<char, 2 * status::max_path_length> buffer_;
        std::size_t length_ = 0;
    };

    // Trivially constructible, and left uninitialised until a failure
    // unwinds (depth_ says how many are set): every stream carries one of
    // these, so zero-filling it would cost each small message ~600 bytes of stores.
    struct segment {
        enum kind_t : std::uint8_t { member_name, position_number, element_index } kind;
        const char* name;
        std::size_t number; // the name's length, or the position / index
    };

    void push(segment s) noexcept
    {
        // Past the capacity the outermost segments are dropped and marked.
        if (depth_ < segments_.size())
            segments_[depth_] = s;
        ++depth_;
    }

    error code_ = error::none;
    std::size_t bit_ = 0;
    std::array<char, status::max_detail_length + 1> detail_; // the first detail_length_ are set
    std::size_t detail_length_ = 0;
    std::array<segment, 24> segments_;
    std::size_t depth_ = 0;
};

} // namespace bitrep::detail
