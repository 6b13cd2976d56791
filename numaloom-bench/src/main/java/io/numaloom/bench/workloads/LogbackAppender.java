package io.numaloom.bench.workloads;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;
import ch.qos.logback.core.OutputStreamAppender;
import io.numaloom.bench.Worker;
import io.numaloom.bench.config.Field;
import io.numaloom.bench.config.Settings;
import org.openjdk.jmh.infra.Blackhole;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.locks.Lock;

/**
 * The {@code logback} workload: an application nobody here wrote. Every thread logs through one logback
 * {@link FileAppender}, as a service's request handlers log to one file. Since 1.3 logback's
 * {@link OutputStreamAppender} writes each event's bytes under its own {@code ReentrantLock} (it replaced
 * {@code synchronized} for virtual threads), after encoding the event outside it; with {@code immediateFlush} (the
 * default) each event is one write to the file under that lock. logback runs unchanged: the lock under test is
 * logback's own, or the one numaloom's agent swaps in ({@code -javaagent:numaloom-agent/target/numaloom-agent.jar}
 * in the lock entry's {@code jvmArgs}); the bench's lock name only labels the run.
 *
 * <p>Measured: log events per millisecond.
 *
 * <p>Parameters: {@code actionsCount}, log events per round split over the threads; {@code beforeCpuTokens},
 * {@code Blackhole.consumeCPU} work before each event (the rest of a request).
 *
 * <p>Check: the file holds exactly one line per event, and each thread's lines in the order it logged them; the
 * appender's lock is numaloom's exactly when the agent is on ({@link AgentSwap}).
 */
public final class LogbackAppender implements Workload {
    static final List<Field> FIELDS = List.of(
            Field.longField("actionsCount", 1, 100_000L, "log events in total, split evenly over the threads"),
            Field.longField("beforeCpuTokens", 0, 0L, "Blackhole.consumeCPU tokens before each log event"));

    private final long actions;
    private final long beforeTokens;

    public LogbackAppender(Settings settings) {
        this.actions = settings.getLong("actionsCount");
        this.beforeTokens = settings.getLong("beforeCpuTokens");
    }

    /**
     * The round's check: {@code file} holds exactly {@code actions} lines, {@code "INFO orders t<thread> <i>"}, each
     * thread's {@code i} counting up from 0.
     *
     * @throws IllegalStateException naming the first line that is torn, out of order or missing
     */
    static void checkFile(Path file, int threads, long actions) {
        long[] next = new long[threads];
        long lines = 0;
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.US_ASCII)) {
            for (String line; (line = in.readLine()) != null; lines++) {
                int t = line.indexOf(" t");
                int space = t < 0 ? -1 : line.indexOf(' ', t + 2);
                if (!line.startsWith("INFO orders t") || space < 0) {
                    throw new IllegalStateException("logback: line " + (lines + 1) + " is torn: '" + line + "'");
                }
                int thread;
                long sequence;
                try {
                    thread = Integer.parseInt(line, t + 2, space, 10);
                    sequence = Long.parseLong(line, space + 1, line.length(), 10);
                } catch (NumberFormatException e) {
                    throw new IllegalStateException("logback: line " + (lines + 1) + " is torn: '" + line + "'");
                }
                if (thread < 0 || thread >= threads || sequence != next[thread]) {
                    throw new IllegalStateException("logback: line " + (lines + 1) + " '" + line + "' is out of order or "
                            + "follows a lost event (thread " + thread + (thread >= 0 && thread < threads
                            ? " expected " + next[thread] : " does not exist") + ")");
                }
                next[thread]++;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("logback: cannot read " + file, e);
        }
        if (lines != actions) {
            throw new IllegalStateException("logback: " + lines + " lines in the file, " + actions + " events logged");
        }
    }

    @Override
    public Round newRound(RoundContext context) {
        Path file;
        try {
            file = Files.createTempFile("numaloom-logback-", ".log");
        } catch (IOException e) {
            throw new UncheckedIOException("logback: cannot create the log file", e);
        }
        LoggerContext logging = new LoggerContext();
        logging.setName("numaloom-bench");
        logging.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter()); // what logback's own start-up sets
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(logging);
        encoder.setPattern("%level %logger %msg%n");
        encoder.setCharset(StandardCharsets.US_ASCII);
        encoder.start();
        FileAppender<ILoggingEvent> appender = new FileAppender<>();
        appender.setContext(logging);
        appender.setName("file");
        appender.setFile(file.toString());
        appender.setAppend(false);
        appender.setEncoder(encoder);
        appender.start();
        if (!appender.isStarted()) {
            logging.stop();
            throw new IllegalStateException("logback: the file appender did not start on " + file + ": "
                    + logging.getStatusManager().getCopyOfStatusList());
        }
        Logger logger = logging.getLogger("orders");
        logger.setAdditive(false);
        logger.setLevel(Level.INFO);
        logger.addAppender(appender);
        Lock streamLock = (Lock) AgentSwap.field(appender, OutputStreamAppender.class, "streamWriteLock");
        return new Round() {
            @Override
            public void runThread(Worker worker) {
                int me = worker.index();
                for (long i = 0, n = worker.share(actions); i < n; i++) {
                    if (beforeTokens > 0) {
                        Blackhole.consumeCPU(beforeTokens);
                    }
                    logger.info("t{} {}", me, i);
                    worker.completed();
                }
            }

            @Override
            public long operations() {
                return actions;
            }

            @Override
            public void verify() {
                AgentSwap.require(streamLock, "logback's OutputStreamAppender.streamWriteLock");
                appender.stop();
                var errors = logging.getStatusManager().getCopyOfStatusList().stream()
                        .filter(s -> s.getEffectiveLevel() >= ch.qos.logback.core.status.Status.WARN).toList();
                if (!errors.isEmpty()) {
                    throw new IllegalStateException("logback reported: " + errors);
                }
                checkFile(file, context.threads(), actions);
            }

            @Override
            public void close() {
                logging.stop();
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    // a temporary file left behind is not worth failing the run
                }
            }
        };
    }
}
