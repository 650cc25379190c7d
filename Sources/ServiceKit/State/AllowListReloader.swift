import Dispatch
import Synchronization
public import RemoteStreams
public import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// Reloads a CURVE server's allow-list from its state directory's `allowed_clients` on every SIGHUP,
/// so an operator can admit or revoke a client key without a restart (`systemctl reload`, or
/// `kill -HUP <pid>`).
///
/// A reload reads the file again and replaces the whole list at once: handshakes after it see the
/// new keys; connections already authenticated stay up (revoking a key stops new connections, not
/// the open one). A file that does not parse changes nothing: the error is logged with the line
/// numbers at fault and the current list is kept. The service's own client key (what `--check` uses)
/// is always allowed.
///
/// The reload runs on a Dispatch queue of its own; keep the reloader for the process's life and
/// ``cancel()`` it when the service stops.
public final class AllowListReloader: Sendable {
    /// What one reload did.
    public struct Outcome: Sendable, Hashable {
        /// Keys allowed now.
        public var keys: Int
        /// Keys that were not allowed before.
        public var added: Int
        /// Keys no longer allowed.
        public var removed: Int
    }

    private let state: StateDirectory
    private let list: CurveAllowList
    private let logger: Logger
    private let source = Mutex<(any DispatchSourceSignal)?>(nil)

    /// A reloader of `list` from `state`'s `allowed_clients`; ``start()`` installs the SIGHUP
    /// handler.
    public init(state: StateDirectory, list: CurveAllowList, logger: Logger) {
        self.state = state
        self.list = list
        self.logger = logger
    }

    /// Reloads on every SIGHUP from now on (SIGHUP no longer ends the process). Other SIGHUP
    /// handlers of the process (hero-catalog-service's catalog reload) run too.
    public func start() {
        signal(SIGHUP, SIG_IGN)
        source.withLock { slot in
            guard slot == nil else { return }
            let hangups = DispatchSource.makeSignalSource(
                signal: SIGHUP, queue: DispatchQueue(label: "allow-list.reload"))
            hangups.setEventHandler { [self] in _ = reload() }
            hangups.resume()
            slot = hangups
        }
    }

    /// Stops reloading.
    public func cancel() {
        source.withLock { slot in
            slot?.cancel()
            slot = nil
        }
    }

    /// Reads `allowed_clients` again and replaces the list, logging what changed; on a bad file logs
    /// the error and keeps the current list.
    public func reload() -> Result<Outcome, ServiceKitError> {
        let keys: Set<[UInt8]>
        do {
            keys = try state.allowedClientKeys()
        } catch {
            logger.error(
                "allow-list reload failed: keeping the current list",
                ["error": .string(error.description), "keys": .integer(list.count)])
            return .failure(error)
        }
        let (added, removed) = list.replace(with: keys)
        let outcome = Outcome(keys: keys.count, added: added, removed: removed)
        logger.notice(
            "allow-list reloaded",
            ["keys": .integer(keys.count), "added": .integer(added), "removed": .integer(removed)])
        return .success(outcome)
    }
}

extension AllowListReloader {
    /// Starts reloading `curve`'s allow-list on SIGHUP, if it has one (nil for a plain server or
    /// one that admits any client).
    public static func start(
        for curve: RemoteServer.Curve?, state: StateDirectory, logger: Logger
    ) -> AllowListReloader? {
        guard let list = curve?.allowList else { return nil }
        let reloader = AllowListReloader(state: state, list: list, logger: logger)
        reloader.start()
        return reloader
    }
}
