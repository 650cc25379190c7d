public import Metrics
import ProcessSupport
import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// The standard `process_…` metrics of Prometheus's client libraries, read from `/proc` at each
/// scrape: CPU seconds, resident and virtual memory, open and maximum file descriptors, and the
/// start time. A file that cannot be read leaves its metrics out.
public enum ProcessMetrics {
    /// The families now, for this process.
    public static func families() -> [MetricFamily] {
        var families: [MetricFamily] = []
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let pageSize = Double(sysconf(Int32(_SC_PAGESIZE)))
        if let stat = read("/proc/self/stat"), let fields = statFields(stat), ticks > 0 {
            // Fields 14 (utime), 15 (stime), 22 (starttime), 23 (vsize), 24 (rss), counted from 1;
            // `fields` starts at field 3.
            if let user = Double(fields[11]), let system = Double(fields[12]) {
                families.append(
                    counterFamily(
                        "process_cpu_seconds_total", help: "Total user and system CPU time spent in seconds.",
                        value: (user + system) / ticks))
            }
            if let resident = Double(fields[21]) {
                families.append(
                    .gauge(
                        "process_resident_memory_bytes", help: "Resident memory size in bytes.",
                        value: resident * pageSize))
            }
            if let virtual = Double(fields[20]) {
                families.append(
                    .gauge(
                        "process_virtual_memory_bytes", help: "Virtual memory size in bytes.", value: virtual)
                )
            }
            if let started = Double(fields[19]), let boot = bootTime() {
                families.append(
                    .gauge(
                        "process_start_time_seconds",
                        help: "Start time of the process since unix epoch in seconds.",
                        value: boot + started / ticks))
            }
        }
        if let open = openDescriptors() {
            families.append(
                .gauge("process_open_fds", help: "Number of open file descriptors.", value: Double(open)))
        }
        var limit = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            families.append(
                .gauge(
                    "process_max_fds", help: "Maximum number of open file descriptors.",
                    value: Double(limit.rlim_cur)))
        }
        return families
    }

    /// The fields of `/proc/self/stat` after the command name (which may hold spaces and parentheses):
    /// field 3 (the state) first. Nil when there are too few.
    static func statFields(_ text: String) -> [Substring]? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count >= 22 ? fields : nil
    }

    /// The boot time in seconds since the epoch (`btime` in `/proc/stat`).
    private static func bootTime() -> Double? {
        guard let stat = read("/proc/stat") else { return nil }
        for line in stat.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst(6).trimmingPrefix(" "))
        }
        return nil
    }

    /// The descriptors open now (the directory's own, opened to count them, not counted).
    private static func openDescriptors() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { count += 1 }
        }
        return max(0, count - 1)
    }

    private static func read(_ path: String) -> String? {
        guard let descriptor = try? Posix.open(path, O_RDONLY | O_CLOEXEC) else { return nil }
        defer { Posix.close(descriptor) }
        guard let bytes = try? Posix.readAll(descriptor) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func counterFamily(_ name: String, help: String, value: Double) -> MetricFamily {
        var family = MetricFamily(name, .counter, help: help)
        family.add(value)
        return family
    }
}
