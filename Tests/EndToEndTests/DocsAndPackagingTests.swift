import Foundation
import PingEmulator
import Testing

/// The examples of docs/usage.md, run as written (only the issuer and client id point at the emulator).
@Suite("docs examples")
struct DocsExampleTests {
    /// The lines of the first ```sh block in docs/usage.md from the comment starting `marker` to the block's end.
    static func example(_ marker: String) throws -> String {
        let docs = URL(fileURLWithPath: Locations.support).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/usage.md").path
        let text = try #require(readText(docs))
        let start = try #require(text.range(of: marker))
        let end = try #require(text.range(of: "```", range: start.upperBound..<text.endIndex))
        return String(text[start.lowerBound..<end.lowerBound])
    }

    @Test("docs-secret-file: usage.md's confidential-client example works as written in a home whose ~/.config is 0755")
    func secretFileExample() throws {
        let (emulator, sandbox) = sandboxed(try confidentialEmulator(method: "client_secret_basic"))
        try FileManager.default.createDirectory(
            atPath: sandbox.root + "/home/.config", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let script = try Self.example("# 4. A confidential client")
            .replacingOccurrences(of: "https://sso.example.com", with: emulator.issuer)
            .replacingOccurrences(of: "pingcli-confidential", with: "pingcli-test")
        var environment = sandbox.environment
        environment["PATH"] = Locations.binDirectory + ":" + (environment["PATH"] ?? "")
        environment["SECRET"] = confidentialSecret
        let run = runProcess("/bin/bash", ["-euo", "pipefail", "-c", script], environment: environment, timeout: 120)
        #expect(run.status == 0, "\(run)")
        #expect(emulator.requests(to: .token).count == 1, "signed in with the secret from the file")
    }
}

@Suite("man page environment and make targets")
struct ManEnvironmentAndMakeTests {
    @Test("man-environment: every PINGCLI_* variable in the built binary is in the man page's ENVIRONMENT and in configuration.md")
    func manEnvironmentComplete() throws {
        let tools = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        let strings = runProcess("/usr/bin/strings", ["-n", "8", Locations.pingcli], environment: tools, timeout: 120)
        #expect(strings.status == 0, "\(strings.stderr)")
        let pattern = try Regex("PINGCLI_[A-Z_]*[A-Z]")
        let names = Set(strings.stdout.matches(of: pattern).map { String(strings.stdout[$0.range]) })
            .filter { !$0.hasPrefix("PINGCLI_TEST_") }
        #expect(names.isSuperset(of: ["PINGCLI_PROFILE", "PINGCLI_ISSUER", "PINGCLI_CLIENT_SECRET"]), "\(names.sorted())")
        let sandbox = Sandbox()
        let page = sandbox.root + "/pingcli.1"
        try runProcess(Locations.pingcli, ["--help-man"], environment: [:], timeout: 30).stdout.write(
            toFile: page, atomically: true, encoding: .utf8)
        let manual = runProcess(
            "/usr/bin/man", ["-l", page], environment: tools.merging(["MANPAGER": "cat", "MANWIDTH": "200", "HOME": sandbox.root]) { $1 },
            timeout: 60)
        let environment = try #require(
            manual.stdout.components(separatedBy: "\nENVIRONMENT\n").last?.components(separatedBy: "\nFILES\n").first)
        let configuration = try #require(readText(DebianTools.repositoryRoot + "/docs/configuration.md"))
        for name in names.sorted() {
            #expect(environment.contains(name), "\(name) is missing from the man page's ENVIRONMENT section")
            #expect(configuration.contains("`\(name)`"), "\(name) is missing from docs/configuration.md")
        }
    }

    @Test(
        "man-exit-status: the man page's EXIT STATUS and the README's summary list exactly the codes of docs/exit-codes.md (5, 6 and 130 too)"
    )
    func manExitStatusComplete() throws {
        let page = runProcess(Locations.pingcli, ["--help-man"], environment: [:], timeout: 30).stdout
        let section = try #require(page.components(separatedBy: ".SH EXIT STATUS\n").last?.components(separatedBy: "\n.SH ").first)
        let lines = section.components(separatedBy: "\n")
        let manCodes = lines.indices.dropLast().filter { lines[$0] == ".TP" }.map { lines[$0 + 1] }
        let table = try #require(readText(DebianTools.repositoryRoot + "/docs/exit-codes.md"))
        let docCodes = table.components(separatedBy: "\n").compactMap { line -> String? in
            let cells = line.split(separator: "|", omittingEmptySubsequences: true)
            guard line.hasPrefix("| "), let first = cells.first, let code = Int(first.trimmingCharacters(in: .whitespaces)) else {
                return nil
            }
            return String(code)
        }
        #expect(docCodes == ["0", "1", "2", "3", "4", "5", "6", "130"], "\(docCodes)")
        #expect(manCodes == docCodes, "man page: \(manCodes), docs/exit-codes.md: \(docCodes)")
        // The README's one-line summary names the same codes.
        let readme = try #require(readText(DebianTools.repositoryRoot + "/README.md"))
        let summary = try #require(readme.components(separatedBy: "Exit codes: ").last?.components(separatedBy: ". See").first)
        let readmeCodes = summary.matches(of: try Regex("`([0-9]+)`")).map { String(summary[$0.range].dropFirst().dropLast()) }
        #expect(readmeCodes == docCodes, "README: \(readmeCodes), docs/exit-codes.md: \(docCodes)")
    }

