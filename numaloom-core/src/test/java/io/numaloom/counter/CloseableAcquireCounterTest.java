package io.numaloom.counter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaloom.topology.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The API, single-threaded semantics, and misuse; every test on a lazy and on a striped counter. */
class CloseableAcquireCounterTest {

    static Stream<Arguments> shapes() {
        return Stream.of(
                Arguments.of("lazy", (Supplier<CloseableAcquireCounter>) CloseableAcquireCounter::new),
                Arguments.of("striped", (Supplier<CloseableAcquireCounter>) CloseableAcquireCounter::striped),
                Arguments.of("two nodes", (Supplier<CloseableAcquireCounter>)
                        () -> CloseableAcquireCounter.withShape(2, 4, () -> (int) Thread.currentThread().threadId(), false)),
                Arguments.of("placed", (Supplier<CloseableAcquireCounter>)
                        () -> CloseableAcquireCounter.withPlacement(4, () -> (int) Thread.currentThread().threadId())));
    }

    @Test
    void aFreshCounterIsOpenEmptyAndUnstriped() {
        CloseableAcquireCounter c = new CloseableAcquireCounter();
        assertFalse(c.isClosed());
        assertEquals(0, c.outstanding());
        assertEquals(0, c.stripeCount());
        assertTrue(c.toString().matches("CloseableAcquireCounter@[0-9a-f]+\\[open, outstanding=0, stripes=0]"), c.toString());
    }

