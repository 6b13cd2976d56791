package io.numaloom.bench.run;

import io.numaloom.bench.run.JmhJarRun.Key;
import io.numaloom.bench.run.JmhJarRun.Score;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reading JMH's JSON result: primary scores per benchmark, mode and other parameters; times inverted. */
class JmhJarRunTest {
    /** What JMH 1.37 writes with -rf json (trimmed to the fields read, plus some it has). */
    static final String RESULT = """
            [
              { "jmhVersion": "1.37", "benchmark": "com.acme.Bench.acquire", "mode": "thrpt", "threads": 1, "forks": 1,
                "params": { "lock": "VNA", "size": "10" },
                "primaryMetric": { "score": 120.5, "scoreError": "NaN", "scoreUnit": "ops/us", "rawData": [[120.5]] },
                "secondaryMetrics": {} },
              { "jmhVersion": "1.37", "benchmark": "com.acme.Bench.acquire", "mode": "avgt", "threads": 1, "forks": 1,
                "params": { "size": "10", "lock": "VNA" },
                "primaryMetric": { "score": 8.0, "scoreUnit": "ns/op" } },
              { "benchmark": "com.acme.Bench.noParams", "mode": "ss",
                "primaryMetric": { "score": 250.0, "scoreUnit": "us/op" } },
              { "benchmark": "com.acme.Bench.sampled", "mode": "sample", "params": { "lock": "VNA" },
                "primaryMetric": { "score": 4.0, "scoreUnit": "us/op", "scorePercentiles": { "50.0": 3.9 } } }
            ]
            """;

    @Test
    void eachBenchmarkModeAndOtherParamsGivesOneScoreWithTimesInverted() throws IOException {
        List<Score> scores = JmhJarRun.parse(RESULT, "lock");
        assertEquals(4, scores.size());
        Score thrpt = scores.get(0);
        assertEquals(new Key("com.acme.Bench.acquire", "thrpt", Map.of("size", "10")), thrpt.key(),
                "the compared parameter is no part of the key; the others are");
        assertEquals(120.5, thrpt.score());
        assertEquals(120.5, thrpt.faster(), "throughput: higher is faster as it is");
        assertEquals("ops/us", thrpt.unit());
        Score avgt = scores.get(1);
        assertEquals(8.0, avgt.score());
        assertEquals(1 / 8.0, avgt.faster(), 1e-15, "average time: inverted, so that a ratio above 1 means faster");
        assertEquals("com.acme.Bench.acquire (avgt, size=10)", avgt.key().label());
        assertEquals(1 / 250.0, scores.get(2).faster(), 1e-15, "single shot: inverted");
        assertEquals(Map.of(), scores.get(2).key().params());
        assertEquals("", scores.get(2).key().paramsText());
        assertEquals(1 / 4.0, scores.get(3).faster(), 1e-15, "sample time: its mean, inverted");
        // A slower value in average time has the lower "faster" score, as it does in throughput.
        Score slowerTime = new Score(avgt.key(), 16.0, "ns/op");
        assertTrue(slowerTime.faster() / avgt.faster() < 1);
    }

    @Test
    void modes() {
        assertTrue(JmhJarRun.higherIsBetter("thrpt"));
        for (String time : new String[] {"avgt", "sample", "ss"}) {
            assertFalse(JmhJarRun.higherIsBetter(time), time);
        }
        assertThrows(IllegalArgumentException.class, () -> JmhJarRun.higherIsBetter("all"));
    }

    @Test
    void whatIsNotJmhsResultIsAnIoError() {
        for (String bad : new String[] {"{}", "[{\"benchmark\": \"b\", \"mode\": \"thrpt\"}]",
                "[{\"benchmark\": \"b\", \"mode\": \"weird\", \"primaryMetric\": {\"score\": 1}}]", "not json"}) {
            assertThrows(IOException.class, () -> JmhJarRun.parse(bad, "lock"), bad);
        }
        assertEquals(List.of(), assertDoesNotThrowParse("[]"), "a run where every benchmark failed: no score");
    }

    private static List<Score> assertDoesNotThrowParse(String json) {
        try {
            return JmhJarRun.parse(json, "lock");
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void theForksCommandLine() {
        List<String> cmd = JmhJarRun.command("/jdk/bin/java", List.of("-Xmx1g"), Path.of("b.jar"), "Bench", "lock", "VNA",
                Path.of("out/r.json"), List.of("-wi", "1"));
        assertEquals(List.of("/jdk/bin/java", "-Xmx1g", "-jar", "b.jar", "Bench", "-p", "lock=VNA", "-f", "1", "-rf", "json",
                "-rff", Path.of("out/r.json").toString(), "-wi", "1"), cmd);
        assertFalse(JmhJarRun.command("java", List.of(), Path.of("b.jar"), null, "lock", "VNA", Path.of("r.json"), List.of())
                .contains("null"), "no regex: every benchmark");
        assertEquals("v2-a_b_TWIN", JmhJarRun.fileStem(2, "a/b_TWIN"));
    }
}
