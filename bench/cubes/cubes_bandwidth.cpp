// cubes_bandwidth: the networked-physics challenge's yardstick. Packet i
// carries frame i against frame i - 6 (a 100 ms baseline at 60 Hz, no loss)
// for every frame from 6 to the end; kbps = payload bytes / packets x 60 x 8
// / 1000, no packet header counted. Every decoded frame must equal the
// original exactly, or the run fails.
//
//   cubes_bandwidth [--data FILE] [--cubes N] [--csv]
//
// Without --data it uses the default scene in the build folder, generating
// it with cubes_scene first if it is missing. Encoders (docs/benchmarks.md,
// "Bandwidth: the cube scene"):
//   full                the whole quantized state, bitrep::to_bytes
//   bitrep_delta_today  bitrep::write_delta of the annotated snapshot
//   reference           the articles' bit-packer, by hand (reference_encoder.hpp)
//   bitrep_coded        bitrep::delta_coder: the same annotated snapshot, coded
//                       (docs/design/coded-deltas.md)
#include <bitrep/bitrep.hpp>
#include <bitrep/coded_delta.hpp>
#include <bitrep/delta.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "cube_frames.hpp"
#include "reference_encoder.hpp"

namespace {

/// The game's annotated cube: only this struct is specific to the scene.
/// 2 + 3 x 9 + 15 + 15 + 13 + 1 = 73 bits.
struct Cube {
    bitrep::quat_code<9> orientation; // the data's smallest-three code as it is
    bitrep::ranged<int, -16383, 16383> x, y;
    bitrep::ranged<int, 0, 8191> z;
    bool interacting = false;
    friend bool operator==(const Cube&, const Cube&) = default;
};

/// The same cube in a game that knows its physics: a prediction of its own
/// (bitrep/predict.hpp), which the coded delta sends residuals against.
/// Gravity for a cube above the floor, the floor, and straight lines
/// scaled by the ticks; the orientation is left to the library (a field
/// left at the baseline's value is). Integers only: both ends agree.
struct FallingCube {
    bitrep::quat_code<9> orientation;
    bitrep::ranged<int, -16383, 16383> x, y;
    bitrep::ranged<int, 0, 8191> z;
    bool interacting = false;
    friend bool operator==(const FallingCube&, const FallingCube&) = default;

