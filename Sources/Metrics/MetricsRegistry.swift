import Synchronization

/// The metrics of one process: collectors registered by the parts that keep counters, asked once
/// per scrape.
///
/// A collector returns families; families of the same name from several collectors (the shards of
/// a process, each reporting its own) are merged, samples with the same labels summed, so a scrape
/// sees one exposition per process. Families come out in the order their names were first seen.
///
/// ```swift
/// let registry = MetricsRegistry()
/// registry.register { [MetricFamily.counter("reactive_login_spans_dropped_total",
///                                           help: "Spans dropped.", value: exporter.dropped)] }
/// let text = Exposition.text(await registry.collect())
/// ```
public final class MetricsRegistry: Sendable {
    /// Gives the families of one part, read at scrape time (never on a request's path).
    public typealias Collector = @Sendable () async -> [MetricFamily]

    private let collectors = Mutex<[Collector]>([])

    /// An empty registry.
    public init() {}

    /// Adds `collector`, asked at every scrape from now on.
    public func register(_ collector: @escaping Collector) {
        collectors.withLock { $0.append(collector) }
    }

    /// Adds a collector whose families need no waiting (atomics, a lock-protected snapshot).
    public func register(now collector: @escaping @Sendable () -> [MetricFamily]) {
        let asynchronous: Collector = { collector() }
        collectors.withLock { $0.append(asynchronous) }
    }

    /// Every collector's families, merged by name; collectors are asked one after the other.
    public func collect() async -> [MetricFamily] {
        var merged: [MetricFamily] = []
        var index: [String: Int] = [:]
        for collector in collectors.withLock({ $0 }) {
            for family in await collector() {
                if let at = index[family.name] {
                    guard merged[at].kind == family.kind else { continue }
                    merged[at].merge(family)
                } else {
                    index[family.name] = merged.count
                    merged.append(family)
                }
            }
        }
        return merged
    }
}

extension MetricFamily {
    /// A counter family of one sample.
    public static func counter(_ name: String, help: String, value: Int, labels: Labels = [:]) -> MetricFamily {
        var family = MetricFamily(name, .counter, help: help)
        family.add(value, labels)
        return family
    }

    /// A gauge family of one sample.
    public static func gauge(_ name: String, help: String, value: Double, labels: Labels = [:]) -> MetricFamily {
        var family = MetricFamily(name, .gauge, help: help)
        family.add(value, labels)
        return family
    }
}
