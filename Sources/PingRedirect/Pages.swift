import PingBase

/// The small static pages the browser sees after the redirect: no JavaScript, no external resources,
/// light or dark as the system prefers (`prefers-color-scheme`).
public enum RedirectPage {
    /// Escapes text for HTML element content and attribute values.
    package static func escape(_ text: String) -> String {
        var output = ""
        for scalar in text.unicodeScalars {
            if let entity = entities[scalar] { output += entity } else { output.unicodeScalars.append(scalar) }
        }
        return output
    }

    /// The characters HTML gives a meaning to, as entities.
    static let entities: [Unicode.Scalar: String] = ["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;"]

    /// A whole page: a heading and paragraphs (already escaped), light or dark as the system prefers.
    package static func render(title: String, paragraphs: [String], success: Bool) -> String {
        let (light, dark) = success ? ("#1a7f37", "#3fb950") : ("#b42318", "#ff7b72")
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>pingcli: \(escape(title))</title>
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <style>
            body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;line-height:1.5;
            color:#1f2328;background:#ffffff}
            h1{color:\(light);font-size:1.5rem}
            .detail{display:block;padding:.75rem 1rem;border-radius:6px;background:#f6f8fa;overflow-wrap:anywhere}
            @media (prefers-color-scheme: dark){body{color:#e6edf3;background:#0d1117}h1{color:\(dark)}.detail{background:#161b22}}
            </style></head>
            <body><h1>\(escape(title))</h1>
            \(paragraphs.map { "<p>\($0)</p>" }.joined(separator: "\n"))
            </body></html>

            """
    }

    package static func render(title: String, message: String, success: Bool) -> String {
        render(title: title, paragraphs: [escape(message)], success: success)
    }

    /// The page after a successful sign-in: the account (from the ID token), the provider and the
    /// profile; never a token or the code.
    public static func signedIn(profile: String?, provider: String?, account: String? = nil) -> String {
        var first = "You are signed in"
        if let account { first += " as <strong>\(escape(displaySafe(account, limit: 80)))</strong>" }
        if let provider {
            // The issuer's host is what a person recognises (auth.pingone.com), not the whole URL.
            let host = provider.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first.map(String.init) ?? provider
            first += " at <strong>\(escape(displaySafe(host, limit: 120)))</strong>"
        }
        if let profile { first += " for pingcli profile <strong>\(escape(profile))</strong>" }
        return render(
            title: "Signed in",
            paragraphs: [first + ".", "pingcli has the tokens. You can close this tab and go back to the terminal."],
            success: true)
    }

    public static let signedIn = signedIn(profile: nil, provider: nil)

    /// The page after a callback that ends the sign-in with an error: what happened in plain sentences,
    /// the provider's own words cleaned of markup and escape remnants, and what to do.
    public static func failed(_ message: String) -> String {
        render(
            title: "Sign-in failed",
            paragraphs: [
                "The sign-in did not complete. pingcli reports:",
                "<span class=\"detail\">\(escape(sentence(plainText(message))))</span>",
                "Go back to the terminal: it shows the same message and what to do next. You can close this tab.",
            ], success: false)
    }

    /// Text a server wrote for HTML or JSON, made plain: entities decoded, tags and backslash escapes
    /// removed, whitespace collapsed, and nothing that acts on a terminal (`displaySafe`).
    package static func plainText(_ text: String) -> String {
        var decoded = text
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&#x27;", "'"), ("&amp;", "&")] {
            decoded = decoded.replacingText(entity, with: character)
        }
        var output = ""
        var inTag = false
        var scalars = decoded.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            if inTag {
                if scalar == ">" { inTag = false }
                continue
            }
            switch scalar {
            case "<": inTag = true
            case "\\":
                // \n, \t, \", \u0041…: the remnants of JSON or C escaping shown as text.
                guard let next = scalars.next() else { break }
                switch next {
                case "n", "t", "r": output += " "
                case "u": for _ in 0..<4 { _ = scalars.next() }
                default: output.unicodeScalars.append(next)
                }
            default: output.unicodeScalars.append(scalar)
            }
        }
        return displaySafe(output.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).joined(separator: " "), limit: 400)
    }

    /// One sentence: a capital first letter and a full stop.
    package static func sentence(_ text: String) -> String {
        guard let first = text.first else { return text }
        let body = first.uppercased() + text.dropFirst()
        return body.hasSuffix(".") || body.hasSuffix("!") || body.hasSuffix("?") || body.hasSuffix("…") ? body : body + "."
    }

    public static func ignored(_ message: String) -> String {
        render(
            title: "Not accepted", paragraphs: [escape(sentence(message)), "pingcli is still waiting for the sign-in to finish."],
            success: false)
    }

    public static let signedOut = render(
        title: "Signed out", message: "The session has ended. You can close this tab and go back to the terminal.", success: true)

    public static let notFound = render(
        title: "Not found", message: "This is pingcli's one-time sign-in listener; nothing else lives here.", success: false)
}
