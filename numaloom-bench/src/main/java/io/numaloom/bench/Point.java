package io.numaloom.bench;

import io.numaloom.bench.config.BenchDefinition;

/**
 * One measurement of a run: a bench, a lock and a thread count.
 *
 * @param bench   the bench
 * @param lock    the lock's name in the results (its label, {@link BenchDefinition#lockEntry})
 * @param threads the number of worker threads
 */
public record Point(BenchDefinition bench, String lock, int threads) {

    /** The point's identity within a run: {@code benchId/lock/threads}. */
    public String key() {
        return key(bench.id(), lock, threads);
    }

    public static String key(String benchId, String lock, int threads) {
        return benchId + "/" + lock + "/" + threads;
    }

    /** A file-name stem for the point's log and work directory. */
    public String fileStem() {
        return bench.id() + "_" + lock + "_" + threads;
    }

    /** The fingerprint of this point's measurement ({@link BenchDefinition#fingerprint(String)}). */
    public String fingerprint() {
        return bench.fingerprint(lock);
    }

    /** The spec sent to the measured JVMs: they instantiate the lock the entry names, not its label. */
    public PointSpec spec(String sidecarDir) {
        return new PointSpec(bench.id(), bench.kind().jsonName(), bench.settings().values(), bench.lockEntry(lock).lock(), threads,
                bench.threadType(), bench.carriers(), bench.pinCarriers(), bench.scheduler(), bench.remotePenaltyNs(), bench.migrationPenaltyNs(),
                bench.recordLatency(), bench.timeoutSeconds(), sidecarDir);
    }
}
