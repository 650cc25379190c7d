import RemoteProtocol
import ZeroMQ

/// Everything a ``RemoteClient`` decides, as a synchronous state machine: its replicas and the
/// choice of one for each call, the calls in flight and their deadlines, retries, connections coming
/// and going, shards and resolved names. It does no I/O: it holds no lock, touches no socket and
/// reads no clock (every event that needs the time is given it). Each event returns the actions
/// the client's shell performs, in order: frames to send, frames to deliver to a call, calls to
/// fail, sockets to detach, connection changes to publish.
///
/// `Connection` is what the shell sends on for a replica (its sockets), `Call` what it delivers
/// to for a call (the subscriber, the call's input and trace): the machine only hands them back.
struct ClientStateMachine<Connection: Sendable, Call: Sendable>: Sendable {
    /// What the machine needs of ``RemoteClient/Configuration``.
    struct Configuration: Sendable {
        /// The deadline of calls that do not give their own.
        var deadline: Duration
        /// How long a call waits for its replica's connection; nil: as long as its deadline.
        var connectTimeout: Duration?
        /// Whether configured replicas are asked for their server's shards when they connect.
        var discoversShards: Bool
    }

    /// One replica: a configured endpoint (or an address of a configured name) or a discovered
    /// shard.
    struct Replica: Sendable {
        let endpoint: String
        /// Its sockets, as the shell gave them.
        let connection: Connection
        /// The configured endpoint it stands for (itself, or the name it is an address of); nil
        /// for a discovered shard.
        let configured: String?
        /// Handshakes that succeeded so far.
        var handshakes = 0
        /// Takes no new calls; its sockets are detached once its open calls have ended.
        var isRetired = false
        var isDetached = false
        /// The server's shard it reaches: 0 for a configured endpoint (a server's documented
        /// endpoint is its shard 0), the index in `sys.endpoints` for a discovered one.
        var shard = 0
    }

    /// An open call.
    struct Pending: Sendable {
        /// The shell's side of it.
        let call: Call
        /// A request: its `NEXT` is its answer and ends it (docs/PROTOCOL.md).
        let isRequest: Bool
        /// The replica the call is open on (another one after a retry).
        var replica: Int
        /// What a request needs to be sent again; nil for streams, channels, pinned calls and calls
        /// opened while the client had one replica. Boxed, so that a pending call without one (every
        /// call of a one-replica client) stays small in the pending table.
        private var retryBox: ClientRetryBox?

        init(call: Call, isRequest: Bool, replica: Int, retry: ClientRetryBox?) {
            self.call = call
            self.isRequest = isRequest
            self.replica = replica
            retryBox = retry
        }

        /// Whether it has ``retry`` state (without copying it out).
        var mayRetry: Bool { retryBox != nil }

        var retry: ClientRetry? {
            get { retryBox?.retry }
            set { retryBox = newValue.map(ClientRetryBox.init) }
        }
    }

    /// What the shell does, in the order given.
    enum Action {
        /// Send `frame` on a replica's connection.
        case send(Frame, to: Connection)
        /// Hand a frame to its call; a request's answer, `COMPLETE` and `ERROR` end it (it is no
        /// longer open).
        case deliver(Frame, to: Call, isRequest: Bool)
        /// The client gave up on call `stream` (no longer open): stop its input, send its `CANCEL`
        /// on `cancelOn`, and fail it with the error (in its trace, which ends).
        case fail(stream: UInt64, Call, RemoteError, cancelOn: Connection)
        /// The client stopped: stop the call's input and fail it with the error, nothing else.
        case abandon(Call, RemoteError)
        /// Detach a retired replica's sockets: its last call ended.
        case detach(Connection)
        /// Ask configured replica `replica`, just connected, for its server's shards.
        case discoverShards(replica: Int)
        /// Publish a change of a replica's connection.
        case connectionChanged(RemoteClient.ConnectionChange)
    }

    /// What opening a call comes to.
    enum OpenAction {
        /// Send the opening frame of call `stream` to `replica` (of server shard `shard`).
        case send(Frame, stream: UInt64, replica: Int, shard: Int, to: Connection)
        /// The call could not be opened: no replica, or an invalid method name.
        case fail(RemoteError)
    }

