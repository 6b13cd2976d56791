package io.numaloom.bench.workloads;

import io.numaloom.bench.GuardedRegion;
import io.numaloom.bench.Worker;
import io.numaloom.bench.config.Field;
import io.numaloom.bench.config.Settings;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The VNA thesis's text-statistics task (ITMO bachelor thesis, 2023, §4.4): {@code lines} lines of text are split evenly over the
 * threads; each thread splits its lines into words and counts every word in one of {@code maps} hash maps,
 * chosen by the word's hash (the striping of {@code ConcurrentHashMap}), each map guarded by a lock of its
 * own. The score is the time to count the whole text; every round checks the counts exactly.
 *
 * <p>The text is generated deterministically from {@code seed}, once per measured JVM and untimed: a
 * vocabulary of {@code vocabulary} pronounceable words, and lines of {@code wordsPerLine} words drawn with
 * a Zipf-like law (rank {@code r} has probability about proportional to {@code 1/(r+1)}, as in natural
 * text), so that a few words and hence a few maps are hot. Nothing is downloaded.
 *
 * <p>An operation is one word counted, i.e. one critical section.
 */
public final class TextStats implements Workload {
    static final List<Field> FIELDS = List.of(
            Field.intField("lines", 1, 100_000, "lines of text, split evenly over the threads"),
            Field.intField("wordsPerLine", 1, 10, "words on every line"),
            Field.intField("vocabulary", 1, 10_000, "distinct words the text is drawn from"),
            Field.intField("maps", 1, 16, "hash maps the counts are striped over, each with its own lock"),
            Field.longField("seed", Long.MIN_VALUE, 2023L, "seed of the text generator"));

    private static final String[] SYLLABLES = {
        "ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "de", "gu", "pa", "zo", "be", "fi", "ho", "ju",
    };

    private final String[] lines;
    private final int wordsPerLine;
    private final int maps;
    private final Map<String, Integer> expected;

    public TextStats(Settings settings) {
        this(settings.getInt("lines"), settings.getInt("wordsPerLine"), settings.getInt("vocabulary"),
                settings.getInt("maps"), settings.getLong("seed"));
    }

    TextStats(int lineCount, int wordsPerLine, int vocabulary, int maps, long seed) {
        this.wordsPerLine = wordsPerLine;
        this.maps = maps;
        String[] words = new String[vocabulary];
        for (int i = 0; i < vocabulary; i++) {
            words[i] = word(i);
        }
        SplittableRandom random = new SplittableRandom(seed);
        double logRange = Math.log(vocabulary + 1.0);
        int[] occurrences = new int[vocabulary];
        this.lines = new String[lineCount];
        StringBuilder line = new StringBuilder();
        for (int l = 0; l < lineCount; l++) {
            line.setLength(0);
            for (int w = 0; w < wordsPerLine; w++) {
                int rank = Math.min(vocabulary - 1, (int) Math.exp(random.nextDouble() * logRange) - 1);
                occurrences[rank]++;
                if (w > 0) {
                    line.append(' ');
                }
                line.append(words[rank]);
            }
            lines[l] = line.toString();
        }
        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < vocabulary; i++) {
            if (occurrences[i] > 0) {
                counts.put(words[i], occurrences[i]);
            }
        }
        this.expected = Map.copyOf(counts);
    }

    /** The {@code index}-th word of the vocabulary: its base-16 digits spelled as syllables, distinct. */
    static String word(int index) {
        StringBuilder sb = new StringBuilder();
        int rest = index;
        do {
            sb.append(SYLLABLES[rest & 15]);
            rest >>>= 4;
        } while (rest != 0);
        return sb.toString();
    }

    /** The stripe of a word: its hash spread like {@code HashMap}'s, modulo the number of maps. */
    static int stripe(String word, int maps) {
        int h = word.hashCode();
        h ^= h >>> 16;
        return Math.floorMod(h, maps);
    }

    /** The generated text (for tests). */
    List<String> lines() {
        return List.of(lines);
    }

    /** The exact count of every word in the text. */
    Map<String, Integer> expectedCounts() {
        return expected;
    }

    /**
     * Checks striped counts against the expected ones: every word in its own stripe, with exactly its
     * count, and no other word.
     *
     * @throws IllegalStateException naming the first difference
     */
    static void verifyCounts(List<? extends Map<String, Integer>> stripes, Map<String, Integer> expected) {
        long seen = 0;
        for (int s = 0; s < stripes.size(); s++) {
            for (Map.Entry<String, Integer> e : stripes.get(s).entrySet()) {
                String word = e.getKey();
                Integer want = expected.get(word);
                if (want == null) {
                    throw new IllegalStateException("textStats: counted a word that is not in the text: '" + word + "'");
                }
                if (stripe(word, stripes.size()) != s) {
                    throw new IllegalStateException("textStats: word '" + word + "' counted in map " + s
                            + " instead of " + stripe(word, stripes.size()));
                }
                if (!want.equals(e.getValue())) {
                    throw new IllegalStateException("textStats: word '" + word + "' counted " + e.getValue()
                            + " times, expected " + want + ": an update was lost, the lock let two threads in");
                }
                seen++;
            }
        }
        if (seen != expected.size()) {
            throw new IllegalStateException("textStats: " + seen + " distinct words counted, expected " + expected.size());
        }
    }

    /** One thread's counting call: the word and map are set before each acquisition. */
    private static final class Count implements Runnable {
        HashMap<String, Integer> map;
        String word;

        @Override
        public void run() {
            map.merge(word, 1, Integer::sum);
        }
    }

    @Override
    public Round newRound(RoundContext context) {
        List<HashMap<String, Integer>> stripes = new ArrayList<>(maps);
        List<GuardedRegion> regions = new ArrayList<>(maps);
        for (int s = 0; s < maps; s++) {
            stripes.add(new HashMap<>());
            regions.add(context.newRegion());
        }
        return new Round() {
            @Override
            public void runThread(Worker worker) {
                Count count = new Count();
                int first = (int) worker.shareStart(lines.length);
                int end = first + (int) worker.share(lines.length);
                for (int l = first; l < end; l++) {
                    String line = lines[l];
                    int from = 0;
                    while (from <= line.length()) {
                        int space = line.indexOf(' ', from);
                        int to = space < 0 ? line.length() : space;
                        String word = line.substring(from, to);
                        int s = stripe(word, maps);
                        count.map = stripes.get(s);
                        count.word = word;
                        worker.locked(regions.get(s), count);
                        worker.completed();
                        from = to + 1;
                    }
                }
            }

            @Override
            public long operations() {
                return (long) lines.length * wordsPerLine;
            }

            @Override
            public List<GuardedRegion> regions() {
                return regions;
            }

            @Override
            public void verify() {
                verifyCounts(stripes, expected);
            }
        };
    }
}
