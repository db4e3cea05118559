/// Every environment variable pingcli reads for its users, in one table: the man page's ENVIRONMENT
/// section is rendered from it, and a test checks that each `PINGCLI_*` name in the built binary is here
/// (the `PINGCLI_TEST_*` switches are for tests and listed in docs/testing.md instead).
package enum EnvironmentVariables {
    package static let table: [(names: String, meaning: String)] = [
        ("PINGCLI_PROFILE", "the profile when --profile is not given (else the current profile, else default)"),
        ("PINGCLI_ISSUER", "login's --issuer when it is not given"),
        ("PINGCLI_CLIENT_ID", "login's --client-id when it is not given"),
        ("PINGCLI_CA_FILE", "login's --ca-file when it is not given: a PEM CA bundle, saved with the profile"),
        ("PINGCLI_CLIENT_SECRET", "a confidential client's secret when --client-secret-file is not given (never a flag's value)"),
        ("PINGCLI_BROWSER", "the command that opens the sign-in URL (default: $BROWSER, else the Windows browser on WSL, else xdg-open)"),
        ("BROWSER", "the browser when PINGCLI_BROWSER is not set: the first of a colon-separated list, %s standing for the URL"),
        (
            "PINGCLI_KEY_STORE",
            "where the cache key lives: keyring (the Secret Service), file or command (default: the store that holds it)"
        ),
        ("PINGCLI_KEY_COMMAND", "a shell command that prints the cache key, instead of the key file"),
        ("PINGCLI_KEY_COMMAND_TIMEOUT", "seconds PINGCLI_KEY_COMMAND may take (default 30)"),
        (
            "PINGCLI_DEVICE_KEY_ALGORITHM",
            "ES256 or RS512: the algorithm of the keys a journey's Device Binding step creates (default: ES256 where the TPM has P-256, else RS512)"
        ),
        ("PINGCLI_GIT_USERNAME", "git-credential's username when the URL has none (default oauth2)"),
        (
            "KUBERNETES_EXEC_INFO",
            "set by kubectl for token --format exec-credential: the ExecCredential version it wants, and whether it is interactive (spec.interactive)"
        ),
        (
            "PINGCLI_HELPER_LOGIN",
            "never: token --format exec-credential and git-credential never sign in, even on a terminal (default auto: they sign in when the caller is interactive)"
        ),
        (
            "GIT_TERMINAL_PROMPT",
            "read from git: 0 (or false, no, off) keeps git-credential from signing in, as it keeps git from prompting"
        ),
        (
            "TPM2TOOLS_TCTI",
            "the TPM 2.0 a journey's device step, otp and devices use, as tpm2-tools reads it (swtpm:host=127.0.0.1,port=2321, device:/dev/tpmrm0); unset: /dev/tpmrm0 or /dev/tpm0 when you may open it"
        ),
        ("KUBECONFIG", "setup kubectl: its first file is the kubeconfig written when --kubeconfig is not given (else ~/.kube/config)"),
        ("COLUMNS", "the width help is laid out to when stdout is not a terminal (default 80)"),
        ("PINGCLI_HTTP_TIMEOUT", "--http-timeout when it is not given: the longest one HTTP request may take, in seconds (default 30)"),
        ("CURL_CA_BUNDLE, SSL_CERT_FILE", "a CA bundle when neither --ca-file nor the profile names one"),
        ("https_proxy, HTTPS_PROXY, http_proxy, ALL_PROXY, NO_PROXY", "proxies, as libcurl reads them"),
        ("XDG_CONFIG_HOME, XDG_DATA_HOME", "the bases of the config directory (~/.config) and of the key's (~/.local/share)"),
    ]
}