    @Test(
        "make-release-no-kubectl: make release installs only the build's packages (no kubectl); make test's deps still get it",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/make"), "make is missing"))
    func releaseFetchesNoTestTools() {
        func dryRun(_ target: String) -> CLIRun {
            runProcess(
                "/usr/bin/make", ["--no-print-directory", "-n", "-C", DebianTools.repositoryRoot, target],
                environment: ["PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/nonexistent"], timeout: 120)
        }
        let release = dryRun("release")
        #expect(release.status == 0, "\(release)")
        #expect(!release.stdout.contains("kubernetes-client") && !release.stdout.contains("socat"), "\(release.stdout)")
        #expect(release.stdout.contains("libsodium-dev"), "the build's packages are still checked: \(release.stdout)")
        // pingcli alone: the emulator is built by what needs it (the demo, the benchmarks).
        #expect(release.stdout.contains("--product pingcli") && !release.stdout.contains("--product ping-emulator"), "\(release.stdout)")
        #expect(dryRun("demo").stdout.contains("--product ping-emulator"))
        #expect(dryRun("test").stdout.contains("kubernetes-client"))
    }
}

/// `make release` on a fresh machine, played with stand-ins for apt-get, dpkg-query, pkg-config, swift and
/// swiftc in a copy of the Makefile and the front's sources: nothing installed until apt-get runs,
/// libsodium's static archive after, in the full binary and in the front.
@Suite("fresh machine: make release")
struct FreshMachineMakeTests {
    @Test(
        "fresh-make-release: the first make release links libsodium statically into the full binary and the front (the pkg-config probes run after build-deps), and apt-get installs without recommended packages, saying why in one line",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/make"), "make is missing"))
    func firstReleaseIsStatic() throws {
        // Kept to the end of the test: released at once, it would remove its directory before the test
        // filled it again, and leave it behind.
        let sandbox = Sandbox()
        defer { withExtendedLifetime(sandbox) {} }
        let work = sandbox.root
        let stubs = work + "/stubs"
        for directory in [stubs, work + "/pc", work + "/lib"] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try FileManager.default.copyItem(atPath: DebianTools.repositoryRoot + "/Makefile", toPath: work + "/Makefile")
        let frontSources = "Sources/pingcli-front"
        try FileManager.default.createDirectory(atPath: work + "/Sources", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: DebianTools.repositoryRoot + "/" + frontSources, toPath: work + "/" + frontSources)
        try "Libs: -L\(work)/lib -lsodium\n".write(toFile: work + "/pc/libsodium.pc", atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: work + "/lib/libsodium.a", contents: Data())
        let scripts = [
            "dpkg-query": "[ -e '\(work)/installed' ] && printf 'install ok installed'",
            "apt-get": "echo \"$*\" >> '\(work)/apt.log'; case \"$*\" in *install*) touch '\(work)/installed';; esac",
            "pkg-config": """
            [ -e '\(work)/installed' ] || exit 1
            case "$1" in --variable=pcfiledir) echo '\(work)/pc';; --variable=libdir) echo '\(work)/lib';; esac
            """,
            "swift": "echo \"PKG_CONFIG_PATH=${PKG_CONFIG_PATH-} $*\" >> '\(work)/swift.log'; echo '\(work)/bin'",
            "clang": "echo \"$2\"",
            // The front's compiler: what it was asked, and the file it was to make.
            "swiftc": """
            echo "$*" >> '\(work)/swiftc.log'
            while [ $# -gt 0 ]; do [ "$1" = -o ] && : > "$2"; shift; done; exit 0
            """,
        ]
        for (name, body) in scripts {
            try ("#!/bin/sh\n" + body + "\n").write(toFile: stubs + "/" + name, atomically: true, encoding: .utf8)
            #expect(chmod(stubs + "/" + name, 0o755) == 0)
        }
        let run = runProcess(
            "/usr/bin/make", ["--no-print-directory", "-C", work, "release", "SUDO=", "SWIFT=\(stubs)/swift"],
            environment: ["PATH": stubs + ":/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": work], timeout: 120)
        #expect(run.status == 0, "\(run)")
        #expect(
            run.stdout.contains(
                "installing Debian packages to build pingcli: libsodium-dev libcurl4-openssl-dev libssl-dev libtss2-dev libfido2-dev pkg-config curl binutils libncurses6 libsqlite3-0 libxml2 libc6-dev libgcc-12-dev libstdc++-12-dev (apt-get, without recommended packages)\n"
            ), "\(run.stdout)")
        let apt = readText(work + "/apt.log") ?? ""
        #expect(apt.contains("install -y -qq --no-install-recommends libsodium-dev"), "\(apt)")
        let builds = (readText(work + "/swift.log") ?? "").split(separator: "\n").filter {
            $0.contains(" build -c release") && !$0.contains("--show-bin-path")
        }
        // pingcli alone: the emulator is `make emulator`, built by the demo and the benchmarks.
        #expect(builds.count == 1 && builds[0].contains("--product pingcli"), "\(builds)")
        for build in builds {
            #expect(build.hasPrefix("PKG_CONFIG_PATH=\(work)/.build-link ") && build.contains("-L\(work)/.build-link"), "\(build)")
        }
        #expect(readText(work + "/.build-link/libsodium.pc") == "Libs: -L\(work)/.build-link -lsodium\n")
        try Self.expectFront(work: work, sources: frontSources)
    }

