package org.example.app;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The application AgentIT starts with and without the agent: it prints the class of each of its locks, then has
 * virtual threads take one lock 1000 times each and prints the count.
 */
public final class AgentMain {
    public static void main(String[] args) throws Exception {
        UnfairHolder holder = new UnfairHolder();
        System.out.println("plain=" + holder.plain.getClass().getName());
        System.out.println("fair=" + new FairHolder().fair.getClass().getName());
        System.out.println("subclass-super=" + CountingSubclass.class.getSuperclass().getName());
        System.out.println("computed-unfair=" + FairHolder.make(false).getClass().getName());
        System.out.println("computed-fair-isFair=" + FairHolder.make(true).isFair());
        ReentrantLock lock = holder.plain;
        int[] count = {0};
        int threads = 8;
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            Thread.ofVirtual().start(() -> {
                for (int i = 0; i < 1000; i++) {
                    lock.lock();
                    try {
                        count[0]++;
                    } finally {
                        lock.unlock();
                    }
                }
                done.countDown();
            });
        }
        done.await();
        System.out.println("count=" + count[0]);
    }
}
