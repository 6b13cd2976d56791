package io.numaloom.bench.config;

import java.util.List;

/**
 * One field of a bench's {@code payload}: its JSON type, its lower bound, its default and what it means.
 * The config reader validates against these, the effective configuration is written with every default
 * filled in, and {@code ./numaloom bench --help} prints them.
 *
 * @param name         the JSON key
 * @param kind         the JSON type
 * @param min          the smallest allowed value of an {@link Kind#INT} or {@link Kind#LONG}
 * @param defaultValue the value when the field is absent ({@code Long}, {@code Integer}, {@code Boolean},
 *                     {@code String} or {@code List<String>}); null for a field that is required or whose
 *                     default is computed by the reader
 * @param choices      the allowed values of a {@link Kind#CHOICE}
 * @param doc          one line for the help text
 */
public record Field(String name, Kind kind, long min, Object defaultValue, List<String> choices, String doc) {

    /** JSON types of payload fields. */
    public enum Kind {
        /** A whole number that fits an {@code int}. */
        INT("an integer"),
        /** A whole number that fits a {@code long}. */
        LONG("an integer"),
        BOOL("true or false"),
        STRING("a string"),
        /** A string from {@link Field#choices()}. */
        CHOICE("a string"),
        /** An array of strings. */
        STRINGS("an array of strings");

        private final String expected;

        Kind(String expected) {
            this.expected = expected;
        }

        /** What a value of this kind looks like, for error messages. */
        public String expected() {
            return expected;
        }
    }

    public static Field intField(String name, int min, Integer defaultValue, String doc) {
        return new Field(name, Kind.INT, min, defaultValue, List.of(), doc);
    }

    public static Field longField(String name, long min, Long defaultValue, String doc) {
        return new Field(name, Kind.LONG, min, defaultValue, List.of(), doc);
    }

    public static Field boolField(String name, boolean defaultValue, String doc) {
        return new Field(name, Kind.BOOL, 0, defaultValue, List.of(), doc);
    }

    public static Field stringField(String name, String defaultValue, String doc) {
        return new Field(name, Kind.STRING, 0, defaultValue, List.of(), doc);
    }

    public static Field choiceField(String name, String defaultValue, List<String> choices, String doc) {
        return new Field(name, Kind.CHOICE, 0, defaultValue, List.copyOf(choices), doc);
    }

    public static Field stringsField(String name, List<String> defaultValue, String doc) {
        return new Field(name, Kind.STRINGS, 0, defaultValue, List.of(), doc);
    }

    /** This field with another default (a workload that needs a different one for a common field). */
    public Field withDefault(Object value) {
        return new Field(name, kind, min, value, choices, doc);
    }

    /** One help line: name, type, bound, default, meaning. */
    public String helpLine() {
        StringBuilder sb = new StringBuilder(name).append(" (");
        switch (kind) {
            case INT, LONG -> sb.append(min == Long.MIN_VALUE || min == Integer.MIN_VALUE ? "integer" : "integer >= " + min);
            case BOOL -> sb.append("boolean");
            case STRING -> sb.append("string");
            case CHOICE -> sb.append(String.join(" | ", choices));
            case STRINGS -> sb.append("array of strings");
        }
        if (defaultValue != null) {
            sb.append(", default ").append(defaultValue instanceof String s ? '"' + s + '"' : defaultValue);
        }
        return sb.append("): ").append(doc).toString();
    }
}
