public import Dispatch
public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs work one item at a time, in FIFO order, on one dedicated thread that it owns.
///
/// - `schedule` queues work behind everything already queued.
/// - `scheduleRelative` keeps delayed work in a timer queue ordered by due time and runs it no
///   earlier than due; work that became due runs in order of due time with the queued work.
/// - `schedulePeriodic` is native: one timer entry re-armed after each run, at fixed rate (ticks
///   missed while the thread was busy are coalesced into one run, like a Dispatch timer).
/// - Work disposed before it started never runs, and its closure is released at once.
///
/// The thread sleeps on a semaphore with a deadline (the earliest timer) when it has nothing to do.
/// `dispose()` (or the last reference going away) stops it deterministically: pending work is
/// cancelled, and the call returns only after the thread has left its run loop, so no scheduled
/// work runs afterwards. Called from a work item on the scheduler's own thread, `dispose()` cannot
/// wait for itself: it cancels what is pending and the thread stops when that item returns.
///
/// `now` is the wall clock; due times are measured on the monotonic clock, so changing the system
/// time does not move timers.
public final class SerialScheduler: SchedulerType, Disposable {
    private let core: SerialSchedulerCore

    /// Starts a scheduler whose thread is named `name`.
    public init(name: String) {
        core = SerialSchedulerCore()
        let core = self.core
        let thread = Thread { core.run() }
        thread.name = name
        thread.start()
    }

    deinit {
        core.stop()
    }

    /// The wall-clock time.
    public var now: RxTime { Date() }

    public func schedule<State: Sendable>(
        _ state: State, action: @escaping @Sendable (State) -> any Disposable
    ) -> any Disposable {
        let work = ScheduledAction { action(state) }
        core.enqueue(work, due: nil)
        return work
    }

    public func scheduleRelative<State: Sendable>(
        _ state: State, dueTime: RxTimeInterval,
        action: @escaping @Sendable (State) -> any Disposable
    ) -> any Disposable {
        guard dueTime != .never else { return Disposables.create() }
        let work = ScheduledAction { action(state) }
        core.enqueue(work, due: monotonicDeadline(after: dueTime))
        return work
    }

    public func schedulePeriodic<State: Sendable>(
        _ state: State, startAfter: RxTimeInterval, period: RxTimeInterval,
        action: @escaping @Sendable (State) -> State
    ) -> any Disposable {
        guard startAfter != .never else { return Disposables.create() }
        let periodNanoseconds = UInt64(clamping: max(1, period.nanoseconds))
        let work = PeriodicAction(state: state, period: periodNanoseconds, action: action)
        core.enqueue(work, due: monotonicDeadline(after: startAfter))
        return work
    }

    /// Stops the thread: cancels pending work and waits until the thread has finished the item it
    /// is running (unless called from that item). Later scheduling is ignored. Idempotent.
    public func dispose() {
        core.stop()
    }
}

// MARK: - Work items

/// Work a ``SerialScheduler`` runs: one-shot or periodic.
protocol SerialWork: Cancelable {
    /// Runs the work at `now`; returns when to run it again, or nil when it is done.
    func run(now: UInt64, due: UInt64) -> UInt64?
}

extension ScheduledAction: SerialWork {
    func run(now: UInt64, due: UInt64) -> UInt64? {
        invoke()
        return nil
    }
}

/// A periodic action threading its state from one run to the next.
final class PeriodicAction<State: Sendable>: SerialWork {
    private struct Slot {
        var state: State
        let action: @Sendable (State) -> State
    }

    /// The state and action while armed; taken out during a run, nil once disposed.
    private let slot: Mutex<Slot?>
    private let disposed = Atomic<Bool>(false)
    private let period: UInt64

    init(state: State, period: UInt64, action: @escaping @Sendable (State) -> State) {
        slot = Mutex(Slot(state: state, action: action))
        self.period = period
    }

