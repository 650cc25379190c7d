// `make bench-json`: JSONBodyCoder's own coder against Foundation's JSONEncoder/JSONDecoder, in one
// run, release mode, from a separate module (as RemoteStreams calls it). Prints nanoseconds per
// encode and per decode for each body and the ratio Foundation / ours; then, for Contracts bodies,
// JSONBodyCoder's Codable path against the direct codings (called with the concrete type, and
// through a generic `Codable` function as RemoteStreams calls the coder) and the ratio.
//
// Each measurement runs `rounds` rounds of `iterations` calls and reports the best round.
//
//   JSONBenchmarks [--iterations N] [--rounds N] [--ours-only] [--login-only]
//   (--ours-only skips Foundation and --login-only body (b), for profiling)

import Contracts
import Dispatch
import Foundation
import RemoteProtocol

/// The five-string request body of the login service.
struct LoginBody: Codable, Equatable {
    var username: String
    var password: String
    var phone: String
    var locale: String
    var client: String
}

/// A nested body: ints, doubles, bools, optionals, an array of structs, a `[String: Int]`.
struct ProfileBody: Codable, Equatable {
    struct Friend: Codable, Equatable {
        var name: String
        var since: Int
        var score: Double
        var close: Bool
    }

    var id: Int
    var score: Double
    var active: Bool
    var nickname: String?
    var age: Int?
    var tags: [String]
    var friends: [Friend]
    var counts: [String: Int]
}

let login = LoginBody(
    username: "alice", password: "correct horse", phone: "+44 20 7946 0000", locale: "en_GB",
    client: "ios/2.3.1")
let profile = ProfileBody(
    id: 42, score: 98.25, active: true, nickname: "al", age: nil, tags: ["admin", "beta"],
    friends: [
        .init(name: "bob", since: 2019, score: 3.5, close: true),
        .init(name: "carol", since: 2021, score: 0.1, close: false),
        .init(name: "dave", since: 2024, score: 12, close: true),
    ],
    counts: ["logins": 17, "failures": 2, "resets": 0])

/// `--iterations` and `--rounds` from the command line.
func parseArguments() -> (iterations: Int, rounds: Int, oursOnly: Bool, loginOnly: Bool) {
    var settings = (iterations: 200_000, rounds: 5, oursOnly: false, loginOnly: false)
    var arguments = CommandLine.arguments.dropFirst()
    while let argument = arguments.popFirst() {
        switch argument {
        case "--iterations":
            settings.iterations = arguments.popFirst().flatMap(Int.init) ?? settings.iterations
        case "--rounds": settings.rounds = arguments.popFirst().flatMap(Int.init) ?? settings.rounds
        case "--ours-only": settings.oursOnly = true
        case "--login-only": settings.loginOnly = true
        default:
            print("usage: JSONBenchmarks [--iterations N] [--rounds N] [--ours-only] [--login-only]")
            exit(argument == "--help" ? 0 : 2)
        }
    }
    return settings
}

let (iterations, rounds, oursOnly, loginOnly) = parseArguments()

/// The best nanoseconds per call of `body` over `rounds` rounds of `iterations` calls; `body`
/// returns a number that is summed so the work cannot be optimised away.
func nanosecondsPerCall(foundation: Bool = false, _ body: () -> Int) -> Double {
    if foundation && oursOnly { return .nan }
    var best = Double.infinity
    var checksum = 0
    for _ in 0..<(iterations / 10) { checksum &+= body() }
    for _ in 0..<rounds {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<iterations { checksum &+= body() }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start)
        best = min(best, elapsed / Double(iterations))
    }
    precondition(checksum != Int.min, "unreachable; keeps the results alive")
    return best
}

/// One body's four measurements, printed as two rows.
func compare<Body: Codable & Equatable>(_ name: String, _ value: Body) throws {
    let ours = JSONBodyCoder.shared
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes]
    let decoder = JSONDecoder()
    let ourBytes = try ours.encode(value)
    let foundationData = try encoder.encode(value)
    let ourRoundTrip = try ours.decode(Body.self, from: ourBytes)
    let foundationReadsOurs = try decoder.decode(Body.self, from: Data(ourBytes))
    let weReadFoundations = try ours.decode(Body.self, from: [UInt8](foundationData))
    precondition(ourRoundTrip == value && foundationReadsOurs == value && weReadFoundations == value)

    let foundationEncode = nanosecondsPerCall(foundation: true) {
        (try? [UInt8](encoder.encode(value)))?.count ?? 0
    }
    let ourEncode = nanosecondsPerCall { (try? ours.encode(value))?.count ?? 0 }
    // Foundation is given the body as it arrives ([UInt8]), so its figure includes making a Data.
    let foundationDecode = nanosecondsPerCall(foundation: true) {
        (try? decoder.decode(Body.self, from: Data(ourBytes))) == nil ? 0 : 1
    }
    let ourDecode = nanosecondsPerCall { (try? ours.decode(Body.self, from: ourBytes)) == nil ? 0 : 1 }
    func row(_ operation: String, _ foundation: Double, _ ours: Double) {
        let label = "\(name) \(operation)".padding(toLength: 34, withPad: " ", startingAt: 0)
        print(
            label + String(format: "%12.0f %12.0f %9.1fx", foundation, ours, foundation / ours))
    }
    print("\(name): \(ourBytes.count) bytes")
    row("encode", foundationEncode, ourEncode)
    row("decode", foundationDecode, ourDecode)
    row("encode + decode", foundationEncode + foundationDecode, ourEncode + ourDecode)
}

