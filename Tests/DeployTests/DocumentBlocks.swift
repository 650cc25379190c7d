import Foundation

/// A fenced block of a markdown file that DocumentBlockTests runs or checks: shell commands, a
/// terminal transcript or a Python program. Which fences are blocks, and what their markers mean,
/// is described on ``DocumentBlockTests``.
struct DocumentBlock: Sendable, CustomStringConvertible {
    /// How a block runs.
    enum Kind: Sendable, Equatable {
        /// Shell commands: the whole block is one bash script.
        case script
        /// A terminal session: `$ ` lines are commands, the other lines what they print.
        case transcript
        /// A Python program, run with python3.
        case python
    }

    /// What the line before the fence asks for.
    enum Marker: Sendable, Equatable {
        /// No marker: the block runs.
        case none
        /// `<!-- illustrative`: skipped.
        case illustrative
        /// `<!-- long-running`: not run, checked offline.
        case longRunning
    }

    /// The file, relative to the repository.
    let file: String
    /// The line of the opening fence (1-based).
    let line: Int
    let kind: Kind
    let marker: Marker
    /// The lines between the fences, without the opening fence's indentation.
    let lines: [String]

    var description: String { "\(file):\(line)" }

    /// The block as a file: its lines, each ended by a newline.
    var text: String { lines.map { $0 + "\n" }.joined() }

    /// A transcript's commands (the `$ ` lines without the prompt, with the lines that continue them
    /// after a trailing `\`); a script's or program's whole text.
    var commands: String {
        guard kind == .transcript else { return text }
        return transcript.commands.map { $0 + "\n" }.joined()
    }

    /// The block with every `address` in its lines replaced by `replacement` (an address a user's
    /// machine has that the test's stack has elsewhere).
    func replacing(_ address: String, with replacement: String) -> DocumentBlock {
        DocumentBlock(
            file: file, line: line, kind: kind, marker: marker,
            lines: lines.map { $0.replacingOccurrences(of: address, with: replacement) })
    }

    /// A transcript's printed output: the lines that are not commands.
    var expectedOutput: [String] { transcript.output }

    private var transcript: (commands: [String], output: [String]) {
        var commands: [String] = []
        var output: [String] = []
        var continuing = false
        for line in lines {
            if continuing {
                commands.append(line)
            } else if line.hasPrefix("$ ") || line == "$" {
                commands.append(String(line.dropFirst(2)))
            } else {
                output.append(line)
                continue
            }
            continuing = line.hasSuffix("\\")
        }
        return (commands, output)
    }
}

extension DocumentBlock {
    /// The blocks of `markdown` (the text of `file`). `isCommand` says whether a word names a
    /// program (it decides which plain fences hold commands).
    static func blocks(in markdown: String, file: String, isCommand: (String) -> Bool) -> [DocumentBlock] {
        var blocks: [DocumentBlock] = []
        var open: (line: Int, indent: Int, info: String, lines: [String], marker: Marker)?
        var previous = ""
        for (index, line) in markdown.components(separatedBy: "\n").enumerated() {
            let indent = line.prefix { $0 == " " }.count
            let trimmed = line.dropFirst(indent)
            if var block = open {
                if trimmed.hasPrefix("```") && trimmed.allSatisfy({ $0 == "`" || $0 == " " }) {
                    if let kind = kind(info: block.info, lines: block.lines, isCommand: isCommand) {
                        blocks.append(
                            DocumentBlock(
                                file: file, line: block.line, kind: kind, marker: block.marker,
                                lines: block.lines))
                    }
                    open = nil
                } else {
                    block.lines.append(String(line.dropFirst(min(indent, block.indent))))
                    open = block
                }
            } else if trimmed.hasPrefix("```") {
                let marker: Marker =
                    previous.hasPrefix("<!-- illustrative")
                    ? .illustrative : previous.hasPrefix("<!-- long-running") ? .longRunning : .none
                let info = trimmed.dropFirst(3).trimmingCharacters(in: .whitespaces)
                open = (index + 1, indent, info, [], marker)
            }
            if !trimmed.trimmingCharacters(in: .whitespaces).isEmpty { previous = String(trimmed) }
        }
        return blocks
    }

    /// The kind of a fence with this info string and these lines, or nil when it is not a block.
    static func kind(info: String, lines: [String], isCommand: (String) -> Bool) -> Kind? {
        switch info.split(separator: " ").first.map(String.init) ?? "" {
        case "sh", "bash", "shell": return .script
        case "console": return .transcript
        case "python", "python3": return .python
        case "":
            let first = lines.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? ""
            if first.hasPrefix("$ ") { return .transcript }
            return looksLikeCommands(lines, isCommand: isCommand) ? .script : nil
        default: return nil
        }
    }

