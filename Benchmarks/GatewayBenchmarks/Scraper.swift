// The scrapes of `--metrics`: /metrics of each server fetched and read once a second, on a thread of
// its own, as Prometheus with a 1 s scrape interval would.

import Foundation
import Synchronization

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
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return false }
        let request = Array("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        guard
            request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) })
                == request.count
        else { return false }
        var head: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            if head.count < 16 { head += chunk[..<min(count, 16)] }
        }
        return String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 200")
    }
}
