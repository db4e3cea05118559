import Foundation

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
