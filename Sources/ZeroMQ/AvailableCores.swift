import Foundation
import Glibc

/// The cores this process may use: the CPUs of its affinity mask (`taskset`, a cpuset), limited
/// by its cgroup's CPU quota (a container's CPU limit, systemd's `CPUQuota=`) rounded up, and at
/// least one. `ProcessInfo.activeProcessorCount` counts the machine's online CPUs and sees neither.
public enum AvailableCores {
    /// The cores this process may use now.
    public static var count: Int {
        let affinity = affinityCount()
        let quota = cgroupQuota()
        return resolve(online: onlineCount(), affinity: affinity, quota: quota)
    }

    /// The cores from what was found: the affinity mask's CPUs (else the online CPUs), at most the
    /// quota's, at least one.
    static func resolve(online: Int, affinity: Int?, quota: Int?) -> Int {
        var cores = affinity ?? online
        if let quota { cores = min(cores, quota) }
        return max(1, cores)
    }

    /// The online CPUs.
    static func onlineCount() -> Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// The CPUs of the calling thread's affinity mask, if the kernel tells (`Cpus_allowed_list` in
    /// `/proc/thread-self/status`).
    static func affinityCount() -> Int? {
        guard let status = read("/proc/thread-self/status") ?? read("/proc/self/status") else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("Cpus_allowed_list:") {
            return cpuCount(list: String(line.dropFirst("Cpus_allowed_list:".count)))
        }
        return nil
    }

    /// The CPUs of a kernel CPU list (`0-3,5,8-9`), or nil if it is not one.
    static func cpuCount(list: String) -> Int? {
        var count = 0
        for item in list.split(separator: ",") {
            let bounds = item.split(separator: "-").map { Int($0.filter { !$0.isWhitespace }) }
            switch bounds.count {
            case 1:
                guard bounds[0] != nil else { return nil }
                count += 1
            case 2:
                guard let low = bounds[0], let high = bounds[1], low <= high else { return nil }
                count += high - low + 1
            default:
                return nil
            }
        }
        return count > 0 ? count : nil
    }

    /// The cgroup CPU quota in whole cores (rounded up), if one is set: cgroup v2's `cpu.max`, else
    /// v1's `cpu.cfs_quota_us` over `cpu.cfs_period_us`, of the process's cgroup or, in a container
    /// that sees its own cgroup as the root, of the mount point.
    static func cgroupQuota() -> Int? {
        let membership = read("/proc/self/cgroup") ?? ""
        if let path = cgroupPath(membership, controller: nil) {
            for directory in candidates(mount: "/sys/fs/cgroup", path: path) {
                if let text = read(directory + "/cpu.max") { return quota(cpuMax: text) }
            }
        }
        if let path = cgroupPath(membership, controller: "cpu") {
            for mount in ["/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"] {
                for directory in candidates(mount: mount, path: path) {
                    if let quota = read(directory + "/cpu.cfs_quota_us"),
                        let period = read(directory + "/cpu.cfs_period_us")
                    {
                        return self.quota(quotaMicroseconds: quota, periodMicroseconds: period)
                    }
                }
            }
        }
        return nil
    }

    /// The cgroup of `controller` (nil: the v2 unified hierarchy, `0::/path`) in `/proc/self/cgroup`'s
    /// `membership`.
    static func cgroupPath(_ membership: String, controller: String?) -> String? {
        for line in membership.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            if let controller {
                if fields[1].split(separator: ",").contains(Substring(controller)) {
                    return String(fields[2])
                }
            } else if fields[0] == "0", fields[1].isEmpty {
                return String(fields[2])
            }
        }
        return nil
    }

    /// `cpu.max` (`max 100000`, or `150000 100000`: quota and period in µs) in whole cores.
    static func quota(cpuMax: String) -> Int? {
        let fields = cpuMax.split(whereSeparator: \.isWhitespace)
        guard fields.count == 2 else { return nil }
        return quota(quotaMicroseconds: String(fields[0]), periodMicroseconds: String(fields[1]))
    }

    /// A quota over a period (v1 writes -1 for none, v2 `max`) in whole cores, rounded up.
    static func quota(quotaMicroseconds: String, periodMicroseconds: String) -> Int? {
        func number(_ text: String) -> Int? {
            Int(String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()))
        }
        guard let quota = number(quotaMicroseconds), let period = number(periodMicroseconds), quota > 0,
            period > 0
        else { return nil }
        return (quota + period - 1) / period
    }

    /// The directories to look in for a cgroup at `path` under `mount`: its own, then the mount's.
    private static func candidates(mount: String, path: String) -> [String] {
        path == "/" || path.isEmpty ? [mount] : [mount + path, mount]
    }

    /// A small file's text, or nil.
    private static func read(_ path: String) -> String? {
        try? String(contentsOfFile: path, encoding: .utf8)
    }
}
