// Durable whole-file writes and bounded whole-file reads (POSIX), the
// operating-system half of save files (docs/formats/save-format.md, section 4).
#include "atomic_write.hpp"

#include <bitrep/detail/exceptions.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <csignal>
#include <filesystem>
#include <system_error>
#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <utility>

namespace bitrep::detail {
namespace {

// Runs body and returns what it returns; an exception it throws
// (std::bad_alloc, or the file system's) becomes on_failure()'s result, so
// that the functions below never throw. Built without exceptions, a failed
// allocation ends the program instead, as it does anywhere in such a build.
template <class Body, class Failure>
auto without_exceptions(Body body, Failure on_failure) noexcept
{
#if BITREP_HAS_EXCEPTIONS
    try {
        return body();
    } catch (...) {
        return on_failure();
    }
#else
    static_cast<void>(on_failure);
    return body();
#endif
}

// strerrordesc_np hands out glibc's static table entries, whereas strerror
// may format into a buffer that another thread's next call overwrites before
// the status has copied it.
std::string_view reason(int code) noexcept
{
    const char* text = ::strerrordesc_np(code);
    return text != nullptr ? std::string_view(text) : std::string_view("unknown error");
}

// "<file> (<step>)". Only the last max_path_length + 1 characters are kept:
// one more than a status holds, so that a cut-off path still gets status's
// "..." marker while the step at the end always survives.
status failure(error code, std::string_view name, std::string_view step, std::string_view detail) noexcept
{
    using text = detail::status_text<status::max_path_length + 1>;
    const text path = step.empty() ? text({name}, text::keep::last) : text({name, " (", step, ")"}, text::keep::last);
    return status(code, 0, path.view(), detail);
}

status io_failure(const std::filesystem::path& file, std::string_view step, int system_error) noexcept
{
    return failure(error::io_error, file.native(), step, reason(system_error));
}
status failure(error code, const std::filesystem::path& file, std::string_view step, std::string_view detail) noexcept
{
    return failure(code, std::string_view(file.native()), step, detail);
}

// "written, durability unknown: " and the system's reason.
status durability_unknown(const std::filesystem::path& file, std::string_view step, int system_error) noexcept
{
    const detail::status_text<status::max_detail_length> text({"written, durability unknown: ", reason(system_error)});
    return failure(error::durability_unknown, file, step, text.view());
}

// The path the headers pass as text, as the file system's type: copying it
// may allocate, so a failure is reported, never thrown.
template <class Use>
status with_path(std::string_view text, Use use) noexcept
{
    std::filesystem::path path;
    if (!without_exceptions([&] {
            path = std::filesystem::path(text);
            return true;
        }, [] { return false; }))
        return failure(error::io_error, text, "prepare", "out of memory");
    return use(path);
}

// Closes on scope exit for the paths where a close error changes nothing
// (reading, or cleaning up after a failure that is already being reported).
class descriptor {
public:
    explicit descriptor(int fd) noexcept : fd_(fd) {}
    descriptor(const descriptor&) = delete;
    descriptor& operator=(const descriptor&) = delete;
    ~descriptor()
    {
        if (fd_ >= 0)
            ::close(fd_);
    }
    int get() const noexcept { return fd_; }
    // For the one close whose result matters: after write + fsync, close can
    // still report a deferred write error (NFS, quotas), so it is checked.
    int release() noexcept { return std::exchange(fd_, -1); }

private:
    int fd_;
};

// Returns 0 or the errno of the failing write. A regular file may accept
// fewer bytes than asked (a file-size limit, a nearly full disk, a signal),
// so the loop continues from where the kernel stopped; the next call then
// reports the real reason (EFBIG, ENOSPC) instead of a silent truncation.
int write_all(int fd, std::span<const std::uint8_t> bytes) noexcept
{
    while (!bytes.empty()) {
        const std::size_t chunk = std::min<std::size_t>(bytes.size(), SSIZE_MAX);
        const ssize_t written = ::write(fd, bytes.data(), chunk);
        if (written < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (written == 0)
            return EIO; // no progress and no reason: never loop forever
        bytes = bytes.subspan(static_cast<std::size_t>(written));
    }
    return 0;
}

// EINTR means the sync was interrupted, not that data was lost, so it is
// retried; any other failure must not be, because after a failed writeback
// Linux marks the unwritten pages clean and a second fsync would report
// success for data that never reached the disk.
int sync_descriptor(int fd) noexcept
{
    int result;
    do
        result = ::fsync(fd);
    while (result != 0 && errno == EINTR);
    return result == 0 ? 0 : errno;
}

// The names of everything write_file_atomically creates, all allocated before
// the first file exists, so that an allocation failure never strands a
// temporary file.
struct write_names {
    std::string temporary;        // <path>.tmp-<pid>-<n>
    std::string backup_temporary; // <path>.bak.tmp-<pid>-<n>
    std::string backup;           // <path>.bak
    std::string directory;        // where the rename happens, and what to fsync
};

std::atomic<unsigned long long> next_temporary_number{0};

void name_temporaries(write_names& names, const std::string& target)
{
    // pid + a per-process counter is unique among living writers; a stale
    // file from a dead process that had the same pid is caught by O_EXCL.
    const std::string suffix = ".tmp-" + std::to_string(::getpid()) + "-" +
                               std::to_string(next_temporary_number.fetch_add(1, std::memory_order_relaxed));
    names.temporary = target + suffix;
    names.backup_temporary = target + ".bak" + suffix;
}

// File systems without hard links (FAT, exFAT, some network and FUSE ones)
// refuse link() with one of these, rather than with a reason a copy would
// meet too.
bool no_hard_links(int system_error) noexcept
{
    return system_error == EPERM || system_error == EOPNOTSUPP || system_error == ENOSYS || system_error == EMLINK;
}

// Copies `from`, when it exists (`copied`), to the new file `to`, synced:
// the backup where hard links are missing. Returns 0 or errno.
int copy_file_synced(const std::string& from, const std::string& to, bool& copied) noexcept
{
    int opened;
    do
        opened = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
    while (opened < 0 && errno == EINTR);
    if (opened < 0)
        return errno == ENOENT ? 0 : errno; // ENOENT: the first save, nothing to keep
    descriptor source(opened);
    descriptor copy(::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
    if (copy.get() < 0)
        return errno;
    std::array<std::uint8_t, std::size_t{64} * 1024> buffer;
    for (;;) {
        const ssize_t got = ::read(source.get(), buffer.data(), buffer.size());
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return errno;
        if (got == 0)
            break;
        if (const int failed = write_all(copy.get(), std::span(buffer.data(), static_cast<std::size_t>(got))))
            return failed;
    }
    if (const int failed = sync_descriptor(copy.get()))
        return failed;
    if (::close(copy.release()) != 0)
        return errno;
    copied = true;
    return 0;
}

// Gives `path` the previous contents' twin at `<path>.bak` without a moment
// where `path` is missing: a hard link shares the old inode (a copy where
// the file system has no hard links), and rename replaces the old backup
// atomically. Returns 0 or the failing step's errno.
int keep_previous_as_backup(const std::string& target, const write_names& names, const file_system_calls& calls,
                            save_outcome& outcome, std::string_view& step) noexcept
{
    const auto link = calls.link != nullptr ? calls.link : &::link;
    for (int attempt = 0; attempt < 2; ++attempt) {
        bool linked = link(target.c_str(), names.backup_temporary.c_str()) == 0;
        if (!linked && no_hard_links(errno)) {
            bool copied = false;
            if (const int failed = copy_file_synced(target, names.backup_temporary, copied)) {
                ::unlink(names.backup_temporary.c_str());
                step = "backup copy (no hard links)";
                return failed;
            }
            if (!copied)
                return 0; // the first save: there is nothing to keep
            linked = outcome.backup_copied = true;
        }
        if (linked) {
            if (::rename(names.backup_temporary.c_str(), names.backup.c_str()) == 0)
                return 0;
            const int saved = errno;
            ::unlink(names.backup_temporary.c_str());
            step = "backup rename";
            return saved;
        }
        if (errno == ENOENT)
            return 0; // the first save: there is nothing to keep
        // Our own temporary file was created exclusively under the same
        // pid and number, so a backup link with this name can only be a
        // leftover from a dead process; it is safe to replace.
        if (errno != EEXIST || ::unlink(names.backup_temporary.c_str()) != 0)
            break;
    }
    step = "backup link";
    return errno;
}

// A writer killed between creating its temporary file and the rename (a
// crash, a SIGKILL, a power cut) leaves `<name>.tmp-<pid>-<n>` (or
// `<name>.bak.tmp-<pid>-<n>`) beside the save. After a successful save, the
// ones whose process no longer exists are removed, so a game that crashes
// while saving does not pile them up. Best effort: any failure here changes
// nothing about the save, which is already complete.
void remove_stale_temporaries(const std::filesystem::path& target) noexcept
{
    without_exceptions([&] {
        const std::string name = target.filename().native();
        const std::filesystem::path directory = target.has_parent_path() ? target.parent_path() : ".";
        std::error_code ec;
        for (std::filesystem::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
            const std::string entry = it->path().filename().native();
            std::string_view rest(entry);
            if (!rest.starts_with(name))
                continue;
            rest.remove_prefix(name.size());
            if (rest.starts_with(".bak"))
                rest.remove_prefix(4);
            if (!rest.starts_with(".tmp-"))
                continue;
            rest.remove_prefix(5);
            long long pid = 0;
            const auto [end_of_pid, parsed] = std::from_chars(rest.data(), rest.data() + rest.size(), pid);
            if (parsed != std::errc{} || end_of_pid == rest.data() + rest.size() || *end_of_pid != '-' || pid <= 0 ||
                pid == ::getpid())
                continue;
            if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
                ::unlink(it->path().c_str());
        }
    }, [] {});
}


// Names the backup, the directory and a fresh temporary beside `path`, and
// creates the temporary; `fd` stays negative if no temporary was created.
// Returns false only when an allocation failed.
bool create_temporary(const std::filesystem::path& path, write_names& names, int& fd) noexcept
{
    // Nothing in write_file_atomically_at after this may throw, and the
    // allocations happen before any file exists: std::bad_alloc is turned
    // into false here with nothing to clean up, so the write never throws.
    return without_exceptions([&] {
        const std::string& target = path.native();
        names.backup = target + ".bak";
        names.directory = path.has_parent_path() ? path.parent_path().native() : std::string(".");
        // Mode 0666 under the umask, like any newly created file. The
        // temporary must sit in the same directory as `path`: rename is
        // atomic only within one file system.
        for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
            name_temporaries(names, target);
            fd = ::open(names.temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
            if (fd < 0 && errno != EEXIST && errno != EINTR)
                break;
        }
        return true;
    }, [] { return false; });
}

// Makes the rename that published `path` durable by syncing its directory.
// `path` already holds the new contents: a failure now is no failed save
// (the previous one is gone), but the caller cannot assume this one
// survives a power cut.
status sync_published(const std::filesystem::path& path, const write_names& names,
                      const file_system_calls& calls) noexcept
{
    const int directory_fd = ::open(names.directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (directory_fd < 0)
        return durability_unknown(path, "open directory", errno);
    descriptor directory(directory_fd);
    const int synced = calls.sync_directory != nullptr ? (calls.sync_directory(directory.get()) == 0 ? 0 : errno)
                                                       : sync_descriptor(directory.get());
    if (synced != 0)
        return durability_unknown(path, "fsync directory", synced);
    remove_stale_temporaries(path);
    return {};
}

status write_file_atomically_at(const std::filesystem::path& path, std::span<const std::uint8_t> bytes,
                                bool keep_backup, save_outcome& outcome, const file_system_calls& calls) noexcept
{
    write_names names;
    int fd = -1;
    if (!create_temporary(path, names, fd))
        return failure(error::io_error, path, "prepare", "out of memory");
    if (fd < 0)
        return io_failure(path, "create", errno);

    const auto abandon = [&](std::string_view step, int system_error) noexcept {
        ::unlink(names.temporary.c_str());
        return io_failure(path, step, system_error);
    };

    {
        descriptor file(fd);
        if (const int failed = write_all(file.get(), bytes))
            return abandon("write", failed);
        // The data must be on disk before the rename publishes it: otherwise
        // a power cut after the rename can leave `path` empty or partial.
        if (const int failed = sync_descriptor(file.get()))
            return abandon("fsync", failed);
        if (::close(file.release()) != 0)
            return abandon("close", errno);
    }

    if (keep_backup) {
        std::string_view step;
        if (const int failed = keep_previous_as_backup(path.native(), names, calls, outcome, step))
            return abandon(step, failed);
    }

    if (::rename(names.temporary.c_str(), path.c_str()) != 0)
        return abandon("rename", errno);
    // The rename is a change to the directory, durable only once the
    // directory is synced.
    return sync_published(path, names, calls);
}

// Opens `path` for reading, refusing what is not a regular file; `fd` and
// `size` are set on success only.
status open_for_reading(const std::filesystem::path& path, int& fd, std::uint64_t& size) noexcept
{
    // O_NONBLOCK only so that opening a FIFO cannot wait forever for a
    // writer; it is refused below as not a regular file, and cleared for
    // regular files before reading.
    int opened;
    do
        opened = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    while (opened < 0 && errno == EINTR);
    if (opened < 0) {
        if (errno == ENOENT)
            return failure(error::not_found, path, {}, reason(ENOENT));
        return io_failure(path, "open", errno);
    }
    descriptor file(opened);

    struct stat info{};
    if (::fstat(file.get(), &info) != 0)
        return io_failure(path, "stat", errno);
    if (S_ISDIR(info.st_mode))
        return failure(error::io_error, path, "open", "is a directory");
    if (!S_ISREG(info.st_mode) || info.st_size < 0)
        return failure(error::io_error, path, "open", "not a regular file");
    const int flags = ::fcntl(file.get(), F_GETFL);
    if (flags < 0 || ::fcntl(file.get(), F_SETFL, flags & ~O_NONBLOCK) != 0)
        return io_failure(path, "fcntl", errno);
    size = static_cast<std::uint64_t>(info.st_size);
    fd = file.release();
    return {};
}

/// Sizes `out` to `bytes`; on failure (out of memory) leaves it empty.
status sized(const std::filesystem::path& path, std::vector<std::uint8_t>& out, std::size_t bytes) noexcept
{
    if (without_exceptions([&] { out.resize(bytes); return true; }, [] { return false; }))
        return {};
    out = {};
    return failure(error::io_error, path, "read", "out of memory");
}

/// Fills `out` from the start of an open file. The size seen by fstat is a
/// promise the file must keep: a writer that modifies it in place (not
/// through rename) would otherwise hand us a mix of two versions. So a file
/// that ends early has changed, and so, when `whole` (out is sized to the
/// whole file), has one with a byte more. `out` is empty on failure.
status fill(int fd, const std::filesystem::path& path, std::vector<std::uint8_t>& out, bool whole) noexcept
{
    const auto changed = [&]() noexcept {
        out.clear();
        return failure(error::io_error, path, "read", "the file changed while it was read");
    };
    std::size_t done = 0;
    std::uint8_t probe = 0;
    for (;;) {
        const bool probing = done == out.size();
        if (probing && !whole)
            return {};
        std::uint8_t* destination = probing ? &probe : out.data() + done;
        const std::size_t wanted = probing ? 1 : std::min<std::size_t>(out.size() - done, SSIZE_MAX);
        const ssize_t got = ::read(fd, destination, wanted);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            const int failed = errno;
            out.clear();
            return io_failure(path, "read", failed);
        }
        if (probing)
            return got == 0 ? status{} : changed(); // grew beyond its size
        if (got == 0)
            return changed(); // shrank below its size
        done += static_cast<std::size_t>(got);
    }
}

status read_file_at(const std::filesystem::path& path, std::vector<std::uint8_t>& out, std::size_t max_bytes) noexcept
{
    out.clear();
    int fd = -1;
    std::uint64_t size = 0;
    if (status opened = open_for_reading(path, fd, size); !opened)
        return opened;
    descriptor file(fd);
    // Checked before allocating, so a hostile or damaged file cannot make
    // the loader reserve more memory than the caller allowed.
    if (size > max_bytes)
        return failure(error::io_error, path, "stat", "file is larger than the load limit");
    if (status allocated = sized(path, out, static_cast<std::size_t>(size)); !allocated)
        return allocated;
    return fill(file.get(), path, out, true);
}

status read_file_head_at(const std::filesystem::path& path, std::size_t length, std::vector<std::uint8_t>& out,
                         std::uint64_t& file_size) noexcept
{
    out.clear();
    file_size = 0;
    int fd = -1;
    if (status opened = open_for_reading(path, fd, file_size); !opened)
        return opened;
    descriptor file(fd);
    if (status allocated = sized(path, out, static_cast<std::size_t>(std::min<std::uint64_t>(file_size, length)));
        !allocated)
        return allocated;
    return fill(file.get(), path, out, false);
}

} // namespace

status read_file_head(path_view path, std::size_t length, std::vector<std::uint8_t>& out,
                      std::uint64_t& file_size) noexcept
{
    out.clear();
    file_size = 0;
    return with_path(path.text(),
                     [&](const std::filesystem::path& p) { return read_file_head_at(p, length, out, file_size); });
}

status write_file_atomically(path_view path, std::span<const std::uint8_t> bytes, bool keep_backup,
                             save_outcome* outcome, const file_system_calls& calls) noexcept
{
    save_outcome ignored;
    save_outcome& filled = outcome != nullptr ? *outcome : ignored;
    filled = {};
    return with_path(path.text(), [&](const std::filesystem::path& p) {
        return write_file_atomically_at(p, bytes, keep_backup, filled, calls);
    });
}

status read_file(path_view path, std::vector<std::uint8_t>& out, std::size_t max_bytes) noexcept
{
    out.clear();
    return with_path(path.text(), [&](const std::filesystem::path& p) { return read_file_at(p, out, max_bytes); });
}

} // namespace bitrep::detail
