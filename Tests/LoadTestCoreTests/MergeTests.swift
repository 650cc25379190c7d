import Foundation
import LoadTestCore
import Testing

/// A run of `model` whose latencies are `values` (answered in second `i % seconds`), as a generator
/// records it.
private func run(_ values: ArraySlice<UInt64>, model: LoadModel, seconds: Int = 5, scenario: String = "login")
    -> LoadResult
{
    var result = LoadResult(
        scenario: scenario, model: model, connections: 2, duration: 5_000_000_000, warmup: 1_000_000_000)
    result.perSecond = [Int](repeating: 0, count: seconds)
    for (offset, value) in values.enumerated() {
        result.latency.record(value)
        if case .open = model { result.senderLag.record(value / 50) }
        result.perSecond[offset % seconds] += 1
        let label = value % 7 == 0 ? "error overloaded" : "login 200"
        result.outcomes[label, default: 0] += 1
        if value % 7 == 0 { result.errors += 1 }
    }
    result.sent = values.count
    result.completed = values.count
    return result
}

/// `result` written as a result file and read back.
private func roundTrip(_ result: LoadResult, _ name: String = "run.json") throws -> LoadResult {
    try LoadResult(resultFile: try result.json(), name: name)
}

@Suite("auth-loadtest merge: result files merged exactly", .timeLimit(.minutes(1)))
struct MergeTests {
    @Test("a result file reads back as the run it holds, histograms counter for counter")
    func roundTripIsExact() throws {
        var generator = SplitMix64(seed: 7)
        let values = (0..<20_000).map { _ in 1_000 + generator.next() % 900_000_000 }
        let original = run(values[...], model: .open(rate: 4_000))
        let read = try roundTrip(original)
        #expect(read.latency == original.latency)
        #expect(read.senderLag == original.senderLag)
        #expect(read.perSecond == original.perSecond)
        #expect(read.outcomes == original.outcomes)
        #expect(read.model == original.model)
        #expect(read.duration == original.duration && read.warmup == original.warmup)
        #expect(read.sent == original.sent && read.errors == original.errors)
    }

