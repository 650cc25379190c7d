public import ProcessSupport
public import RemoteStreams
public import ZeroMQ

/// Reloads a CURVE server's allow-list from its state directory's `allowed_clients`, so an operator
/// can admit or revoke a client key without a restart (`systemctl reload`, or `kill -HUP <pid>`:
/// ``ServiceHost`` calls ``reload()`` on SIGHUP).
///
/// A reload reads the file again and replaces the whole list at once: handshakes after it see the
/// new keys; connections already authenticated stay up (revoking a key stops new connections, not
/// the open one). A file that does not parse changes nothing: the error is logged with the line
/// numbers at fault and the current list is kept. The service's own client key (what `--check` uses)
/// is always allowed.
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

    /// A reloader of `list` from `state`'s `allowed_clients`.
    public init(state: StateDirectory, list: CurveAllowList, logger: Logger) {
        self.state = state
        self.list = list
        self.logger = logger
    }

    /// Reads `allowed_clients` again and replaces the list, logging what changed; on a bad file logs
    /// the error and keeps the current list.
    public func reload() -> Result<Outcome, StateError> {
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
    /// A reloader of `curve`'s allow-list, if it has one (nil for a plain server or one that admits
    /// any client).
    public static func forServer(
        _ curve: RemoteServer.Curve?, state: StateDirectory, logger: Logger
    ) -> AllowListReloader? {
        guard let list = curve?.allowList else { return nil }
        return AllowListReloader(state: state, list: list, logger: logger)
    }
}
