import Synchronization

/// Holds one disposable at a time: assigning a new one disposes the previous one; once the serial
/// disposable is disposed, anything assigned later is disposed at once.
public final class SerialDisposable: Cancelable {
    private struct State {
        var current: (any Disposable)?
        var isDisposed = false
    }
    private let state = Mutex(State())

    public init() {}

    public var isDisposed: Bool { state.withLock { $0.isDisposed } }

    /// The disposable held now.
    public var disposable: (any Disposable)? {
        get { state.withLock { $0.current } }
        set {
            let previous: (any Disposable)? = state.withLock { state in
                if state.isDisposed { return newValue }
                defer { state.current = newValue }
                return state.current
            }
            previous?.dispose()
        }
    }

    public func dispose() {
        let current: (any Disposable)? = state.withLock { state in
            guard !state.isDisposed else { return nil }
            state.isDisposed = true
            defer { state.current = nil }
            return state.current
        }
        current?.dispose()
    }
}
