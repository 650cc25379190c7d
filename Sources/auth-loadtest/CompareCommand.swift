import Foundation
import LoadTestCore

/// `auth-loadtest compare BASE.json NEW.json [--fail-if-slower 5%]`: two result files side by side
/// (docs/LOADTEST.md, "Comparing runs"). Exit 0, 1 when `--fail-if-slower` finds a figure worse by
/// more than its bound beyond the noise, 64 for bad usage or a file that cannot be read.
enum CompareCommand {
    static let usage = """
        usage: auth-loadtest compare BASE.json NEW.json [--fail-if-slower PERCENT]

        Prints, for the whole run and each stage both have, the rate, p50, p90, p99, p99.9, max and
        errors of both runs (result files of --json), their change, and whether the change is beyond
        the run-to-run noise: a bootstrap interval over the runs' per-second samples. With
        --fail-if-slower 5%, exits 1 when the rate or a percentile is more than 5 % worse, beyond the noise.

        """

    static func run(_ arguments: [String]) -> Int32 {
        func fail(_ message: String) -> Int32 { SubcommandArguments.fail("compare", message) }
        let parsed: SubcommandArguments
        switch SubcommandArguments.parse(
            arguments, name: "compare", options: ["--fail-if-slower"], usage: usage)
        {
        case .exit(let code): return code
        case .run(let arguments): parsed = arguments
        }
        let files = parsed.positional
        var bound: Double?
        if let text = parsed.value("--fail-if-slower") {
            guard text.hasSuffix("%"), let percent = Double(text.dropLast()), percent >= 0, percent.isFinite
            else {
                return fail("--fail-if-slower: cannot read \"\(text)\" (a percentage such as 5%)")
            }
            bound = percent / 100
        }
        guard files.count == 2 else {
            return fail("give two result files, BASE.json and NEW.json (see --help)")
        }
        var runs: [LoadResult] = []
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else {
                return fail("cannot read \(file)")
            }
            do { runs.append(try LoadResult(resultFile: data, name: file)) } catch {
                return fail(error.description)
            }
        }
        let comparison = RunComparison(base: runs[0], new: runs[1])
        print(comparison.report(baseName: files[0], newName: files[1], bound: bound), terminator: "")
        guard let bound else { return 0 }
        return comparison.slower(by: bound).isEmpty ? 0 : 1
    }
}
