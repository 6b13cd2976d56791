package io.numaloom.bench.run;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A failed point's row names what went wrong, read from JMH's log, not JMH's "Benchmark caught the exception". */
class FailureCauseTest {

    @Test
    void aMeasuredJvmThatDoesNotStartIsNamedByItsOwnMessage() {
        List<String> log = """
                # Benchmark: io.numaloom.bench.run.PointBenchmark.round

                # Run progress: 0.00% complete, ETA 00:00:00
                # Fork: 1 of 1
                Invalid maximum heap size: -Xmx
                Error: Could not create the Java Virtual Machine.
                Error: A fatal exception has occurred. Program will exit.
                <forked VM failed with exit code 1>
                <stdout last='20 lines'>
                </stdout>
                <stderr last='20 lines'>
                Invalid maximum heap size: -Xmx
                Error: Could not create the Java Virtual Machine.
                Error: A fatal exception has occurred. Program will exit.
                </stderr>
                """.lines().toList();
        assertEquals("the measured JVM exited with code 1: Invalid maximum heap size: -Xmx",
                JmhPointExecutor.rootCause(log, "Benchmark caught the exception"));
    }

    @Test
    void anExceptionInTheMeasuredJvmIsNamedByItsDeepestCause() {
        List<String> log = """
                # Fork: 1 of 1
                # Warmup Iteration   1: <failure>

                java.lang.IllegalStateException: round failed
                \tat io.numaloom.bench.run.PointBenchmark.round(PointBenchmark.java:40)
                \t... 12 more
                Caused by: java.lang.IllegalArgumentException: numaloom.topology "nodes=4": 4 nodes but 2 CPUs
                \tat io.numaloom.topology.Topology.parse(Topology.java:80)

                java.lang.OutOfMemoryError: later, unrelated
                """.lines().toList();
        assertEquals("java.lang.IllegalArgumentException: numaloom.topology \"nodes=4\": 4 nodes but 2 CPUs",
                JmhPointExecutor.rootCause(log, "Benchmark caught the exception"));
    }

    @Test
    void aMeasuredJvmStoppedMidwayIsNamedByItsExitCodeNotByItsOutput() {
        List<String> log = """
                # Fork: 1 of 1
                Iteration   1: 605.652 ms/op
                <forked VM failed with exit code 130>
                <stdout last='20 lines'>
                Iteration   1: 605.652 ms/op
                </stdout>
                <stderr last='20 lines'>
                </stderr>
                """.lines().toList();
        assertEquals("the measured JVM exited with code 130", JmhPointExecutor.rootCause(log, "Benchmark caught the exception"));
    }

    @Test
    void withNothingInTheLogTheExceptionsMessageRemains() {
        assertEquals("Benchmark caught the exception",
                JmhPointExecutor.rootCause(List.of("# Fork: 1 of 1", "<stdout last='20 lines'>"), "Benchmark caught the exception"));
    }
}
