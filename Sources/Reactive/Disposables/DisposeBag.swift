import Synchronization

/// Collects subscriptions and disposes them all when the bag is deinitialised (or emptied with
/// `dispose()`), tying their lifetime to the object that owns the bag.
///
/// Entries that are already disposed (for example subscriptions whose sequence has finished) are
/// dropped from the bag as it grows, so a long-lived bag does not accumulate dead entries.
public final class DisposeBag: Sendable {
    private struct State {
        var entries: [any Disposable] = []
        var isDisposed = false
        /// Size of `entries` after the last sweep; the next sweep runs when it doubles.
        var sweepThreshold = 16
    }
    private let state = Mutex(State())

    public init() {}

    /// Adds a disposable; if the bag was already disposed, disposes it at once.
    public func insert(_ disposable: any Disposable) {
        let accepted = state.withLock { state -> Bool in
            guard !state.isDisposed else { return false }
            state.entries.append(disposable)
            if state.entries.count >= state.sweepThreshold {
                state.entries.removeAll { $0.isKnownDisposed }
                state.sweepThreshold = max(16, state.entries.count * 2)
            }
            return true
        }
        if !accepted { disposable.dispose() }
    }

    /// The number of entries the bag holds now (for diagnostics and tests).
    public var count: Int { state.withLock { $0.entries.count } }

    /// Disposes everything in the bag; the bag stays usable and disposes later insertions at once.
    public func dispose() {
        let entries = state.withLock { state -> [any Disposable] in
            state.isDisposed = true
            defer { state.entries = [] }
            return state.entries
        }
        Self.dispose(entries)
    }

    deinit {
        Self.dispose(state.withLock { $0.entries })
    }

    /// Disposes each entry where it is stored, without copying it out.
    private static func dispose(_ entries: [any Disposable]) {
        entries.withUnsafeBufferPointer { entries in
            for index in entries.indices { entries[index].dispose() }
        }
    }
}

extension Disposable {
    /// Adds this disposable to `bag`.
    @inlinable
    public func disposed(by bag: DisposeBag) {
        bag.insert(self)
    }
}
