import PingBase
import PingFlowCore
import PingOAuth
import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// Where a confidential client's secret comes from: `--client-secret-file PATH` (through the file gate:
/// this user's file, closed to group and others), `--client-secret-file -` (standard input, a pipe: for
/// CI, `vault read … | pingcli login --client-secret-file - …`), or `PINGCLI_CLIENT_SECRET`, each checked
/// at the secret's gate. Never from a flag's value: argv is readable by every user of the machine.
package enum ClientSecretInput {
    /// The most a secret may be, from a file or standard input.
    package static let limit = 64 * 1024

    /// The secret from where the plan says it comes.
    package static func read(_ source: LoginPlan.SecretSource?, context: CommandContext) throws(PingCLIError) -> ClientSecret? {
        switch source {
        case nil: return nil
        case .environment(let secret): return secret
        case .standardInput: return try fromStandardInput(context)
        case .file(let path):
            guard var bytes = try FileAdvice.worded(try FileSystem.read(path, limit: limit, protection: .secret)) else {
                throw .usage(
                    "--client-secret-file \(displaySafe(path, limit: 200)) does not exist: give the file that holds the client secret, or - to read it from standard input",
                    rule: .clientSecretInput
                )
            }
            defer { FileSystem.wipe(&bytes) }
            return try checked(bytes, source: "--client-secret-file \(displaySafe(path, limit: 200))")
        }
    }

    /// The secret piped in on standard input; refused from a terminal, which would echo it.
    package static func fromStandardInput(_ context: CommandContext) throws(PingCLIError) -> ClientSecret {
        guard !context.inputIsTerminal else {
            throw .usage(
                "--client-secret-file - reads the secret from a pipe, and standard input is a terminal (it would echo the secret): pipe it in (… | pingcli login --client-secret-file - …) or give a file, mode 0600",
                rule: .clientSecretInput
            )
        }
        var bytes: [UInt8] = []
        defer { FileSystem.wipe(&bytes) }
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer { FileSystem.wipe(&chunk) }
        while true {
            let count = Glibc.read(context.input, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw .usage(
                    "--client-secret-file -: cannot read standard input: \(String(cString: strerror(errno)))", rule: .clientSecretInput)
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
            guard bytes.count <= limit else {
                throw .usage(
                    "--client-secret-file -: standard input holds more than \(limit) bytes: pipe in the client secret alone",
                    rule: .clientSecretInput)
            }
        }
        guard !bytes.isEmpty else {
            throw .usage(
                "--client-secret-file -: standard input was empty: pipe in the client secret (on one line)", rule: .clientSecretInput)
        }
        return try checked(bytes, source: "--client-secret-file -")
    }

    private static func checked(_ bytes: [UInt8], source: String) throws(PingCLIError) -> ClientSecret {
        do {
            return try ClientSecret(fileContents: bytes)
        } catch {
            throw .usage("\(source): \(error.message): the secret must be on one line, alone", rule: .clientSecretInput)
        }
    }
}
