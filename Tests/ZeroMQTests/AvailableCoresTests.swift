import Foundation
import Testing

@testable import ZeroMQ

/// The cores a process may use: its affinity mask, limited by its cgroup's CPU quota.
@Suite("available cores", .timeLimit(.minutes(1)))
struct AvailableCoresTests {
    @Test("the affinity mask's CPUs (else the online ones), at most the quota's, at least one")
    func resolve() {
        #expect(AvailableCores.resolve(online: 8, affinity: nil, quota: nil) == 8)
        #expect(AvailableCores.resolve(online: 8, affinity: 3, quota: nil) == 3)
        #expect(AvailableCores.resolve(online: 8, affinity: 6, quota: 2) == 2)
        #expect(AvailableCores.resolve(online: 8, affinity: 1, quota: 4) == 1)
        #expect(AvailableCores.resolve(online: 0, affinity: nil, quota: 0) == 1)
    }

    @Test("cgroup v2 cpu.max and v1 quota over period become whole cores, rounded up; no limit is nil")
    func quotas() {
        #expect(AvailableCores.quota(cpuMax: "max 100000\n") == nil)
        #expect(AvailableCores.quota(cpuMax: "200000 100000\n") == 2)
        #expect(AvailableCores.quota(cpuMax: "150000 100000") == 2)
        #expect(AvailableCores.quota(cpuMax: "50000 100000") == 1)
        #expect(AvailableCores.quota(cpuMax: "garbage") == nil)
        #expect(AvailableCores.quota(quotaMicroseconds: "-1\n", periodMicroseconds: "100000\n") == nil)
        #expect(AvailableCores.quota(quotaMicroseconds: "300000\n", periodMicroseconds: "100000\n") == 3)
        #expect(AvailableCores.quota(quotaMicroseconds: "10", periodMicroseconds: "0") == nil)
    }

    @Test("the cgroup of the unified hierarchy or of a v1 controller, from /proc/self/cgroup's lines")
    func cgroupPaths() {
        let v1 = "4:memory:/a\n3:cpu,cpuacct:/kubepods/pod1\n0::/\n"
        #expect(AvailableCores.cgroupPath(v1, controller: "cpu") == "/kubepods/pod1")
        #expect(AvailableCores.cgroupPath(v1, controller: nil) == "/")
        #expect(
            AvailableCores.cgroupPath("0::/system.slice/auth.service\n", controller: nil)
                == "/system.slice/auth.service")
        #expect(AvailableCores.cgroupPath("0::/x\n", controller: "cpu") == nil)
        #expect(AvailableCores.cgroupPath("", controller: nil) == nil)
    }

    @Test("a kernel CPU list counts its CPUs; anything else is nil")
    func cpuLists() {
        #expect(AvailableCores.cpuCount(list: "\t0-1\n") == 2)
        #expect(AvailableCores.cpuCount(list: "0-3,5,8-9") == 7)
        #expect(AvailableCores.cpuCount(list: "4") == 1)
        #expect(AvailableCores.cpuCount(list: "3-1") == nil)
        #expect(AvailableCores.cpuCount(list: "x") == nil)
        #expect(AvailableCores.cpuCount(list: "") == nil)
    }

    @Test("the affinity mask counts what nproc counts (sched_getaffinity); the process's count is within it")
    func affinity() throws {
        let nproc = Process()
        nproc.executableURL = URL(fileURLWithPath: "/usr/bin/nproc")
        let output = Pipe()
        nproc.standardOutput = output
        try nproc.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        nproc.waitUntilExit()
        let expected = try #require(Int(text.filter(\.isNumber)))
        #expect(AvailableCores.affinityCount() == expected)
        #expect((1...expected).contains(AvailableCores.count))
    }
}