    /// The front was compiled once, in Embedded Swift, from every one of its sources, into
    /// `.build/front/pingcli`, with libsodium's static archive that only build-deps' packages provide.
    static func expectFront(work: String, sources: String) throws {
        let compiles = (readText(work + "/swiftc.log") ?? "").split(separator: "\n").map(String.init)
        let compile = try #require(compiles.first, "the front was not compiled")
        #expect(compiles.count == 1, "\(compiles)")
        #expect(compile.contains("-enable-experimental-feature Embedded") && compile.contains("-static-pie"), "\(compile)")
        #expect(compile.contains(" -o \(work)/.build/front/pingcli -Xlinker \(work)/lib/libsodium.a"), "\(compile)")
        let swiftFiles = try FileManager.default.contentsOfDirectory(atPath: work + "/" + sources).filter { $0.hasSuffix(".swift") }
        #expect(!swiftFiles.isEmpty)
        for file in swiftFiles { #expect(compile.contains(" \(sources)/\(file)"), "\(file) in \(compile)") }
        #expect(FileManager.default.fileExists(atPath: work + "/.build/front/pingcli"))
    }
}

@Suite("README transcript")
struct ReadmeTranscriptTests {
    /// What differs between two runs of the demo: ports, the throw-away directory, times, the JWT and the
    /// authorization URL's random query (the README shortens those two).
    static func normalized(_ text: String) throws -> String {
        let rules: [(String, String)] = [
            (#"127\.0\.0\.1:[0-9]+"#, "127.0.0.1:PORT"), (#"\S*/pingcli-demo\.[A-Za-z0-9]+"#, "TMP"),
            (#"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z"#, "TIME"), (#"expires in [0-9hms ]+\("#, "expires in N ("),
            (#"(?m)^eyJ.*$"#, "JWT"), (#"(?m)authorize\?.*$"#, "authorize?QUERY"),
        ]
        var result = text.trimmingCharacters(in: .whitespacesAndNewlines)
        for (pattern, replacement) in rules { result = result.replacing(try Regex(pattern), with: replacement) }
        return result
    }

    @Test("readme-transcript: the README's transcript of make demo is what Tests/Support/demo.sh prints (debug build)")
    func transcriptMatchesDemo() throws {
        let readme = try #require(readText(DebianTools.repositoryRoot + "/README.md"))
        let block = try #require(
            readme.components(separatedBy: "## What `make demo` shows").last?.components(separatedBy: "```text\n").dropFirst().first?
                .components(separatedBy: "\n```").first)
        let sandbox = Sandbox()
        var environment = sandbox.environment
        environment["CI"] = "true"  // the browser double, as on a machine without a display
        environment["TMPDIR"] = sandbox.root
        // One stream, in the order a terminal shows it.
        let demo = runProcess(
            "/bin/bash",
            ["-c", "exec bash \"$0\" \"$1\" 2>&1", DebianTools.repositoryRoot + "/Tests/Support/demo.sh", Locations.binDirectory],
            environment: environment, timeout: 300)
        #expect(demo.status == 0, "\(demo)")
        let expected = try Self.normalized(block)
        let actual = try Self.normalized(demo.stdout)
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let firstDifference = zip(expectedLines, actualLines).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(
            expected == actual,
            "first difference at line \(firstDifference.map { "\($0.offset + 1): README \"\($0.element.0)\", demo \"\($0.element.1)\"" } ?? "(one is longer)")"
        )
    }
}
