import Foundation
import ProcessSupport
import Testing

/// A systemd unit file: its sections, each an ordered list of `Key=value` settings (keys repeat).
struct UnitFile {
    /// Sections in file order, with their settings.
    let sections: [(name: String, settings: [(key: String, value: String)])]

    /// Parses the unit syntax: `[Section]` headers, `Key=value` lines, `#`/`;` comments, blank
    /// lines; a trailing backslash continues a line. Anything else is an error naming the line.
    init(text: String, path: String) throws {
        var sections: [(name: String, settings: [(key: String, value: String)])] = []
        var pending = ""
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = pending + rawLine.trimmingCharacters(in: .whitespaces)
            pending = ""
            if line.hasSuffix("\\") {
                line.removeLast()
                pending = line + " "
                continue
            }
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else {
                    throw SupportError("\(path):\(number + 1): malformed section header")
                }
                sections.append((String(line.dropFirst().dropLast()), []))
                continue
            }
            guard let equals = line.firstIndex(of: "="), !sections.isEmpty else {
                throw SupportError("\(path):\(number + 1): expected Key=value inside a section")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber }) else {
                throw SupportError("\(path):\(number + 1): malformed key '\(key)'")
            }
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            sections[sections.count - 1].settings.append((key, value))
        }
        self.sections = sections
    }

    /// The section names in order.
    var sectionNames: [String] { sections.map(\.name) }

    /// Every value of `key` in `section`.
    func values(_ section: String, _ key: String) -> [String] {
        sections.filter { $0.name == section }.flatMap { $0.settings.filter { $0.key == key }.map(\.value) }
    }

    /// The words of every value of `key` in `section` (for lists such as `After=`).
    func words(_ section: String, _ key: String) -> Set<String> {
        Set(values(section, key).flatMap { $0.split(separator: " ").map(String.init) })
    }
}

@Suite("systemd units", .timeLimit(.minutes(1)))
struct SystemdUnitTests {
    static let directory = Paths.deploy + "/systemd"

    static func unit(_ name: String) throws -> UnitFile {
        let path = directory + "/" + name
        return try UnitFile(text: try String(contentsOfFile: path, encoding: .utf8), path: path)
    }