    /// True when `lines` are commands: split as bash splits them (at newlines, `;`, `|`, `&`, `(`,
    /// `)`, inside `$(…)`; comments dropped, a trailing `\` joining lines), there is at least one,
    /// and each one's program (the word after any `NAME=value`) is a word of letters, digits and
    /// `_ . / + -` that `isCommand` accepts.
    static func looksLikeCommands(_ lines: [String], isCommand: (String) -> Bool) -> Bool {
        let commands = ShellWords.simpleCommands(lines.joined(separator: "\n"))
        let allowed = CharacterSet(charactersIn: "_./+-").union(.alphanumerics)
        return !commands.isEmpty
            && commands.allSatisfy { words in
                guard let program = ShellWords.program(of: words) else { return true }
                return program.name.unicodeScalars.allSatisfy(allowed.contains) && isCommand(program.name)
            }
    }

    /// True when `actual` (what a transcript printed) is `expected` (what the document shows), line
    /// by line with trailing spaces and trailing empty lines ignored, where `…` in a line stands
    /// for any text and a line of only `…` for any number of lines.
    static func output(_ actual: [String], matches expected: [String]) -> Bool {
        func trimmed(_ lines: [String]) -> [String] {
            var lines = lines.map { String($0.reversed().drop { $0 == " " }.reversed()) }
            while lines.last?.isEmpty == true { lines.removeLast() }
            return lines
        }
        let actual = trimmed(actual)
        let expected = trimmed(expected)
        // matched[i][j]: expected[i...] matches actual[j...].
        var matched = Array(
            repeating: Array(repeating: false, count: actual.count + 1), count: expected.count + 1)
        matched[expected.count][actual.count] = true
        for i in stride(from: expected.count - 1, through: 0, by: -1) {
            for j in stride(from: actual.count, through: 0, by: -1) {
                if expected[i] == "…" {
                    matched[i][j] = matched[i + 1][j] || (j < actual.count && matched[i][j + 1])
                } else {
                    matched[i][j] =
                        j < actual.count && line(actual[j], matches: expected[i]) && matched[i + 1][j + 1]
                }
            }
        }
        return matched[0][0]
    }

    /// `actual` against one expected line, each `…` standing for any text.
    private static func line(_ actual: String, matches expected: String) -> Bool {
        let parts = expected.components(separatedBy: "…")
        guard parts.count > 1 else { return actual == expected }
        guard let first = parts.first, let last = parts.last, actual.hasPrefix(first) else { return false }
        var rest = actual.dropFirst(first.count)
        for part in parts.dropFirst().dropLast() {
            guard let found = rest.range(of: part) else { return false }
            rest = rest[found.upperBound...]
        }
        return rest.count >= last.count && rest.hasSuffix(last)
    }
}

/// The simple commands of a shell script, each a list of words with the quotes removed; the commands
/// of a command substitution are listed on their own, and its place in a word is kept as `$(…)`. A
/// small lexer, enough for the documents' blocks: quotes, backslashes, comments, `$(…)`, `` `…` ``,
/// `${…}`, `$((…))`, the operators `| || & && ; ( )` and newlines. Redirections stay words (`2>&1`
/// included).
enum ShellWords {
    /// Words that come before the program of a simple command, or make one of a command's words its
    /// program (`exec`, `time`).
    static let leading: Set<String> = [
        "!", "{", "do", "then", "else", "elif", "if", "while", "until", "time", "exec", "command", "nohup",
    ]
    /// Keywords after which no program follows in that simple command.
    static let notCommands: Set<String> = [
        "for", "case", "select", "function", "in", "done", "fi", "esac", "}",
    ]
    /// bash's builtins and keywords.
    static let builtins: Set<String> = [
        "alias", "bg", "bind", "break", "builtin", "caller", "cd", "command", "compgen", "complete",
        "continue",
        "declare", "dirs", "disown", "echo", "enable", "eval", "exec", "exit", "export", "false", "fc", "fg",
        "getopts", "hash", "help", "history", "jobs", "kill", "let", "local", "logout", "mapfile", "popd",
        "printf", "pushd", "pwd", "read", "readarray", "readonly", "return", "set", "shift", "shopt",
        "source",
        "suspend", "test", "times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias", "unset",
        "wait", ".", "[", "[[", "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while",
        "until", "do", "done", "in", "function", "time", "{", "}", "!",
    ]

