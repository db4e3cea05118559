// libFuzzer harness for pingcli's parsers of hostile input. `make fuzz` builds it with
// `-sanitize=fuzzer,address -D PINGCLI_FUZZING`; main hands control to libFuzzer's driver.
// PINGCLI_FUZZ_TARGET chooses what the bytes are fed to:
//   loopback-request  the loopback listener's HTTP request parser and the redirect receiver
//   jwt               the ID token decoder and validator
//   cache-file        the encrypted token cache decoder
//   json              discovery, token, userinfo and revocation response processing
//   gate              token grammars, the URL gate and policy, media types, display and JSON escaping
//   git-credential    git's credential request and the git host gate and matching (who gets the token)
//   journey           AM's authenticate answers (steps, callbacks, failures), answers files, resume links
//   sts               STS's AssumeRoleWithWebIdentity answers through the XML gate
//   webauthn          a journey's WebAuthn step gate, metadata and script forms, and the outcome it answers
import PingFuzz

#if canImport(Glibc)
    import Glibc
#endif

enum FuzzTarget: String {
    case loopbackRequest = "loopback-request"
    case jwt
    case cacheFile = "cache-file"
    case json
    case gate
    case gitCredential = "git-credential"
    case journey
    case sts
    case webauthn

    static let selected: FuzzTarget = {
        guard let name = getenv("PINGCLI_FUZZ_TARGET").map({ String(cString: $0) }), let target = FuzzTarget(rawValue: name)
        else {
            let message =
                "set PINGCLI_FUZZ_TARGET to loopback-request, jwt, cache-file, json, gate, git-credential, journey, sts or webauthn\n"
            _ = message.withCString { write(2, $0, strlen($0)) }
            exit(2)
        }
        return target
    }()
}

/// A fixed key, so the fuzzer can also reach the paths after a successful decryption.
let fuzzKey = [UInt8](repeating: 7, count: 32)

#if PINGCLI_FUZZING
    /// libFuzzer's entry point for programs that have their own main.
    @_silgen_name("LLVMFuzzerRunDriver")
    func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32

    func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        switch FuzzTarget.selected {
        case .loopbackRequest:
            FuzzEntryPoints.loopbackRequest(bytes)
        case .jwt:
            FuzzEntryPoints.idToken(bytes)
        case .cacheFile:
            FuzzEntryPoints.cacheFile(bytes, key: fuzzKey)
        case .json:
            FuzzEntryPoints.responses(bytes)
        case .gate:
            FuzzEntryPoints.gate(bytes)
        case .gitCredential:
            FuzzEntryPoints.gitCredential(bytes)
        case .journey:
            FuzzEntryPoints.journey(bytes)
        case .sts:
            FuzzEntryPoints.sts(bytes)
        case .webauthn:
            FuzzEntryPoints.webAuthn(bytes)
        }
        return 0
    }

    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    _ = FuzzTarget.selected
    exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzz(data, size) })
#else
    // A plain build (swift build, make test) has no libFuzzer runtime to link against.
    let message = "pingcli-fuzz must be built by make fuzz (with -sanitize=fuzzer and -D PINGCLI_FUZZING)\n"
    _ = message.withCString { write(2, $0, strlen($0)) }
    exit(2)
#endif
