import Contracts
import Dispatch
import Reactive
import RemoteProtocol
public import RemoteStreams
import Synchronization
public import ZeroMQ

/// The parts of a workload a command line chooses.
public struct WorkloadOptions: Sendable {
    /// What to send.
    public var scenario: Scenario
    /// Seeded accounts that logins, lookups and tokens use (`lt_user_0000000`...).
    public var users: Int
    /// The share of logins made with a wrong password (0...1).
    public var failRatio: Double
    /// End-client names spread over (`client` in the bodies), so that per-client limits of the
    /// service apply per simulated person, as behind the gateway.
    public var clients: Int
    /// The seed of the request sequence.
    public var seed: UInt64
    /// Each call's deadline.
    public var timeout: Duration
    /// Which of several generators this is: it uses only its share of `users` and `clients`,
    /// and a seed of its own.
    public var shard: GeneratorShard

    /// Options.
    public init(
        scenario: Scenario, users: Int = 100, failRatio: Double = 0, clients: Int = 1_000,
        seed: UInt64 = 1, timeout: Duration = .seconds(10), shard: GeneratorShard = .whole
    ) {
        self.scenario = scenario
        self.users = users
        self.failRatio = failRatio
        self.clients = clients
        self.seed = seed
        self.timeout = timeout
        self.shard = shard
    }

    /// The seeded users this generator logs in, looks up and verifies: its share of `users`.
    public var userRange: Range<Int> { shard.range(of: users) }

    /// The end-client numbers this generator sends as: its share of `clients`.
    public var clientRange: Range<Int> { shard.range(of: clients) }

    /// Request `index`'s choices, drawn from `seed` by its index alone (so any thread can make
    /// them): its kind, its user among ``userRange``, and the two random draws they came from.
    func choices(for index: Int, seed: UInt64) -> (kind: RequestKind, user: Int, draw: UInt64, second: UInt64)
    {
        let draw = SplitMix64.value(seed: seed, index: UInt64(index))
        let second = SplitMix64.value(seed: seed ^ 0x5EED, index: UInt64(index))
        let users = userRange
        let user = users.isEmpty ? 0 : users.lowerBound + Int(second % UInt64(users.count))
        return (scenario.kind(for: draw), user, draw, second)
    }
}

/// A failure while preparing a run (seeding, fetching tokens).
public struct WorkloadError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}

/// The auth service's calls for a scenario, spread over several `RemoteClient`s (one DEALER each):
/// request `i` goes through client `i % clients.count`.
public final class AuthWorkload: Sendable {
    /// The connections.
    public let clients: [RemoteClient]
    /// The options.
    public let options: WorkloadOptions
    private let tokens: [String]
    private let runTag: String
    private let seed: UInt64
    private let endClients: Range<Int>

    /// A workload over `clients` with session `tokens` for `auth.verify` (needed when the scenario
    /// verifies; see ``fetchTokens(client:options:count:)``).
    public init(clients: [RemoteClient], options: WorkloadOptions, tokens: [String] = []) {
        precondition(!clients.isEmpty, "at least one client")
        self.clients = clients
        self.options = options
        self.tokens = tokens
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        runTag = options.shard.isWhole ? tag : "\(tag)s\(options.shard.index)"
        seed = options.shard.seed(options.seed)
        endClients = options.clientRange.isEmpty ? 0..<1 : options.clientRange
    }

    /// The `index`-th seeded user's name.
    public static func userName(_ index: Int) -> String {
        let digits = String(index)
        return "lt_user_" + String(repeating: "0", count: max(0, 7 - digits.count)) + digits
    }

    /// The `index`-th seeded user's password.
    public static func password(_ index: Int) -> String { "lt-password-\(index)" }

    /// Makes sure the seeded accounts numbered `users` exist: registers each, taking
    /// `409 username.exists` as already done (so later runs reuse them), retrying `overloaded`.
    /// Returns how many were created now.
    public static func seed(client: RemoteClient, users: Range<Int>, inFlight: Int = 16) async throws -> Int {
        try await Seeding.count(users.count, inFlight: inFlight) { offset in
            try await register(client: client, index: users.lowerBound + offset)
        }
    }

    private static func register(client: RemoteClient, index: Int) async throws -> Bool {
        // One key for every attempt: the registration is safe to send again (to another replica too).
        let requestID = RegisterRequest.newRequestID()
        let response = try await Seeding.retryingOverloaded("registering \(userName(index))") {
            try await client.request(
                Methods.Auth.register,
                RegisterRequest(
                    username: userName(index), password: password(index), client: "loadtest-seed",
                    requestID: requestID),
                deadline: .seconds(30)
            ).value
        }
        switch response.statusCode {
        case 201: return true
        case 409: return false
        default: throw WorkloadError("registering \(userName(index)): status \(response.statusCode)")
        }
    }

    /// Logs the first `count` of the seeded users numbered `users` in (correct passwords) and
    /// returns their tokens.
    public static func fetchTokens(client: RemoteClient, users: Range<Int>, count: Int) async throws
        -> [String]
    {
        var tokens: [String] = []
        for index in users.prefix(count) {
            let response = try await client.request(
                Methods.Auth.login,
                LoginRequest(username: userName(index), password: password(index), client: "loadtest-seed"),
                deadline: .seconds(30)
            ).value
            guard response.statusCode == 200, let token = response.user?.userToken else {
                throw WorkloadError(
                    "logging \(userName(index)) in for a token: status \(response.statusCode) "
                        + "(\(response.message.rawValue))")
            }
            tokens.append(token)
        }
        return tokens
    }

