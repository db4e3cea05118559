public enum PingCLI {}
