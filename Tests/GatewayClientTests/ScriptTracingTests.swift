import Contracts
import Foundation
import GatewayClient
import Reactive
import ReactiveTestKit
import Synchronization
import Testing

/// The fake gateway, answering each input that carries a traceparent and whose name is in
/// `answered` with a `trace` output (after that input's own outputs), the way the gateway does.
func tracingGateway(answering answered: Set<String>) -> OpenFlow {
    { flow, parameters, inputs in
        Observable.create { observer in
            let forwarded = PublishSubject<FlowInput>()
            let outputs = FakeGateway.open(flow, parameters, forwarded.asObservable()).subscribe(observer)
            let feeding = inputs.subscribe(
                onNext: { input in
                    forwarded.onNext(input)
                    guard answered.contains(input.input), let parent = input.traceparent,
                        let id = FlowTrace.traceID(of: parent)
                    else { return }
                    let hop = FlowTrace.Hop(
                        service: "gateway", shard: 0, method: "\(flow.name) \(input.input)", startMicros: 0,
                        durationMicros: 100)
                    observer.onNext(FlowOutput(.trace, trace: FlowTrace(traceID: id, hops: [hop])))
                },
                onCompleted: { forwarded.onCompleted() })
            return Disposables.create([outputs, feeding])
        }
    }
}

/// Runs `script` with tracing (traceparents counted up from 1, `grace` in milliseconds).
func runTraced<Script: FlowScript>(_ script: Script, answering answered: Set<String>, grace: Int = 500)
    -> (events: [Recorded<Event<ScriptEvent>>], flow: RecordingFlow)
{
    let scheduler = TestScheduler(initialClock: 0, resolution: 0.001)
    let flow = RecordingFlow(scheduler, respond: tracingGateway(answering: answered))
    let counter = Atomic<Int>(0)
    let tracing = ScriptTracing(grace: .milliseconds(grace)) {
        let next = counter.add(1, ordering: .relaxed).newValue
        let digits = String(next, radix: 16)
        return "00-" + String(repeating: "0", count: 32 - digits.count) + digits + "-00f067aa0ba902b7-01"
    }
    let observer = scheduler.start(disposed: 100_000) {
        ScriptRunner.run(
            script, open: flow.open, timeout: .milliseconds(10_000), scheduler: scheduler, tracing: tracing)
    }
    return (observer.events, flow)
}

func traces(_ events: [Recorded<Event<ScriptEvent>>]) -> [InputTrace] {
    events.compactMap { event in
        if case .next(.trace(let trace)) = event.value { return trace }
        return nil
    }
}

@Suite(.timeLimit(.minutes(1)))
struct ScriptTracingTests {
    @Test("every input goes with its own sampled traceparent; each trace is an event naming its input")
    func inputsAskForTraces() throws {
        let (events, flow) = runTraced(
            NumbersScript(a: "1", b: "2", c: "3", locale: .en), answering: ["a", "b", "c"])
        #expect(flow.inputs.map(\.input) == ["a", "b", "c"])
        #expect(flow.inputs.map(\.text) == ["1", "2", "3"])
        let parents = flow.inputs.compactMap(\.traceparent)
        #expect(parents.count == 3 && Set(parents).count == 3)
        #expect(parents.allSatisfy { $0.hasSuffix("-01") })
        #expect(traces(events).map(\.input) == ["a", "b", "c"])
        #expect(traces(events).map(\.trace.traceID) == parents.compactMap(FlowTrace.traceID(of:)))
        // The trace outputs are not outputs, and the result comes after the last trace, at once.
        #expect(!outputs(events).contains { $0.outputName == .trace })
        #expect(result(events) == ScriptResult(.succeeded, message: "6"))
        #expect(events.count >= 3)
        if events.count >= 3, traces(events).count == 3 {
            #expect(events[events.count - 3].value == .next(.trace(traces(events)[2])))
            // No wait: the result comes with the last trace.
            #expect(events[events.count - 2].time == events[events.count - 3].time)
        }
        #expect(events.last?.value.isCompleted == true)
    }

