package io.numaloom.bench.result;

/**
 * The files of a results directory besides its rows ({@link ResultStore}): the runner writes them and the report
 * and {@code --resume} read them back.
 */
public final class ResultsDirectory {
    /** The effective configuration the run measured, every default filled in. */
    public static final String CONFIG_FILE = "config.json";
    /** The run itself: the configuration file it came from, when it started and finished, its number of points. */
    public static final String RUN_FILE = "run.json";

    private ResultsDirectory() {}
}
