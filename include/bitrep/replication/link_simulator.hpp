// A seeded, in-process network link for tests and demos: latency, jitter,
// loss, duplication, reordering and bit corruption, reproducible to the bit.
// One simulator models one direction; a two-way link is two simulators, one
// per direction.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include <bitrep/wire/quantize.hpp>

namespace bitrep {

/// How a link treats each packet. Delays are in the caller's time unit (ticks,
/// milliseconds, ...), whatever send() and receive() are given.
///
/// link_simulator clamps rather than refuses: a probability outside [0, 1]
/// becomes the nearer end, a negative delay becomes 0, and NaN becomes 0.
/// conditions() returns the clamped values.
struct link_conditions {
    double latency = 0;       ///< Base one-way delay.
    double jitter = 0;        ///< Extra delay drawn uniformly from [0, jitter).
    double loss = 0;          ///< Probability a packet is dropped.
    double duplicate = 0;     ///< Probability a packet arrives twice; the copy draws its own delay.
    double reorder = 0;       ///< Probability a copy is held back by reorder_delay, so later ones overtake it.
    double reorder_delay = 0;
    double corrupt = 0;       ///< Probability a copy arrives with 1 to 3 distinct bits flipped.
};

/// Counts since construction. Fates are decided at send time, so duplicated,
/// reordered and corrupted include copies still in flight. At every moment
///     sent + duplicated == dropped + delivered + in_flight()
/// because a dropped packet is never duplicated, and every copy is either
/// delivered or still in flight.
struct link_statistics {
    std::uint64_t sent = 0;       ///< Calls to send().
    std::uint64_t dropped = 0;    ///< Packets lost (never duplicated).
    std::uint64_t duplicated = 0; ///< Extra copies made.
    std::uint64_t reordered = 0;  ///< Copies held back by reorder_delay.
    std::uint64_t corrupted = 0;  ///< Copies with bits flipped.
    std::uint64_t delivered = 0;  ///< Calls made to a receive() callback.
};

/// A one-way link. Deterministic: the same seed and the same sequence of calls
/// give exactly the same deliveries on every standard library, because the
/// engine is std::mt19937_64 (fully specified by the standard) and every
/// number drawn from it is derived here, never by the standard's
/// distributions, whose output differs between implementations.
///
/// Allocation: a copy's bytes live in a pooled buffer that keeps its capacity
/// for the next copy, and the schedule is a binary heap in a vector. After a
/// warm-up (the pool grows to the most copies ever in flight at once, each
/// buffer to the largest packet it has held) send() and receive() allocate
/// nothing.
class link_simulator {
public:
    explicit link_simulator(link_conditions conditions = {}, std::uint64_t seed = 1)
        : conditions_(clamped(conditions)), engine_(seed)
    {
    }

    /// Applies to packets sent from now on: those in flight keep the fate they
    /// were given (so clearing the link does not rescue a delayed packet).
    void set_conditions(const link_conditions& conditions) { conditions_ = clamped(conditions); }

    const link_conditions& conditions() const noexcept { return conditions_; }

    /// Enqueues a packet sent at time `now` (finite; it need not increase from
    /// call to call). Its fate is drawn here, in a fixed order: loss, then
    /// duplication, then per copy jitter, reordering and corruption. An event
    /// whose probability is 0 or 1 draws nothing.
    void send(std::span<const std::uint8_t> bytes, double now)
    {
        ++statistics_.sent;
        if (chance(conditions_.loss)) {
            ++statistics_.dropped;
            return;
        }
        const bool twice = chance(conditions_.duplicate);
        schedule(bytes, now);
        if (twice) {
            ++statistics_.duplicated;
            schedule(bytes, now);
        }
    }

    /// Calls deliver(std::span<const std::uint8_t>) for every copy due at or
    /// before `now`, in order of due time (ties: the order they were sent in,
    /// an original before its duplicate). The span is valid only during the
    /// call. deliver may send into this simulator; a copy it sends that is
    /// already due is delivered within this same call.
    template <class Deliver>
    void receive(double now, Deliver&& deliver)
    {
        while (!schedule_.empty() && schedule_.front().due <= now) {
            std::pop_heap(schedule_.begin(), schedule_.end(), later);
            const std::uint32_t slot = schedule_.back().slot;
            schedule_.pop_back();
            const slot_return returned{*this, slot}; // even if deliver throws
            ++statistics_.delivered;
            // A span, not a reference to the buffer: a send() from inside
            // deliver may grow slots_, which moves the vectors but not the
            // bytes they own.
            const std::vector<std::uint8_t>& buffer = slots_[slot];
            deliver(std::span<const std::uint8_t>(buffer.data(), buffer.size()));
        }
    }