    let configuration: Configuration
    /// The configured endpoints' replicas, then those added later (discovered shards, addresses of
    /// resolved names), never removed: a retired replica keeps its index.
    private(set) var replicas: [Replica] = []
    /// Per replica: whether its connection is up (handshake done, not disconnected since).
    private(set) var isConnected: [Bool] = []
    /// Per replica: connected and not retired (new calls may go there).
    private(set) var isUsable: [Bool] = []
    /// Per replica: calls open on it.
    private(set) var inFlight: [Int] = []
    private(set) var connectedCount = 0
    /// Retired replicas whose sockets are still attached.
    private(set) var retiring = 0
    private(set) var nextStream: UInt64 = 1
    private var nextReplica = 0
    private(set) var pending: [UInt64: Pending] = [:]
    /// The client-side deadline of every open call (stream id), soonest first; entries of calls
    /// that ended stay until they come due or are pruned.
    private var deadlines = DeadlineQueue<UInt64>()
    /// When calls opened while their replica had no connection stop waiting for one (with a
    /// connect timeout).
    private var connectDeadlines = DeadlineQueue<UInt64>()
    /// Whether any replica's connection was ever up.
    private(set) var everConnected = false
    private var counters = RemoteCounters()

    init(configuration: Configuration) {
        self.configuration = configuration
    }

    // MARK: Replicas

    /// Adds a replica reached through `connection`; returns its index (``replicaCount`` before).
    @discardableResult
    mutating func addReplica(endpoint: String, configured: String?, shard: Int = 0, connection: Connection)
        -> Int
    {
        var replica = Replica(endpoint: endpoint, connection: connection, configured: configured)
        replica.shard = shard
        replicas.append(replica)
        isConnected.append(false)
        isUsable.append(false)
        inFlight.append(0)
        return replicas.count - 1
    }

    /// The index the next replica added gets.
    var replicaCount: Int { replicas.count }

    /// Whether the client had a connection and has none now.
    var isCutOff: Bool { everConnected && connectedCount == 0 }

    /// The client's counters, with its open calls.
    var currentCounters: RemoteCounters {
        var counters = counters
        counters.openStreams = pending.count
        return counters
    }

    func endpoint(of replica: Int) -> String { replicas[replica].endpoint }

    /// The replicas that have calls open, to ping.
    mutating func pingDue() -> [Action] {
        var replicasInUse = Set<Int>()
        for call in pending.values { replicasInUse.insert(call.replica) }
        return replicasInUse.map { replica in outgoing(.ping, to: replica) }
    }

    /// A frame of an open call (a channel's input, its end) goes out to `replica`.
    mutating func outgoing(_ frame: Frame, to replica: Int) -> Action {
        counters.framesOut += 1
        return .send(frame, to: replicas[replica].connection)
    }

    // MARK: Calls

    /// The client's own deadline, in milliseconds: a little after the server's, so that a live
    /// server's `ERROR timeout` normally arrives first and only a silent server ends as
    /// `unavailable`.
    static func localDeadline(_ deadline: Duration) -> Int {
        let milliseconds = deadline.wholeMilliseconds
        return milliseconds + max(100, milliseconds / 10)
    }

