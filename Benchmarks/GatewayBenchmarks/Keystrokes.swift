// The closed loop of the keystroke measurement. Each flow channel has one keystroke in flight: the
// field's next whole text goes out, and when the field's output with the expected state comes back
// the latency is recorded and the next text goes out, from the client's socket thread (where
// RemoteClient delivers), so no thread or actor hop of the benchmark's own is measured. The texts
// alternate between a valid and an invalid one, so every keystroke changes the output.

import Contracts
import Dispatch
import Measuring
import Reactive
import RemoteStreams
import Synchronization

/// What a keystroke run types, and what it waits for.
struct KeystrokeScript: Sendable {
    /// The flow (`flow.login`, `flow.register`).
    let method: FlowMethod
    /// The field typed in (`phone`, `username`).
    let field: FlowInput.Name
    /// The field's result output waited for (`phone`, `username`).
    let result: FlowOutput.Name
    /// The texts typed, alternately: keystroke `n` types `texts[n % 2]`.
    let texts: [String]
    /// The state of the field's output each text ends in (`validating` outputs are skipped).
    let expected: [ValidationResult.State]
    /// The last output a flow sends at open: once it arrives the screen is drawn.
    let lastInitialOutput: FlowOutput.Name

    /// The phone on the login screen: 11 digits (ok), then 10 (failed `phone.short`).
    static let loginPhone = KeystrokeScript(
        method: Methods.Flow.login, field: .phone, result: .phone, texts: ["13800138000", "1380013800"],
        expected: [.ok, .failed], lastInitialOutput: .tip)

    /// The username on the register screen: a free name (ok `username.available`), then a taken one
    /// (failed `username.exists`); both are looked up in auth-service through validation-service.
    static func registerUsername(free: String, taken: String) -> KeystrokeScript {
        KeystrokeScript(
            method: Methods.Flow.register, field: .username, result: .username, texts: [free, taken],
            expected: [.ok, .failed], lastInitialOutput: .registering)
    }
}

/// What every channel of a run shares: the phase flags and the counts the main task waits on.
final class RunControl: Sendable {
    /// Latencies are recorded while set.
    let recording = Atomic<Bool>(false)
    /// Channels send no further keystroke once set.
    let stopping = Atomic<Bool>(false)
    /// Channels whose screen is drawn (every output sent at open arrived).
    let opened = Atomic<Int>(0)
    /// Channels that stopped (asked to, at their count, or failed).
    let finished = Atomic<Int>(0)
    private let failures = Mutex<[String]>([])

    /// Records a failure (the first few are kept).
    func fail(_ message: String) {
        failures.withLock { if $0.count < 5 { $0.append(message) } }
    }

    /// The failures recorded.
    var failureMessages: [String] { failures.withLock { $0 } }
}

/// One flow channel on the gateway, typing by `script` when started.
final class KeystrokeChannel: Sendable {
    private struct State {
        var opened = false
        var inFlight = false
        var done = false
        var step = 0
        var sentAt: UInt64 = 0
        var samples: [UInt64] = []
    }

    private enum Action {
        case none, opened, send(String), sendAt(String, UInt64), finish, fail(String)
    }

    private let inputs = PublishSubject<FlowInput>()
    private let state = Mutex(State())
    private let subscription = SingleAssignmentDisposable()
    private let script: KeystrokeScript
    private let control: RunControl
    private let limit: Int
    private let pace: UInt64

    /// Opens `script`'s flow through `client` (locale `en`); at most `limit` keystrokes once started.
    /// With a `pace` (nanoseconds), a keystroke starts at most every `pace` (a typist's speed);
    /// without, each starts as soon as the previous one's output arrived.
    init(client: RemoteClient, script: KeystrokeScript, control: RunControl, limit: Int, pace: UInt64 = 0) {
        self.script = script
        self.control = control
        self.limit = limit
        self.pace = pace
        subscription.setDisposable(
            client.channel(
                script.method, FlowParameters(locale: .en), input: inputs.asObservable(),
                deadline: .seconds(3_600)
            ).subscribe { [self] event in
                receive(event)
            })
    }

    /// Types the first text (after the screen was drawn); paced channels start at a random point
    /// of their first period, so that they do not all type at once.
    func start() {
        let ready = state.withLock { state -> Bool in
            guard state.opened, !state.done, !state.inFlight, limit > 0 else { return false }
            state.inFlight = true
            return true
        }
        guard ready else { return }
        if pace > 0 {
            schedule(script.texts[0], at: monotonicNanoseconds() + UInt64.random(in: 0..<pace))
        } else {
            sendNow(script.texts[0])
        }
    }

