import Synchronization

/// A group of disposables disposed together. Adding to a disposed group disposes the addition at
/// once; a member can be removed (and disposed) by the key `insert` returned.
public final class CompositeDisposable: Cancelable {
    /// Identifies a member for `remove(for:)`.
    public struct DisposeKey: Hashable, Sendable {
        fileprivate let value: UInt64
    }

    private struct State {
        var members = Bag<any Disposable>()
        var isDisposed = false
    }
    private let state = Mutex(State())

    public init() {}

    public init(_ first: any Disposable, _ second: any Disposable, _ third: any Disposable) {
        state.withLock { state in
            _ = state.members.insert(first)
            _ = state.members.insert(second)
            _ = state.members.insert(third)
        }
    }

    public init(disposables: [any Disposable]) {
        state.withLock { state in
            for disposable in disposables { _ = state.members.insert(disposable) }
        }
    }

    public var isDisposed: Bool { state.withLock { $0.isDisposed } }

    /// The number of members not yet removed.
    public var count: Int { state.withLock { $0.members.count } }

    /// Adds a member. Returns nil (after disposing it) if the group is already disposed.
    @discardableResult
    public func insert(_ disposable: any Disposable) -> DisposeKey? {
        let key: UInt64? = state.withLock { state in
            state.isDisposed ? nil : state.members.insert(disposable)
        }
        guard let key else {
            disposable.dispose()
            return nil
        }
        return DisposeKey(value: key)
    }

    /// Removes the member with `key` and disposes it.
    public func remove(for key: DisposeKey) {
        let removed = state.withLock { $0.members.remove(key.value) }
        removed?.dispose()
    }

    public func dispose() {
        let members: Bag<any Disposable>? = state.withLock { state in
            guard !state.isDisposed else { return nil }
            state.isDisposed = true
            defer { state.members = Bag() }
            return state.members
        }
        members?.forEach { $0.dispose() }
    }
}