    /// True for `NAME=value`.
    static func isAssignment(_ word: String) -> Bool {
        guard let equals = word.firstIndex(of: "="), equals != word.startIndex,
            let first = word.first, first == "_" || first.isLetter
        else { return false }
        return word[..<equals].allSatisfy { $0 == "_" || $0.isLetter || $0.isNumber }
    }

    /// The simple commands of `script`.
    static func simpleCommands(_ script: String) -> [[String]] {
        var lexer = Lexer(characters: Array(script))
        lexer.list(closing: nil)
        return lexer.commands.filter { !$0.isEmpty }
    }

    /// A simple command's program and its arguments, or nil when it runs none (assignments only, a
    /// `for` or `case` head, a closing keyword).
    static func program(of words: [String]) -> (name: String, arguments: [String])? {
        var rest = words[...]
        while let first = rest.first, isAssignment(first) || leading.contains(first) {
            rest = rest.dropFirst()
        }
        guard let name = rest.first, !notCommands.contains(name) else { return nil }
        return (name, Array(rest.dropFirst()))
    }

    /// The targets of a `make` command line: the words that are not options or `NAME=value`.
    static func makeTargets(_ arguments: [String]) -> [String] {
        var targets: [String] = []
        var skipNext = false
        for word in arguments {
            if skipNext {
                skipNext = false
            } else if ["-C", "-f", "-I", "-o", "-W"].contains(word) {
                skipNext = true
            } else if !word.hasPrefix("-") && !isAssignment(word) {
                targets.append(word)
            }
        }
        return targets
    }

    /// The targets a Makefile defines: the names before a rule's `:` (not `:=`) on lines that do not
    /// start with a tab, a space or `#`.
    static func targets(ofMakefile text: String) -> Set<String> {
        var targets: Set<String> = []
        for line in text.components(separatedBy: "\n") {
            guard let first = line.first, first != "\t", first != " ", first != "#",
                let colon = line.firstIndex(of: ":")
            else { continue }
            let names = line[..<colon]
            let after = line[line.index(after: colon)...]
            if after.hasPrefix("=") || names.contains("=") || names.contains("$") || names.contains("(") {
                continue
            }
            targets.formUnion(names.split(separator: " ").map(String.init))
        }
        return targets
    }

    private struct Lexer {
        let characters: [Character]
        var index = 0
        var commands: [[String]] = []

        private var current: Character? { index < characters.count ? characters[index] : nil }
        private func peek(_ offset: Int) -> Character? {
            index + offset < characters.count ? characters[index + offset] : nil
        }

        /// One simple command being read.
        private struct Command {
            var words: [String] = []
            var word = ""
            var inWord = false

            mutating func endWord() {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            }
        }

        /// Reads commands up to `closing` (the end of a substitution) or the end of the text.
        mutating func list(closing: Character?) {
            var command = Command()
            func finish(_ command: inout Command, into commands: inout [[String]]) {
                command.endWord()
                commands.append(command.words)
                command.words = []
            }
            while let character = current {
                if let closing, character == closing {
                    index += 1
                    break
                }
                switch character {
                case " ", "\t":
                    command.endWord()
                    index += 1
                case "\n", ";", "|", "&", "(", ")":
                    finish(&command, into: &commands)
                    index += 1
                case "#" where !command.inWord:
                    while let next = current, next != "\n" { index += 1 }
                case "'":
                    command.inWord = true
                    index += 1
                    while let next = current, next != "'" {
                        command.word.append(next)
                        index += 1
                    }
                    index += 1
                case "\"":
                    command.inWord = true
                    index += 1
                    doubleQuoted(&command)
                case "\\":
                    if let next = peek(1), next != "\n" {
                        command.word.append(next)
                        command.inWord = true
                    }
                    index += 2
                case "$":
                    dollar(&command)
                case "`":
                    index += 1
                    list(closing: "`")
                    command.word += "$(…)"
                    command.inWord = true
                case "<", ">":
                    command.inWord = true
                    command.word.append(character)
                    index += 1
                    while let next = current, next == "&" || next == ">" {
                        command.word.append(next)
                        index += 1
                    }
                default:
                    command.inWord = true
                    command.word.append(character)
                    index += 1
                }
            }
            finish(&command, into: &commands)
        }

