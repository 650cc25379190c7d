import Foundation
import Testing

/// Package.swift declares what each target uses: every dependency of a Swift target (library,
/// executable or test) is imported by at least one of its source files, so that the module graph
/// in Package.swift is the one the code has (docs/ARCHITECTURE.md, "Layout"), and the edges
/// docs/ARCHITECTURE.md names (which module may use which) hold in it.
@Suite("Package.swift: every declared dependency is imported; the module edges hold", .timeLimit(.minutes(1)))
struct PackageDependencyTests {
    /// A target as Package.swift declares it.
    struct Target: Equatable {
        let name: String
        let directory: String
        let dependencies: [String]
    }

    /// The Swift targets of `manifest` with their dependency lists written as string literals (a
    /// list held in a variable is read from its `let` in the manifest).
    static func targets(in manifest: String) throws -> [Target] {
        let start = try Regex(#"\.(target|executableTarget|testTarget)\("#)
        let starts = manifest.ranges(of: start).map(\.lowerBound) + [manifest.endIndex]
        var targets: [Target] = []
        for (from, to) in zip(starts, starts.dropFirst()) {
            let call = String(manifest[from..<to])
            guard let name = call.firstMatch(of: #/name:\s*"([^"]+)"/#)?.1 else { continue }
            let isTest = call.hasPrefix(".testTarget")
            let directory =
                call.firstMatch(of: #/path:\s*"([^"]+)"/#).map { String($0.1) }
                ?? (isTest ? "Tests/" : "Sources/") + name
            var list = ""
            if let literal = call.firstMatch(of: #/dependencies:\s*\[([^\]]*)\]/#) {
                list = String(literal.1)
            } else if let variable = call.firstMatch(of: #/dependencies:\s*([A-Za-z_][A-Za-z0-9_]*)/#),
                let value = manifest.firstMatch(
                    of: try Regex(#"let\s+"# + String(variable.1) + #"\s*(?::[^=]*)?=\s*\[([^\]]*)\]"#))
            {
                list = String(value.output[1].substring ?? "")
            }
            let dependencies = list.matches(of: #/"([^"]+)"/#).map { String($0.1) }
            targets.append(Target(name: String(name), directory: directory, dependencies: dependencies))
        }
        return targets
    }

    /// The modules the Swift files under `directory` import.
    static func imports(under directory: String) throws -> Set<String> {
        var modules: Set<String> = []
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
        for case let file as String in walker where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            for line in text.split(separator: "\n") {
                if let module = importedModule(line) { modules.insert(module) }
            }
        }
        return modules
    }

    /// The module an `import` line names (`@testable import A`, `public import A`,
    /// `import struct A.B`), else nil.
    static func importedModule(_ line: Substring) -> String? {
        let kinds: Set<Substring> = [
            "typealias", "struct", "class", "enum", "protocol", "let", "var", "func",
        ]
        let access: Set<Substring> = ["public", "package", "internal", "fileprivate", "private"]
        var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })[...]
        while let first = words.first, first.hasPrefix("@") || access.contains(first) { words.removeFirst() }
        guard words.first == "import" else { return nil }
        words.removeFirst()
        if let first = words.first, kinds.contains(first) { words.removeFirst() }
        guard let path = words.first, let module = path.split(separator: ".").first else { return nil }
        return String(module)
    }

    @Test("the manifest reader: literal and variable lists, paths, test targets")
    func reader() throws {
        let manifest = """
            let kernels: [Target.Dependency] = ["K1", "K2"]
            .target(name: "A", dependencies: ["B", "C"], swiftSettings: common),
            .testTarget(name: "ATests", dependencies: ["A"]),
            .executableTarget(name: "tool", dependencies: kernels, path: "Tools/tool"),
            .target(name: "Plain"),
            """
        #expect(
            try Self.targets(in: manifest) == [
                Target(name: "A", directory: "Sources/A", dependencies: ["B", "C"]),
                Target(name: "ATests", directory: "Tests/ATests", dependencies: ["A"]),
                Target(name: "tool", directory: "Tools/tool", dependencies: ["K1", "K2"]),
                Target(name: "Plain", directory: "Sources/Plain", dependencies: []),
            ])
    }

    @Test("import lines: attributes, access levels, kinds")
    func importLines() {
        #expect(Self.importedModule("import Foundation") == "Foundation")
        #expect(Self.importedModule("@testable import ZeroMQ") == "ZeroMQ")
        #expect(Self.importedModule("public import Reactive") == "Reactive")
        #expect(Self.importedModule("internal import CZeroMQ") == "CZeroMQ")
        #expect(Self.importedModule("import struct Contracts.Methods") == "Contracts")
        #expect(Self.importedModule("    import Glibc") == "Glibc")
        #expect(Self.importedModule("// import Nothing") == nil)
        #expect(Self.importedModule("let important = 1") == nil)
    }

    @Test("every target imports each module it depends on")
    func everyDependencyIsImported() throws {
        let manifest = try String(contentsOfFile: Paths.repository + "/Package.swift", encoding: .utf8)
        let targets = try Self.targets(in: manifest)
        #expect(targets.count > 40)
        for target in targets {
            let imported = try Self.imports(under: Paths.repository + "/" + target.directory)
            let unused = target.dependencies.filter { !imported.contains($0) }
            #expect(unused.isEmpty, "\(target.name) declares \(unused) but never imports them")
        }
    }

    /// Every module `name` links, directly or through the modules it depends on.
    static func reachable(from name: String, in targets: [Target]) -> Set<String> {
        let byName = Dictionary(
            targets.map { ($0.name, $0.dependencies) }, uniquingKeysWith: { first, _ in first })
        var seen: Set<String> = []
        var pending = byName[name] ?? []
        while let next = pending.popLast() {
            guard seen.insert(next).inserted else { continue }
            pending += byName[next] ?? []
        }
        return seen
    }

    @Test(
        "module edges: clients link neither ServiceKit nor GatewayCore, TerminalUI no ZeroMQ, ProcessSupport nothing"
    )
    func moduleEdges() throws {
        let manifest = try String(contentsOfFile: Paths.repository + "/Package.swift", encoding: .utf8)
        let targets = try Self.targets(in: manifest)
        for client in ["GatewayClient", "gateway-cli", "TerminalUI"] {
            let linked = Self.reachable(from: client, in: targets)
            #expect(!linked.isEmpty, "\(client) is not in Package.swift")
            #expect(!linked.contains("ServiceKit"), "\(client) links ServiceKit")
            #expect(!linked.contains("GatewayCore"), "\(client) links GatewayCore")
        }
        let terminal = Self.reachable(from: "TerminalUI", in: targets)
        #expect(!terminal.contains("ZeroMQ") && !terminal.contains("CZeroMQ"), "TerminalUI links \(terminal)")
        #expect(Self.reachable(from: "ProcessSupport", in: targets).isEmpty)
        #expect(Self.reachable(from: "ZeroMQ", in: targets) == ["CZeroMQ", "ProcessSupport"])
        #expect(
            Self.reachable(
                from: "A",
                in: [
                    Target(name: "A", directory: "", dependencies: ["B"]),
                    Target(name: "B", directory: "", dependencies: ["C"]),
                ]) == ["B", "C"])
    }
}
