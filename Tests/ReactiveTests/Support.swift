import Dispatch
import Foundation
import Reactive
import Synchronization
import Testing

/// The error marble tests send and expect.
struct TestError: Error, Equatable, CustomStringConvertible {
    var id = 0
    var description: String { "TestError(\(id))" }
}

let testError = TestError()
let testError1 = TestError(id: 1)
let testError2 = TestError(id: 2)

/// A value shared with `@Sendable` closures in tests (counters, recorded values).
final class Shared<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) { storage = Mutex(value) }

    var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    func mutate<R: Sendable>(_ body: @Sendable (inout Value) -> R) -> R {
        storage.withLock { body(&$0) }
    }
}

extension Shared where Value == Int {
    /// Adds one and returns the new value.
    @discardableResult
    func increment() -> Int {
        mutate { value in
            value += 1
            return value
        }
    }
}

extension Shared {
    /// Appends to an array value.
    func append<Element: Sendable>(_ element: Element) where Value == [Element] {
        mutate { $0.append(element) }
    }
}

// MARK: Real threads

/// How long a test waits for an event on a real thread before failing.
let patience: DispatchTimeInterval = .seconds(10)

/// The calling thread's identity.
func currentThreadID() -> UInt {
    UInt(bitPattern: Int(bitPattern: pthread_self()))
}

/// Waits for a signal, up to `patience`.
func arrived(_ semaphore: DispatchSemaphore) -> Bool {
    semaphore.wait(timeout: .now() + patience) == .success
}

/// Waits for a signal, up to `patience`, on a Dispatch thread: never blocks the cooperative pool.
func arrived(_ semaphore: DispatchSemaphore) async -> Bool {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: arrived(semaphore)) }
    }
}

/// A periodic action on a real `scheduler` threads its state (0, 1, 2, 3) and stops for good when
/// disposed from inside its own run: no fifth tick arrives several periods later.
func checkPeriodicWorkThreadsItsStateUntilDisposed(on scheduler: any SchedulerType) {
    let stored = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    let seen = Shared<[Int]>([])
    let periodic = Shared<(any Disposable)?>(nil)
    // Hold the scheduler (a serial one entirely) until the periodic disposable is stored, so the
    // action can dispose it.
    scheduler.schedule { _ = arrived(stored) }
    let tick: @Sendable (Int) -> Int = { state in
        seen.append(state)
        if state == 3 {
            periodic.value?.dispose()
            // Several periods later: a fifth tick would have run by then.
            _ = scheduler.scheduleRelative((), dueTime: .milliseconds(20)) { _ in
                done.signal()
                return Disposables.create()
            }
        }
        return state + 1
    }
    periodic.value = scheduler.schedulePeriodic(
        0, startAfter: .milliseconds(2), period: .milliseconds(2), action: tick)
    stored.signal()
    #expect(arrived(done))
    #expect(seen.value == [0, 1, 2, 3])
}
