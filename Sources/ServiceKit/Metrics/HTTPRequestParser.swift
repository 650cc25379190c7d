/// The head of an HTTP/1.x request: its request line and header fields (RFC 9112).
public struct HTTPRequestHead: Sendable, Hashable {
    /// The method, as sent (methods are case-sensitive: `GET`, `HEAD`).
    public var method: String
    /// The request target as sent (origin form: `/metrics?x=1`).
    public var target: String
    /// The target's path, without the query.
    public var path: String
    /// The minor version: 0 for HTTP/1.0, 1 for HTTP/1.1.
    public var minorVersion: Int
    /// The header fields in order, names as sent.
    public var headers: [HTTPHeader]

    /// The value of the first field named `name` (compared without case).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// One header field.
public struct HTTPHeader: Sendable, Hashable {
    /// The field's name.
    public var name: String
    /// Its value, without surrounding whitespace.
    public var value: String

    /// A field `name: value`.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// An HTTP status code and its reason phrase.
public struct HTTPStatus: Sendable, Hashable, CustomStringConvertible {
    /// The code: `200`.
    public let code: Int
    /// The reason phrase: `OK`.
    public let reason: String

    /// A status of `code` with `reason`.
    public init(_ code: Int, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code) \(reason)" }

    public static let ok = HTTPStatus(200, "OK")
    public static let badRequest = HTTPStatus(400, "Bad Request")
    public static let notFound = HTTPStatus(404, "Not Found")
    public static let methodNotAllowed = HTTPStatus(405, "Method Not Allowed")
    public static let requestTimeout = HTTPStatus(408, "Request Timeout")
    public static let headerFieldsTooLarge = HTTPStatus(431, "Request Header Fields Too Large")
    public static let internalServerError = HTTPStatus(500, "Internal Server Error")
    public static let serviceUnavailable = HTTPStatus(503, "Service Unavailable")
    public static let versionNotSupported = HTTPStatus(505, "HTTP Version Not Supported")
}

/// Reads a request head from the bytes received so far: pure, no socket (docs/operations.md,
/// "HTTP endpoints").
///
/// The head ends at the first empty line (`CRLF CRLF`). Until then the answer is ``Outcome/incomplete``,
/// unless what has come already cannot start a valid request: a malformed request line is refused as
/// soon as its line is complete, and a head longer than the limit as soon as the limit is passed.
/// Lines end with `CRLF` (a bare `LF` or `CR` is refused). The request line is `method SP target SP
/// HTTP/1.x` with a token method and an origin-form target (`/…`, visible ASCII); field lines are
/// `name: value` with a token name, no whitespace before the colon and no line folding; HTTP/1.1
/// needs exactly one `Host`. A body is not read: the responder answers and closes the connection.
///
/// ```swift
/// switch HTTPRequestParser.parse(Array("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".utf8)) {
/// case .complete(let head, _): print(head.path)   // /metrics
/// case .incomplete: break                          // read more
/// case .invalid(let status, let reason): print(status, reason)
/// }
/// ```
public enum HTTPRequestParser {
    /// The longest head accepted by default, in bytes (request line and fields with their line ends).
    public static let defaultMaximumHeadBytes = 8_192

    /// What the bytes so far amount to.
    public enum Outcome: Sendable, Hashable {
        /// A valid head, and how many bytes it took (up to and including the empty line).
        case complete(HTTPRequestHead, length: Int)
        /// No complete head yet, and nothing wrong so far: read more.
        case incomplete
        /// Not a valid request: answer `status` and close. `reason` says what was wrong.
        case invalid(HTTPStatus, reason: String)
    }

    /// Parses the head at the start of `bytes`, at most `maximumHeadBytes` long.
    public static func parse(_ bytes: [UInt8], maximumHeadBytes: Int = defaultMaximumHeadBytes) -> Outcome {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        var index = 0
        let limit = min(bytes.count, maximumHeadBytes)
        while index < limit {
            let byte = bytes[index]
            if byte == lf {
                return .invalid(.badRequest, reason: "a line ends with LF without CR")
            }
            guard byte == cr else {
                index += 1
                continue
            }
            guard index + 1 < bytes.count else { break }  // the LF may come next
            guard bytes[index + 1] == lf else {
                return .invalid(.badRequest, reason: "a CR not followed by LF")
            }
            let line = bytes[start..<index]
            index += 2
            start = index
            if lines.isEmpty, case .invalid(let status, let reason) = requestLine(line) {
                return .invalid(status, reason: reason)
            }
            if line.isEmpty {
                guard !lines.isEmpty else { return .invalid(.badRequest, reason: "an empty request line") }
                guard index <= maximumHeadBytes else { break }
                return head(lines, length: index)
            }
            lines.append(line)
        }
        if bytes.count >= maximumHeadBytes {
            return .invalid(.headerFieldsTooLarge, reason: "the request head is over \(maximumHeadBytes) bytes")
        }
        if lines.isEmpty, case .invalid(let status, let reason) = partialRequestLine(bytes[start...]) {
            return .invalid(status, reason: reason)
        }
        return .incomplete
    }

    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")
    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")

