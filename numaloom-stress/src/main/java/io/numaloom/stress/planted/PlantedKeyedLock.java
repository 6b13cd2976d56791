package io.numaloom.stress.planted;

import io.numaloom.stress.subject.KeyedSubject;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A small model of {@code KeyedLock}'s binding protocol with an optional planted bug, to show that the keyed
 * proofs catch a deflation that ignores a racing locker. With {@link Bug#NONE} it is correct, and the same
 * scenario must pass on it.
 *
 * <p><b>Protocol</b> (the real one's, without its lock-free scan, table growth and record reuse). One chain of
 * records, guarded by {@code guard}; each record binds one key to a {@link PlantedLock} and counts its users in
 * {@code pins}, {@code -1} once unbound. A locker finds or binds the key's record under the guard, then pins it
 * outside the guard ({@code p -> p+1} for {@code p >= 0}, else it looks again) and takes its lock. The thread that
 * drops the last pin unbinds the record: under the guard it needs {@code pins: 0 -> -1}, which fails if a locker
 * pinned the record in between, and only then removes it from the chain. {@link Bug#UNBIND_IGNORES_PINS} writes
 * {@code -1} instead: a locker that pinned meanwhile then holds a record that is no longer bound, and the next
 * locker of the key binds a second one, so two threads hold one key.
 *
 * @param <K> the key type
 */
public final class PlantedKeyedLock<K> implements KeyedSubject<K> {

    /** The bug planted in a keyed lock. */
    public enum Bug {
        /** A correct keyed lock: the control. */
        NONE,
        /** The unbinder marks the record unbound without checking that nobody pinned it since. */
        UNBIND_IGNORES_PINS
    }

    /** One key's record. */
    private static final class Record {
        final Object key;
        final PlantedLock lock = new PlantedLock(PlantedLock.Bug.NONE);
        final AtomicInteger pins = new AtomicInteger(1);

        Record(Object key) {
            this.key = key;
        }
    }

    private final Bug bug;
    private final ReentrantLock guard = new ReentrantLock();
    /** The bound records; guarded by {@link #guard}. */
    private final List<Record> chain = new ArrayList<>();
    /** Records the bug unbound while a locker had pinned them, so that their holders find them; guarded. */
    private final List<Record> orphans = new ArrayList<>();

    public PlantedKeyedLock(Bug bug) {
        this.bug = bug;
    }

    /** One way to take a record's lock; true if taken. */
    @FunctionalInterface
    private interface Acquisition {
        boolean acquire(PlantedLock lock) throws InterruptedException;
    }

    /** Pins the key's record and takes its lock as {@code how} does; unpins it if the lock was not taken. */
    private boolean acquire(K key, Acquisition how) throws InterruptedException {
        Record r = pin(key);
        boolean locked = false;
        try {
            locked = how.acquire(r.lock);
        } finally {
            if (!locked) {
                unpin(r);
            }
        }
        return locked;
    }

    @Override
    public void lock(K key) {
        try {
            acquire(key, lock -> {
                lock.lock();
                return true;
            });
        } catch (InterruptedException e) {
            throw new AssertionError("lock() does not throw InterruptedException", e);
        }
    }

    @Override
    public void lockInterruptibly(K key) throws InterruptedException {
        acquire(key, lock -> {
            lock.lockInterruptibly();
            return true;
        });
    }

    @Override
    public boolean tryLock(K key) {
        try {
            return acquire(key, PlantedLock::tryLock);
        } catch (InterruptedException e) {
            throw new AssertionError("tryLock() does not throw InterruptedException", e);
        }
    }

    @Override
    public boolean tryLock(K key, long time, TimeUnit unit) throws InterruptedException {
        return acquire(key, lock -> lock.tryLock(time, unit));
    }

    @Override
    public void unlock(K key) {
        Record r = held(key);
        if (r == null) {
            throw new IllegalMonitorStateException("the current thread does not hold " + key);
        }
        r.lock.unlock();
        if (r.lock.getHoldCount() == 0) {
            forgetOrphan(r);
        }
        unpin(r);
    }

    private Record pin(Object key) {
        for (;;) {
            Record r;
            guard.lock();
            try {
                r = bound(key);
                if (r == null) {
                    r = new Record(key);
                    chain.add(r);
                    return r;
                }
            } finally {
                guard.unlock();
            }
            int p = r.pins.get();
            if (p >= 0 && r.pins.compareAndSet(p, p + 1)) {
                return r;
            }
        }
    }

    private void unpin(Record r) {
        if (r.pins.decrementAndGet() == 0) {
            // Where a preemption opens the race: a locker that found the record may pin it now. Yielding here,
            // with or without the bug, lets a test meet that interleaving often instead of once in millions.
            Thread.yield();
            unbind(r);
        }
    }

    private void unbind(Record r) {
        guard.lock();
        try {
            if (bug == Bug.UNBIND_IGNORES_PINS) {
                if (r.pins.getAndSet(-1) != 0) {
                    orphans.add(r); // a locker pinned it since: it will lock a record that is no longer bound
                }
            } else if (!r.pins.compareAndSet(0, -1)) {
                return; // pinned again since: the last of those users unbinds it
            }
            chain.remove(r);
        } finally {
            guard.unlock();
        }
    }

    private Record bound(Object key) {
        for (Record r : chain) {
            if (r.key.equals(key)) {
                return r;
            }
        }
        return null;
    }

    private Record held(Object key) {
        guard.lock();
        try {
            for (List<Record> records : List.of(chain, orphans)) {
                for (Record r : records) {
                    if (r.key.equals(key) && r.lock.isHeldByCurrentThread()) {
                        return r;
                    }
                }
            }
            return null;
        } finally {
            guard.unlock();
        }
    }

    private void forgetOrphan(Record r) {
        guard.lock();
        try {
            orphans.remove(r);
        } finally {
            guard.unlock();
        }
    }

    private Record boundNow(Object key) {
        guard.lock();
        try {
            return bound(key);
        } finally {
            guard.unlock();
        }
    }

    @Override
    public boolean isLocked(K key) {
        Record r = boundNow(key);
        return r != null && r.lock.isLocked();
    }

    @Override
    public boolean isHeldByCurrentThread(K key) {
        return held(key) != null;
    }

    @Override
    public int getHoldCount(K key) {
        Record r = held(key);
        return r == null ? 0 : r.lock.getHoldCount();
    }

    @Override
    public int getQueueLength(K key) {
        Record r = boundNow(key);
        return r == null ? 0 : r.lock.getQueueLength();
    }

    @Override
    public int boundKeys() {
        guard.lock();
        try {
            return chain.size();
        } finally {
            guard.unlock();
        }
    }

    @Override
    public String toString() {
        return "PlantedKeyedLock[" + bug + ", " + boundKeys() + " bound]";
    }
}
