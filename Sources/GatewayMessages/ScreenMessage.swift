public import Contracts

/// A message a screen shows: a code and its parameters. The gateway renders it in the client's
/// locale at the edge; view models never hold rendered text.
public struct ScreenMessage: Sendable, Hashable, CustomStringConvertible {
    /// What the message means.
    public var code: MessageCode
    /// The values the rendered text interpolates (`name`, `token`, `retry_after`, ...).
    public var params: [String: String]

    /// The message `code` with `params`.
    public init(_ code: MessageCode, _ params: [String: String] = [:]) {
        self.code = code
        self.params = params
    }

    /// E.g. `login.ok name=ann token=abc`.
    public var description: String {
        var text = code.rawValue
        for key in params.keys.sorted() { text += " \(key)=\(params[key] ?? "")" }
        return text
    }

    /// The rendered texts of `messages`, in order, the empty ones dropped, joined with one space
    /// (how login's `tip` becomes one line).
    public static func joined(
        _ messages: [ScreenMessage], rendering render: (ScreenMessage) -> String
    ) -> String {
        messages.map(render).filter { !$0.isEmpty }.joined(separator: " ")
    }
}
