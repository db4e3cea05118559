import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `make install` and `make deb`, run on the debug build (`PINGCLI_BIN`), so the recipes are tested
/// without a release build inside the test suite.
@Suite("packaging: make install and make deb")
struct PackagingTests {
    @Test("version-without-home: pingcli --version needs no HOME (env -i, a package's post-install check)")
    func versionWithoutHome() {
        for arguments in [["--version"], ["version"]] {
            let run = runProcess(Locations.pingcli, arguments, environment: [:], timeout: 30)
            #expect(run.status == 0 && run.stdout == "pingcli \(PingCLIVersionForTests.current)\n", "\(run)")
        }
    }

    /// The front (`bin/pingcli`) and the full binary it runs (`libexec/pingcli/pingcli`), the man page and
    /// the completions.
    static let installed = [
        "bin/pingcli", "libexec/pingcli/pingcli", "share/man/man1/pingcli.1.gz", "share/bash-completion/completions/pingcli",
        "share/fish/vendor_completions.d/pingcli.fish",
    ]

    /// `make TARGET` in the repository with the debug binary and the generated files in the sandbox.
    func make(_ arguments: [String], _ sandbox: Sandbox) -> CLIRun {
        runProcess(
            "/usr/bin/make",
            ["--no-print-directory", "-C", DebianTools.repositoryRoot, "PINGCLI_BIN=\(Locations.pingcli)", "DIST=\(sandbox.root)/dist"]
                + arguments,
            environment: ["PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": sandbox.root + "/home", "LANG": "C.UTF-8"], timeout: 300)
    }

