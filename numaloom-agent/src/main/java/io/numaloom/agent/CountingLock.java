package io.numaloom.agent;

import io.numaloom.VnaReentrantLock;

import java.util.concurrent.TimeUnit;

/**
 * The lock the agent's {@code counts} option swaps in: a {@link VnaReentrantLock} named by its site that counts, for
 * the report, its acquisitions and those that found it held by another thread. Counting costs an increment of a
 * {@link java.util.concurrent.atomic.LongAdder} per acquisition, and a {@code tryLock()} before each blocking
 * acquisition: leave {@code counts} off when measuring throughput.
 */
public class CountingLock extends VnaReentrantLock {
    private static final long serialVersionUID = 1L;

    private final transient Sites.Swapped site;

    /** A lock made at the agent's site number {@code site}. */
    public CountingLock(int site) {
        super(Sites.name(site));
        this.site = Sites.swapped(site);
    }

    /** A lock made at the agent's site number {@code site} with a fairness computed there: see {@link VnaReentrantLock#VnaReentrantLock(boolean)}. */
    public CountingLock(boolean fair, int site) {
        super(fair, Sites.name(site));
        this.site = Sites.swapped(site);
    }

    @Override
    public void lock() {
        if (!super.tryLock()) {
            site.contended().increment();
            super.lock();
        }
        site.acquisitions().increment();
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        if (!super.tryLock()) {
            site.contended().increment();
            super.lockInterruptibly();
        }
        site.acquisitions().increment();
    }

    @Override
    public boolean tryLock() {
        boolean acquired = super.tryLock();
        if (acquired) {
            site.acquisitions().increment();
        }
        return acquired;
    }

    @Override
    public boolean tryLock(long timeout, TimeUnit unit) throws InterruptedException {
        boolean acquired = super.tryLock();
        if (!acquired) {
            site.contended().increment();
            acquired = super.tryLock(timeout, unit);
        }
        if (acquired) {
            site.acquisitions().increment();
        }
        return acquired;
    }
}
