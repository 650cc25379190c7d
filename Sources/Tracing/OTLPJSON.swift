/// Spans in the OTLP/JSON encoding of an `ExportTraceServiceRequest` (the OpenTelemetry protocol's
/// JSON mapping of its protobuf messages): ids as lower-case hex, 64-bit integers (times, integer
/// attributes) as decimal strings, enums as their numbers, field names in lowerCamelCase, and one
/// resource whose `service.name` names the process.
public enum OTLPJSON {
    /// The name of the instrumentation scope the spans are reported under.
    public static let scopeName = "reactive-login"

    /// One `ExportTraceServiceRequest` holding `spans`, as one line of JSON (no newline).
    public static func exportRequest(
        _ spans: some Collection<Span>, service: String, resource: [(key: String, value: AttributeValue)] = []
    ) -> String {
        var out = "{\"resourceSpans\":[{\"resource\":{\"attributes\":["
        appendAttribute(&out, "service.name", .string(service))
        for attribute in resource {
            out += ","
            appendAttribute(&out, attribute.key, attribute.value)
        }
        out += "]},\"scopeSpans\":[{\"scope\":{\"name\":"
        appendString(&out, scopeName)
        out += "},\"spans\":["
        var first = true
        for span in spans {
            if !first { out += "," }
            first = false
            appendSpan(&out, span)
        }
        out += "]}]}]}"
        return out
    }

    static func appendSpan(_ out: inout String, _ span: Span) {
        out += "{\"traceId\":\""
        out += span.context.traceIDHex
        out += "\",\"spanId\":\""
        out += span.context.spanIDHex
        out += "\""
        if span.parentSpanID != 0 {
            out += ",\"parentSpanId\":\""
            out += Hex.string(span.parentSpanID)
            out += "\""
        }
        if let state = span.context.traceState {
            out += ",\"traceState\":"
            appendString(&out, state)
        }
        out += ",\"name\":"
        appendString(&out, span.name)
        out += ",\"kind\":\(span.kind.rawValue),\"startTimeUnixNano\":\"\(span.startNanos)\""
        out += ",\"endTimeUnixNano\":\"\(max(span.endNanos, span.startNanos))\",\"attributes\":["
        for (index, attribute) in span.attributes.enumerated() {
            if index > 0 { out += "," }
            appendAttribute(&out, attribute.key, attribute.value)
        }
        out += "]"
        switch span.status {
        case .unset: break
        case .ok: out += ",\"status\":{\"code\":1}"
        case .error(let message):
            out += ",\"status\":{\"code\":2,\"message\":"
            appendString(&out, message)
            out += "}"
        }
        out += "}"
    }

    static func appendAttribute(_ out: inout String, _ key: String, _ value: AttributeValue) {
        out += "{\"key\":"
        appendString(&out, key)
        out += ",\"value\":{"
        switch value {
        case .string(let text):
            out += "\"stringValue\":"
            appendString(&out, text)
        case .int(let number): out += "\"intValue\":\"\(number)\""
        case .bool(let flag): out += "\"boolValue\":\(flag)"
        }
        out += "}}"
    }

    /// `text` as a JSON string literal.
    public static func appendString(_ out: inout String, _ text: String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = Hex.string(UInt64(scalar.value))
                    out += "\\u" + hex.suffix(4)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
