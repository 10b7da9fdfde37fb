// Whole files in and out, durably: the only part of bitrep compiled into the
// library (src/file_io.cpp), because it talks to the operating system.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
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

/// The calls whose failures depend on the file system rather than on the
/// program (a file system without hard links, a directory that cannot be
/// synced): each is the system's unless set, so that tests can simulate one
/// by setting errno and returning -1.
struct file_system_calls {
    int (*link)(const char* existing, const char* created) = nullptr;
    int (*sync_directory)(int directory) = nullptr;
};

/// Replaces the file at `path` with `bytes` so that, whatever happens (a
/// crash, power loss, a full disk, a file-size limit), `path` afterwards holds
/// either its previous complete contents or the new ones:
///   1. write `bytes` to a new temporary file beside `path` (same directory,
///      created exclusively), fsync it and close it;
///   2. with `keep_backup`, hard-link the current `path` (if any) to a
///      temporary name (on a file system without hard links: copy it there
///      and fsync the copy) and rename that over `path.bak`, so `path`
///      exists at every moment and `path.bak` is the previous save;
///   3. rename the temporary file over `path` and fsync the directory.
/// On a failure in steps 1 and 2, or of the rename, the temporary file is
/// removed and io_error is returned, naming the step and the file in the
/// path and the system's reason in the detail; `path` is untouched. When
/// only the directory's fsync fails, `path` already holds the new contents
/// but may not survive a power cut: durability_unknown says so.
status write_file_atomically(path_view path, std::span<const std::uint8_t> bytes, bool keep_backup,
                             save_outcome* outcome = nullptr, const file_system_calls& calls = {}) noexcept;

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
