import Reactive
import RemoteProtocol
@testable import RemoteStreams
import Testing

/// Parameters read leniently: a body that is not a ``Count`` still reaches the handler.
struct LenientCount: ParametersView {
    typealias Parameters = Count
    let count: Count?

    init(from decoder: any Decoder) throws {
        count = try? Count(from: decoder)
    }
}

private let add = RequestMethod<Pair, Int>("math.add")
private let countUp = StreamMethod<Count, Int>("count.up")
private let upper = ChannelMethod<NoParameters, String, String>("text.upper")
private let health = RequestMethod<NoParameters, String>("sys.health")

@Suite("Typed methods: descriptors over the string-based API", .timeLimit(.minutes(1)))
struct TypedMethodTests {
    @Test func descriptorsCarryTheirNameAndModel() {
        #expect(add.name == "math.add")
        #expect(add.model == .request)
        #expect(countUp.model == .stream)
        #expect(upper.model == .channel)
        #expect(InteractionModel.allCases.map(\.openingType) == [.request, .subscribe, .open])
        #expect(add.description == "math.add (request)")
        #expect(RequestMethod<Pair, Int>("math.add") == add)
        #expect(RemoteHandlers.Kind.stream == InteractionModel.stream)
    }

    @Test func requestStreamAndChannelByDescriptor() async throws {
        var handlers = RemoteHandlers()
        handlers.handle(add) { pair in .just(pair.a + pair.b) }
        handlers.handle(countUp) { count, call in
            Observable.from(Array(0..<count.n)).map { call.method == countUp.name ? $0 : -1 }
        }
        handlers.handle(upper) { _, input in input.map { $0.uppercased() } }
        handlers.handle(health) { (_: NoParameters) in .just("ready") }
        #expect(handlers.names == ["count.up", "math.add", "sys.health", "text.upper"])
        let fixture = try Fixture(handlers: handlers)
        #expect(try await fixture.client.request(add, Pair(a: 2, b: 40)).value == 42)
        #expect(try await fixture.client.request(health).value == "ready")
        let (counted, countError) = await collect(fixture.client.stream(countUp, Count(n: 3)))
        #expect(counted == [0, 1, 2] && countError == nil)
        let (shouted, channelError) = await collect(
            fixture.client.channel(upper, NoParameters(), input: .from(["a", "b"])))
        #expect(shouted == ["A", "B"] && channelError == nil)
        await fixture.stop()
    }

    @Test func theWireIsTheStringBasedAPIs() async throws {
        // A handler registered by name answers a call made by descriptor, and the other way round.
        var handlers = RemoteHandlers()
        handlers.request("math.add") { (pair: Pair) in Single.just(pair.a + pair.b) }
        handlers.handle(countUp) { count in Observable.from(Array(0..<count.n)) }
        let fixture = try Fixture(handlers: handlers)
        #expect(try await fixture.client.request(add, Pair(a: 1, b: 2)).value == 3)
        let (counted, _) = await collect(fixture.client.stream("count.up", Count(n: 2), as: Int.self))
        #expect(counted == [0, 1])
        await fixture.stop()
    }

    @Test func aParametersViewSeesBodiesTheParametersDoNotDecode() async throws {
        var handlers = RemoteHandlers()
        handlers.handle(countUp, reading: LenientCount.self) { view in
            view.count.map { Observable.from(Array(0..<$0.n)) }
                ?? .error(RemoteError(code: .notFound, message: "no count"))
        }
        let fixture = try Fixture(handlers: handlers)
        let (counted, _) = await collect(fixture.client.stream(countUp, Count(n: 2)))
        #expect(counted == [0, 1])
        let (_, error) = await collect(fixture.client.stream(countUp.name, Pair(a: 1, b: 2), as: Int.self))
        #expect((error as? RemoteError)?.code == .notFound)
        await fixture.stop()
    }
}
