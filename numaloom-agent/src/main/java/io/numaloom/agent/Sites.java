package io.numaloom.agent;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the agent did, for its report: every site it swapped (with {@code counts}, each site's acquisitions and
 * contended acquisitions, counted by {@link CountingLock}), every place it left as it was, and why.
 */
public final class Sites {
    private Sites() {}

    /** A swapped site and, with {@code counts}, its counters. */
    record Swapped(LockSwap.Site site, LongAdder acquisitions, LongAdder contended) {}

    private static final List<Swapped> SWAPPED = new ArrayList<>();
    private static final List<LockSwap.Site> LEFT = new ArrayList<>();
    private static final List<String> CLASSES_LEFT = new ArrayList<>();

    /** Records a swapped site; returns its number, which a {@link CountingLock} made there is given. */
    static synchronized int register(LockSwap.Site site) {
        SWAPPED.add(new Swapped(site, new LongAdder(), new LongAdder()));
        return SWAPPED.size() - 1;
    }

    /** Records a class's result: the sites swapped without a number (a target without one) and those left. */
    static synchronized void record(LockSwap.Result result, boolean numbered) {
        if (!numbered) {
            for (LockSwap.Site s : result.swapped()) {
                SWAPPED.add(new Swapped(s, null, null));
            }
        } else {
            // numbered sites registered themselves; the class-level entry (a swapped superclass) did not
            for (LockSwap.Site s : result.swapped()) {
                if (s.method().equals("<class>")) {
                    SWAPPED.add(new Swapped(s, null, null));
                }
            }
        }
        LEFT.addAll(result.left());
    }

    /** Records a class the agent could not rewrite, left as it was. */
    static synchronized void classLeft(String className, Throwable why) {
        CLASSES_LEFT.add(className.replace('/', '.') + ": " + why);
    }

    static synchronized Swapped swapped(int site) {
        return SWAPPED.get(site);
    }

    /** The site's name, as numaloom's JFR events carry it. */
    static String name(int site) {
        return swapped(site).site().where();
    }

    /** The report, one line per site. */
    static synchronized String report() {
        StringBuilder sb = new StringBuilder("numaloom-agent: ").append(SWAPPED.size()).append(" site")
                .append(SWAPPED.size() == 1 ? "" : "s").append(" swapped to VnaLock, ").append(LEFT.size() + CLASSES_LEFT.size())
                .append(" left as they were\n");
        for (Swapped s : SWAPPED) {
            sb.append("  swapped ").append(s.site().where()).append(": ").append(s.site().what());
            if (s.acquisitions() != null) {
                sb.append(" (").append(s.acquisitions().sum()).append(" acquisitions, ").append(s.contended().sum())
                        .append(" contended)");
            }
            sb.append('\n');
        }
        for (LockSwap.Site s : LEFT) {
            sb.append("  left    ").append(s.where()).append(": ").append(s.what()).append('\n');
        }
        for (String c : CLASSES_LEFT) {
            sb.append("  left    ").append(c).append(" (the class could not be rewritten)\n");
        }
        return sb.toString();
    }

    /** Writes the report to {@code file}, or to {@code err} if null. */
    static void write(Path file, PrintStream err) {
        String text = report();
        if (file == null) {
            err.print(text);
            return;
        }
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            err.println("numaloom-agent: cannot write the report to " + file + ": " + e + "; here it is:");
            err.print(text);
        }
    }
}