    var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    func run(now: UInt64, due: UInt64) -> UInt64? {
        let taken = slot.withLock { slot in
            defer { slot = nil }
            return slot
        }
        guard var armed = taken else { return nil }
        armed.state = armed.action(armed.state)
        let keep = slot.withLock { slot in
            guard !disposed.load(ordering: .acquiring) else { return false }
            slot = armed
            return true
        }
        guard keep else { return nil }
        // Fixed rate: the first tick after `now`, so runs missed while the thread was busy
        // collapse into this one (`due <= now` here).
        let ticks = (now - due) / period + 1
        let (offset, offsetOverflow) = ticks.multipliedReportingOverflow(by: period)
        let (next, overflow) = due.addingReportingOverflow(offset)
        return offsetOverflow || overflow ? nil : next
    }

    func dispose() {
        disposed.store(true, ordering: .releasing)
        slot.withLock { $0 = nil }
    }
}

// MARK: - The thread's side

/// The state shared by a ``SerialScheduler`` and its thread. The thread holds only this, never the
/// scheduler, so the scheduler's `deinit` can stop it.
final class SerialSchedulerCore: Sendable {
    private let state = Mutex(SerialQueues())
    /// Wakes the thread when it sleeps; signalled only while it sleeps (or when stopping), so its
    /// count never exceeds one pending wake-up.
    private let wakeUp = DispatchSemaphore(value: 0)
    /// Entered while the thread runs; waiting on it joins the thread.
    private let running = DispatchGroup()
    /// The thread's identity, set when it starts.
    private let threadID = Atomic<UInt>(0)

    init() {
        running.enter()
    }

    /// Queues `work` to run now (`due == nil`) or at the monotonic time `due`. After `stop`, disposes
    /// the work instead.
    func enqueue(_ work: any SerialWork, due: UInt64?) {
        let now = monotonicNow()
        let outcome: (accepted: Bool, wake: Bool) = state.withLock { queues in
            guard !queues.isStopped else { return (false, false) }
            if let due {
                queues.pushTimer(work, due: max(due, now))
            } else {
                queues.pushReady(work, at: now)
            }
            defer { queues.isSleeping = false }
            return (true, queues.isSleeping)
        }
        if !outcome.accepted { work.dispose() }
        if outcome.wake { wakeUp.signal() }
    }

    /// The thread's run loop: runs work until stopped.
    func run() {
        threadID.store(currentThreadID(), ordering: .releasing)
        defer { running.leave() }
        while let entry = nextEntry() {
            guard let again = entry.work.run(now: monotonicNow(), due: entry.due) else { continue }
            let accepted = state.withLock { queues in
                guard !queues.isStopped else { return false }
                queues.pushTimer(entry.work, due: again)
                return true
            }
            if !accepted { entry.work.dispose() }
        }
    }

    /// Waits for the next runnable entry; nil once stopped.
    private func nextEntry() -> SerialQueues.Entry? {
        while true {
            let now = monotonicNow()
            let step: Step = state.withLock { queues in
                queues.isSleeping = false
                if queues.isStopped { return .stop }
                if let entry = queues.popRunnable(now: now) { return .run(entry) }
                queues.isSleeping = true
                return .sleep(until: queues.nextDue)
            }
            switch step {
            case .stop:
                return nil
            case .run(let entry):
                return entry
            case .sleep(let deadline?) where deadline < UInt64(Int64.max):
                _ = wakeUp.wait(timeout: DispatchTime(uptimeNanoseconds: deadline))
            case .sleep:
                wakeUp.wait()
            }
        }
    }

    private enum Step {
        case stop
        case run(SerialQueues.Entry)
        case sleep(until: UInt64?)
    }

    /// Stops the thread, cancels pending work, then waits for the thread to finish unless called
    /// on it.
    func stop() {
        let pending: [any SerialWork] = state.withLock { queues in
            guard !queues.isStopped else { return [] }
            queues.isStopped = true
            return queues.removeAll()
        }
        wakeUp.signal()
        for work in pending { work.dispose() }
        guard threadID.load(ordering: .acquiring) != currentThreadID() else { return }
        running.wait()
    }
}

