// The adaptive binary range coder under the coded streams.
#include <bitrep/wire/range_coder.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace {

using bitrep::bit_model;
using bitrep::detail::range_decoder;
using bitrep::detail::range_encoder;

/// A decision: adaptive (with one of a few models) or `direct` bits.
struct decision {
    int model = 0;     // -1: direct
    std::uint32_t value = 0;
    int bits = 1;      // for direct
};

std::vector<decision> random_decisions(std::uint64_t seed, std::size_t count)
{
    std::mt19937_64 random(seed);
    std::vector<decision> out;
    // Each model has its own skew, so the coder sees probabilities near 0,
    // near 1 and in between.
    const double skew[4] = {0.5, 0.02, 0.97, 0.3};
    for (std::size_t i = 0; i < count; ++i) {
        decision d;
        if (random() % 8 == 0) {
            d.model = -1;
            d.bits = static_cast<int>(random() % 16) + 1;
            d.value = static_cast<std::uint32_t>(random()) & ((1u << d.bits) - 1);
        } else {
            d.model = static_cast<int>(random() % 4);
            d.value = (static_cast<double>(random() >> 11) * 0x1.0p-53) < skew[d.model] ? 1u : 0u;
        }
        out.push_back(d);
    }
    return out;
}

std::size_t encode(const std::vector<decision>& decisions, std::vector<std::uint8_t>& out)
{
    bit_model models[4];
    range_encoder encoder(out);
    for (const decision& d : decisions) {
        if (d.model < 0)
            encoder.encode_direct(d.value, d.bits);
        else
            encoder.encode(models[d.model], d.value != 0);
    }
    return encoder.finish();
}

/// Decodes with the same sequence of models; true when every value matches.
bool decodes_to(std::span<const std::uint8_t> bytes, const std::vector<decision>& decisions, bool* overran = nullptr,
                bool* consumed_all = nullptr)
{
    bit_model models[4];
    range_decoder decoder(bytes);
    bool all = true;
    for (const decision& d : decisions) {
        const std::uint32_t got = d.model < 0 ? decoder.decode_direct(d.bits) : (decoder.decode(models[d.model]) ? 1u : 0u);
        all = all && got == d.value;
    }
    if (overran != nullptr)
        *overran = decoder.overran();
    if (consumed_all != nullptr)
        *consumed_all = decoder.consumed_all();
    return all;
}

TEST(RangeCoder, RandomDecisionsRoundTripExactly)
{
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
        const auto decisions = random_decisions(seed, static_cast<std::size_t>(seed * 37 % 3000));
        std::vector<std::uint8_t> bytes(32768);
        const std::size_t size = encode(decisions, bytes);
        ASSERT_TRUE(size > 0 || decisions.empty() || bytes.empty()) << seed;
        bool overran = true;
        bool consumed_all = false;
        EXPECT_TRUE(decodes_to(std::span(bytes).first(size), decisions, &overran, &consumed_all)) << "seed " << seed;
        EXPECT_FALSE(overran) << "a packet the encoder wrote needs no more than four bytes past its end, seed " << seed;
        EXPECT_TRUE(consumed_all) << "decoding reads every byte the encoder wrote, seed " << seed;
        if (size > 0) {
            // Five bytes more are left unread (the first four may stand
            // where the encoder dropped trailing zeros).
            std::vector<std::uint8_t> longer(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(size));
            longer.insert(longer.end(), 5, 0x5a);
            const bool same = decodes_to(longer, decisions, nullptr, &consumed_all);
            EXPECT_FALSE(same && consumed_all) << "the same decisions with bytes left over, seed " << seed;
        }
    }
}

TEST(RangeCoder, NoDecisionsTakeNoBytes)
{
    std::vector<std::uint8_t> bytes(16);
    range_encoder encoder(bytes);
    EXPECT_EQ(encoder.finish(), 0u);
    EXPECT_FALSE(encoder.overflowed());
}

