public import Contracts
internal import Dispatch
internal import Foundation
internal import ProcessSupport
public import Reactive
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// `gateway-cli`'s interactive mode: the menu and one screen per flow, on the process's terminal.
public enum TerminalApp {
    /// Runs the interactive client until the user quits; blocks the calling thread meanwhile (the UI
    /// runs on a thread of its own) and returns the exit code: 0 after Esc/`q` on the menu or
    /// Ctrl-C, 128 + the signal after SIGTERM, SIGINT or SIGHUP, 2 when there is no usable terminal.
    ///
    /// - Parameters:
    ///   - locale: the language of the labels and of every channel.
    ///   - endpoint: the gateway's endpoint, shown when a channel fails.
    ///   - open: opens a gateway channel (`flow`, its parameters, the inputs to stream in) and returns
    ///     its outputs; disposing the subscription closes the channel.
    ///   - reconnections: an event each time the connection to the gateway is (re)established; a
    ///     screen whose channel failed reopens it then, with the texts typed so far.
    ///   - tracing: whether `open` asks for the trace of every input (`gateway-cli --trace`): Ctrl-T
    ///     then shows the screen's latest trace as a waterfall.
    public static func run(
        locale: MessageLocale, endpoint: String,
        open:
            @escaping @Sendable (
                _ flow: FlowMethod, _ parameters: FlowParameters, _ inputs: Observable<FlowInput>
            )
            -> Observable<FlowOutput>,
        reconnections: Observable<Void> = .never(), tracing: Bool = false
    ) -> Int32 {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            complain("the interactive mode needs a terminal (stdin and stdout); use a subcommand in scripts")
            return 2
        }
        guard let wake = WakePipe() else {
            complain("cannot create the UI's wake pipe")
            return 2
        }
        let signals = SignalWatch(wake: wake)
        defer { signals.stop() }
        let result = Mutex<Int32>(0)
        let finished = DispatchSemaphore(value: 0)
        let wantColors = (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
        let thread = Thread {
            let code = UILoop.run(
                locale: locale, endpoint: endpoint, wantColors: wantColors, signals: signals, wake: wake,
                open: open, reconnections: reconnections, tracing: tracing)
            result.withLock { $0 = code }
            finished.signal()
        }
        thread.name = "terminal-ui"
        thread.start()
        finished.wait()
        return result.withLock { $0 }
    }

    static func complain(_ message: String) {
        let line = Array("gateway-cli: \(message)\n".utf8)
        try? Posix.write(STDERR_FILENO, line)
    }
}

/// A pipe the UI thread waits on together with the terminal (poll(2)): written when an output
/// arrives or a signal is caught, so the UI answers at once instead of at its next timeout.
final class WakePipe: Sendable {
    /// The end the UI thread polls and drains.
    let readEnd: Int32
    /// The end ``wake()`` writes.
    let writeEnd: Int32

    /// A non-blocking pipe (close-on-exec), nil when the process is out of descriptors.
    init?() {
        guard let ends = try? Posix.nonBlockingPipe() else { return nil }
        readEnd = ends.read
        writeEnd = ends.write
    }

    deinit {
        Posix.close(readEnd)
        Posix.close(writeEnd)
    }

    /// Wakes the waiting UI thread (a full pipe already will: the byte is dropped).
    func wake() {
        Posix.wake(writeEnd)
    }

    /// Waits until `descriptor` has input, ``wake()`` was called (since the last wait), or
    /// `milliseconds` pass; a signal (SIGWINCH) ends the wait early too. Empties the pipe.
    func wait(for descriptor: Int32, milliseconds: Int32) {
        var descriptors = [
            pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0),
        ]
        _ = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
        Posix.drain(readEnd)
    }
}

/// Outputs pushed by the reactive side (any thread), drained by the UI thread.
final class OutputQueue: Sendable {
    /// One event of a channel, tagged with the generation it was opened for.
    enum Item: Sendable {
        /// An output.
        case output(FlowOutput, generation: Int)
        /// The channel failed.
        case failed(generation: Int, reason: String)
        /// The connection to the gateway is up again.
        case reconnected
    }

    private let items = Mutex<[Item]>([])
    private let wake: WakePipe?

    /// A queue that wakes `wake`'s waiter at each push.
    init(wake: WakePipe? = nil) { self.wake = wake }

    func push(_ item: Item) {
        items.withLock { $0.append(item) }
        wake?.wake()
    }

    func drain() -> [Item] {
        items.withLock { items in
            defer { items = [] }; return items
        }
    }
}

/// SIGTERM, SIGINT and SIGHUP, caught through ProcessSupport's `ProcessSignals` (not in a signal
/// handler) so the UI thread can restore the terminal before the process ends.
final class SignalWatch: Sendable {
    /// The signal that arrived, 0 while none has; set by the watching task, read by the UI thread.
    final class Received: Sendable {
        let number = Atomic<Int32>(0)
    }

    private static let watched: [Int32] = [SIGTERM, SIGINT, SIGHUP]
    private let signals = ProcessSignals()
    private let watcher: Task<Void, Never>
    /// The dispositions before `init`, restored by `stop` (the caller's own handlers survive).
    private let previous: Mutex<[Int32: sighandler_t]>
    private let flag = Received()

    /// Watches the signals; each one caught also wakes `wake`'s waiter.
    init(wake: WakePipe? = nil) {
        var previous: [Int32: sighandler_t] = [:]
        for number in Self.watched { previous[number] = signal(number, SIG_IGN) }
        self.previous = Mutex(previous)
        let (signals, flag) = (self.signals, self.flag)
        signals.watch(Self.watched)
        watcher = Task {
            for await number in signals.received {
                _ = flag.number.compareExchange(expected: 0, desired: number, ordering: .relaxed)
                wake?.wake()
            }
        }
    }

