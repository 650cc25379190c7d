import Foundation

/// The hops of a traced call, as a server returns them to a caller that asked for the trace: a
/// `trace` member of the answer object (docs/PROTOCOL.md, "Trace context"):
///
/// ```json
/// {"trace":{"trace_id":"4bf9…4736","hops":[{"service":"auth","shard":0,"method":"argon2id",
///   "start_us":120,"duration_us":48210,"outcome":"ok","depth":0}]},"status_code":200,…}
/// ```
///
/// `start_us` is the hop's start in microseconds from the start of the call that returns it,
/// `duration_us` its length; `depth` 0 is work of the server itself or a call it made, 1 a call made
/// by the service that call reached, and so on.
public enum TraceSummary {
    /// The `trace` object for `traceID` and `hops`.
    public static func object(traceID: String, hops: [Hop]) -> String {
        var out = "{\"trace_id\":\"" + traceID + "\",\"hops\":["
        for (index, hop) in hops.enumerated() {
            if index > 0 { out += "," }
            out += "{\"service\":"
            OTLPJSON.appendString(&out, hop.service)
            if let shard = hop.shard { out += ",\"shard\":\(shard)" }
            out += ",\"method\":"
            OTLPJSON.appendString(&out, hop.method)
            out +=
                ",\"start_us\":\(hop.startOffsetNanos / 1_000),\"duration_us\":\(hop.durationNanos / 1_000)"
            out += ",\"outcome\":"
            OTLPJSON.appendString(&out, hop.outcome)
            out += ",\"depth\":\(hop.depth)}"
        }
        return out + "]}"
    }

    /// `body` with a `trace` member first, when it is a JSON object; else `body` as it is.
    public static func inject(traceID: String, hops: [Hop], into body: [UInt8]) -> [UInt8] {
        prepending(Array(("\"trace\":" + object(traceID: traceID, hops: hops)).utf8), to: body)
    }

    /// `body` with `member` (`"name":value`) as its first member, when it is a JSON object; else
    /// `body` as it is.
    private static func prepending(_ member: [UInt8], to body: [UInt8]) -> [UInt8] {
        guard let first = body.firstIndex(where: { !TraceBody.isSpace($0) }), body[first] == UInt8(ascii: "{")
        else { return body }
        let rest = body[(first + 1)...]
        let empty = rest.first(where: { !TraceBody.isSpace($0) }) == UInt8(ascii: "}")
        var out: [UInt8] = []
        out.reserveCapacity(member.count + rest.count + 2)
        out.append(UInt8(ascii: "{"))
        out.append(contentsOf: member)
        if !empty { out.append(UInt8(ascii: ",")) }
        out.append(contentsOf: rest)
        return out
    }

    private static let tagPrefix = Array("{\"trace_id\":\"".utf8)

    /// `body` with a `trace_id` member first, when it is a JSON object (else `body` as it is): a
    /// channel element sent while the input that caused it is being handled, for a sender that asked
    /// for that input's trace (docs/PROTOCOL.md, "Trace context"):
    /// `{"trace_id":"4bf9…4736","state":"ok",…}`.
    public static func tag(_ body: [UInt8], traceID: String) -> [UInt8] {
        prepending(Array(("\"trace_id\":\"" + traceID + "\"").utf8), to: body)
    }

    /// The trace id of an element tagged by ``tag(_:traceID:)``: 32 lower-case hex digits right
    /// after `{"trace_id":"`; nil for any other body. Reads only the prefix.
    public static func taggedTraceID(in body: [UInt8]) -> String? {
        let end = tagPrefix.count + 32
        guard body.count > end, body.starts(with: tagPrefix), body[end] == UInt8(ascii: "\"") else {
            return nil
        }
        let digits = body[tagPrefix.count..<end]
        guard
            digits.allSatisfy({
                ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                    || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f"))
            })
        else { return nil }
        return String(decoding: digits, as: UTF8.self)
    }

    private static let marker = Array("\"trace\"".utf8)
    private static let reportPrefix = Array("{\"trace\":".utf8)

    /// The channel element a server sends when an input element that carried a sampled
    /// `traceparent` is done: an object whose only member is `trace` (docs/PROTOCOL.md, "Trace
    /// context").
    public static func report(traceID: String, hops: [Hop]) -> [UInt8] {
        Array(("{\"trace\":" + object(traceID: traceID, hops: hops) + "}").utf8)
    }

    /// The trace id and hops of `body` when it is such a report (its only member is `trace`); nil
    /// for any other element.
    public static func report(in body: [UInt8]) -> (traceID: String, hops: [Hop])? {
        guard body.starts(with: reportPrefix),
            let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            object.count == 1, let trace = object["trace"] as? [String: Any],
            let traceID = trace["trace_id"] as? String, let hops = hops(of: trace)
        else { return nil }
        return (traceID, hops)
    }

    /// The hops of the top-level `trace` member of the JSON object `body`; nil when it has none or
    /// it cannot be read.
    public static func hops(in body: [UInt8]) -> [Hop]? {
        guard TraceBody.find(marker, in: body, from: 0) != nil,
            let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let trace = object["trace"] as? [String: Any]
        else { return nil }
        return hops(of: trace)
    }

    /// The hops of a decoded `trace` object.
    public static func hops(of trace: [String: Any]) -> [Hop]? {
        guard let list = trace["hops"] as? [[String: Any]] else { return nil }
        return list.compactMap { item in
            guard let service = item["service"] as? String, let method = item["method"] as? String else {
                return nil
            }
            let start = (item["start_us"] as? NSNumber)?.uint64Value ?? 0
            let duration = (item["duration_us"] as? NSNumber)?.uint64Value ?? 0
            return Hop(
                service: service, shard: (item["shard"] as? NSNumber)?.intValue, method: method,
                startOffsetNanos: start &* 1_000, durationNanos: duration &* 1_000,
                outcome: item["outcome"] as? String ?? "ok",
                depth: (item["depth"] as? NSNumber)?.intValue ?? 0)
        }
    }
}
