/// Sends the user's browser somewhere and waits on the loopback listener for it to come back: shared
/// by login (the authorization redirect) and logout (the post-logout redirect).
struct BrowserRoundTrip {
    let console: Console
    let browser: any BrowserLauncher
    let openBrowser: Bool
    let timeout: Double

    /// Opens `url` (or asks the user to), then serves `listener` until `handle` finishes or time runs out.
    /// `purpose` completes "to …" in the messages. Returns false on timeout.
    func run(url: String, purpose: String, listener: LoopbackListener, handle: (LoopbackRequest) -> LoopbackReply) -> Bool {
        var launched: (any BrowserProcess)? = nil
        if openBrowser {
            console.err("Opening your browser to \(purpose)")
            console.err("If it does not open, visit this URL on this machine:\n\n  \(url)\n")
            switch browser.open(url) {
            case .success(let process): launched = process
            case .failure(let error): console.err("pingcli: \(error.reason): open the URL above in a browser yourself")
            }
        } else {
            console.err("Open this URL in a browser on this machine to \(purpose):\n\n  \(url)\n")
        }
        console.err("Waiting up to \(Int(timeout)) s (Ctrl-C to cancel)…")
        return listener.serve(
            until: MonotonicClock.now() + timeout,
            tick: {
                if let process = launched, let status = process.exitStatus() {
                    launched = nil
                    if status != 0 {
                        console.err("pingcli: the browser launcher exited with status \(status): open the URL above in a browser yourself")
                    }
                }
            },
            handle: handle)
    }
}
