// A mutual-exclusion lock (pthread mutex) for the host's shared state.

#if canImport(Glibc)
import Glibc
#endif

/// @unchecked Sendable: a pthread mutex is made to be shared between threads; the pointer never changes.
public final class Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }
    /// Takes the lock if it is free; false when another thread holds it.
    public func tryLock() -> Bool { pthread_mutex_trylock(mutex) == 0 }

    @inline(__always)
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A lock many threads may hold for reading at once, and one for writing alone (pthread rwlock).
/// @unchecked Sendable: a pthread rwlock is made to be shared between threads; the pointer never changes.
public final class ReadWriteLock: @unchecked Sendable {
    private let rwlock: UnsafeMutablePointer<pthread_rwlock_t>

    public init() {
        rwlock = .allocate(capacity: 1)
        rwlock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(rwlock, nil)
    }

    deinit {
        pthread_rwlock_destroy(rwlock)
        rwlock.deallocate()
    }

    @inline(__always)
    public func withReadLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_rwlock_rdlock(rwlock)
        defer { pthread_rwlock_unlock(rwlock) }
        return try body()
    }

    @inline(__always)
    public func withWriteLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_rwlock_wrlock(rwlock)
        defer { pthread_rwlock_unlock(rwlock) }
        return try body()
    }
}

/// A lock the thread holding it may take again (plugin creation: a plugin's create may invoke
/// another plugin, which is created on the same thread).
/// @unchecked Sendable: a pthread mutex is made to be shared between threads; the pointer never changes.
public final class RecursiveLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }
}
