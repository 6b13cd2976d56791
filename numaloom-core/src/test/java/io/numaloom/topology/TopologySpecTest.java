package io.numaloom.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class TopologySpecTest {

    private static final int[] TWO = {0, 1};
    private static final int[] EIGHT = {0, 1, 2, 3, 4, 5, 6, 7};

    /** The node of every cpu in {@code cpus}, in order. */
    private static int[] nodes(Topology t, int[] cpus) {
        return IntStream.of(cpus).map(t::nodeOf).toArray();
    }

    private static int[] sockets(Topology t, int[] cpus) {
        return IntStream.of(cpus).map(t::socketOf).toArray();
    }

    // ---------------------------------------------------------------------------------------------
    // nodes=N

    @Test
    void nodesOneOnTwoAndEightCpus() {
        Topology t2 = Topology.parse("nodes=1", TWO);
        assertEquals(1, t2.nodeCount());
        assertEquals(1, t2.socketCount());
        assertArrayEquals(new int[] {0, 0}, nodes(t2, TWO));
        Topology t8 = Topology.parse("nodes=1", EIGHT);
        assertEquals(1, t8.nodeCount());
        assertArrayEquals(EIGHT, t8.cpusOfNode(0));
    }

    @Test
    void nodesTwoOnTwoAndEightCpus() {
        Topology t2 = Topology.parse("nodes=2", TWO);
        assertEquals(2, t2.nodeCount());
        assertArrayEquals(new int[] {0, 1}, nodes(t2, TWO));
        Topology t8 = Topology.parse("nodes=2", EIGHT);
        assertEquals(2, t8.nodeCount());
        assertArrayEquals(new int[] {0, 0, 0, 0, 1, 1, 1, 1}, nodes(t8, EIGHT));
        assertArrayEquals(new int[] {4, 5, 6, 7}, t8.cpusOfNode(1));
        assertEquals(8, t8.cpuCount());
    }

    @Test
    void nodesFourOnEightCpus() {
        Topology t = Topology.parse("nodes=4", EIGHT);
        assertEquals(4, t.nodeCount());
        assertArrayEquals(new int[] {0, 0, 1, 1, 2, 2, 3, 3}, nodes(t, EIGHT));
        assertEquals(4, t.socketCount(), "without sockets=, every virtual node is its own socket");
        assertArrayEquals(new int[] {0, 0, 1, 1, 2, 2, 3, 3}, sockets(t, EIGHT));
        assertEquals(4, t.clusterCount(), "in a virtual topology each node is a cluster");
        for (int cpu : EIGHT) {
            assertEquals(t.nodeOf(cpu), t.clusterOf(cpu));
        }
    }

    @Test
    void nodesFourOnTwoCpusIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Topology.parse("nodes=4", TWO));
        assertEquals("numaloom.topology=\"nodes=4\" is invalid: nodes=4 asks for more nodes than the 2 online cpus (0-1);"
                + " each node needs at least one cpu", e.getMessage());
    }

    @Test
    void unevenSplitGivesTheExtraCpusToTheFirstNodes() {
        Topology t = Topology.parse("nodes=3", EIGHT);
        assertArrayEquals(new int[] {0, 0, 0, 1, 1, 1, 2, 2}, nodes(t, EIGHT));
        Topology t10 = Topology.parse("nodes=4", IntStream.range(0, 10).toArray());
        assertArrayEquals(new int[] {0, 0, 0, 1, 1, 1, 2, 2, 3, 3}, nodes(t10, IntStream.range(0, 10).toArray()));
    }

    @Test
    void splitFollowsAscendingIdsOfSparseOnlineCpus() {
        int[] online = {1, 3, 8, 9, 10, 20};
        Topology t = Topology.parse("nodes=2", new int[] {20, 9, 1, 10, 3, 8});
        assertArrayEquals(online, t.cpus());
        assertArrayEquals(new int[] {0, 0, 0, 1, 1, 1}, nodes(t, online));
        assertEquals(0, t.nodeOf(2), "an id that is not online maps to node 0");
        assertEquals(0, t.nodeOf(21));
        assertEquals(0, t.nodeOf(-5));
    }

    @Test
    void nodesEqualToCpuCountGivesOneCpuPerNode() {
        Topology t = Topology.parse("nodes=8", EIGHT);
        assertArrayEquals(EIGHT, nodes(t, EIGHT));
    }

    @Test
    void socketsGroupNodes() {
        Topology t = Topology.parse("nodes=4,sockets=2", EIGHT);
        assertEquals(4, t.nodeCount());
        assertEquals(2, t.socketCount());
        assertArrayEquals(new int[] {0, 0, 1, 1, 2, 2, 3, 3}, nodes(t, EIGHT));
        assertArrayEquals(new int[] {0, 0, 0, 0, 1, 1, 1, 1}, sockets(t, EIGHT));
        assertArrayEquals(new int[] {4, 5, 6, 7}, t.cpusOfSocket(1));

        Topology uneven = Topology.parse("sockets=2, nodes=3", EIGHT);
        assertArrayEquals(new int[] {0, 0, 0, 0, 0, 0, 1, 1}, sockets(uneven, EIGHT), "nodes 0,1 | 2");

        Topology one = Topology.parse("nodes=2,sockets=1", TWO);
        assertEquals(1, one.socketCount());
        assertEquals(2, one.nodeCount());
    }

    @Test
    void keyedFormToleratesWhitespaceAndCase() {
        Topology t = Topology.parse("  Nodes = 2 ,  SOCKETS=1 ", EIGHT);
        assertEquals(2, t.nodeCount());
        assertEquals(1, t.socketCount());
        assertEquals("numaloom.topology=Nodes = 2 ,  SOCKETS=1 (virtual)", t.source());
    }

    @Test
    void sourceNamesTheSpec() {
        assertEquals("numaloom.topology=nodes=2 (virtual)", Topology.parse("nodes=2", TWO).source());
        assertEquals("numaloom.topology=0:0,1:1 (virtual)", Topology.parse("0:0,1:1", TWO).source());
    }

    // ---------------------------------------------------------------------------------------------
    // cpus:node[@socket]

    @Test
    void explicitMap() {
        Topology t = Topology.parse("0-3:0,4-7:1", EIGHT);
        assertEquals(2, t.nodeCount());
        assertArrayEquals(new int[] {0, 0, 0, 0, 1, 1, 1, 1}, nodes(t, EIGHT));
        assertEquals(2, t.socketCount(), "without @socket every node is its own socket");
        assertEquals(0, t.kernelNodeId(0));
        assertEquals(1, t.kernelNodeId(1));
    }

    @Test
    void explicitMapWithSeveralEntriesPerNodeInAnyOrder() {
        Topology t = Topology.parse("2-3:1, 0-1:0, 6-7:1, 4-5:0", EIGHT);
        assertArrayEquals(new int[] {0, 0, 1, 1, 0, 0, 1, 1}, nodes(t, EIGHT));
        assertArrayEquals(new int[] {0, 1, 4, 5}, t.cpusOfNode(0));
    }

    @Test
    void explicitMapWithSingleCpus() {
        Topology t = Topology.parse("0:1,1:0", TWO);
        assertArrayEquals(new int[] {1, 0}, nodes(t, TWO));
    }

    @Test
    void explicitMapWithSparseIdsMapsThemDensely() {
        Topology t = Topology.parse("0-3:0,4-7:2", EIGHT);
        assertEquals(2, t.nodeCount());
        assertArrayEquals(new int[] {0, 0, 0, 0, 1, 1, 1, 1}, nodes(t, EIGHT));
        assertEquals(2, t.kernelNodeId(1));
        Topology s = Topology.parse("0-1:4@7,2-3:9@3,4-7:6@3", EIGHT);
        assertEquals(3, s.nodeCount());
        assertArrayEquals(new int[] {0, 0, 2, 2, 1, 1, 1, 1}, nodes(s, EIGHT), "node ids 4,6,9 become 0,1,2");
        assertArrayEquals(new int[] {1, 1, 0, 0, 0, 0, 0, 0}, sockets(s, EIGHT), "socket ids 3,7 become 0,1");
        assertEquals(3, s.kernelSocketId(0));
        assertEquals(7, s.kernelSocketId(1));
    }

    @Test
    void explicitMapWithSockets() {
        Topology t = Topology.parse("0-1:0@0,2-3:1@0,4-5:2@1,6-7:3@1", EIGHT);
        assertEquals(4, t.nodeCount());
        assertEquals(2, t.socketCount());
        assertArrayEquals(new int[] {0, 0, 1, 1, 2, 2, 3, 3}, nodes(t, EIGHT));
        assertArrayEquals(new int[] {0, 0, 0, 0, 1, 1, 1, 1}, sockets(t, EIGHT));
        Topology same = Topology.parse("0-1:0@0,4-5:0@0,2-3:1@1,6-7:1@1", EIGHT);
        assertArrayEquals(new int[] {0, 0, 1, 1, 0, 0, 1, 1}, sockets(same, EIGHT),
                "a node may span several entries if they name the same socket");
    }

    @Test
    void parseOverDetectedCpusCoversThem() {
        Topology detected = Topology.detect();
        Topology t = Topology.parse("nodes=1");
        assertArrayEquals(detected.cpus(), t.cpus());
    }

    // ---------------------------------------------------------------------------------------------
    // Bad specs: each names what is wrong, and the message quotes the spec

    static Stream<Arguments> badSpecs() {
        return Stream.of(
                // spec, online cpus, expected problem (after "is invalid: ")
                Arguments.of("", EIGHT, "it is empty"),
                Arguments.of("   ", EIGHT, "it is empty"),
                Arguments.of("2", EIGHT, "a bare number is ambiguous; did you mean nodes=2?"),
                Arguments.of("garbage", EIGHT, "expected nodes=N, nodes=N,sockets=S, or a cpu map"),
                Arguments.of("nodes=0", EIGHT, "nodes must be at least 1, got 0"),
                Arguments.of("nodes=-1", EIGHT, "nodes must be at least 1, got -1"),
                Arguments.of("nodes=", EIGHT, "nodes= has no value"),
                Arguments.of("nodes=two", EIGHT, "nodes needs a whole number, got \"two\""),
                Arguments.of("nodes=2.5", EIGHT, "nodes needs a whole number, got \"2.5\""),
                Arguments.of("nodes=99999999999999999999", EIGHT, "nodes needs a whole number"),
                Arguments.of("nodes=9", EIGHT, "nodes=9 asks for more nodes than the 8 online cpus (0-7)"),
                Arguments.of("nodes=3", TWO, "nodes=3 asks for more nodes than the 2 online cpus (0-1)"),
                Arguments.of("nodes=2", new int[] {5}, "nodes=2 asks for more nodes than the 1 online cpu (5)"),
                Arguments.of("nodes=2,nodes=2", EIGHT, "nodes is given twice"),
                Arguments.of("nodes=2,sockets=1,sockets=1", EIGHT, "sockets is given twice"),
                Arguments.of("sockets=2", EIGHT, "sockets=S needs nodes=N as well"),
                Arguments.of("nodes=2,sockets=3", EIGHT, "sockets=3 asks for more sockets than the 2 nodes"),
                Arguments.of("nodes=2,sockets=0", EIGHT, "sockets must be at least 1, got 0"),
                Arguments.of("nodes=2,clusters=2", EIGHT, "unknown key \"clusters\"; the keys are nodes and sockets"),
                Arguments.of("nodes=2,", EIGHT, "empty item"),
                Arguments.of("nodes=2,4", EIGHT, "\"4\" is not key=value"),
                Arguments.of("nodes=2,0-3:0", EIGHT, "mixes key=value items with cpu:node entries"),
                Arguments.of("0-3:0,4-7", EIGHT, "entry \"4-7\" has no \":node\""),
                Arguments.of("0-3:0,,4-7:1", EIGHT, "empty entry"),
                Arguments.of("0-3:0:1,4-7:1", EIGHT, "entry \"0-3:0:1\" has more than one ':'"),
                Arguments.of("0-3:,4-7:1", EIGHT, "entry \"0-3:\" has no node id"),
                Arguments.of("0-3:x,4-7:1", EIGHT, "entry \"0-3:x\": node id \"x\" is not a whole number"),
                Arguments.of("0-3:-1,4-7:1", EIGHT, "entry \"0-3:-1\": node id \"-1\" is not a whole number"),
                Arguments.of("3-0:0,4-7:1", EIGHT, "entry \"3-0:0\": cpu range \"3-0\" is descending"),
                Arguments.of("a-b:0", EIGHT, "entry \"a-b:0\": \"a-b\" is not a cpu id or a range"),
                Arguments.of("0-3:0,3-7:1", EIGHT, "cpu 3 is mapped twice, by \"0-3:0\" and by \"3-7:1\""),
                Arguments.of("0-3:0,4-9:1", EIGHT, "cpus 8-9 in entry \"4-9:1\" are not online (online cpus: 0-7)"),
                Arguments.of("0:0,1:1,2:1", TWO, "cpu 2 in entry \"2:1\" is not online (online cpus: 0-1)"),
                Arguments.of("0-3:0", EIGHT, "online cpus 4-7 are mapped to no node"),
                Arguments.of("0-3:0,5-7:1", EIGHT, "online cpu 4 is mapped to no node"),
                Arguments.of("0-3:0@0,4-7:1", EIGHT, "entry \"4-7:1\" names no socket but \"0-3:0@0\" does"),
                Arguments.of("0-3:0@,4-7:1@0", EIGHT, "entry \"0-3:0@\" has no socket id"),
                Arguments.of("0-3:0@s,4-7:1@0", EIGHT, "entry \"0-3:0@s\": socket id \"s\" is not a whole number"),
                Arguments.of("0-3:0@0@1,4-7:1@0", EIGHT, "entry \"0-3:0@0@1\" has more than one '@'"),
                Arguments.of("0-1:0@0,2-3:0@1,4-7:1@1", EIGHT,
                        "node 0 is put in socket 0 by \"0-1:0@0\" and in socket 1 by \"2-3:0@1\"; a node lies in one socket"));
    }

    @ParameterizedTest(name = "[{index}] \"{0}\"")
    @MethodSource("badSpecs")
    void badSpecIsRejectedWithAMessageQuotingItAndNamingTheProblem(String spec, int[] online, String problem) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Topology.parse(spec, online));
        String prefix = "numaloom.topology=\"" + spec + "\" is invalid: ";
        assertTrue(e.getMessage().startsWith(prefix), () -> "message does not quote the spec: " + e.getMessage());
        assertTrue(e.getMessage().contains(problem),
                () -> "message does not say \"" + problem + "\": " + e.getMessage());
    }

    @Test
    void badOnlineCpuArgumentsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> Topology.parse("nodes=1", new int[0]));
        assertThrows(IllegalArgumentException.class, () -> Topology.parse("nodes=1", new int[] {-1, 0}));
        assertThrows(IllegalArgumentException.class, () -> Topology.parse("nodes=1", new int[] {1, 1}));
        assertThrows(NullPointerException.class, () -> Topology.parse(null, TWO));
        assertThrows(NullPointerException.class, () -> Topology.parse("nodes=1", null));
    }

    @Test
    void parseDoesNotKeepTheCallersArray() {
        int[] online = {0, 1, 2, 3};
        Topology t = Topology.parse("nodes=2", online);
        online[3] = 99;
        assertArrayEquals(new int[] {0, 1, 2, 3}, t.cpus());
    }

    @Test
    void splitIsAsEvenAsPossible() {
        for (int items = 1; items <= 40; items++) {
            for (int groups = 1; groups <= items; groups++) {
                int[] groupOf = TopologySpec.split(items, groups);
                int[] sizes = new int[groups];
                for (int i = 0; i < items; i++) {
                    sizes[groupOf[i]]++;
                    if (i > 0) {
                        assertTrue(groupOf[i] >= groupOf[i - 1], "groups are contiguous");
                    }
                }
                int min = IntStream.of(sizes).min().orElseThrow();
                int max = IntStream.of(sizes).max().orElseThrow();
                assertTrue(min >= 1 && max - min <= 1, () -> "sizes " + java.util.Arrays.toString(sizes));
            }
        }
    }
}
