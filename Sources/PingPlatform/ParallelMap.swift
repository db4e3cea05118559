#if canImport(Glibc)
    import Glibc
#endif

/// `items.map(transform)` on up to one thread per online core (at most four), for lists long enough to
/// pay for the threads: `status --all` and `profiles` read and check every profile, and a thousand of
/// them took about 60 ms on one core (docs/performance.md). The results keep the order of `items`.
/// `transform` must be safe to run on several threads at once. `sharingPathChecks`: each thread's items
/// are one group of reads (`FileSystem.beginSharedPathChecks`), so a directory above the files of many
/// items is judged once per thread, not once per item; only for reads made one after the other, with no
/// lock or network wait among them (`status --all`, `profiles`).
package func parallelMap<Item: Sendable, Result: Sendable>(
    _ items: [Item], minimumPerThread: Int = 32, sharingPathChecks: Bool = false,
    _ transform: @escaping @Sendable (Item) -> Result
) -> [Result] {
    let cores = max(1, min(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 4))
    let threads = min(cores, items.count / minimumPerThread)
    guard threads > 1 else {
        let began = sharingPathChecks && FileSystem.beginSharedPathChecks()
        defer { FileSystem.endSharedPathChecks(began) }
        return items.map(transform)
    }
    let slots = ResultSlots<Result>(count: items.count)
    // Each thread takes the next chunk of items until none are left, not a fixed share: on a virtual
    // machine a new thread may start milliseconds late (or only when the first yields its core), and a
    // fixed half would then wait for it; taken this way, the work is never slower than on one thread.
    let chunks = ChunkCounter(count: items.count, chunk: max(1, min(16, items.count / (threads * 8))))
    let work: [@Sendable () -> Void] = (0..<threads).map { _ in
        {
            let began = sharingPathChecks && FileSystem.beginSharedPathChecks()
            defer { FileSystem.endSharedPathChecks(began) }
            while let range = chunks.next() {
                for index in range { slots.store(transform(items[index]), at: index) }
            }
        }
    }
    var started: [pthread_t] = []
    for job in work.dropFirst() {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(ThreadJob(job)).toOpaque()
        if pthread_create(&thread, nil, { ThreadJob.run($0) }, context) == 0 {
            started.append(thread)
        } else {
            // No thread to be had: do its share here.
            Unmanaged<ThreadJob>.fromOpaque(context).release()
            job()
        }
    }
    work[0]()
    for thread in started { pthread_join(thread, nil) }
    return slots.results()
}

/// One slot per item, each written by exactly one thread before the threads are joined (plain memory:
/// an array property would be a shared, exclusivity-checked and copy-on-write value).
private final class ResultSlots<Result>: @unchecked Sendable {
    private let base: UnsafeMutablePointer<Result?>
    private let count: Int

    init(count: Int) {
        self.count = count
        base = .allocate(capacity: count)
        base.initialize(repeating: nil, count: count)
    }

    func store(_ result: Result, at index: Int) { base[index] = result }

    /// The results, moved out (a report is a large value: copying each costs a retain of every field).
    /// Called once.
    func results() -> [Result] {
        taken = true
        return (0..<count).map { (base + $0).move()! }
    }

    private var taken = false

    deinit {
        if !taken { base.deinitialize(count: count) }
        base.deallocate()
    }
}

/// The next chunk of indices to take, under a lock (a few dozen takes for a thousand items).
private final class ChunkCounter: @unchecked Sendable {
    private let count: Int
    private let chunk: Int
    private var taken = 0
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init(count: Int, chunk: Int) {
        (self.count, self.chunk) = (count, chunk)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func next() -> Range<Int>? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard taken < count else { return nil }
        let range = taken..<min(count, taken + chunk)
        taken = range.upperBound
        return range
    }
}

/// A closure handed to `pthread_create`.
private final class ThreadJob: Sendable {
    let job: @Sendable () -> Void

    init(_ job: @escaping @Sendable () -> Void) { self.job = job }

    static func run(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
        Unmanaged<ThreadJob>.fromOpaque(context!).takeRetainedValue().job()
        return nil
    }
}
