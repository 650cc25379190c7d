public import Foundation

/// Why a result file cannot be read or merged: one line naming the file and the problem
/// (`auth-loadtest merge` prints it and exits 64).
public struct ResultFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The line.
    public let description: String

    /// A problem described by `description`.
    public init(_ description: String) {
        self.description = description
    }
}

extension LoadResult {
    /// The run a result file (`--json FILE`) holds, exactly as it was measured: the histograms
    /// counter for counter, the per-second series, outcomes and counts. `name` names the file in
    /// errors.
    ///
    /// - Throws: ``ResultFileError`` for a file that is not JSON, not this tool's, of another
    ///   version, or whose histogram cannot have come from a run.
    public init(resultFile data: Data, name: String) throws(ResultFileError) {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw ResultFileError("\(name): not a JSON object")
        }
        guard object["format"] as? String == JSONReport.formatName else {
            throw ResultFileError(
                "\(name): not an auth-loadtest result file (no \"format\":\"auth-loadtest\")")
        }
        guard let version = object["format_version"] as? Int, JSONReport.readableVersions.contains(version)
        else {
            let versions = JSONReport.readableVersions
            throw ResultFileError(
                "\(name): result format version \(object["format_version"].map { "\($0)" } ?? "missing"), "
                    + "this build reads versions \(versions.lowerBound) to \(versions.upperBound)")
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let document: JSONReport
        do { document = try decoder.decode(JSONReport.self, from: data) } catch {
            throw ResultFileError("\(name): \(Self.describe(error))")
        }
        let model: LoadModel
        switch (document.model, document.requestedRate, document.concurrency) {
        case ("open", .some(let rate), _) where rate > 0: model = .open(rate: rate)
        case ("closed", _, .some(let concurrency)) where concurrency > 0:
            model = .closed(concurrency: concurrency)
        default: throw ResultFileError("\(name): model \"\(document.model)\" without its rate or concurrency")
        }
        guard let latency = Self.histogram(document.histogram, document.latencyNanoseconds) else {
            throw ResultFileError("\(name): the latency histogram does not add up")
        }
        var lag = LatencyHistogram()
        if let buckets = document.senderLagHistogram, let exact = document.senderLagNanoseconds {
            guard let read = Self.histogram(buckets, exact) else {
                throw ResultFileError("\(name): the sender-lag histogram does not add up")
            }
            lag = read
        }
        self.init(
            scenario: document.scenario, model: model, connections: document.connections,
            duration: document.durationNanoseconds, warmup: document.warmupNanoseconds)
        sent = document.sent
        completed = document.completed
        warmupRequests = document.warmupRequests
        unfinished = document.unfinished
        self.latency = latency
        outcomes = document.outcomes
        errors = document.errors
        perSecond = document.perSecond
        senderLag = lag
        interrupted = document.interrupted
        if let text = document.shard {
            guard let shard = GeneratorShard(parsing: text) else {
                throw ResultFileError("\(name): shard \"\(text)\" is not I/N")
            }
            self.shard = shard
        }
        capacityObjective = document.capacity?.objective
        for (kind, part) in document.interactions ?? [:] {
            guard let histogram = Self.histogram(part.histogram, part.latencyNanoseconds) else {
                throw ResultFileError("\(name): the \(kind) latency histogram does not add up")
            }
            latencyByKind[kind] = histogram
        }
        latencySamples = (document.perSecondLatency ?? []).map {
            SecondSample(
                offset: $0.offsetNanoseconds, count: $0.count, p50: $0.p50Nanoseconds, p90: $0.p90Nanoseconds,
                p99: $0.p99Nanoseconds, p999: $0.p999Nanoseconds, max: $0.maxNanoseconds)
        }
        for part in document.stages ?? [] {
            guard let histogram = Self.histogram(part.histogram, part.latencyNanoseconds) else {
                throw ResultFileError("\(name): stage \(part.name)'s latency histogram does not add up")
            }
            var stage = StageResult(
                name: part.name, offset: part.offsetNanoseconds, duration: part.durationNanoseconds,
                from: part.from, to: part.to)
            stage.sent = part.sent
            stage.completed = part.completed
            stage.unfinished = part.unfinished
            stage.errors = part.errors
            stage.latency = histogram
            stage.outcomes = part.outcomes
            stages.append(stage)
        }
    }

