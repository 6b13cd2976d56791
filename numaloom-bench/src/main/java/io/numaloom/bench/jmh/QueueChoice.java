package io.numaloom.bench.jmh;

import io.numaloom.scheduler.NumaScheduler;
import io.numaloom.topology.CurrentCpu;
import io.numaloom.topology.HomeNode;
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

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What a per-node lock's contended path pays to choose its queue: {@code CurrentCpu.node()} (what it did before the
 * {@link HomeNode} hook: {@code sched_getcpu} and a table load) against {@code HomeNode.node()} (what it does now),
 * each {@value #CALLS} calls per invocation, the score per call. {@code caller}: {@code platform} (a JMH thread; with
 * {@code resolver=numa} the NumaScheduler's resolver is installed and answers -1 for it, so it falls back to the
 * CPU), or {@code numa} (the calls run in a virtual thread of a NumaScheduler homed on node 1: with its resolver, the
 * home node without sched_getcpu). {@code resolver}: {@code none} (no scheduler in the JVM) or {@code numa}. Run with
 * {@code -jvmArgsAppend "--add-opens=java.base/java.lang=ALL-UNNAMED --enable-native-access=ALL-UNNAMED
 * -Dnumaloom.topology=nodes=2"}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class QueueChoice {

    static final int CALLS = 100_000;

    @Param({"platform", "numa"})
    public String caller;

    @Param({"none", "numa"})
    public String resolver;

    private NumaScheduler scheduler;
    private int sink;

    @Setup(Level.Trial)
    public void setUp() {
        if ("numa".equals(resolver) || "numa".equals(caller)) {
            scheduler = NumaScheduler.builder().carriersPerNode(1).build();
            if ("none".equals(resolver)) {
                HomeNode.uninstall(HomeNode.installed());
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (scheduler != null) {
            scheduler.close();
        }
    }

    private int run(java.util.function.IntSupplier body) throws InterruptedException {
        if (!"numa".equals(caller)) {
            return body.getAsInt();
        }
        AtomicReference<Integer> out = new AtomicReference<>();
        Thread t = scheduler.threadFactory(1).newThread(() -> out.set(body.getAsInt()));
        t.start();
        t.join();
        return out.get();
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public int currentCpuNode() throws InterruptedException {
        return run(() -> {
            int s = 0;
            for (int i = 0; i < CALLS; i++) {
                s += CurrentCpu.node();
            }
            return s;
        });
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public int homeNodeOrCpu() throws InterruptedException {
        return run(() -> {
            int s = 0;
            for (int i = 0; i < CALLS; i++) {
                s += HomeNode.node();
            }
            return s;
        });
    }
}