    /// Opens call `type` of `method` with `body` at `now`: picks its replica (or `pinned`), records
    /// it and its deadlines, and makes its opening frame. `idempotent`: a request that may be run
    /// twice (``RetrySafety``).
    mutating func open(
        _ type: FrameType, method: String, body: [UInt8], deadline: Duration?, idempotent: Bool,
        pinned: Int? = nil, call: Call, now: ContinuousClock.Instant
    ) -> OpenAction {
        let deadline = deadline ?? configuration.deadline
        let stream = nextStream
        guard let replica = pinned ?? choose() else {
            return .fail(RemoteError(code: .unavailable, message: "no replica to call"))
        }
        let frame: Frame
        do {
            frame = try Frame(
                type: type, stream: stream,
                deadlineMilliseconds: UInt32(clamping: deadline.wholeMilliseconds),
                method: method, body: body)
        } catch {
            return .fail(error.remoteError)  // an invalid method name
        }
        nextStream &+= 1
        let connected = isConnected[replica]
        // With one replica there is nowhere else to send it: no bookkeeping.
        let retry =
            type == .request && pinned == nil && replicas.count > 1
            ? ClientRetryBox(
                ClientRetry(
                    method: method, body: body, opened: now, deadline: deadline, isIdempotent: idempotent,
                    sentConnected: connected, handshakesWhenSent: replicas[replica].handshakes,
                    attempts: 0)) : nil
        pending[stream] = Pending(call: call, isRequest: type == .request, replica: replica, retry: retry)
        inFlight[replica] &+= 1
        if deadlines.count > 2 * max(1_024, pending.count) {
            let pending = self.pending
            deadlines.removeAll { pending[$0] == nil }
        }
        deadlines.push(stream, due: now + .milliseconds(Self.localDeadline(deadline)))
        if let connectTimeout = configuration.connectTimeout, !connected {
            if connectDeadlines.count > 2 * max(1_024, pending.count) {
                let pending = self.pending
                connectDeadlines.removeAll { pending[$0] == nil }
            }
            connectDeadlines.push(stream, due: now + connectTimeout)
        }
        counters.framesOut += 1
        return .send(
            frame, stream: stream, replica: replica, shard: replicas[replica].shard,
            to: replicas[replica].connection)
    }

    /// The subscriber disposed of call `stream`: if it is still open, it is forgotten, and its
    /// `CANCEL` goes to its replica. Returns the call and the `CANCEL` to send.
    mutating func cancel(_ stream: UInt64) -> (call: Call, cancel: Action)? {
        guard let call = remove(stream) else { return nil }
        return (call.call, outgoing(Frame.opened(.cancel, stream: stream, body: nil), to: call.replica))
    }

    /// The client stops: every open call fails with `unavailable` (no `CANCEL`: the sockets close).
    mutating func stop() -> [Action] {
        defer {
            pending = [:]
            for replica in inFlight.indices { inFlight[replica] = 0 }
        }
        let error = RemoteError(code: .unavailable, message: "the client stopped")
        return pending.values.map { call in .abandon(call.call, error) }
    }

    /// The periodic look at deadlines, at `now`: calls past their deadline fail with `timeout` (the
    /// replica is connected) or `unavailable` (it is not), calls still without a connection past the
    /// connect timeout are sent again elsewhere or fail with `unavailable`; each gets a `CANCEL`.
    mutating func deadlinesDue(now: ContinuousClock.Instant) -> [Action] {
        var expired: [(UInt64, Pending, connected: Bool)] = []
        while let stream = deadlines.popDue(now: now) {
            guard let call = remove(stream) else { continue }
            expired.append((stream, call, isConnected[call.replica]))
        }
        var unconnected: [(UInt64, Pending)] = []
        var retried: [Action] = []
        while let stream = connectDeadlines.popDue(now: now) {
            guard let call = pending[stream], !isConnected[call.replica] else { continue }
            // It never left the client: another replica that is connected takes it.
            if let moved = retry(stream, after: .unavailable, now: now) {
                retried.append(moved.send)
                retried.append(outgoing(Frame.opened(.cancel, stream: stream, body: nil), to: moved.left))
                continue
            }
            _ = remove(stream)
            unconnected.append((stream, call))
        }
        var actions = detachIdleRetired()
        guard !expired.isEmpty || !unconnected.isEmpty || !retried.isEmpty else { return actions }
        actions += retried
        for (stream, call, connected) in expired {
            actions.append(
                fail(
                    stream, call,
                    connected
                        ? RemoteError(code: .timeout, message: "no answer before the deadline")
                        : RemoteError(
                            code: .unavailable, message: "the server did not answer before the deadline")))
        }
        for (stream, call) in unconnected {
            let milliseconds = (configuration.connectTimeout ?? .zero).wholeMilliseconds
            let timeout = milliseconds % 1_000 == 0 ? "\(milliseconds / 1_000) s" : "\(milliseconds) ms"
            actions.append(
                fail(
                    stream, call,
                    RemoteError(
                        code: .unavailable,
                        message: "no connection to \(endpoint(of: call.replica)) within \(timeout)")))
        }
        return actions
    }

