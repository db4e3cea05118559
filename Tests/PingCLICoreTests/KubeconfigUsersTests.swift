import Testing

@testable import PingCommands
@testable import PingIntegrations

/// The kubeconfig text editor of `setup kubectl` and the gates for kubectl's answers.
@Suite("kubeconfig users")
struct KubeconfigUsersTests {
    static let entry = KubeconfigUsers.ExecEntry(
        name: "pingcli-k8s", apiVersion: "client.authentication.k8s.io/v1", command: "/usr/bin/pingcli",
        args: ["token", "--profile", "k8s"], env: [("PINGCLI_ISSUER", "https://idp.example.com/as")])
    static let rendered = entry.lines().joined(separator: "\n") + "\n"

    static let kubectlStyle = """
        apiVersion: v1
        clusters:
        - cluster:
            server: https://k8s.example.com
          name: prod
        # who signs in
        users:
        - name: admin
          user:
            token: abc
        - user:
            exec: {command: old}
          name: 'pingcli-k8s'

        contexts: []

        """

    @Test("kubeconfig-users-add: a missing file, one without users, users: [] and a block list each get the entry, every other line kept")
    func adds() throws {
        let added = "users: # added by pingcli setup kubectl\n"
        #expect(try KubeconfigUsers.upsert(Self.entry, into: "") == (added + Self.rendered, .added))
        let noUsers = "apiVersion: v1\nkind: Config\n"
        #expect(try KubeconfigUsers.upsert(Self.entry, into: noUsers) == (noUsers + added + Self.rendered, .added))
        #expect(
            try KubeconfigUsers.upsert(Self.entry, into: "kind: Config\nusers: [] # none yet\ncontexts: []\n")
                == ("kind: Config\nusers: # pingcli setup kubectl; was: users: [] # none yet\n" + Self.rendered + "contexts: []\n", .added))
        #expect(
            try KubeconfigUsers.upsert(Self.entry, into: "users: null\n")
                == ("users: # pingcli setup kubectl; was: users: null\n" + Self.rendered, .added))
        let other = "users:\n- name: admin\n  user:\n    token: abc\n\ncontexts: []\n"
        #expect(
            try KubeconfigUsers.upsert(Self.entry, into: other)
                == ("users:\n- name: admin\n  user:\n    token: abc\n" + Self.rendered + "\ncontexts: []\n", .added))
    }

    @Test(
        "kubeconfig-users-remove-restores: the last item removed gives back the file as it was before setup: no users key, the person's empty list (with its comment), or users: [] when kubectl rewrote the key"
    )
    func removeRestores() throws {
        let ours: (ArraySlice<String>, Int) -> Bool = { _, _ in true }
        for original in [
            "", "apiVersion: v1\nkind: Config\n", "apiVersion: v1\nkind: Config\n\n", "kind: Config\nusers: [] # none yet\ncontexts: []\n",
            "users: null\n", "users: ~\nkind: Config\n",
        ] {
            let (written, outcome) = try KubeconfigUsers.upsert(Self.entry, into: original)
            #expect(outcome == .added)
            let removed = try KubeconfigUsers.remove(named: Self.entry.name, from: written, isOurs: ours)
            #expect(
                removed?.ours == true && removed?.text == original,
                "\(original.debugDescription) → \(removed?.text.debugDescription ?? "nil")")
        }
        // The key as kubectl rewrites it (no comment): an empty list.
        let rewritten = "kind: Config\nusers:\n" + Self.rendered
        #expect(try KubeconfigUsers.remove(named: Self.entry.name, from: rewritten, isOurs: ours)?.text == "kind: Config\nusers: []\n")
    }

    @Test(
        "kubeconfig-users-replace: the item of the same name (quoted, name after user) is replaced in place; the same entry again is unchanged"
    )
    func replaces() throws {
        let (text, outcome) = try KubeconfigUsers.upsert(Self.entry, into: Self.kubectlStyle)
        #expect(outcome == .replaced)
        let expected = Self.kubectlStyle.replacing("- user:\n    exec: {command: old}\n  name: 'pingcli-k8s'\n", with: Self.rendered)
        #expect(text == expected, "\(text)")
        #expect(try KubeconfigUsers.upsert(Self.entry, into: text) == (text, .unchanged))
        // A list indented under its key keeps its indentation.
        let indented = "users:\n  - name: x\n    user: {}\n"
        let (result, added) = try KubeconfigUsers.upsert(Self.entry, into: indented)
        #expect(added == .added && result == indented + Self.entry.lines(indent: 2).joined(separator: "\n") + "\n")
        #expect(try KubeconfigUsers.upsert(Self.entry, into: result).outcome == .unchanged)
    }

    @Test("kubeconfig-users-refused: JSON, a flow list, two users keys, tabs, CR LF and odd indentation are refused, not guessed at")
    func refuses() {
        for text in [
            #"{"kind": "Config", "users": []}"#, "users: [{name: a}]\n", "users:\n- name: a\nusers:\n- name: b\n",
            "users:\n- name: a\n\tuser: {}\n", "users:\r\n- name: a\r\n", "users:\n  - name: a\n user: {}\n", "---\nusers: []\n",
        ] {
            #expect(throws: KubeconfigUsers.Unsupported.self, "\(text)") { try KubeconfigUsers.upsert(Self.entry, into: text) }
        }
    }

    @Test("kubeconfig-users-quoting: names, values and arguments with quotes, colons, # and control characters are written as JSON strings")
    func quoting() {
        var entry = Self.entry
        entry.name = "a: b # \"c\""
        entry.env = [("PINGCLI_CA_FILE", "/tmp/x\ny")]
        let lines = entry.lines()
        #expect(lines[0] == #"- name: "a: b # \"c\"""#)
        #expect(lines.contains(#"        value: "/tmp/x\ny""#))
        #expect(KubeconfigUsers.name(of: ["- name: \"a: b # \\\"c\\\"\""], indent: 0) == "a: b # \"c\"")
        #expect(KubeconfigUsers.name(of: ["- name: plain # comment"], indent: 0) == "plain")
    }

    @Test("kubectl-version-gate: kubectl version -o json gives major and minor (a vendor's 32+ too); anything else is refused")
    func versionGate() throws {
        #expect(try KubectlAnswer.clientVersion(Array(#"{"clientVersion":{"major":"1","minor":"20"}}"#.utf8)) == (1, 20))
        #expect(try KubectlAnswer.clientVersion(Array(#"{"clientVersion":{"major":"1","minor":"32+"}}"#.utf8)) == (1, 32))
        for text in [
            "Client Version: v1.20.2", #"{"clientVersion":{"major":"1"}}"#, #"{"clientVersion":{"major":"1","minor":"-3"}}"#,
            #"{"clientVersion":{"major":1,"minor":22}}"#, #"{"clientVersion":{"major":"1","minor":"99999"}}"#,
        ] {
            #expect(throws: KubectlAnswer.Refused.self, "\(text)") { try KubectlAnswer.clientVersion(Array(text.utf8)) }
        }
    }

    @Test(
        "kubectl-view-gate: kubectl config view -o json gives each user's name, exec command and args; null users are none; anything else is refused"
    )
    func viewGate() throws {
        let view =
            #"{"kind":"Config","users":[{"name":"a","user":{"exec":{"command":"/p","args":["x","y"]}}},{"name":"b","user":{"token":"REDACTED"}}]}"#
        #expect(
            try KubectlAnswer.users(Array(view.utf8)) == [
                .init(name: "a", command: "/p", args: ["x", "y"]), .init(name: "b", command: nil, args: []),
            ])
        #expect(try KubectlAnswer.users(Array(#"{"kind":"Config","users":null}"#.utf8)) == [])
        #expect(
            try KubectlAnswer.user(named: "b", Array(view.utf8))
                == .object(["name": .string("b"), "user": .object(["token": .string("REDACTED")])]))
        #expect(try KubectlAnswer.user(named: "c", Array(view.utf8)) == nil)
        for text in [
            "not json", #"{"kind":"Pod","users":[]}"#, #"{"kind":"Config","users":{}}"#, #"{"kind":"Config","users":[{"user":{}}]}"#,
            #"{"kind":"Config","users":[{"name":"a","user":{"exec":{"args":[1]}}}]}"#,
        ] {
            #expect(throws: KubectlAnswer.Refused.self, "\(text)") { try KubectlAnswer.users(Array(text.utf8)) }
            if text.contains("exec") { continue }
            #expect(throws: KubectlAnswer.Refused.self, "\(text)") { try KubectlAnswer.user(named: "a", Array(text.utf8)) }
        }
    }
}
