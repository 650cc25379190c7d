/// A TCP address to listen on, `HOST:PORT`: an IPv4 address, a bracketed IPv6 address
/// (`[::1]:9560`) or a name (`localhost:9560`), and a port from 0 to 65535 (0: the system picks one;
/// the `listening` log line says which).
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// The host, without brackets.
    public let host: String
    /// The port.
    public let port: UInt16

    /// An address of `host` and `port`.
    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`; nil when either part is missing or malformed.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        guard !portText.isEmpty, portText.utf8.allSatisfy({ (48...57).contains($0) }), portText.count <= 5,
            let port = UInt16(portText)
        else { return nil }
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2 else { return nil }
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") {
            return nil  // an IPv6 address needs brackets
        }
        guard !host.isEmpty,
            host.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0 != "/" && $0 != "[" && $0 != "]" })
        else { return nil }
        self.host = host
        self.port = port
    }

    /// `HOST:PORT`, with brackets around an IPv6 host.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

extension ValueParser where Value == ListenAddress {
    /// A TCP listen address, `HOST:PORT`.
    public static var listenAddress: ValueParser<ListenAddress> {
        ValueParser(
            expected: "HOST:PORT, such as 127.0.0.1:9560 or [::1]:9560", placeholder: "<host:port>",
            parse: { ListenAddress($0) }, format: { $0.description })
    }
}
