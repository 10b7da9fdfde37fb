// The seed corpus generator of a libFuzzer target: `X_seeds DIR` writes the
// seeds of X_fuzz into DIR, so that the fuzzer starts from honest inputs
// rather than an empty corpus (tests/fuzz/CMakeLists.txt builds
// X_seeds from X_fuzz.cpp and this file, with BITREP_SEED_GENERATOR).
//
// The target's own source makes its seeds (its BITREP_SEED_GENERATOR
// section), with the types and honest traffic its harness uses, so that the
// seeds cannot drift from what the harness reads; it aborts when a seed
// does not reach as deep as it should (a save that does not load, a packet
// refused). Here each seed also goes once through the harness itself
// (LLVMFuzzerTestOneInput, whose checks abort), and is written to
// DIR/seed-<FNV-1a hash of its bytes>: running again adds no copy, and the
// files already in DIR (a campaign's corpus) stay.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

/// Appends the target's seeds; defined in its X_fuzz.cpp.
void bitrep_fuzz_seeds(std::vector<std::vector<std::uint8_t>>& seeds);

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::uint64_t fnv1a(const std::vector<std::uint8_t>& bytes)
{
    std::uint64_t hash = 0xcbf29ce484222325u;
    for (const std::uint8_t b : bytes)
        hash = (hash ^ b) * 0x100000001b3u;
    return hash;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s DIR (writes the fuzz target's seed corpus into DIR)\n", argv[0]);
        return 2;
    }
    const std::filesystem::path dir = argv[1];
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        std::fprintf(stderr, "%s: cannot create %s: %s\n", argv[0], argv[1], ec.message().c_str());
        return 1;
    }
    std::vector<std::vector<std::uint8_t>> seeds;
    bitrep_fuzz_seeds(seeds);
    for (const std::vector<std::uint8_t>& seed : seeds) {
        LLVMFuzzerTestOneInput(seed.data(), seed.size());
        char name[32];
        std::snprintf(name, sizeof name, "seed-%016llx", static_cast<unsigned long long>(fnv1a(seed)));
        std::ofstream file(dir / name, std::ios::binary | std::ios::trunc);
        file.write(reinterpret_cast<const char*>(seed.data()), static_cast<std::streamsize>(seed.size()));
        if (!file.flush()) {
            std::fprintf(stderr, "%s: cannot write %s\n", argv[0], (dir / name).c_str());
            return 1;
        }
    }
    std::printf("%zu seeds in %s\n", seeds.size(), argv[1]);
    return 0;
}
