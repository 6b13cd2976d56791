package io.numaloom.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PointSpecTest {

    @Test
    void encodesToAUrlSafeParameterAndBack() {
        ObjectNode settings = JsonNodeFactory.instance.objectNode().put("actionsCount", 100).put("yieldInCrit", true);
        PointSpec spec = new PointSpec("high/contention", "consumeCpu", settings, "VNA", 8, "virtual", 2, true, "numa", 500, 700,
                true, 60, "/tmp/a dir/with, comma");
        String encoded = spec.encode();
        assertTrue(encoded.matches("[A-Za-z0-9_-]+"), encoded);
        assertEquals(spec, PointSpec.decode(encoded));
        assertThrows(IllegalArgumentException.class, () -> PointSpec.decode("bm90IGpzb24"));
    }
}
