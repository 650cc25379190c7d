import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Waits until the file at `path` contains `text`, or `timeout` passes: woken by inotify each time
/// a file in its directory is written or created (no polling), on a thread of its own (the wait
/// blocks). Returns whether the text appeared.
public func waitForFile(_ path: String, containing text: String, timeout: Duration) async -> Bool {
    await withCheckedContinuation { continuation in
        let thread = Thread {
            continuation.resume(returning: blockingWaitForFile(path, containing: text, timeout: timeout))
        }
        thread.name = "file-watch"
        thread.start()
    }
}

private func blockingWaitForFile(_ path: String, containing text: String, timeout: Duration) -> Bool {
    func found() -> Bool {
        (try? String(contentsOfFile: path, encoding: .utf8))?.contains(text) ?? false
    }
    let watcher = inotify_init1(Int32(IN_CLOEXEC))
    guard watcher >= 0 else { return found() }
    defer { close(watcher) }
    let directory = (path as NSString).deletingLastPathComponent
    guard inotify_add_watch(watcher, directory, UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO)) >= 0 else {
        return found()
    }
    let deadline = ContinuousClock.now + timeout
    var buffer = [UInt8](repeating: 0, count: 4096)
    // Checked after the watch is in place, so a write between the check and the wait still wakes it.
    while !found() {
        let left = deadline - ContinuousClock.now
        guard left > .zero else { return false }
        var descriptor = pollfd(fd: watcher, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(min(left / .milliseconds(1), 60_000).rounded(.up))
        guard poll(&descriptor, 1, max(milliseconds, 1)) >= 0 || errno == EINTR else { return found() }
        if descriptor.revents & Int16(POLLIN) != 0 { _ = read(watcher, &buffer, buffer.count) }
    }
    return true
}