    /// Frames decoded from `replica` (and `undecodable` messages that were not frames) at `now`.
    /// A frame of no open call, or from another replica than its call's (it was sent again
    /// elsewhere), or of a type a client does not receive, is dropped; a request refused with
    /// `overloaded`, or failed `unavailable` when safe, is sent again to another replica instead
    /// of failing (the server that answered is done with it: no `CANCEL`).
    mutating func framesArrived(
        _ frames: [Frame], undecodable: Int, from replica: Int, now: ContinuousClock.Instant
    ) -> [Action] {
        counters.droppedFrames += undecodable
        counters.framesIn += frames.count
        var actions: [Action] = []
        actions.reserveCapacity(frames.count)
        var retried: [Action] = []
        for frame in frames {
            var call: Pending? = nil
            // One lookup of the call's id, kept for removing it.
            guard let index = pending.index(forKey: frame.stream), pending.values[index].replica == replica
            else {
                counters.droppedFrames += 1
                continue
            }
            switch frame.type {
            case .next:
                // A request's answer ends it: no COMPLETE follows a request's NEXT.
                call = pending.values[index].isRequest ? remove(at: index) : pending.values[index]
            case .complete, .error:
                if let error = frame.remoteError {
                    counters.errorsByCode[error.code.rawValue, default: 0] += 1
                    if pending.values[index].mayRetry,
                        error.code == .overloaded || error.code == .unavailable,
                        let moved = retry(frame.stream, after: error.code, answered: true, now: now)
                    {
                        retried.append(moved.send)
                        continue
                    }
                }
                call = remove(at: index)  // a declined retry changed nothing
            default:
                break
            }
            if let call {
                actions.append(.deliver(frame, to: call.call, isRequest: call.isRequest))
            } else {
                counters.droppedFrames += 1
            }
        }
        // Retries go out before the deliveries.
        return retried.isEmpty ? actions : retried + actions
    }

    // MARK: Connections

    /// `replica`'s handshake succeeded. A connection already up changes nothing; otherwise the
    /// replica takes calls again (unless retired), and a configured one is asked for its shards.
    mutating func connectionUp(_ replica: Int) -> [Action] {
        everConnected = true
        replicas[replica].handshakes += 1
        guard !isConnected[replica] else { return [] }
        isConnected[replica] = true
        isUsable[replica] = !replicas[replica].isRetired
        connectedCount += 1
        let change = RemoteClient.ConnectionChange(
            replica: replica, endpoint: replicas[replica].endpoint, isUp: true)
        guard configuration.discoversShards, replicas[replica].configured != nil else {
            return [.connectionChanged(change)]
        }
        return [.discoverShards(replica: replica), .connectionChanged(change)]
    }

    /// `replica`'s connection was lost at `now`. A connection that never completed its handshake
    /// (refused, wrong key) ends no call: those wait for one (up to their deadline or the connect
    /// timeout). Otherwise every call open on it is sent again elsewhere when safe, or fails with
    /// `unavailable`; each gets a `CANCEL` there, for a server that sees the frames after all.
    mutating func connectionLost(_ replica: Int, now: ContinuousClock.Instant) -> [Action] {
        guard isConnected[replica] else { return [] }
        isConnected[replica] = false
        isUsable[replica] = false
        connectedCount -= 1
        let endpoint = replicas[replica].endpoint
        var retried: [Action] = []
        var ended: [Action] = []
        for stream in pending.filter({ $0.value.replica == replica }).keys.sorted() {
            if let moved = retry(stream, after: .unavailable, now: now) {
                retried.append(moved.send)
                retried.append(outgoing(Frame.opened(.cancel, stream: stream, body: nil), to: moved.left))
            } else if let call = remove(stream) {
                ended.append(
                    fail(
                        stream, call,
                        RemoteError(code: .unavailable, message: "the connection to \(endpoint) was lost")))
            }
        }
        return retried + ended + [
            .connectionChanged(
                RemoteClient.ConnectionChange(replica: replica, endpoint: endpoint, isUp: false))
        ]
    }

    // MARK: Shards and names