    @Test("a result waits for the traces still outstanding, at most the grace")
    func resultWaitsForTraces() {
        let (events, flow) = runTraced(
            NumbersScript(a: "1", b: "2", c: "3", locale: .en), answering: ["a"], grace: 500)
        #expect(traces(events).map(\.input) == ["a"])
        let finished = events.first { if case .next(.finished) = $0.value { true } else { false } }
        let sum = events.last { if case .next(.output) = $0.value { true } else { false } }
        #expect(finished.map { $0.time - (sum?.time ?? 0) } == 500)
        #expect(flow.disposed == finished.map { [$0.time] })
    }

    @Test("without tracing nothing changes: no traceparent, a trace output is an ordinary output")
    func withoutTracing() {
        let (events, flow) = runScript(NumbersScript(a: "1", b: "2", c: "3", locale: .en))
        #expect(flow.inputs.allSatisfy { $0.traceparent == nil })
        #expect(traces(events).isEmpty)
        #expect(result(events) == ScriptResult(.succeeded, message: "6"))
    }

    @Test("stamping: the interactive client's inputs each get a fresh traceparent")
    func stamping() {
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.001)
        let flow = RecordingFlow(scheduler)
        let open = ScriptTracing().stamping(flow.open)
        let inputs = PublishSubject<FlowInput>()
        let subscription = open(Methods.Flow.numbers, FlowParameters(locale: .en), inputs.asObservable())
            .subscribe()
        inputs.onNext(.text(.a, "1"))
        inputs.onNext(.text(.a, "12"))
        subscription.dispose()
        let parents = flow.inputs.compactMap(\.traceparent)
        #expect(parents.count == 2 && parents[0] != parents[1])
        #expect(flow.inputs.map(\.text) == ["1", "12"])
    }

    @Test("--json --trace: the gateway's trace line with the input's name; the waterfall without --json")
    func printedTraces() {
        let trace = InputTrace(
            input: "loginTap",
            trace: FlowTrace(
                traceID: "4bf92f3577b34da6a3ce929d0e0e4736",
                hops: [
                    .init(
                        service: "gateway", shard: 0, method: "flow.signin loginTap", startMicros: 0,
                        durationMicros: 2_000),
                    .init(
                        service: "auth", shard: 1, method: "auth.login", startMicros: 500,
                        durationMicros: 1_000,
                        depth: 1),
                ]))
        #expect(
            ScriptPrinter.jsonLine(trace)
                == #"{"output":"trace","input":"loginTap","trace":{"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","hops":[{"service":"gateway","shard":0,"method":"flow.signin loginTap","start_us":0,"duration_us":2000,"outcome":"ok","depth":0},{"service":"auth","shard":1,"method":"auth.login","start_us":500,"duration_us":1000,"outcome":"ok","depth":1}]}}"#
        )
        let waterfall = ScriptPrinter.waterfall(trace, width: 80)
        #expect(waterfall.count == 4)
        #expect(waterfall[0] == "[loginTap] trace 4bf92f3577b34da6a3ce929d0e0e4736  2.0 ms  2 hops")
        #expect(waterfall[3].hasPrefix("  auth:1 auth.login"))
        #expect(waterfall.allSatisfy { $0.count <= 80 })
    }

    @Test("--trace parses anywhere and is off by default; --help describes it")
    func traceOption() throws {
        #expect(!(try CLIInvocation.parse([], environment: [:]).trace))
        #expect(try CLIInvocation.parse(["--trace"], environment: [:]).trace)
        let signin = try CLIInvocation.parse(
            ["signin", "--username", "a", "--password-stdin", "--json", "--trace"], environment: [:])
        #expect(signin.trace && signin.json)
        #expect(throws: CLIUsageError.self) { try CLIInvocation.parse(["--trace=on"], environment: [:]) }
        let help = CLIInvocation.help(for: nil)
        let options = help.split(separator: "\n").map(String.init).drop { !$0.hasPrefix("  --json") }.prefix(
            5)
        #expect(
            Array(options) == [
                "  --json                print every output event as one JSON line, then a result line",
                "  --trace               ask the gateway for the trace of every input sent: with --json a",
                #"                        {"output":"trace","input":…,"trace":{…}} line after the input's"#,
                "                        outputs, else a waterfall of its hops on standard error; in the",
                "                        interactive client Ctrl-T shows the screen's latest trace",
            ])
        for subcommand in CLIInvocation.subcommands {
            #expect(CLIInvocation.help(for: subcommand).contains("  --trace "))
        }
    }
}
