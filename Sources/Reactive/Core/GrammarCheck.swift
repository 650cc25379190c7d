public import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Enforces the event grammar `next* (error | completed)?` where foreign code hands events to the
/// module (`Observable.create`, subjects, `subscribe(onNext:…)`, binders).
///
/// In every build, events after a terminal event are dropped there. In debug builds the check also
/// catches two programming errors and reports them to ``GrammarCheck/violationHandler``:
/// - *concurrent delivery*: two threads inside `on(_:)` of the same observer at once (reentrant
///   delivery on one thread, as when a subscriber feeds its own subject, is allowed);
/// - *post-terminal delivery*: an event after `.completed`/`.error` at a boundary where the grammar
///   is the producer's duty (`subscribe(onNext:…)` and binders). `Observable.create` and subjects
///   accept and ignore late events, as in RxSwift.
///
/// The default handler stops the process with the message, as RxSwift does for concurrent
/// delivery; tests install their own with ``GrammarCheck/withViolationHandler(_:_:)``.
///
/// Instances are internal: each boundary object holds one. The public surface is the handler.
public struct GrammarCheck: ~Copyable, Sendable {
    /// What a post-terminal event at this boundary is.
    @usableFromInline
    enum PostTerminal {
        /// A violation: report it (debug builds) and drop the event.
        case report
        /// Legal and ignored (create, subjects).
        case drop
    }

    /// What `begin` decided about one event.
    @usableFromInline
    enum Entry {
        /// Drop the event; do not call `end`.
        case drop
        /// Deliver it, this delivery owns the observer; call `end`.
        case owner
        /// Deliver it, nested in a delivery on the same thread (or after a reported race); call `end`.
        case nested
    }

    @usableFromInline let stopped = Atomic<Bool>(false)
    #if DEBUG
        @usableFromInline let owner = Atomic<UInt>(0)
    #endif

    @inlinable init() {}

    /// Whether a terminal event has passed.
    @inlinable var isStopped: Bool { stopped.load(ordering: .relaxed) }

    /// Checks one incoming event.
    @inlinable
    func begin<Element>(_ event: Event<Element>, postTerminal: PostTerminal) -> Entry {
        let late: Bool
        if case .next = event {
            late = stopped.load(ordering: .acquiring)
        } else {
            late = stopped.exchange(true, ordering: .acquiringAndReleasing)
        }
        if late {
            #if DEBUG
                if postTerminal == .report {
                    Self.report("event delivered after a terminal event: \(event)")
                }
            #endif
            return .drop
        }
        #if DEBUG
            return acquire()
        #else
            return .owner
        #endif
    }

    /// Ends a delivery that `begin` let through.
    @inlinable
    func end(_ entry: Entry) {
        #if DEBUG
            if case .owner = entry { owner.store(0, ordering: .releasing) }
        #endif
    }

    #if DEBUG
        @usableFromInline
        func acquire() -> Entry {
            let me = Self.currentThread
            let (exchanged, current) = owner.compareExchange(
                expected: 0, desired: me, ordering: .acquiringAndReleasing)
            if exchanged { return .owner }
            if current != me {
                Self.report("concurrent delivery: two threads are inside on(_:) of the same observer")
            }
            return .nested
        }

        static var currentThread: UInt { UInt(bitPattern: Int(bitPattern: pthread_self())) }
    #endif

    // MARK: Reporting

    /// Receives grammar violations in debug builds.
    public typealias ViolationHandler = @Sendable (String) -> Void

    private static let handler = Mutex<ViolationHandler>({ message in
        fatalError("Reactive grammar violation: \(message)")
    })

    @usableFromInline
    static func report(_ message: String) {
        let handler = Self.handler.withLock { $0 }
        handler(message)
    }

    /// The handler that receives violations.
    public static var violationHandler: ViolationHandler {
        get { handler.withLock { $0 } }
        set { handler.withLock { $0 = newValue } }
    }

    /// Runs `body` with `handler` installed, then restores the previous handler.
    public static func withViolationHandler<R>(
        _ handler: @escaping ViolationHandler, _ body: () throws -> R
    ) rethrows -> R {
        let previous = Self.handler.withLock { current in
            defer { current = handler }
            return current
        }
        defer { Self.handler.withLock { $0 = previous } }
        return try body()
    }
}
