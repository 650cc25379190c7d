#if canImport(Glibc)
    import Glibc
#endif

/// A pid file (`<service>.pid` in the state directory) that keeps two instances of a service from
/// sharing one state directory.
///
/// ``acquire(in:service:pid:)`` writes this process's pid, refuses when the file names another live
/// process, and replaces a stale one (a process that no longer exists, or this process's own pid).
/// ``release()`` removes it on a clean exit.
public struct PidFile: Sendable, Hashable {
    /// The file's path.
    public let path: String
    /// The pid written in it.
    public let pid: Int32

    /// Creates the pid file for `service` naming `pid` (this process when nil), or throws
    /// ``StateError/Code/alreadyRunning`` with the live pid.
    public static func acquire(
        in directory: StateDirectory, service: String, pid: Int32? = nil
    ) throws(StateError) -> PidFile {
        let pid = pid ?? getpid()
        let path = directory.file("\(service).pid")
        // Two rounds: a stale file is removed once, then creation must succeed exclusively.
        for _ in 0..<2 {
            let descriptor: Int32
            do throws(Posix.PosixError) {
                descriptor = try Posix.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o644)
            } catch  where error.code == EEXIST {
                try removeStale(path, pid: pid)
                continue
            } catch {
                throw .system(.pidFile, "open", path: path, errno: error.code)
            }
            defer { Posix.close(descriptor) }
            do throws(Posix.PosixError) {
                try Posix.write(descriptor, Array("\(pid)\n".utf8))
            } catch {
                _ = try? Posix.unlink(path)
                throw .system(.pidFile, "write", path: path, errno: error.code)
            }
            return PidFile(path: path, pid: pid)
        }
        throw StateError(
            code: .pidFile, path: path, message: "another process keeps recreating the pid file")
    }

    /// Removes the existing pid file at `path` unless it names another live process (then throws
    /// ``StateError/Code/alreadyRunning``).
    private static func removeStale(_ path: String, pid: Int32) throws(StateError) {
        if let other = readPid(path), other != pid, isAlive(other) {
            throw StateError(
                code: .alreadyRunning, path: path,
                message: "another instance is running with pid \(other); stop it first, or give this "
                    + "one its own --state-dir")
        }
        do throws(Posix.PosixError) {
            try Posix.unlink(path)
        } catch {
            throw .system(.pidFile, "unlink", path: path, errno: error.code)
        }
    }

    /// Removes the file if it still names this pid (a clean exit).
    public func release() {
        if PidFile.readPid(path) == pid { _ = try? Posix.unlink(path) }
    }

    /// The pid in the file, or nil when it is missing or not a positive number.
    static func readPid(_ path: String) -> Int32? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 32)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let pid = Int32(text.trimmingWhitespace()), pid > 0 else { return nil }
        return pid
    }

    /// True when a process with this pid exists (even one we may not signal).
    static func isAlive(_ pid: Int32) -> Bool { kill(pid, 0) == 0 || errno == EPERM }
}
