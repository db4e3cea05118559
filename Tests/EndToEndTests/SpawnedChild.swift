import Foundation
import LoopbackClient

#if canImport(Glibc)
    import Glibc
#endif

/// A child process a test started: collected once (after waitpid its pid may belong to another
/// process), and killed if the test ends before it does.
final class SpawnedChild {
    let pid: pid_t
    private var reaped = false
    private var collected: Int32 = 0

    init(_ pid: pid_t) { self.pid = pid }

    deinit { stop() }

    /// True once the child has ended (and been collected).
    func exited() -> Bool {
        if !reaped && waitpid(pid, &collected, WNOHANG) == pid { reaped = true }
        return reaped
    }

    /// Kills the child unless it has been collected, and collects it.
    func stop() {
        guard !reaped else { return }
        kill(pid, SIGKILL)
        waitpid(pid, &collected, 0)
        reaped = true
    }

    /// Waits for the child to end, killing it after `timeout` seconds; `between` runs between looks (it
    /// reads the child's output, or sleeps). Returns its status as a shell reports it.
    func finish(timeout: Double, between: () -> Void) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while !exited() {
            if Date() > deadline {
                stop()
                break
            }
            between()
        }
        return shellStatus(collected)
    }
}

/// Waits for a server a test spawned to accept connections on 127.0.0.1:`port`, looking every 20 ms at
/// most `looks` times (a bound on a real process starting, not a timed assertion). True once it accepts;
/// false when it exited first (it is collected) or never accepted (it is killed and collected).
func awaitListening(_ pid: pid_t, port: UInt16, looks: Int) -> Bool {
    var status: Int32 = 0
    for _ in 0..<looks {
        let probe = openConnection(port: port)
        if probe >= 0 {
            close(probe)
            return true
        }
        if waitpid(pid, &status, WNOHANG) == pid { return false }
        usleep(20_000)
    }
    kill(pid, SIGKILL)
    waitpid(pid, &status, 0)
    return false
}