    static FallingCube predict(const bitrep::history<FallingCube>& h, std::uint32_t ahead)
    {
        FallingCube p = h.baseline;
        const std::int64_t back = h.older_ticks;
        if (back == 0)
            return p;
        const auto ahead_of = [&](int base, int older) { // base + (base - older) ahead / back, rounded
            const std::int64_t moved = std::int64_t{base - older} * ahead;
            return base + static_cast<int>((moved + (moved >= 0 ? back / 2 : -back / 2)) / back);
        };
        constexpr int resting_z = 103; // a 0.4 m cube lying on the floor, at 512 units a metre
        p.x = ahead_of(h.baseline.x.value(), h.older.x.value());
        p.y = ahead_of(h.baseline.y.value(), h.older.y.value());
        int z = ahead_of(h.baseline.z.value(), h.older.z.value());
        if (h.baseline.z.value() > resting_z + 4) // in the air: 9.8 m/s^2 at 60 ticks a second pulls
            z -= static_cast<int>(6272 * std::int64_t{ahead} * (back + ahead) / 9000); // g t2 (t1 + t2) / 2
        p.z = std::clamp(z, std::min(resting_z, h.baseline.z.value()), 8191);
        return p;
    }
};

template <class C = Cube>
C to_cube(const cubes::cube_state& s)
{
    C c;
    c.orientation.largest = static_cast<std::uint8_t>(s.largest);
    c.orientation.small = {{{static_cast<std::uint16_t>(s.a)}, {static_cast<std::uint16_t>(s.b)}, {static_cast<std::uint16_t>(s.c)}}};
    c.x = s.x;
    c.y = s.y;
    c.z = s.z;
    c.interacting = s.interacting != 0;
    return c;
}

constexpr std::size_t max_packet_bytes = 16384;

/// One way of sending frame f against frame f - 6 (and, for prediction,
/// f - 12, which the receiver also holds).
class encoder {
public:
    virtual ~encoder() = default;
    virtual std::string_view name() const = 0;
    /// Bytes written, or nothing when the encoder refused.
    virtual std::optional<std::size_t> encode(std::size_t f, std::span<std::uint8_t> out) = 0;
    /// Decodes into the encoder's own scratch frame.
    virtual bool decode(std::size_t f, std::span<const std::uint8_t> packet) = 0;
    virtual bool decoded_equals(std::size_t f) const = 0;
};

std::size_t base_of(std::size_t f) { return f - cubes::baseline_distance; }
std::size_t base_of_base_of(std::size_t f) { return f >= 2 * cubes::baseline_distance ? f - 2 * cubes::baseline_distance : 0; }

class reference_encoder final : public encoder {
public:
    explicit reference_encoder(const cubes::frame_data& data) : data_(data), scratch_(data.cube_count) {}
    std::string_view name() const override { return "reference"; }
    std::optional<std::size_t> encode(std::size_t f, std::span<std::uint8_t> out) override
    {
        reference::writer s{bitrep::bit_writer(out)};
        if (!reference::write_snapshot(s, frame(f), frame(base_of(f)), frame(base_of_base_of(f))))
            return std::nullopt;
        s.bits.flush();
        return s.bits.bytes_written();
    }
    bool decode(std::size_t f, std::span<const std::uint8_t> packet) override
    {
        reference::reader s{bitrep::bit_reader(packet)};
        return reference::read_snapshot(s, scratch_, frame(base_of(f)), frame(base_of_base_of(f)));
    }
    bool decoded_equals(std::size_t f) const override { return std::ranges::equal(scratch_, frame(f)); }

private:
    std::span<const cubes::cube_state> frame(std::size_t f) const { return {data_.frame(f), data_.cube_count}; }
    const cubes::frame_data& data_;
    std::vector<cubes::cube_state> scratch_;
};

/// The bitrep encoders hold the frames as the game's annotated snapshot.
template <std::size_t N, class C = Cube>
class bitrep_encoder : public encoder {
public:
    using snapshot = std::array<C, N>;
    explicit bitrep_encoder(const cubes::frame_data& data) : frames_(data.frame_count()), scratch_(std::make_unique<snapshot>())
    {
        for (std::size_t f = 0; f < frames_.size(); ++f)
            std::transform(data.frame(f), data.frame(f) + N, frames_[f].begin(), to_cube<C>);
    }
    bool decoded_equals(std::size_t f) const override { return *scratch_ == frames_[f]; }

protected:
    std::vector<snapshot> frames_;
    std::unique_ptr<snapshot> scratch_;
};

template <std::size_t N>
class full_encoder final : public bitrep_encoder<N> {
public:
    using bitrep_encoder<N>::bitrep_encoder;
    std::string_view name() const override { return "full"; }
    std::optional<std::size_t> encode(std::size_t f, std::span<std::uint8_t> out) override
    {
        std::size_t written = 0;
        if (!bitrep::to_bytes(this->frames_[f], out, written).ok())
            return std::nullopt;
        return written;
    }
    bool decode(std::size_t, std::span<const std::uint8_t> packet) override
    {
        return bitrep::from_bytes(packet, *this->scratch_).ok();
    }
};

template <std::size_t N>
class delta_today_encoder final : public bitrep_encoder<N> {
public:
    using bitrep_encoder<N>::bitrep_encoder;
    std::string_view name() const override { return "bitrep_delta_today"; }
    std::optional<std::size_t> encode(std::size_t f, std::span<std::uint8_t> out) override
    {
        bitrep::failure_record failure;
        bitrep::basic_write_stream<bitrep::scope::replication> stream(out, failure);
        if (!bitrep::write_delta(stream, this->frames_[base_of(f)], this->frames_[f]))
            return std::nullopt;
        return stream.flush();
    }
    bool decode(std::size_t f, std::span<const std::uint8_t> packet) override
    {
        bitrep::failure_record failure;
        bitrep::basic_read_stream<bitrep::scope::replication> stream(packet, failure);
        return bitrep::read_delta(stream, this->frames_[base_of(f)], *this->scratch_);
    }
};

/// bitrep_coded, and with C = FallingCube bitrep_predicted.
template <std::size_t N, class C = Cube>
class coded_encoder final : public bitrep_encoder<N, C> {
public:
    using bitrep_encoder<N, C>::bitrep_encoder;
    std::string_view name() const override { return std::is_same_v<C, Cube> ? "bitrep_coded" : "bitrep_predicted"; }
    std::optional<std::size_t> encode(std::size_t f, std::span<std::uint8_t> out) override
    {
        std::size_t bytes = 0;
        if (!coder_.write(out, bytes, this->frames_[base_of_base_of(f)], this->frames_[base_of(f)], this->frames_[f],
                          ticks(f))
                 .ok())
            return std::nullopt;
        return bytes;
    }
    bool decode(std::size_t f, std::span<const std::uint8_t> packet) override
    {
        return coder_
            .read(packet, this->frames_[base_of_base_of(f)], this->frames_[base_of(f)], *this->scratch_, ticks(f))
            .ok();
    }

private:
    static bitrep::delta_ticks ticks(std::size_t f)
    {
        return {static_cast<std::uint32_t>(base_of(f) - base_of_base_of(f)),
                static_cast<std::uint32_t>(cubes::baseline_distance)};
    }
    bitrep::delta_coder<typename bitrep_encoder<N, C>::snapshot> coder_;
};

template <std::size_t N>
std::vector<std::unique_ptr<encoder>> bitrep_encoders(const cubes::frame_data& data)
{
    std::vector<std::unique_ptr<encoder>> list;
    list.push_back(std::make_unique<full_encoder<N>>(data));
    list.push_back(std::make_unique<delta_today_encoder<N>>(data));
    list.push_back(std::make_unique<coded_encoder<N>>(data));
    list.push_back(std::make_unique<coded_encoder<N, FallingCube>>(data));
    return list;
}

struct result {
    std::string name;
    std::size_t total_bytes = 0;
    double encode_us = 0;
    double decode_us = 0;
};

using clock_type = std::chrono::steady_clock;
constexpr int timing_rounds = 5; // the fastest of these, against interruptions

/// Encodes every packet, checks that each decodes to its frame, and times
/// both directions. Empty on any failure (after saying which packet).
std::optional<result> measure(encoder& e, const cubes::frame_data& data)
{
    const std::size_t first = cubes::baseline_distance;
    const std::size_t packets = data.frame_count() - first;
    std::vector<std::uint8_t> storage(packets * max_packet_bytes);
    std::vector<std::size_t> sizes(packets);
    auto packet = [&](std::size_t p) { return std::span<std::uint8_t>(storage.data() + p * max_packet_bytes, max_packet_bytes); };

    result r;
    r.name = std::string(e.name());
    double best_encode = 1e300;
    for (int round = 0; round < timing_rounds; ++round) {
        const auto start = clock_type::now();
        for (std::size_t p = 0; p < packets; ++p) {
            const std::optional<std::size_t> bytes = e.encode(first + p, packet(p));
            if (!bytes) {
                std::fprintf(stderr, "%s: encoding frame %zu failed\n", r.name.c_str(), first + p);
                return std::nullopt;
            }
            sizes[p] = *bytes;
        }
        best_encode = std::min(best_encode, std::chrono::duration<double, std::micro>(clock_type::now() - start).count());
    }
    double best_decode = 1e300;
    for (int round = 0; round < timing_rounds; ++round) {
        const auto start = clock_type::now();
        bool all = true;
        for (std::size_t p = 0; p < packets; ++p)
            all &= e.decode(first + p, packet(p).first(sizes[p]));
        best_decode = std::min(best_decode, std::chrono::duration<double, std::micro>(clock_type::now() - start).count());
        if (!all) {
            std::fprintf(stderr, "%s: a packet failed to decode\n", r.name.c_str());
            return std::nullopt;
        }
    }
    for (std::size_t p = 0; p < packets; ++p) {
        if (!e.decode(first + p, packet(p).first(sizes[p])) || !e.decoded_equals(first + p)) {
            std::fprintf(stderr, "%s: packet for frame %zu does not decode to the frame\n", r.name.c_str(), first + p);
            return std::nullopt;
        }
        r.total_bytes += sizes[p];
    }
    r.encode_us = best_encode / static_cast<double>(packets);
    r.decode_us = best_decode / static_cast<double>(packets);
    return r;
}

std::size_t changed_cubes(const cubes::frame_data& data)
{
    std::size_t changed = 0;
    for (std::size_t f = cubes::baseline_distance; f < data.frame_count(); ++f)
        for (std::size_t i = 0; i < data.cube_count; ++i)
            changed += data.frame(f)[i] == data.frame(base_of(f))[i] ? 0 : 1;
    return changed;
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app{"cubes_bandwidth: bits on the wire for the networked-physics cube scene"};
    std::string path;
    std::size_t cube_count = cubes::default_cube_count;
    bool csv = false;
    app.add_option("--data", path, "frames in the challenge's raw format (default: the generated default scene)");
    app.add_option("--cubes", cube_count, "cubes per frame in the file")->check(CLI::IsMember({101, 901}));
    app.add_flag("--csv", csv, "one line per encoder: name,kbps,bytes_per_packet,encode_us,decode_us");
    CLI11_PARSE(app, argc, argv);

    if (path.empty()) {
        path = CUBES_DEFAULT_DATA;
        if (!std::filesystem::exists(path)) {
            const std::string command = std::string("\"") + CUBES_SCENE_PATH + "\" --out \"" + path + "\" --cubes " +
                                        std::to_string(cube_count) + (csv ? " > /dev/null" : "");
            if (std::system(command.c_str()) != 0) {
                std::fprintf(stderr, "cubes_bandwidth: generating the scene failed: %s\n", command.c_str());
                return 1;
            }
        }
    }
    std::string message;
    const std::optional<cubes::frame_data> data = cubes::read_frames(path, cube_count, message);
    if (!data || data->frame_count() <= cubes::baseline_distance) {
        std::fprintf(stderr, "cubes_bandwidth: %s\n", data ? "fewer than 7 frames" : message.c_str());
        return 1;
    }

    std::vector<std::unique_ptr<encoder>> encoders =
        cube_count == 901 ? bitrep_encoders<901>(*data) : bitrep_encoders<101>(*data);
    encoders.insert(encoders.begin() + 2, std::make_unique<reference_encoder>(*data));

    const std::size_t packets = data->frame_count() - cubes::baseline_distance;
    const std::size_t changed = changed_cubes(*data);
    std::vector<result> results;
    for (auto& e : encoders) {
        std::optional<result> r = measure(*e, *data);
        if (!r)
            return 1;
        results.push_back(*r);
    }
    auto kbps = [&](const result& r) { return static_cast<double>(r.total_bytes) / static_cast<double>(packets) * 60 * 8 / 1000; };
    const result& reference = *std::ranges::find(results, "reference", &result::name);

    if (csv) {
        for (const result& r : results)
            std::printf("%s,%.2f,%.2f,%.2f,%.2f\n", r.name.c_str(), kbps(r),
                        static_cast<double>(r.total_bytes) / static_cast<double>(packets), r.encode_us, r.decode_us);
        return 0;
    }
    std::printf("%s: %zu frames of %zu cubes, %zu packets, %.1f changed cubes per packet on average\n", path.c_str(),
                data->frame_count(), cube_count, packets, static_cast<double>(changed) / static_cast<double>(packets));
    std::printf("every packet decoded to its frame exactly\n\n");
    std::printf("%-20s %10s %13s %14s %11s %11s %13s\n", "encoder", "kbps", "bytes/packet", "bits/changed", "encode us",
                "decode us", "x reference");
    for (const result& r : results)
        std::printf("%-20s %10.2f %13.2f %14.2f %11.2f %11.2f %13.3f\n", r.name.c_str(), kbps(r),
                    static_cast<double>(r.total_bytes) / static_cast<double>(packets),
                    8.0 * static_cast<double>(r.total_bytes) / static_cast<double>(std::max<std::size_t>(changed, 1)),
                    r.encode_us, r.decode_us, kbps(r) / kbps(reference));
    std::printf("\nPublished figures on the original 2015 data (different data: context only, not like for like):\n"
                "  the articles' reference bit-packer               255.34 kbps\n"
                "  adaptive arithmetic coding with context models   213.47 kbps\n"
                "  physics prediction with range coding             135.07 kbps\n");
    return 0;
}
