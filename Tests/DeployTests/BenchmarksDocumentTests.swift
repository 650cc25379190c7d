import Foundation
import Testing

/// docs/BENCHMARKS.md stays a reference, and what points into it keeps pointing somewhere:
///
/// - it has at most ``maximumLines`` lines (history goes to git, analyses to docs/performance/);
/// - every table of figures in it and in docs/performance/ is dated. A table of figures is a
///   markdown table (a `|` row, then a `|---|` row) outside code fences with a body cell that
///   starts with a digit once `*` and spaces are dropped; the paragraph before it (the
///   non-blank lines above it, up to a blank line) starts with `Latest` and holds a date `YYYY-MM-DD` and a
///   commit of seven to forty hex digits in backquotes, e.g.
///   ``Latest: 2026-12-06, commit `52a3490`, `make bench-reactive`, load average 0.1–1:``;
/// - its relative links and those of docs/performance/ lead to files that exist, and their
///   anchors into markdown files to headings there (GitHub's anchors: lower case, spaces as `-`,
///   other punctuation dropped);
/// - everywhere in the repository (README.md, CONTRIBUTING.md, the Makefile, docs/, deploy/,
///   Benchmarks/, Sources/), a link `BENCHMARKS.md#anchor` names one of its headings, and a
///   section cited by name (`docs/BENCHMARKS.md, "Gateway"`, `docs/BENCHMARKS.md ("Gateway")`, or
///   in the Makefile's comments `(docs/BENCHMARKS.md, Gateway)`) is the start of one of its
///   headings, also when the citation is wrapped over comment lines;
/// - every page of docs/performance/ is listed in docs/performance/README.md, which BENCHMARKS.md
///   links.
@Suite(
    "docs/BENCHMARKS.md: short, every table of figures dated, every link and citation resolves",
    .timeLimit(.minutes(1)))
struct BenchmarksDocumentTests {
    static let benchmarks = "docs/BENCHMARKS.md"
    static let maximumLines = 450

    /// BENCHMARKS.md and every page under docs/performance/, relative to the repository.
    static var figureDocuments: [String] {
        [benchmarks] + files(under: "docs/performance", endingIn: [".md"])
    }

    @Test("docs/BENCHMARKS.md has at most 450 lines")
    func short() throws {
        let text = contents(Paths.inRepository(Self.benchmarks))
        try #require(!text.isEmpty, "\(Self.benchmarks) is missing")
        let lines =
            text.split(separator: "\n", omittingEmptySubsequences: false).count
            - (text.hasSuffix("\n") ? 1 : 0)
        #expect(lines <= Self.maximumLines, "\(Self.benchmarks) has \(lines) lines")
    }

