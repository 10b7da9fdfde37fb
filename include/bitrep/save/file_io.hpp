// Whole files read back within a limit, as loads need them from their
// templates; compiled in the library (src/file_io.cpp), because it talks to
// the operating system. The atomic, durable write is the library's own
// (src/atomic_write.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <bitrep/save/path_view.hpp>
#include <bitrep/status.hpp>

namespace bitrep {

/// What a successful save did beyond writing the file (bitrep::save's
/// `outcome`, save_handle::outcome()).
struct save_outcome {
    /// keep_backup found no hard links on the file system (FAT, exFAT,
    /// some network and FUSE file systems) and copied the previous save to
    /// `<path>.bak` instead, which costs a read and a write of the file.
    bool backup_copied = false;
};

namespace detail {

/// Reads the whole regular file at `path` into `out` (replacing its
/// contents). not_found when it does not exist, io_error when it is a
/// directory or not a regular file, cannot be read, or is larger than
/// `max_bytes` (refused before allocating). On failure `out` is empty.
status read_file(path_view path, std::vector<std::uint8_t>& out, std::size_t max_bytes) noexcept;

/// Reads the first `length` bytes of the regular file at `path` (all of it
/// when shorter) into `out`, and its size into `file_size`: a save's header
/// and metadata without its payload. Errors as read_file.
status read_file_head(path_view path, std::size_t length, std::vector<std::uint8_t>& out,
                      std::uint64_t& file_size) noexcept;

} // namespace detail
} // namespace bitrep
