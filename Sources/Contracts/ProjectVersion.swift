/// The version of the whole project: every executable prints it for `--version` and every service
/// reports it in `sys.health` (and so in `--check` and `make status`). The services, the gateway and
/// its clients are built and released together from one repository, so they share one number.
public enum ProjectVersion {
    /// The current version, `MAJOR.MINOR.PATCH`.
    public static let current = "1.0.0"
}
