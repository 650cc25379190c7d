/// One stage of a ramp (`--stages ramp=30s:100,peak=1m:2000,30s:0`): over `duration` the load goes
/// linearly from where the stage before ended to `target`: the open model's rate (requests per
/// second) or the closed model's concurrency.
public struct Stage: Sendable, Hashable, CustomStringConvertible {
    /// Its name: as given (`peak=1m:2000`), or `stage1`, `stage2`… by position.
    public var name: String
    /// How long it lasts, in nanoseconds (more than 0).
    public var duration: UInt64
    /// The load at its end.
    public var target: Double

    /// A stage.
    public init(name: String, duration: UInt64, target: Double) {
        self.name = name
        self.duration = duration
        self.target = target
    }

    /// `name=30s:100`.
    public var description: String {
        "\(name)=\(DurationText.format(duration)):\(DurationText.significant(target))"
    }

    /// Parses `[name=]DURATION:TARGET,…`; nil when any part is malformed, a duration is not
    /// positive, a target negative, or two stages share a name. A name is letters, digits, `_` and
    /// `-`, not starting with a digit.
    public static func parseList(_ text: String) -> [Stage]? {
        var stages: [Stage] = []
        for (position, part) in text.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            var body = Substring(String(part).trimmingSpaces)
            var name = "stage\(position + 1)"
            if let equals = body.firstIndex(of: "=") {
                name = String(body[..<equals])
                body = body[body.index(after: equals)...]
                guard isValidName(name) else { return nil }
            }
            let pieces = body.split(separator: ":", omittingEmptySubsequences: false)
            guard pieces.count == 2, let duration = DurationText.nanoseconds(String(pieces[0])), duration > 0,
                let target = Double(pieces[1]), target >= 0, target.isFinite, !pieces[1].hasPrefix("+")
            else { return nil }
            guard !stages.contains(where: { $0.name == name }) else { return nil }
            stages.append(Stage(name: name, duration: duration, target: target))
        }
        return stages.isEmpty ? nil : stages
    }

    /// Whether `name` can name a stage (and a `--fail-if` condition can refer to it).
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.utf8.count <= 64
            && name.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
                    || $0 == "-"
            }
    }
}

/// A piecewise-linear load over time: `start` at offset 0, then each stage's ramp to its target.
public struct Ramp: Sendable, Hashable {
    /// One straight piece: from `from` at `offset` to `to` at `offset + duration` (nanoseconds).
    public struct Piece: Sendable, Hashable {
        /// Where it starts, in nanoseconds from the ramp's start.
        public var offset: UInt64
        /// How long it lasts.
        public var duration: UInt64
        /// The load at its start.
        public var from: Double
        /// The load at its end.
        public var to: Double
    }

    /// The pieces, one per stage, back to back.
    public let pieces: [Piece]

    /// The ramp of `stages`, starting at `start`.
    public init(start: Double, stages: [Stage]) {
        var offset: UInt64 = 0
        var from = start
        var pieces: [Piece] = []
        for stage in stages {
            pieces.append(Piece(offset: offset, duration: stage.duration, from: from, to: stage.target))
            offset += stage.duration
            from = stage.target
        }
        self.pieces = pieces
    }

    /// The ramp's whole length, in nanoseconds.
    public var duration: UInt64 { pieces.last.map { $0.offset + $0.duration } ?? 0 }

    /// The piece `offset` falls in (the last for offsets past the end).
    public func piece(at offset: UInt64) -> Int {
        var low = 0
        var high = pieces.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if pieces[middle].offset <= offset { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The load at `offset` nanoseconds (the last target past the end).
    public func value(at offset: UInt64) -> Double {
        guard !pieces.isEmpty else { return 0 }
        let piece = pieces[piece(at: offset)]
        let elapsed = Double(Swift.min(offset - Swift.min(offset, piece.offset), piece.duration))
        return piece.from + (piece.to - piece.from) * elapsed / Double(piece.duration)
    }
}
