// PROTOTYPE: a threaded-code encoder. Each instruction holds its handler;
// each handler does its field and tail-calls the next instruction's handler
// with the bit writer's state in arguments (registers).
#pragma once
#include <bitrep/wire/bits.hpp>
#include <bitrep/wire/quantize.hpp>
#include <bitrep/wire/utf8.hpp>
#include <bitrep/status.hpp>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#if defined(__clang__)
#define PROTO_TAIL [[clang::musttail]] return
#else
#define PROTO_TAIL return
#endif

namespace proto {

struct ins;
struct ctx;
using handler = bool (*)(const ins* ip, unsigned char* base, ctx* c, std::uint64_t sbits, std::uint64_t scratch,
                         std::uint8_t* out);

struct seq_access {
    std::size_t (*size)(const void*) noexcept;
    void* (*data)(void*) noexcept;
};

struct ins {
    handler fn;
    std::uint32_t offset = 0;
    std::uint32_t stride = 0;
    std::uint8_t bits = 0;
    std::uint64_t max = 0; // string / vector bound, enum count
    bitrep::quantizer q{};
    float low = 0, top = 0;
    float fmax = 0;
    const ins* skip = nullptr; // vector: past its end_loop
    const seq_access* seq = nullptr;
};

struct frame {
    unsigned char* outer;
    unsigned char* data;
    std::size_t index;
    std::size_t count;
    std::uint32_t stride;
    const ins* body;
};

struct ctx {
    std::uint8_t* begin;
    std::uint8_t* end;
    frame* fp;
    // results
    std::uint8_t* out = nullptr;
    std::uint64_t scratch = 0;
    std::uint64_t sbits = 0;
    bitrep::error code = bitrep::error::none;
    std::size_t bit = 0;
    frame stack[32];
};

#define PROTO_ARGS const ins *ip, unsigned char *base, ctx *c, std::uint64_t sbits, std::uint64_t scratch, std::uint8_t *out
#define PROTO_NEXT(nip, nbase)                                                                                    \
    do {                                                                                                         \
        const ins* n_ = (nip);                                                                                   \
        PROTO_TAIL n_->fn(n_, (nbase), c, sbits, scratch, out);                                                  \
    } while (0)

[[gnu::cold, gnu::noinline]] inline bool fail(ctx* c, std::uint8_t* out, std::uint64_t sbits, bitrep::error code)
{
    c->code = code;
    c->bit = static_cast<std::size_t>(out - c->begin) * 8 + sbits;
    return false;
}

/// Appends bits (1..32); false when they do not fit.
[[gnu::always_inline]] inline bool put(ctx* c, std::uint8_t*& out, std::uint64_t& scratch, std::uint64_t& sbits,
                                       std::uint32_t value, unsigned bits)
{
    if (sbits + bits > static_cast<std::uint64_t>(c->end - out) * 8) [[unlikely]]
        return false;
    scratch |= static_cast<std::uint64_t>(value) << sbits;
    sbits += bits;
    if (sbits >= 32) {
        bitrep::detail::store_le32(out, static_cast<std::uint32_t>(scratch));
        out += 4;
        scratch >>= 32;
        sbits -= 32;
    }
    return true;
}

[[gnu::always_inline]] inline void put_unchecked(std::uint8_t*& out, std::uint64_t& scratch, std::uint64_t& sbits,
                                                 std::uint64_t value, unsigned bits)
{
    scratch |= value << sbits;
    sbits += bits;
    if (sbits >= 32) {
        bitrep::detail::store_le32(out, static_cast<std::uint32_t>(scratch));
        out += 4;
        scratch >>= 32;
        sbits -= 32;
    }
}

inline bool h_nop(PROTO_ARGS) { PROTO_NEXT(ip + 1, base); }

inline bool h_done(PROTO_ARGS)
{
    (void)ip;
    (void)base;
    c->out = out;
    c->scratch = scratch;
    c->sbits = sbits;
    return true;
}

/// The standard's quantize with the constants from the instruction (max as a float).
[[gnu::always_inline]] inline std::uint32_t quantum(const ins* ip, float v)
{
    float n = (v - ip->q.min) / ip->q.delta;
    n = n > 0.0f ? (n < 1.0f ? n : 1.0f) : 0.0f;
    const float p = bitrep::detail::keep_rounded(n * ip->fmax);
    const float r = bitrep::detail::keep_rounded(p + 0.5f);
    const auto q = static_cast<std::uint32_t>(r);
    return q > ip->q.max_integer ? ip->q.max_integer : q;
}

/// Three quantized floats in a row with one quantizer (a position, a velocity).
inline bool h_quantized3(PROTO_ARGS)
{
    float v[3];
    std::memcpy(v, base + ip->offset, 12);
    for (float x : v)
        if (!(ip->low <= x && x <= ip->top)) [[unlikely]]
            return fail(c, out, sbits, bitrep::error::value_out_of_range); // (prototype: bit of the first)
    const unsigned bits = ip->bits;
    if (sbits + 3 * bits > static_cast<std::uint64_t>(c->end - out) * 8) [[unlikely]]
        return fail(c, out, sbits, bitrep::error::buffer_too_small);
    put_unchecked(out, scratch, sbits, quantum(ip, v[0]), bits);
    put_unchecked(out, scratch, sbits, quantum(ip, v[1]), bits);
    put_unchecked(out, scratch, sbits, quantum(ip, v[2]), bits);
    PROTO_NEXT(ip->skip, base);
}

/// A vector of bytes: count, then the bytes, checked for room once.
inline bool h_vector_u8(PROTO_ARGS)
{
    unsigned char* p = base + ip->offset;
    unsigned char* first;
    unsigned char* last;
    std::memcpy(&first, p, sizeof first);
    std::memcpy(&last, p + sizeof first, sizeof last);
    const std::size_t n = static_cast<std::size_t>(last - first);
    if (n > ip->max) [[unlikely]]
        return fail(c, out, sbits, bitrep::error::value_out_of_range);
    if (sbits + ip->bits + 8 * n > static_cast<std::uint64_t>(c->end - out) * 8) [[unlikely]]
        return fail(c, out, sbits, bitrep::error::buffer_too_small);
    put_unchecked(out, scratch, sbits, n, ip->bits);
    for (std::size_t i = 0; i < n; ++i)
        put_unchecked(out, scratch, sbits, first[i], 8);
    PROTO_NEXT(ip->skip, base);
}

inline bool h_quantized(PROTO_ARGS)
{
    float v;
    std::memcpy(&v, base + ip->offset, 4);
    if (!(ip->low <= v && v <= ip->top)) [[unlikely]]
        return fail(c, out, sbits, bitrep::error::value_out_of_range);
    if (!put(c, out, scratch, sbits, quantum(ip, v), ip->bits)) [[unlikely]]
        return fail(c, out, sbits, bitrep::error::buffer_too_small);
    PROTO_NEXT(ip + 1, base);
}

/// An unsigned pattern at full width (an int16's two bytes, a byte).
template <class Pattern>
inline bool h_pattern(PROTO_ARGS)
{
    Pattern v;
    std::memcpy(&v, base + ip->offset, sizeof v);
    if (!put(c, out, scratch, sbits, v, 8 * sizeof v)) [[unlikely]]
        return fail(c, out, sbits, bitrep::error::buffer_too_small);
    PROTO_NEXT(ip + 1, base);
}
inline constexpr handler h_int16 = &h_pattern<std::uint16_t>;
inline constexpr handler h_uint8 = &h_pattern<std::uint8_t>;

inline bool h_enum32(PROTO_ARGS)
{
    std::uint32_t v;
    std::memcpy(&v, base + ip->offset, 4);
    if (v >= ip->max) [[unlikely]]
        return fail(c, out, sbits, bitrep::error::bad_enum);
    if (!put(c, out, scratch, sbits, v, ip->bits)) [[unlikely]]
        return fail(c, out, sbits, bitrep::error::buffer_too_small);
    PROTO_NEXT(ip + 1, base);
}

/// The string's first n <= 8 bytes as a little-endian word, read inside its bytes.
[[gnu::always_inline]] inline std::uint64_t small_word(const char* d, std::size_t n)
{
    if (n >= 4) {
        const std::uint64_t lo = bitrep::detail::load_le32(reinterpret_cast<const std::uint8_t*>(d));
        const std::uint64_t hi = bitrep::detail::load_le32(reinterpret_cast<const std::uint8_t*>(d + n - 4));
        return lo | (hi << (8 * (n - 4)));
    }
    if (n == 0)
        return 0;
    const auto b = [d](std::size_t i) { return static_cast<std::uint64_t>(static_cast<unsigned char>(d[i])); };
    return b(0) | (b(n / 2) << (8 * (n / 2))) | (b(n - 1) << (8 * (n - 1)));
}

bool h_string_slow(PROTO_ARGS);

inline bool h_string(PROTO_ARGS)
{
    const std::string& s = *reinterpret_cast<const std::string*>(base + ip->offset);
    const std::size_t n = s.size();
    if (n <= 16) {
        const std::size_t n1 = n <= 8 ? n : 8;
        const std::size_t n2 = n - n1;
        const std::uint64_t w = small_word(s.data(), n1);
        const std::uint64_t w2 = small_word(s.data() + n1, n2);
        const std::uint64_t mask = n1 == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * n1)) - 1;
        const std::uint64_t mask2 = n2 == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * n2)) - 1;
        constexpr std::uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
        const bool plain = (((w | ((w - ones) & ~w)) & highs & mask) | ((w2 | ((w2 - ones) & ~w2)) & highs & mask2)) == 0;
        const std::uint64_t pad = (8 - ((sbits + ip->bits) & 7)) & 7;
        const std::uint64_t total = ip->bits + pad + 8 * n;
        if (plain && n <= ip->max && sbits + total <= static_cast<std::uint64_t>(c->end - out) * 8) [[likely]] {
            put_unchecked(out, scratch, sbits, n, ip->bits + static_cast<unsigned>(pad)); // length, then zero padding
            if (n1 > 4) {
                put_unchecked(out, scratch, sbits, w & 0xffffffffu, 32);
                put_unchecked(out, scratch, sbits, w >> 32, static_cast<unsigned>(8 * (n1 - 4)));
            } else if (n1 != 0) {
                put_unchecked(out, scratch, sbits, w, static_cast<unsigned>(8 * n1));
            }
            if (n2 > 4) {
                put_unchecked(out, scratch, sbits, w2 & 0xffffffffu, 32);
                put_unchecked(out, scratch, sbits, w2 >> 32, static_cast<unsigned>(8 * (n2 - 4)));
            } else if (n2 != 0) {
                put_unchecked(out, scratch, sbits, w2, static_cast<unsigned>(8 * n2));
            }
            PROTO_NEXT(ip + 1, base);
        }
    }
    PROTO_TAIL h_string_slow(ip, base, c, sbits, scratch, out);
}

