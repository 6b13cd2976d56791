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
 * right, and the other three answer "no thread waits" whatever waits (except on a lock made fair, whose queue is the
 * superclass's). Use {@link #queuedThreads()},
 * {@link #queueLength()} and {@link #isQueued(Thread)} instead, or the static {@link #hasQueuedThreads(ReentrantLock)},
 * {@link #hasQueuedThread(ReentrantLock, Thread)} and {@link #getQueueLength(ReentrantLock)}, which answer for any
 * {@code ReentrantLock} (numaloom's agent rewrites calls to the final methods into calls to these).
 *
 * <p><b>Fairness computed at run time.</b> {@link #VnaReentrantLock(boolean)} is for code that decides fairness
 * when it runs ({@code new ReentrantLock(fair)}, {@code super(fair)} in a class that extends {@code ReentrantLock},
 * which the agent rewrites into this constructor): given {@code false} it makes the lock above; given {@code true}
 * it makes a fair {@code ReentrantLock}, the superclass's own, every method of it the superclass's, so that a caller
 * who asked for fairness keeps it. {@link #isVna()} says which.
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

    /**
     * The lock that does the work, or null where the caller asked for a fair lock and the superclass does it; a
     * deserialized lock gets a new one ({@link #writeReplace}).
     */
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

    /**
     * Creates the lock {@code new ReentrantLock(fair)} asks for: unfair, a {@code VnaLock} inside, as
     * {@link #VnaReentrantLock()}; fair, {@code ReentrantLock}'s own fair lock (see the class's Javadoc).
     *
     * @param fair whether the lock must be fair
     * @throws IllegalArgumentException if {@code -Dnumaloom.topology} is malformed
     */
    public VnaReentrantLock(boolean fair) {
        super(fair);
        this.lock = fair ? null : new VnaLock();
    }

    /**
     * As {@link #VnaReentrantLock(boolean)}, the unfair lock named as {@link #VnaReentrantLock(String)} names it.
     *
     * @param fair whether the lock must be fair (a fair lock has no name: numaloom's events do not see it)
     * @param name the name, not null
     * @throws IllegalArgumentException if {@code -Dnumaloom.topology} is malformed
     */
    public VnaReentrantLock(boolean fair, String name) {
        super(fair);
        this.lock = fair ? null : VnaLock.named(java.util.Objects.requireNonNull(name, "name"));
    }

    /** {@return whether this lock's locking is a {@code VnaLock}'s: false only for a lock made fair at run time} */
    public final boolean isVna() {
        return lock != null;
    }

    @Override
    public void lock() {
        VnaLock l = lock;
        if (l == null) {
            super.lock();
        } else {
            l.lock();
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        VnaLock l = lock;
        if (l == null) {
            super.lockInterruptibly();
        } else {
            l.lockInterruptibly();
        }
    }

    @Override
    public boolean tryLock() {
        VnaLock l = lock;
        return l == null ? super.tryLock() : l.tryLock();
    }

    @Override
    public boolean tryLock(long timeout, TimeUnit unit) throws InterruptedException {
        VnaLock l = lock;
        return l == null ? super.tryLock(timeout, unit) : l.tryLock(timeout, unit);
    }

    @Override
    public void unlock() {
        VnaLock l = lock;
        if (l == null) {
            super.unlock();
        } else {
            l.unlock();
        }
    }

    /** {@return a new condition of this lock: a {@code VnaLock} condition, with {@code ReentrantLock}'s semantics} */
    @Override
    public Condition newCondition() {
        VnaLock l = lock;
        return l == null ? super.newCondition() : l.newCondition();
    }

    @Override
    public int getHoldCount() {
        VnaLock l = lock;
        return l == null ? super.getHoldCount() : l.getHoldCount();
    }

    @Override
    public boolean isHeldByCurrentThread() {
        VnaLock l = lock;
        return l == null ? super.isHeldByCurrentThread() : l.isHeldByCurrentThread();
    }

    @Override
    public boolean isLocked() {
        VnaLock l = lock;
        return l == null ? super.isLocked() : l.isLocked();
    }

    @Override
    protected Thread getOwner() {
        VnaLock l = lock;
        return l == null ? super.getOwner() : l.getOwner();
    }

    @Override
    protected Collection<Thread> getQueuedThreads() {
        VnaLock l = lock;
        return l == null ? super.getQueuedThreads() : l.getQueuedThreads();
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if {@code condition} is not a condition of this lock
     */
    @Override
    public boolean hasWaiters(Condition condition) {
        VnaLock l = lock;
        return l == null ? super.hasWaiters(condition) : l.hasWaiters(condition);
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if {@code condition} is not a condition of this lock
     */
    @Override
    public int getWaitQueueLength(Condition condition) {
        VnaLock l = lock;
        return l == null ? super.getWaitQueueLength(condition) : l.getWaitQueueLength(condition);
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if {@code condition} is not a condition of this lock
     */
    @Override
    protected Collection<Thread> getWaitingThreads(Condition condition) {
        VnaLock l = lock;
        return l == null ? super.getWaitingThreads(condition) : l.getWaitingThreads(condition);
    }

    /** {@return whether some thread may be waiting to acquire this lock: {@code hasQueuedThreads()}, which is final} */
    public boolean isQueued() {
        VnaLock l = lock;
        return l == null ? hasQueuedThreads() : l.hasQueuedThreads();
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
        VnaLock l = lock;
        return l == null ? hasQueuedThread(thread) : l.hasQueuedThread(thread);
    }

    /** {@return an estimate of the threads waiting to acquire this lock: {@code getQueueLength()}, which is final} */
    public int queueLength() {
        VnaLock l = lock;
        return l == null ? getQueueLength() : l.getQueueLength();
    }

    /** {@return the threads waiting to acquire this lock, a snapshot: {@link #getQueuedThreads()}, public} */
    public Collection<Thread> queuedThreads() {
        return getQueuedThreads();
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
        return new Unlocked(lock instanceof VnaLock.Named n ? n.name : null, lock == null);
    }

    /**
     * The serialized form.
     *
     * @param name the lock's name, or null
     * @param fair whether it was made fair ({@link VnaReentrantLock#VnaReentrantLock(boolean)})
     */
    private record Unlocked(String name, boolean fair) implements Serializable {
        @Serial
        private Object readResolve() throws ObjectStreamException {
            return fair ? new VnaReentrantLock(true) : name == null ? new VnaReentrantLock() : new VnaReentrantLock(name);
        }
    }
}