    @Test(
        "merging the result files of random splits of one set of latencies gives the whole set's percentiles",
        arguments: [1, 2, 3, 42, 2026] as [UInt64])
    func randomSplitsMergeToTheWhole(seed: UInt64) throws {
        var generator = SplitMix64(seed: seed)
        let count = 5_000 + Int(generator.next() % 20_000)
        // Latencies over six decades, 1 µs to 1 s, with repeats.
        let values = (0..<count).map { _ -> UInt64 in
            let decade = generator.next() % 6
            var scale: UInt64 = 1_000
            for _ in 0..<decade { scale *= 10 }
            return scale + generator.next() % (scale * 9)
        }
        let whole = run(values[...], model: .closed(concurrency: 64))
        // Cut into 1 to 8 pieces at random points (a piece may be empty).
        let pieces = 1 + Int(generator.next() % 8)
        let cuts = ((0..<(pieces - 1)).map { _ in Int(generator.next() % UInt64(count + 1)) } + [0, count])
            .sorted()
        var files: [(name: String, result: LoadResult)] = []
        for piece in 0..<pieces {
            let part = run(values[cuts[piece]..<cuts[piece + 1]], model: .closed(concurrency: 64 / pieces))
            files.append(("part\(piece).json", try roundTrip(part, "part\(piece).json")))
        }
        let merged = try LoadResult.merged(files)
        #expect(merged.latency == whole.latency)
        for percentile in [0, 1, 25, 50, 75, 90, 99, 99.9, 99.99, 100] {
            #expect(
                merged.latency.value(atPercentile: percentile)
                    == whole.latency.value(atPercentile: percentile))
        }
        #expect(merged.latency.min == whole.latency.min && merged.latency.max == whole.latency.max)
        #expect(merged.latency.mean == whole.latency.mean)
        #expect(merged.sent == whole.sent && merged.errors == whole.errors)
        #expect(merged.outcomes == whole.outcomes)
        // Each piece's per-second series starts over at its own first value: the sums still match
        // second for second only when each piece alone has the whole's shape, so compare totals.
        #expect(merged.perSecond.reduce(0, +) == whole.perSecond.reduce(0, +))
        #expect(merged.perSecond.count == whole.perSecond.count)
    }

    @Test("rates and concurrency add up; the per-second series are summed second by second")
    func modelsAndSeriesAdd() throws {
        var a = run([10_000, 20_000][...], model: .open(rate: 1_000), seconds: 3)
        a.perSecond = [5, 6, 7]
        var b = run([30_000][...], model: .open(rate: 2_000), seconds: 4)
        b.perSecond = [1, 1, 1, 9]
        let merged = try LoadResult.merged([("a", try roundTrip(a)), ("b", try roundTrip(b))])
        #expect(merged.model == .open(rate: 3_000))
        #expect(merged.perSecond == [6, 7, 8, 9])
        #expect(merged.connections == 4)
        #expect(merged.senderLag.count == 3)
    }

    @Test("runs of different scenarios or models do not merge, with a line naming the files")
    func mismatchesAreRefused() throws {
        let login = run([1_000][...], model: .closed(concurrency: 4))
        let exists = run([1_000][...], model: .closed(concurrency: 4), scenario: "exists")
        let open = run([1_000][...], model: .open(rate: 10))
        #expect(throws: ResultFileError.self) { try LoadResult.merged([]) }
        do {
            _ = try LoadResult.merged([("a.json", login), ("b.json", exists)])
            Issue.record("merged two scenarios")
        } catch {
            #expect(error.description.contains("b.json ran \"exists\", a.json \"login\""), "\(error)")
        }
        do {
            _ = try LoadResult.merged([("a.json", login), ("c.json", open)])
            Issue.record("merged two models")
        } catch {
            #expect(error.description.contains("c.json"), "\(error)")
        }
    }

    @Test(
        "a file from another tool, another version or with a histogram that cannot be is refused",
        arguments: [
            ("[1,2,3]", "not a JSON object"),
            (#"{"latencies":[1,2]}"#, "not an auth-loadtest result file"),
            ("not json", "not a JSON object"),
        ])
    func foreignFilesAreRefused(text: String, message: String) {
        do {
            _ = try LoadResult(resultFile: Data(text.utf8), name: "x.json")
            Issue.record("read \(text)")
        } catch {
            #expect(error.description.hasPrefix("x.json: \(message)"), "\(error)")
        }
    }

    @Test("a result file of another version, or one whose histogram was edited, is refused")
    func versionsAndTamperingAreRefused() throws {
        let original = try run([1_000, 2_000, 3_000][...], model: .closed(concurrency: 4)).json()
        var object = try #require(try JSONSerialization.jsonObject(with: original) as? [String: Any])
        object["format_version"] = 99
        do {
            _ = try LoadResult(resultFile: try JSONSerialization.data(withJSONObject: object), name: "v.json")
            Issue.record("read version 99")
        } catch {
            #expect("\(error)".contains("version 99"))
        }
        object["format_version"] = 1
        object["histogram"] = [["nanoseconds": 1_001, "count": 3]]  // 1,001 is no bucket's highest value
        do {
            _ = try LoadResult(resultFile: try JSONSerialization.data(withJSONObject: object), name: "h.json")
            Issue.record("read a tampered histogram")
        } catch {
            #expect("\(error)".contains("does not add up"))
        }
        object.removeValue(forKey: "histogram")
        do {
            _ = try LoadResult(resultFile: try JSONSerialization.data(withJSONObject: object), name: "m.json")
            Issue.record("read a file without its histogram")
        } catch {
            #expect("\(error)".contains("no member \"histogram\""))
        }
    }
}
