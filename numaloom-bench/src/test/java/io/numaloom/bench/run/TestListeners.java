package io.numaloom.bench.run;

import io.numaloom.bench.Point;
import io.numaloom.bench.result.PointResult;

import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;

/** Run listeners for tests: they ignore progress and hand each notice to the test. */
public final class TestListeners {
    /** Ignores everything. */
    public static final BenchRunner.Listener SILENT = onNotice(text -> {});

    private TestListeners() {}

    /** A listener that passes every notice to {@code notices} and ignores the rest. */
    public static BenchRunner.Listener onNotice(Consumer<String> notices) {
        return new BenchRunner.Listener() {
            @Override
            public void runStarted(Path out, int points, int alreadyDone) {}

            @Override
            public void pointStarted(Point point, int ordinal, int points, Duration elapsed, Duration eta) {}

            @Override
            public void pointFinished(PointResult result, int ordinal, int points) {}

            @Override
            public void notice(String text) {
                notices.accept(text);
            }
        };
    }
}
