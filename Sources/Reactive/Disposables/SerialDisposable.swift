public import Synchronization

/// Holds one disposable at a time: assigning a new one disposes the previous one; once the serial
/// disposable is disposed, anything assigned later is disposed at once.
public final class SerialDisposable: Cancelable {
    @usableFromInline let state = SerialState()

    public init() {}

    public var isDisposed: Bool { state.isDisposed }

    /// The disposable held now.
    public var disposable: (any Disposable)? {
        get { state.disposable }
        set { state.disposable = newValue }
    }

    public func dispose() { state.dispose() }
}

/// The state of a ``SerialDisposable``, stored inline in the sinks that need one (a timer, the
/// current subscription), so that it costs them no object of its own.
@usableFromInline
struct SerialState: ~Copyable, Sendable {
    @usableFromInline
    struct Slot: Sendable {
        @usableFromInline var current: (any Disposable)?
        @usableFromInline var isDisposed = false

        @inlinable init() {}
    }

    @usableFromInline let slot = Mutex(Slot())

    @inlinable init() {}

    @inlinable
    var isDisposed: Bool { slot.withLock { $0.isDisposed } }

    /// The disposable held now; setting it disposes the previous one (or the new one, once
    /// disposed).
    @inlinable
    var disposable: (any Disposable)? {
        get { slot.withLock { $0.current } }
        nonmutating set {
            let previous: (any Disposable)? = slot.withLock { slot in
                if slot.isDisposed { return newValue }
                defer { slot.current = newValue }
                return slot.current
            }
            previous?.dispose()
        }
    }

    @inlinable
    func dispose() {
        let current: (any Disposable)? = slot.withLock { slot in
            guard !slot.isDisposed else { return nil }
            slot.isDisposed = true
            defer { slot.current = nil }
            return slot.current
        }
        current?.dispose()
    }
}