inline bool h_string_slow(PROTO_ARGS)
{
    const std::string& s = *reinterpret_cast<const std::string*>(base + ip->offset);
    const std::size_t n = s.size();
    const std::uint64_t start_sbits = sbits;
    std::uint8_t* const start_out = out;
    if (n > ip->max) [[unlikely]]
        return fail(c, start_out, start_sbits, bitrep::error::value_out_of_range);
    if (std::memchr(s.data(), 0, n) != nullptr) [[unlikely]]
        return fail(c, start_out, start_sbits, bitrep::error::interior_nul);
    if (!bitrep::detail::is_valid_utf8(reinterpret_cast<const unsigned char*>(s.data()), n)) [[unlikely]]
        return fail(c, start_out, start_sbits, bitrep::error::bad_utf8);
    if (!put(c, out, scratch, sbits, static_cast<std::uint32_t>(n), ip->bits)) [[unlikely]]
        return fail(c, start_out, start_sbits, bitrep::error::buffer_too_small);
    const unsigned pad = static_cast<unsigned>((8 - sbits % 8) % 8);
    if (pad != 0 && !put(c, out, scratch, sbits, 0, pad)) [[unlikely]]
        return fail(c, start_out, start_sbits, bitrep::error::buffer_too_small);
    if (n + sbits / 8 > static_cast<std::size_t>(c->end - out)) [[unlikely]]
        return fail(c, start_out, start_sbits, bitrep::error::buffer_too_small);
    for (; sbits != 0; sbits -= 8, scratch >>= 8)
        *out++ = static_cast<std::uint8_t>(scratch);
    std::memcpy(out, s.data(), n);
    out += n;
    PROTO_NEXT(ip + 1, base);
}