        private mutating func doubleQuoted(_ command: inout Command) {
            while let character = current {
                switch character {
                case "\"":
                    index += 1
                    return
                case "\\":
                    if let next = peek(1) { command.word.append(next) }
                    index += 2
                case "$":
                    dollar(&command)
                case "`":
                    index += 1
                    list(closing: "`")
                    command.word += "$(…)"
                default:
                    command.word.append(character)
                    index += 1
                }
            }
        }

        private mutating func dollar(_ command: inout Command) {
            command.inWord = true
            if peek(1) == "(" && peek(2) == "(" {
                index += 3
                var depth = 0
                while let character = current {
                    if character == "(" {
                        depth += 1
                    } else if character == ")" {
                        if depth == 0 && peek(1) == ")" {
                            index += 2
                            break
                        }
                        depth -= 1
                    }
                    index += 1
                }
                command.word += "$((…))"
            } else if peek(1) == "(" {
                index += 2
                list(closing: ")")
                command.word += "$(…)"
            } else if peek(1) == "{" {
                while let character = current {
                    command.word.append(character)
                    index += 1
                    if character == "}" { break }
                }
            } else {
                command.word.append("$")
                index += 1
            }
        }
    }
}

/// The files, their blocks, and the programs those name, for ``DocumentBlockTests``.
enum DocumentBlocks {
    /// The markdown files whose blocks run, relative to the repository: README.md, then every `.md`
    /// under deploy/ and docs/, sorted.
    static let files: [String] = {
        var files = ["README.md"]
        for directory in ["deploy", "docs"] {
            let enumerator = FileManager.default.enumerator(atPath: Paths.inRepository(directory))
            var found: [String] = []
            while let path = enumerator?.nextObject() as? String {
                if path.hasSuffix(".md") { found.append(directory + "/" + path) }
            }
            files += found.sorted()
        }
        return files
    }()

    /// Every block of every file, in file order.
    static let all: [DocumentBlock] = files.flatMap { file in
        DocumentBlock.blocks(in: contents(Paths.inRepository(file)), file: file, isCommand: isCommand)
    }

    /// The executables Package.swift declares (`.executableTarget(name: "…"`).
    static let executables: Set<String> = {
        let manifest = contents(Paths.inRepository("Package.swift"))
        var names: Set<String> = []
        for part in manifest.components(separatedBy: ".executableTarget(").dropFirst() {
            guard let open = part.range(of: "name: \""),
                let close = part[open.upperBound...].firstIndex(of: "\"")
            else { continue }
            names.insert(String(part[open.upperBound..<close]))
        }
        return names
    }()

    /// The fresh shell's PATH.
    static let freshPath = "/usr/local/bin:/usr/bin:/bin"

    /// Whether a plain fence's word names a program (see ``DocumentBlockTests``).
    static func isCommand(_ word: String) -> Bool {
        if ShellWords.builtins.contains(word) || executables.contains(word)
            || ["make", "swift", "python3"].contains(word)
        {
            return true
        }
        if word.contains("/") {
            return executables.contains(URL(fileURLWithPath: word).lastPathComponent)
                || FileManager.default.isExecutableFile(atPath: Paths.inRepository(word))
        }
        return freshPath.split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(word)")
        }
    }

    /// What is wrong with the program a long-running block names, or nil when it exists.
    static func missing(program name: String) -> String? {
        if ShellWords.builtins.contains(name) || name.contains("$(…)") || name.hasPrefix("~") { return nil }
        let base = URL(fileURLWithPath: name).lastPathComponent
        let built = FileManager.default.isExecutableFile(atPath: Paths.binaries + "/" + base)
        if name.hasPrefix("$") {
            // `$bin/NAME` names a program of the build; `$client` alone cannot be checked.
            return !name.contains("/") || built ? nil : "\(name): \(base) is not an executable of this build"
        }
        if name.hasPrefix(".build/") {
            return built ? nil : "\(name): \(base) is not an executable of this build"
        }
        if name.hasPrefix("/") {
            return FileManager.default.isExecutableFile(atPath: name) ? nil : "\(name) does not exist"
        }
        if name.contains("/") {
            return FileManager.default.isExecutableFile(atPath: Paths.inRepository(name))
                ? nil : "\(name) is not an executable file of the repository"
        }
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? freshPath) + ":/opt/swift/usr/bin"
        let onPath = path.split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(name)")
        }
        return built || onPath ? nil : "\(name) is neither an executable of this build nor on PATH"
    }
}
