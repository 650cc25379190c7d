import Contracts
import Foundation
import GatewayClient
import Reactive
import ReactiveTestKit
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// gateway-cli's device tokens: one per account, private, bounded, and kept from the screens' flows.
@Suite(.timeLimit(.minutes(1)))
struct DeviceTokenStoreTests {
    @Test func keepsOneTokenPerAccountInAPrivateFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try DeviceTokenStore.standard(environment: ["XDG_STATE_HOME": directory.path])
        #expect(store.path == directory.file("reactive-login/gateway-cli/device_tokens.json"))
        #expect(store.all().isEmpty)
        #expect(store.token(for: "ann2024") == nil)
        try store.save(IssuedDeviceToken(account: "ann2024", token: "d1"))
        try store.save(IssuedDeviceToken(account: "caf\u{E9}-user", token: "d2"))
        try store.save(IssuedDeviceToken(account: "ann2024", token: "d3"))
        #expect(store.all() == ["ann2024": "d3", "caf\u{E9}-user": "d2"])
        // Typed decomposed, found under the service's (NFC) name.
        #expect(store.token(for: "cafe\u{301}-user") == "d2")
        var status = stat()
        #expect(stat(store.path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        // Another process sees the same.
        #expect(DeviceTokenStore(path: store.path).all() == store.all())
    }

    @Test func keepsTheMostRecentAndSurvivesAGarbledFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = DeviceTokenStore(path: directory.file("device_tokens.json"))
        for index in 0..<(FlowParameters.maximumDeviceTokens + 10) {
            try store.save(IssuedDeviceToken(account: "user\(index)", token: "t\(index)"))
        }
        let kept = store.all()
        #expect(kept.count == FlowParameters.maximumDeviceTokens)
        #expect(kept["user9"] == nil)
        #expect(kept["user10"] == "t10")
        #expect(kept["user73"] == "t73")
        try directory.write("device_tokens.json", "{not json")
        #expect(store.all().isEmpty)
        try store.save(IssuedDeviceToken(account: "ann2024", token: "d1"))
        #expect(store.all() == ["ann2024": "d1"])
    }

    @Test func concurrentSavesAreAllKept() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = DeviceTokenStore(path: directory.file("device_tokens.json"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try store.save(IssuedDeviceToken(account: "user\(index)", token: "t\(index)"))
                }
            }
            try await group.waitForAll()
        }
        #expect(store.all().count == 20)
    }

    @Test func theScreensLoginAndSigninChannelsPresentAndKeepTokens() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = DeviceTokenStore(path: directory.file("device_tokens.json"))
        try store.save(IssuedDeviceToken(account: "ann2024", token: "d1"))
        let seen = Mutex<[FlowMethod: FlowParameters]>([:])
        let open = store.remembering { flow, parameters, inputs in
            seen.withLock { $0[flow] = parameters }
            return FakeGateway.open(flow, parameters, inputs)
        }
        let scheduler = TestScheduler(initialClock: 0)
        func drive(_ flow: FlowMethod, _ inputs: [FlowInput]) {
            let subject = ReplaySubject<FlowInput>.createUnbounded()
            for input in inputs { subject.onNext(input) }
            let subscription = open(flow, FlowParameters(locale: .en), subject.asObservable()).subscribe()
            scheduler.start()
            subscription.dispose()
        }
        drive(
            Methods.Flow.signin,
            [.text(.username, "ann2024"), .text(.password, "secret1"), .tap(.loginTap)])
        drive(
            Methods.Flow.login,
            [.text(.phone, "13800138000"), .text(.password, "secret1"), .tap(.loginTap)])
        drive(Methods.Flow.numbers, [.text(.a, "1")])
        #expect(seen.withLock { $0[Methods.Flow.signin]?.deviceTokens } == ["ann2024": "d1"])
        #expect(seen.withLock { $0[Methods.Flow.numbers]?.deviceTokens } == nil)
        #expect(store.all() == ["ann2024": "d1+", "13800138000": "dev-13800138000"])
    }
}
