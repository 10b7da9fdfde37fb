// The compiled half of save files' optional parts (docs/formats/save-format.md):
// zstd compression of the payload, when bitrep is built with libzstd, and
// the file work every save ends with (compress when asked, then write,
// sync and rename).
#include <bitrep/detail/exceptions.hpp>
#include <bitrep/save/save.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "atomic_write.hpp"

#ifndef BITREP_HAS_ZSTD
#define BITREP_HAS_ZSTD 0
#endif
#if BITREP_HAS_ZSTD
#include <zstd.h>
#endif

namespace bitrep::detail {

namespace {
#if BITREP_HAS_ZSTD
// ZSTD_compress allocates its context on every call; the worker thread that
// saves keeps one instead.
struct compression_context {
    ZSTD_CCtx* context = ZSTD_createCCtx();
    ~compression_context() { ZSTD_freeCCtx(context); }
};
#endif
} // namespace

bool zstd_available() noexcept { return BITREP_HAS_ZSTD != 0; }

status compress_save(std::vector<std::uint8_t>& file, int level) noexcept
{
#if BITREP_HAS_ZSTD
    // The file was just made (its CRCs may not be there yet): its lengths
    // are checked, not its CRC.
    save_header header;
    if (status checked = parse_save_header(file, file.size(), header); !checked)
        return checked;
    if (header.format < 2 || header.compressed())
        return status(error::corrupt, 0, "header", "compress_save: not an uncompressed format-2 save");
    const std::size_t payload_at = static_cast<std::size_t>(header.payload_offset());
    const std::span<const std::uint8_t> payload = std::span<const std::uint8_t>(file).subspan(payload_at);
    std::vector<std::uint8_t> packed;
    bool allocated = true;
#if BITREP_HAS_EXCEPTIONS
    try {
        packed.resize(ZSTD_compressBound(payload.size()));
    } catch (...) {
        allocated = false;
    }
#else
    packed.resize(ZSTD_compressBound(payload.size()));
#endif
    if (!allocated)
        return status(error::io_error, 0, "payload", "out of memory while compressing");
    thread_local compression_context context;
    if (context.context == nullptr)
        return status(error::io_error, 0, "payload", "zstd could not make a compression context");
    const std::size_t size =
        ZSTD_compressCCtx(context.context, packed.data(), packed.size(), payload.data(), payload.size(), level);
    if (ZSTD_isError(size))
        return status(error::io_error, 0, "payload", ZSTD_getErrorName(size));
    if (size >= payload.size()) {
        seal_save(file, header); // no smaller: stored as it is, and the header says so
        return {};
    }
    std::copy(packed.begin(), packed.begin() + static_cast<std::ptrdiff_t>(size), file.begin() + static_cast<std::ptrdiff_t>(payload_at));
    file.resize(payload_at + size);
    header.flags |= save_header::zstd_payload;
    header.stored_payload_bytes = size;
    seal_save(file, header);
    return {};
#else
    static_cast<void>(file);
    static_cast<void>(level);
    return status(error::io_error, 0, "payload", "this bitrep was built without zstd (libzstd-dev)");
#endif
}

status decompress_payload(std::span<const std::uint8_t> stored, std::size_t expected_bytes,
                          std::vector<std::uint8_t>& out) noexcept
{
#if BITREP_HAS_ZSTD
    // The frame must say it holds exactly the payload the header gives,
    // before anything is allocated for it.
    const unsigned long long declared = ZSTD_getFrameContentSize(stored.data(), stored.size());
    if (declared == ZSTD_CONTENTSIZE_ERROR || declared == ZSTD_CONTENTSIZE_UNKNOWN || declared != expected_bytes)
        return status(error::corrupt, 0, "payload", "the compressed payload's size differs from the header's");
    bool allocated = true;
#if BITREP_HAS_EXCEPTIONS
    try {
        out.resize(expected_bytes);
    } catch (...) {
        allocated = false;
    }
#else
    out.resize(expected_bytes);
#endif
    if (!allocated)
        return status(error::io_error, 0, "payload", "out of memory while decompressing");
    const std::size_t size = ZSTD_decompress(out.data(), out.size(), stored.data(), stored.size());
    if (ZSTD_isError(size) || size != expected_bytes)
        return status(error::corrupt, 0, "payload", "the compressed payload does not decompress");
    return {};
#else
    static_cast<void>(stored);
    static_cast<void>(expected_bytes);
    out.clear();
    return status(error::newer_version, 0, "header", "a zstd-compressed save, and this bitrep was built without zstd");
#endif
}

status finish_save(std::vector<std::uint8_t>& file, const save_options& options) noexcept
{
    if (options.compression == save_compression::zstd)
        return compress_save(file, options.compression_level);
    save_header header;
    if (status checked = parse_save_header(file, file.size(), header); !checked)
        return checked;
    seal_save(file, header);
    return {};
}

status write_save_file(path_view path, std::vector<std::uint8_t>& bytes, const save_options& options,
                       save_outcome* outcome) noexcept
{
    if (status finished = finish_save(bytes, options); !finished)
        return finished;
    return write_file_atomically(path, bytes, options.keep_backup, outcome);
}

} // namespace bitrep::detail