    /// Makes request `index` and reports its outcome to `done`: the ``LoadDriver/Call`` of a run.
    public func call(_ index: Int, _ done: @escaping @Sendable (Outcome) -> Void) {
        let client = clients[index % clients.count]
        let (kind, user, draw, second) = options.choices(for: index, seed: seed)
        let endClient = "loadtest-\(endClients.lowerBound + Int((draw >> 20) % UInt64(endClients.count)))"
        let deadline = options.timeout
        let failed: @Sendable (any Error) -> Void = { error in
            let code = (error as? RemoteError)?.code.rawValue ?? "client"
            done(Outcome("error \(code)", isError: true))
        }
        switch kind {
        case .login:
            let wrong = Double((second >> 32) % 1_000_000) < options.failRatio * 1_000_000
            let request = LoginRequest(
                username: Self.userName(user), password: wrong ? "wrong-password" : Self.password(user),
                client: endClient)
            _ = client.request(Methods.Auth.login, request, deadline: deadline)
                .subscribe(
                    onSuccess: { response in
                        let expected = wrong ? 401 : 200
                        done(
                            Outcome("login \(response.statusCode)", isError: response.statusCode != expected))
                    }, onFailure: failed)
        case .register:
            let request = RegisterRequest(
                username: "lt_\(runTag)_\(index)", password: "lt-password-new", client: endClient,
                requestID: "lt_\(runTag)_\(index)")
            _ = client.request(Methods.Auth.register, request, deadline: deadline)
                .subscribe(
                    onSuccess: { response in
                        done(Outcome("register \(response.statusCode)", isError: response.statusCode != 201))
                    }, onFailure: failed)
        case .exists:
            let request = ExistsRequest(username: Self.userName(user), client: endClient)
            _ = client.request(Methods.Auth.exists, request, deadline: deadline)
                .subscribe(
                    onSuccess: { _ in done(Outcome("exists ok", isError: false)) }, onFailure: failed)
        case .flowLogin, .flowRegister, .flowSignin, .flowHeroes:
            // Flows go to the gateway (GatewayWorkload); the command never mixes them in here.
            DispatchQueue.global().async { done(Outcome("error not_an_auth_call", isError: true)) }
        case .verify:
            guard !tokens.isEmpty else {
                DispatchQueue.global().async { done(Outcome("error no_token", isError: true)) }
                return
            }
            let request = VerifyRequest(token: tokens[Int(second % UInt64(tokens.count))])
            _ = client.request(Methods.Auth.verify, request, deadline: deadline)
                .subscribe(
                    onSuccess: { _ in done(Outcome("verify ok", isError: false)) }, onFailure: failed)
        }
    }
}

/// A stand-in auth service for measuring the tool itself and for tests: answers `auth.exists` at
/// once (`{"exists": true}`), except during a stall, when every request is held until the stall
/// ends, as a paused server would hold them. It is ready to `sys.health`, and answers every
/// `auth.register` with `409 username.exists`, so a generator pointed at it seeds nothing.
public final class StubAuthServer: Sendable {
    /// The server.
    public let server: RemoteServer
    private let stallEnd = StallEnd()

    private final class StallEnd: Sendable {
        let value = Atomic<UInt64>(0)
    }

    /// Listens on `endpoint` with its own threads in `context`, answering each request `delay`
    /// after it came (at once for zero); `observe`, when given, sees each request's username and
    /// end client as it arrives (tests use it to check what a workload sends).
    public init(
        context: Context, endpoint: String, delay: Duration = .zero,
        observe: (@Sendable (_ username: String, _ client: String?) -> Void)? = nil
    ) throws {
        let delayNanoseconds = DurationText.nanoseconds(delay)
        var handlers = RemoteHandlers()
        let stallEnd = self.stallEnd
        handlers.handle(Methods.Auth.exists) { (request: ExistsRequest) -> Single<ExistsResponse> in
            observe?(request.username, request.client)
            let now = DispatchTime.now().uptimeNanoseconds
            let until = max(
                stallEnd.value.load(ordering: .relaxed), delayNanoseconds > 0 ? now + delayNanoseconds : 0)
            guard until > now else { return .just(ExistsResponse(exists: true)) }
            return Single.create { done in
                DispatchQueue.global().asyncAfter(deadline: DispatchTime(uptimeNanoseconds: until)) {
                    done(.success(ExistsResponse(exists: true)))
                }
                return Disposables.create()
            }
        }
        // Enough of auth-service for the tool's own start: ready, and every seeded user already there.
        handlers.handle(Methods.System.health) { (_: NoParameters) in
            Single.just(HealthReport(service: "stub-auth", version: "stub", status: .ready, reasons: []))
        }
        handlers.handle(Methods.Auth.register) { (request: RegisterRequest) in
            Single.just(
                RegisterResponse(statusCode: 409, message: .usernameExists, username: request.username))
        }
        server = try RemoteServer(
            context: context,
            configuration: .init(
                endpoints: [endpoint], maxStreamsPerClient: 100_000, maxStreamsTotal: 1_000_000,
                name: "stub-auth"),
            handlers: handlers)
    }

    /// Holds every request that arrives in the next `duration` until it has passed.
    public func stall(for duration: Duration) {
        stallEnd.value.store(
            DispatchTime.now().uptimeNanoseconds + DurationText.nanoseconds(duration), ordering: .relaxed)
    }

    /// Stops the server.
    public func stop() async { await server.stop() }
}
