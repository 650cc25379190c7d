import GatewayClient

#if canImport(Glibc)
    import Glibc
#endif

/// Reads passwords from standard input, never echoing them.
///
/// From a pipe or file: the first lines (at most 64 KiB are read; `\r\n` endings are accepted).
/// From a terminal: one prompt per password on standard error, with echo off, read byte by byte
/// in raw mode (Backspace edits, Ctrl-C or Ctrl-D on an empty line cancels); the terminal's
/// settings are restored before returning.
enum PasswordInput {
    /// The longest password accepted, in bytes.
    static let maxLength = 1_024

    /// Up to `prompts.count` passwords: one per prompt from a terminal, else the first lines of
    /// standard input (fewer when it has fewer lines).
    static func read(prompts: [String]) throws(CLIUsageError) -> [String] {
        isatty(0) == 1 ? try readFromTerminal(prompts) : try readLines(count: prompts.count)
    }

    private static func readLines(count: Int) throws(CLIUsageError) -> [String] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 65_536 {
            let read = Glibc.read(0, &chunk, chunk.count)
            if read > 0 {
                bytes += chunk[..<read]
            } else if read == 0 || errno != EINTR {
                break
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CLIUsageError("the password on standard input is not UTF-8 text")
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).prefix(count).map { line in
            line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
        }
        var passwords: [String] = []
        for (index, line) in lines.enumerated() {
            if index > 0, line.isEmpty { break }  // no further line: not a password
            passwords.append(try checked(line))
        }
        return passwords
    }

    private static func readFromTerminal(_ prompts: [String]) throws(CLIUsageError) -> [String] {
        var saved = termios()
        guard tcgetattr(0, &saved) == 0 else { throw CLIUsageError("cannot read the terminal's settings") }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG)
        var passwords: [String] = []
        for prompt in prompts {
            // Echo off before the prompt shows: what is typed once it shows is read, not flushed.
            guard tcsetattr(0, TCSAFLUSH, &raw) == 0 else { throw CLIUsageError("cannot turn echo off") }
            writeStandardError(prompt)
            let line = readRawLine()
            _ = tcsetattr(0, TCSAFLUSH, &saved)
            writeStandardError("\n")
            guard let line else { throw CLIUsageError("no password given") }
            passwords.append(try checked(line))
        }
        return passwords
    }

    /// One line typed in raw mode, or nil when cancelled (Ctrl-C, Ctrl-D on an empty line, end of
    /// input).
    private static func readRawLine() -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = Glibc.read(0, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { return nil }
            switch byte {
            case 0x0a, 0x0d: return String(decoding: bytes, as: UTF8.self)
            case 0x03: return nil
            case 0x04: if bytes.isEmpty { return nil }
            case 0x08, 0x7f:
                // Drop the last character (its UTF-8 continuation bytes too).
                while let last = bytes.popLast(), last & 0xc0 == 0x80 {}
            default:
                if bytes.count <= maxLength { bytes.append(byte) }
            }
        }
    }

    private static func checked(_ password: String) throws(CLIUsageError) -> String {
        guard !password.isEmpty else { throw CLIUsageError("the password is empty") }
        guard password.utf8.count <= maxLength else {
            throw CLIUsageError("the password is longer than \(maxLength) bytes")
        }
        return password
    }
}
