// swift-tools-version:6.0
import PackageDescription

// The floors every use case stands on, and the use cases (docs/architecture.md): a use case may import
// any floor below it; which use case may import which is held by UseCaseImportTests.
let underUseCases: [Target.Dependency] = [
    "PingBase", "PingHTTP", "PingCrypto", "PingOTP", "PingPlatform", "PingTerminal", "PingOAuth", "PingAM", "PingState",
    "PingAuthenticators", "PingRedirect", "PingAWS", "PingWebAuthn", "PingFIDO2",
]
let useCases: [Target.Dependency] = ["PingFlowCore", "PingSession", "PingSignIn", "PingJourney", "PingCloud"]
// Every library of the product, for the tests that reach into all of them.
let pingModules = underUseCases + useCases + ["PingCommandLine", "PingLogin", "PingIntegrations", "PingCommands"]

let package = Package(
    name: "pingcli",
    products: [
        .executable(name: "pingcli", targets: ["pingcli"]),
        .executable(name: "ping-emulator", targets: ["ping-emulator"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        // Headers only at build time: libcurl itself is dlopen'ed on first use (see Sources/CCurl/shim.h).
        .systemLibrary(
            name: "CCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // Headers only at build time: pingcli dlopen's libcrypto on first use (see Sources/CLibCrypto/shim.h).
        .systemLibrary(
            name: "CLibCrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // Header only: typed wrappers for variadic system calls (prctl) that Swift cannot call.
        .systemLibrary(name: "CPlatform"),
        // Header only: the few libsecret and GLib declarations the keyring store needs; libsecret itself is
        // dlopen'ed only for that store (see Sources/CSecret/shim.h). Nothing of it is linked.
        .systemLibrary(name: "CSecret"),
        // Headers only at build time (Debian's libtss2-dev): tpm2-tss's ESYS, its TCTI loader and its
        // marshalling library are dlopen'ed only when a device step or a TPM-sealed secret needs the TPM
        // (see Sources/CTPM/shim.h). Nothing of it is linked.
        .systemLibrary(
            name: "CTPM",
            providers: [.apt(["libtss2-dev"])]
        ),
        // Headers only at build time (Debian's libfido2-dev): libfido2 is dlopen'ed only when a WebAuthn step
        // looks for a security key (see Sources/CFIDO2/shim.h). Nothing of it is linked.
        .systemLibrary(
            name: "CFIDO2",
            providers: [.apt(["libfido2-dev"])]
        ),
        // pingcli's layers, lowest first: each target imports only those below it, so an upward use does not
        // compile (docs/architecture.md). Floors of targets, rooms inside: the protocols side by side (OAuth,
        // PingAM, OTP), the state beside the authenticators it holds, the use cases side by side over one core.
        // Values, codecs and gates: JSON, URLs and the endpoint policy, form encoding, checked strings,
        // clocks, the error type.
        .target(name: "PingBase"),
        // HTTP as values: the request, the response, the transport's failures and its protocol (no I/O).
        .target(name: "PingHTTP", dependencies: ["PingBase"]),
        // Cryptography: libsodium, libcrypto and the TPM (each behind one file), PEM, DER, base64url, the JOSE
        // algorithms and keys (a JWK Set read through its gate).
        .target(name: "PingCrypto", dependencies: ["PingBase", "PingHTTP", "CLibCrypto", "CSodium", "CTPM"]),
        // One-time codes: HOTP and TOTP (RFC 4226, RFC 6238) and the `otpauth://` format.
        .target(name: "PingOTP", dependencies: ["PingBase", "PingCrypto"]),
        // WebAuthn's formats: CBOR (RFC 8949, CTAP2's canonical form) and what is built from it.
        .target(name: "PingWebAuthn", dependencies: ["PingBase", "PingCrypto"]),
        // A FIDO2 security key as a WebAuthn authenticator, through libfido2 (behind one file).
        .target(name: "PingFIDO2", dependencies: ["PingBase", "PingCrypto", "PingWebAuthn", "CFIDO2"]),
        // The operating system: HTTP through libcurl, keyrings, processes, files, locks, paths, the browser.
        .target(name: "PingPlatform", dependencies: ["PingBase", "PingHTTP", "PingCrypto", "CCurl", "CPlatform", "CSecret"]),
        // The terminal: the console, JSON output, QR codes, suggestions, times as people read them.
        .target(name: "PingTerminal", dependencies: ["PingBase", "PingCrypto"]),
        // OAuth 2.0 and OpenID Connect: the spec's nouns and pure request/process functions.
        .target(name: "PingOAuth", dependencies: ["PingBase", "PingHTTP", "PingCrypto"]),
        // AWS STS beside them: AssumeRoleWithWebIdentity's request, its answer's XML through one gate, the
        // endpoint the AWS tools would use, the credentials.
        .target(name: "PingAWS", dependencies: ["PingBase", "PingHTTP"]),
        // PingAM's own protocol beside it: journey steps and callbacks, the realm, the AM session, bound
        // devices and their JWS, the answers file.
        .target(name: "PingAM", dependencies: ["PingBase", "PingHTTP", "PingCrypto", "PingOAuth", "PingWebAuthn"]),
        // Local state: profiles, the encrypted caches, their keys and locks.
        .target(name: "PingState", dependencies: ["PingBase", "PingCrypto", "PingPlatform", "PingOAuth", "PingAWS"]),
        // What pingcli holds as an authenticator: bound device keys and OTP accounts, sealed under the cache key.
        .target(name: "PingAuthenticators", dependencies: ["PingBase", "PingCrypto", "PingOTP", "PingPlatform", "PingAM", "PingState"]),
        // The loopback redirect listener and the pasted-address fallback.
        .target(name: "PingRedirect", dependencies: ["PingBase", "PingCrypto", "PingPlatform", "PingOAuth", "CPlatform"]),
        // The use cases' core: the capabilities flows are given (Transports, Browsing), the sign-in settings (SignIn),
        // discovery, the token endpoint call, ID-token checks, the browser round trip, failures in words.
        .target(name: "PingFlowCore", dependencies: underUseCases),
        // The session: tokens and targeted tokens, refresh, logout, userinfo, api, status.
        .target(name: "PingSession", dependencies: underUseCases + ["PingFlowCore"]),
        // Sign-in: browser, device code, client credentials, and the completion that saves a session.
        .target(name: "PingSignIn", dependencies: underUseCases + ["PingFlowCore", "PingSession"]),
        // Cloud helpers: AWS credentials from the profile's ID token through STS, cached beside its tokens.
        .target(name: "PingCloud", dependencies: underUseCases + ["PingFlowCore", "PingSession"]),
        // Journeys: the walker, the prompter and its answerers (terminal, answers file, device keys, OTP), the
        // session exchange.
        .target(name: "PingJourney", dependencies: underUseCases + ["PingFlowCore", "PingSession", "PingSignIn"]),
        // The command line: argv parsed into typed options (OptionSpec, ParsedOptions), the shared options, help text.
        .target(
            name: "PingCommandLine",
            dependencies: [
                "PingBase", "PingPlatform", "PingTerminal", "PingOAuth", "PingState", "PingFlowCore", "CPlatform",
            ]),
        // `login`: its options, the plan they resolve into (a SignIn), the run, and the helpers' sign-in on first use;
        // CommandContext, the factory every command runs with, which hands each use case its part.
        .target(name: "PingLogin", dependencies: underUseCases + useCases + ["PingCommandLine"]),
        // The programs pingcli plugs into: kubectl (its ExecCredential, the kubeconfig), git (the credential
        // helper), and `setup` that writes both.
        .target(name: "PingIntegrations", dependencies: underUseCases + useCases + ["PingCommandLine", "PingLogin"]),
        // Commands: a folder per command family, the dispatch, the man page, completions, the kubectl and git helpers.
        .target(
            name: "PingCommands",
            dependencies: underUseCases + useCases + ["PingCommandLine", "PingLogin", "PingIntegrations", "CPlatform"]),
        // The Swift runtime's argv finder replaced by argc and argv as glibc hands them over (arguments.c).
        .target(name: "CArguments"),
        .executableTarget(
            name: "pingcli",
            dependencies: ["PingBase", "PingCommands", "CArguments"],
            // The release link's function order (`make symbol-order`), not a source.
            exclude: ["symbol-order.txt"]
        ),
        // The emulator (Sources/Emulator/README.md): a PingOne / PingFederate / PingAM stand-in for the demo
        // and the tests, not part of pingcli. OpenSSL's libcrypto signs its tokens and libssl serves its TLS
        // and mutual-TLS ports (pingcli itself links neither).
        .systemLibrary(
            name: "COpenSSL",
            path: "Sources/Emulator/COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CEmulatorTLS",
            path: "Sources/Emulator/CEmulatorTLS",
            pkgConfig: "libssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // HTTP/1.1 over loopback sockets (and TLS): requests in, responses out, nothing of any provider.
        .target(
            name: "EmulatorHTTP",
            dependencies: ["CEmulatorTLS"],
            path: "Sources/Emulator/EmulatorHTTP"
        ),
        // The providers: endpoints, tokens, sessions, journeys, one type per vendor's layout.
        .target(
            name: "PingEmulator",
            dependencies: ["EmulatorHTTP", "CSodium", "COpenSSL"],
            path: "Sources/Emulator/PingEmulator"
        ),
        .executableTarget(
            name: "ping-emulator",
            dependencies: ["PingEmulator"],
            path: "Sources/Emulator/ping-emulator"
        ),
        // The fuzz targets' entry points into the parsers of hostile input: for the fuzz harness and the
        // corpus replay tests, not part of pingcli.
        .target(
            name: "PingFuzz",
            dependencies: [
                "PingBase", "PingCrypto", "PingHTTP", "PingPlatform", "PingTerminal", "PingOAuth", "PingAM", "PingState", "PingRedirect",
                "PingAWS", "PingIntegrations", "PingCommands", "PingWebAuthn",
            ]
        ),
        // libFuzzer harness: built only by `make fuzz` (it has no main of its own).
        .executableTarget(
            name: "pingcli-fuzz",
            dependencies: ["PingFuzz"]
        ),
        .testTarget(
            name: "PingCLICoreTests",
            dependencies: pingModules + ["PingFuzz", "CCurl", "CPlatform", "LoopbackClient", "FIDOTestAuthenticator"]
        ),
        .testTarget(
            name: "PingEmulatorTests",
            dependencies: ["PingEmulator", "EmulatorHTTP"]
        ),
        // Flows in-process: a CommandContext with the test's clock, the emulator answering by direct call,
        // a browser double and a captured console (docs/testing.md, "Two tiers").
        .testTarget(
            name: "FlowTests",
            dependencies: pingModules + ["PingEmulator"]
        ),
        .testTarget(
            name: "EndToEndTests",
            // FIDOTestAuthenticator: a SoftwareKeyServer in the test's process for the built binary's
            // PINGCLI_TEST_FIDO_SOCKET (docs/testing.md).
            dependencies: ["PingEmulator", "CPlatform", "LoopbackClient", "FIDOTestAuthenticator"]
        ),
        // A software FIDO2 authenticator (CTAPHID, CTAP2, ClientPIN) that libfido2 talks to through a Unix
        // socket, for the security key's tests in both tiers; its cryptography through libcrypto. Never part of pingcli.
        .target(name: "CFIDOTestCrypto", path: "Tests/CFIDOTestCrypto", linkerSettings: [.linkedLibrary("crypto")]),
        .target(
            name: "FIDOTestAuthenticator", dependencies: ["PingCrypto", "PingWebAuthn", "CFIDOTestCrypto"],
            path: "Tests/FIDOTestAuthenticator"),
        // A raw-socket HTTP client for the loopback listener's tests in both tiers.
        .target(name: "LoopbackClient", path: "Tests/LoopbackClient"),
    ],
    swiftLanguageModes: [.v6]
)

// pingcli's own modules are compiled without the implicit import of `_StringProcessing`: its string
// algorithms (`contains`, `firstRange(of:)`, `split(separator:)` and `replacing` with a string argument,
// regular expressions) linked it and `_RegexParser` into the binary, 0.9 MB of code and 2,600 relocations
// that every start paid for (docs/performance.md). PingBase's TextSearch does what they did, by bytes;
// a use of one of them in these modules does not compile.
let withoutStringProcessing: Set = [
    "PingBase", "PingCrypto", "PingHTTP", "PingOTP", "PingPlatform", "PingTerminal", "PingOAuth", "PingAM", "PingState",
    "PingAuthenticators", "PingRedirect", "PingFlowCore", "PingSession", "PingSignIn", "PingJourney", "PingCommandLine", "PingLogin",
    "PingIntegrations", "PingCommands", "PingAWS", "PingCloud", "PingWebAuthn", "PingFIDO2",
    "pingcli", "PingFuzz",
]
let noImplicitStringProcessing = SwiftSetting.unsafeFlags(["-Xfrontend", "-disable-implicit-string-processing-module-import"])
for target in package.targets where withoutStringProcessing.contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [noImplicitStringProcessing]
}
