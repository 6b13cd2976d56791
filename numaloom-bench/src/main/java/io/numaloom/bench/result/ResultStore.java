package io.numaloom.bench.result;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The results of a run directory, {@code results.json} and {@code results.csv}, kept point by point so that
 * a crash loses at most the point in flight.
 *
 * <p>{@code results.json} is the record: a JSON array with one row per point, rewritten after every point
 * to a temporary file that is forced to disk and atomically renamed over the old one, so it is always
 * complete. {@code results.csv} has the same rows; a new point is appended as one forced line, and the
 * whole file is regenerated from the JSON when a row is replaced (a failed point measured again) or a run
 * is resumed (which also repairs a line cut short by a crash).
 *
 * <p>Not thread-safe: one run writes a directory at a time.
 */
public final class ResultStore {
    public static final String JSON_FILE = "results.json";
    public static final String CSV_FILE = "results.csv";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final Path dir;
    private final List<PointResult> rows;

    private ResultStore(Path dir, List<PointResult> rows) {
        this.dir = dir;
        this.rows = rows;
    }

    /** Opens the directory's results, if any, and regenerates the CSV from them. */
    public static ResultStore open(Path dir) throws IOException {
        Files.createDirectories(dir);
        ResultStore store = new ResultStore(dir, new ArrayList<>(load(dir)));
        store.writeCsv();
        return store;
    }

    /** The rows of {@code results.json} in {@code dir}; empty if there is none. */
    public static List<PointResult> load(Path dir) throws IOException {
        Path file = dir.resolve(JSON_FILE);
        if (!Files.exists(file)) {
            return List.of();
        }
        return JSON.readValue(file.toFile(), new TypeReference<List<PointResult>>() {});
    }

    /** Every row, in the order the points finished. */
    public List<PointResult> rows() {
        return List.copyOf(rows);
    }

    /** The row of a point key, if measured. */
    public Optional<PointResult> find(String key) {
        return rows.stream().filter(r -> r.key().equals(key)).findFirst();
    }

    /** Records a point: replaces an earlier row of the same key, else appends. Durable on return. */
    public void add(PointResult row) throws IOException {
        int existing = -1;
        for (int i = 0; i < rows.size(); i++) {
            if (rows.get(i).key().equals(row.key())) {
                existing = i;
            }
        }
        if (existing >= 0) {
            rows.set(existing, row);
        } else {
            rows.add(row);
        }
        writeJson();
        if (existing >= 0 || !Files.exists(dir.resolve(CSV_FILE))) {
            writeCsv();
        } else {
            appendForced(dir.resolve(CSV_FILE), row.csvLine() + "\n");
        }
    }

    private void writeJson() throws IOException {
        Path tmp = dir.resolve(JSON_FILE + ".tmp");
        byte[] bytes = JSON.writeValueAsBytes(rows);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(java.nio.ByteBuffer.wrap(bytes));
            ch.force(true);
        }
        Files.move(tmp, dir.resolve(JSON_FILE), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private void writeCsv() throws IOException {
        StringBuilder sb = new StringBuilder(String.join(",", PointResult.CSV_HEADER)).append('\n');
        for (PointResult r : rows) {
            sb.append(r.csvLine()).append('\n');
        }
        Path tmp = dir.resolve(CSV_FILE + ".tmp");
        Files.writeString(tmp, sb, StandardCharsets.UTF_8);
        Files.move(tmp, dir.resolve(CSV_FILE), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void appendForced(Path file, String text) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.APPEND, StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
            ch.force(true);
        }
    }
}
