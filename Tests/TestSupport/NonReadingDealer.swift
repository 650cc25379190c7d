import Dispatch
import Foundation
import Synchronization
public import ZeroMQ

/// A client that stops reading: a raw DEALER on a thread of its own that sends its messages and
/// then reads nothing until ``close()``. Its receive queue (5 messages) and TCP receive buffer
/// (4 KiB) are small, so the answers back up into the server at once.
public final class NonReadingDealer: Sendable {
    private let release = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)
    private let sent = DispatchSemaphore(value: 0)
    private let failure = Mutex<String?>(nil)

    /// Connects to `endpoint` (as a CURVE client of `serverKey` with `keys`, when given) and sends
    /// `messages`, each a list of parts.
    public init(
        context: Context, endpoint: String, messages: [[[UInt8]]],
        curve: (serverKey: [UInt8], keys: CurveKeyPair)? = nil
    ) {
        Thread { [self] in
            do {
                let dealer = try Socket(context, .dealer, linger: 0)
                if let curve {
                    try dealer.set(.curveServerKey, curve.serverKey)
                    try dealer.set(.curvePublicKey, curve.keys.publicKey)
                    try dealer.set(.curveSecretKey, curve.keys.secretKey)
                }
                try dealer.set(.receiveHighWaterMark, 5)
                try dealer.set(.receiveBuffer, 4_096)
                try dealer.set(.sendHighWaterMark, 0)
                try dealer.connect(endpoint)
                for message in messages { try dealer.send(parts: message) }
                sent.signal()
                _ = release.wait(timeout: .now() + 120)
                dealer.close(linger: 0)
            } catch {
                failure.withLock { $0 = "\(error)" }
                sent.signal()
            }
            ended.signal()
        }.start()
    }

    /// Waits (off the cooperative pool, up to 60 s) until every message was handed to libzmq.
    public func waitUntilSent() async -> Bool { await Self.arrived(sent) }

    /// Closes the socket, and with it the connection; waits for the thread. The error the DEALER
    /// met, if any.
    public func close() async -> String? {
        release.signal()
        _ = await Self.arrived(ended)
        return failure.withLock { $0 }
    }

    private static func arrived(_ semaphore: DispatchSemaphore) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: semaphore.wait(timeout: .now() + 60) == .success)
            }
        }
    }
}
