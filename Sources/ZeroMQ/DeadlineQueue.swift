/// Deadlines, soonest first: a binary min-heap of entries and when they come due.
///
/// A socket loop keeps its timers in one; servers and clients keep one for all their open streams
/// and look at it on a periodic tick, which costs far less than a timer per request. Entries that
/// ended early stay until they come due (or until ``removeAll(where:)`` prunes them); the owner
/// checks on popping that the entry is still wanted.
///
/// Inlinable, so that a queue used from another module is specialised there for its entry type
/// rather than run as generic code (a push or a count per call is on every request's path).
@frozen
package struct DeadlineQueue<Entry> {
    /// An empty queue.
    @inlinable
    package init() {}

    @usableFromInline
    var heap: [(due: ContinuousClock.Instant, entry: Entry)] = []

    /// The number of deadlines queued.
    @inlinable
    package var count: Int { heap.count }

    /// When the soonest deadline comes due.
    @inlinable
    package var nextDue: ContinuousClock.Instant? { heap.first?.due }

    /// Queues `entry`, due at `due`.
    @inlinable
    package mutating func push(_ entry: Entry, due: ContinuousClock.Instant) {
        heap.append((due, entry))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].due < heap[parent].due else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the soonest entry if it is due at `now`.
    @inlinable
    package mutating func popDue(now: ContinuousClock.Instant) -> Entry? {
        guard let first = heap.first, first.due <= now else { return nil }
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].due < heap[smallest].due { smallest = left }
            if right < heap.count, heap[right].due < heap[smallest].due { smallest = right }
            if smallest == parent { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return first.entry
    }

    /// Removes the entries `shouldRemove` selects (a sorted array is a valid heap).
    @inlinable
    package mutating func removeAll(where shouldRemove: (Entry) -> Bool) {
        heap.removeAll { shouldRemove($0.entry) }
        heap.sort { $0.due < $1.due }
    }
}

extension DeadlineQueue: Sendable where Entry: Sendable {}
