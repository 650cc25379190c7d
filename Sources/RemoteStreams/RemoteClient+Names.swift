import Foundation
import RemoteProtocol
import ZeroMQ

extension RemoteClient {
    // MARK: Shards

    /// Asks configured replica `replica`, whose connection just came up, for its server's shards
    /// (`sys.endpoints`), and adds those it does not know. A server without the method answers
    /// `unknown_method`: it has one shard, nothing to add.
    func discoverShards(through replica: Int) {
        let dialled = state.withLock { $0.endpoint(of: replica) }
        let coder = self.coder
        let receiver = ClosureReceiver { [weak self] event in
            guard case .next(let body) = event, let self,
                let answer = try? coder.decode(ShardEndpoints.self, from: body)
            else { return }
            self.addShards(answer, dialled: dialled)
        }
        let method = RequestMethod<NoParameters, ShardEndpoints>.shardEndpoints.name
        _ = open(
            .request, method, Result { () throws(RemoteError) in try coder.encode(NoParameters()) },
            input: nil,
            deadline: nil, receiver: receiver, on: replica)
    }

    /// On the loop's thread: connects to the shards of `answer` other than the one that answered
    /// (which is `dialled`), as many times each as `dialled` is configured, less those known.
    private func addShards(_ answer: ShardEndpoints, dialled: String) {
        for shard in state.withLock({ $0.shards(in: answer, dialled: dialled) }) {
            // Only this thread adds replicas, so what is missing stays missing until added.
            let missing = state.withLock { $0.missingReplicas(of: shard.endpoint, upTo: shard.copies) }
            for _ in 0..<missing {
                let index = state.withLock { $0.replicaCount }
                let sockets: SocketLoop.Group
                do {
                    sockets = attach(
                        try Self.connect(shard.endpoint, context: context, configuration: configuration),
                        as: index)
                } catch {
                    break  // not an endpoint this client can dial: the shards it reached still serve
                }
                state.withLock {
                    _ = $0.addReplica(
                        endpoint: shard.endpoint, configured: nil, shard: shard.shard, connection: sockets)
                }
            }
        }
    }

    // MARK: Names

    /// The host of a `tcp://host:port` endpoint when it is a name to resolve: not an IPv4 or a
    /// bracketed IPv6 address, not a wildcard, not a `source;host` pair.
    public static func resolvableHost(of endpoint: String) -> String? {
        let prefix = "tcp://"
        guard endpoint.hasPrefix(prefix), !endpoint.contains(";"), let colon = endpoint.lastIndex(of: ":")
        else {
            return nil
        }
        let start = endpoint.index(endpoint.startIndex, offsetBy: prefix.count)
        guard start < colon else { return nil }
        let host = String(endpoint[start..<colon])
        guard !host.hasPrefix("["), host != "*" else { return nil }
        var address = in_addr()
        return inet_pton(AF_INET, host, &address) == 1 ? nil : host
    }

    /// The addresses `getaddrinfo` gives for `host` (numeric, IPv4 and IPv6, in its order, without
    /// repeats), or nil when it fails.
    static func systemAddresses(of host: String) -> [String]? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let list else { return nil }
        defer { freeaddrinfo(list) }
        var addresses: [String] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = list
        var text = [CChar](repeating: 0, count: 1_025)  // NI_MAXHOST
        while let entry = cursor {
            cursor = entry.pointee.ai_next
            guard
                getnameinfo(
                    entry.pointee.ai_addr, entry.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0,
                    NI_NUMERICHOST) == 0
            else { continue }
            let address = String(
                decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !addresses.contains(address) { addresses.append(address) }
        }
        return addresses
    }

    /// On the loop's thread: the name of configured endpoint `configured` resolved to `addresses`.
    /// Connects a replica to each address it has none for (or takes back a retired one not yet
    /// detached), then retires the replicas of `configured` at addresses no longer listed (and the
    /// one that dialled the name itself): they take no new calls, and are detached once their open
    /// calls have ended. No address at all changes nothing.
    func resolved(_ configured: String, to addresses: [String]) {
        guard let (wanted, missing) = state.withLock({ $0.resolution(of: configured, to: addresses) })
        else { return }
        // Only this thread adds replicas, so the indices stay free until appended.
        var added: [(endpoint: String, connection: SocketLoop.Group)] = []
        let first = state.withLock { $0.replicaCount }
        for endpoint in missing {
            do {
                added.append(
                    (
                        endpoint,
                        attach(
                            try Self.connect(endpoint, context: context, configuration: configuration),
                            as: first + added.count)
                    ))
            } catch {
                continue  // an address this client cannot dial: the others still serve
            }
        }
        perform(
            state.withLock { $0.resolved(configured, wanted: wanted, missing: missing.count, added: added) })
    }

    /// `endpoint` as this client can dial it: a TCP endpoint bound to a wildcard host (`0.0.0.0`,
    /// `*`, `::`) takes the host of `dialled`, the endpoint the client reached the server at.
    public static func dialableEndpoint(_ endpoint: String, dialled: String) -> String {
        let prefix = "tcp://"
        guard endpoint.hasPrefix(prefix), dialled.hasPrefix(prefix),
            let colon = endpoint.lastIndex(of: ":"), let dialledColon = dialled.lastIndex(of: ":")
        else { return endpoint }
        let host = endpoint[endpoint.index(endpoint.startIndex, offsetBy: prefix.count)..<colon]
        guard ["0.0.0.0", "*", "::", "[::]", "[*]"].contains(host) else { return endpoint }
        return String(dialled[..<dialledColon]) + String(endpoint[colon...])
    }
}

/// Resolves the configured names on a thread of its own (`getaddrinfo` blocks: never on the loop's
/// thread nor the cooperative pool), at once and then every interval until stopped, and hands each
/// answer to the client on its loop's thread.
final class ResolverThread: Sendable {
    private let names: [String]
    private let resolver: RemoteClient.NameResolver
    private let interval: Duration
    private let loop: SocketLoop
    private let inbox: Inbox
    private let name: String
    private let stopped = DispatchSemaphore(value: 0)

    init(
        names: [String], resolver: RemoteClient.NameResolver, interval: Duration, loop: SocketLoop,
        inbox: Inbox,
        name: String
    ) {
        self.names = names
        self.resolver = resolver
        self.interval = interval
        self.loop = loop
        self.inbox = inbox
        self.name = name
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "\(name)-resolver"
        thread.start()
    }

    /// Ends the thread (after the lookup in progress, if any).
    func stop() { stopped.signal() }

    private func run() {
        let wait = DispatchTimeInterval.milliseconds(Int(clamping: max(1, interval.wholeMilliseconds)))
        repeat {
            for endpoint in names {
                guard let host = RemoteClient.resolvableHost(of: endpoint),
                    let addresses = resolver.resolve(host),
                    !addresses.isEmpty
                else { continue }
                let inbox = self.inbox
                _ = loop.execute { inbox.client?.resolved(endpoint, to: addresses) }
            }
        } while stopped.wait(timeout: .now() + wait) == .timedOut
    }
}
