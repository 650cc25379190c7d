import Contracts
import Foundation
import Reactive
import RemoteProtocol
@testable import RemoteStreams
import TestSupport
import Testing
import ZeroMQ

@testable import HeroCatalogCore

/// A body of any shape, for calls the contract types cannot make.
struct RawBody: Encodable, Sendable {
    var fields: [String: JSONField]

    enum JSONField: Encodable, Sendable {
        case text(String), number(Int)

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .text(let text): try container.encode(text)
            case .number(let number): try container.encode(number)
            }
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(fields)
    }
}

@Suite("HeroCatalogService over the wire: the token is checked first", .timeLimit(.minutes(1)))
struct TokenFirstTests {
    @Test("registers the methods of its contract, Methods.Heroes")
    func registersItsContract() throws {
        let service = HeroCatalogService(
            catalog: try edgeCaseCatalog(), verifier: StubTokenVerifier(valid: ["good": "alice"]),
            loop: TestLoop.shared)
        var handlers = RemoteHandlers()
        service.register(into: &handlers)
        #expect(handlers.names == Methods.Heroes.all.map(\.name).sorted())
    }

    @Test("no token member is unauthenticated, whatever else is wrong; then the parameters")
    func tokenFirst() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let endpoint = "ipc://\(directory.path)/heroes.sock"
        let context = try Context()
        defer { context.terminate() }
        let service = HeroCatalogService(
            catalog: try edgeCaseCatalog(), verifier: StubTokenVerifier(valid: ["good": "alice"]),
            loop: TestLoop.shared)
        var handlers = RemoteHandlers()
        service.register(into: &handlers)
        let server = try RemoteServer(
            context: context, configuration: .init(endpoints: [endpoint]), handlers: handlers)
        let client = try RemoteClient(context: context, configuration: .init(endpoints: [endpoint]))
        // Bodies the descriptors' parameter types cannot make: sent under the methods' names.
        func code(_ method: any RemoteMethod, _ fields: [String: RawBody.JSONField]) async -> ErrorCode? {
            await errorCode(
                of: client.request(method.name, RawBody(fields: fields), as: HeroSearchResponse.self))
        }
        func streamCode(_ fields: [String: RawBody.JSONField]) async -> ErrorCode? {
            await errorCode(
                of: client.stream(
                    Methods.Heroes.watch.name, RawBody(fields: fields), as: HeroSearchResponse.self
                ).asSingle())
        }
        // No token at all: unauthenticated, even with the other parameters missing or wrong.
        #expect(await code(Methods.Heroes.search, [:]) == .unauthenticated)
        #expect(await code(Methods.Heroes.search, ["query": .number(3)]) == .unauthenticated)
        #expect(await code(Methods.Heroes.get, ["id": .text("one")]) == .unauthenticated)
        #expect(await streamCode(["limit": .number(0)]) == .unauthenticated)
        // A token that is not a string is no token.
        #expect(
            await code(Methods.Heroes.search, ["query": .text(""), "token": .number(7)]) == .unauthenticated)
        // A wrong token before bad parameters.
        #expect(await code(Methods.Heroes.search, ["token": .text("bad")]) == .unauthenticated)
        #expect(
            await streamCode(["query": .text(""), "limit": .number(0), "token": .text("bad")])
                == .unauthenticated)
        // A good token, then the parameters.
        #expect(await code(Methods.Heroes.search, ["token": .text("good")]) == .badRequest)
        #expect(await code(Methods.Heroes.get, ["id": .text("one"), "token": .text("good")]) == .badRequest)
        #expect(
            await streamCode(["query": .text(""), "limit": .number(0), "token": .text("good")]) == .badRequest
        )
        #expect(await code(Methods.Heroes.search, ["query": .text("jean"), "token": .text("good")]) == nil)
        #expect(service.counters.unauthenticated == 7 && service.counters.badRequests == 3)
        await client.stop()
        await server.stop()
    }
}