    /// Copies sent but neither dropped nor yet delivered.
    std::size_t in_flight() const noexcept { return schedule_.size(); }

    const link_statistics& statistics() const noexcept { return statistics_; }

private:
    struct scheduled {
        double due;
        std::uint64_t order; // send order, breaking ties in due time
        std::uint32_t slot;
    };

    /// Puts a slot back in the pool when it goes out of scope. Never
    /// allocates, so never throws: free_ has room for every slot (take_slot).
    struct slot_return {
        link_simulator& self;
        std::uint32_t slot;
        ~slot_return() { self.free_.push_back(slot); }
    };

    // The heap's comparison: std::*_heap keep the greatest on top, so "greater"
    // must mean "due earlier".
    static bool later(const scheduled& a, const scheduled& b) noexcept
    {
        return a.due > b.due || (a.due == b.due && a.order > b.order);
    }

    static double clamped_probability(double p) noexcept { return p >= 0 ? std::min(p, 1.0) : 0.0; }
    static double clamped_delay(double d) noexcept { return d >= 0 ? d : 0.0; } // also NaN to 0

    static link_conditions clamped(link_conditions c) noexcept
    {
        c.latency = clamped_delay(c.latency);
        c.jitter = clamped_delay(c.jitter);
        c.reorder_delay = clamped_delay(c.reorder_delay);
        c.loss = clamped_probability(c.loss);
        c.duplicate = clamped_probability(c.duplicate);
        c.reorder = clamped_probability(c.reorder);
        c.corrupt = clamped_probability(c.corrupt);
        return c;
    }

    /// Uniform in [0, 1) from the top 53 bits: exact in a double, and the same
    /// on every platform.
    double unit() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

    /// Uniform in [0, n), n > 0. The modulo bias is below n / 2^64: far too
    /// small for a packet's bit count to show.
    std::uint64_t below(std::uint64_t n) { return engine_() % n; }

    bool chance(double p)
    {
        if (p <= 0)
            return false;
        if (p >= 1)
            return true;
        return unit() < p;
    }

    void schedule(std::span<const std::uint8_t> bytes, double now)
    {
        double due = now + conditions_.latency;
        if (conditions_.jitter > 0)
            due += detail::keep_rounded(conditions_.jitter * unit()); // no fused multiply-add: the same due time everywhere
        if (chance(conditions_.reorder)) {
            ++statistics_.reordered;
            due += conditions_.reorder_delay;
        }
        const std::uint32_t slot = take_slot();
        std::vector<std::uint8_t>& buffer = slots_[slot];
        buffer.assign(bytes.begin(), bytes.end()); // reuses the slot's capacity
        if (chance(conditions_.corrupt) && !buffer.empty()) {
            ++statistics_.corrupted;
            corrupt(buffer);
        }
        schedule_.push_back({due, next_order_++, slot});
        std::push_heap(schedule_.begin(), schedule_.end(), later);
    }

    /// Flips 1 to 3 distinct bits (distinct, so no flip undoes another and
    /// the copy always differs from what was sent). Every packet has at least
    /// 8 bits, so three distinct positions always exist.
    void corrupt(std::vector<std::uint8_t>& buffer)
    {
        const std::uint64_t bits = static_cast<std::uint64_t>(buffer.size()) * 8;
        const std::uint64_t flips = 1 + below(3);
        std::uint64_t chosen[3] = {};
        for (std::uint64_t i = 0; i < flips; ++i) {
            std::uint64_t bit = below(bits);
            while (std::find(chosen, chosen + i, bit) != chosen + i)
                bit = below(bits);
            chosen[i] = bit;
            buffer[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
        }
    }

    std::uint32_t take_slot()
    {
        if (free_.empty()) {
            // Room in free_ for every slot, so returning one never allocates
            // (and so never throws from slot_return). Grown geometrically, as
            // push_back would, not one slot at a time.
            if (free_.capacity() < slots_.size() + 1)
                free_.reserve(std::max<std::size_t>(2 * free_.capacity(), 16));
            slots_.emplace_back();
            return static_cast<std::uint32_t>(slots_.size() - 1);
        }
        const std::uint32_t slot = free_.back();
        free_.pop_back();
        return slot;
    }

    link_conditions conditions_;
    std::mt19937_64 engine_;
    link_statistics statistics_;
    std::vector<std::vector<std::uint8_t>> slots_; // payloads, by slot
    std::vector<std::uint32_t> free_;               // slots not in flight
    std::vector<scheduled> schedule_;               // heap ordered by `later`
    std::uint64_t next_order_ = 0;
};

} // namespace bitrep
