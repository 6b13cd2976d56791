package io.numaloom.bench.jmh;

import io.numaloom.scheduler.NumaScheduler;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.time.Duration;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The scheduler's cost of a wake-up: two virtual threads pass a turn back and forth with
 * {@code LockSupport.unpark} and {@code park}, {@value #ROUNDS} round trips per invocation; the score is the time
 * of one round trip (two parks, two unparks, two mounts). This is what a lock handoff between virtual threads
 * costs beyond the lock itself.
 *
 * <p>Parameters: {@code scheduler} is {@code default} (the JDK's), {@code numa} (a {@link NumaScheduler} with its
 * default idle spin) or {@code numa-park} (a NumaScheduler whose carriers park as soon as their queue is empty,
 * {@code idleSpin(0)}); {@code sameNode} homes the two threads on one node (one carrier: every wake-up is a
 * queue append that the carrier, busy with the waker, polls next) or on nodes 0 and 1 (each wake-up is a
 * mount on the other node's carrier, which may have to be woken). The default scheduler ignores
 * {@code sameNode}. Run with {@code ./numaloom jmh SchedulerPingPong -jvmArgsAppend
 * "--add-opens=java.base/java.lang=ALL-UNNAMED --enable-native-access=ALL-UNNAMED -Dnumaloom.topology=nodes=2"}
 * (the launcher's own JVM options replace those of the annotation).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-opens=java.base/java.lang=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED",
        "-Dnumaloom.topology=nodes=2"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class SchedulerPingPong {

    static final int ROUNDS = 1000;

    @Param({"default", "numa", "numa-park"})
    public String scheduler;

    @Param({"false", "true"})
    public boolean sameNode;

    private NumaScheduler numa;
    private Thread ping;
    private Thread pong;
    private volatile Thread caller;
    /** 0: idle, 1: ping's turn, 2: pong's turn, 3: stop. */
    private volatile int turn;
    private volatile boolean done;

    @Setup(Level.Trial)
    public void start() {
        ThreadFactory a;
        ThreadFactory b;
        if (scheduler.startsWith("numa")) {
            numa = NumaScheduler.builder().carriersPerNode(1)
                    .idleSpin("numa-park".equals(scheduler) ? Duration.ZERO : Duration.ofNanos(50_000)).build();
            a = numa.threadFactory(0);
            b = numa.threadFactory(sameNode ? 0 : Math.min(1, numa.nodes() - 1));
        } else {
            a = Thread.ofVirtual().factory();
            b = Thread.ofVirtual().factory();
        }
        ping = a.newThread(this::ping);
        pong = b.newThread(this::pong);
        ping.start();
        pong.start();
    }

    private void ping() {
        for (;;) {
            while (turn != 1) {
                if (turn == 3) {
                    return;
                }
                LockSupport.park();
            }
            for (int i = 0; i < ROUNDS; i++) {
                turn = 2;
                LockSupport.unpark(pong);
                while (turn == 2) {
                    LockSupport.park();
                }
                if (turn == 3) {
                    return;
                }
            }
            turn = 0;
            done = true;
            LockSupport.unpark(caller);
        }
    }

    private void pong() {
        for (;;) {
            while (turn != 2) {
                if (turn == 3) {
                    return;
                }
                LockSupport.park();
            }
            turn = 1;
            LockSupport.unpark(ping);
        }
    }

    @Benchmark
    @OperationsPerInvocation(ROUNDS)
    public void roundTrip() {
        caller = Thread.currentThread();
        done = false;
        turn = 1;
        LockSupport.unpark(ping);
        while (!done) {
            LockSupport.park();
        }
    }

    @TearDown(Level.Trial)
    public void stop() throws InterruptedException {
        turn = 3;
        LockSupport.unpark(ping);
        LockSupport.unpark(pong);
        ping.join();
        pong.join();
        if (numa != null) {
            numa.close();
        }
    }
}
