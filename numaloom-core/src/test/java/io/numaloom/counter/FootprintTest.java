package io.numaloom.counter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.ClassLayout;
import org.openjdk.jol.info.FieldLayout;
import org.openjdk.jol.info.GraphLayout;
import org.openjdk.jol.vm.VM;

/**
 * Footprint is a feature: a counter that never met contention is one small object, and a stripe's
 * word has a cache-line pair to itself. Sizes come from JOL; the bounds are computed from the JVM's
 * own header and reference sizes, so the test holds with and without compressed oops and compact
 * object headers.
 */
class FootprintTest {

    private static long align(long size) {
        int alignment = VM.current().objectAlignment();
        return (size + alignment - 1) / alignment * alignment;
    }

    @Test
    void aFreshCounterIsOneObjectWithAnIntAndTwoReferences() {
        CloseableAcquireCounter c = new CloseableAcquireCounter();
        GraphLayout graph = GraphLayout.parseInstance(c);
        long expected = align(VM.current().objectHeaderSize() + VM.current().sizeOfField("int")
                + 2 * VM.current().sizeOfField("oop"));
        System.out.println("fresh CloseableAcquireCounter: " + graph.totalSize() + " bytes in "
                + graph.totalCount() + " object(s)\n" + ClassLayout.parseClass(CloseableAcquireCounter.class).toPrintable());
        assertEquals(1, graph.totalCount(), graph.toFootprint());
        assertEquals(expected, graph.totalSize(), graph.toFootprint());
    }

    @Test
    void anUncontendedCounterStaysThatSmall() {
        CloseableAcquireCounter c = new CloseableAcquireCounter();
        for (int i = 0; i < 1000; i++) {
            c.release(c.tryAcquire());
        }
        assertEquals(1, GraphLayout.parseInstance(c).totalCount(), "one thread alone never inflates it");
        assertEquals(0, c.stripeCount());
    }

    @Test
    void aStripesValueHasAtLeast128BytesOnEitherSide() {
        ClassLayout layout = ClassLayout.parseClass(Stripe.class);
        FieldLayout value = layout.fields().stream().filter(f -> f.name().equals("value")).findFirst().orElseThrow();
        System.out.println("Stripe: " + layout.instanceSize() + " bytes, value at offset " + value.offset());
        assertTrue(value.offset() >= 128, "bytes before the value: " + value.offset());
        assertTrue(layout.instanceSize() - (value.offset() + value.size()) >= 128,
                "bytes after the value: " + (layout.instanceSize() - value.offset() - value.size()));
    }

    @Test
    void aStripedCountersDeepSizeIsTheTableAndItsStripes() {
        CloseableAcquireCounter c = CloseableAcquireCounter.striped();
        GraphLayout graph = GraphLayout.parseInstance(c);
        int slots = c.table().length();
        long stripe = ClassLayout.parseClass(Stripe.class).instanceSize();
        System.out.println("striped CloseableAcquireCounter with " + slots + " stripes: " + graph.totalSize() + " bytes\n"
                + graph.toFootprint());
        assertEquals(1 + 1 + 1 + slots + 1, graph.totalCount(), "counter, Stripes, slot array, stripes, placement");
        assertTrue(graph.totalSize() >= slots * stripe);
        assertTrue(graph.totalSize() <= slots * stripe + 256 + 8L * slots, graph.toFootprint());
    }
}