inline bool h_vector(PROTO_ARGS)
{
    unsigned char* p = base + ip->offset;
#ifdef PROTO_VECTOR_CALLS
    const std::size_t n = ip->seq->size(p);
    unsigned char* first = static_cast<unsigned char*>(ip->seq->data(p));
#else
    unsigned char* first;
    unsigned char* last;
    std::memcpy(&first, p, sizeof first);
    std::memcpy(&last, p + sizeof first, sizeof last);
    const std::size_t n = static_cast<std::size_t>(last - first) / ip->stride;
#endif
    if (n > ip->max) [[unlikely]]
        return fail(c, out, sbits, bitrep::error::value_out_of_range);
    if (!put(c, out, scratch, sbits, static_cast<std::uint32_t>(n), ip->bits)) [[unlikely]]
        return fail(c, out, sbits, bitrep::error::buffer_too_small);
    if (n == 0)
        PROTO_NEXT(ip->skip, base);
    frame* f = ++c->fp;
    f->outer = base;
    f->data = first;
    f->index = 0;
    f->count = n;
    f->stride = ip->stride;
    f->body = ip + 1;
    PROTO_NEXT(ip + 1, f->data);
}

inline bool h_end_loop(PROTO_ARGS)
{
    frame* f = c->fp;
    if (++f->index < f->count)
        PROTO_NEXT(f->body, base + f->stride);
    --c->fp;
    PROTO_NEXT(ip + 1, f->outer);
}

