// swift-tools-version:6.0
import PackageDescription

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
        // OpenSSL's libcrypto, linked by the emulator for its signatures (pingcli itself never links it).
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // OpenSSL's libssl, for the emulator's TLS and mutual-TLS ports only (pingcli's TLS is libcurl's).
        .systemLibrary(
            name: "CEmulatorTLS",
            pkgConfig: "libssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // Header only: typed wrappers for variadic system calls (prctl) that Swift cannot call.
        .systemLibrary(name: "CPlatform"),
        // Header only: the few libsecret and GLib declarations the keyring store needs; libsecret itself is
        // dlopen'ed only for that store (see Sources/CSecret/shim.h). Nothing of it is linked.
        .systemLibrary(name: "CSecret"),
        .target(
            name: "PingCLICore",
            dependencies: ["CSodium", "CCurl", "CPlatform", "CSecret", "CLibCrypto"]
        ),
        // The Swift runtime's argv finder replaced by argc and argv as glibc hands them over (arguments.c).
        .target(name: "CArguments"),
        .executableTarget(
            name: "pingcli",
            dependencies: ["PingCLICore", "CArguments"],
            // The release link's function order (`make symbol-order`), not a source.
            exclude: ["symbol-order.txt"]
        ),
        .target(
            name: "PingEmulator",
            dependencies: ["CSodium", "COpenSSL", "CEmulatorTLS"]
        ),
        .executableTarget(
            name: "ping-emulator",
            dependencies: ["PingEmulator"]
        ),
        // libFuzzer harness: built only by `make fuzz` (it has no main of its own).
        .executableTarget(
            name: "pingcli-fuzz",
            dependencies: ["PingCLICore"]
        ),
        .testTarget(
            name: "PingCLICoreTests",
            dependencies: ["PingCLICore", "CCurl", "CPlatform"]
        ),
        .testTarget(
            name: "PingEmulatorTests",
            dependencies: ["PingEmulator"]
        ),
        // Flows in-process: a FlowContext with the test's clock, the emulator answering by direct call,
        // a browser double and a captured console (docs/testing.md, "Two tiers").
        .testTarget(
            name: "FlowTests",
            dependencies: ["PingCLICore", "PingEmulator"]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["PingEmulator", "CPlatform"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
