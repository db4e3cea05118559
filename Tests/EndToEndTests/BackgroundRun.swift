import Foundation
import PingEmulator
import Testing

/// pingcli running in the background with the URL-recording browser (`Tests/Support/record-url`), so a
/// test decides itself when, and by whom, the URL it opened is visited.
final class BackgroundRun: Sendable {
    private let result = Locked<CLIRun?>(nil)
    private let finished = DispatchGroup()
    /// The URL pingcli handed to the browser; empty if none came within a minute or the run ended first.
    let url: String

    init(_ sandbox: Sandbox, _ arguments: [String]) {
        let urlFile = sandbox.root + "/url-\(UUID().uuidString)"
        let result = self.result
        let finished = self.finished
        finished.enter()
        Thread {
            let run = sandbox.run(
                arguments, environment: ["PINGCLI_BROWSER": Locations.support + "/record-url", "RECORD_URL_FILE": urlFile], timeout: 90)
            result.withLock { $0 = run }
            finished.leave()
        }.start()
        var url = ""
        // Up to a minute: sanitizer builds start slowly. Stop early if the run already ended.
        for _ in 0..<3000 where url.isEmpty && result.withLock({ $0 == nil }) {
            url = readText(urlFile) ?? ""
            usleep(20_000)
        }
        self.url = url
    }

    /// The value of query parameter `name` in the URL pingcli opened (nil when absent, or no URL came).
    func parameter(_ name: String) -> String? { URLComponents(string: url)?.queryItems?.first { $0.name == name }?.value }

    /// The run's result if it has ended, without waiting.
    var ended: CLIRun? { result.withLock { $0 } }

    /// Waits for the run to end.
    func wait() -> CLIRun {
        finished.wait()
        return result.withLock { $0 }!
    }

    /// What the run printed so far, for failure messages.
    var progress: String { ended?.stderr ?? "nothing yet" }
}