    /// `answer`, the shards of the server reached at `dialled`: the endpoints (dialable from here)
    /// of the shards other than the one that answered, and how many replicas the client should have
    /// of each (as many as `dialled` is configured).
    func shards(in answer: ShardEndpoints, dialled: String) -> [(endpoint: String, shard: Int, copies: Int)] {
        let copies = replicas.count { $0.endpoint == dialled && $0.configured != nil && !$0.isRetired }
        return answer.endpoints.enumerated().compactMap { shard, endpoint in
            shard == answer.shard
                ? nil : (RemoteClient.dialableEndpoint(endpoint, dialled: dialled), shard, copies)
        }
    }

    /// How many replicas of `endpoint` are missing for the client to have `copies`.
    func missingReplicas(of endpoint: String, upTo copies: Int) -> Int {
        max(0, copies - replicas.count { $0.endpoint == endpoint })
    }

    /// The endpoints configured endpoint `configured` (`tcp://name:port`) stands for when its name
    /// has `addresses`, and those of them the client has no replica of; nil when there is nothing
    /// to change (no address).
    func resolution(of configured: String, to addresses: [String]) -> (wanted: [String], missing: [String])? {
        guard !addresses.isEmpty, let colon = configured.lastIndex(of: ":") else { return nil }
        let port = configured[configured.index(after: colon)...]
        var wanted: [String] = []
        for address in addresses {
            let endpoint = address.contains(":") ? "tcp://[\(address)]:\(port)" : "tcp://\(address):\(port)"
            if !wanted.contains(endpoint) { wanted.append(endpoint) }
        }
        let missing = wanted.filter { endpoint in
            !replicas.contains { $0.configured == configured && $0.endpoint == endpoint && !$0.isDetached }
        }
        return (wanted, missing)
    }

    /// The name of `configured` stands for `wanted`, and the shell connected `added` (replicas of
    /// `configured`, with the indices from ``replicaCount`` on) of the `missing` it was asked for.
    /// Retired replicas listed again take calls again; those no longer listed (and the one that
    /// dialled the name itself) are retired: no new calls, detached once their calls have ended.
    /// Nothing reachable (none added of all wanted) changes nothing.
    mutating func resolved(
        _ configured: String, wanted: [String], missing: Int,
        added: [(endpoint: String, connection: Connection)]
    ) -> [Action] {
        if added.isEmpty, missing == wanted.count { return [] }
        for replica in added {
            addReplica(endpoint: replica.endpoint, configured: configured, connection: replica.connection)
        }
        for index in replicas.indices where replicas[index].configured == configured {
            let replica = replicas[index]
            guard !replica.isDetached else { continue }
            if wanted.contains(replica.endpoint) {
                if replica.isRetired {
                    replicas[index].isRetired = false
                    retiring -= 1
                    isUsable[index] = isConnected[index]
                }
            } else if !replica.isRetired {
                replicas[index].isRetired = true
                retiring += 1
                isUsable[index] = false
            }
        }
        return detachIdleRetired()
    }

    // MARK: Inside

    private mutating func remove(_ stream: UInt64) -> Pending? {
        guard let index = pending.index(forKey: stream) else { return nil }
        return remove(at: index)
    }

    /// Removes the call at `index` of `pending`, found once by the caller: a call's answer hashes
    /// its id once.
    private mutating func remove(at index: Dictionary<UInt64, Pending>.Index) -> Pending {
        let call = pending.remove(at: index).value
        inFlight[call.replica] &-= 1
        return call
    }

    /// Fails `call` (already out of `pending`) with `error`, with a `CANCEL` to its replica.
    private mutating func fail(_ stream: UInt64, _ call: Pending, _ error: RemoteError) -> Action {
        counters.framesOut += 1
        return .fail(stream: stream, call.call, error, cancelOn: replicas[call.replica].connection)
    }