/// Runs a program; false with c.code/c.bit on failure.
inline bool encode(const ins* program, const void* object, std::uint8_t* buffer, std::size_t size,
                   std::size_t& bytes_written, ctx& c)
{
    c.begin = buffer;
    c.end = buffer + size;
    c.fp = c.stack - 1 + 1; // stack[0] unused
    c.fp = &c.stack[0];
    if (!program->fn(program, static_cast<unsigned char*>(const_cast<void*>(object)), &c, 0, 0, buffer))
        return false;
    std::uint8_t* out = c.out;
    std::uint64_t scratch = c.scratch;
    for (std::uint64_t s = c.sbits; s > 0; s = s > 8 ? s - 8 : 0) {
        *out++ = static_cast<std::uint8_t>(scratch);
        scratch >>= 8;
    }
    bytes_written = static_cast<std::size_t>(out - buffer);
    return true;
}

} // namespace proto

// ------------------------------------------------------------------ reading
namespace proto {

struct rins;
struct rctx;
using rhandler = bool (*)(const rins* ip, unsigned char* base, rctx* c, std::uint64_t sbits, std::uint64_t scratch,
                          const std::uint8_t* in);

struct rins {
    rhandler fn;
    std::uint32_t offset = 0;
    std::uint32_t stride = 0;
    std::uint8_t bits = 0;
    std::uint64_t max = 0;
    bitrep::quantizer q{};
    float fmax = 0;
    const rins* skip = nullptr;
    void (*resize)(void*, std::size_t) = nullptr;
};

struct rctx {
    const std::uint8_t* begin;
    const std::uint8_t* end;
    frame* fp;
    const std::uint8_t* in = nullptr;
    std::uint64_t sbits = 0;
    bitrep::error code = bitrep::error::none;
    std::size_t bit = 0;
    frame stack[32];
};

#define PROTO_RARGS const rins *ip, unsigned char *base, rctx *c, std::uint64_t sbits, std::uint64_t scratch, const std::uint8_t *in
#define PROTO_RNEXT(nip, nbase)                                                                                   \
    do {                                                                                                         \
        const rins* n_ = (nip);                                                                                  \
        PROTO_TAIL n_->fn(n_, (nbase), c, sbits, scratch, in);                                                   \
    } while (0)

[[gnu::cold, gnu::noinline]] inline bool rfail(rctx* c, const std::uint8_t* in, std::uint64_t sbits, bitrep::error code)
{
    c->code = code;
    c->bit = static_cast<std::size_t>(in - c->begin) * 8 - sbits;
    return false;
}

/// Whether `bits` more bits remain.
[[gnu::always_inline]] inline bool has(const rctx* c, const std::uint8_t* in, std::uint64_t sbits, std::uint64_t bits)
{
    return bits <= sbits + static_cast<std::uint64_t>(c->end - in) * 8;
}

/// Takes `bits` (1..32) bits the caller has checked remain.
[[gnu::always_inline]] inline std::uint32_t take(const rctx* c, const std::uint8_t*& in, std::uint64_t& scratch,
                                                 std::uint64_t& sbits, unsigned bits)
{
    if (sbits < bits) {
        if (c->end - in >= 4) [[likely]] {
            scratch |= static_cast<std::uint64_t>(bitrep::detail::load_le32(in)) << sbits;
            in += 4;
            sbits += 32;
        } else {
            for (; in < c->end; sbits += 8)
                scratch |= static_cast<std::uint64_t>(*in++) << sbits;
        }
    }
    const auto v = static_cast<std::uint32_t>(scratch & ((std::uint64_t{1} << bits) - 1));
    scratch >>= bits;
    sbits -= bits;
    return v;
}

inline bool r_done(PROTO_RARGS)
{
    (void)ip;
    (void)base;
    (void)scratch;
    c->in = in;
    c->sbits = sbits;
    return true;
}

[[gnu::always_inline]] inline float dequantum(const rins* ip, std::uint32_t q)
{
    const float n = bitrep::detail::keep_rounded(static_cast<float>(q) / ip->fmax);
    const float p = bitrep::detail::keep_rounded(n * ip->q.delta);
    return p + ip->q.min;
}

inline bool r_quantized3(PROTO_RARGS)
{
    const unsigned bits = ip->bits;
    if (!has(c, in, sbits, 3 * bits)) [[unlikely]]
        return rfail(c, in, sbits, bitrep::error::truncated);
    float v[3];
    for (float& x : v) {
        const std::uint32_t q = take(c, in, scratch, sbits, bits);
        if (q > ip->q.max_integer) [[unlikely]]
            return rfail(c, in, sbits, bitrep::error::out_of_range);
        x = dequantum(ip, q);
    }
    std::memcpy(base + ip->offset, v, 12);
    PROTO_RNEXT(ip->skip, base);
}

inline bool r_int16(PROTO_RARGS)
{
    if (!has(c, in, sbits, 16)) [[unlikely]]
        return rfail(c, in, sbits, bitrep::error::truncated);
    const auto v = static_cast<std::uint16_t>(take(c, in, scratch, sbits, 16));
    std::memcpy(base + ip->offset, &v, 2);
    PROTO_RNEXT(ip + 1, base);
}

inline bool r_enum32(PROTO_RARGS)
{
    if (!has(c, in, sbits, ip->bits)) [[unlikely]]
        return rfail(c, in, sbits, bitrep::error::truncated);
    const std::uint32_t v = take(c, in, scratch, sbits, ip->bits);
    if (v >= ip->max) [[unlikely]]
        return rfail(c, in, sbits, bitrep::error::bad_enum);
    std::memcpy(base + ip->offset, &v, 4);
    PROTO_RNEXT(ip + 1, base);
}

/// The vector's elements, resized to n where it holds another count.
[[gnu::always_inline]] inline unsigned char* sized(const rins* ip, unsigned char* p, std::size_t n)
{
    unsigned char* first;
    unsigned char* last;
    std::memcpy(&first, p, sizeof first);
    std::memcpy(&last, p + sizeof first, sizeof last);
    if (static_cast<std::size_t>(last - first) != n * ip->stride) [[unlikely]] {
        ip->resize(p, n);
        std::memcpy(&first, p, sizeof first);
    }
    return first;
}

inline bool r_vector_u8(PROTO_RARGS)
{
    if (!has(c, in, sbits, ip->bits)) [[unlikely]]
        return rfail(c, in, sbits, bitrep::error::truncated);
    const std::uint32_t n = take(c, in, scratch, sbits, ip->bits);
    if (n > ip->max) [[unlikely]]
        return rfail(c, in, sbits, bitrep::error::out_of_range);
    if (!has(c, in, sbits, 8 * std::uint64_t{n})) [[unlikely]]
        return rfail(c, in, sbits, bitrep::error::truncated);
    unsigned char* data = sized(ip, base + ip->offset, n);
    for (std::uint32_t i = 0; i < n; ++i)
        data[i] = static_cast<unsigned char>(take(c, in, scratch, sbits, 8));
    PROTO_RNEXT(ip->skip, base);
}

inline bool r_vector(PROTO_RARGS)
{
    if (!has(c, in, sbits, ip->bits)) [[unlikely]]
        return rfail(c, in, sbits, bitrep::error::truncated);
    const std::uint32_t n = take(c, in, scratch, sbits, ip->bits);
    if (n > ip->max) [[unlikely]]
        return rfail(c, in, sbits, bitrep::error::out_of_range);
    unsigned char* data = sized(ip, base + ip->offset, n);
    if (n == 0)
        PROTO_RNEXT(ip->skip, base);
    frame* f = ++c->fp;
    f->outer = base;
    f->data = data;
    f->index = 0;
    f->count = n;
    f->stride = ip->stride;
    f->body = nullptr;
    PROTO_RNEXT(ip + 1, data);
}

inline bool r_end_loop(PROTO_RARGS)
{
    frame* f = c->fp;
    if (++f->index < f->count)
        PROTO_RNEXT(ip->skip, base + f->stride); // skip: the body's first instruction
    --c->fp;
    PROTO_RNEXT(ip + 1, f->outer);
}

bool r_string_slow(PROTO_RARGS);

inline bool r_string(PROTO_RARGS)
{
    std::string& s = *reinterpret_cast<std::string*>(base + ip->offset);
    const std::uint64_t pad0 = (8 - ((static_cast<std::uint64_t>(in - c->begin) * 8 - sbits + ip->bits) & 7)) & 7;
    if (!has(c, in, sbits, ip->bits + pad0)) [[unlikely]]
        return rfail(c, in, sbits, bitrep::error::truncated);
    const std::uint32_t head = take(c, in, scratch, sbits, ip->bits + static_cast<unsigned>(pad0));
    const std::uint32_t n = head & ((1u << ip->bits) - 1);
    if (n > ip->max || (head >> ip->bits) != 0) [[unlikely]]
        return rfail(c, in, sbits, n > ip->max ? bitrep::error::out_of_range : bitrep::error::bad_padding);
    if (!has(c, in, sbits, 8 * std::uint64_t{n})) [[unlikely]]
        return rfail(c, in, sbits, bitrep::error::truncated);
    if (s.size() != n) [[unlikely]]
        s.resize(n);
    char* d = s.data();
    std::uint32_t i = 0;
    for (; i < n && sbits != 0; ++i, sbits -= 8, scratch >>= 8)
        d[i] = static_cast<char>(scratch);
    if (i < n) {
        std::memcpy(d + i, in, n - i);
        in += n - i;
    }
    std::uint64_t ascii = 0;
    {
        constexpr std::uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
        const std::size_t n1 = n <= 8 ? n : 8;
        const std::uint64_t w = n1 == 0 ? 0 : small_word(d, n1);
        const std::uint64_t mask = n1 == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * n1)) - 1;
        ascii = (w | ((w - ones) & ~w)) & highs & mask;
        if (n > 8) {
            const std::size_t n2 = n - 8 <= 8 ? n - 8 : 8;
            const std::uint64_t w2 = small_word(d + 8, n2);
            const std::uint64_t mask2 = n2 == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * n2)) - 1;
            ascii |= (w2 | ((w2 - ones) & ~w2)) & highs & mask2;
            if (n > 16)
                ascii = 1; // the long form checks
        }
    }
    if (ascii != 0) [[unlikely]] {
        if (std::memchr(d, 0, n) != nullptr)
            return rfail(c, in, sbits, bitrep::error::interior_nul);
        if (!bitrep::detail::is_valid_utf8(reinterpret_cast<const unsigned char*>(d), n))
            return rfail(c, in, sbits, bitrep::error::bad_utf8);
    }
    PROTO_RNEXT(ip + 1, base);
}

inline bool decode(const rins* program, void* object, const std::uint8_t* bytes, std::size_t size, rctx& c)
{
    c.begin = bytes;
    c.end = bytes + size;
    c.fp = &c.stack[0];
    return program->fn(program, static_cast<unsigned char*>(object), &c, 0, 0, bytes);
}

} // namespace proto