TEST(RangeCoder, SkewedDecisionsCostCloseToTheirEntropy)
{
    // 20,000 decisions with P(1) = 1%: the entropy is 0.0808 bits each,
    // 202 bytes in all. The adaptive estimate pays for learning and for its
    // fast half's noise; it must stay within 30% of the bound.
    std::mt19937_64 random(42);
    std::vector<decision> decisions(20000);
    std::size_t ones = 0;
    for (decision& d : decisions) {
        d.value = random() % 100 == 0 ? 1u : 0u;
        ones += d.value;
    }
    std::vector<std::uint8_t> bytes(8192);
    const std::size_t size = encode(decisions, bytes);
    const double p = static_cast<double>(ones) / static_cast<double>(decisions.size());
    const double entropy_bytes = static_cast<double>(decisions.size()) * (-p * std::log2(p) - (1 - p) * std::log2(1 - p)) / 8;
    EXPECT_LT(static_cast<double>(size), 1.3 * entropy_bytes + 4) << "entropy " << entropy_bytes << " bytes";
    EXPECT_TRUE(decodes_to(std::span(bytes).first(size), decisions));
}

TEST(RangeCoder, EquiprobableDirectBitsCostOneBitEach)
{
    std::mt19937_64 random(7);
    std::vector<decision> decisions(1000);
    for (decision& d : decisions) {
        d.model = -1;
        d.bits = 16;
        d.value = static_cast<std::uint32_t>(random()) & 0xFFFF;
    }
    std::vector<std::uint8_t> bytes(4096);
    const std::size_t size = encode(decisions, bytes);
    EXPECT_LE(size, 2000u + 4);
    EXPECT_GE(size, 2000u - 4);
    EXPECT_TRUE(decodes_to(std::span(bytes).first(size), decisions));
}

TEST(RangeCoder, ABufferOfExactlyThePacketsLengthIsEnough)
{
    for (std::uint64_t seed = 1; seed <= 50; ++seed) {
        const auto decisions = random_decisions(seed, 500);
        std::vector<std::uint8_t> roomy(8192);
        const std::size_t size = encode(decisions, roomy);
        ASSERT_GT(size, 0u);
        std::vector<std::uint8_t> exact(size);
        EXPECT_EQ(encode(decisions, exact), size) << seed;
        EXPECT_TRUE(std::equal(exact.begin(), exact.end(), roomy.begin())) << seed;
    }
}

TEST(RangeCoder, ATooSmallBufferIsReportedAndNeverOverrun)
{
    const auto decisions = random_decisions(3, 2000);
    std::vector<std::uint8_t> roomy(8192);
    const std::size_t size = encode(decisions, roomy);
    ASSERT_GT(size, 10u);
    std::vector<std::uint8_t> guarded(size + 8, 0xAB);
    range_encoder encoder(std::span<std::uint8_t>(guarded.data(), size - 1));
    bit_model models[4];
    for (const decision& d : decisions) {
        if (d.model < 0)
            encoder.encode_direct(d.value, d.bits);
        else
            encoder.encode(models[d.model], d.value != 0);
    }
    EXPECT_EQ(encoder.finish(), 0u);
    EXPECT_TRUE(encoder.overflowed());
    for (std::size_t i = size - 1; i < guarded.size(); ++i)
        EXPECT_EQ(guarded[i], 0xAB) << "byte " << i << " past the buffer was written";
}

TEST(RangeCoder, TruncatedInputDecodesWithinItsBytesAndReportsOverrun)
{
    const auto decisions = random_decisions(11, 3000);
    std::vector<std::uint8_t> bytes(8192);
    const std::size_t size = encode(decisions, bytes);
    ASSERT_GT(size, 100u);
    // Copies of exactly the truncated length, so ASan sees any read past it.
    for (std::size_t keep : {std::size_t{0}, std::size_t{1}, size / 2, size - 6}) {
        std::vector<std::uint8_t> truncated(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(keep));
        bool overran = false;
        decodes_to(truncated, decisions, &overran);
        EXPECT_TRUE(overran) << "kept " << keep << " of " << size;
    }
}

} // namespace
