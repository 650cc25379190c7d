import Foundation
import Glibc
import Testing

@testable import ProcessSupport

/// The checked POSIX calls: `EINTR` retried, short writes continued, failures naming call, errno
/// and path.
@Suite("POSIX calls", .timeLimit(.minutes(1)))
struct PosixTests {
    @Test("an interrupted call is retried; another failure throws its call, errno and path")
    func retrying() throws {
        var calls = 0
        let result = try Posix.retrying("fake") { () -> Int32 in
            calls += 1
            if calls < 3 {
                errno = EINTR
                return -1
            }
            return 7
        }
        #expect(result == 7 && calls == 3)
        #expect(throws: Posix.PosixError(function: "fake", code: EACCES, path: "/x")) {
            try Posix.retrying("fake", path: "/x") { () -> Int32 in
                errno = EACCES
                return -1
            }
        }
        let error = Posix.PosixError(function: "open", code: ENOENT, path: "/nowhere")
        #expect(error.description == "open /nowhere: No such file or directory (errno \(ENOENT))")
        #expect(Posix.PosixError(function: "fsync", code: EIO).description.hasPrefix("fsync: "))
    }

    @Test("a write continues after short writes and interruptions until every byte is written")
    func shortWrites() throws {
        let bytes = (0..<1_000).map { UInt8(truncatingIfNeeded: $0) }
        var out: [UInt8] = []
        var calls = 0
        try Posix.write(bytes) { pointer, count in
            calls += 1
            if calls.isMultiple(of: 4) {
                errno = EINTR
                return -1
            }
            let taken = min(count, 7)  // a short write
            out += UnsafeRawBufferPointer(start: pointer, count: taken)
            return taken
        }
        #expect(out == bytes)
        #expect(throws: Posix.PosixError(function: "write", code: EPIPE)) {
            try Posix.write([1, 2, 3]) { _, _ in
                errno = EPIPE
                return -1
            }
        }
    }

    @Test("a blocking pipe takes more than its buffer while a slow reader reads it")
    func pipeWithSlowReader() async throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        let (readEnd, writeEnd) = (ends[0], ends[1])
        let bytes = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let reader = Task.detached { () -> [UInt8] in
            var all: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1_000)  // small reads: the writer waits on them
            while let count = try? Posix.read(readEnd, into: &chunk), count > 0 { all += chunk[..<count] }
            Posix.close(readEnd)
            return all
        }
        try await onThread {
            try Posix.write(writeEnd, bytes)
            Posix.close(writeEnd)
        }
        #expect(await reader.value == bytes)
    }

    @Test("a file is replaced whole, with its mode; a failure names the call and leaves no temporary file")
    func replaceFile() throws {
        let directory = try scratchDirectory()
        let path = "\(directory)/file"
        try Posix.replaceFile(path, with: Array("one\n".utf8), mode: 0o600)
        try Posix.replaceFile(path, with: Array("two\n".utf8), mode: 0o600)
        let descriptor = try Posix.open(path, O_RDONLY)
        #expect(try Posix.readAll(descriptor) == Array("two\n".utf8))
        Posix.close(descriptor)
        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["file"])
        // Over a directory: the rename fails, and names the file.
        #expect(try Posix.mkdir("\(directory)/taken", 0o700))
        #expect(try !Posix.mkdir("\(directory)/taken", 0o700))
        try Posix.write(Posix.open("\(directory)/taken/x", O_WRONLY | O_CREAT, mode: 0o600), [1])
        #expect(throws: Posix.PosixError(function: "rename", code: EISDIR, path: "\(directory)/taken")) {
            try Posix.replaceFile("\(directory)/taken", with: [1], mode: 0o600)
        }
        // In a missing directory: the temporary file cannot be made, and is named.
        let missing = "\(directory)/missing/file"
        #expect(throws: Posix.PosixError(function: "open", code: ENOENT, path: "\(missing).tmp.\(getpid())"))
        {
            try Posix.replaceFile(missing, with: [1], mode: 0o600)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["file", "taken"])
        #expect(try Posix.unlink(path))
        #expect(try !Posix.unlink(path))
    }

    @Test("a wake-up pipe takes wake-ups without blocking and drains to would-block")
    func wakePipe() throws {
        let ends = try Posix.nonBlockingPipe()
        for _ in 0..<100_000 { Posix.wake(ends.write) }  // more than the pipe holds: never blocks
        Posix.drain(ends.read)
        var buffer = [UInt8](repeating: 0, count: 8)
        #expect(throws: Posix.PosixError(function: "read", code: EAGAIN)) {
            try Posix.read(ends.read, into: &buffer)
        }
        Posix.close(ends.read)
        Posix.close(ends.write)
    }

    /// A new empty directory under the temporary directory.
    func scratchDirectory() throws -> String {
        var template = Array("\(NSTemporaryDirectory())/posix-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
        return String(cString: made)
    }
}