    private enum RequestLine {
        case valid(method: String, target: String, minorVersion: Int)
        case invalid(HTTPStatus, reason: String)
    }

    /// The request line, checked.
    private static func requestLine(_ line: ArraySlice<UInt8>) -> RequestLine {
        let parts = line.split(separator: space, maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            return .invalid(.badRequest, reason: "the request line is not 'method target version'")
        }
        guard !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte) else {
            return .invalid(.badRequest, reason: "the method is not a token")
        }
        let target = parts[1]
        guard target.first == UInt8(ascii: "/"), target.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            return .invalid(.badRequest, reason: "the target is not a path starting with '/'")
        }
        let version = Array(parts[2])
        let prefix = Array("HTTP/".utf8)
        guard version.count == 8, version.starts(with: prefix), version[6] == UInt8(ascii: "."),
            isDigit(version[5]), isDigit(version[7])
        else { return .invalid(.badRequest, reason: "the version is not HTTP/<digit>.<digit>") }
        guard version[5] == UInt8(ascii: "1"), version[7] <= UInt8(ascii: "1") else {
            return .invalid(.versionNotSupported, reason: "only HTTP/1.0 and HTTP/1.1 are served")
        }
        return .valid(
            method: String(decoding: parts[0], as: UTF8.self), target: String(decoding: target, as: UTF8.self),
            minorVersion: Int(version[7] - UInt8(ascii: "0")))
    }

    /// A request line still coming: refused early when its method already holds a byte no method
    /// may, so that a stream of garbage is not read up to the head limit.
    private static func partialRequestLine(_ line: ArraySlice<UInt8>) -> RequestLine {
        let method = line.prefix { $0 != space }
        guard method.allSatisfy(isTokenByte) else {
            return .invalid(.badRequest, reason: "the method is not a token")
        }
        return .valid(method: "", target: "", minorVersion: 0)
    }

    /// The head made of `lines` (the request line first).
    private static func head(_ lines: [ArraySlice<UInt8>], length: Int) -> Outcome {
        guard case .valid(let method, let target, let minor) = requestLine(lines[0]) else {
            return .invalid(.badRequest, reason: "the request line is invalid")
        }
        var headers: [HTTPHeader] = []
        for line in lines.dropFirst() {
            guard let first = line.first, first != space, first != tab else {
                return .invalid(.badRequest, reason: "a folded or empty field line")
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                return .invalid(.badRequest, reason: "a field line without ':'")
            }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
                return .invalid(.badRequest, reason: "a field name is not a token")
            }
            var value = line[(colon + 1)...]
            while let byte = value.first, byte == space || byte == tab { value = value.dropFirst() }
            while let byte = value.last, byte == space || byte == tab { value = value.dropLast() }
            guard value.allSatisfy({ $0 == tab || $0 >= 0x20 && $0 != 0x7F }) else {
                return .invalid(.badRequest, reason: "a field value holds a control character")
            }
            headers.append(
                HTTPHeader(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
        let hosts = headers.filter { $0.name.lowercased() == "host" }.count
        if minor == 1, hosts != 1 {
            return .invalid(.badRequest, reason: "an HTTP/1.1 request needs exactly one Host field")
        }
        if let length = headers.first(where: { $0.name.lowercased() == "content-length" })?.value,
            length.isEmpty || !length.utf8.allSatisfy(isDigit)
        {
            return .invalid(.badRequest, reason: "Content-Length is not a number")
        }
        let path = target.prefix { $0 != "?" && $0 != "#" }
        return .complete(
            HTTPRequestHead(
                method: method, target: target, path: String(path), minorVersion: minor, headers: headers),
            length: length)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// `tchar` of RFC 9110.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
