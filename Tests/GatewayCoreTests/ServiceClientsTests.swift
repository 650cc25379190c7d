import Contracts
import GatewayCore
import Reactive
import Testing

@Suite("Gateway service clients", .timeLimit(.minutes(1)))
struct ServiceClientsTests {
    /// The protocols can be implemented by a plain stub (as the view models' tests do).
    struct EchoAuth: AuthServiceClient {
        func login(_ request: LoginRequest) -> Single<LoginResponse> {
            .just(LoginResponse(statusCode: 401, message: .loginWrongPassword))
        }

        func register(_ request: RegisterRequest) -> Single<RegisterResponse> {
            .just(RegisterResponse(statusCode: 201, message: .registerOK, username: request.username))
        }
    }

    @Test func aStubAnswers() async throws {
        let auth: any AuthServiceClient = EchoAuth()
        let answer = try await auth.register(RegisterRequest(username: "someone", password: "secret1")).value
        #expect(answer.statusCode == 201)
    }
}
