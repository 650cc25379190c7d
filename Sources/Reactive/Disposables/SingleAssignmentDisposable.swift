public import Synchronization

/// The state of a slot that receives one disposable and disposes it when the slot is disposed,
/// whichever comes first. Shared by ``SingleAssignmentDisposable`` and the operators' sinks.
///
/// The disposed flag is an atomic so the hot path (`isDisposed`, checked once per event by every
/// sink) never takes the lock.
@usableFromInline
struct SingleAssignmentState: ~Copyable, Sendable {
    @usableFromInline let disposed = Atomic<Bool>(false)
    @usableFromInline let slot = Mutex<Slot>(.empty)

    @usableFromInline
    enum Slot: Sendable {
        /// Nothing was assigned yet.
        case empty
        /// A disposable was assigned and is held until disposal.
        case assigned(any Disposable)
        /// The slot was assigned and then disposed (or disposed, then assigned and released).
        case released
    }

    @inlinable init() {}

    @inlinable
    var isDisposed: Bool { disposed.load(ordering: .relaxed) }

    /// Stores `disposable`; if the slot is already disposed, disposes it at once.
    @inlinable
    func assign(_ disposable: any Disposable) {
        let accepted: Bool = slot.withLock { slot in
            switch slot {
            case .empty:
                slot = .assigned(disposable)
                return true
            case .assigned:
                preconditionFailure("A SingleAssignmentDisposable can be assigned only once.")
            case .released:
                return false
            }
        }
        guard accepted else {
            disposable.dispose()
            return
        }
        // dispose() may have run between the flag check and the assignment: take it back.
        if disposed.load(ordering: .acquiring) { disposeAssigned() }
    }

    /// Marks the slot disposed and disposes what it holds. Returns false if it was already disposed.
    @inlinable
    @discardableResult
    func dispose() -> Bool {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return false }
        disposeAssigned()
        return true
    }

    @usableFromInline
    func disposeAssigned() {
        let held: (any Disposable)? = slot.withLock { slot in
            switch slot {
            case .assigned(let disposable):
                slot = .released
                return disposable
            case .empty:
                slot = .released
                return nil
            case .released:
                return nil
            }
        }
        held?.dispose()
    }
}

/// Holds one disposable assigned later; disposing before the assignment disposes the assigned one
/// as soon as it arrives. Assigning twice is a programming error.
public final class SingleAssignmentDisposable: Cancelable {
    @usableFromInline let state = SingleAssignmentState()

    @inlinable public init() {}

    @inlinable public var isDisposed: Bool { state.isDisposed }

    /// Assigns the disposable. Must be called at most once.
    @inlinable
    public func setDisposable(_ disposable: any Disposable) { state.assign(disposable) }

    @inlinable public func dispose() { state.dispose() }
}