    /// The signal that arrived, 0 while none has.
    var received: Int32 { flag.number.load(ordering: .relaxed) }

    /// Stops watching and restores the dispositions from before.
    func stop() {
        signals.finish()
        watcher.cancel()
        previous.withLock { previous in
            for (number, handler) in previous { signal(number, handler) }
            previous = [:]
        }
    }
}

/// The current screen's channel: opens one per screen shown, closes it when the screen is left.
/// Used by the UI thread alone (not `Sendable`); outputs leave through a `Binder` into `queue`.
final class ChannelSlot {
    private let queue: OutputQueue
    private let sink: Binder<OutputQueue.Item>
    private let open: @Sendable (FlowMethod, FlowParameters, Observable<FlowInput>) -> Observable<FlowOutput>
    private var inputs: PublishSubject<FlowInput>?
    private var subscription: (any Disposable)?

    init(
        queue: OutputQueue,
        open:
            @escaping @Sendable (FlowMethod, FlowParameters, Observable<FlowInput>) -> Observable<FlowOutput>
    ) {
        self.queue = queue
        self.open = open
        sink = Binder(queue) { queue, item in queue.push(item) }
    }

    /// Whether a channel is open.
    var isOpen: Bool { subscription != nil }

    /// Closes the open channel, then opens `flow` (if any) for `generation`: its outputs reach the
    /// queue tagged with it, and its failure as one `.failed` item carrying the error's text.
    func switchTo(flow: FlowMethod?, parameters: FlowParameters, generation: Int) {
        close()
        guard let flow else { return }
        let inputs = PublishSubject<FlowInput>()
        self.inputs = inputs
        subscription = open(flow, parameters, inputs.asObservable())
            .map { OutputQueue.Item.output($0, generation: generation) }
            .catch { error in .just(.failed(generation: generation, reason: String(describing: error))) }
            .bind(to: sink)
    }

    /// Sends `input` on the open channel (dropped when none is open).
    func send(_ input: FlowInput) { inputs?.onNext(input) }

    /// Closes the open channel: disposing the subscription is what closes it at the gateway.
    func close() {
        subscription?.dispose()
        subscription = nil
        inputs = nil
    }
}

/// The UI thread's loop: the only code that touches ncurses.
enum UILoop {
    static func run(
        locale: MessageLocale, endpoint: String, wantColors: Bool, signals: SignalWatch, wake: WakePipe,
        open:
            @escaping @Sendable (FlowMethod, FlowParameters, Observable<FlowInput>) -> Observable<FlowOutput>,
        reconnections: Observable<Void>, tracing: Bool
    ) -> Int32 {
        guard let terminal = Terminal(wantColors: wantColors) else {
            TerminalApp.complain(
                "cannot use the terminal (TERM=\(ProcessInfo.processInfo.environment["TERM"] ?? ""))")
            return 2
        }
        defer { terminal.close() }
        let labels = Labels(locale: locale)
        let queue = OutputQueue(wake: wake)
        var decoder = KeyDecoder()
        let channel = ChannelSlot(queue: queue, open: open)
        var navigator = Navigator(endpoint: endpoint, tracing: tracing)
        defer { channel.close() }
        let reconnected = reconnections.subscribe(onNext: { queue.push(.reconnected) })
        defer { reconnected.dispose() }
        let start = DispatchTime.now().uptimeNanoseconds
        var painted: Int?
        var dirty = true
        var exitCode: Int32?

        func carryOut(_ effects: [Navigator.Effect]) {
            for effect in effects {
                switch effect {
                case .send(let input): channel.send(input)
                case .bell: terminal.bell()
                case .quit: exitCode = exitCode ?? 0
                case .switchChannel:
                    channel.switchTo(
                        flow: navigator.current.flow, parameters: navigator.parameters(locale: locale),
                        generation: navigator.generation)
                }
            }
        }

        while exitCode == nil {
            let signal = signals.received
            if signal != 0 {
                exitCode = 128 + signal
                break
            }
            for item in queue.drain() {
                switch item {
                case .output(let output, let generation):
                    carryOut(navigator.apply(output, generation: generation))
                case .failed(let generation, let reason):
                    navigator.channelFailed(generation: generation, reason: reason)
                case .reconnected:
                    carryOut(navigator.reconnected())
                }
                dirty = true
            }
            if exitCode != nil { break }
            let spinnerFrame = Int((DispatchTime.now().uptimeNanoseconds - start) / 120_000_000)
            if dirty || painted != spinnerFrame {
                let (width, height) = terminal.size
                let context = RenderContext(
                    width: width, height: height, labels: labels, colors: terminal.colors,
                    spinnerFrame: spinnerFrame)
                terminal.paint(navigator.render(context))
                painted = spinnerFrame
                dirty = false
            }
            // Every key already waiting, then (nothing left) what an idle input completes.
            var keys: [Key] = []
            while keys.count < 256, let key = terminal.readKey() { keys += decoder.feed(key) }
            let read = !keys.isEmpty || decoder.holding
            if decoder.holding && keys.count < 256 { keys += decoder.idle() }
            for key in keys where exitCode == nil {
                carryOut(navigator.handle(key, height: terminal.size.height))
                dirty = true
            }
            if read || exitCode != nil { continue }
            // Nothing to do until a key, an output, a signal or the spinner's next frame.
            let elapsed = (DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
            let untilFrame = Int32(120 - elapsed % 120)
            wake.wait(for: STDIN_FILENO, milliseconds: max(1, untilFrame))
        }
        return exitCode ?? 0
    }
}
