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
        guard let version = object["format_version"] as? Int, version == JSONReport.currentVersion else {
            throw ResultFileError(
                "\(name): result format version \(object["format_version"].map { "\($0)" } ?? "missing"), "
                    + "this build reads version \(JSONReport.currentVersion)")
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
        guard
            let latency = LatencyHistogram(
                buckets: document.histogram.map { ($0.nanoseconds, $0.count) },
                min: document.latencyNanoseconds.min, max: document.latencyNanoseconds.max,
                sum: document.latencyNanoseconds.sum),
            latency.count == document.latencyNanoseconds.count
        else { throw ResultFileError("\(name): the latency histogram does not add up") }
        var lag = LatencyHistogram()
        if let buckets = document.senderLagHistogram, let exact = document.senderLagNanoseconds {
            guard
                let read = LatencyHistogram(
                    buckets: buckets.map { ($0.nanoseconds, $0.count) }, min: exact.min, max: exact.max,
                    sum: exact.sum), read.count == exact.count
            else { throw ResultFileError("\(name): the sender-lag histogram does not add up") }
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
    }

    /// Several generators' runs of one scenario and model, made at the same time, as one run: the
    /// histograms merged counter for counter (so every percentile is the one a single histogram of
    /// all the requests gives), counts, outcomes and the per-second series summed, the open model's
    /// rates and the closed model's concurrency added, the measured window the longest of theirs.
    ///
    /// - Throws: ``ResultFileError`` for no runs, or runs of different scenarios or models.
    public static func merged(_ runs: [(name: String, result: LoadResult)]) throws(ResultFileError)
        -> LoadResult
    {
        guard let (firstName, first) = runs.first else { throw ResultFileError("nothing to merge") }
        var merged = first
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
