// What the test targets that start real programs share.

#if canImport(Glibc)
    public import Glibc
#endif

/// `posix_spawn` with the child's signals reset: nothing blocked and SIGPIPE at its default,
/// whatever the test runner's thread blocks or ignores. A child that inherits a blocked SIGTERM or
/// SIGCHLD misbehaves (tmux never reaps its pane; a service cannot be stopped by its pid).
/// Returns `posix_spawn`'s result (0, or an errno).
public func spawnWithCleanSignals(
    _ pid: inout pid_t, _ path: String, _ actions: inout posix_spawn_file_actions_t,
    _ argv: [UnsafeMutablePointer<CChar>?], _ envp: [UnsafeMutablePointer<CChar>?]
) -> Int32 {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    sigaddset(&defaults, SIGPIPE)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    return posix_spawn(&pid, path, &actions, &attributes, argv, envp)
}
