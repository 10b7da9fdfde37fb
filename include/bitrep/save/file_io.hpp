// Whole files in and out, durably: the only part of bitrep compiled into the
// library (src/file_io.cpp), because it talks to the operating system.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <bitrep/save/path_view.hpp>
#include <bitrep/status.hpp>

namespace bitrep::detail {

/// Replaces the file at `path` with `bytes` so that, whatever happens (a
/// crash, power loss, a full disk, a file-size limit), `path` afterwards holds
/// either its previous complete contents or the new ones:
///   1. write `bytes` to a new temporary file beside `path` (same directory,
///      created exclusively), fsync it and close it;
///   2. with `keep_backup`, hard-link the current `path` (if any) to a
///      temporary name and rename that over `path.bak`, so `path` exists at
///      every moment and `path.bak` is the previous save;
///   3. rename the temporary file over `path` and fsync the directory.
/// On any failure the temporary file is removed and io_error is returned,
/// naming the step and the file in the path and the system's reason in the
/// detail; `path` is untouched.
status write_file_atomically(path_view path, std::span<const std::uint8_t> bytes, bool keep_backup) noexcept;

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

} // namespace bitrep::detail
