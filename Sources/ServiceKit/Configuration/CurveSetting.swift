/// `--curve` and the `--<upstream>-curve` options: whether a connection uses ZeroMQ CURVE.
public enum CurveSetting: String, CaseIterable, Sendable {
    /// CURVE with the state directory's keys (the default).
    case on
    /// Plain connections: for loopback development and tests only.
    case off

    /// True for ``on``.
    public var isOn: Bool { self == .on }
}
