import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The process's signals as one asynchronous sequence: the one signal mechanism of a process.
///
/// ``watch(_:)`` takes each signal from its default action (it is ignored instead) and delivers it
/// through a Dispatch signal source, so what it does runs as ordinary Swift code, never inside a
/// signal handler. Every delivery goes to ``deliver(_:)``, which tests call directly (a
/// ``Delivery/manual`` instance watches nothing). One consumer iterates ``received``; signals that
/// come before it does are kept, in order.
///
/// ```swift
/// let signals = ProcessSignals()
/// signals.watch([SIGTERM, SIGINT, SIGHUP])
/// for await signal in signals.received { … }
/// ```
///
/// A process makes one: a second Dispatch source or `signal(_:_:)` call for the same signal would
/// take the first one's deliveries, and one of the two would never see them.
public final class ProcessSignals: Sendable {
    /// Where signals come from.
    public enum Delivery: Sendable {
        /// The process's own signals, once ``ProcessSignals/watch(_:)`` is called.
        case process
        /// Only ``ProcessSignals/deliver(_:)`` (tests): ``ProcessSignals/watch(_:)`` changes nothing.
        case manual
    }

    /// Holds a Dispatch signal source only to keep it alive and cancel it.
    ///
    /// Safe without compiler checking: libdispatch objects are thread-safe (their API may be called
    /// from any thread), the reference is immutable, and nothing but retaining and cancelling it
    /// happens here.
    private struct RetainedSource: @unchecked Sendable {
        let source: any DispatchSourceSignal
    }

    /// The signals delivered, in order, for one consumer.
    public let received: AsyncStream<Int32>
    private let continuation: AsyncStream<Int32>.Continuation
    private let delivery: Delivery
    private let sources = Mutex<[Int32: RetainedSource]>([:])
    private let queue = DispatchQueue(label: "ProcessSupport.signals")

    /// Signals from `delivery`: the process's own by default.
    public init(_ delivery: Delivery = .process) {
        self.delivery = delivery
        (received, continuation) = AsyncStream<Int32>.makeStream()
    }

    /// Watches `numbers` (with ``Delivery/process``): each is ignored by the kernel's default action
    /// and delivered to ``received`` instead. A number already watched is left as it is.
    public func watch(_ numbers: [Int32]) {
        guard delivery == .process else { return }
        sources.withLock { sources in
            for number in numbers where sources[number] == nil {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { [weak self] in self?.deliver(number) }
                source.resume()
                sources[number] = RetainedSource(source: source)
            }
        }
    }

    /// Delivers one signal to ``received``.
    public func deliver(_ number: Int32) {
        continuation.yield(number)
    }

    /// Stops watching (the signals stay ignored: a process that is ending is not killed by a late
    /// one) and ends ``received``.
    public func finish() {
        sources.withLock { sources in
            for retained in sources.values { retained.source.cancel() }
            sources = [:]
        }
        continuation.finish()
    }
}
