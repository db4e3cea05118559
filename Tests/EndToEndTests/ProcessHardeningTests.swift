import Foundation
import LoopbackClient
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The owner of /proc/PID/status: the process's user, or root (0) when the process is not dumpable.
func procOwner(_ pid: pid_t) -> uid_t? {
    var info = stat()
    return stat("/proc/\(pid)/status", &info) == 0 ? info.st_uid : nil
}

/// Every regular file under `directory`, recursively.
func filesUnder(_ directory: String) -> [String] {
    guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
    return enumerator.compactMap { $0 as? String }.map { directory + "/" + $0 }.filter { path in
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }
}

/// Commands run by bash with `ulimit -c unlimited` in a sandbox. As root, /proc ownership says nothing
/// (root owns root's processes either way), so they run as nobody, whose dumpable processes' /proc files
/// belong to nobody and non-dumpable ones' to root; nobody may not enter the checkout (a clone under
/// /root, mode 0700), so it runs a copy of the binary in a directory of its own, whatever the umask.
struct UnlimitedCores {
    let sandbox: Sandbox
    let runAs: [String]
    let user: uid_t
    let pingcli: String
    /// Where the copy is (removed by the test).
    let binDirectory: String

    init(_ sandbox: Sandbox) throws {
        self.sandbox = sandbox
        let asRoot = geteuid() == 0
        runAs = asRoot ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
        user = asRoot ? 65534 : geteuid()
        binDirectory = sandbox.root + "-bin"
        pingcli = asRoot ? binDirectory + "/pingcli" : Locations.pingcli
        guard asRoot else { return }
        try FileManager.default.createDirectory(atPath: binDirectory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Locations.pingcli, toPath: pingcli)
        let chown = runProcess("/bin/chown", ["-R", "65534:65534", sandbox.root, binDirectory], environment: [:], timeout: 30)
        #expect(chown.status == 0, "\(chown)")
        #expect(chmod(sandbox.root, 0o700) == 0 && chmod(binDirectory, 0o700) == 0 && chmod(pingcli, 0o700) == 0)
    }

    func start(_ command: [String]) -> pid_t {
        let script = "ulimit -c unlimited; cd \"$1\"; shift; exec \"$@\""
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { close(null) }
        let arguments = Array(runAs.dropFirst()) + ["/bin/bash", "-c", script, "bash", sandbox.root] + command
        let path = runAs.first ?? "/bin/bash"
        let (pid, error) = spawnProcess(
            path, runAs.isEmpty ? Array(arguments.dropFirst()) : arguments, environment: sandbox.environment, stdout: null,
            stderr: null, defaultSignals: true)
        #expect(error == 0)
        return pid
    }

    func abortAndWait(_ pid: pid_t) -> Int32 {
        kill(pid, SIGABRT)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return status
    }

    /// The observable works: a dumpable process of that user owns its /proc files (its core is removed).
    func expectDumpableOwnsItsFiles() {
        let control = start(["/bin/sleep", "30"])
        var controlOwner: uid_t? = nil
        for _ in 0..<500 {
            if let owner = procOwner(control), readText("/proc/\(control)/comm") == "sleep\n" {
                controlOwner = owner
                break
            }
            usleep(10_000)
        }
        #expect(controlOwner == user)
        _ = abortAndWait(control)
        for path in filesUnder(sandbox.root) where path.hasPrefix(sandbox.root + "/core") { unlink(path) }
    }
}

@Suite("local hardening: the process")
struct ProcessHardeningTests {
    @Test(
        "no-core-dump: SIGABRT during userinfo, with ulimit -c unlimited, writes no core: the process is non-dumpable (its /proc files belong to root) and no file holds a token"
    )
    func noCoreDump() throws {
        let (emulator, sandbox) = try loggedIn()
        emulator.faults = Faults(delays: [.userinfo: 60])  // pingcli sits in the request, the access token in memory
        let cores = try UnlimitedCores(sandbox)
        defer { try? FileManager.default.removeItem(atPath: cores.binDirectory) }
        cores.expectDumpableOwnsItsFiles()

        let before = emulator.arrivedRequestCount
        let pid = cores.start([cores.pingcli, "userinfo"])
        var arrived = false
        for _ in 0..<3000 {
            if emulator.arrivedRequestCount > before {
                arrived = true
                break
            }
            usleep(10_000)
        }
        #expect(arrived, "pingcli reached the userinfo endpoint")
        #expect(readText("/proc/\(pid)/comm") == "pingcli\n")
        #expect(procOwner(pid) == 0, "non-dumpable: the kernel gives its /proc files to root")
        let status = cores.abortAndWait(pid)
        #expect(status & 0x7F == SIGABRT, "killed by SIGABRT")
        #expect(status & 0x80 == 0, "the kernel reports no core dump")
        let files = filesUnder(sandbox.root)
        #expect(!files.contains { ($0 as NSString).lastPathComponent.hasPrefix("core") }, "\(files)")
        let secrets = emulator.issuedAccessTokens + emulator.issuedRefreshTokens
        for path in files {
            let text = readText(path) ?? ""
            for secret in secrets { #expect(!text.contains(secret), "\(path) holds a token") }
        }
    }
}

@Suite("local hardening: the loopback listener under a flood")
struct ListenerFloodTests {
    @Test(
        "listener-flood: another local user opening up to 500 idle connections a second, each held 10 s, does not keep the browser's callback out"
    )
    func flood() throws {
        let waiting = try WaitingLogin(timeout: 40)
        let (background, port) = (waiting.login, waiting.port)

        // The flood, as an attacker runs it: non-blocking connects (so a full backlog does not slow the
        // attacker down), a new idle connection every 2 ms (up to 500 a second), each held open for 10 s,
        // until the login is over (at most 45 s and 25 000 connections).
        let stop = Locked(false)
        let opened = Locked(0)
        let finished = DispatchGroup()
        finished.enter()
        Thread {
            defer { finished.leave() }
            var held: [(descriptor: Int32, since: Date)] = []
            let start = Date()
            while !stop.withLock({ $0 }) && Date().timeIntervalSince(start) < 45 && opened.withLock({ $0 }) < 25_000 {
                let descriptor = openConnection(port: port, waiting: false)
                if descriptor >= 0 {
                    held.append((descriptor, Date()))
                    opened.withLock { $0 += 1 }
                }
                while let first = held.first, Date().timeIntervalSince(first.since) > 10 {
                    close(first.descriptor)
                    held.removeFirst()
                }
                usleep(2_000)
            }
            for connection in held { close(connection.descriptor) }
        }.start()
        // Let the flood fill the listener's table and the kernel's backlog before the browser arrives.
        while opened.withLock({ $0 }) < 1_000 && background.ended == nil { usleep(10_000) }
        let browser = waiting.signIn(timeout: 60)
        let login = background.wait()
        stop.withLock { $0 = true }
        finished.wait()
        #expect(browser.status == 0, "\(browser)")
        #expect(login.status == 0, "\(login)")
        #expect(opened.withLock { $0 } >= 1_000, "the flood ran")
        #expect(waiting.sandbox.run(["token", "--raw"]).stdout == waiting.emulator.newestTokenLine)
    }
}
