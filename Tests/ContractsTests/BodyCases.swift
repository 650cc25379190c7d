import Contracts
import RemoteProtocol

extension BodyGenerator {
    mutating func hop() -> FlowTrace.Hop {
        FlowTrace.Hop(
            service: string(), shard: optional { $0.int() }, method: string(), startMicros: int(),
            durationMicros: int(), outcome: string(), depth: int())
    }

    mutating func trace() -> FlowTrace { FlowTrace(traceID: string(), hops: array { $0.hop() }) }

    mutating func hero() -> Hero {
        Hero(id: int(), name: dictionary { $0.string() }, intro: dictionary { $0.string() }, icon: string())
    }

    mutating func flowHero() -> FlowHero { FlowHero(id: int(), name: string(), intro: string()) }

    mutating func validationResult() -> ValidationResult {
        ValidationResult(
            state: enumCase(ValidationResult.State.self), code: optional { $0.code() },
            params: dictionary { $0.string() })
    }

    mutating func locale() -> MessageLocale? { optional { $0.enumCase(MessageLocale.self) } }
}

/// Every body type with a direct coding, and how to make random values of it. The contract tests
/// check this list against the `extension …: JSONBody` declarations in Sources/Contracts.
let bodyCases: [BodyCase] = [
    BodyCase("RegisterRequest", RegisterRequest.self) {
        RegisterRequest(
            username: $0.string(), password: $0.string(), client: $0.optional { $0.string() },
            requestID: $0.optional { $0.string() })
    },
    BodyCase("RegisterResponse", RegisterResponse.self) {
        RegisterResponse(statusCode: $0.int(), message: $0.code(), username: $0.string())
    },
    BodyCase("LoginRequest", LoginRequest.self) {
        LoginRequest(
            username: $0.string(), password: $0.string(), client: $0.optional { $0.string() },
            deviceToken: $0.optional { $0.string() })
    },
    BodyCase("LoginResponse", LoginResponse.self) {
        LoginResponse(
            statusCode: $0.int(), message: $0.code(),
            user: $0.optional {
                LoginResponse.User(
                    name: $0.string(), userToken: $0.string(), deviceToken: $0.optional { $0.string() })
            }, retryAfter: $0.optional { $0.int() })
    },
    BodyCase("LoginResponse.User", LoginResponse.User.self) {
        LoginResponse.User(
            name: $0.string(), userToken: $0.string(), deviceToken: $0.optional { $0.string() })
    },
    BodyCase("ExistsRequest", ExistsRequest.self) {
        ExistsRequest(username: $0.string(), client: $0.optional { $0.string() })
    },
    BodyCase("ExistsResponse", ExistsResponse.self) { ExistsResponse(exists: $0.bool()) },
    BodyCase("VerifyRequest", VerifyRequest.self) { VerifyRequest(token: $0.string()) },
    BodyCase("VerifyResponse", VerifyResponse.self) {
        VerifyResponse(name: $0.string(), expiresAt: $0.int64())
    },
    BodyCase("LogoutRequest", LogoutRequest.self) { LogoutRequest(token: $0.string()) },
    BodyCase("LogoutResponse", LogoutResponse.self) { LogoutResponse(revoked: $0.bool()) },
    BodyCase("AccountEvent", AccountEvent.self) {
        AccountEvent(
            kind: $0.pick([.registered, .loggedIn, .failed, .locked, .loggedOut]), username: $0.string(),
            client: $0.optional { $0.string() }, at: $0.int64())
    },
    BodyCase("FlowTrace", FlowTrace.self) { $0.trace() },
    BodyCase("FlowTrace.Hop", FlowTrace.Hop.self) { $0.hop() },
    BodyCase("FlowParameters", FlowParameters.self) {
        FlowParameters(
            locale: $0.locale(), token: $0.optional { $0.string() },
            deviceTokens: $0.optional { $0.dictionary { $0.string() } })
    },
    BodyCase("FlowInput", FlowInput.self) {
        FlowInput(
            input: $0.string(), text: $0.optional { $0.string() }, traceparent: $0.optional { $0.string() })
    },
    BodyCase("FlowHero", FlowHero.self) { $0.flowHero() },
    BodyCase("FlowOutput", FlowOutput.self) { generator in
        var output = FlowOutput(
            output: generator.string(), value: generator.optional { $0.bool() },
            state: generator.optional { $0.enumCase(ValidationResult.State.self) },
            code: generator.optional { $0.code() }, message: generator.optional { $0.string() },
            kind: generator.optional { $0.string() }, name: generator.optional { $0.string() },
            token: generator.optional { $0.string() }, deviceToken: generator.optional { $0.string() },
            heroes: generator.optional { $0.array { $0.flowHero() } },
            number: generator.optional { $0.int() },
            query: generator.optional { $0.string() }, page: generator.optional { $0.int() },
            total: generator.optional { $0.int() }, pageSize: generator.optional { $0.int() },
            trace: generator.optional { $0.trace() })
        output.traceID = generator.optional { $0.string() }
        return output
    },
    BodyCase("LoginCommand", LoginCommand.self) {
        LoginCommand(
            phone: $0.string(), password: $0.string(), locale: $0.locale(),
            deviceToken: $0.optional { $0.string() })
    },
    BodyCase("RegisterCommand", RegisterCommand.self) {
        RegisterCommand(
            username: $0.string(), password: $0.string(), repeatPassword: $0.optional { $0.string() },
            locale: $0.locale())
    },
    BodyCase("SigninCommand", SigninCommand.self) {
        SigninCommand(
            username: $0.string(), password: $0.string(), locale: $0.locale(),
            deviceToken: $0.optional { $0.string() })
    },
    BodyCase("CommandResult", CommandResult.self) {
        CommandResult(
            ok: $0.bool(), code: $0.code(), message: $0.string(), name: $0.optional { $0.string() },
            token: $0.optional { $0.string() }, deviceToken: $0.optional { $0.string() })
    },
    BodyCase("HeroesCommand", HeroesCommand.self) {
        HeroesCommand(
            token: $0.string(), query: $0.optional { $0.string() }, offset: $0.optional { $0.int() },
            limit: $0.optional { $0.int() }, locale: $0.locale())
    },
    BodyCase("HeroesCommandResult", HeroesCommandResult.self) {
        HeroesCommandResult(total: $0.int(), heroes: $0.array { $0.flowHero() })
    },
    BodyCase("Hero", Hero.self) { $0.hero() },
    BodyCase("HeroSearchRequest", HeroSearchRequest.self) {
        HeroSearchRequest(
            query: $0.string(), offset: $0.optional { $0.int() }, limit: $0.optional { $0.int() },
            token: $0.string())
    },
    BodyCase("HeroSearchResponse", HeroSearchResponse.self) {
        HeroSearchResponse(total: $0.int(), items: $0.array { $0.hero() })
    },
    BodyCase("HeroGetRequest", HeroGetRequest.self) { HeroGetRequest(id: $0.int(), token: $0.string()) },
    BodyCase("HeroWatchRequest", HeroWatchRequest.self) {
        HeroWatchRequest(
            query: $0.string(), offset: $0.optional { $0.int() }, limit: $0.optional { $0.int() },
            token: $0.string())
    },
    BodyCase("HealthReport", HealthReport.self) { generator in
        var report = HealthReport(
            service: generator.string(), version: generator.string(),
            status: generator.pick([.starting, .ready, .degraded, .draining]),
            reasons: generator.array { $0.string() })
        if generator.chance(30) { report.ready.toggle() }
        return report
    },
    BodyCase("StatsReport", StatsReport.self) {
        StatsReport(
            service: $0.string(), version: $0.string(), uptimeSeconds: $0.int64(),
            counters: $0.dictionary { $0.dictionary { $0.int() } })
    },
    BodyCase("ValidationResult", ValidationResult.self) { $0.validationResult() },
    BodyCase("PhoneValidationRequest", PhoneValidationRequest.self) {
        PhoneValidationRequest(text: $0.string())
    },
    BodyCase("PasswordValidationRequest", PasswordValidationRequest.self) {
        PasswordValidationRequest(text: $0.string(), purpose: $0.enumCase(PasswordPurpose.self))
    },
    BodyCase("UsernameValidationRequest", UsernameValidationRequest.self) {
        UsernameValidationRequest(
            text: $0.string(), purpose: $0.enumCase(UsernamePurpose.self), client: $0.optional { $0.string() }
        )
    },
    BodyCase("RepeatValidationRequest", RepeatValidationRequest.self) {
        RepeatValidationRequest(password: $0.string(), repeat: $0.string())
    },
    BodyCase("FieldsParameters", FieldsParameters.self) {
        FieldsParameters(
            usernamePurpose: $0.enumCase(UsernamePurpose.self),
            passwordPurpose: $0.enumCase(PasswordPurpose.self),
            client: $0.optional { $0.string() })
    },
    BodyCase("FieldEdit", FieldEdit.self) { FieldEdit(field: $0.enumCase(Field.self), text: $0.string()) },
    BodyCase("FieldResult", FieldResult.self) {
        FieldResult(field: $0.enumCase(Field.self), result: $0.validationResult())
    },
    BodyCase("ShardEndpoints", ShardEndpoints.self) {
        ShardEndpoints(endpoints: $0.array { $0.string() }, shard: $0.int())
    },
]
