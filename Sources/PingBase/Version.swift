/// pingcli's version, printed by `pingcli --version` and sent as the User-Agent.
public enum PingCLIVersion {
    public static let current = "0.1.0"
}
