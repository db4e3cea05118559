/// The small static pages the browser sees after the redirect: no JavaScript, no external resources.
public enum RedirectPage {
    /// Escapes text for HTML element content and attribute values.
    static func escape(_ text: String) -> String {
        var output = ""
        for character in text {
            switch character {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&#39;"
            default: output.append(character)
            }
        }
        return output
    }

    static func render(title: String, message: String, success: Bool) -> String {
        let colour = success ? "#1a7f37" : "#b42318"
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>pingcli: \(escape(title))</title>
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1f2328}
            h1{color:\(colour);font-size:1.5rem}</style></head>
            <body><h1>\(escape(title))</h1><p>\(escape(message))</p></body></html>

            """
    }

    public static let signedIn = render(
        title: "Signed in", message: "pingcli has your sign-in. You can close this tab and go back to the terminal.",
        success: true)

    public static func failed(_ message: String) -> String {
        render(title: "Sign-in failed", message: message + " Go back to the terminal for details.", success: false)
    }

    public static func ignored(_ message: String) -> String {
        render(title: "Not accepted", message: message + " pingcli is still waiting for the sign-in to finish.", success: false)
    }

    public static let signedOut = render(
        title: "Signed out", message: "The session has ended. You can close this tab and go back to the terminal.", success: true)

    public static let notFound = render(
        title: "Not found", message: "This is pingcli's one-time sign-in listener; nothing else lives here.", success: false)
}