/// The ready queue and the timer heap of one serial scheduler, with the thread's flags.
struct SerialQueues {
    /// A queued piece of work with its due time and a sequence number that breaks ties in FIFO
    /// order.
    struct Entry {
        let due: UInt64
        let sequence: UInt64
        let work: any SerialWork

        func runsBefore(_ other: Entry) -> Bool {
            due != other.due ? due < other.due : sequence < other.sequence
        }
    }

    private var ready: [Entry] = []
    private var readyHead = 0
    private var timers: [Entry] = []
    private var nextSequence: UInt64 = 0
    /// Heap size at which disposed timers are swept out; doubles with the live size.
    private var sweepThreshold = 64

    /// The thread is (about to be) blocked waiting for work.
    var isSleeping = false
    /// `stop` was called; nothing runs or queues any more.
    var isStopped = false

    /// The due time of the earliest timer.
    var nextDue: UInt64? { timers.first?.due }

    mutating func pushReady(_ work: any SerialWork, at now: UInt64) {
        ready.append(Entry(due: now, sequence: takeSequence(), work: work))
    }

    mutating func pushTimer(_ work: any SerialWork, due: UInt64) {
        if timers.count >= sweepThreshold {
            timers.removeAll { $0.work.isDisposed }
            heapify()
            sweepThreshold = max(64, timers.count * 2)
        }
        timers.append(Entry(due: due, sequence: takeSequence(), work: work))
        siftUp(timers.count - 1)
    }

    /// The next entry to run at `now`: the earlier of the ready queue's head and a due timer.
    /// Disposed entries are dropped on the way.
    mutating func popRunnable(now: UInt64) -> Entry? {
        while true {
            let head = readyHead < ready.count ? ready[readyHead] : nil
            let timer = timers.first.flatMap { $0.due <= now ? $0 : nil }
            let entry: Entry
            if let timer, head.map({ timer.runsBefore($0) }) ?? true {
                entry = popTimer()
            } else if let head {
                entry = head
                popReady()
            } else {
                return nil
            }
            if !entry.work.isDisposed { return entry }
        }
    }

    /// Empties both queues and returns their work.
    mutating func removeAll() -> [any SerialWork] {
        let all = ready[readyHead...].map(\.work) + timers.map(\.work)
        ready = []
        readyHead = 0
        timers = []
        return all
    }

    private mutating func takeSequence() -> UInt64 {
        defer { nextSequence &+= 1 }
        return nextSequence
    }

    private mutating func popReady() {
        readyHead += 1
        if readyHead == ready.count {
            ready.removeAll(keepingCapacity: true)
            readyHead = 0
        } else if readyHead >= 1024, readyHead * 2 >= ready.count {
            ready.removeFirst(readyHead)
            readyHead = 0
        }
    }

    private mutating func popTimer() -> Entry {
        timers.swapAt(0, timers.count - 1)
        let top = timers.removeLast()
        siftDown(0)
        return top
    }

    private mutating func heapify() {
        for index in stride(from: timers.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard timers[child].runsBefore(timers[parent]) else { return }
            timers.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < timers.count, timers[left].runsBefore(timers[first]) { first = left }
            if right < timers.count, timers[right].runsBefore(timers[first]) { first = right }
            if first == parent { return }
            timers.swapAt(parent, first)
            parent = first
        }
    }
}

// MARK: - Clocks

/// The monotonic clock in nanoseconds (the base of `DispatchTime`).
func monotonicNow() -> UInt64 {
    DispatchTime.now().uptimeNanoseconds
}

/// The monotonic time `interval` from now, saturating; negative intervals mean now.
func monotonicDeadline(after interval: RxTimeInterval) -> UInt64 {
    let delay = UInt64(clamping: max(0, interval.nanoseconds))
    let (deadline, overflow) = monotonicNow().addingReportingOverflow(delay)
    return overflow ? .max : deadline
}

/// An identity for the calling thread.
private func currentThreadID() -> UInt {
    UInt(bitPattern: Int(bitPattern: pthread_self()))
}
