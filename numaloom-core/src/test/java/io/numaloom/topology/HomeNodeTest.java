package io.numaloom.topology;

import io.numaloom.VnaLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link HomeNode}: one resolver at a time, and any answer it gives that is not a node of {@link Topology#current()}
 * (negative, too large, an exception) reads as "no home node", so that {@link HomeNode#node()} falls back to the
 * current CPU's node. On a one-node topology a contended lock never asks the resolver. The two-node behaviour of the
 * locks is in {@code HomeNodeLocksTest} (its own JVM) and in numaloom-scheduler's {@code LockHomeNodeTest}.
 */
@org.junit.jupiter.api.Timeout(60)
class HomeNodeTest {

    private HomeNode.Resolver installed;

    private void install(HomeNode.Resolver r) {
        assertTrue(HomeNode.install(r));
        installed = r;
    }

    @AfterEach
    void uninstall() {
        if (installed != null) {
            HomeNode.uninstall(installed);
        }
        assertNull(HomeNode.installed());
    }

    @Test
    void noResolverMeansNoHomeNode() {
        assertNull(HomeNode.installed());
        assertEquals(-1, HomeNode.of(Thread.currentThread()));
        int node = HomeNode.node();
        assertTrue(node >= 0 && node < Topology.current().nodeCount(), "node " + node);
    }

    @Test
    void oneResolverAtATime() {
        HomeNode.Resolver r = t -> 0;
        HomeNode.Resolver other = t -> 0;
        install(r);
        assertTrue(HomeNode.install(r), "installing the installed one again is fine");
        assertFalse(HomeNode.install(other));
        assertSame(r, HomeNode.installed());
        assertFalse(HomeNode.uninstall(other));
        assertTrue(HomeNode.uninstall(r));
        assertNull(HomeNode.installed());
        installed = null;
    }

    @Test
    void answersOutsideTheTopologyAreUnknown() {
        int nodes = Topology.current().nodeCount();
        int[] answer = {0};
        install(t -> answer[0]);
        assertEquals(0, HomeNode.of(Thread.currentThread()));
        assertEquals(0, HomeNode.node());
        answer[0] = nodes - 1;
        assertEquals(nodes - 1, HomeNode.of(Thread.currentThread()));
        for (int wrong : new int[] {-1, -7, nodes, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
            answer[0] = wrong;
            assertEquals(-1, HomeNode.of(Thread.currentThread()), "answer " + wrong);
            int node = HomeNode.node();
            assertTrue(node >= 0 && node < nodes, "fell back to the cpu's node, got " + node);
        }
    }

    @Test
    void aThrowingResolverIsUnknown() {
        install(t -> {
            throw new IllegalStateException("broken resolver");
        });
        assertEquals(-1, HomeNode.of(Thread.currentThread()));
        int node = HomeNode.node();
        assertTrue(node >= 0 && node < Topology.current().nodeCount(), "node " + node);
    }

    @Test
    void theResolverIsAskedAboutTheGivenThread() throws InterruptedException {
        Thread other = Thread.ofVirtual().unstarted(() -> { });
        install(t -> t == other ? 0 : -1);
        assertEquals(0, HomeNode.of(other));
        assertEquals(-1, HomeNode.of(Thread.currentThread()));
        Thread.ofVirtual().start(() -> assertEquals(-1, HomeNode.of(Thread.currentThread()))).join();
    }

    @Test
    void aOneNodeTopologyNeverAsks() throws InterruptedException {
        if (Topology.current().nodeCount() != 1) {
            return; // this machine has several nodes: HomeNodeLocksTest covers them
        }
        AtomicInteger asked = new AtomicInteger();
        install(t -> {
            asked.incrementAndGet();
            return 0;
        });
        VnaLock lock = new VnaLock();
        lock.lock();
        Thread waiter = Thread.ofPlatform().start(() -> {
            lock.lock();
            lock.unlock();
        });
        while (!lock.hasQueuedThread(waiter)) {
            Thread.sleep(1);
        }
        lock.unlock();
        waiter.join();
        assertEquals(0, asked.get());
    }
}
