package io.numaloom.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The query API of Topology; detection and parsing have their own tests. */
class TopologyTest {

    private static final int[] EIGHT = {0, 1, 2, 3, 4, 5, 6, 7};

    @Test
    void currentIsCachedAndFollowsTheProperty() {
        Topology t = Topology.current();
        assertSame(t, Topology.current());
        String spec = System.getProperty(Topology.PROPERTY);
        if (spec == null || spec.isBlank() || spec.strip().equals("detect")) {
            assertEquals(Topology.detect().toString(), t.toString());
        } else {
            assertEquals(Topology.parse(spec).toString(), t.toString());
        }
    }

    @Test
    void returnedArraysAreCopies() {
        Topology t = Topology.parse("nodes=2", EIGHT);
        t.cpus()[0] = 42;
        t.cpusOfNode(0)[0] = 42;
        t.cpusOfSocket(0)[0] = 42;
        t.cpusOfCluster(0)[0] = 42;
        assertArrayEquals(EIGHT, t.cpus());
        assertArrayEquals(new int[] {0, 1, 2, 3}, t.cpusOfNode(0));
        assertArrayEquals(new int[] {0, 1, 2, 3}, t.cpusOfSocket(0));
        assertArrayEquals(new int[] {0, 1, 2, 3}, t.cpusOfCluster(0));
    }

    @Test
    void groupIndicesAreChecked() {
        Topology t = Topology.parse("nodes=2,sockets=1", EIGHT);
        IllegalArgumentException node = assertThrows(IllegalArgumentException.class, () -> t.cpusOfNode(2));
        assertEquals("node 2 is not one of this topology's 2 nodes (0 to 1); -Dnumaloom.topology=nodes=2 (or more)"
                + " splits this machine's CPUs into virtual nodes", node.getMessage());
        assertThrows(IllegalArgumentException.class, () -> t.cpusOfNode(-1));
        assertThrows(IllegalArgumentException.class, () -> t.kernelNodeId(2));
        IllegalArgumentException socket = assertThrows(IllegalArgumentException.class, () -> t.cpusOfSocket(1));
        assertTrue(socket.getMessage().startsWith("socket 1 is not one of this topology's 1 socket (0); "), socket.getMessage());
        assertTrue(socket.getMessage().contains("-Dnumaloom.topology=nodes=2,sockets=2"), socket.getMessage());
        assertThrows(IllegalArgumentException.class, () -> t.kernelSocketId(1));
        IllegalArgumentException cluster = assertThrows(IllegalArgumentException.class, () -> t.cpusOfCluster(2));
        assertEquals("cluster 2 is not one of this topology's 2 clusters (0 to 1)", cluster.getMessage());
        IllegalArgumentException one = assertThrows(IllegalArgumentException.class,
                () -> Topology.parse("nodes=1", EIGHT).cpusOfNode(1));
        assertTrue(one.getMessage().startsWith("node 1 is not one of this topology's 1 node (0); "), one.getMessage());
    }

    @Test
    void toStringListsNodesWithTheirCpusAndSockets() {
        Topology t = Topology.parse("0-1:0@0,2-3:2@0,4-7:5@1", EIGHT);
        String nl = System.lineSeparator();
        assertEquals("Topology: 8 cpus (0-7), 3 nodes, 2 sockets, 3 clusters (one per node);"
                + " source: numaloom.topology=0-1:0@0,2-3:2@0,4-7:5@1 (virtual)" + nl
                + "  node 0 (kernel node 0): cpus 0-1, socket 0" + nl
                + "  node 1 (kernel node 2): cpus 2-3, socket 0" + nl
                + "  node 2 (kernel node 5): cpus 4-7, socket 1", t.toString());
        assertEquals("Topology: 1 cpu (3), 1 node, 1 socket, 1 cluster (one per node); source: numaloom.topology=nodes=1 (virtual)"
                + nl + "  node 0 (kernel node 0): cpus 3, socket 0", Topology.parse("nodes=1", new int[] {3}).toString());
    }

    @Test
    void perCpuQueriesMapIdsThatAreNotOnlineToZero() {
        Topology t = Topology.parse("0:1,2:0,4:2", new int[] {0, 2, 4});
        assertEquals(1, t.nodeOf(0));
        assertEquals(0, t.nodeOf(1), "offline id between online ones");
        assertEquals(2, t.nodeOf(4));
        for (int id : new int[] {-1, 5, 1 << 20, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
            assertEquals(0, t.nodeOf(id));
            assertEquals(0, t.socketOf(id));
            assertEquals(0, t.clusterOf(id));
        }
    }
}
