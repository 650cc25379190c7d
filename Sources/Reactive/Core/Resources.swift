public import Synchronization

/// Counts live subscriptions (operator sinks and subject subscriptions) in debug builds, like
/// RxSwift's `Resources.total`: a test checks the count returns to where it started once
/// everything is disposed, which catches leaks and retain cycles.
///
/// Tests run in parallel, so besides the process-wide ``total`` there are scopes: everything
/// subscribed inside `Resources.measure { … }` (on that task, synchronously, as marble tests do) is
/// counted in that scope alone.
///
/// Release builds do not count (every figure stays 0), so the hot path pays nothing.
public enum Resources {
    @usableFromInline static let live = Atomic<Int>(0)

    /// The number of live subscriptions in the whole process (debug builds only).
    public static var total: Int { live.load(ordering: .acquiring) }

    /// Whether this build counts.
    public static var isTracking: Bool {
        #if DEBUG
            return true
        #else
            return false
        #endif
    }

    /// A counter for the subscriptions made inside one `measure` call.
    public final class Scope: Sendable {
        @usableFromInline let live = Atomic<Int>(0)

        init() {}

        /// The number of live subscriptions created in this scope.
        public var total: Int { live.load(ordering: .acquiring) }
    }

    @TaskLocal
    @usableFromInline
    static var currentScope: Scope?

    /// Runs `body` in a fresh scope and returns it with `body`'s result; the scope's `total` tells
    /// how many subscriptions created inside `body` are still alive.
    public static func measure<R>(_ body: (Scope) throws -> R) rethrows -> R {
        let scope = Scope()
        return try $currentScope.withValue(scope) { try body(scope) }
    }

    /// The async form of ``measure(_:)``: subscriptions made on this task (and its child tasks)
    /// inside `body` are counted in the scope.
    public static func measure<R>(
        isolation: isolated (any Actor)? = #isolation, _ body: (Scope) async throws -> R
    ) async rethrows -> R {
        let scope = Scope()
        return try await $currentScope.withValue(scope) { try await body(scope) }
    }
}

extension Resources {
    /// Counts a subscription that ends explicitly (see `ClosureSubscription`); returns the scope to
    /// pass to `ended`.
    @inlinable
    static func began() -> Scope? {
        #if DEBUG
            let scope = currentScope
            live.add(1, ordering: .relaxed)
            scope?.live.add(1, ordering: .relaxed)
            return scope
        #else
            return nil
        #endif
    }

    /// Ends a subscription counted by `began`. Call exactly once.
    @inlinable
    static func ended(_ scope: Scope?) {
        #if DEBUG
            live.subtract(1, ordering: .relaxed)
            scope?.live.subtract(1, ordering: .relaxed)
        #endif
    }
}

/// Held by every sink and subject subscription: counts it while it lives (debug builds only).
@usableFromInline
struct ResourceToken: ~Copyable, Sendable {
    #if DEBUG
        @usableFromInline let scope: Resources.Scope?
    #endif

    @inlinable
    init() {
        #if DEBUG
            scope = Resources.currentScope
            Resources.live.add(1, ordering: .relaxed)
            scope?.live.add(1, ordering: .relaxed)
        #endif
    }

    @inlinable
    deinit {
        #if DEBUG
            Resources.live.subtract(1, ordering: .relaxed)
            scope?.live.subtract(1, ordering: .relaxed)
        #endif
    }
}
