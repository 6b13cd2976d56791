package io.numaloom.counter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What racing threads do while a close is between its two phases. The test holds a close open by
 * driving the phases itself ({@code takeControlToClose}, {@code markAllIdle}, then {@code abortClose}
 * or {@code commitClose}, the steps {@code tryClose} is made of), so the races are deterministic:
 * acquirers must park, not fail and not spin, and learn the outcome when the close ends.
 */
class CloseInProgressTest {

    private static final Duration TIMEOUT = ThreadKind.PATIENCE;
    private static final int UNSET = Integer.MIN_VALUE;

    static Stream<Arguments> kindsAndShapes() {
        List<Arguments> all = new ArrayList<>();
        for (ThreadKind kind : ThreadKind.values()) {
            // base word claimed
            all.add(Arguments.of(kind, "lazy", (Supplier<CloseableAcquireCounter>) CloseableAcquireCounter::new));
            // every stripe claimed
            all.add(Arguments.of(kind, "striped", (Supplier<CloseableAcquireCounter>) CloseableAcquireCounter::striped));
            // empty slots: acquirers need the control word to create their stripe
            all.add(Arguments.of(kind, "empty slots", (Supplier<CloseableAcquireCounter>) () ->
                    CloseableAcquireCounter.withShape(2, 4, () -> (int) Thread.currentThread().threadId(), false)));
        }
        return all.stream();
    }

