import Contracts
import Reactive
import Synchronization
import Testing

@testable import TerminalUI

/// A stand-in gateway: records each channel it opens, the inputs each receives and when it closes.
final class FakeGateway: Sendable {
    struct Opened: Sendable, Equatable {
        var flow: FlowMethod
        var parameters: FlowParameters
        var inputs: [FlowInput] = []
        var closed = false
    }

    let channels = Mutex<[Opened]>([])
    let outputs = PublishSubject<FlowOutput>()

    func open(_ flow: FlowMethod, _ parameters: FlowParameters, _ inputs: Observable<FlowInput>)
        -> Observable<
            FlowOutput
        >
    {
        Observable.create { [self] observer in
            let index = channels.withLock { channels in
                channels.append(Opened(flow: flow, parameters: parameters))
                return channels.count - 1
            }
            let reading = inputs.subscribe(onNext: { input in
                self.channels.withLock { $0[index].inputs.append(input) }
            })
            let writing = self.outputs.subscribe(observer)
            return Disposables.create {
                reading.dispose()
                writing.dispose()
                self.channels.withLock { $0[index].closed = true }
            }
        }
    }
}

@Suite("Channels: one per screen shown, closed when left", .timeLimit(.minutes(1)))
struct ChannelSlotTests {
    @Test("a screen's channel opens with its flow and parameters, gets its inputs, closes when left")
    func lifecycle() {
        let gateway = FakeGateway()
        let queue = OutputQueue()
        let slot = ChannelSlot(queue: queue, open: gateway.open)
        var navigator = Navigator(endpoint: "e")

        func carryOut(_ effects: [Navigator.Effect]) {
            for effect in effects {
                switch effect {
                case .send(let input): slot.send(input)
                case .switchChannel:
                    slot.switchTo(
                        flow: navigator.current.flow, parameters: navigator.parameters(locale: .en),
                        generation: navigator.generation)
                case .bell, .quit: break
                }
            }
        }
        func drain() {
            for item in queue.drain() {
                if case .output(let output, let generation) = item {
                    carryOut(navigator.apply(output, generation: generation))
                }
            }
        }

        carryOut(navigator.handle(.character("3"), height: 24))
        #expect(slot.isOpen)
        carryOut(navigator.handle(.character("a"), height: 24))
        carryOut(navigator.handle(.tab, height: 24))
        carryOut(navigator.handle(.character("p"), height: 24))
        gateway.outputs.onNext(FlowOutput(.session, name: "a", token: "tk"))
        drain()
        #expect(navigator.current == .heroes(token: "tk"))
        carryOut(navigator.handle(.character("x"), height: 24))
        carryOut(navigator.handle(.escape, height: 24))
        carryOut(navigator.handle(.escape, height: 24))
        #expect(!slot.isOpen)
        #expect(
            gateway.channels.withLock { $0 } == [
                FakeGateway.Opened(
                    flow: Methods.Flow.signin, parameters: FlowParameters(locale: .en),
                    inputs: [.text(.username, "a"), .text(.password, "p")], closed: true),
                FakeGateway.Opened(
                    flow: Methods.Flow.heroes, parameters: FlowParameters(locale: .en, token: "tk"),
                    inputs: [.text(.searchText, ""), .text(.searchText, "x")], closed: true),
                FakeGateway.Opened(
                    flow: Methods.Flow.signin, parameters: FlowParameters(locale: .en), closed: true),
            ])
        slot.send(.tap(.loginTap))  // No channel: dropped, not fatal.
    }

    @Test("a failing channel becomes one failed item for its generation")
    func failure() {
        struct Unreachable: Error {}
        let queue = OutputQueue()
        let slot = ChannelSlot(queue: queue) { _, _, _ in Observable.error(Unreachable()) }
        slot.switchTo(flow: Methods.Flow.login, parameters: FlowParameters(), generation: 4)
        let items = queue.drain()
        #expect(items.count == 1)
        if case .failed(let generation, let reason) = items.first {
            #expect(generation == 4)
            #expect(reason == "Unreachable()")
        } else {
            Issue.record("\(items)")
        }
        slot.close()
    }
}
