/// How severe an event is, from the most verbose to the most severe.
public enum LogLevel: String, Sendable, Hashable, CaseIterable, Comparable {
    /// Step-by-step tracing.
    case trace
    /// Details for debugging.
    case debug
    /// Normal operation (the default).
    case info
    /// Normal but significant: start, stop, configuration.
    case notice
    /// Something is wrong but the service carries on.
    case warning
    /// An operation failed.
    case error

    /// Orders levels by severity.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.severity < rhs.severity }

    private var severity: Int {
        switch self {
        case .trace: 0
        case .debug: 1
        case .info: 2
        case .notice: 3
        case .warning: 4
        case .error: 5
        }
    }
}

/// The shape of a log line.
public enum LogFormat: String, Sendable, Hashable, CaseIterable {
    /// `ts=… level=info service=auth msg="…" key=value`
    case logfmt
    /// One JSON object per line.
    case json
}

/// Renders one event as one line (no line break inside, escaped as the format needs).
enum LogLine {
    static func render(_ fields: [(key: String, value: LogValue)], format: LogFormat) -> String {
        switch format {
        case .logfmt:
            fields.map { "\(logfmtKey($0.key))=\(logfmtValue($0.value))" }.joined(separator: " ")
        case .json:
            "{" + fields.map { "\(jsonString($0.key)):\(jsonValue($0.value))" }.joined(separator: ",") + "}"
        }
    }

    /// A logfmt key: characters other than letters, digits, `_`, `-`, `.` and `/` become `_`.
    static func logfmtKey(_ key: String) -> String {
        let cleaned = String(
            key.unicodeScalars.map { scalar -> Character in
                let allowed =
                    scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    || "_-./".unicodeScalars.contains(scalar)
                return allowed && scalar.isASCII ? Character(scalar) : "_"
            })
        return cleaned.isEmpty ? "_" : cleaned
    }

    static func logfmtValue(_ value: LogValue) -> String {
        switch value {
        case .string(let text):
            let bare = !text.isEmpty && text.unicodeScalars.allSatisfy(isBare)
            return bare ? text : "\"" + escaped(text) + "\""
        default:
            return plain(value)
        }
    }

    /// Printable ASCII other than space, `"`, `=` and `\\`: needs no quotes in logfmt.
    private static func isBare(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value > 0x20 && scalar.value < 0x7F && scalar != "\"" && scalar != "=" && scalar != "\\"
    }

    static func jsonValue(_ value: LogValue) -> String {
        switch value {
        case .string(let text): jsonString(text)
        case .redacted: jsonString("<redacted>")
        case .double(let number) where !number.isFinite: jsonString(String(number))
        default: plain(value)
        }
    }

    static func jsonString(_ text: String) -> String { "\"" + escaped(text) + "\"" }

    private static func plain(_ value: LogValue) -> String {
        switch value {
        case .string(let text): text
        case .integer(let number): String(number)
        case .double(let number): String(number)
        case .bool(let flag): String(flag)
        case .redacted: "<redacted>"
        }
    }

    /// Escapes quotes, backslashes and every control or line-separating character, so the result
    /// is valid inside a JSON string and inside a quoted logfmt value.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _
            where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
