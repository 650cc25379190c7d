/// One metric family of the Prometheus text format: a name, a help line, a type, and its samples,
/// each with its own labels.
///
/// ```swift
/// var requests = MetricFamily(
///     "reactive_login_requests_total", .counter, help: "Calls answered, by method and outcome.")
/// requests.add(3, ["method": "auth.login", "code": "ok"])
/// ```
public struct MetricFamily: Sendable, Hashable {
    /// The kind of a family (`# TYPE`).
    public enum Kind: String, Sendable, Hashable {
        /// Only goes up (a restart sets it back to zero).
        case counter
        /// Goes up and down.
        case gauge
        /// Counts of observations in buckets, with their sum and count.
        case histogram
    }

    /// One sample: its labels in order, and a number or a histogram.
    public struct Sample: Sendable, Hashable {
        /// The labels, in the order written.
        public var labels: Labels
        /// Its value.
        public var value: Value

        /// A sample of `value` with `labels`.
        public init(labels: Labels, value: Value) {
            self.labels = labels
            self.value = value
        }
    }

    /// What a sample holds.
    public enum Value: Sendable, Hashable {
        /// A counter's or a gauge's value.
        case number(Double)
        /// A histogram's buckets, sum and count.
        case histogram(DurationHistogram)
    }

    /// The family's name, `[a-zA-Z_:][a-zA-Z0-9_:]*`.
    public let name: String
    /// Its kind.
    public let kind: Kind
    /// One line of help.
    public let help: String
    /// Its samples, in the order written.
    public private(set) var samples: [Sample] = []

    /// An empty family.
    public init(_ name: String, _ kind: Kind, help: String) {
        self.name = name
        self.kind = kind
        self.help = help
    }

    /// Adds a sample of `value` with `labels`; a sample with the same labels is added to (counts and
    /// histograms sum, as the shards of a process do).
    public mutating func add(_ value: Double, _ labels: Labels = [:]) {
        add(Sample(labels: labels, value: .number(value)))
    }

    /// Adds an integer sample (see ``add(_:_:)-(Double,_)``).
    public mutating func add(_ value: Int, _ labels: Labels = [:]) {
        add(Double(value), labels)
    }

    /// Adds a histogram sample with `labels`; one with the same labels is added to.
    public mutating func add(_ histogram: DurationHistogram, _ labels: Labels = [:]) {
        add(Sample(labels: labels, value: .histogram(histogram)))
    }

    /// Adds `sample`, or sums it into the sample with the same labels.
    public mutating func add(_ sample: Sample) {
        guard let index = samples.firstIndex(where: { $0.labels == sample.labels }) else {
            samples.append(sample)
            return
        }
        switch (samples[index].value, sample.value) {
        case (.number(let left), .number(let right)):
            samples[index].value = .number(left + right)
        case (.histogram(var left), .histogram(let right)):
            left.add(right)
            samples[index].value = .histogram(left)
        default:
            samples.append(sample)
        }
    }

    /// Adds every sample of `other` (a family of the same name and kind).
    public mutating func merge(_ other: MetricFamily) {
        for sample in other.samples { add(sample) }
    }

    /// Whether `name` is a valid metric name.
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return name.utf8.allSatisfy { byte in
            Labels.isNameByte(byte) || byte == UInt8(ascii: ":")
        }
    }
}

/// The labels of a sample, in the order written: `["method": "auth.login", "code": "ok"]`.
public struct Labels: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// The name and value pairs.
    public private(set) var pairs: [(name: String, value: String)]

    /// Labels from a literal, in its order.
    public init(dictionaryLiteral elements: (String, String)...) {
        pairs = elements.map { (name: $0.0, value: $0.1) }
    }

    /// Labels from pairs, in their order.
    public init(_ pairs: [(String, String)]) {
        self.pairs = pairs.map { (name: $0.0, value: $0.1) }
    }

    /// These labels and `name=value` after them.
    public func adding(_ name: String, _ value: String) -> Labels {
        var labels = self
        labels.pairs.append((name: name, value: value))
        return labels
    }

    /// Whether there are none.
    public var isEmpty: Bool { pairs.isEmpty }

    public static func == (left: Labels, right: Labels) -> Bool {
        left.pairs.count == right.pairs.count
            && zip(left.pairs, right.pairs).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for pair in pairs {
            hasher.combine(pair.name)
            hasher.combine(pair.value)
        }
    }

    /// Whether `name` is a valid label name (`[a-zA-Z_][a-zA-Z0-9_]*`, not starting with `__`).
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
            !name.hasPrefix("__")
        else { return false }
        return name.utf8.allSatisfy(isNameByte)
    }

    static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
            true
        default: false
        }
    }
}
