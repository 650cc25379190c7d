// libFuzzer target for the RemoteProtocol codec (`make fuzz`).
//
// Not a SwiftPM target: `make fuzz` compiles this file together with Sources/RemoteProtocol/*.swift
// into one module with `swiftc -sanitize=fuzzer,address -parse-as-library`, so no import is needed.
//
// Input format (so that libFuzzer can vary the number and the sizes of the ZeroMQ parts):
//   byte 0             the number of parts, modulo 4 (0-3)
//   then, for every part but the last: its length (u16, big-endian, cut to what is left), its bytes
//   the last part      every remaining byte
// The seed corpus (Tests/Fuzz/golden-vectors.txt) is written in this format by `make fuzz`.

/// The ZeroMQ parts encoded in one fuzzer input (see the format above).
func fuzzParts(_ input: UnsafeBufferPointer<UInt8>) -> [[UInt8]] {
    guard let first = input.first else { return [] }
    let count = Int(first % 4)
    var parts: [[UInt8]] = []
    var offset = 1
    for index in 0..<count {
        if index == count - 1 {
            parts.append(Array(input[offset...]))
        } else {
            var length = 0
            if offset < input.count { length = Int(input[offset]) << 8 }
            if offset + 1 < input.count { length |= Int(input[offset + 1]) }
            offset = min(offset + 2, input.count)
            let end = min(offset + length, input.count)
            parts.append(Array(input[offset..<end]))
            offset = end
        }
    }
    return parts
}

/// Stops the fuzzer with `message`: libFuzzer reports the crash and saves the input.
func fuzzFailure(_ message: String) -> Never {
    fatalError("RemoteProtocolFuzz: \(message)")
}

/// libFuzzer's entry point: decodes one input and checks the codec's promises.
///
/// A decoded frame must re-encode to the same parts and pass `Frame`'s own checks; an error's
/// `ERROR` answer must be a valid message itself, carrying the error's code. Reading the body of
/// `ERROR` frames as JSON exercises the error-body path as well.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let parts = fuzzParts(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    let codec = FrameCodec(limits: ProtocolLimits(maxBodyLength: 512))
    do throws(ProtocolError) {
        let frame = try codec.decode(parts)
        if codec.encode(frame) != parts { fuzzFailure("re-encoding differs for \(parts)") }
        let rebuilt = try Frame(
            type: frame.type, stream: frame.stream, deadlineMilliseconds: frame.deadlineMilliseconds,
            method: frame.method, body: frame.body)
        if rebuilt != frame { fuzzFailure("Frame.init disagrees with decode for \(parts)") }
        if frame.type == .error, frame.remoteError == nil { fuzzFailure("ERROR without remoteError") }
    } catch {
        let answer = error.errorFrame
        guard let decoded = try? FrameCodec().decode(codec.encode(answer)), decoded == answer else {
            fuzzFailure("the answer to \(error) is not a valid message")
        }
        if answer.remoteError?.code != error.code { fuzzFailure("the answer to \(error) lost its code") }
    }
    return 0
}
