#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A minimal HTTP/1.1 client for OTLP/HTTP: one `POST` of a JSON body per connection, to a
/// collector given as `http://HOST:PORT[/PATH]` (HOST a literal IPv4 address or a name the system
/// resolves; no TLS). The path defaults to `/v1/traces`. Blocking: the exporter's thread calls it.
public enum OTLPHTTP {
    /// The host, port and path of an `http://` URL; nil when it is not one.
    public static func parse(_ url: String) -> (host: String, port: UInt16, path: String)? {
        guard url.hasPrefix("http://") else { return nil }
        let rest = url.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" }
        var path = String(rest.dropFirst(authority.count))
        if path.isEmpty || path == "/" { path = "/v1/traces" }
        let host: Substring
        var port: UInt16 = 4318
        if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            guard let parsed = UInt16(authority[authority.index(after: colon)...]), parsed > 0 else {
                return nil
            }
            port = parsed
        } else {
            host = authority
        }
        guard !host.isEmpty else { return nil }
        return (String(host), port, path)
    }

    /// POSTs `body` (`application/json`) and reads the status line; true for a 2xx answer.
    public static func post(_ body: [UInt8], to url: String, timeout: Duration) -> Bool {
        guard let (host, port, path) = parse(url) else { return false }
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let address = found else { return false }
        defer { freeaddrinfo(found) }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let seconds = timeout.components.seconds
        var limit = timeval(
            tv_sec: Int(seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard connect(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 else {
            return false
        }
        let head =
            "POST \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        guard sendAll(Array(head.utf8), on: descriptor), sendAll(body, on: descriptor) else { return false }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1_024)
        while answer.count < 16 {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            answer += buffer[0..<count]
        }
        // "HTTP/1.1 200 ..."
        guard answer.count >= 12 else { return false }
        return answer[9] == UInt8(ascii: "2")
    }

    private static func sendAll(_ bytes: [UInt8], on descriptor: Int32) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let result = bytes[sent...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if result < 0 {
                if errno == EINTR { continue }
                return false
            }
            sent += result
        }
        return true
    }
}
