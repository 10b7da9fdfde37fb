// Errors as values: what went wrong, at which field, at which bit.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace bitrep {

enum class error : std::uint8_t {
    none = 0,
    truncated,          ///< the input ended before the value did
    out_of_range,       ///< a decoded integer, length or quantum lies outside its declared bounds
    bad_padding,        ///< an alignment padding bit is 1
    bad_utf8,           ///< a string is not well-formed UTF-8
    interior_nul,       ///< a string holds a zero byte
    bad_enum,           ///< an enum index or value that is not an enumerator
    trailing_data,      ///< whole bytes are left over after the value
    value_out_of_range, ///< (write) a value lies outside its annotation
    buffer_too_small,   ///< (write) the caller's buffer cannot hold the encoding
    hook_failed,        ///< a serialization hook returned false without recording why
    // Save files (save.hpp); the path names the file, or the field for the last two.
    not_found,          ///< the file does not exist
    not_a_save,         ///< the file is not a bitrep save (wrong magic, empty)
    newer_version,      ///< written by a newer save_version or file format than this program knows
    corrupt,            ///< the CRC or the file's own lengths do not check out
    io_error,           ///< the operating system refused a read, write, sync or rename
    schema_mismatch,    ///< a field's type changed in a way no value can be carried over
    // Replication (replication/); the path names the packet part.
    stale,              ///< a packet not newer than the newest one applied (duplicate, late or reordered)
    no_baseline,        ///< a packet encoded against a state the receiver no longer holds (or never had)
    unknown_client,     ///< a client id the server does not know
    options_mismatch,   ///< the two ends' replication_options disagree (e.g. check_value)
    would_block,        ///< (send) a bounded queue is full; try again once the peer has acknowledged
    duplicate_key,      ///< a map's or set's key given twice (read)
    durability_unknown, ///< (save) the new file is in place, but the directory's fsync failed: a power cut may undo it
};

constexpr std::string_view to_string(error code) noexcept
{
    switch (code) {
    case error::none: return "ok";
    case error::truncated: return "truncated";
    case error::out_of_range: return "out_of_range";
    case error::bad_padding: return "bad_padding";
    case error::bad_utf8: return "bad_utf8";
    case error::interior_nul: return "interior_nul";
    case error::bad_enum: return "bad_enum";
    case error::trailing_data: return "trailing_data";
    case error::value_out_of_range: return "value_out_of_range";
    case error::buffer_too_small: return "buffer_too_small";
    case error::hook_failed: return "hook_failed";
    case error::not_found: return "not_found";
    case error::not_a_save: return "not_a_save";
    case error::newer_version: return "newer_version";
    case error::corrupt: return "corrupt";
    case error::io_error: return "io_error";
    case error::schema_mismatch: return "schema_mismatch";
    case error::stale: return "stale";
    case error::no_baseline: return "no_baseline";
    case error::unknown_client: return "unknown_client";
    case error::options_mismatch: return "options_mismatch";
    case error::would_block: return "would_block";
    case error::duplicate_key: return "duplicate_key";
    case error::durability_unknown: return "durability_unknown";
    }
    return "unknown";
}

/// The outcome of a read or write. Converts to true when it succeeded.
/// On failure it names the error, the field path (e.g. `Player.items[3].count`),
/// the bit offset where the failing primitive started, and a short detail.
/// It holds copies of the path and the detail inline (a longer path keeps its
/// end after "...", a longer detail its start before "..."), so making a
/// status never allocates and never throws, and a status never refers to
/// text that may be gone: a hook may pass a detail it formatted on the spot.
class [[nodiscard]] status {
public:
    static constexpr std::size_t max_path_length = 119;
    /// The bit offset of a failure no bit of the input is to blame for (a
    /// schema that does not match the program's, a refusal load_options
    /// asked for): message() leaves it out.
    static constexpr std::size_t no_bit = static_cast<std::size_t>(-1);
    static constexpr std::size_t max_detail_length = 96;

