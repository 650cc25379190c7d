// The scrapes of `--metrics`: /metrics of each server fetched and read once a second, on a thread of
// its own, as Prometheus with a 1 s scrape interval would.

import Foundation
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Fetches `GET /metrics` from every port once a second until stopped.
final class MetricsScraper: Sendable {
    private struct Counts {
        var scrapes = 0
        var failures = 0
    }

    private let running = Atomic<Bool>(true)
    private let counts = Mutex(Counts())
    private let done = DispatchSemaphore(value: 0)

    init(ports: [Int]) {
        let thread = Thread { [self] in
            while running.load(ordering: .relaxed) {
                let next = ContinuousClock.now + .seconds(1)
                for port in ports {
                    let ok = Self.scrape(port: port)
                    counts.withLock {
                        $0.scrapes += 1
                        if !ok { $0.failures += 1 }
                    }
                }
                // Waits out the rest of the second in slices, so that stop() is answered soon.
                while running.load(ordering: .relaxed), ContinuousClock.now < next {
                    Thread.sleep(forTimeInterval: 0.05)
                }
            }
            done.signal()
        }
        thread.name = "scraper"
        thread.start()
    }

    /// Scrapes done so far, all ports counted.
    var scrapes: Int { counts.withLock { $0.scrapes } }
    /// Scrapes that did not end in a 200 with a body.
    var failures: Int { counts.withLock { $0.failures } }

    func stop() {
        running.store(false, ordering: .relaxed)
        done.wait()
    }

    /// One `GET /metrics` on 127.0.0.1:`port`, read to the server's close (at most 5 s); whether the
    /// answer was a 200.
    private static func scrape(port: Int) -> Bool {
        guard let descriptor = try? HTTPExchange.connect(port: port) else { return false }
        defer { close(descriptor) }
        do {
            try HTTPExchange.write(
                "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", to: descriptor)
            return try HTTPExchange.read(descriptor, within: .seconds(5)).status == 200
        } catch {
            return false
        }
    }
}