    @Test
    void anUncontendedCounterCountsOnTheBaseWord() {
        CloseableAcquireCounter c = new CloseableAcquireCounter();
        assertEquals(CloseableAcquireCounter.BASE_TICKET, c.tryAcquire());
        assertEquals(CloseableAcquireCounter.BASE_TICKET, c.tryAcquire());
        assertEquals(2, c.outstanding());
        c.release(0);
        c.release(0);
        assertEquals(0, c.outstanding());
        assertEquals(0, c.stripeCount(), "no contention, no stripes");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void closingAnIdleCounterClosesItForGood(String shape, Supplier<CloseableAcquireCounter> factory) {
        CloseableAcquireCounter c = factory.get();
        c.release(c.tryAcquire());
        assertEquals(CloseResult.CLOSED, c.tryClose());
        assertTrue(c.isClosed());
        assertEquals(-1, c.tryAcquire());
        assertEquals(-1, c.tryAcquire());
        assertEquals(CloseResult.ALREADY_CLOSED, c.tryClose());
        assertEquals(CloseResult.ALREADY_CLOSED, c.tryClose());
        assertEquals(0, c.outstanding());
        assertTrue(c.toString().contains("[closed, outstanding=0"), c.toString());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void aBusyCloseChangesNothing(String shape, Supplier<CloseableAcquireCounter> factory) {
        CloseableAcquireCounter c = factory.get();
        int first = c.tryAcquire();
        int second = c.tryAcquire();
        assertTrue(first >= 0 && second >= 0);
        assertEquals(CloseResult.BUSY, c.tryClose());
        assertFalse(c.isClosed());
        assertEquals(2, c.outstanding());
        int third = c.tryAcquire();
        assertTrue(third >= 0, "a busy close leaves the counter open");
        c.release(first);
        assertEquals(CloseResult.BUSY, c.tryClose());
        c.release(third);
        assertEquals(CloseResult.BUSY, c.tryClose());
        c.release(second);
        assertEquals(CloseResult.CLOSED, c.tryClose());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void nestedAcquisitionsOfOneThreadAllCount(String shape, Supplier<CloseableAcquireCounter> factory) {
        CloseableAcquireCounter c = factory.get();
        int[] tickets = new int[100];
        for (int i = 0; i < tickets.length; i++) {
            tickets[i] = c.tryAcquire();
        }
        assertEquals(100, c.outstanding());
        for (int i = tickets.length - 1; i > 0; i--) {
            c.release(tickets[i]);
            assertEquals(CloseResult.BUSY, c.tryClose());
        }
        c.release(tickets[0]);
        assertEquals(CloseResult.CLOSED, c.tryClose());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void releasingTwiceThrowsAndChangesNothing(String shape, Supplier<CloseableAcquireCounter> factory) {
        CloseableAcquireCounter c = factory.get();
        int held = c.tryAcquire();
        int ticket = c.tryAcquire();
        c.release(ticket);
        if (ticket != held) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> c.release(ticket));
            assertTrue(e.getMessage().contains("released more often than acquired"), e.getMessage());
        }
        c.release(held);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> c.release(held));
        assertTrue(e.getMessage().contains("ticket " + held), e.getMessage());
        assertEquals(0, c.outstanding());
        assertFalse(c.isClosed());
        assertEquals(CloseResult.CLOSED, c.tryClose(), "a rejected release leaves the counter consistent");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void releasingAfterTheCloseThrows(String shape, Supplier<CloseableAcquireCounter> factory) {
        CloseableAcquireCounter c = factory.get();
        int ticket = c.tryAcquire();
        c.release(ticket);
        assertEquals(CloseResult.CLOSED, c.tryClose());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> c.release(ticket));
        assertTrue(e.getMessage().contains("(the counter is closed)"), e.getMessage());
        assertTrue(c.isClosed());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void ticketsThatWereNeverIssuedAreRejected(String shape, Supplier<CloseableAcquireCounter> factory) {
        CloseableAcquireCounter c = factory.get();
        IllegalArgumentException failed = assertThrows(IllegalArgumentException.class, () -> c.release(-1));
        assertTrue(failed.getMessage().contains("the acquisition failed"), failed.getMessage());
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> c.release(1 << 20));
        assertTrue(unknown.getMessage().contains("was not issued by this counter"), unknown.getMessage());
        assertThrows(IllegalArgumentException.class, () -> c.release(Integer.MIN_VALUE));
        assertEquals(CloseResult.CLOSED, c.tryClose());
    }

    @Test
    void aStripeTicketOfAnEmptySlotIsRejected() {
        CloseableAcquireCounter c = CloseableAcquireCounter.withShape(1, 4, () -> 0, false);
        int ticket = c.tryAcquire();
        assertTrue(ticket >= 1, "a pre-inflated counter counts on stripes");
        int other = ticket % 4 + 1;   // another slot of the group, still empty
        assertThrows(IllegalArgumentException.class, () -> c.release(other));
        assertThrows(IllegalStateException.class, () -> c.release(0), "the base exists but holds nothing");
        c.release(ticket);
    }

    @Test
    void aStripedCounterHasAllItsStripesAndStillCloses() {
        CloseableAcquireCounter c = CloseableAcquireCounter.striped();
        assertTrue(c.stripeCount() >= 1);
        assertEquals(c.table().length(), c.stripeCount());
        int ticket = c.tryAcquire();
        assertTrue(ticket >= 1, "acquisitions go to the stripes");
        assertEquals(CloseResult.BUSY, c.tryClose());
        c.release(ticket);
        assertEquals(CloseResult.CLOSED, c.tryClose());
        assertEquals(-1, c.tryAcquire());
    }

    @Test
    void stripesAreCreatedOnFirstUseOfTheirSlot() {
        CloseableAcquireCounter c = CloseableAcquireCounter.withShape(1, 8, () -> 0, false);
        assertEquals(0, c.stripeCount());
        int ticket = c.tryAcquire();
        assertEquals(1, c.stripeCount(), "one slot filled, by the acquisition itself");
        assertEquals(1, c.outstanding());
        c.release(ticket);
        assertEquals(ticket, c.tryAcquire(), "a thread keeps its home slot");
        assertEquals(1, c.stripeCount());
    }

    @Test
    void aThreadCountsInTheGroupOfItsNode() {
        AtomicInteger node = new AtomicInteger();
        CloseableAcquireCounter c = CloseableAcquireCounter.withShape(3, 4, node::get, false);
        Stripes table = c.table();
        assertEquals(3, table.nodeGroups());
        assertEquals(4, table.stripesPerNode());
        List<Integer> tickets = new ArrayList<>();
        for (int n = 0; n < 3; n++) {
            node.set(n);
            int ticket = c.tryAcquire();
            assertEquals(n, table.groupOf(ticket - 1), "ticket " + ticket + " of node " + n);
            tickets.add(ticket);
        }
        node.set(7);   // out of range, as a stale or odd node id could be: wraps, never throws
        int wrapped = c.tryAcquire();
        assertEquals(1, table.groupOf(wrapped - 1));
        node.set(-1);
        int negative = c.tryAcquire();
        assertEquals(2, table.groupOf(negative - 1));
        tickets.add(wrapped);
        tickets.add(negative);
        for (int ticket : tickets) {
            assertEquals(CloseResult.BUSY, c.tryClose(), "a holder on any node keeps the counter open");
            c.release(ticket);
        }
        assertEquals(CloseResult.CLOSED, c.tryClose());
        for (int n = 0; n < 3; n++) {
            node.set(n);
            assertEquals(-1, c.tryAcquire(), "closed on node " + n);
        }
    }

    @Test
    void anApplicationMayPlaceItsThreads() {
        AtomicInteger home = new AtomicInteger(2);
        CloseableAcquireCounter c = CloseableAcquireCounter.withPlacement(4, home::get);
        assertEquals(0, c.stripeCount(), "stripes appear on first use");
        assertEquals(3, c.tryAcquire(), "stripe 2 is ticket 3");
        home.set(-1);
        assertEquals(4, c.tryAcquire(), "-1 is the last stripe");
        home.set(9);
        assertEquals(2, c.tryAcquire(), "9 mod 4 is stripe 1");
        assertEquals(3, c.stripeCount());
        assertEquals(CloseResult.BUSY, c.tryClose());
        c.release(3);
        c.release(4);
        c.release(2);
        assertEquals(CloseResult.CLOSED, c.tryClose());
        assertEquals(-1, c.tryAcquire());
        assertEquals(8, CloseableAcquireCounter.withPlacement(5, () -> 0).table().length(), "a power of two");
        assertEquals(Stripes.MAX_STRIPES_PER_NODE, CloseableAcquireCounter.withPlacement(100_000, () -> 0).table().length());
    }

    @Test
    void aPlacementMustMakeSense() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CloseableAcquireCounter.withPlacement(0, () -> 0));
        assertTrue(e.getMessage().contains("stripes must be >= 1, got 0"), e.getMessage());
        NullPointerException npe = assertThrows(NullPointerException.class,
                () -> CloseableAcquireCounter.withPlacement(2, null));
        assertTrue(npe.getMessage().contains("homeStripe"), npe.getMessage());
    }

    @Test
    void theShapeIsClampedToSaneBounds() {
        Stripes odd = Stripes.byNodeAndThread(0, 3, () -> 0, false);
        assertEquals(1, odd.nodeGroups());
        assertEquals(4, odd.stripesPerNode(), "rounded up to a power of two");
        Stripes huge = Stripes.byNodeAndThread(1000, 1000, () -> 0, false);
        assertEquals(Stripes.MAX_NODES, huge.nodeGroups());
        assertEquals(Stripes.MAX_STRIPES_PER_NODE, huge.stripesPerNode());
        Stripes machine = Stripes.forThisMachine(false);
        assertTrue(machine.stripesPerNode() >= 1 && machine.length() >= 1);
    }

    @Test
    void onThisMachineEveryCpuHasItsOwnSlotInTheGroupOfItsNode() {
        Topology topology = Topology.current();
        Stripes table = Stripes.forThisMachine(false);
        assertEquals(topology.nodeCount(), table.nodeGroups());
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        for (int cpu : topology.cpus()) {
            int slot = Stripes.machineSlotOfCpu(cpu);
            assertTrue(slot >= 0 && slot < table.length(), "cpu " + cpu + " -> slot " + slot);
            assertEquals(topology.nodeOf(cpu), table.groupOf(slot), "cpu " + cpu);
            assertTrue(seen.add(slot), "cpu " + cpu + " shares slot " + slot);
        }
        int home = table.homeSlot();
        assertTrue(home >= 0 && home < table.length());
        int beyond = Stripes.machineSlotOfCpu(1 << 20);
        assertTrue(beyond >= 0 && beyond < table.stripesPerNode(), "an unknown cpu lands in group 0");
    }

    @Test
    void neighboursStayInTheirGroup() {
        Stripes table = Stripes.byNodeAndThread(2, 4, () -> 0, false);
        int slot = 5;   // group 1
        for (int i = 0; i < 8; i++) {
            slot = table.neighbour(slot);
            assertEquals(1, table.groupOf(slot));
        }
    }

    @ParameterizedTest
    @EnumSource(ThreadKind.class)
    void anotherThreadMayRelease(ThreadKind kind) throws Exception {
        CloseableAcquireCounter c = CloseableAcquireCounter.striped();
        SynchronousQueue<Integer> handoff = new SynchronousQueue<>();
        ThreadKind.Crew crew = kind.crew();
        crew.start("holder", () -> {
            int ticket = c.tryAcquire();
            Thread.sleep(5);   // a virtual thread parks here and may come back on another carrier
            handoff.put(ticket);
        });
        crew.start("releaser", () -> {
            int ticket = handoff.take();
            assertEquals(CloseResult.BUSY, c.tryClose());
            c.release(ticket);
        });
        crew.join(ThreadKind.PATIENCE);
        assertEquals(CloseResult.CLOSED, c.tryClose());
    }

    @Test
    void closeResultsAreTheThreeDocumentedOnes() {
        assertEquals(List.of(CloseResult.CLOSED, CloseResult.BUSY, CloseResult.ALREADY_CLOSED),
                List.of(CloseResult.values()));
        assertNotEquals(CloseableAcquireCounter.CLOSING, CloseableAcquireCounter.CLOSED);
    }
}
