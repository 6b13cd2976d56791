package io.numaloom.bench.api;

import io.numaloom.bench.Mutex;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.locks.Lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Locks}: every name makes a working lock, as a JMH {@code @Param} would ask for it. */
class LocksTest {

    @Test
    void everyNameMakesANewWorkingLock() {
        List<String> names = Locks.names();
        assertTrue(names.containsAll(List.of("VNA", "VNA_2_Q", "UNFAIR_REENTRANT", "FAIR_REENTRANT", "MCS", "SHFL")), names.toString());
        for (String name : names) { // what @Setup does with each @Param value
            Lock lock = Locks.create(name);
            assertNotSame(lock, Locks.create(name), name + ": a new lock per call");
            lock.lock();
            try {
                assertTrue(!otherThreadGets(lock), name + " let another thread in while held");
            } finally {
                lock.unlock();
            }
            assertTrue(otherThreadGets(lock), name + " is free again after unlock");
        }
    }

    /** Whether another thread's tryLock succeeds (and then releases). */
    private static boolean otherThreadGets(Lock lock) {
        boolean[] got = new boolean[1];
        Thread t = Thread.ofPlatform().start(() -> {
            if (lock.tryLock()) {
                got[0] = true;
                lock.unlock();
            }
        });
        try {
            t.join();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        return got[0];
    }

    @Test
    void synchronizedIsAMutexNotALock() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Locks.create("SYNCHRONIZED"));
        assertTrue(e.getMessage().contains("Locks.mutex(\"SYNCHRONIZED\")"), e.getMessage());
        assertTrue(Locks.mutexNames().containsAll(Locks.names()) && Locks.mutexNames().contains(Locks.SYNCHRONIZED));
        int[] runs = new int[1];
        for (String name : Locks.mutexNames()) {
            Mutex m = Locks.mutex(name);
            assertEquals(name, m.name());
            m.runExclusively(() -> runs[0]++);
        }
        assertEquals(Locks.mutexNames().size(), runs[0]);
    }

    @Test
    void anUnknownNameListsTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Locks.create("VNAA"));
        assertTrue(e.getMessage().startsWith("unknown lock 'VNAA'; Locks.create knows: VNA, VNA_2_Q, UNFAIR_REENTRANT"), e.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Locks.create(null)).getMessage().startsWith("unknown lock null"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Locks.mutex("x")).getMessage().contains("SYNCHRONIZED"));
    }
}
