import Foundation
import LoadTestCore

/// `auth-loadtest merge A.json B.json … [--json F] [--svg F] [--fail-if C]`: several generators'
/// result files of one run as one result (docs/LOADTEST.md, "Many generators"). Exit 0, 1 when a
/// `--fail-if` condition is missed, 64 for bad usage or a file that cannot be merged (nothing is
/// written then), 2 when an output file cannot be written.
enum MergeCommand {
    static let usage = """
        usage: auth-loadtest merge RESULT.json RESULT.json... [--json FILE] [--svg FILE] [--fail-if CONDITIONS]

        Merges the result files (--json) of generators that ran one scenario at the same time, each with
        --shard I/N: histograms counter for counter, the per-second series and counts summed. Prints the
        report of the whole, and writes it with --json and --svg.

        """

    static func run(_ arguments: [String]) -> Int32 {
        func fail(_ message: String) -> Int32 { SubcommandArguments.fail("merge", message) }
        let parsed: SubcommandArguments
        switch SubcommandArguments.parse(
            arguments, name: "merge", options: ["--json", "--svg", "--fail-if"], usage: usage)
        {
        case .exit(let code): return code
        case .run(let arguments): parsed = arguments
        }
        let files = parsed.positional
        let (json, svg) = (parsed.value("--json"), parsed.value("--svg"))
        var thresholds: [Threshold] = []
        for value in parsed.all("--fail-if") {
            guard let list = Threshold.parseList(value) else {
                return fail("--fail-if: cannot read \"\(value)\" (e.g. 'p99<50ms,errors<1%')")
            }
            thresholds += list
        }
        guard files.count >= 1 else { return fail("give the result files to merge (see --help)") }
        var runs: [(name: String, result: LoadResult)] = []
        do {
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else {
                    return fail("cannot read \(file)")
                }
                runs.append((file, try LoadResult(resultFile: data, name: file)))
            }
            var merged = try LoadResult.merged(runs)
            merged.scenario = runs[0].result.scenario
            let verdicts = thresholds.evaluate(merged)
            // Everything is made before anything is written: a failure leaves no half-written file.
            let document = try? merged.json(verdicts: verdicts)
            let drawing = Data(merged.svg().utf8)
            print(
                "merged \(files.count) result file\(files.count == 1 ? "" : "s"): \(files.joined(separator: " "))"
            )
            print(merged.report(verdicts: verdicts), terminator: "")
            for (path, data) in [(json, document), (svg, drawing)] {
                guard let path else { continue }
                guard let data else { return fail("cannot encode the merged result") }
                do { try data.write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
                    FileHandle.standardError.write(
                        Data("auth-loadtest merge: cannot write \(path): \(error)\n".utf8))
                    return 2
                }
            }
            return verdicts.allSatisfy(\.passed) ? 0 : 1
        } catch {
            return fail(error.description)
        }
    }
}
