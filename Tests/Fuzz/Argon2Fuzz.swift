// Differential libFuzzer target: the Argon2 module against libsodium (`make fuzz-argon2`).
//
// Not a SwiftPM target: `make fuzz-argon2` compiles the Argon2 kernels, Argon2 and Sodium as
// modules, then this file, with `swiftc -sanitize=fuzzer,address`.
//
// Input format: byte 0 picks the check.
//   even  raw hashes: byte 1 the passes (1-3), byte 2 the memory (8-135 KiB), byte 3 the tag length
//         (16-79 bytes), bytes 4-19 the salt, the rest the password. Every kernel this CPU runs must
//         give exactly libsodium's `crypto_pwhash` output.
//   odd   PHC strings: the rest is the string, verified with the password "password". Ours must
//         accept exactly what libsodium's `crypto_pwhash_str_verify` accepts (costs too large to
//         run here are skipped).
// The seed corpus (written by `make fuzz-argon2`) holds valid strings and raw inputs.

import Argon2
import Glibc  // linked for the static Argon2 library, which uses it
import Sodium

/// One workspace per kernel this CPU runs, made once (libFuzzer calls from one thread).
nonisolated(unsafe) let workspaces = Argon2Kernel.supported.map { kernel in
    do {
        return try Argon2Workspace(memoryKiB: 256, kernel: kernel)
    } catch {
        fuzzFailure("cannot make a \(kernel) workspace: \(error)")
    }
}

func fuzzFailure(_ message: String) -> Never {
    fatalError("Argon2Fuzz: \(message)")
}

func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}

/// Raw output of every kernel against libsodium's.
func checkRaw(_ input: [UInt8]) {
    guard input.count >= 20 else { return }
    let passes = UInt32(input[1] % 3) + 1
    let memory = UInt32(input[2] % 128) + 8
    let length = Int(input[3] % 64) + 16
    let salt = Array(input[4..<20])
    let password = Array(input[20...])
    guard
        let expected = try? Argon2id.derive(
            length: length, password: password, salt: salt,
            cost: Argon2id.Cost(opsLimit: UInt64(passes), memLimit: Int(memory) * 1024))
    else { fuzzFailure("libsodium refused m=\(memory) t=\(passes) length \(length)") }
    for workspace in workspaces {
        guard
            let tag = try? workspace.hash(
                password: password, salt: salt,
                parameters: Argon2Parameters(passes: passes, memoryKiB: memory), tagLength: length)
        else { fuzzFailure("\(workspace.kernel) refused m=\(memory) t=\(passes) length \(length)") }
        if tag != expected {
            fuzzFailure(
                "\(workspace.kernel) m=\(memory) t=\(passes) salt \(hexString(salt)) password \(hexString(password)): "
                    + "\(hexString(tag)) != libsodium's \(hexString(expected))")
        }
    }
}

/// Acceptance of a PHC string, ours against libsodium's.
func checkString(_ bytes: ArraySlice<UInt8>) {
    let text = String(decoding: bytes, as: UTF8.self)
    guard Array(text.utf8) == Array(bytes) else { return }  // not UTF-8: a String cannot hold it
    if let phc = try? PHCString(parsing: text), phc.parameters.passes > 4 { return }
    let password = Array("password".utf8)
    let theirs = Argon2id.verify(password: password, against: text)
    for workspace in workspaces {
        let ours: Bool
        do {
            ours = try workspace.verify(password: password, against: text)
        } catch  where error.code == .insufficientMemory {
            return
        } catch {
            ours = false
        }
        if ours != theirs {
            fuzzFailure("\(workspace.kernel) says \(ours), libsodium \(theirs), for \(text)")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    guard let mode = input.first else { return 0 }
    if mode % 2 == 0 { checkRaw(input) } else { checkString(input.dropFirst()) }
    return 0
}
