package io.numaloom.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** CurrentCpu in this JVM; the flags this JVM was not started with are tested by CurrentCpuChildJvmTest. */
class CurrentCpuTest {

    private static final boolean LINUX = System.getProperty("os.name").startsWith("Linux");

    private static boolean startedWithDeny() {
        return ProcessHandle.current().info().arguments()
                .map(args -> List.of(args).contains("--illegal-native-access=deny")).orElse(false);
    }

    @Test
    void usesSchedGetcpuOnLinuxWithoutAnyFlag() {
        if (LINUX && !startedWithDeny() && System.getProperty(CurrentCpu.MODE_PROPERTY) == null) {
            assertEquals(CurrentCpu.Source.SCHED_GETCPU, CurrentCpu.source(), CurrentCpu.sourceReason());
        }
        assertNotNull(CurrentCpu.sourceReason());
    }

    @Test
    void cpuIsAnOnlineCpuAndNodeSocketClusterAreInRange() {
        Topology t = Topology.current();
        int[] online = Topology.detect().cpus();
        for (int i = 0; i < 1000; i++) {
            int cpu = CurrentCpu.cpu();
            assertTrue(CpuList.contains(online, cpu), "cpu " + cpu + " not in " + CpuList.format(online));
            int node = CurrentCpu.node();
            assertTrue(node >= 0 && node < t.nodeCount(), "node " + node);
            int socket = CurrentCpu.socket();
            assertTrue(socket >= 0 && socket < t.socketCount(), "socket " + socket);
            int cluster = CurrentCpu.cluster();
            assertTrue(cluster >= 0 && cluster < t.clusterCount(), "cluster " + cluster);
        }
    }

    @Test
    void worksOnManyVirtualThreadsAcrossYields() throws Exception {
        int[] online = Topology.detect().cpus();
        int nodeCount = Topology.current().nodeCount();
        AtomicReference<String> failure = new AtomicReference<>();
        Set<Integer> seen = ConcurrentHashMap.newKeySet();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            threads.add(Thread.ofVirtual().start(() -> {
                for (int k = 0; k < 20; k++) {
                    int cpu = CurrentCpu.cpu();
                    int node = CurrentCpu.node();
                    seen.add(cpu);
                    if (!CpuList.contains(online, cpu) || node < 0 || node >= nodeCount) {
                        failure.compareAndSet(null, "cpu " + cpu + " node " + node);
                    }
                    Thread.yield();
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertNull(failure.get());
        assertTrue(!seen.isEmpty());
    }

    @Test
    void spreadPicksAnElementOfTheArrayForAnyThreadId() {
        int[] cpus = {3, 5, 8};
        long[] ids = {0, 1, 2, -1, Long.MIN_VALUE, Long.MAX_VALUE, 1L << 40, 123_456_789};
        for (long id : ids) {
            int cpu = CurrentCpu.spreadCpu(id, cpus);
            assertTrue(cpu == 3 || cpu == 5 || cpu == 8, "id " + id + " gave " + cpu);
        }
        assertEquals(7, CurrentCpu.spreadCpu(99, new int[] {7}));
    }

    @Test
    void spreadDistributesConsecutiveThreadIdsEvenly() {
        int[] cpus = IntStream.range(0, 8).toArray();
        int[] hits = new int[8];
        for (long id = 1000; id < 1000 + 8000; id++) {
            hits[CurrentCpu.spreadCpu(id, cpus)]++;
        }
        for (int h : hits) {
            assertTrue(h >= 900 && h <= 1100, "uneven: " + java.util.Arrays.toString(hits));
        }
        // Even a handful of consecutive threads land on different cpus of a two-cpu machine.
        int[] two = {0, 1};
        boolean both = false;
        for (long id = 50; id < 53; id++) {
            both |= CurrentCpu.spreadCpu(id, two) != CurrentCpu.spreadCpu(id + 1, two);
        }
        assertTrue(both);
    }

    @Test
    void spreadIsStablePerThread() {
        int[] cpus = {0, 1, 2, 3, 4, 5, 6, 7};
        long id = Thread.currentThread().threadId();
        int first = CurrentCpu.spreadCpu(id, cpus);
        for (int i = 0; i < 100; i++) {
            assertEquals(first, CurrentCpu.spreadCpu(id, cpus));
        }
    }

    // ---------------------------------------------------------------------------------------------
    // The choice of source (the JDK's warn-mode warning, if any, was already printed by this JVM)

    @Test
    void spreadModeBindsNothing() {
        SchedGetcpu.Choice c = SchedGetcpu.choose("spread", CurrentCpu.class.getModule());
        assertNull(c.handle());
        assertEquals("numaloom.currentCpu=spread", c.reason());
    }

    @Test
    void quietModeBindsOnlyWithNativeAccessEnabled() {
        Module module = CurrentCpu.class.getModule();
        SchedGetcpu.Choice c = SchedGetcpu.choose("quiet", module);
        if (!module.isNativeAccessEnabled()) {
            assertNull(c.handle());
            assertTrue(c.reason().contains("quiet and native access is not enabled"), c.reason());
        } else if (LINUX) {
            assertNotNull(c.handle());
        }
    }

    @Test
    void autoModeBindsOnLinuxAndTheHandleAnswersAnOnlineCpu() throws Throwable {
        SchedGetcpu.Choice c = SchedGetcpu.choose(null, CurrentCpu.class.getModule());
        if (LINUX && !startedWithDeny()) {
            assertNotNull(c.handle(), c.reason());
            int cpu = (int) c.handle().invokeExact();
            assertTrue(CpuList.contains(Topology.detect().cpus(), cpu), "cpu " + cpu);
        }
    }

    @Test
    void whatTheUserAskedForIsLoggedAtDebugEvenOnManyNodes() {
        Module module = CurrentCpu.class.getModule();
        assertEquals(System.Logger.Level.DEBUG, SchedGetcpu.choose("spread", module, true).level());
        assertEquals(System.Logger.Level.DEBUG, SchedGetcpu.choose("quiet", module, true).level());
        assertEquals(System.Logger.Level.DEBUG, SchedGetcpu.choose("spread", module, false).level());
        if (LINUX && !startedWithDeny()) {
            assertEquals(System.Logger.Level.DEBUG, SchedGetcpu.choose(null, module, true).level(), "sched_getcpu works");
        }
    }

    @Test
    void unknownModeIsReportedAsAWarningAndTreatedAsAuto() {
        SchedGetcpu.Choice c = SchedGetcpu.choose("fast", CurrentCpu.class.getModule());
        assertEquals(System.Logger.Level.WARNING, c.level());
        assertTrue(c.reason().contains("ignored unknown numaloom.currentCpu=fast (expected auto, quiet or spread)"), c.reason());
        if (LINUX && !startedWithDeny()) {
            assertNotNull(c.handle());
        }
    }
}
