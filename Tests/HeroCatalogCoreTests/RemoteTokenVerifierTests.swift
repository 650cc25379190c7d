import Contracts
import Foundation
import Reactive
import RemoteProtocol
import RemoteStreams
import TestSupport
import Testing
import ZeroMQ

@testable import HeroCatalogCore

@Suite("RemoteTokenVerifier: auth's answers and failures mapped", .timeLimit(.minutes(1)))
struct RemoteTokenVerifierTests {
    @Test("valid → the user; unauthenticated and bad_request → unauthenticated; others → unavailable")
    func mapping() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let endpoint = "ipc://\(directory.path)/auth.sock"
        let context = try Context()
        defer { context.terminate() }
        var handlers = RemoteHandlers()
        handlers.handle(Methods.Auth.verify) { (request: VerifyRequest) -> Single<VerifyResponse> in
            switch request.token {
            case "good": .just(VerifyResponse(name: "alice", expiresAt: 42))
            case "revoked": .error(RemoteError(code: .unauthenticated, message: "revoked"))
            case "garbage": .error(RemoteError(code: .badRequest, message: "not base64url"))
            default: .error(RemoteError(code: .overloaded, message: "busy"))
            }
        }
        let server = try RemoteServer(
            context: context, configuration: .init(endpoints: [endpoint]), handlers: handlers)
        let client = try RemoteClient(context: context, configuration: .init(endpoints: [endpoint]))
        let verifier = RemoteTokenVerifier(client: client, deadline: .seconds(5))
        #expect(try await verifier.verify("good").value == VerifyResponse(name: "alice", expiresAt: 42))
        #expect(await errorCode(of: verifier.verify("revoked")) == .unauthenticated)
        #expect(await errorCode(of: verifier.verify("garbage")) == .unauthenticated)
        #expect(await errorCode(of: verifier.verify("busy")) == .unavailable)
        await client.stop()
        await server.stop()

        let nobody = try RemoteClient(
            context: context, configuration: .init(endpoints: ["ipc://\(directory.path)/nobody.sock"]))
        let unreachable = RemoteTokenVerifier(client: nobody, deadline: .milliseconds(200))
        #expect(await errorCode(of: unreachable.verify("good")) == .unavailable)
        await nobody.stop()
    }
}