    @Test(
        "each server's unit: sections, start, restart, state directory, environment file, metrics, hardening")
    func services() throws {
        for process in processes {
            let name = "reactive-login-\(process.name).service"
            let unit = try Self.unit(name)
            #expect(unit.sectionNames == ["Unit", "Service", "Install"], "\(name)")
            #expect(unit.values("Service", "ExecStart") == ["/usr/local/bin/\(process.binary)"])
            #expect(unit.values("Service", "ExecStartPre") == ["/usr/local/bin/\(process.binary) --init"])
            #expect(
                unit.values("Service", "ExecStartPost").first?.contains("\(process.binary) --check") == true)
            #expect(unit.values("Service", "Restart") == ["on-failure"])
            #expect(unit.values("Service", "StateDirectory") == ["reactive-login/\(process.name)"])
            #expect(
                unit.values("Service", "Environment").contains(
                    "\(process.prefix)_STATE_DIR=%S/reactive-login/\(process.name)"))
            #expect(unit.values("Service", "EnvironmentFile") == ["-/etc/reactive-login/\(process.name).env"])
            // The metrics listener on loopback, on the port of the local stack, overridable by the env
            // file (whose settings win over Environment=).
            #expect(
                unit.values("Service", "Environment").contains(
                    "\(process.prefix)_METRICS_LISTEN=127.0.0.1:\(process.metricsPort)"), "\(name)")
            for (key, value) in [
                ("DynamicUser", "yes"), ("ProtectSystem", "strict"), ("ProtectHome", "yes"),
                ("NoNewPrivileges", "yes"), ("PrivateTmp", "yes"),
                ("RestrictAddressFamilies", "AF_UNIX AF_INET AF_INET6"),
            ] {
                #expect(unit.values("Service", key) == [value], "\(name): \(key)")
            }
            #expect(unit.values("Service", "SystemCallFilter").contains("@system-service"))
            #expect(unit.values("Unit", "PartOf") == ["reactive-login.target"])
            #expect(unit.values("Install", "WantedBy") == ["reactive-login.target"])
        }
    }

    @Test("start order: auth, then validation and heroes, then the gateway; the target wants all four")
    func order() throws {
        func after(_ name: String) throws -> Set<String> {
            try Self.unit("reactive-login-\(name).service").words("Unit", "After")
        }
        #expect(try !after("auth").contains { $0.hasPrefix("reactive-login-") })
        #expect(try after("validation").contains("reactive-login-auth.service"))
        #expect(try after("heroes").contains("reactive-login-auth.service"))
        #expect(try !after("validation").contains("reactive-login-gateway.service"))
        let gateway = try after("gateway")
        for peer in ["auth", "validation", "heroes"] {
            #expect(gateway.contains("reactive-login-\(peer).service"))
        }
        let target = try Self.unit("reactive-login.target")
        #expect(target.sectionNames == ["Unit", "Install"])
        #expect(
            target.words("Unit", "Wants").isSuperset(
                of: processes.map { "reactive-login-\($0.name).service" }))
    }

    @Test(
        "auth@: one replica per port, each with its own state directory and metrics port, sharing keys"
    )
    func authReplicaTemplate() throws {
        let unit = try Self.unit("reactive-login-auth@.service")
        #expect(unit.sectionNames == ["Unit", "Service", "Install"])
        #expect(
            unit.values("Service", "ExecStart") == [
                "/usr/local/bin/auth-service --endpoint tcp://${AUTH_BIND_ADDRESS}:%i "
                    + "--metrics-listen ${AUTH_METRICS_ADDRESS}:1%i"
            ])
        // Each instance's metrics listener on a port of its own (15562 for @5562), loopback by default.
        #expect(unit.values("Service", "Environment").contains("AUTH_METRICS_ADDRESS=127.0.0.1"))
        #expect(unit.values("Service", "StateDirectory") == ["reactive-login/auth-%i"])
        #expect(unit.values("Service", "Environment").contains("AUTH_STATE_DIR=%S/reactive-login/auth-%i"))
        // The shared settings are required (AUTH_DATABASE), an instance's own are optional.
        #expect(
            unit.values("Service", "EnvironmentFile") == [
                "/etc/reactive-login/auth.env", "-/etc/reactive-login/auth-%i.env",
            ])
        let pre = unit.values("Service", "ExecStartPre")
        #expect(pre.first?.contains("postgresql://") == true, "an instance must refuse to start on SQLite")
        #expect(pre.contains { $0.contains("$CREDENTIALS_DIRECTORY") && $0.contains("install -m 0600") })
        let credentials = Set(
            unit.values("Service", "LoadCredential").compactMap { $0.split(separator: ":").first })
        #expect(
            credentials == [
                "curve.key", "curve.pub", "client.key", "client.pub", "allowed_clients", "device.key",
            ])
        #expect(
            unit.values("Service", "ExecStartPost").first?.contains("auth-service --check --endpoint") == true
        )
        for (key, value) in [("DynamicUser", "yes"), ("ProtectSystem", "strict"), ("NoNewPrivileges", "yes")]
        {
            #expect(unit.values("Service", key) == [value], "\(key)")
        }
        #expect(unit.values("Unit", "PartOf") == ["reactive-login.target"])
        #expect(unit.values("Install", "WantedBy") == ["reactive-login.target"])
    }

    @Test(
        "systemd-analyze verify finds nothing to say",
        .enabled(if: commandOnPath("systemd-analyze") != nil, "systemd-analyze is not installed"))
    func verify() async throws {
        // verify checks that ExecStart's programs exist: copies of the units point at stand-ins.
        let scratch = try TemporaryDirectory(prefix: "units")
        defer { scratch.remove() }
        try FileManager.default.createDirectory(
            atPath: scratch.file("bin"), withIntermediateDirectories: true)
        for process in processes {
            let stub = scratch.file("bin/\(process.binary)")
            try Data("#!/bin/sh\nexit 0\n".utf8).write(to: URL(fileURLWithPath: stub))
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: stub)
        }
        var names: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.directory).sorted()
        where name.hasSuffix(".service") || name.hasSuffix(".target") {
            let text = try String(contentsOfFile: Self.directory + "/" + name, encoding: .utf8)
                .replacingOccurrences(of: "/usr/local/bin/", with: scratch.file("bin/"))
            try Data(text.utf8).write(to: URL(fileURLWithPath: scratch.file(name)))
            // A template is verified as an instance of it (the name systemd would start).
            names.append(scratch.file(name.replacingOccurrences(of: "@.", with: "@5562.")))
        }
        #expect(names.count == 6)
        let result = try await runCommand(
            try #require(commandOnPath("systemd-analyze")), ["verify", "--man=no"] + names)
        #expect(result.status == 0)
        // verify exits 0 even for unknown keys and bad values ("…, ignoring"): it must print nothing.
        #expect(result.output.isEmpty && result.error.isEmpty, "\(result.output)\(result.error)")
    }
}
