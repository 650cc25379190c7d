// Differential libFuzzer target for the direct JSON codings (`make fuzz-json`): each input is a body
// for one Contracts type, decoded by the direct coding and by the Codable path (the oracle), and any
// difference crashes the fuzzer, which saves the input.
//
// Not a SwiftPM target: `make fuzz-json` compiles RemoteProtocol and Contracts as static libraries
// and this file against them, with `-sanitize=fuzzer,address`.
//
// Input format: byte 0 picks the body type (modulo the number of types below); every other byte is
// the body. For each input:
// - both paths accept it with equal values, which both paths then encode to the same bytes (plain
//   and with sorted keys), and the direct coding reads those bytes back as the same value; or
// - both refuse it, `JSONBodyCoder` (direct first) throws exactly the Codable path's error, and a
//   syntax error the direct reader reports is the parser's (same reason, same byte offset).

import Contracts
import RemoteProtocol

let codable = JSONBodyCoder(usesDirectCoding: false)
let codableSorted = JSONBodyCoder(sortedKeys: true, usesDirectCoding: false)
let direct = JSONBodyCoder.shared
let directSorted = JSONBodyCoder(sortedKeys: true)

/// Stops the fuzzer with `message`: libFuzzer reports the crash and saves the input.
func fuzzFailure(_ message: String) -> Never {
    fatalError("JSONBodyFuzz: \(message)")
}

/// Checks one body as a `Body` (see the file's header).
func check<Body: JSONBody & Equatable>(_ type: Body.Type, _ body: [UInt8]) {
    let ours = Result { () throws(JSONReadError) in try direct.decodeDirect(Body.self, from: body) }
    let theirs = Result { () throws(RemoteError) in try codable.decode(Body.self, from: body) }
    switch (ours, theirs) {
    case (.success(let a), .success(let b)):
        guard a == b else { fuzzFailure("\(Body.self): direct read \(a), Codable \(b)") }
        for (ourCoder, theirCoder) in [(direct, codable), (directSorted, codableSorted)] {
            guard let ourBytes = try? ourCoder.encodeDirect(a), let theirBytes = try? theirCoder.encode(b)
            else {
                fuzzFailure("\(Body.self): \(a) does not encode")
            }
            guard ourBytes == theirBytes else {
                fuzzFailure(
                    "\(Body.self): direct wrote \(String(decoding: ourBytes, as: UTF8.self)), Codable "
                        + String(decoding: theirBytes, as: UTF8.self))
            }
            guard (try? direct.decodeDirect(Body.self, from: ourBytes)) == a else {
                fuzzFailure("\(Body.self): \(String(decoding: ourBytes, as: UTF8.self)) does not read back")
            }
        }
    case (.success(let a), .failure(let error)):
        fuzzFailure("\(Body.self): direct accepts (\(a)), Codable refuses: \(error.message)")
    case (.failure(let error), .success(let b)):
        fuzzFailure("\(Body.self): direct refuses (\(error)), Codable accepts \(b)")
    case (.failure(let ourError), .failure(let theirError)):
        do {
            _ = try direct.decode(Body.self, from: body)
            fuzzFailure("\(Body.self): the coder accepts what both paths refuse")
        } catch {
            guard error == theirError else {
                fuzzFailure("\(Body.self): the coder throws \(error), the Codable path \(theirError)")
            }
        }
        if ourError.offset != nil && theirError.message != "body is not JSON for \(Body.self): \(ourError)" {
            fuzzFailure("\(Body.self): direct says \(ourError), Codable \(theirError.message)")
        }
    }
}

/// The body types, by the input's first byte.
let checks: [@Sendable ([UInt8]) -> Void] = [
    { check(LoginRequest.self, $0) },
    { check(LoginResponse.self, $0) },
    { check(FlowOutput.self, $0) },
    { check(HeroSearchResponse.self, $0) },
    { check(StatsReport.self, $0) },
    { check(ValidationResult.self, $0) },
    { check(FlowTrace.self, $0) },
    { check(FieldsParameters.self, $0) },
    { check(RegisterRequest.self, $0) },
    { check(FlowParameters.self, $0) },
    { check(HealthReport.self, $0) },
    { check(AccountEvent.self, $0) },
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeBufferPointer(start: data, count: size)
    guard let first = input.first else { return 0 }
    checks[Int(first) % checks.count](Array(input.dropFirst()))
    return 0
}
