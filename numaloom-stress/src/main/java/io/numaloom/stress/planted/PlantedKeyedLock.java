package io.numaloom.stress.planted;

import io.numaloom.stress.subject.KeyedSubject;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small model of {@code KeyedLock}'s bind/pin/unbind protocol with an optional planted bug, to show that the
 * keyed proofs (Lincheck's {@code KeyedCounters}, jcstress's {@link PlantedKeyedMutex}) catch an unbind that
 * ignores a racing locker. With {@link Bug#NONE} it is correct, and the same tests must pass on it.
 *
 * <p><b>Protocol.</b> {@code KeyedLock}'s, without the table, the hashing and the reuse of records. The bound
 * records form one chain, changed only under {@code guard}. A record holds a correct {@link PlantedLock} and
 * {@code pins}, the number of threads using it (each hold and each thread inside an acquisition); {@code -1}
 * means unbound, for good. A locker scans the chain without the guard, pins the record of an equal key with the
 * CAS {@code pins: p -> p + 1} for {@code p >= 0} and reads the binding again; failing that, it takes the guard
 * and pins the linked record of the key or binds a new one. The thread whose unpin brings {@code pins} to 0
 * takes the guard, finds the record still linked and unbinds it with the CAS {@code pins: 0 -> -1}; a failed CAS
 * means a locker pinned it in between, and that locker unbinds it when it is done.
 *
 * <p><b>{@link Bug#UNBIND_IGNORES_PINS}.</b> The unbinder writes {@code pins = -1} without the CAS. A locker that
 * pinned the record between the last unpin and the unbind goes on with an unlinked record: it no longer finds
 * its own hold, and the next locker of the key binds a second record, so two threads hold one key.
 */
public final class PlantedKeyedLock<K> implements KeyedSubject<K> {

    /** The bug planted in a keyed lock. */
    public enum Bug {
        /** A correct keyed lock: the control. */
        NONE,
        /** The unbinder sets {@code pins = -1} without the CAS {@code 0 -> -1}: a racing locker's pin is lost. */
        UNBIND_IGNORES_PINS
    }

    /** The lock of one key while the key is in use. */
    static final class Record {
        final PlantedLock lock = new PlantedLock(PlantedLock.Bug.NONE);
        final AtomicInteger pins = new AtomicInteger(1);
        volatile Object key;
        volatile Record next;

        Record(Object key, Record next) {
            this.key = key;
            this.next = next;
        }

        boolean isBoundTo(Object k) {
            Object mine = key;
            return mine != null && k.equals(mine);
        }
    }

    private final Bug bug;
    private final Object guard = new Object();
    /** The chain of bound records: written under {@code guard}, scanned without it. */
    private volatile Record head;

    public PlantedKeyedLock(Bug bug) {
        this.bug = bug;
    }

    /** {@link PlantedLock#lock()} does not fail: the pin becomes the hold's. */
    @Override
    public void lock(K key) {
        pin(key).lock.lock();
    }

    @Override
    public void lockInterruptibly(K key) throws InterruptedException {
        Record r = pin(key);
        try {
            r.lock.lockInterruptibly();
        } catch (InterruptedException e) {
            unpin(r);
            throw e;
        }
    }

    @Override
    public boolean tryLock(K key) {
        Record r = pin(key);
        return keepPinIf(r.lock.tryLock(), r);
    }

    @Override
    public boolean tryLock(K key, long time, TimeUnit unit) throws InterruptedException {
        Record r = pin(key);
        try {
            return keepPinIf(r.lock.tryLock(time, unit), r);
        } catch (InterruptedException e) {
            unpin(r);
            throw e;
        }
    }

    private boolean keepPinIf(boolean locked, Record r) {
        if (!locked) {
            unpin(r);
        }
        return locked;
    }

    @Override
    public void unlock(K key) {
        Record r = boundRecord(key);
        if (r == null || !r.lock.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException(Thread.currentThread().getName() + " does not hold key " + key);
        }
        r.lock.unlock();
        unpin(r);
    }

    /** Pins the record of key, found by the lock-free scan or else under the guard, where it may be bound. */
    private Record pin(K key) {
        Record r = linked(Objects.requireNonNull(key, "key"));
        if (r != null && tryPin(r)) {
            if (r.isBoundTo(key)) {
                return r;
            }
            unpin(r);
        }
        synchronized (guard) {
            r = linked(key);
            if (r == null) {
                head = new Record(key, head);
                return head;
            }
            if (!tryPin(r)) {
                throw new IllegalStateException("a linked record was unbound: key " + key);
            }
            return r;
        }
    }

    /** The CAS {@code pins: p -> p + 1} for {@code p >= 0}; fails on an unbound record. */
    private static boolean tryPin(Record r) {
        return r.pins.getAndUpdate(p -> p >= 0 ? p + 1 : p) >= 0;
    }

    /** Drops one pin; the thread that drops the last one unbinds the record. */
    private void unpin(Record r) {
        if (r.pins.decrementAndGet() == 0) {
            unbind(r);
        }
    }

    private void unbind(Record r) {
        synchronized (guard) {
            Record prev = null;
            Record c = head;
            for (; c != null && c != r; c = c.next) {
                prev = c;
            }
            if (c == null) {
                return; // a racing unbinder got there first
            }
            if (bug == Bug.UNBIND_IGNORES_PINS) {
                r.pins.set(-1); // planted: a locker that pinned since our unpin goes unseen
            } else if (!r.pins.compareAndSet(0, -1)) {
                return; // pinned again: its user unbinds it
            }
            if (prev == null) {
                head = r.next;
            } else {
                prev.next = r.next;
            }
            r.key = null;
        }
    }

    /** The record bound to key in the chain, or null; exact under the guard. */
    private Record linked(Object key) {
        for (Record r = head; r != null; r = r.next) {
            if (r.isBoundTo(key)) {
                return r;
            }
        }
        return null;
    }

    private Record boundRecord(Object key) {
        synchronized (guard) {
            return linked(Objects.requireNonNull(key, "key"));
        }
    }

    @Override public int getHoldCount(K key) { Record r = boundRecord(key); return r == null ? 0 : r.lock.getHoldCount(); }
    @Override public boolean isHeldByCurrentThread(K key) { return getHoldCount(key) > 0; }
    @Override public boolean isLocked(K key) { Record r = boundRecord(key); return r != null && r.lock.isLocked(); }
    @Override public boolean hasQueuedThreads(K key) { Record r = boundRecord(key); return r != null && r.lock.hasQueuedThreads(); }

    @Override
    public int activeKeys() {
        synchronized (guard) {
            int n = 0;
            for (Record r = head; r != null; r = r.next) {
                n++;
            }
            return n;
        }
    }

    /** Nothing to do: this lock unbinds a record when its last user leaves, so it keeps no idle key. */
    @Override
    public int releaseIdleKeys() {
        return 0;
    }

    @Override
    public String toString() {
        return super.toString() + "[" + bug + ", " + activeKeys() + " active keys]";
    }
}
