internal import CMalloc

/// Gives the memory of a burst of closed channels back to the system.
///
/// glibc's malloc keeps freed chunks for reuse, in as many arenas as threads have allocated from,
/// and returns only the top of each heap by itself: after thousands of channels close, the
/// process keeps their pages resident. Every `interval` the host asks how many bytes malloc holds
/// in free chunks; once that has grown by `threshold` since the last trim (or since its lowest
/// point after it), it calls `malloc_trim(0)`, which releases the whole free pages of every arena.
/// A steady process never trims; one check costs a walk of malloc's free lists.
struct HeapTrimming: Sendable {
    /// How often the free bytes are read.
    var interval: Duration = .seconds(1)
    /// How much more must be free than at the last trim (or the lowest point since) to trim again.
    var threshold = 8 << 20

    /// What one check found and did.
    struct Check: Sendable, Equatable {
        /// The free bytes to compare the next check with.
        var baseline: Int
        /// Whether this check trims.
        var trims: Bool
    }

    /// The decision for `free` bytes held free now, against `baseline` (nil before the first check).
    func check(free: Int, baseline: Int?) -> Check {
        guard let baseline else { return Check(baseline: free, trims: false) }
        if free >= baseline + threshold { return Check(baseline: free, trims: true) }
        return Check(baseline: min(baseline, free), trims: false)
    }

    /// Checks every `interval` until the task is cancelled.
    func run() async {
        guard cmalloc_available() != 0 else { return }
        var baseline: Int?
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            let decision = check(free: Int(cmalloc_free_bytes()), baseline: baseline)
            if decision.trims {
                _ = cmalloc_trim()
                // What is free after the trim is the new baseline (the pages are gone, the chunks
                // stay in malloc's lists).
                baseline = Int(cmalloc_free_bytes())
            } else {
                baseline = decision.baseline
            }
        }
    }
}
