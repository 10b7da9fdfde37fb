// What a process uses: this thread's CPU time and the resident size, shared
// by replication_bench, replication_soak and examples/arena (Linux: /proc).
#pragma once

#include <cstddef>
#include <fstream>
#include <string>

#include <time.h>   // clock_gettime
#include <unistd.h> // sysconf

namespace process_usage {

/// This thread's CPU time, in seconds: unlike the steady clock, it leaves
/// out the time other processes on a shared host hold the core.
inline double thread_cpu_seconds() noexcept
{
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

/// The process's resident set size in bytes (/proc/self/statm, second field).
inline std::size_t resident_bytes()
{
    std::ifstream statm("/proc/self/statm");
    std::size_t size_pages = 0, resident_pages = 0;
    statm >> size_pages >> resident_pages;
    return resident_pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

/// The most the process was ever resident (VmHWM of /proc/self/status).
inline std::size_t peak_resident_bytes()
{
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
        if (key == "VmHWM:") {
            std::size_t kib = 0;
            status >> kib;
            return kib * 1024;
        }
        status.ignore(4096, '\n');
    }
    return 0;
}

} // namespace process_usage