    @Test("the rule on examples: what is a table of figures, and what dates it")
    func ruleOnExamples() {
        let dated = """
            Latest: 2026-12-06, commit `52a3490`, `make bench-reactive`,
            load average 0.1–1:

            | row | rate |
            |---|---:|
            | (a) | 11.69 M/s |
            """
        #expect(Self.undatedTables(in: dated, file: "x.md").isEmpty)
        let undated = """
            Run on the quiet machine, commit `52a3490`:

            | row | rate |
            |---|---:|
            | (a) | **11.69** M/s |

            Latest: December 2026, commit `52a3490`:

            | row | rate |
            |---|---:|
            | (a) | 1 |

            Latest: 2026-12-06, the new build:

            | row | rate |
            |---|---:|
            | (a) | 1 |
            """
        #expect(Self.undatedTables(in: undated, file: "x.md") == ["x.md:3", "x.md:9", "x.md:15"])
        let notFigures = """
            | target | measures |
            |---|---|
            | [`make bench-json`](#json) | ns per call |

            ```text
            | a | 1 |
            |---|---|
            | b | 2 |
            ```
            """
        #expect(Self.undatedTables(in: notFigures, file: "x.md").isEmpty)
        #expect(
            Self.anchor(ofHeading: "Metrics: what `--metrics-listen` costs")
                == "metrics-what---metrics-listen-costs")
        #expect(
            Self.anchor(ofHeading: "Reactive core: `make bench-reactive`")
                == "reactive-core-make-bench-reactive")
        #expect(Self.anchors(in: "# A\n## A\n```\n# not a heading\n```\n") == ["a", "a-1"])
    }

    @Test("every table of figures in docs/BENCHMARKS.md and docs/performance/ follows a dated Latest line")
    func tablesAreDated() {
        for file in Self.figureDocuments {
            for table in Self.undatedTables(in: contents(Paths.inRepository(file)), file: file) {
                Issue.record(
                    "\(table): the paragraph before this table must start with `Latest` and name a date (YYYY-MM-DD) and a commit (`abc1234`)"
                )
            }
        }
        #expect(Self.figureDocuments.count > 1, "no pages under docs/performance/")
    }

    @Test("the links of docs/BENCHMARKS.md and docs/performance/ lead to files and headings that exist")
    func linksResolve() {
        for file in Self.figureDocuments {
            let directory = URL(fileURLWithPath: Paths.inRepository(file)).deletingLastPathComponent()
            for link in Self.links(in: contents(Paths.inRepository(file))) {
                let target =
                    link.path.isEmpty
                    ? URL(fileURLWithPath: Paths.inRepository(file))
                    : directory.appendingPathComponent(link.path).standardizedFileURL
                guard FileManager.default.fileExists(atPath: target.path) else {
                    Issue.record("\(file): the link \(link.path) leads to no file")
                    continue
                }
                if let anchor = link.anchor, target.pathExtension == "md" {
                    #expect(
                        Self.anchors(in: contents(target.path)).contains(anchor),
                        "\(file): no heading in \(target.lastPathComponent) has the anchor #\(anchor)")
                }
            }
        }
    }

    @Test("links and citations into docs/BENCHMARKS.md from the whole repository name its headings")
    func citationsResolve() throws {
        let text = contents(Paths.inRepository(Self.benchmarks))
        let anchors = Self.anchors(in: text)
        let headings = Self.headings(in: text)
        var checked = 0
        let linked = #/BENCHMARKS\.md#([A-Za-z0-9_\-]+)/#
        let quoted = #/BENCHMARKS\.md,? \(?"([^"]+)"/#
        let bare = #/BENCHMARKS\.md, ([A-Z][A-Za-z0-9]*)\)/#
        for file in Self.citingFiles {
            let source = Self.unwrapped(contents(Paths.inRepository(file)))
            for match in source.matches(of: linked) {
                checked += 1
                #expect(
                    anchors.contains(String(match.1)), "\(file): BENCHMARKS.md#\(match.1) names no heading")
            }
            for name in source.matches(of: quoted).map({ String($0.1) })
                + source.matches(of: bare).map({ String($0.1) })
            {
                checked += 1
                #expect(
                    headings.contains { $0.hasPrefix(name) },
                    "\(file): cites the section \"\(name)\" of BENCHMARKS.md, which no heading starts with")
            }
        }
        #expect(checked >= 10, "only \(checked) citations of BENCHMARKS.md found")
    }

    @Test("every page of docs/performance/ is listed in its README.md, which docs/BENCHMARKS.md links")
    func pagesAreListed() {
        let index = contents(Paths.inRepository("docs/performance/README.md"))
        let listed = Set(Self.links(in: index).map { $0.path })
        for page in Self.files(under: "docs/performance", endingIn: [".md"]) {
            let name = URL(fileURLWithPath: page).lastPathComponent
            if name != "README.md" {
                #expect(listed.contains(name), "docs/performance/README.md does not list \(name)")
            }
        }
        let fromBenchmarks = Self.links(in: contents(Paths.inRepository(Self.benchmarks))).map { $0.path }
        #expect(
            fromBenchmarks.contains("performance/README.md"),
            "BENCHMARKS.md does not link performance/README.md")
    }

    // MARK: - The rules

    /// The locations (`file:line` of the header row) of the tables of figures in `markdown` whose
    /// paragraph before does not date them.
    static func undatedTables(in markdown: String, file: String) -> [String] {
        let lines = markdown.components(separatedBy: "\n")
        let outside = outsideFences(lines)
        let delimiter = #/^\|[\s:|\-]*-[\s:|\-]*$/#
        let date = #/\b20\d\d-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])\b/#
        let commit = #/`[0-9a-f]{7,40}`/#
        var problems: [String] = []
        var index = 0
        while index + 1 < lines.count {
            guard outside[index], outside[index + 1], lines[index].hasPrefix("|"),
                lines[index + 1].wholeMatch(of: delimiter) != nil
            else {
                index += 1
                continue
            }
            var end = index + 2
            while end < lines.count, outside[end], lines[end].hasPrefix("|") { end += 1 }
            let cells = lines[(index + 2)..<end].flatMap { $0.split(separator: "|") }
            let hasFigures = cells.contains {
                $0.drop { $0 == "*" || $0 == " " }.first?.isNumber == true
            }
            // The paragraph before: back over the blank lines, then to the blank line before it.
            var last = index
            while last > 0, lines[last - 1].trimmingCharacters(in: .whitespaces).isEmpty { last -= 1 }
            var start = last
            while start > 0, !lines[start - 1].trimmingCharacters(in: .whitespaces).isEmpty { start -= 1 }
            let paragraph = lines[start..<last].joined(separator: " ")
            let isDated =
                paragraph.hasPrefix("Latest") && paragraph.firstMatch(of: date) != nil
                && paragraph.firstMatch(of: commit) != nil
            if hasFigures && !isDated { problems.append("\(file):\(index + 1)") }
            index = end
        }
        return problems
    }

    /// For each line, whether it is outside fenced code blocks (fence lines count as inside).
    static func outsideFences(_ lines: [String]) -> [Bool] {
        var inside = false
        return lines.map { line in
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                inside.toggle()
                return false
            }
            return !inside
        }
    }

    /// The headings of `markdown` (outside code fences), without their `#`s.
    static func headings(in markdown: String) -> [String] {
        let lines = markdown.components(separatedBy: "\n")
        return zip(lines, outsideFences(lines)).compactMap { line, outside in
            let hashes = line.prefix { $0 == "#" }.count
            guard outside, (1...6).contains(hashes), line.dropFirst(hashes).first == " " else { return nil }
            return line.dropFirst(hashes).trimmingCharacters(in: .whitespaces)
        }
    }

    /// GitHub's anchor of a heading: lower case, spaces as `-`, letters, digits, `-` and `_` kept.
    static func anchor(ofHeading heading: String) -> String {
        String(
            heading.lowercased().compactMap { character -> Character? in
                if character == " " { return "-" }
                return character.isLetter || character.isNumber || character == "-" || character == "_"
                    ? character : nil
            })
    }

    /// The anchors of every heading of `markdown`, a repeated one numbered as GitHub does (`-1`, …).
    static func anchors(in markdown: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var anchors: Set<String> = []
        for heading in headings(in: markdown) {
            let anchor = anchor(ofHeading: heading)
            let count = seen[anchor, default: 0]
            anchors.insert(count == 0 ? anchor : "\(anchor)-\(count)")
            seen[anchor] = count + 1
        }
        return anchors
    }

    /// The relative links of `markdown` (`[text](path#anchor)`, not `scheme://`), outside code fences.
    static func links(in markdown: String) -> [(path: String, anchor: String?)] {
        let lines = markdown.components(separatedBy: "\n")
        let prose = zip(lines, outsideFences(lines)).filter { $0.1 }.map { $0.0 }.joined(separator: "\n")
        return prose.matches(of: #/\]\(([^)\s]+)\)/#).compactMap { match in
            let target = String(match.1)
            guard !target.contains("://"), !target.hasPrefix("mailto:") else { return nil }
            let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : nil)
        }
    }

    /// `text` with every line break, and the comment marker (`//`, `///`, `#`) that starts the next
    /// line, turned into one space, so that a citation wrapped over comment lines reads as one.
    static func unwrapped(_ text: String) -> String {
        text.replacing(#/[ \t]*\n[ \t]*(?:\/\/\/?|#+)?[ \t]*/#, with: " ")
    }

    /// The files that may cite BENCHMARKS.md, relative to the repository.
    static var citingFiles: [String] {
        ["README.md", "CONTRIBUTING.md", "Makefile"]
            + files(under: "docs", endingIn: [".md"]) + files(under: "deploy", endingIn: [".md", ".sh"])
            + files(under: "Benchmarks", endingIn: [".swift"]) + files(under: "Sources", endingIn: [".swift"])
    }

    /// The files under `directory` (relative to the repository) whose names end in one of `suffixes`,
    /// sorted, relative to the repository.
    static func files(under directory: String, endingIn suffixes: [String]) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: Paths.inRepository(directory))
        var found: [String] = []
        while let path = enumerator?.nextObject() as? String {
            if suffixes.contains(where: path.hasSuffix) { found.append(directory + "/" + path) }
        }
        return found.sorted()
    }
}
