// Whether a pool's workers make the work faster right now (issue 29, under load).
//
// On an idle machine a job split over T threads takes about 1/T of its one-thread time. When
// another process keeps a core busy, three threads want two cores: the scheduler shares one core
// in slices of milliseconds, a worker preempted in the middle of its range holds up the join for
// the rest of a slice, and the caller itself is preempted between jobs. Measured (Intel Xeon,
// MiniLM-L6 at 128 tokens, one core busy): the pool's jobs still ran ~1.1x faster than the caller
// alone would have run them, yet a whole forward pass took 1.04x the one-thread time, because the
// time between jobs doubled. So the judge compares what counts, throughput: the work done (the
// jobs' multiply-adds, which the callers pass in) per second of wall time, gaps between jobs
// included, over windows run with the threads and windows run alone.
//
// Idle, nothing is ever tried: an alone window is explored only when the parallel jobs look
// suspicious, i.e. took more than kSuspect of the time the caller alone would have needed (its
// own pace times the job's tasks; about 0.5 on an idle 2-core machine). Then one window alone
// decides; if alone was faster, the pool stays alone for a stretch (the workers sleep and leave
// their cores to whoever needs them), then runs one window with the threads to compare again,
// each stretch twice as long as the last while alone keeps winning. If the threads win, the
// pool goes back to them and explores again only after a pause, also doubling.
//
// Pure bookkeeping on times the pool passes in (tests drive it with made-up clocks).
#pragma once

#include <cstdint>

namespace simdformer::runtime {

class WorkerJudge {
public:
    // A window: at least this much wall time and this many jobs.
    static constexpr int64_t kWindowNs = 16'000'000;
    static constexpr int64_t kWindowJobs = 16;
    // A pause longer than this between two jobs (the page idle between calls) starts a new window:
    // it is nobody's throughput.
    static constexpr int64_t kIdleGapNs = 20'000'000;
    // Parallel jobs at more than this fraction of their one-thread estimate make alone worth a try.
    static constexpr double kSuspect = 0.8;
    // Alone must be this much faster to be chosen (windows differ a little in their mix of work).
    static constexpr double kAloneMargin = 1.05;
    // Jobs not counted when the threads are tried again: the workers wake from sleep first (up to
    // a millisecond on a busy VM), which a pool that keeps its threads does not pay.
    static constexpr int kWarmUpJobs = 4;
    // The first stretch alone, and the longest (one window with the threads per stretch).
    static constexpr int64_t kFirstStretchNs = 64'000'000;
    static constexpr int64_t kMaxStretchNs = 1'000'000'000;

    // True when the next job is to run on the caller alone.
    bool alone() const { return phase_ == Phase::kTryAlone || phase_ == Phase::kAlone; }

    // A job ran from start_ns to end_ns (the pool's monotonic clock) and did `work` multiply-adds
    // (0: unknown, the job is not counted). For a parallel job, one_thread_estimate_ns is what the
    // caller alone would have taken at its pace in this job.
    void job(int64_t start_ns, int64_t end_ns, double work, int64_t one_thread_estimate_ns) {
        if (!(work > 0)) return;
        if (warm_up_jobs_ > 0) {
            --warm_up_jobs_;
            return;
        }
        if (jobs_ == 0 || start_ns - window_last_end_ > kIdleGapNs) {
            jobs_ = 0;
            window_start_ = start_ns;
            window_work_ = 0;
            job_ns_ = estimate_ns_ = 0;
        }
        ++jobs_;
        window_last_end_ = end_ns;
        window_work_ += work;
        job_ns_ += end_ns - start_ns;
        estimate_ns_ += one_thread_estimate_ns;
        const int64_t wall = end_ns - window_start_;
        if (jobs_ < kWindowJobs || wall < kWindowNs) return;
        jobs_ = 0;
        window_done(window_work_ / double(wall), end_ns);
    }

private:
    enum class Phase {
        kParallel,  // the threads; explore alone when their jobs look suspicious
        kTryAlone,  // one window alone, to compare with the last parallel window
        kAlone,     // alone until stretch_end_
        kRecheck,   // one window with the threads, to compare with the last alone window
    };

    void window_done(double rate, int64_t now) {
        switch (phase_) {
            case Phase::kParallel:
                parallel_rate_ = rate;
                if (now >= explore_after_ && double(job_ns_) > kSuspect * double(estimate_ns_)) phase_ = Phase::kTryAlone;
                return;
            case Phase::kTryAlone:
                alone_rate_ = rate;
                if (alone_rate_ > kAloneMargin * parallel_rate_) {
                    stay_alone(now, kFirstStretchNs);
                } else {
                    phase_ = Phase::kParallel;
                    explore_pause_ = explore_pause_ ? twice(explore_pause_) : kFirstStretchNs;
                    explore_after_ = now + explore_pause_;
                }
                return;
            case Phase::kAlone:
                alone_rate_ = rate;
                if (now >= stretch_end_) {
                    phase_ = Phase::kRecheck;
                    warm_up_jobs_ = kWarmUpJobs;
                }
                return;
            case Phase::kRecheck:
                parallel_rate_ = rate;
                if (alone_rate_ > kAloneMargin * parallel_rate_) {
                    stay_alone(now, twice(stretch_));
                } else {
                    phase_ = Phase::kParallel;  // the machine is free again
                    explore_pause_ = 0;
                    explore_after_ = now;
                }
                return;
        }
    }

    void stay_alone(int64_t now, int64_t stretch) {
        phase_ = Phase::kAlone;
        stretch_ = stretch;
        stretch_end_ = now + stretch;
    }
    static int64_t twice(int64_t ns) { return ns < kMaxStretchNs / 2 ? ns * 2 : kMaxStretchNs; }

    Phase phase_ = Phase::kParallel;
    double parallel_rate_ = 0, alone_rate_ = 0;  // work per ns of the last window of each kind
    int64_t stretch_ = kFirstStretchNs, stretch_end_ = 0;
    int64_t explore_pause_ = 0, explore_after_ = 0;
    int warm_up_jobs_ = 0;
    // The current window.
    int64_t jobs_ = 0, window_start_ = 0, window_last_end_ = 0, job_ns_ = 0, estimate_ns_ = 0;
    double window_work_ = 0;
};

}  // namespace simdformer::runtime
