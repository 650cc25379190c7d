/// An HTTP response the responder writes: a status, header fields and a body. Every response
/// closes its connection (`Connection: close`): one request per connection.
public struct HTTPResponse: Sendable, Hashable {
    /// The status.
    public var status: HTTPStatus
    /// Fields besides `Content-Length` and `Connection`, which ``bytes(includingBody:)`` adds.
    public var headers: [HTTPHeader]
    /// The body (left out for `HEAD`, but its length still given).
    public var body: [UInt8]

    /// A response of `status` with `headers` and `body`.
    public init(_ status: HTTPStatus, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A plain-text response: `text` and a line feed.
    public static func text(_ status: HTTPStatus, _ text: String, headers: [HTTPHeader] = []) -> HTTPResponse {
        HTTPResponse(
            status, headers: [HTTPHeader("Content-Type", "text/plain; charset=utf-8")] + headers,
            body: Array((text + "\n").utf8))
    }

    /// The response as sent: status line, fields, `Content-Length`, `Connection: close`, the empty
    /// line, then the body unless `includingBody` is false (a `HEAD`).
    public func bytes(includingBody: Bool = true) -> [UInt8] {
        var head = "HTTP/1.1 \(status.code) \(status.reason)\r\n"
        for header in headers { head += "\(header.name): \(header.value)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + (includingBody ? body : [])
    }
}
