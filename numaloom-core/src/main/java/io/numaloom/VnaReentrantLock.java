package io.numaloom;

import java.io.ObjectStreamException;
import java.io.Serial;
import java.io.Serializable;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link ReentrantLock} whose locking is a {@link VnaLock}'s: for code that types its lock {@code ReentrantLock}
 * (a field, a parameter, a library's API, a class that extends it) and cannot be changed to {@code Lock}, and for
 * numaloom's agent, which turns {@code new ReentrantLock()} into {@code new VnaReentrantLock()} without touching the
 * application's source.
 *
 * <pre>{@code
 * ReentrantLock lock = new VnaReentrantLock();   // where the type must stay ReentrantLock
 * }</pre>
 *
 * <p>Every method of {@code ReentrantLock} that a subclass can override is overridden with {@code VnaLock}'s
 * semantics: {@link #lock()}, {@link #lockInterruptibly()}, both {@link #tryLock()}s, {@link #unlock()},
 * {@link #newCondition()} (a {@code VnaLock} condition), the hold count and ownership, {@link #getOwner()},
 * {@link #getQueuedThreads()}, {@link #hasWaiters(Condition)}, {@link #getWaitQueueLength(Condition)},
 * {@link #getWaitingThreads(Condition)} and {@link #toString()}. Its fairness is {@code VnaLock}'s: it lets newcomers
 * barge, as an unfair {@code ReentrantLock} does, within a bound in time ({@link VnaLock#PATIENCE_NANOS}).
 *
 * <p><b>What it cannot override.</b> {@code ReentrantLock} declares four monitoring methods {@code final}:
 * {@link #isFair()}, {@link #hasQueuedThreads()}, {@link #hasQueuedThread(Thread)} and {@link #getQueueLength()}.
 * They read the superclass's own queue, which this lock never uses: {@code isFair()} answers {@code false}, which is
 * right, and the other three answer "no thread waits" whatever waits. Use {@link #queuedThreads()},
 * {@link #queueLength()} and {@link #isQueued(Thread)} instead, or the static {@link #hasQueuedThreads(ReentrantLock)},
 * {@link #hasQueuedThread(ReentrantLock, Thread)} and {@link #getQueueLength(ReentrantLock)}, which answer for any
 * {@code ReentrantLock} (numaloom's agent rewrites calls to the final methods into calls to these).
 *
 * <p><b>What it costs.</b> The superclass's state comes with it, unused: its synchronizer (an object of 32 bytes,
 * compressed oops) and its field, beside the {@code VnaLock} (40 bytes) it holds: a fresh {@code VnaReentrantLock}
 * is 96 bytes in all (JOL), against 48 for a {@code ReentrantLock} and 40 for a {@code VnaLock}, and every call goes
 * through one more object. New code should use {@link VnaLock} itself, typed {@link java.util.concurrent.locks.Lock}.
 *
 * <p><b>Serialization.</b> Like {@code ReentrantLock} it is {@code Serializable}, and like it a deserialized lock is
 * unlocked and has no waiters (a new {@code VnaLock} inside), whatever state it was written in. A subclass's
 * instance cannot be read back: its {@code VnaLock} is final and not serializable, and nothing could make a new one
 * for a class this one does not know ({@link java.io.InvalidObjectException}, naming the class).
 */
public class VnaReentrantLock extends ReentrantLock {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The lock that does the work; a deserialized lock gets a new one ({@link #writeReplace}). */
    private final transient VnaLock lock;

    /**
     * Creates an unlocked lock, one waiting queue per NUMA node, as {@link VnaLock#VnaLock()} does.
     *
     * @throws IllegalArgumentException if {@code -Dnumaloom.topology} is malformed
     */
    public VnaReentrantLock() {
        super(false);
        this.lock = new VnaLock();
    }

    /**
     * Creates an unlocked lock whose name numaloom's JFR events carry, as {@link VnaLock#named(String)} does.
     *
     * @param name the name, not null
     * @throws IllegalArgumentException if {@code -Dnumaloom.topology} is malformed
     */
    public VnaReentrantLock(String name) {
        super(false);
        this.lock = VnaLock.named(name);
    }

    @Override
    public void lock() {
        lock.lock();
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        lock.lockInterruptibly();
    }

    @Override
    public boolean tryLock() {
        return lock.tryLock();
    }

    @Override
    public boolean tryLock(long timeout, TimeUnit unit) throws InterruptedException {
        return lock.tryLock(timeout, unit);
    }

    @Override
    public void unlock() {
        lock.unlock();
    }

    /** {@return a new condition of this lock: a {@code VnaLock} condition, with {@code ReentrantLock}'s semantics} */
    @Override
    public Condition newCondition() {
        return lock.newCondition();
    }

    @Override
    public int getHoldCount() {
        return lock.getHoldCount();
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return lock.isHeldByCurrentThread();
    }

    @Override
    public boolean isLocked() {
        return lock.isLocked();
    }

    @Override
    protected Thread getOwner() {
        return lock.getOwner();
    }

    @Override
    protected Collection<Thread> getQueuedThreads() {
        return lock.getQueuedThreads();
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if {@code condition} is not a condition of this lock
     */
    @Override
    public boolean hasWaiters(Condition condition) {
        return lock.hasWaiters(condition);
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if {@code condition} is not a condition of this lock
     */
    @Override
    public int getWaitQueueLength(Condition condition) {
        return lock.getWaitQueueLength(condition);
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if {@code condition} is not a condition of this lock
     */
    @Override
    protected Collection<Thread> getWaitingThreads(Condition condition) {
        return lock.getWaitingThreads(condition);
    }

    /** {@return whether some thread may be waiting to acquire this lock: {@code hasQueuedThreads()}, which is final} */
    public boolean isQueued() {
        return lock.hasQueuedThreads();
    }

    /**
     * Whether {@code thread} is waiting to acquire this lock: what {@code hasQueuedThread(Thread)}, which is final,
     * cannot answer for this lock.
     *
     * @param thread the thread
     * @return whether it is queued for this lock
     * @throws NullPointerException if {@code thread} is null
     */
    public boolean isQueued(Thread thread) {
        return lock.hasQueuedThread(thread);
    }

    /** {@return an estimate of the threads waiting to acquire this lock: {@code getQueueLength()}, which is final} */
    public int queueLength() {
        return lock.getQueueLength();
    }

    /** {@return the threads waiting to acquire this lock, a snapshot: {@link #getQueuedThreads()}, public} */
    public Collection<Thread> queuedThreads() {
        return lock.getQueuedThreads();
    }

    /**
     * {@code lock.hasQueuedThreads()} for any {@code ReentrantLock}: for a {@code VnaReentrantLock} its own queue,
     * which the final method does not see.
     *
     * @param lock a lock
     * @return whether some thread may be waiting to acquire it
     */
    public static boolean hasQueuedThreads(ReentrantLock lock) {
        return lock instanceof VnaReentrantLock v ? v.isQueued() : lock.hasQueuedThreads();
    }

    /**
     * {@code lock.hasQueuedThread(thread)} for any {@code ReentrantLock}.
     *
     * @param lock   a lock
     * @param thread the thread
     * @return whether {@code thread} is queued for {@code lock}
     * @throws NullPointerException if {@code thread} is null
     */
    public static boolean hasQueuedThread(ReentrantLock lock, Thread thread) {
        return lock instanceof VnaReentrantLock v ? v.isQueued(thread) : lock.hasQueuedThread(thread);
    }

    /**
     * {@code lock.getQueueLength()} for any {@code ReentrantLock}.
     *
     * @param lock a lock
     * @return an estimate of the threads waiting to acquire it
     */
    public static int getQueueLength(ReentrantLock lock) {
        return lock instanceof VnaReentrantLock v ? v.queueLength() : lock.getQueueLength();
    }

    /** {@return the lock's identity and state, as {@code ReentrantLock} words it: {@code [Unlocked]} or {@code [Locked by thread main]}} */
    @Override
    public String toString() {
        Thread o = getOwner();
        return getClass().getName() + "@" + Integer.toHexString(hashCode())
                + (o == null ? "[Unlocked]" : "[Locked by thread " + VnaLock.threadName(o) + "]");
    }

    /**
     * Reached only for a subclass's instance (this class writes a token instead): see the class's Javadoc.
     *
     * @param in the stream
     * @throws java.io.InvalidObjectException always
     */
    @Serial
    private void readObject(java.io.ObjectInputStream in) throws java.io.IOException {
        throw new java.io.InvalidObjectException(getClass().getName() + " extends VnaReentrantLock, whose VnaLock cannot "
                + "be read back; a subclass that must be serializable can write a token of its own (writeReplace)");
    }

    /**
     * A lock of this class is written as a token; read back, it is a new, unlocked lock.
     *
     * @return the token
     * @throws ObjectStreamException never
     */
    @Serial
    private Object writeReplace() throws ObjectStreamException {
        return new Unlocked(lock instanceof VnaLock.Named n ? n.name : null);
    }

    /**
     * The serialized form.
     *
     * @param name the lock's name, or null
     */
    private record Unlocked(String name) implements Serializable {
        @Serial
        private Object readResolve() throws ObjectStreamException {
            return name == null ? new VnaReentrantLock() : new VnaReentrantLock(name);
        }
    }
}