    @Test(
        "make-install: PREFIX gets the front (bin/pingcli: a static PIE, stripped, no debug link), the full binary (libexec/pingcli/pingcli), the man page and the three completions, without apt-get; uninstall removes them and the libexec/pingcli directory",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/make"), "make is missing"))
    func install() throws {
        let sandbox = Sandbox()
        let prefix = sandbox.root + "/prefix"
        let run = make(["install", "PREFIX=\(prefix)"], sandbox)
        #expect(run.status == 0, "\(run)")
        #expect(!run.stdout.contains("apt-get") && !run.stderr.contains("apt-get"), "\(run)")
        for file in Self.installed + ["share/zsh/site-functions/_pingcli"] {
            #expect(FileManager.default.fileExists(atPath: prefix + "/" + file), "\(file)")
        }
        #expect(fileMode(prefix + "/bin/pingcli") == 0o755)
        #expect(fileMode(prefix + "/libexec/pingcli/pingcli") == 0o755)
        Self.expectFront(prefix + "/bin/pingcli", full: prefix + "/libexec/pingcli/pingcli")
        #expect(fileMode(prefix + "/share/man/man1/pingcli.1.gz") == 0o644)
        #expect(readText(prefix + "/share/bash-completion/completions/pingcli")?.contains("complete -F _pingcli pingcli") == true)
        let version = runProcess(prefix + "/bin/pingcli", ["--version"], environment: [:], timeout: 30)
        #expect(version.status == 0 && version.stdout == "pingcli \(PingCLIVersionForTests.current)\n", "\(version)")
        let manual = runProcess(
            "/usr/bin/man", ["-l", prefix + "/share/man/man1/pingcli.1.gz"],
            environment: ["PATH": "/usr/bin:/bin", "MANPAGER": "cat", "HOME": sandbox.root, "LANG": "C.UTF-8"], timeout: 60)
        #expect(manual.status == 0 && manual.stdout.contains("pingcli git-credential"), "\(manual)")
        #expect(make(["uninstall", "PREFIX=\(prefix)"], sandbox).status == 0)
        for file in Self.installed { #expect(!FileManager.default.fileExists(atPath: prefix + "/" + file), "\(file)") }
        #expect(!FileManager.default.fileExists(atPath: prefix + "/libexec/pingcli"), "uninstall removes the libexec/pingcli directory")
    }

    /// The front at `front` is a static PIE (no interpreter, no library needed), stripped, with no debug
    /// link (it has no debug symbols to ship); the full binary at `full` is stripped and has one.
    static func expectFront(_ front: String, full: String) {
        let tools = Self.tools
        let headers = runProcess("/usr/bin/readelf", ["-lSW", front], environment: tools, timeout: 60)
        #expect(headers.status == 0 && headers.stdout.contains("Position-Independent Executable"), "\(headers.stdout.prefix(400))")
        for absent in ["INTERP", ".symtab", ".debug_info", ".gnu_debuglink"] {
            #expect(!headers.stdout.contains(absent), "the front has no \(absent)")
        }
        let needed = runProcess("/usr/bin/objdump", ["-p", front], environment: tools, timeout: 60)
        #expect(needed.status == 0 && !needed.stdout.contains("NEEDED"), "\(needed.stdout)")
        let sections = runProcess("/usr/bin/readelf", ["-SW", full], environment: tools, timeout: 60)
        #expect(
            sections.status == 0 && sections.stdout.contains(".gnu_debuglink") && !sections.stdout.contains(".debug_info")
                && !sections.stdout.contains(".symtab"), "\(sections.stdout)")
    }

    @Test(
        "make-deb: a .deb with the front as /usr/bin/pingcli (a static PIE, stripped, no debug link) and the stripped full binary as /usr/libexec/pingcli/pingcli (its debug symbols in pingcli-dbgsym, at /usr/lib/debug/usr/libexec/pingcli/ under the name and CRC its debug link gives), the man page, the completions, the machine-readable copyright and changelog.gz, Depends read from the full binary, Recommends and Suggests naming every library pingcli may load, a maintainer that is no placeholder, that runs from a scratch root",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dpkg-deb"), "dpkg-deb is missing"))
    func deb() throws {
        let sandbox = Sandbox()
        let run = make(["deb", "DEB_DIR=\(sandbox.root)/deb"], sandbox)
        #expect(run.status == 0, "\(run)")
        let built = try FileManager.default.contentsOfDirectory(atPath: sandbox.root + "/deb").filter { $0.hasSuffix(".deb") }
        let files = built.filter { $0.hasPrefix("pingcli_") }
        #expect(built.count == 2 && files.count == 1, "the package and its debug symbols' package: \(built)")
        let package = sandbox.root + "/deb/" + (try #require(files.first))
        #expect(files.first?.hasPrefix("pingcli_\(PingCLIVersionForTests.current)_") == true, "\(files)")
        let tools = Self.tools
        let contents = runProcess("/usr/bin/dpkg-deb", ["--contents", package], environment: tools, timeout: 60)
        #expect(contents.status == 0, "\(contents)")
        for file in Self.installed.map({ "./usr/" + $0 }) + ["./usr/share/zsh/vendor-completions/_pingcli"] {
            #expect(contents.stdout.contains(" " + file + "\n"), "\(file) in \(contents.stdout)")
        }
        for file in ["./usr/share/doc/pingcli/copyright", "./usr/share/doc/pingcli/changelog.gz"] {
            #expect(contents.stdout.contains("-rw-r--r-- root/root") && contents.stdout.contains(" " + file + "\n"), "\(file)")
        }
        #expect(contents.stdout.contains("-rwxr-xr-x root/root"), "files belong to root: \(contents.stdout)")
        let scratch = sandbox.root + "/scratch"
        #expect(runProcess("/usr/bin/dpkg-deb", ["-x", package, scratch], environment: tools, timeout: 60).status == 0)
        try Self.expectPackageFields(package, scratch: scratch)
        try Self.expectCopyright(scratch: scratch)
        let (symbols, debugBytes) = try Self.expectDebugSymbols(package, scratch: scratch, sandbox)
        Self.expectFront(scratch + "/usr/bin/pingcli", full: scratch + "/usr/libexec/pingcli/pingcli")
        let version = runProcess(scratch + "/usr/bin/pingcli", ["--version"], environment: [:], timeout: 30)
        #expect(version.status == 0 && version.stdout == "pingcli \(PingCLIVersionForTests.current)\n", "\(version)")
        guard getuid() == 0 else { return }  // dpkg --root needs root to give the files to root
        try Self.expectInstallsAndRemoves(package, symbols: symbols, debugBytes: debugBytes, sandbox)
    }

    /// What the .deb steps run their tools with.
    static let tools = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"]

    /// The package's Maintainer (no placeholder), and Depends, Recommends and Suggests naming every
    /// library the full binary in `scratch` links or loads (the front, static, needs none).
    static func expectPackageFields(_ package: String, scratch: String) throws {
        let tools = Self.tools
        let fields = runProcess(
            "/usr/bin/dpkg-deb", ["--field", package, "Package", "Depends", "Recommends", "Suggests"], environment: tools, timeout: 60)
        let maintainer = runProcess("/usr/bin/dpkg-deb", ["--field", package, "Maintainer"], environment: tools, timeout: 60)
        #expect(maintainer.stdout.hasPrefix("pingcli maintainers <"), "\(maintainer)")
        // No reserved example domain (RFC 2606), whatever git's user.email says.
        let domain = maintainer.stdout.split(separator: "@").last?.trimmingCharacters(in: CharacterSet(charactersIn: ">\n")) ?? ""
        #expect(
            maintainer.stdout.contains("@") && ![".example", ".invalid", ".test", ".localhost"].contains { domain.hasSuffix($0) },
            "\(maintainer)")
        // libsodium23 only when the packaged binary loads libsodium (this debug build does; the release build
        // links the static archive in): the field cannot claim a dependency the binary does not have.
        let needed = runProcess("/usr/bin/objdump", ["-p", scratch + "/usr/libexec/pingcli/pingcli"], environment: tools, timeout: 60)
        let sodium = needed.stdout.contains("libsodium.so.23") ? "libsodium23, " : ""
        #expect(
            fields.stdout
                == "Package: pingcli\nDepends: \(sodium)libcurl4, libssl3\nRecommends: libqrencode4, libsecret-1-0, libtss2-esys-3.0.2-0, libtss2-mu0, libtss2-tctildr0, libfido2-1\nSuggests: gnome-keyring\n",
            "\(fields)")
        // Every library pingcli loads with dlopen is named by one of the fields.
        let sources = try FileManager.default.subpathsOfDirectory(atPath: DebianTools.repositoryRoot + "/Sources")
            .filter { $0.hasSuffix(".swift") || $0.hasSuffix(".h") }.filter { !$0.hasPrefix("PingEmulator") && !$0.hasPrefix("CEmulator") }
        let loaded = Set(
            sources.flatMap { path in
                (readText(DebianTools.repositoryRoot + "/Sources/" + path) ?? "").matches(of: #/dlopen\("(lib[a-z0-9-]+)\.so/#).map {
                    String($0.1)
                }
            })
        let packages = [
            "libcurl": "libcurl4", "libcrypto": "libssl3", "libqrencode": "libqrencode4", "libsecret-1": "libsecret-1-0",
            "libtss2-esys": "libtss2-esys-3.0.2-0", "libtss2-mu": "libtss2-mu0", "libtss2-tctildr": "libtss2-tctildr0",
            "libfido2": "libfido2-1",
        ]
        #expect(loaded == Set(packages.keys), "libraries loaded with dlopen: \(loaded.sorted())")
        for (library, package) in packages { #expect(fields.stdout.contains(package), "\(library) comes from \(package)") }
    }

    /// The copyright file is Debian's machine-readable format with LICENSE's full text.
    static func expectCopyright(scratch: String) throws {
        let copyright = try #require(readText(scratch + "/usr/share/doc/pingcli/copyright"))
        #expect(copyright.hasPrefix("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"))
        #expect(
            copyright.contains("\nFiles: *\n")
                && copyright.contains("\nLicense: Apache-2.0\n" + String(repeating: " ", count: 34) + "Apache License\n"),
            "\(copyright.prefix(400))")
        let license = try #require(readText(DebianTools.repositoryRoot + "/LICENSE"))
        #expect(license.contains("Apache License\n                           Version 2.0, January 2004"))
        #expect(copyright.contains(" TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION") && copyright.contains("\n .\n"))
    }

    /// The full binary is stripped, with a debug link to the symbols in the dbgsym package, where gdb
    /// looks for them; returns that package and the debug file's bytes.
    static func expectDebugSymbols(_ package: String, scratch: String, _ sandbox: Sandbox) throws -> (String, Data) {
        let tools = Self.tools
        let full = scratch + "/usr/libexec/pingcli/pingcli"
        let sections = runProcess("/usr/bin/objdump", ["-h", full], environment: tools, timeout: 60)
        #expect(
            sections.status == 0 && !sections.stdout.contains(".debug_info") && sections.stdout.contains(".gnu_debuglink"),
            "\(sections.stdout)")
        let symbols = package.replacingOccurrences(of: "/pingcli_", with: "/pingcli-dbgsym_")
        let link = try Self.debugLink(full, sandbox)
        #expect(link.name == "pingcli.debug", "\(link)")
        let symbolFields = runProcess(
            "/usr/bin/dpkg-deb", ["--field", symbols, "Package", "Depends", "Section"], environment: tools, timeout: 60)
        #expect(
            symbolFields.stdout == "Package: pingcli-dbgsym\nDepends: pingcli (= \(PingCLIVersionForTests.current))\nSection: debug\n",
            "\(symbolFields)")
        let symbolScratch = sandbox.root + "/dbgsym"
        #expect(runProcess("/usr/bin/dpkg-deb", ["-x", symbols, symbolScratch], environment: tools, timeout: 60).status == 0)
        let debugFile = symbolScratch + "/usr/lib/debug/usr/libexec/pingcli/" + link.name
        let debugBytes = try #require(FileManager.default.contents(atPath: debugFile), "\(debugFile) is in the dbgsym package")
        #expect(Self.crc32(Array(debugBytes)) == link.crc, "the debug link's CRC is the installed file's")
        let debugSections = runProcess("/usr/bin/objdump", ["-h", debugFile], environment: tools, timeout: 60)
        #expect(debugSections.stdout.contains(".debug_info"), "\(debugSections.stdout.prefix(300))")
        return (symbols, debugBytes)
    }

    /// dpkg -i into a scratch root with its own (empty) dpkg database, then dpkg -r: nothing is left.
    static func expectInstallsAndRemoves(_ package: String, symbols: String, debugBytes: Data, _ sandbox: Sandbox) throws {
        let tools = Self.tools
        let root = sandbox.root + "/dpkg-root"
        for directory in ["info", "updates", "triggers"] {
            try FileManager.default.createDirectory(atPath: root + "/var/lib/dpkg/" + directory, withIntermediateDirectories: true)
        }
        for file in ["status", "available"] { _ = FileManager.default.createFile(atPath: root + "/var/lib/dpkg/" + file, contents: nil) }
        let dpkg = ["--root=\(root)", "--force-script-chrootless"]
        let installed = runProcess("/usr/bin/dpkg", dpkg + ["--force-depends", "-i", package, symbols], environment: tools, timeout: 120)
        #expect(installed.status == 0, "\(installed)")
        #expect(runProcess(root + "/usr/bin/pingcli", ["--version"], environment: [:], timeout: 30).status == 0)
        #expect(runProcess(root + "/usr/libexec/pingcli/pingcli", ["--version"], environment: [:], timeout: 30).status == 0)
        #expect(FileManager.default.contents(atPath: root + "/usr/lib/debug/usr/libexec/pingcli/pingcli.debug") == debugBytes)
        let removed = runProcess("/usr/bin/dpkg", dpkg + ["-r", "pingcli-dbgsym", "pingcli"], environment: tools, timeout: 120)
        #expect(removed.status == 0, "\(removed)")
        let left = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String }.filter { !$0.hasPrefix("var") } ?? []
        #expect(left.isEmpty, "dpkg -r left \(left)")
    }

    /// The `.gnu_debuglink` section of `binary`: the debug file's name and the CRC-32 of its bytes.
    static func debugLink(_ binary: String, _ sandbox: Sandbox) throws -> (name: String, crc: UInt32) {
        let section = sandbox.root + "/debuglink"
        let dumped = runProcess(
            "/usr/bin/objcopy", ["--dump-section", ".gnu_debuglink=\(section)", binary, sandbox.root + "/objcopy-out"],
            environment: ["PATH": "/usr/bin:/bin"], timeout: 60)
        #expect(dumped.status == 0, "\(dumped)")
        let bytes = try #require(FileManager.default.contents(atPath: section).map(Array.init))
        let name = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        let crc = bytes.suffix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return (name, crc)
    }

    /// CRC-32 (IEEE 802.3, reflected), as the GNU debug link computes it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        let table = (0..<256).map { index -> UInt32 in
            (0..<8).reduce(UInt32(index)) { value, _ in value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        }
        return ~bytes.reduce(~UInt32(0)) { table[Int(($0 ^ UInt32($1)) & 0xFF)] ^ ($0 >> 8) }
    }
}

/// The version the built binary reports, read from its source so the test needs no import of PingCLICore.
enum PingCLIVersionForTests {
    static let current: String = {
        let source = readText(DebianTools.repositoryRoot + "/Sources/PingBase/Version.swift") ?? ""
        return source.split(separator: "\"").dropFirst().first.map(String.init) ?? "?"
    }()
}
