// Whole files written atomically and durably (src/file_io.cpp): what
// bitrep::save and save_async do with a save's bytes, compiled in the
// library and called from its compiled code only, so it is not installed.
#pragma once

#include <cstdint>
#include <span>

#include <bitrep/save/file_io.hpp>
#include <bitrep/save/path_view.hpp>
#include <bitrep/status.hpp>

namespace bitrep::detail {

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

} // namespace bitrep::detail