    /// The replica a new call goes to: the usable one with the fewest calls open, the first of
    /// equals from `nextReplica` on (round-robin); while none is usable, the configured one (not a
    /// discovered shard, which may be gone with its server) with the fewest. `excluding` is never
    /// chosen; nil when nothing else is usable (`usableOnly`) or left. `advance`: the next call
    /// starts looking after the one chosen.
    private mutating func choose(excluding: Int = -1, usableOnly: Bool = false, advance: Bool = true) -> Int?
    {
        let count = replicas.count
        if count == 1 { return excluding == 0 || (usableOnly && !isUsable[0]) ? nil : 0 }
        var start = nextReplica
        if start >= count { start = 0 }
        var best = -1
        var fewest = Int.max
        var candidate = start
        for _ in 0..<count {
            if isUsable[candidate], candidate != excluding, inFlight[candidate] < fewest {
                best = candidate
                fewest = inFlight[candidate]
                if fewest == 0 { break }
            }
            candidate += 1
            if candidate == count { candidate = 0 }
        }
        if best < 0 {
            if usableOnly { return nil }
            candidate = start
            for _ in 0..<count {
                let replica = replicas[candidate]
                if replica.configured != nil, !replica.isRetired, candidate != excluding,
                    inFlight[candidate] < fewest
                {
                    best = candidate
                    fewest = inFlight[candidate]
                }
                candidate += 1
                if candidate == count { candidate = 0 }
            }
            if best < 0 { return nil }
        }
        if advance { nextReplica = best + 1 }
        return best
    }

    /// Moves open request `stream`, which just failed with `code` on its replica, to another usable
    /// replica when that is safe and its deadline leaves time: returns the opening to send there,
    /// and the replica it leaves. The call keeps its id, which is per connection (docs/PROTOCOL.md).
    private mutating func retry(
        _ stream: UInt64, after code: ErrorCode, answered: Bool = false, now: ContinuousClock.Instant
    ) -> (send: Action, left: Int)? {
        guard var call = pending[stream], var retry = call.retry else { return nil }
        let neverSent =
            !answered && !retry.sentConnected && replicas[call.replica].handshakes == retry.handshakesWhenSent
        guard code == .overloaded || neverSent || retry.isIdempotent else { return nil }
        let active = replicas.count { !$0.isRetired }
        guard retry.attempts < max(1, active - 1) else { return nil }
        let left = retry.deadline - (now - retry.opened)
        guard left >= .milliseconds(1),
            let target = choose(excluding: call.replica, usableOnly: true, advance: false),
            let frame = try? Frame(
                type: .request, stream: stream,
                deadlineMilliseconds: UInt32(clamping: left.wholeMilliseconds),
                method: retry.method, body: retry.body)
        else { return nil }
        let from = call.replica
        retry.attempts += 1
        retry.sentConnected = true
        retry.handshakesWhenSent = replicas[target].handshakes
        call.retry = retry
        call.replica = target
        pending[stream] = call
        inFlight[from] &-= 1
        inFlight[target] &+= 1
        counters.retries += 1
        counters.framesOut += 1
        return (.send(frame, to: replicas[target].connection), from)
    }

    /// Marks retired replicas with no call open detached, and returns their sockets to detach.
    private mutating func detachIdleRetired() -> [Action] {
        guard retiring > 0 else { return [] }
        var actions: [Action] = []
        for replica in replicas.indices
        where replicas[replica].isRetired && !replicas[replica].isDetached && inFlight[replica] == 0 {
            replicas[replica].isDetached = true
            retiring -= 1
            actions.append(.detach(replicas[replica].connection))
            if isConnected[replica] {
                isConnected[replica] = false
                connectedCount -= 1
            }
        }
        return actions
    }
}

/// A request's opening, kept to send it again to another replica (no copy: the method and the body
/// are the call's own).
struct ClientRetry: Sendable {
    let method: String
    let body: [UInt8]
    /// When the call was opened, and its deadline: a retry carries what is left of it.
    let opened: ContinuousClock.Instant
    let deadline: Duration
    /// Its method allows running it twice (``RetrySafety``).
    let isIdempotent: Bool
    /// Whether its replica's connection was up when it was sent there, and that replica's handshake
    /// count then: a call queued for a replica that has not connected since never left the client.
    var sentConnected: Bool
    var handshakesWhenSent: Int
    /// Times sent again so far.
    var attempts: Int
}

/// A request's ``ClientRetry``, boxed (see ``ClientStateMachine/Pending``).
final class ClientRetryBox: Sendable {
    let retry: ClientRetry
    init(_ retry: ClientRetry) { self.retry = retry }
}
