package io.numaloom.stress.counter;

import io.numaloom.counter.CloseResult;
import io.numaloom.counter.CloseableAcquireCounter;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import io.numaloom.topology.CurrentCpu;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model checking of {@link CloseableAcquireCounter} against a sequential counter with a
 * closed flag: every interleaving Lincheck explores (on platform threads; Lincheck 3.7 cannot run
 * virtual threads) must be linearizable.
 *
 * <p>Tickets are per thread: each operation gets the executing thread's number from
 * {@link ThreadIdGen}, {@code acquire} pushes the ticket it got on that thread's stack, and
 * {@code release} pops and releases one (or reports that the thread holds nothing), so releases are
 * always well-formed and a ticket may be released by the thread that acquired it at any later point.
 * The sequential model counts acquisitions per thread. {@code outstanding()} is a diagnostic snapshot,
 * not linearizable, and is left out.
 *
 * <p>Two shapes: a lazy counter (the explored interleavings include the CAS failures that inflate
 * it, and closes that race with the inflation), and a counter with two stripes placed by thread
 * index (stripes are created on first use, racing closes; threads share or split stripes).
 */
class CloseableAcquireCounterLincheckTest {

    /** Thread numbers from ThreadIdGen: 0 for the initial part, 1..THREADS, THREADS + 1 for the post part. */
    static final int THREADS = 3;
    private static final int ROWS = THREADS + 2;
    private static final int MAX_HELD = 16;

    /** The operations, on the counter a subclass supplies. */
    abstract static class Model {
        private final CloseableAcquireCounter counter;
        private final int[][] tickets = new int[ROWS][MAX_HELD];
        private final int[] held = new int[ROWS];

        Model(CloseableAcquireCounter counter) {
            this.counter = counter;
        }

        @Operation
        public boolean acquire(@Param(gen = ThreadIdGen.class) int thread) {
            int ticket = counter.tryAcquire();
            if (ticket < 0) {
                return false;
            }
            tickets[thread][held[thread]++] = ticket;
            return true;
        }

        @Operation
        public boolean release(@Param(gen = ThreadIdGen.class) int thread) {
            if (held[thread] == 0) {
                return false;
            }
            counter.release(tickets[thread][--held[thread]]);
            return true;
        }

        @Operation
        public CloseResult tryClose() {
            return counter.tryClose();
        }

        @Operation
        public boolean isClosed() {
            return counter.isClosed();
        }
    }

    public static class Lazy extends Model {
        public Lazy() {
            super(new CloseableAcquireCounter());
        }
    }

    public static class Placed extends Model {
        public Placed() {
            super(CloseableAcquireCounter.withPlacement(2, CloseableAcquireCounterLincheckTest::threadIndex));
        }
    }

    /**
     * The Lincheck thread's index from its name ({@code Lincheck-...-<index>}); 0 for other threads.
     * Placement must be a function of the thread alone so that Lincheck can replay an interleaving.
     */
    static int threadIndex() {
        String name = Thread.currentThread().getName();
        int dash = name.lastIndexOf('-');
        try {
            return dash < 0 ? 0 : Integer.parseInt(name.substring(dash + 1));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** The sequential specification: a count per thread and a closed flag. */
    public static class Sequential {
        private final int[] held = new int[ROWS];
        private boolean closed;

        public boolean acquire(int thread) {
            if (closed) {
                return false;
            }
            held[thread]++;
            return true;
        }

        public boolean release(int thread) {
            if (held[thread] == 0) {
                return false;
            }
            held[thread]--;
            return true;
        }

        public CloseResult tryClose() {
            if (closed) {
                return CloseResult.ALREADY_CLOSED;
            }
            for (int h : held) {
                if (h > 0) {
                    return CloseResult.BUSY;
                }
            }
            closed = true;
            return CloseResult.CLOSED;
        }

        public boolean isClosed() {
            return closed;
        }
    }

    /**
     * The budget: {@code numaloom.lincheck.iterations} random scenarios (default 30) of
     * {@value #THREADS} threads with three operations each (plus two before and two after), each
     * explored in {@code numaloom.lincheck.invocations} interleavings (default 1,000); the same
     * properties as the lock models, so {@code -Pstress} raises both.
     */
    private static ModelCheckingOptions options() {
        return new ModelCheckingOptions()
                .threads(THREADS)
                .actorsPerThread(3)
                .actorsBefore(2)
                .actorsAfter(2)
                .iterations(Integer.getInteger("numaloom.lincheck.iterations", 30))
                .invocationsPerIteration(Integer.getInteger("numaloom.lincheck.invocations", 1_000))
                .sequentialSpecification(Sequential.class);
    }

    /**
     * A lazy counter inflates with the machine's shape, which places a thread by
     * {@code CurrentCpu.cpu()}: with {@code sched_getcpu} as its source that is not a function of the
     * thread, and Lincheck could not replay an interleaving. This test therefore needs a JVM run with
     * {@code -Dnumaloom.currentCpu=spread}, which places by thread; without it, it is skipped and says
     * so.
     */
    @Test
    void lazyCounterIsLinearizable() {
        Assumptions.assumeTrue(CurrentCpu.source() == CurrentCpu.Source.THREAD_SPREAD,
                "needs deterministic placement: run with -Dnumaloom.currentCpu=spread");
        options().check(Lazy.class);
    }

    @Test
    void placedCounterIsLinearizable() {
        options().check(Placed.class);
    }
}