    /// A histogram rebuilt from a file's buckets and exact figures; nil unless they agree.
    private static func histogram(_ buckets: [JSONReport.Bucket], _ exact: JSONReport.Exact)
        -> LatencyHistogram?
    {
        guard
            let histogram = LatencyHistogram(
                buckets: buckets.map { ($0.nanoseconds, $0.count) }, min: exact.min, max: exact.max,
                sum: exact.sum), histogram.count == exact.count
        else { return nil }
        return histogram
    }

    /// Several generators' runs of one scenario and model, made at the same time, as one run: the
    /// histograms merged counter for counter (so every percentile is the one a single histogram of
    /// all the requests gives), counts, outcomes and the per-second series summed, the open model's
    /// rates and the closed model's concurrency added, the measured window the longest of theirs.
    ///
    /// - Throws: ``ResultFileError`` for no runs, runs of different scenarios or models, or two
    ///   runs of the same `--shard` (the same generator twice).
    public static func merged(_ runs: [(name: String, result: LoadResult)]) throws(ResultFileError)
        -> LoadResult
    {
        guard let (firstName, first) = runs.first else { throw ResultFileError("nothing to merge") }
        var shards: [GeneratorShard: String] = [:]
        for (name, run) in runs {
            guard let shard = run.shard else { continue }
            if let other = shards[shard] {
                throw ResultFileError("\(other) and \(name) are both generator \(shard): the same run twice?")
            }
            shards[shard] = name
        }
        if let (name, _) = runs.first(where: { $0.result.capacityObjective != nil }) {
            throw ResultFileError("\(name) holds a capacity search (--find-capacity): searches do not merge")
        }
        var merged = first
        merged.shard = nil
        for (name, run) in runs.dropFirst() {
            guard run.scenario == first.scenario else {
                throw ResultFileError(
                    "\(name) ran \"\(run.scenario)\", \(firstName) \"\(first.scenario)\": only runs of one scenario merge"
                )
            }
            switch (merged.model, run.model) {
            case (.open(let total), .open(let rate)): merged.model = .open(rate: total + rate)
            case (.closed(let total), .closed(let concurrency)):
                merged.model = .closed(concurrency: total + concurrency)
            default:
                throw ResultFileError(
                    "\(name) ran the \(run.model), \(firstName) the \(first.model): only runs of one model merge"
                )
            }
            merged.connections += run.connections
            merged.duration = max(merged.duration, run.duration)
            merged.warmup = max(merged.warmup, run.warmup)
            merged.sent += run.sent
            merged.completed += run.completed
            merged.warmupRequests += run.warmupRequests
            merged.unfinished += run.unfinished
            merged.latency.merge(run.latency)
            merged.senderLag.merge(run.senderLag)
            for (label, count) in run.outcomes { merged.outcomes[label, default: 0] += count }
            merged.errors += run.errors
            if run.perSecond.count > merged.perSecond.count {
                merged.perSecond += [Int](repeating: 0, count: run.perSecond.count - merged.perSecond.count)
            }
            for (second, count) in run.perSecond.enumerated() { merged.perSecond[second] += count }
            merged.interrupted = merged.interrupted || run.interrupted
            merged.latencySamples += run.latencySamples
            for (kind, histogram) in run.latencyByKind {
                merged.latencyByKind[kind, default: LatencyHistogram()].merge(histogram)
            }
            guard run.stages.map(\.name) == first.stages.map(\.name),
                run.stages.map(\.duration) == first.stages.map(\.duration)
            else {
                throw ResultFileError(
                    "\(name) ran other stages than \(firstName): only runs of one ramp merge")
            }
            for (index, stage) in run.stages.enumerated() {
                merged.stages[index].from += stage.from
                merged.stages[index].to += stage.to
                merged.stages[index].sent += stage.sent
                merged.stages[index].completed += stage.completed
                merged.stages[index].unfinished += stage.unfinished
                merged.stages[index].errors += stage.errors
                merged.stages[index].latency.merge(stage.latency)
                for (label, count) in stage.outcomes {
                    merged.stages[index].outcomes[label, default: 0] += count
                }
            }
        }
        return merged
    }

    /// A decoding error as a short phrase: which member is missing or of the wrong type.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "unreadable: \(error)" }
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let at = path(context)
            return "no member \"\(key.stringValue)\"\(at.isEmpty ? "" : " in \(at)")"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(path(context)) is not of the expected type"
        case .dataCorrupted(let context):
            return "unreadable at \(path(context)): \(context.debugDescription)"
        @unknown default:
            return "unreadable"
        }
    }
}
