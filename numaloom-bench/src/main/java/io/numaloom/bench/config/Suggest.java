package io.numaloom.bench.config;

import java.util.Collection;
import java.util.Locale;
import java.util.Optional;

/**
 * "Did you mean": the known name closest to a mistyped one. A candidate matches when it equals the input
 * ignoring case, when one is a prefix of the other ignoring case ({@code VnaLock} for {@code VNA}), or
 * when their edit distance (Damerau: a swap of two neighbours counts once, so {@code bnech} is one edit
 * from {@code bench}) is at most a third of the input's length, and at least 1. Of several prefixes, or
 * of a prefix and a near miss, the one with the fewest edits wins: {@code thread} suggests {@code threads},
 * not {@code threadType}; on a tie, a name the input begins wins.
 */
public final class Suggest {
    private Suggest() {}

    /** The closest candidate, if one is close enough. */
    public static Optional<String> closest(String input, Collection<String> candidates) {
        String in = input.toLowerCase(Locale.ROOT);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        int bestEdits = Integer.MAX_VALUE;
        boolean bestCompletes = false;
        for (String c : candidates) {
            String cand = c.toLowerCase(Locale.ROOT);
            int edits = distance(in, cand);
            // A prefix counts as one edit for whether it is close enough, however long the rest.
            int d = cand.equals(in) ? 0
                    : !in.isEmpty() && (cand.startsWith(in) || in.startsWith(cand)) ? 1
                    : edits;
            // On a tie, a candidate that the input begins (VNA_2 of VNA_2_Q) wins over one that begins the input.
            boolean completes = cand.startsWith(in);
            if (d < bestDistance || d == bestDistance && (edits < bestEdits || edits == bestEdits && completes && !bestCompletes)) {
                best = c;
                bestDistance = d;
                bestEdits = edits;
                bestCompletes = completes;
            }
        }
        return bestDistance <= Math.max(1, input.length() / 3) ? Optional.ofNullable(best) : Optional.empty();
    }

    /** {@code " (did you mean 'X'?)"}, or the empty string. */
    public static String hint(String input, Collection<String> candidates) {
        return closest(input, candidates).map(c -> " (did you mean '" + c + "'?)").orElse("");
    }

    /** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