    status() noexcept {} // user-provided: a const status needs no initialiser for its text buffers
    status(error code, std::size_t bit_offset, std::string_view field_path = {}, std::string_view detail = {}) noexcept
        : code_(code), bit_offset_(bit_offset)
    {
        constexpr std::string_view cut = "...";
        if (field_path.size() > max_path_length) {
            field_path.remove_prefix(field_path.size() - (max_path_length - cut.size()));
            path_length_ = append(path_, 0, cut);
        }
        path_length_ = append(path_, path_length_, field_path);
        if (detail.size() > max_detail_length) {
            detail_length_ = append(detail_, 0, detail.substr(0, max_detail_length - cut.size()));
            detail_length_ = append(detail_, detail_length_, cut);
        } else {
            detail_length_ = append(detail_, 0, detail);
        }
    }
    // Copies only the text in use: a successful status copies three words.
    status(const status& other) noexcept { *this = other; }
    status& operator=(const status& other) noexcept
    {
        if (this == &other)
            return *this;
        code_ = other.code_;
        bit_offset_ = other.bit_offset_;
        path_length_ = append(path_, 0, other.field_path());
        detail_length_ = append(detail_, 0, other.detail());
        return *this;
    }

    explicit operator bool() const noexcept { return code_ == error::none; }
    bool ok() const noexcept { return code_ == error::none; }
    error code() const noexcept { return code_; }
    std::size_t bit_offset() const noexcept { return bit_offset_; }
    /// Both views are into the status itself: valid while it lives.
    std::string_view field_path() const noexcept { return {path_, path_length_}; }
    /// What the failed check found, e.g. "decoded value above the range's maximum".
    std::string_view detail() const noexcept { return {detail_, detail_length_}; }

    /// e.g. "out_of_range at Player.items[3].count, bit 117: value above the range's maximum"
    std::string message() const
    {
        if (ok())
            return "ok";
        std::string text(to_string(code_));
        if (path_length_ != 0)
            text.append(" at ").append(field_path());
        // A file that cannot be opened, written or recognised has no bit at
        // which things went wrong; everything else does.
        const bool whole_file = code_ == error::not_found || code_ == error::io_error ||
                                code_ == error::not_a_save || code_ == error::newer_version ||
                                code_ == error::durability_unknown;
        if (!whole_file && bit_offset_ != no_bit)
            text.append(path_length_ != 0 ? ", bit " : " bit ").append(std::to_string(bit_offset_));
        if (detail_length_ != 0)
            text.append(": ").append(detail());
        return text;
    }

    friend bool operator==(const status& s, error e) noexcept { return s.code_ == e; }

private:
    /// Copies text to buffer[at...]; the caller has checked it fits.
    template <std::size_t N>
    static std::uint8_t append(char (&buffer)[N], std::size_t at, std::string_view text) noexcept
    {
        std::copy(text.begin(), text.end(), buffer + at);
        return static_cast<std::uint8_t>(at + text.size());
    }

    error code_ = error::none;
    std::uint8_t path_length_ = 0;
    std::uint8_t detail_length_ = 0;
    std::size_t bit_offset_ = 0;
    // Left uninitialised: only the first *_length_ characters are ever read,
    // and zero-filling 215 bytes would cost every successful call.
    char path_[max_path_length];
    char detail_[max_detail_length];
};

namespace detail {
/// Pieces joined on the stack, so that composing a status's path or detail
/// can neither allocate nor throw. At most Capacity characters are kept: the
/// first ones, or with keep::last the last ones (a file's path keeps its
/// end, where the step that failed is named).
template <std::size_t Capacity>
class status_text {
public:
    enum class keep { first, last };

    status_text(std::initializer_list<std::string_view> pieces, keep which = keep::first) noexcept
    {
        std::size_t skip = 0;
        if (which == keep::last) {
            std::size_t total = 0;
            for (const std::string_view piece : pieces)
                total += piece.size();
            skip = total > Capacity ? total - Capacity : 0;
        }
        for (std::string_view piece : pieces) {
            const std::size_t dropped = std::min(skip, piece.size());
            piece.remove_prefix(dropped);
            skip -= dropped;
            const std::size_t taken = std::min(piece.size(), Capacity - length_);
            std::copy_n(piece.data(), taken, text_.data() + length_);
            length_ += taken;
        }
    }

    std::string_view view() const noexcept { return std::string_view(text_.data(), length_); }

private:
    std::array<char, Capacity> text_; // only the first length_ are read
    std::size_t length_ = 0;
};
} // namespace detail

/// Thrown only by the convenience writer `to_bytes(const T&)`; every other
/// entry point, and every read path, returns a status instead.
class write_error : public std::runtime_error {
public:
    explicit write_error(const bitrep::status& s) : std::runtime_error(s.message()), status_(s) {}
    const bitrep::status& status() const noexcept { return status_; }

private:
    bitrep::status status_;
};

} // namespace bitrep
