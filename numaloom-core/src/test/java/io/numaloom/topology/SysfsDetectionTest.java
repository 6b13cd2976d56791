package io.numaloom.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Detection from fake sysfs trees built in a temporary directory, and from this machine's /sys. */
class SysfsDetectionTest {

    @TempDir
    Path sys;

    private void write(String relative, String content) {
        try {
            Path file = sys.resolve(relative);
            Files.createDirectories(file.getParent());
            Files.writeString(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void online(String cpulist) {
        write("devices/system/cpu/online", cpulist + "\n");
    }

    private void node(int id, String cpulist) {
        write("devices/system/node/node" + id + "/cpulist", cpulist + "\n");
    }

    private void cpu(int cpu, int pkg, int cluster, int core) {
        String dir = "devices/system/cpu/cpu" + cpu + "/topology/";
        write(dir + "physical_package_id", pkg + "\n");
        write(dir + "cluster_id", cluster + "\n");
        write(dir + "core_id", core + "\n");
    }

    private Topology detect() {
        return Topology.detect("Linux", sys);
    }

    @Test
    void sparseNodeIdsMapToDenseIndices() {
        online("0-7");
        node(0, "0-3");
        node(2, "4-7");
        for (int c = 0; c < 8; c++) {
            cpu(c, 0, c / 2, c);
        }
        Topology t = detect();
        assertEquals("sysfs at " + sys, t.source());
        assertFalse(t.isFallback());
        assertEquals(8, t.cpuCount());
        assertEquals(2, t.nodeCount());
        assertEquals(0, t.kernelNodeId(0));
        assertEquals(2, t.kernelNodeId(1));
        assertArrayEquals(new int[] {0, 0, 0, 0, 1, 1, 1, 1}, IntStream.range(0, 8).map(t::nodeOf).toArray());
        assertArrayEquals(new int[] {4, 5, 6, 7}, t.cpusOfNode(1));
        assertTrue(t.toString().contains("node 1 (kernel node 2): cpus 4-7, socket 0"), t.toString());
    }

    @Test
    void memoryOnlyNodesGetNoIndex() {
        online("0-3");
        node(0, "0-1");
        node(1, "");
        node(3, "2-3");
        node(4, "");
        Topology t = detect();
        assertEquals(2, t.nodeCount());
        assertEquals(0, t.kernelNodeId(0));
        assertEquals(3, t.kernelNodeId(1));
        assertEquals(1, t.nodeOf(3));
    }

    @Test
    void nodeIdsSortNumericallyNotAlphabetically() {
        online("0-2");
        node(10, "2");
        node(2, "1");
        node(0, "0");
        Topology t = detect();
        assertEquals(3, t.nodeCount());
        assertArrayEquals(new int[] {0, 2, 10}, IntStream.range(0, 3).map(t::kernelNodeId).toArray());
        assertArrayEquals(new int[] {0, 1, 2}, IntStream.range(0, 3).map(t::nodeOf).toArray());
    }

    @Test
    void cpumapIsReadWhereThereIsNoCpulist() {
        online("0-7");
        write("devices/system/node/node0/cpumap", "00000000,0000000f\n");
        write("devices/system/node/node1/cpumap", "00000000,000000f0\n");
        Topology t = detect();
        assertEquals(2, t.nodeCount());
        assertArrayEquals(new int[] {4, 5, 6, 7}, t.cpusOfNode(1));
    }

    @Test
    void offlineCpusAreLeftOutAndMapToZero() {
        online("0-1,4-5");
        node(0, "0-1");
        node(1, "4-5");
        Topology t = detect();
        assertArrayEquals(new int[] {0, 1, 4, 5}, t.cpus());
        assertEquals(1, t.nodeOf(4));
        assertEquals(0, t.nodeOf(2), "offline cpu");
        assertEquals(0, t.nodeOf(6), "above the largest online id");
        assertEquals(0, t.nodeOf(-1));
        assertEquals(0, t.socketOf(1000));
        assertEquals(0, t.clusterOf(Integer.MAX_VALUE));
    }

    @Test
    void nodeListsIncludingOfflineCpusAreIntersectedWithOnline() {
        online("0-2");
        node(0, "0-1");
        node(1, "2-3");
        Topology t = detect();
        assertEquals(3, t.cpuCount());
        assertArrayEquals(new int[] {2}, t.cpusOfNode(1));
    }

    @Test
    void noNodeDirectoryMeansOneNode() {
        online("0-3");
        Topology t = detect();
        assertEquals(1, t.nodeCount());
        assertEquals(0, t.kernelNodeId(0));
        assertTrue(t.source().contains("no NUMA nodes listed"), t.source());
        assertFalse(t.isFallback());
    }

    @Test
    void packagesBecomeDenseSockets() {
        online("0-7");
        node(0, "0-3");
        node(1, "4-7");
        for (int c = 0; c < 8; c++) {
            cpu(c, c < 4 ? 3 : 7, c / 2, c % 4);
        }
        Topology t = detect();
        assertEquals(2, t.socketCount());
        assertEquals(3, t.kernelSocketId(0));
        assertEquals(7, t.kernelSocketId(1));
        assertArrayEquals(new int[] {0, 0, 0, 0, 1, 1, 1, 1}, IntStream.range(0, 8).map(t::socketOf).toArray());
        assertArrayEquals(new int[] {4, 5, 6, 7}, t.cpusOfSocket(1));
    }

    @Test
    void clustersComeFromClusterIdPerPackage() {
        online("0-7");
        node(0, "0-7");
        // cluster ids repeat across packages (as on arm64): clusters are keyed by (package, cluster_id)
        for (int c = 0; c < 8; c++) {
            cpu(c, c / 4, (c / 2) % 2, c);
        }
        Topology t = detect();
        assertEquals(4, t.clusterCount());
        assertArrayEquals(new int[] {0, 0, 1, 1, 2, 2, 3, 3}, IntStream.range(0, 8).map(t::clusterOf).toArray());
        assertArrayEquals(new int[] {2, 3}, t.cpusOfCluster(1));
        assertTrue(t.toString().contains("4 clusters (cluster_id)"), t.toString());
    }

    @Test
    void unknownClusterIdFallsBackToCores() {
        online("0-3");
        node(0, "0-3");
        // 65535 is x86's "unknown" (BAD_APICID), as on the development VM; SMT siblings share core_id
        for (int c = 0; c < 4; c++) {
            cpu(c, 0, 65535, c / 2);
        }
        Topology t = detect();
        assertEquals(2, t.clusterCount());
        assertArrayEquals(new int[] {0, 0, 1, 1}, IntStream.range(0, 4).map(t::clusterOf).toArray());
        assertTrue(t.toString().contains("(one per core)"), t.toString());

        for (int c = 0; c < 4; c++) {
            cpu(c, 0, -1, c);
        }
        assertEquals(4, detect().clusterCount(), "-1 is arm64's unknown cluster id");
    }

    @Test
    void missingTopologyFilesFallBackToOneClusterAndSocket() {
        online("0-3");
        node(0, "0-3");
        Topology t = detect();
        assertEquals(1, t.socketCount());
        assertEquals(-1, t.kernelSocketId(0), "unknown package");
        assertEquals(1, t.clusterCount());
        assertTrue(t.toString().contains("(one per socket)"), t.toString());
    }

    @Test
    void unreadableSysfsGivesTheOneNodeFallback() {
        Topology t = detect(); // empty tree: no cpu/online
        assertTrue(t.isFallback());
        assertEquals("fallback: cannot read " + sys.resolve("devices/system/cpu/online") + " (no such file)", t.source());
        assertFallbackShape(t);
    }

    @Test
    void malformedOnlineListGivesTheFallback() {
        online("0-x");
        Topology t = detect();
        assertTrue(t.source().startsWith("fallback: cannot parse " + sys.resolve("devices/system/cpu/online")), t.source());
        assertFallbackShape(t);
    }

    @Test
    void emptyOnlineListGivesTheFallback() {
        online("");
        Topology t = detect();
        assertTrue(t.source().contains("lists no cpus"), t.source());
        assertFallbackShape(t);
    }

    @Test
    void nodeWithoutCpulistOrCpumapGivesTheFallback() {
        online("0-3");
        node(0, "0-1");
        write("devices/system/node/node1/meminfo", "");
        Topology t = detect();
        assertTrue(t.source().startsWith("fallback: cannot read " + sys.resolve("devices/system/node/node1/cpumap")), t.source());
        assertFallbackShape(t);
    }

    @Test
    void malformedNodeListGivesTheFallback() {
        online("0-3");
        node(0, "3-0");
        Topology t = detect();
        assertTrue(t.source().contains("cannot parse") && t.source().contains("descending"), t.source());
        assertFallbackShape(t);
    }

    @Test
    void notLinuxGivesTheFallback() {
        online("0-7");
        node(0, "0-3");
        node(1, "4-7");
        Topology t = Topology.detect("Mac OS X", sys);
        assertEquals("fallback: not Linux (os.name=Mac OS X)", t.source());
        assertFallbackShape(t);
    }

    private static void assertFallbackShape(Topology t) {
        assertTrue(t.isFallback());
        assertEquals(1, t.nodeCount());
        assertEquals(1, t.socketCount());
        assertEquals(1, t.clusterCount());
        int n = Runtime.getRuntime().availableProcessors();
        assertEquals(n, t.cpuCount());
        assertArrayEquals(IntStream.range(0, n).toArray(), t.cpus());
        assertEquals(0, t.nodeOf(n - 1));
        assertTrue(t.toString().contains(t.source()));
    }

    // ---------------------------------------------------------------------------------------------
    // This machine

    @Test
    void detectOnThisMachineAgreesWithSysfs() throws IOException {
        Topology t = Topology.detect();
        if (!System.getProperty("os.name").startsWith("Linux") || !Files.isReadable(Path.of("/sys/devices/system/cpu/online"))) {
            assertTrue(t.isFallback(), t.source());
            return;
        }
        assertEquals("sysfs", t.source());
        int[] online = CpuList.parse(Files.readString(Path.of("/sys/devices/system/cpu/online")));
        assertArrayEquals(online, t.cpus());
        assertTrue(t.nodeCount() >= 1 && t.nodeCount() <= t.cpuCount());
        int covered = 0;
        for (int node = 0; node < t.nodeCount(); node++) {
            int[] cpus = t.cpusOfNode(node);
            assertTrue(cpus.length > 0, "every node has a cpu");
            for (int cpu : cpus) {
                assertEquals(node, t.nodeOf(cpu));
            }
            covered += cpus.length;
            Path list = Path.of("/sys/devices/system/node/node" + t.kernelNodeId(node) + "/cpulist");
            if (Files.isReadable(list)) {
                int[] kernel = CpuList.parse(Files.readString(list));
                assertArrayEquals(IntStream.of(kernel).filter(c -> CpuList.contains(online, c)).toArray(), cpus);
            }
        }
        assertEquals(t.cpuCount(), covered, "the nodes partition the online cpus");
        for (int cpu : online) {
            assertTrue(t.socketOf(cpu) < t.socketCount());
            assertTrue(t.clusterOf(cpu) < t.clusterCount());
        }
    }
}
