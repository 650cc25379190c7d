import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A service's private directory for its pid file, keys and data, created with mode 0700.
///
/// The location is, in order: the `--state-dir` override; `$XDG_STATE_HOME/reactive-login/<service>`;
/// `$HOME/.local/state/reactive-login/<service>`; `./.state/<service>`.
public struct StateDirectory: Sendable, Hashable {
    /// The directory's path.
    public let path: String

    /// The directory a service would use, without touching the file system.
    ///
    /// Empty or relative `XDG_STATE_HOME` and empty `HOME` are ignored, as the XDG specification
    /// asks.
    public static func resolve(
        service: String, override: String?, environment: [String: String]
    ) -> String {
        if let override, !override.isEmpty { return override }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return "\(state)/reactive-login/\(service)"
        }
        if let home = environment["HOME"], !home.isEmpty {
            return "\(home)/.local/state/reactive-login/\(service)"
        }
        return "./.state/\(service)"
    }

    /// Resolves the directory and creates it (and missing parents) with mode 0700; an existing
    /// directory is set to 0700 too.
    public static func prepare(
        service: String, override: String?, environment: [String: String]
    ) throws(StateError) -> StateDirectory {
        try StateDirectory(creating: resolve(service: service, override: override, environment: environment))
    }

    /// Creates `path` (and missing parents) with mode 0700, or checks and tightens an existing one.
    public init(creating path: String) throws(StateError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            do throws(Posix.PosixError) {
                try Posix.mkdir(prefix, 0o700)
            } catch {
                throw .system(.stateDirectory, "mkdir", path: prefix, errno: error.code)
            }
            prefix += "/"
        }
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw .system(.stateDirectory, "stat", path: path, errno: errno)
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw StateError(code: .stateDirectory, path: path, message: "exists and is not a directory")
        }
        do throws(Posix.PosixError) {
            try Posix.chmod(path, 0o700)
        } catch {
            throw .system(.stateDirectory, "chmod", path: path, errno: error.code)
        }
        self.path = path
    }

    /// The path of `name` inside the directory.
    public func file(_ name: String) -> String { "\(path)/\(name)" }
}
