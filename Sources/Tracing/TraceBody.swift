/// Trace context in a JSON body: the `traceparent` and `tracestate` members of the top-level object
/// of an opening frame's parameters or of a channel's input element (docs/PROTOCOL.md, "Trace
/// context"). A reader that does not know them ignores them like any unknown member.
public enum TraceBody {
    private static let prefix: [UInt8] = Array("{\"traceparent\":\"".utf8)
    private static let name: [UInt8] = Array("\"traceparent\"".utf8)
    private static let stateName: [UInt8] = Array("\"tracestate\"".utf8)

    /// `body` with `context` as its first members, when `body` is a JSON object; else `body` as it is.
    public static func inject(_ context: TraceContext, into body: [UInt8]) -> [UInt8] {
        guard let first = body.firstIndex(where: { !isSpace($0) }), body[first] == UInt8(ascii: "{") else {
            return body
        }
        var members = "{\"traceparent\":\"" + context.traceparent + "\""
        if let state = context.traceState {
            members += ",\"tracestate\":"
            OTLPJSON.appendString(&members, state)
        }
        let rest = body[(first + 1)...]
        let empty = rest.first(where: { !isSpace($0) }) == UInt8(ascii: "}")
        var out: [UInt8] = []
        out.reserveCapacity(body.count + members.utf8.count + 1)
        out.append(contentsOf: members.utf8)
        if !empty { out.append(UInt8(ascii: ",")) }
        out.append(contentsOf: rest)
        return out
    }

    /// Whether `body` may carry trace context: it names `traceparent` somewhere. Cheap, for the
    /// path of every call.
    @inline(__always)
    public static func mayCarry(_ body: [UInt8]) -> Bool {
        if body.count >= prefix.count, body[0] == UInt8(ascii: "{"), body[1] == UInt8(ascii: "\""),
            body[2] == UInt8(ascii: "t"), body[3] == UInt8(ascii: "r")
        {
            return true
        }
        return find(name, in: body, from: 0) != nil
    }

    /// The trace context among the top-level members of the JSON object `body`; nil when it has no
    /// readable `traceparent` (an unreadable one is ignored). `tracestate` comes with it, if present.
    public static func extract(from body: [UInt8]) -> TraceContext? {
        guard mayCarry(body) else { return nil }
        var scanner = Scanner(bytes: body)
        guard let members = scanner.topLevelStrings(named: ["traceparent", "tracestate"]) else { return nil }
        guard let parent = members["traceparent"] else { return nil }
        return TraceContext(traceparent: parent, traceState: members["tracestate"])
    }

    /// The string value of the top-level member `name` of the JSON object `body` (escapes kept as
    /// they are); nil when it has none.
    public static func string(named name: String, in body: [UInt8]) -> String? {
        var scanner = Scanner(bytes: body)
        return scanner.topLevelStrings(named: [name])?[name]
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = start
        let last = haystack.count - needle.count
        let head = needle[0]
        while index <= last {
            if haystack[index] == head {
                var matched = true
                for offset in 1..<needle.count where haystack[index + offset] != needle[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }

    /// Just enough of a JSON reader to find string members of the top-level object.
    struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func skipSpace() {
            while index < bytes.count, TraceBody.isSpace(bytes[index]) { index += 1 }
        }

        /// A string's raw contents (escapes kept as they are), the index after its closing quote.
        mutating func string() -> String? {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            let start = index + 1
            index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\\"): index += 2
                case UInt8(ascii: "\""):
                    defer { index += 1 }
                    return String(decoding: bytes[start..<index], as: UTF8.self)
                default: index += 1
                }
            }
            return nil
        }

        /// Skips one JSON value of any kind (nested objects and arrays by depth, strings by quotes).
        mutating func skipValue() -> Bool {
            skipSpace()
            guard index < bytes.count else { return false }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                return string() != nil
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while index < bytes.count {
                    switch bytes[index] {
                    case UInt8(ascii: "\""):
                        guard string() != nil else { return false }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            index += 1
                            return true
                        }
                    default: break
                    }
                    index += 1
                }
                return false
            default:
                while index < bytes.count, !",}]".utf8.contains(bytes[index]),
                    !TraceBody.isSpace(bytes[index])
                {
                    index += 1
                }
                return true
            }
        }

        /// The string values of the top-level members named in `names`; nil when `bytes` is not an
        /// object this reader can walk.
        mutating func topLevelStrings(named names: Set<String>) -> [String: String]? {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
            index += 1
            var found: [String: String] = [:]
            while true {
                skipSpace()
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: "}") { return found }
                guard let key = string() else { return nil }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                skipSpace()
                if names.contains(key), index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                    guard let value = string() else { return nil }
                    if found[key] == nil { found[key] = value }
                    if found.count == names.count { return found }
                } else if !skipValue() {
                    return nil
                }
                skipSpace()
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "}") {
                    return found
                } else {
                    return nil
                }
            }
        }
    }
}