    /// Sends `text` now, unless the run is stopping (then the channel is done).
    private func sendNow(_ text: String) {
        let send = state.withLock { state -> Bool in
            if control.stopping.load(ordering: .relaxed) {
                state.done = true
                return false
            }
            state.sentAt = monotonicNanoseconds()
            return true
        }
        if send {
            inputs.onNext(.text(script.field, text))
        } else {
            control.finished.add(1, ordering: .relaxed)
        }
    }

    /// Sends `text` at `due` (monotonic nanoseconds), from a Dispatch timer.
    private func schedule(_ text: String, at due: UInt64) {
        let now = monotonicNanoseconds()
        guard due > now else { return sendNow(text) }
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(due - now))) { [self] in
            sendNow(text)
        }
    }

    /// The latencies recorded, in nanoseconds.
    var samples: [UInt64] { state.withLock { $0.samples } }

    /// Keystrokes answered (recorded or not).
    var keystrokes: Int { state.withLock { $0.step } }

    /// Closes the channel (`CANCEL` to the gateway).
    func close() { subscription.dispose() }

    private func receive(_ event: Event<FlowOutput>) {
        let now = monotonicNanoseconds()
        let action: Action
        switch event {
        case .next(let output):
            action = state.withLock { state in step(&state, output, at: now) }
        case .error(let error):
            action = state.withLock { state in
                state.done ? .none : .fail("\(script.method) ended with \(error)")
            }
        case .completed:
            action = state.withLock { state in state.done ? .none : .fail("\(script.method) completed") }
        }
        switch action {
        case .none: break
        case .opened: control.opened.add(1, ordering: .relaxed)
        case .send(let text): inputs.onNext(.text(script.field, text))
        case .sendAt(let text, let due): schedule(text, at: due)
        case .finish: control.finished.add(1, ordering: .relaxed)
        case .fail(let message):
            state.withLock { $0.done = true }
            control.fail(message)
            control.finished.add(1, ordering: .relaxed)
        }
    }

    private func step(_ state: inout State, _ output: FlowOutput, at now: UInt64) -> Action {
        if !state.opened {
            guard output.outputName == script.lastInitialOutput else { return .none }
            state.opened = true
            return .opened
        }
        guard state.inFlight, !state.done, output.outputName == script.result, let result = output.state,
            result != .validating
        else { return .none }
        let expected = script.expected[state.step % 2]
        guard result == expected else {
            return .fail(
                "keystroke \(state.step) (\(script.texts[state.step % 2])): \(output), not \(expected)")
        }
        if control.recording.load(ordering: .relaxed) { state.samples.append(now &- state.sentAt) }
        state.step += 1
        state.inFlight = false
        if control.stopping.load(ordering: .relaxed) || state.step >= limit {
            state.done = true
            return .finish
        }
        state.inFlight = true
        if pace > 0 { return .sendAt(script.texts[state.step % 2], state.sentAt + pace) }
        state.sentAt = monotonicNanoseconds()
        return .send(script.texts[state.step % 2])
    }
}

/// The reference: `validate.phone` requests straight to validation-service, one in flight, each
/// sent from the previous answer's callback (like the channels' keystrokes).
final class ReferenceLoop: Sendable {
    private struct State {
        var step = 0
        var sentAt: UInt64 = 0
        var samples: [UInt64] = []
        var done = false
    }

    private let client: RemoteClient
    private let control: RunControl
    private let limit: Int
    private let state = Mutex(State())
    private let texts = KeystrokeScript.loginPhone.texts
    private let expected = KeystrokeScript.loginPhone.expected

    /// Requests through `client` (connected to validation-service), at most `limit`.
    init(client: RemoteClient, control: RunControl, limit: Int) {
        self.client = client
        self.control = control
        self.limit = limit
    }

    /// Sends the first request.
    func start() {
        send(step: 0)
    }

    /// The latencies recorded, in nanoseconds.
    var samples: [UInt64] { state.withLock { $0.samples } }

    private func send(step: Int) {
        state.withLock { $0.sentAt = monotonicNanoseconds() }
        _ = client.request(
            Methods.Validation.phone, PhoneValidationRequest(text: texts[step % 2]),
            deadline: .seconds(10)
        ).subscribe { [self] event in
            let now = monotonicNanoseconds()
            let next: Int? = state.withLock { state in
                switch event {
                case .success(let result) where result.state == expected[step % 2]:
                    if control.recording.load(ordering: .relaxed) {
                        state.samples.append(now &- state.sentAt)
                    }
                    state.step = step + 1
                    if control.stopping.load(ordering: .relaxed) || state.step >= limit {
                        state.done = true
                        return nil
                    }
                    return state.step
                case .success(let result):
                    control.fail("validate.phone \(texts[step % 2]): \(result), not \(expected[step % 2])")
                case .failure(let error):
                    control.fail("validate.phone failed: \(error)")
                }
                state.done = true
                return nil
            }
            if let next { send(step: next) } else { control.finished.add(1, ordering: .relaxed) }
        }
    }
}