print("JSON bodies, ns per call (best of \(rounds) rounds of \(iterations))")
print("".padding(toLength: 34, withPad: " ", startingAt: 0) + "  Foundation          ours     ratio")
try compare("(a) five strings", login)
if !loginOnly { try compare("(b) nested struct", profile) }

/// The Codable path against the direct coding of one Contracts body, printed as three rows.
func compareDirect<Body: JSONBody & Equatable>(_ name: String, _ value: Body) throws {
    let codable = JSONBodyCoder(usesDirectCoding: false)
    let direct = JSONBodyCoder.shared
    let bytes = try direct.encode(value)
    let codableBytes = try codable.encode(value)
    precondition(codableBytes == bytes, "the direct coding writes other bytes")
    let directValue = try direct.decode(Body.self, from: bytes)
    let codableValue = try codable.decode(Body.self, from: bytes)
    precondition(directValue == value && codableValue == value)
    let codableEncode = nanosecondsPerCall { (try? codable.encode(value))?.count ?? 0 }
    let directEncode = nanosecondsPerCall { (try? direct.encode(value))?.count ?? 0 }
    let genericEncode = nanosecondsPerCall { (try? encodeGenerically(direct, value))?.count ?? 0 }
    let codableDecode = nanosecondsPerCall { (try? codable.decode(Body.self, from: bytes)) == nil ? 0 : 1 }
    let directDecode = nanosecondsPerCall { (try? direct.decode(Body.self, from: bytes)) == nil ? 0 : 1 }
    let genericDecode = nanosecondsPerCall {
        (try? decodeGenerically(direct, Body.self, bytes)) == nil ? 0 : 1
    }
    print("\(name): \(bytes.count) bytes")
    directRow(name, "encode", codableEncode, directEncode, genericEncode)
    directRow(name, "decode", codableDecode, directDecode, genericDecode)
    directRow(
        name, "encode + decode", codableEncode + codableDecode, directEncode + directDecode,
        genericEncode + genericDecode)
}

func directRow(_ name: String, _ operation: String, _ codable: Double, _ direct: Double, _ generic: Double) {
    let label = "\(name) \(operation)".padding(toLength: 34, withPad: " ", startingAt: 0)
    print(
        label
            + String(
                format: "%10.0f %10.0f %10.0f %8.1fx %8.1fx", codable, direct, generic, codable / direct,
                codable / generic))
}

/// Through a generic `Encodable` function, as RemoteStreams' handlers and client call the coder.
@inline(never)
func encodeGenerically<Value: Encodable>(_ coder: JSONBodyCoder, _ value: Value) throws -> [UInt8] {
    try coder.encode(value)
}

@inline(never)
func decodeGenerically<Value: Decodable>(_ coder: JSONBodyCoder, _ type: Value.Type, _ bytes: [UInt8]) throws
    -> Value
{
    try coder.decode(type, from: bytes)
}

let loginRequest = LoginRequest(
    username: "alice", password: "correct horse battery", client: "ios/2.3.1",
    deviceToken: String(repeating: "d", count: 64))
let loginResponse = LoginResponse(
    statusCode: 200, message: .loginOK,
    user: .init(
        name: "alice", userToken: String(repeating: "t", count: 43),
        deviceToken: String(repeating: "d", count: 64)))
let heroPage = FlowOutput(
    .heroes,
    heroes: (1...5).map { FlowHero(id: $0, name: "Hero \($0)", intro: "The introduction of hero \($0).") },
    query: "he", page: 0, total: 151, pageSize: 50)
let fieldResult = FieldResult(field: .username, result: .failed(.usernameShort, ["n": "6"]))

print("")
print("Contracts bodies, ns per call: JSONBodyCoder's Codable path against the direct coding")
print(
    "".padding(toLength: 34, withPad: " ", startingAt: 0)
        + "   Codable     direct    generic    ratio  generic")
try compareDirect("(c) LoginRequest", loginRequest)
try compareDirect("(d) LoginResponse", loginResponse)
try compareDirect("(e) FlowOutput, 5 heroes", heroPage)
try compareDirect("(f) FieldResult", fieldResult)
do {
    // One auth.login round trip's coding: the client encodes the request, the server decodes it and
    // encodes the answer, the client decodes the answer.
    let codable = JSONBodyCoder(usesDirectCoding: false)
    let direct = JSONBodyCoder.shared
    func roundTrip(_ coder: JSONBodyCoder) -> Int {
        guard let request = try? encodeGenerically(coder, loginRequest),
            let received = try? decodeGenerically(coder, LoginRequest.self, request),
            let answer = try? encodeGenerically(coder, loginResponse),
            let decoded = try? decodeGenerically(coder, LoginResponse.self, answer)
        else { return 0 }
        return received.username.utf8.count + decoded.statusCode
    }
    let codableTrip = nanosecondsPerCall { roundTrip(codable) }
    let directTrip = nanosecondsPerCall { roundTrip(direct) }
    directRow("(g) auth.login", "round trip (generic)", codableTrip, directTrip, directTrip)
}
