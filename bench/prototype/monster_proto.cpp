// PROTOTYPE (not built by CMake): the Monster batch of monster_bench through
// hand-built threaded programs (threaded.hpp), beside the engine, the
// hand-written code and the inlined codecs of that file, in one binary.
// Build with build.sh, count instructions per call with count.sh
// (docs/design/kinds.md).
#define main monster_bench_main
#include "../monster_bench.cpp"
#undef main

#include "threaded.hpp"

namespace {

namespace threaded {
template <class V>
const proto::seq_access* seq()
{
    static const proto::seq_access a{[](const void* p) noexcept { return static_cast<const V*>(p)->size(); },
                                     [](void* p) noexcept -> void* { return static_cast<V*>(p)->data(); }};
    return &a;
}
proto::ins quant(std::uint32_t off)
{
    proto::ins i{&proto::h_quantized};
    i.offset = off;
    i.q = hand::unit_quantizer;
    i.bits = static_cast<std::uint8_t>(i.q.bits);
    i.low = -1.f;
    i.top = 1.f;
    i.fmax = static_cast<float>(i.q.max_integer);
    return i;
}
proto::ins simple(proto::handler h, std::uint32_t off, unsigned bits = 0, std::uint64_t max = 0)
{
    proto::ins i{h};
    i.offset = off;
    i.bits = static_cast<std::uint8_t>(bits);
    i.max = max;
    return i;
}
const proto::ins* program()
{
    static proto::ins p[24];
    static bool made = false;
    if (made)
        return p;
    made = true;
    using namespace proto;
    const std::uint32_t pos = offsetof(Monster, pos);
    p[0] = simple(h_vector, offsetof(Batch, monsters), 6, 50);
    p[0].stride = sizeof(Monster);
    p[0].seq = seq<bitrep::bounded_vector<Monster, batch_size>>();
    p[0].skip = &p[23];
    p[1] = quant(pos + offsetof(Vec3, x));
    p[1].fn = h_quantized3;
    p[1].skip = &p[4];
    p[2] = simple(h_nop, 0);
    p[3] = simple(h_nop, 0);
    p[4] = simple(h_int16, offsetof(Monster, mana));
    p[5] = simple(h_int16, offsetof(Monster, hp));
    p[6] = simple(h_string, offsetof(Monster, name), 4, 10);
    p[7] = simple(h_vector, offsetof(Monster, inventory), 4, 10);
    p[7].stride = 1;
    p[7].seq = seq<bitrep::bounded_vector<std::uint8_t, 10>>();
    p[7].skip = &p[10];
    p[7].fn = h_vector_u8;
    p[8] = simple(h_uint8, 0);
    p[9] = simple(h_end_loop, 0);
    p[10] = simple(h_enum32, offsetof(Monster, color), 2, 3);
    p[11] = simple(h_vector, offsetof(Monster, weapons), 4, 10);
    p[11].stride = sizeof(Weapon);
    p[11].seq = seq<bitrep::bounded_vector<Weapon, 10>>();
    p[11].skip = &p[15];
    p[12] = simple(h_string, offsetof(Weapon, name), 4, 10);
    p[13] = simple(h_int16, offsetof(Weapon, damage));
    p[14] = simple(h_end_loop, 0);
    p[15] = simple(h_string, offsetof(Monster, equipped) + offsetof(Weapon, name), 4, 10);
    p[16] = simple(h_int16, offsetof(Monster, equipped) + offsetof(Weapon, damage));
    p[17] = simple(h_vector, offsetof(Monster, path), 4, 10);
    p[17].stride = sizeof(Vec3);
    p[17].seq = seq<bitrep::bounded_vector<Vec3, 10>>();
    p[17].skip = &p[22];
    p[18] = quant(offsetof(Vec3, x));
    p[18].fn = h_quantized3;
    p[18].skip = &p[21];
    p[19] = simple(h_nop, 0);
    p[20] = simple(h_nop, 0);
    p[21] = simple(h_end_loop, 0);
    p[22] = simple(h_end_loop, 0);
    p[23] = simple(h_done, 0);
    return p;
}
} // namespace threaded


namespace threaded {
template <class V>
void (*resizer())(void*, std::size_t)
{
    return [](void* p, std::size_t n) { static_cast<V*>(p)->resize(n); };
}
proto::rins rq(std::uint32_t off, const proto::rins* skip)
{
    proto::rins i{&proto::r_quantized3};
    i.offset = off;
    i.q = hand::unit_quantizer;
    i.bits = static_cast<std::uint8_t>(i.q.bits);
    i.fmax = static_cast<float>(i.q.max_integer);
    i.skip = skip;
    return i;
}
proto::rins rs(proto::rhandler h, std::uint32_t off, unsigned bits = 0, std::uint64_t max = 0)
{
    proto::rins i{h};
    i.offset = off;
    i.bits = static_cast<std::uint8_t>(bits);
    i.max = max;
    return i;
}
const proto::rins* rprogram()
{
    static proto::rins p[24];
    static bool made = false;
    if (made)
        return p;
    made = true;
    using namespace proto;
    const std::uint32_t pos = offsetof(Monster, pos);
    p[0] = rs(r_vector, offsetof(Batch, monsters), 6, 50);
    p[0].stride = sizeof(Monster);
    p[0].resize = resizer<bitrep::bounded_vector<Monster, batch_size>>();
    p[0].skip = &p[23];
    p[1] = rq(pos, &p[4]);
    p[4] = rs(r_int16, offsetof(Monster, mana));
    p[5] = rs(r_int16, offsetof(Monster, hp));
    p[6] = rs(r_string, offsetof(Monster, name), 4, 10);
    p[7] = rs(r_vector_u8, offsetof(Monster, inventory), 4, 10);
    p[7].stride = 1;
    p[7].resize = resizer<bitrep::bounded_vector<std::uint8_t, 10>>();
    p[7].skip = &p[10];
    p[10] = rs(r_enum32, offsetof(Monster, color), 2, 3);
    p[11] = rs(r_vector, offsetof(Monster, weapons), 4, 10);
    p[11].stride = sizeof(Weapon);
    p[11].resize = resizer<bitrep::bounded_vector<Weapon, 10>>();
    p[11].skip = &p[15];
    p[12] = rs(r_string, offsetof(Weapon, name), 4, 10);
    p[13] = rs(r_int16, offsetof(Weapon, damage));
    p[14] = rs(r_end_loop, 0);
    p[14].skip = &p[12];
    p[15] = rs(r_string, offsetof(Monster, equipped) + offsetof(Weapon, name), 4, 10);
    p[16] = rs(r_int16, offsetof(Monster, equipped) + offsetof(Weapon, damage));
    p[17] = rs(r_vector, offsetof(Monster, path), 4, 10);
    p[17].stride = sizeof(Vec3);
    p[17].resize = resizer<bitrep::bounded_vector<Vec3, 10>>();
    p[17].skip = &p[22];
    p[18] = rq(0, &p[21]);
    p[21] = rs(r_end_loop, 0);
    p[21].skip = &p[18];
    p[22] = rs(r_end_loop, 0);
    p[22].skip = &p[1];
    p[23] = rs(r_done, 0);
    return p;
}
} // namespace threaded

struct threaded_in_place {
    [[gnu::noinline]] static bitrep::status from_bytes(std::span<const std::uint8_t> bytes, Batch& out)
    {
        proto::rctx c;
        if (!proto::decode(threaded::rprogram(), &out, bytes.data(), bytes.size(), c)) [[unlikely]]
            return bitrep::status(c.code, c.bit, "Batch", "failed");
        if (static_cast<std::size_t>(c.end - c.in) + (c.sbits / 8) != 0) [[unlikely]]
            return bitrep::status(bitrep::error::trailing_data, 0, "Batch", "trailing");
        return {};
    }
    static bitrep::status to_bytes(const Batch&, std::span<std::uint8_t>, std::size_t&) { return {}; }
};

struct threaded_side {
    [[gnu::noinline]] static bitrep::status to_bytes(const Batch& value, std::span<std::uint8_t> buffer, std::size_t& written)
    {
        proto::ctx c;
        if (!proto::encode(threaded::program(), &value, buffer.data(), buffer.size(), written, c)) [[unlikely]]
            return bitrep::status(c.code, c.bit, "Batch", "failed");
        return {};
    }
    static bitrep::status from_bytes(std::span<const std::uint8_t>, Batch&) { return {}; }
};

void verify_threaded()
{
    std::vector<std::uint8_t> a = encoding_buffer(), b = encoding_buffer();
    std::size_t na = 0, nb = 0;
    check(bitrep::to_bytes(sample_batch(), std::span<std::uint8_t>(a), na).ok(), "reflected");
    check(threaded_side::to_bytes(sample_batch(), b, nb).ok(), "threaded encode succeeds");
    a.resize(na);
    b.resize(nb);
    check(a == b, "threaded bytes identical");
    {
        Batch target;
        { auto st = threaded_in_place::from_bytes(a, target); if (!st.ok()) std::fprintf(stderr, "code %d bit %zu of %zu\n", (int)st.code(), st.bit_offset(), na * 8); check(st.ok(), "threaded decode succeeds"); }
        check(target == sample_batch(), "threaded decode reproduces");
        check(threaded_in_place::from_bytes(a, target).ok() && target == sample_batch(), "again in place");
        for (std::size_t cut = 0; cut < na; cut += 5) {
            Batch t2;
            check(!threaded_in_place::from_bytes(std::span<const std::uint8_t>(a.data(), cut), t2).ok(), "truncated refused");
        }
    }
    for (std::size_t cut = 0; cut < na; cut += 7) {
        std::vector<std::uint8_t> small(cut);
        std::size_t n1 = 0, n2 = 0;
        auto s1 = bitrep::to_bytes(sample_batch(), std::span<std::uint8_t>(small), n1);
        auto s2 = threaded_side::to_bytes(sample_batch(), small, n2);
        check(!s1.ok() && !s2.ok() && s1.code() == s2.code(), "both refuse a small buffer");
    }
}

} // namespace

int main(int argc, char** argv)
{
    verify_threaded();
    benchmark::RegisterBenchmark("Monster/Encode/Threaded", [](benchmark::State& state) {
        side_by_side::encode<threaded_side>(state, sample_batch(), batch_size);
    })->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("Monster/Decode/ThreadedInPlace", [](benchmark::State& state) {
        static Batch target{};
        side_by_side::decode<threaded_in_place>(state, sample_bytes(), target, batch_size);
        if (target != sample_batch())
            state.SkipWithError("threaded decode did not reproduce the batch");
    })->Unit(benchmark::kMicrosecond);
    return monster_bench_main(argc, argv);
}
