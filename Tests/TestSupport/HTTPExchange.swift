import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A raw HTTP exchange over a loopback TCP socket: what a scraper or a misbehaving client sends.
public enum HTTPExchange {
    public struct Answer: Sendable {
        public let status: Int
        public let headers: [(String, String)]
        public let body: [UInt8]
        /// Whether the server closed the connection after it.
        public let closed: Bool

        public var text: String { String(decoding: body, as: UTF8.self) }

        public func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// A GET that asks the server to close after its answer, so the read ends with the answer
    /// (Prometheus and other servers keep an HTTP/1.1 connection open otherwise).
    public static func get(_ path: String, port: Int) async throws -> Answer {
        try await send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", port: port)
    }

    public static func send(_ request: String, port: Int) async throws -> Answer {
        let descriptor = try connect(port: port)
        defer { close(descriptor) }
        try write(request, to: descriptor)
        return try read(descriptor, within: .seconds(10))
    }

    public static func connect(port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let number = errno
            close(descriptor)
            throw Failure(description: "connect to \(port): errno \(number)")
        }
        return descriptor
    }

    public static func write(_ text: String, to descriptor: Int32) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { throw Failure(description: "send: errno \(errno)") }
            offset += written
        }
    }

    /// Reads until the server closes, or `limit` passes (then `closed` is false).
    public static func read(_ descriptor: Int32, within limit: Duration) throws -> Answer {
        let end = ContinuousClock.now + limit
        var received: [UInt8] = []
        var closed = false
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while ContinuousClock.now < end {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let left = max(1, Int32((end - ContinuousClock.now) / .milliseconds(1)))
            guard poll(&poller, 1, left) > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 {
                closed = true
                break
            }
            received += chunk[..<count]
        }
        guard let split = find(Array("\r\n\r\n".utf8), in: received) else {
            throw Failure(
                description:
                    "no response head in \(String(decoding: received, as: UTF8.self).debugDescription)")
        }
        let head = String(decoding: received[..<split], as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = head[0].split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw Failure(description: "bad status line \(head[0])")
        }
        let headers = head.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (
                String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            )
        }
        return Answer(status: status, headers: headers, body: Array(received[(split + 4)...]), closed: closed)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count)
        where haystack[index..<(index + needle.count)].elementsEqual(needle) {
            return index
        }
        return nil
    }
}
