import RemoteProtocol
import Testing

@testable import RemoteStreams

/// A machine whose replicas are named by strings and whose calls are numbers: no sockets.
private typealias Machine = ClientStateMachine<String, Int>

private func machine(_ endpoints: [String], connected: [Int] = [], connectTimeout: Duration? = nil)
    -> Machine
{
    var machine = Machine(
        configuration: .init(deadline: .seconds(5), connectTimeout: connectTimeout, discoversShards: false))
    for endpoint in endpoints {
        machine.addReplica(endpoint: endpoint, configured: endpoint, connection: endpoint)
    }
    for replica in connected { _ = machine.connectionUp(replica) }
    return machine
}

/// An action as text: `send REQUEST 1 to a`, `deliver NEXT to 7`, `fail 1 of 7 unavailable cancel on a`.
private func describe(_ action: Machine.Action) -> String {
    switch action {
    case .send(let frame, let to): "send \(frame.type) \(frame.stream) to \(to)"
    case .deliver(let frame, let call, _): "deliver \(frame.type) to \(call)"
    case .fail(let stream, let call, let error, let cancelOn):
        "fail \(stream) of \(call) \(error.code.rawValue) cancel on \(cancelOn)"
    case .abandon(let call, let error): "abandon \(call) \(error.code.rawValue)"
    case .detach(let connection): "detach \(connection)"
    case .discoverShards(let replica): "discover shards of \(replica)"
    case .connectionChanged(let change): "\(change)"
    }
}

private func opened(_ action: Machine.OpenAction) -> String {
    switch action {
    case .send(let frame, let stream, let replica, _, let to):
        "send \(frame.type) \(stream) on \(replica) to \(to)"
    case .fail(let error): "fail \(error.code.rawValue)"
    }
}

@Suite("The client's state machine, without sockets", .timeLimit(.minutes(1)))
struct ClientStateMachineTests {
    let now = ContinuousClock.now

    @Test func aNewCallGoesToTheConnectedReplicaWithFewestCallsThenRoundRobin() {
        var machine = machine(["a", "b", "c"], connected: [0, 1])
        let first = opened(
            machine.open(.request, method: "m", body: [], deadline: nil, idempotent: false, call: 1, now: now)
        )
        let second = opened(
            machine.open(.request, method: "m", body: [], deadline: nil, idempotent: false, call: 2, now: now)
        )
        #expect(first == "send REQUEST 1 on 0 to a")
        #expect(second == "send REQUEST 2 on 1 to b")
        #expect(machine.inFlight == [1, 1, 0])
    }

    @Test func withNoReplicaConnectedACallWaitsOnAConfiguredOne() {
        var machine = machine(["a", "b"])
        #expect(
            opened(
                machine.open(
                    .subscribe, method: "m", body: [], deadline: nil, idempotent: false, call: 1, now: now))
                == "send SUBSCRIBE 1 on 0 to a")
    }

    @Test func overloadedIsSentAgainElsewhereEvenWhenUnsafe() throws {
        var machine = machine(["a", "b"], connected: [0, 1])
        _ = machine.open(.request, method: "m", body: [], deadline: nil, idempotent: false, call: 1, now: now)
        let refusal = Frame.error(stream: 1, RemoteError(code: .overloaded, message: "busy"))
        let actions = machine.framesArrived([refusal], undecodable: 0, from: 0, now: now)
        #expect(actions.map(describe) == ["send REQUEST 1 to b"])
        #expect(machine.inFlight == [0, 1])
        #expect(machine.currentCounters.retries == 1)
    }

    @Test func aLostConnectionRetriesIdempotentCallsAndFailsUnsafeOnes() {
        var machine = machine(["a", "b"], connected: [0, 1])
        _ = machine.open(.request, method: "m", body: [], deadline: nil, idempotent: true, call: 1, now: now)
        _ = machine.open(.request, method: "m", body: [], deadline: nil, idempotent: false, call: 2, now: now)
        _ = machine.open(.request, method: "m", body: [], deadline: nil, idempotent: false, call: 3, now: now)
        // Calls 1 and 3 went to a (fewest in flight, round-robin).
        let actions = machine.connectionLost(0, now: now)
        #expect(
            actions.map(describe) == [
                "send REQUEST 1 to b", "send CANCEL 1 to a", "fail 3 of 3 unavailable cancel on a",
                "a (replica 0) down",
            ])
        #expect(machine.connectionLost(0, now: now).isEmpty)
    }

    @Test func aCallPastItsDeadlineFailsTimeoutWhenConnectedAndUnavailableWhenNot() {
        var machine = machine(["a", "b"], connected: [0])
        _ = machine.open(
            .request, method: "m", body: [], deadline: .seconds(1), idempotent: false, call: 1, now: now)
        _ = machine.open(
            .subscribe, method: "m", body: [], deadline: .seconds(1), idempotent: false, call: 2, now: now)
        #expect(machine.deadlinesDue(now: now + .seconds(1)).isEmpty)
        let actions = machine.deadlinesDue(now: now + .milliseconds(1_100))
        #expect(
            actions.map(describe).sorted() == [
                "fail 1 of 1 timeout cancel on a", "fail 2 of 2 timeout cancel on a",
            ])
        #expect(machine.pending.isEmpty)
    }

    @Test func aCallWithoutAConnectionMovesToAConnectedReplicaAtTheConnectTimeout() {
        var machine = machine(["a", "b"], connectTimeout: .seconds(2))
        _ = machine.open(.request, method: "m", body: [], deadline: nil, idempotent: false, call: 1, now: now)
        _ = machine.connectionUp(1)
        #expect(
            machine.deadlinesDue(now: now + .seconds(2)).map(describe) == [
                "send REQUEST 1 to b", "send CANCEL 1 to a",
            ])
    }

    @Test func framesOfNoCallFromTheWrongReplicaOrUndecodableAreDropped() {
        var machine = machine(["a", "b"], connected: [0, 1])
        _ = machine.open(
            .subscribe, method: "m", body: [], deadline: nil, idempotent: false, call: 1, now: now)
        let actions = machine.framesArrived(
            [Frame.opened(.next, stream: 9, body: []), Frame.opened(.next, stream: 1, body: [])],
            undecodable: 2,
            from: 1, now: now)
        #expect(actions.isEmpty)
        #expect(machine.currentCounters.droppedFrames == 4)
        let answer = machine.framesArrived(
            [Frame.opened(.next, stream: 1, body: [])], undecodable: 0, from: 0, now: now)
        #expect(answer.map(describe) == ["deliver NEXT to 1"])
    }

    @Test func shardAnswersNameTheOtherShardsDialableFromHere() {
        let machine = machine(["tcp://10.0.0.1:5561"], connected: [0])
        let shards = machine.shards(
            in: ShardEndpoints(endpoints: ["tcp://0.0.0.0:5561", "tcp://0.0.0.0:5562"], shard: 0),
            dialled: "tcp://10.0.0.1:5561")
        #expect(shards.map(\.endpoint) == ["tcp://10.0.0.1:5562"])
        #expect(shards.map(\.copies) == [1])
        #expect(machine.missingReplicas(of: "tcp://10.0.0.1:5562", upTo: 1) == 1)
    }

    @Test func stoppingAbandonsEveryOpenCall() {
        var machine = machine(["a"], connected: [0])
        _ = machine.open(.request, method: "m", body: [], deadline: nil, idempotent: false, call: 1, now: now)
        #expect(machine.stop().map(describe) == ["abandon 1 unavailable"])
        #expect(machine.inFlight == [0])
    }
}