    private static List<Thread> startAcquirers(ThreadKind.Crew crew, CloseableAcquireCounter c, AtomicIntegerArray tickets) {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < tickets.length(); i++) {
            int index = i;
            tickets.set(index, UNSET);
            threads.add(crew.start("acquirer-" + i, () -> tickets.set(index, c.tryAcquire())));
        }
        return threads;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndShapes")
    void acquirersWaitForACloseThatEndsBusyAndThenSucceed(ThreadKind kind, String shape,
                                                          Supplier<CloseableAcquireCounter> factory) throws Exception {
        CloseableAcquireCounter c = factory.get();
        CloseableAcquireCounter.Control close = c.takeControlToClose();
        assertNotNull(close);
        assertTrue(c.markAllIdle());
        assertFalse(c.isClosed(), "a close in progress has not taken effect");
        assertTrue(c.toString().contains("[closing"), c.toString());

        AtomicIntegerArray tickets = new AtomicIntegerArray(4);
        ThreadKind.Crew crew = kind.crew();
        for (Thread t : startAcquirers(crew, c, tickets)) {
            ThreadKind.awaitParked(t);
        }
        for (int i = 0; i < tickets.length(); i++) {
            assertEquals(UNSET, tickets.get(i), "acquirer " + i + " returned during the close");
        }

        c.abortClose(close);   // as if phase one had met a holder: the close ends BUSY
        crew.join(TIMEOUT);
        for (int i = 0; i < tickets.length(); i++) {
            assertTrue(tickets.get(i) >= 0, "acquirer " + i + " must not fail because of a BUSY close");
        }
        assertEquals(tickets.length(), c.outstanding());
        assertEquals(CloseResult.BUSY, c.tryClose());
        for (int i = 0; i < tickets.length(); i++) {
            c.release(tickets.get(i));
        }
        assertEquals(CloseResult.CLOSED, c.tryClose());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndShapes")
    void acquirersWaitForACloseThatCommitsAndThenFail(ThreadKind kind, String shape,
                                                      Supplier<CloseableAcquireCounter> factory) throws Exception {
        CloseableAcquireCounter c = factory.get();
        CloseableAcquireCounter.Control close = c.takeControlToClose();
        assertTrue(c.markAllIdle());

        AtomicIntegerArray tickets = new AtomicIntegerArray(4);
        ThreadKind.Crew crew = kind.crew();
        for (Thread t : startAcquirers(crew, c, tickets)) {
            ThreadKind.awaitParked(t);
        }
        c.commitClose(close);
        crew.join(TIMEOUT);
        for (int i = 0; i < tickets.length(); i++) {
            assertEquals(-1, tickets.get(i), "acquirer " + i + " after the close took effect");
        }
        assertTrue(c.isClosed());
        assertEquals(CloseResult.ALREADY_CLOSED, c.tryClose());
        assertEquals(0, c.outstanding());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndShapes")
    void aSecondCloserWaitsForTheFirstAndThenTriesItself(ThreadKind kind, String shape,
                                                         Supplier<CloseableAcquireCounter> factory) throws Exception {
        CloseableAcquireCounter c = factory.get();
        CloseableAcquireCounter.Control close = c.takeControlToClose();
        assertTrue(c.markAllIdle());
        AtomicReference<CloseResult> second = new AtomicReference<>();
        ThreadKind.Crew crew = kind.crew();
        Thread closer = crew.start("second closer", () -> second.set(c.tryClose()));
        ThreadKind.awaitParked(closer);
        assertNull(second.get());
        c.abortClose(close);
        crew.join(TIMEOUT);
        assertEquals(CloseResult.CLOSED, second.get(), "the first close failed; the second found the counter idle");
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kindsAndShapes")
    void aSecondCloserLearnsThatTheFirstWon(ThreadKind kind, String shape,
                                            Supplier<CloseableAcquireCounter> factory) throws Exception {
        CloseableAcquireCounter c = factory.get();
        CloseableAcquireCounter.Control close = c.takeControlToClose();
        assertTrue(c.markAllIdle());
        AtomicReference<CloseResult> second = new AtomicReference<>();
        ThreadKind.Crew crew = kind.crew();
        Thread closer = crew.start("second closer", () -> second.set(c.tryClose()));
        ThreadKind.awaitParked(closer);
        c.commitClose(close);
        crew.join(TIMEOUT);
        assertEquals(CloseResult.ALREADY_CLOSED, second.get());
    }

    @ParameterizedTest
    @EnumSource(ThreadKind.class)
    void aHolderMayReleaseWhileACloseIsInProgress(ThreadKind kind) throws Exception {
        // Phase one met the holder and put its claims back; the test keeps the control word while the
        // holder releases, which neither needs nor disturbs it.
        CloseableAcquireCounter c = new CloseableAcquireCounter();
        int ticket = c.tryAcquire();
        CloseableAcquireCounter.Control close = c.takeControlToClose();
        assertFalse(c.markAllIdle(), "an acquisition is outstanding");
        ThreadKind.Crew crew = kind.crew();
        crew.start("holder", () -> c.release(ticket));
        crew.join(TIMEOUT);
        assertEquals(0, c.outstanding());
        c.releaseControl(close);
        assertEquals(CloseResult.CLOSED, c.tryClose());
    }

    @ParameterizedTest
    @EnumSource(ThreadKind.class)
    void anInterruptedWaiterKeepsWaitingWithoutSpinningAndKeepsItsInterrupt(ThreadKind kind) throws Exception {
        CloseableAcquireCounter c = CloseableAcquireCounter.striped();
        CloseableAcquireCounter.Control close = c.takeControlToClose();
        assertTrue(c.markAllIdle());
        AtomicIntegerArray ticket = new AtomicIntegerArray(1);
        ticket.set(0, UNSET);
        AtomicBoolean interruptedAfterwards = new AtomicBoolean();
        ThreadKind.Crew crew = kind.crew();
        Thread waiter = crew.start("waiter", () -> {
            ticket.set(0, c.tryAcquire());
            interruptedAfterwards.set(Thread.currentThread().isInterrupted());
        });
        ThreadKind.awaitParked(waiter);
        waiter.interrupt();
        Thread.sleep(100);
        ThreadKind.awaitParked(waiter);   // parked again: an interrupt must not turn the wait into a spin
        assertEquals(UNSET, ticket.get(0), "an interrupt does not end the wait for a close's outcome");
        c.abortClose(close);
        crew.join(TIMEOUT);
        assertTrue(ticket.get(0) >= 1);
        assertTrue(interruptedAfterwards.get(), "the interrupt is kept for the caller");
    }
}
