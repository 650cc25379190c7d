/// The loop's timers: one-shot and periodic, soonest first, cancelled lazily (a cancelled timer's
/// heap entry is skipped when it comes up).
struct TimerQueue {
    private struct Timer {
        let interval: Duration?
        let work: @Sendable () -> Void
    }

    private var heap = DeadlineQueue<Int>()
    private var timers: [Int: Timer] = [:]

    /// The number of live timers.
    var count: Int { timers.count }

    /// The heap's entries, cancelled ones included.
    var entries: Int { heap.count }

    /// When the soonest entry comes due (possibly a cancelled timer's: the loop then wakes for
    /// nothing once).
    var nextDue: ContinuousClock.Instant? { heap.nextDue }

    func hasDue(now: ContinuousClock.Instant) -> Bool {
        guard let due = heap.nextDue else { return false }
        return due <= now
    }

    mutating func apply(_ change: SocketLoop.TimerChange) {
        switch change {
        case .add(let id, let due, let interval, let work):
            add(id: id, due: due, interval: interval, work: work)
        case .cancel(let id):
            cancel(id)
        }
    }

    mutating func add(
        id: Int, due: ContinuousClock.Instant, interval: Duration?, work: @escaping @Sendable () -> Void
    ) {
        timers[id] = Timer(interval: interval, work: work)
        heap.push(id, due: due)
    }

    mutating func cancel(_ id: Int) {
        guard timers.removeValue(forKey: id) != nil else { return }
        // Entries of cancelled timers wait in the heap until they come due; prune them when they
        // outnumber the live ones.
        if heap.count > 64 && heap.count > 4 * timers.count {
            let live = timers
            heap.removeAll { live[$0] == nil }
        }
    }

    /// Runs the timers due at `now`, soonest first; a periodic one comes due again one interval
    /// later (or one interval from `now`, when it ran late).
    mutating func runDue(now: ContinuousClock.Instant) {
        var due: [(Int, Timer, ContinuousClock.Instant)] = []
        while let next = heap.nextDue, next <= now, let id = heap.popDue(now: now) {
            guard let timer = timers[id] else { continue }
            due.append((id, timer, next))
        }
        for (id, timer, when) in due {
            if let interval = timer.interval {
                var next = when + interval
                if next <= now { next = now + interval }
                heap.push(id, due: next)
            } else {
                timers[id] = nil
            }
        }
        for (_, timer, _) in due { timer.work() }
    }
}
