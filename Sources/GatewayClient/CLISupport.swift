public import Contracts
import Foundation
import GatewayMessages
import ProcessSupport
import RemoteProtocol
public import RemoteStreams
import ZeroMQ

/// The CURVE keys `gateway-cli` uses (docs/gateway/cli.md, "Keys").
public enum GatewayKeys {
    /// Where the client looks for the gateway's public key when `--server-key` is not given, in
    /// order: the gateway of a local stack started with another `STACK_DIR`, when that variable is
    /// set (`$STACK_DIR/gateway/`), the local stack's gateway at its default place (`make run`,
    /// `make up`: `…/reactive-login/stack/gateway/`), then a gateway started on its own with its
    /// default state directory (`…/reactive-login/gateway/`), the last two under `$XDG_STATE_HOME`,
    /// else `~/.local/state`.
    public static func defaultServerKeyPaths(environment: [String: String]) -> [String] {
        let stack = environment["STACK_DIR"].flatMap { $0.isEmpty ? nil : [$0 + "/gateway/curve.pub"] } ?? []
        return stack
            + ["stack/gateway", "gateway"].map {
                StateDirectory.resolve(service: $0, override: nil, environment: environment) + "/curve.pub"
            }
    }

    /// The CURVE settings for `invocation`: nil with `--curve off`; else the server key (from
    /// `--server-key`, a file or 40 Z85 characters, or the first of ``defaultServerKeyPaths(environment:)`` that exists) and the
    /// client's own pair, generated on first use in `…/reactive-login/gateway-cli/`
    /// (`client.key`, `client.pub`).
    ///
    /// - Throws: ``CLIUsageError`` naming the file or value when a key cannot be found or read.
    public static func curve(for invocation: CLIInvocation, environment: [String: String])
        throws(CLIUsageError) -> RemoteClient.Curve?
    {
        guard invocation.curve else { return nil }
        return try curve(serverKey: invocation.serverKey, environment: environment)
    }

    /// The CURVE settings of a client that reaches the gateway as `gateway-cli` does: the server
    /// key `serverKey` names (a key file or 40 Z85 characters), or the first of
    /// ``defaultServerKeyPaths(environment:)`` that exists, and `gateway-cli`'s own client pair.
    /// `auth-loadtest --target gateway` uses it.
    ///
    /// - Throws: ``CLIUsageError`` naming the file or value when a key cannot be found or read.
    public static func curve(serverKey value: String?, environment: [String: String])
        throws(CLIUsageError) -> RemoteClient.Curve
    {
        let serverKey = try serverKey(value, environment: environment)
        do {
            let directory = try StateDirectory.prepare(
                service: "gateway-cli", override: nil, environment: environment)
            return RemoteClient.Curve(serverKey: serverKey, keys: try CurveKeyFiles.clientKeys(in: directory))
        } catch {
            throw CLIUsageError("cannot set up the client's CURVE keys: \(error)")
        }
    }

    /// The server key `value` names (a key file, else 40 Z85 characters), or the first default file's.
    static func serverKey(_ value: String?, environment: [String: String]) throws(CLIUsageError) -> [UInt8] {
        if let value {
            if !FileManager.default.fileExists(atPath: value), value.utf8.count == 40,
                let key = try? Z85.decode(value)
            {
                return key
            }
            do { return try CurveKeyFiles.publicKey(at: value) } catch {
                throw CLIUsageError("--server-key is neither a readable key file nor a Z85 key: \(error)")
            }
        }
        let candidates = defaultServerKeyPaths(environment: environment)
        guard let path = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw CLIUsageError(
                "no gateway key at \(candidates.joined(separator: " or ")): start the stack (make up), "
                    + "or give --server-key (the gateway's curve.pub) or --curve off")
        }
        do { return try CurveKeyFiles.publicKey(at: path) } catch {
            throw CLIUsageError("cannot read the gateway's key: \(error)")
        }
    }
}

/// How `gateway-cli` prints a script's events (docs/gateway/cli.md, "Output").
public enum ScriptPrinter {
    /// The last line of `--json` output.
    struct Summary: Codable {
        var result: String
        var exit: Int32
        var message: String
        var token: String?
    }

    /// An output event as one JSON line: its wire encoding, without the device token (which the
    /// client keeps in its state directory instead) and the bare trace id.
    public static func jsonLine(_ output: FlowOutput) -> String {
        jsonLine(output, trace: nil)
    }

    /// An output event as one `--json --trace` line: ``jsonLine(_:)`` with `trace`, the trace of
    /// the input that caused it, as its `trace` member (``TracedLines``), e.g.
    /// `{"output":"username","state":"ok",…,"trace":{"trace_id":"…","hops":[…]}}`.
    public static func jsonLine(_ output: FlowOutput, trace: FlowTrace?) -> String {
        var shown = output
        shown.deviceToken = nil
        shown.traceID = nil
        if let trace { shown.trace = trace }
        return encode(shown)
    }

    /// The `--json` result line of a finished script, e.g.
    /// `{"result":"succeeded","exit":0,"message":"6"}`.
    public static func jsonLine(_ result: ScriptResult) -> String {
        encode(
            Summary(
                result: result.outcome.rawValue, exit: result.exitCode.rawValue, message: result.message,
                token: result.token))
    }

    /// The `--json` result line of a failed script, e.g.
    /// `{"result":"timed_out","exit":2,"message":"…"}`.
    public static func jsonLine(_ failure: ScriptFailure) -> String {
        encode(
            Summary(result: failure.kind.rawValue, exit: failure.exitCode.rawValue, message: failure.message))
    }

    /// The `--json --trace` line of an input's trace: the gateway's `trace` output with the name
    /// of the input it traces, e.g.
    /// `{"output":"trace","input":"loginTap","trace":{"trace_id":"…","hops":[…]}}`.
    public static func jsonLine(_ trace: InputTrace) -> String {
        encode(TraceLine(input: trace.input, trace: trace.trace))
    }

    /// The `trace` line of `--json --trace`.
    struct TraceLine: Codable {
        var output = FlowOutput.Name.trace.rawValue
        var input: String?
        var trace: FlowTrace
    }

    /// The waterfall `--trace` prints (to standard error) without `--json`, `width` columns wide:
    /// a heading naming the input and the trace id, then a row per hop (``TraceWaterfall``).
    public static func waterfall(_ trace: InputTrace, width: Int = 80) -> [String] {
        TraceWaterfall.lines(
            trace.trace, width: width, height: trace.trace.hops.count + 3,
            title: trace.input.map { "[\($0)] trace" })
    }

    /// The lines printed without `--json`: the result's lines, its message, and the token on its
    /// own line when the flow gave one.
    public static func textLines(_ result: ScriptResult) -> [String] {
        result.lines + [result.message] + (result.token.map { [$0] } ?? [])
    }

    private static func encode<Value: Encodable>(_ value: Value) -> String {
        do { return String(decoding: try JSONBodyCoder.shared.encode(value), as: UTF8.self) } catch {
            // Only strings, numbers and booleans: encoding cannot fail.
            return #"{"result":"protocol_error","exit":3,"message":"cannot encode the output"}"#
        }
    }
}
