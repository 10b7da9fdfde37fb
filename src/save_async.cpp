// The background half of bitrep::saver and save_async (save/async.hpp): one
// thread per saver, taking encoded saves from a queue in order and doing
// their file work exactly as bitrep::save does.
#include <bitrep/save/async.hpp>

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

namespace bitrep {

namespace detail {

struct save_job {
    // Set once by the worker, read by any handle.
    mutable std::mutex mutex;
    std::condition_variable finished_changed;
    bool finished = false;
    status result;
    save_outcome outcome;

    // The worker's alone, once queued.
    std::string path;
    std::vector<std::uint8_t> bytes;
    save_options options;

    void finish(const status& written, const save_outcome& did = {})
    {
        {
            std::lock_guard lock(mutex);
            result = written;
            outcome = did;
            finished = true;
        }
        finished_changed.notify_all();
    }
};

class save_worker {
public:
    save_worker() : thread_([this] { run(); }) {}
    ~save_worker()
    {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        queue_changed_.notify_all();
        thread_.join(); // after the queue is empty: no save is dropped
    }

    void push(std::shared_ptr<save_job> job)
    {
        {
            std::lock_guard lock(mutex_);
            queue_.push_back(std::move(job));
            ++pending_;
        }
        queue_changed_.notify_all();
    }

    void wait_all()
    {
        std::unique_lock lock(mutex_);
        idle_.wait(lock, [this] { return pending_ == 0; });
    }

    std::size_t pending() const
    {
        std::lock_guard lock(mutex_);
        return pending_;
    }

    std::vector<std::uint8_t> take_buffer()
    {
        std::lock_guard lock(mutex_);
        if (spare_.empty())
            return {};
        std::vector<std::uint8_t> buffer = std::move(spare_.back());
        spare_.pop_back();
        return buffer;
    }

private:
    void run()
    {
        for (;;) {
            std::shared_ptr<save_job> job;
            {
                std::unique_lock lock(mutex_);
                queue_changed_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
                if (queue_.empty())
                    return; // stopping, and nothing left
                job = std::move(queue_.front());
                queue_.pop_front();
            }
            save_outcome did;
            const status written = write_save_file(job->path, job->bytes, job->options, &did);
            std::vector<std::uint8_t> used = std::move(job->bytes); // not kept alive by the handle
            job->finish(written, did);
            {
                std::lock_guard lock(mutex_);
                --pending_;
                if (spare_.size() < max_spare)
                    spare_.push_back(std::move(used));
            }
            idle_.notify_all();
        }
    }

    mutable std::mutex mutex_;
    std::condition_variable queue_changed_;
    std::condition_variable idle_;
    std::deque<std::shared_ptr<save_job>> queue_;
    static constexpr std::size_t max_spare = 2;
    std::vector<std::vector<std::uint8_t>> spare_; // finished saves' buffers, for the next ones
    std::size_t pending_ = 0;
    bool stopping_ = false;
    std::thread thread_; // last: starts once everything above exists
};

saver& shared_saver()
{
    static saver shared;
    return shared;
}

} // namespace detail

bool save_handle::done() const noexcept
{
    if (!job_)
        return false;
    std::lock_guard lock(job_->mutex);
    return job_->finished;
}

namespace {
/// Blocks until `job` has finished, and returns what `read` reads of it.
template <class Read>
auto when_finished(detail::save_job& job, Read read)
{
    std::unique_lock lock(job.mutex);
    job.finished_changed.wait(lock, [&job] { return job.finished; });
    return read(job);
}
} // namespace

status save_handle::wait() const
{
    if (!job_)
        return status(error::io_error, 0, "save_handle", "no save: a default-made handle");
    return when_finished(*job_, [](const detail::save_job& job) { return job.result; });
}

save_outcome save_handle::outcome() const
{
    if (!job_)
        return {};
    return when_finished(*job_, [](const detail::save_job& job) { return job.outcome; });
}

bool save_handle::wait_for(std::chrono::nanoseconds timeout) const
{
    if (!job_)
        return false;
    std::unique_lock lock(job_->mutex);
    return job_->finished_changed.wait_for(lock, timeout, [this] { return job_->finished; });
}

saver::saver() : worker_(std::make_unique<detail::save_worker>()) {}
saver::~saver() = default;

void saver::wait_all() { worker_->wait_all(); }
std::vector<std::uint8_t> saver::take_buffer() { return worker_->take_buffer(); }
std::size_t saver::pending() const { return worker_->pending(); }

save_handle saver::enqueue(path_view path, std::vector<std::uint8_t> bytes, const save_options& options)
{
    // A relative path means relative to the working directory of the
    // call: the worker may get to the job after the program has changed it.
    std::filesystem::path target(path.text());
    if (target.is_relative() && !target.empty()) {
        std::error_code failed;
        target = std::filesystem::absolute(target, failed);
        if (failed)
            return finished(status(error::io_error, 0, path.text(), "the working directory cannot be found"));
    }
    auto job = std::make_shared<detail::save_job>();
    job->path = target.native();
    job->bytes = std::move(bytes);
    job->options = options;
    worker_->push(job);
    return save_handle(std::move(job));
}

save_handle saver::finished(const status& result)
{
    auto job = std::make_shared<detail::save_job>();
    job->finish(result);
    return save_handle(std::move(job));
}

} // namespace bitrep
