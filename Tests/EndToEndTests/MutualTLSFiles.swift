import Foundation
import PingEmulator

#if canImport(Glibc)
    import Glibc
#endif

/// Certificates made at test time with Debian's `openssl`: a CA, the emulator's server certificate for
/// 127.0.0.1, a client certificate from the CA (`tls_client_auth`), a self-signed one
/// (`self_signed_tls_client_auth`), an expired one from the CA, and a key that belongs to none of them.
struct MutualTLSFiles {
    /// The sandbox the files live in, kept alive as long as the files are used (its deinit removes them).
    let sandbox: Sandbox
    let directory: String
    var caFile: String { directory + "/ca.pem" }
    var serverCertificate: String { directory + "/server.pem" }
    var serverKey: String { directory + "/server.key" }
    var clientCertificate: String { directory + "/client.pem" }
    var clientKey: String { directory + "/client.key" }
    var selfSignedCertificate: String { directory + "/self.pem" }
    var selfSignedKey: String { directory + "/self.key" }
    var expiredCertificate: String { directory + "/expired.pem" }
    var expiredKey: String { directory + "/expired.key" }
    var otherKey: String { directory + "/other.key" }
    /// The CA-issued client certificate's subject (RFC 4514), as registered for `tls_client_auth`.
    static let clientSubject = "CN=pingcli-machine"

    init(in sandbox: Sandbox) throws {
        self.sandbox = sandbox
        directory = sandbox.root + "/tls"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(directory, 0o700)
        let config = """
            [ca]
            default_ca = local
            [local]
            database = index.txt
            new_certs_dir = .
            serial = serial
            policy = any
            default_md = sha256
            unique_subject = no
            copy_extensions = copy
            [any]
            commonName = supplied

            """
        try config.write(toFile: directory + "/ca.cnf", atomically: true, encoding: .utf8)
        try "01\n".write(toFile: directory + "/serial", atomically: true, encoding: .utf8)
        try "".write(toFile: directory + "/index.txt", atomically: true, encoding: .utf8)
        let newKey = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
        let sign = "openssl ca -batch -config ca.cnf -cert ca.pem -keyfile ca.key -notext"
        try Self.shell(
            """
            openssl req -x509 \(newKey) -keyout ca.key -out ca.pem -days 2 -subj /CN=pingcli-test-ca
            openssl req -new \(newKey) -keyout server.key -out server.csr -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1
            \(sign) -in server.csr -out server.pem -days 2
            openssl req -new \(newKey) -keyout server2.key -out server2.csr -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1
            \(sign) -in server2.csr -out server2.pem -days 2
            openssl req -new \(newKey) -keyout client.key -out client.csr -subj /CN=pingcli-machine
            \(sign) -in client.csr -out client.pem -days 2
            openssl req -new \(newKey) -keyout expired.key -out expired.csr -subj /CN=pingcli-machine
            \(sign) -in expired.csr -out expired.pem -startdate 20200101000000Z -enddate 20200102000000Z
            openssl req -x509 \(newKey) -keyout self.key -out self.pem -days 2 -subj /CN=pingcli-self-signed
            openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:prime256v1 -out other.key
            chmod 600 *.key
            """, in: directory)
    }

    /// The emulator's TLS settings for these files.
    var emulatorTLS: EmulatorTLS { EmulatorTLS(certificateFile: serverCertificate, keyFile: serverKey, clientCAFile: caFile) }
    /// Another server key and certificate from the same CA: a provider that changed its key.
    var replacementTLS: EmulatorTLS {
        EmulatorTLS(certificateFile: directory + "/server2.pem", keyFile: directory + "/server2.key", clientCAFile: caFile)
    }

    /// `x5t#S256` of a PEM certificate file.
    static func thumbprint(_ path: String) -> String {
        let pem = readText(path) ?? ""
        let body = pem.components(separatedBy: "\n").filter { !$0.hasPrefix("-----") && !$0.isEmpty }.joined()
        return Emulator.thumbprint(ofCertificate: [UInt8](Data(base64Encoded: body) ?? Data()))
    }

    /// `sha256//…` of a certificate's public key, as `--pin` takes it (the command libcurl documents).
    func pin(of certificate: String) throws -> String {
        let run = runProcess(
            "/bin/sh",
            [
                "-c",
                "openssl x509 -in \(certificate) -pubkey -noout | openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64",
            ], environment: ["PATH": "/usr/bin:/bin"], timeout: 30)
        guard run.status == 0 else { throw TLSFrontError.setup("pin: \(run)") }
        return "sha256//" + run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func shell(_ script: String, in directory: String) throws {
        let run = runProcess(
            "/bin/sh", ["-ec", "cd \(directory)\n" + script], environment: ["PATH": "/usr/bin:/bin"], timeout: 120)
        guard run.status == 0 else { throw TLSFrontError.setup("openssl: \(run)") }
    }
}
