// Saving without stalling a frame: the value is encoded on the calling
// thread (a game cannot let another thread read a world it keeps changing),
// and the file work (compression, write, fsync, rename) is done by a
// background thread, one save at a time in the order they were asked
// (docs/formats/save-format.md, section 4).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <bitrep/save/path_view.hpp>
#include <bitrep/save/save.hpp>
#include <bitrep/status.hpp>

namespace bitrep {

namespace detail {
struct save_job;
class save_worker;
} // namespace detail

/// The outcome of one asynchronous save. Copies share it; it outlives the
/// saver, so a handle kept after its saver is gone still answers.
class save_handle {
public:
    save_handle() = default;

    /// Whether the handle belongs to a save at all (a default-made one does not).
    bool valid() const noexcept { return job_ != nullptr; }
    /// Whether the save has finished, written and durable or failed: never blocks.
    bool done() const noexcept;
    /// Blocks until the save has finished, and returns its status: ok once
    /// the file is durably in place, else what failed (the encode's
    /// value_out_of_range, the write's io_error), the previous save intact;
    /// durability_unknown when the file is in place but the directory's
    /// fsync failed.
    status wait() const;
    /// Blocks until the save has finished, and returns what it did beyond
    /// writing the file (whether keep_backup had to copy).
    save_outcome outcome() const;
    /// Blocks for at most `timeout`; true when the save has finished.
    bool wait_for(std::chrono::nanoseconds timeout) const;

private:
    friend class saver;
    explicit save_handle(std::shared_ptr<detail::save_job> job) noexcept : job_(std::move(job)) {}
    std::shared_ptr<detail::save_job> job_;
};

/// A background writer of save files: save() encodes on the calling thread
/// and hands the bytes to the saver's thread, which compresses them (when
/// asked), writes, syncs and renames them exactly as bitrep::save does, so a
/// save is atomic and durable whether it was made synchronously or not.
/// Saves are done one at a time in the order they were asked, so two saves
/// of one path end with the newer. The destructor finishes every save
/// already asked for: none is dropped.
class saver {
public:
    saver();
    ~saver();
    saver(const saver&) = delete;
    saver& operator=(const saver&) = delete;

    /// A relative `path` is relative to the working directory at this call.
    template <class T>
    save_handle save(path_view path, const T& value, const save_options& options = {})
    {
        std::vector<std::uint8_t> bytes = take_buffer();
        if (status encoded = detail::encode_save(value, static_cast<const detail::no_metadata*>(nullptr), bytes);
            !encoded)
            return finished(encoded);
        return enqueue(path, std::move(bytes), options);
    }
    /// With a metadata section, as bitrep::save(path, value, metadata).
    template <class T, class Meta>
    save_handle save(path_view path, const T& value, const Meta& metadata, const save_options& options = {})
    {
        std::vector<std::uint8_t> bytes = take_buffer();
        if (status encoded = detail::encode_save(value, &metadata, bytes); !encoded)
            return finished(encoded);
        return enqueue(path, std::move(bytes), options);
    }

    /// Blocks until every save asked for so far has finished.
    void wait_all();
    /// Saves asked for and not finished.
    std::size_t pending() const;

private:
    /// A buffer a finished save gave back (its pages already mapped), or
    /// a new one: a game saving every few minutes does not page-fault the
    /// whole file in again on the calling thread each time.
    std::vector<std::uint8_t> take_buffer();
    save_handle enqueue(path_view path, std::vector<std::uint8_t> bytes, const save_options& options);
    static save_handle finished(const status& result);

    std::unique_ptr<detail::save_worker> worker_;
};

namespace detail {
/// The process's saver behind save_async: made on first use, and finishing
/// its queue when the program exits normally.
saver& shared_saver();
} // namespace detail

/// Saves value to `path` like bitrep::save, but returns once the value is
/// encoded: the file work happens on a background thread (the process's
/// shared saver). Poll or wait on the handle for the final status.
template <class T>
save_handle save_async(path_view path, const T& value, const save_options& options = {})
{
    return detail::shared_saver().save(path, value, options);
}

template <class T, class Meta>
save_handle save_async(path_view path, const T& value, const Meta& metadata, const save_options& options = {})
{
    return detail::shared_saver().save(path, value, metadata, options);
}

} // namespace bitrep
