package io.numaloom.bench.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.NoSuchElementException;

/**
 * A workload's validated settings: the effective payload fields (defaults filled in) that the workload
 * declared. The config reader has checked every type and bound, so the getters only convert.
 */
public record Settings(ObjectNode values) {

    public long getLong(String name) {
        return require(name).asLong();
    }

    public int getInt(String name) {
        return require(name).asInt();
    }

    public boolean getBoolean(String name) {
        return require(name).asBoolean();
    }

    public String getString(String name) {
        return require(name).asText();
    }

    private JsonNode require(String name) {
        JsonNode node = values.get(name);
        if (node == null) {
            throw new NoSuchElementException("workload setting '" + name + "' is missing from " + values);
        }
        return node;
    }
}
