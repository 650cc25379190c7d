/// A ZeroMQ endpoint a service binds or connects to: `tcp://host:port`, `ipc://path` or
/// `inproc://name`, checked for shape (not resolved).
public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
    /// The transport part of an endpoint.
    public enum Transport: String, Sendable, Hashable, CaseIterable {
        /// TCP: `tcp://host:port` (host may be `*`, a name, an IPv4 or a bracketed IPv6 address).
        case tcp
        /// A Unix domain socket: `ipc://path`.
        case ipc
        /// In-process: `inproc://name`.
        case inproc
    }

    /// The transport.
    public let transport: Transport
    /// Everything after `://`.
    public let address: String

    /// Parses an endpoint; nil when the transport is unknown or the address is malformed
    /// (a TCP endpoint needs a host and a port from 1 to 65535 or `*`).
    public init?(_ text: String) {
        guard let separator = text.range(of: "://"),
            let transport = Transport(rawValue: String(text[..<separator.lowerBound]))
        else { return nil }
        let address = String(text[separator.upperBound...])
        guard !address.isEmpty, !address.contains(where: { $0.isWhitespace || $0.asciiValue == 0 }) else {
            return nil
        }
        if transport == .tcp {
            guard let colon = address.lastIndex(of: ":") else { return nil }
            let host = address[..<colon]
            let port = address[address.index(after: colon)...]
            guard !host.isEmpty, port == "*" || (Int(port).map { (1...65_535).contains($0) } ?? false)
            else { return nil }
        }
        self.transport = transport
        self.address = address
    }

    /// A TCP endpoint `tcp://host:port`.
    public init(tcpHost host: String, port: UInt16) {
        transport = .tcp
        address = "\(host):\(port)"
    }

    /// The endpoint as text, as libzmq takes it.
    public var description: String { "\(transport.rawValue)://\(address)" }

    /// Where shard `shard` of a server configured at this endpoint listens: shard 0 here; a later
    /// one on the same host at a port the system picks (`tcp`), at `path.<shard>` (`ipc`) or at
    /// `name.<shard>` (`inproc`).
    public func forShard(_ shard: Int) -> Endpoint {
        guard shard > 0 else { return self }
        switch transport {
        case .tcp:
            let host = address[..<(address.lastIndex(of: ":") ?? address.endIndex)]
            return Endpoint(transport: .tcp, address: "\(host):*")
        case .ipc, .inproc:
            return Endpoint(transport: transport, address: "\(address).\(shard)")
        }
    }

    private init(transport: Transport, address: String) {
        self.transport = transport
        self.address = address
    }
}
