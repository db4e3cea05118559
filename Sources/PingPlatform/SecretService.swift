import CSecret
import PingBase

#if canImport(Glibc)
    import Glibc
#endif

/// The freedesktop Secret Service (GNOME Keyring, KWallet, KeePassXC) through libsecret, which is
/// loaded with `dlopen` the first time the keyring store needs it, so that no other command maps
/// libsecret or GLib. The only file that talks to libsecret.
public enum SecretService {
    /// Why a call did not give an answer.
    public enum Failure: Error, Equatable {
        /// No session bus, or nothing on it serves org.freedesktop.secrets.
        case unavailable(String)
        /// The item's collection is locked and was not unlocked (the prompt refused, dismissed or impossible).
        case locked
        /// libsecret is not installed.
        case notInstalled
        /// Anything else the service answered (display-safe).
        case failed(String)
    }

    /// Whether this process has a session bus to ask: `DBUS_SESSION_BUS_ADDRESS`, or the socket at
    /// `$XDG_RUNTIME_DIR/bus` that GLib also looks for. Checked before libsecret is loaded, so that
    /// GLib never tries to start a bus of its own (X11 autolaunch).
    package static func hasSessionBus(_ environment: Environment) -> Bool {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return true }
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return false }
        var info = stat()
        return stat(runtime + "/bus", &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK
    }

    /// The secret of the item with these attributes; nil when no such item exists. A locked item is
    /// unlocked if the service can ask the person (a prompt); if it stays locked, `.locked`.
    package static func lookup(_ attributes: [String: String]) throws(Failure) -> String? {
        let library = try Library.loaded()
        var error: UnsafeMutablePointer<pingcli_gerror>?
        let secret = withAttributes(attributes, library) { library.lookup(pingcli_cache_key_schema(), $0, nil, &error) }
        if let error { throw library.failure(error) }
        if let secret {
            defer { library.free(secret) }
            return String(cString: secret)
        }
        // No secret and no error: either no item, or one that stayed locked. Ask without unlocking.
        let items = withAttributes(attributes, library) { library.search(pingcli_cache_key_schema(), $0, 1 << 1, nil, &error) }
        if let error { throw library.failure(error) }
        guard let items else { return nil }
        library.listFreeFull(items, library.objectUnref)
        throw .locked
    }

    /// Stores `secret` under `label` in the default collection, replacing an item with the same attributes.
    package static func store(_ secret: String, label: String, attributes: [String: String]) throws(Failure) {
        let library = try Library.loaded()
        var error: UnsafeMutablePointer<pingcli_gerror>?
        let stored = withAttributes(attributes, library) { library.store(pingcli_cache_key_schema(), $0, nil, label, secret, nil, &error) }
        if let error { throw library.failure(error) }
        // libsecret returns FALSE without an error when an unlock or create prompt was dismissed.
        guard stored != 0 else { throw .locked }
    }

    /// Deletes the items with these attributes (none is not an error).
    package static func clear(_ attributes: [String: String]) throws(Failure) {
        let library = try Library.loaded()
        var error: UnsafeMutablePointer<pingcli_gerror>?
        _ = withAttributes(attributes, library) { library.clear(pingcli_cache_key_schema(), $0, nil, &error) }
        if let error { throw library.failure(error) }
    }

    /// A GHashTable of the attributes for the duration of `body` (the table does not own its strings).
    private static func withAttributes<T>(_ attributes: [String: String], _ library: Library, _ body: (UnsafeMutableRawPointer?) -> T) -> T
    {
        let table = library.hashTableNew(library.stringHash, library.stringEqual)
        let strings = attributes.map { (strdup($0.key), strdup($0.value)) }
        defer {
            library.hashTableUnref(table)
            for (key, value) in strings {
                free(key)
                free(value)
            }
        }
        for (key, value) in strings { _ = library.hashTableInsert(table, key, value) }
        return body(table)
    }

    /// libsecret's functions and the GLib ones its calls need, resolved once.
    private struct Library: @unchecked Sendable {
        let lookup: pingcli_secret_lookup_fn
        let store: pingcli_secret_store_fn
        let clear: pingcli_secret_clear_fn
        let search: pingcli_secret_search_fn
        let free: pingcli_secret_free_fn
        let hashTableNew: pingcli_g_hash_table_new_fn
        let hashTableInsert: pingcli_g_hash_table_insert_fn
        let hashTableUnref: pingcli_g_pointer_fn
        let listFreeFull: pingcli_g_list_free_full_fn
        let objectUnref: UnsafeMutableRawPointer
        let errorFree: pingcli_g_error_free_fn
        let stringHash: UnsafeMutableRawPointer
        let stringEqual: UnsafeMutableRawPointer
        let dbusErrorDomain: UInt32
        let ioErrorDomain: UInt32
        let secretErrorDomain: UInt32

        /// Loaded on first use, once (a static `let` is initialised exactly once, thread-safely).
        private static let shared: Library? = load()

        static func loaded() throws(Failure) -> Library {
            guard let shared else { throw .notInstalled }
            return shared
        }

        private static func load() -> Library? {
            guard let handle = dlopen("libsecret-1.so.0", RTLD_NOW | RTLD_LOCAL) else { return nil }
            // dlsym on libsecret's handle also finds the GLib and GIO functions it depends on.
            func symbol(_ name: String) -> UnsafeMutableRawPointer? { dlsym(handle, name) }
            guard let lookup = symbol("secret_password_lookupv_sync"), let store = symbol("secret_password_storev_sync"),
                let clear = symbol("secret_password_clearv_sync"), let search = symbol("secret_password_searchv_sync"),
                let free = symbol("secret_password_free"), let hashTableNew = symbol("g_hash_table_new"),
                let hashTableInsert = symbol("g_hash_table_insert"), let hashTableUnref = symbol("g_hash_table_unref"),
                let listFreeFull = symbol("g_list_free_full"), let objectUnref = symbol("g_object_unref"),
                let errorFree = symbol("g_error_free"), let stringHash = symbol("g_str_hash"),
                let stringEqual = symbol("g_str_equal"), let dbusQuark = symbol("g_dbus_error_quark"),
                let ioQuark = symbol("g_io_error_quark"), let secretQuark = symbol("secret_error_get_quark")
            else { return nil }
            return Library(
                lookup: unsafeBitCast(lookup, to: pingcli_secret_lookup_fn.self),
                store: unsafeBitCast(store, to: pingcli_secret_store_fn.self),
                clear: unsafeBitCast(clear, to: pingcli_secret_clear_fn.self),
                search: unsafeBitCast(search, to: pingcli_secret_search_fn.self),
                free: unsafeBitCast(free, to: pingcli_secret_free_fn.self),
                hashTableNew: unsafeBitCast(hashTableNew, to: pingcli_g_hash_table_new_fn.self),
                hashTableInsert: unsafeBitCast(hashTableInsert, to: pingcli_g_hash_table_insert_fn.self),
                hashTableUnref: unsafeBitCast(hashTableUnref, to: pingcli_g_pointer_fn.self),
                listFreeFull: unsafeBitCast(listFreeFull, to: pingcli_g_list_free_full_fn.self), objectUnref: objectUnref,
                errorFree: unsafeBitCast(errorFree, to: pingcli_g_error_free_fn.self), stringHash: stringHash,
                stringEqual: stringEqual, dbusErrorDomain: unsafeBitCast(dbusQuark, to: pingcli_g_quark_fn.self)(),
                ioErrorDomain: unsafeBitCast(ioQuark, to: pingcli_g_quark_fn.self)(),
                secretErrorDomain: unsafeBitCast(secretQuark, to: pingcli_g_quark_fn.self)())
        }

        /// Sorts a GError into a failure and frees it. G_DBUS_ERROR 2 SERVICE_UNKNOWN, 3
        /// NAME_HAS_NO_OWNER, 4 NO_REPLY, 13-15 SPAWN_*; any G_IO_ERROR (no bus to connect to);
        /// SECRET_ERROR 2 IS_LOCKED.
        func failure(_ error: UnsafeMutablePointer<pingcli_gerror>) -> Failure {
            defer { errorFree(error) }
            let (domain, code) = (error.pointee.domain, error.pointee.code)
            let message = displaySafe(error.pointee.message.map { String(cString: $0) } ?? "no message", limit: 200)
            if domain == dbusErrorDomain && [2, 3, 4, 13, 14, 15].contains(code) || domain == ioErrorDomain {
                return .unavailable(message)
            }
            if domain == secretErrorDomain && code == 2 { return .locked }
            return .failed(message)
        }
    }
}
