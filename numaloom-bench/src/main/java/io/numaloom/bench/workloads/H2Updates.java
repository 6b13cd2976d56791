package io.numaloom.bench.workloads;

import io.numaloom.bench.Worker;
import io.numaloom.bench.config.Field;
import io.numaloom.bench.config.Settings;
import org.h2.jdbc.JdbcConnection;
import org.openjdk.jmh.infra.Blackhole;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;

/**
 * The {@code h2} workload: an application nobody here wrote. Every thread updates rows of one embedded, in-memory
 * H2 database through one shared JDBC connection, as a small service does through a single-connection data source.
 * H2's {@code JdbcConnection} runs one statement at a time under its own {@code ReentrantLock} (and its session
 * under another), so the connection's lock decides who runs next. H2 runs unchanged: the lock under test is H2's,
 * or, with numaloom's agent in the lock entry's {@code jvmArgs}, the one the agent swaps in; the bench's lock name
 * only labels the run.
 *
 * <p>Measured: committed updates per millisecond ({@code UPDATE counters SET n = n + 1 WHERE id = ?}, autocommit).
 *
 * <p>Parameters: {@code actionsCount}, updates per round split over the threads; {@code rows}, the table's rows (a
 * thread's {@code i}-th update goes to row {@code (thread + i * threads) % rows}); {@code beforeCpuTokens},
 * {@code Blackhole.consumeCPU} work before each update.
 *
 * <p>Check: read back, each row's count is the number of updates sent to it and they add up to the updates; the
 * connection's lock is numaloom's exactly when the agent is on ({@link AgentSwap}).
 */
public final class H2Updates implements Workload {
    static final List<Field> FIELDS = List.of(
            Field.longField("actionsCount", 1, 50_000L, "updates in total, split evenly over the threads"),
            Field.intField("rows", 1, 1_000, "rows of the table the updates spread over"),
            Field.longField("beforeCpuTokens", 0, 0L, "Blackhole.consumeCPU tokens before each update"));

    /** Distinguishes the in-memory databases of the rounds of one JVM. */
    private static final AtomicLong DATABASES = new AtomicLong();

    private final long actions;
    private final int rows;
    private final long beforeTokens;

    public H2Updates(Settings settings) {
        this.actions = settings.getLong("actionsCount");
        this.rows = settings.getInt("rows");
        this.beforeTokens = settings.getLong("beforeCpuTokens");
        if (rows > 10_000_000) {
            throw new IllegalArgumentException("h2: rows " + rows + " is over 10,000,000");
        }
    }

    /**
     * The round's check: read back through {@code connection}, each row of {@code counters} counts the updates that
     * {@code threads} threads sharing {@code actions} send to it.
     *
     * @throws IllegalStateException naming the first row that is wrong
     */
    static void checkCounters(Connection connection, int rows, long actions, int threads) {
        long[] expected = new long[rows];
        for (int t = 0; t < threads; t++) {
            for (long i = 0, n = Worker.shareOf(actions, t, threads); i < n; i++) {
                expected[(int) ((t + i * threads) % rows)]++;
            }
        }
        long total = 0;
        int seen = 0;
        try (Statement s = connection.createStatement();
             ResultSet r = s.executeQuery("SELECT id, n FROM counters ORDER BY id")) {
            while (r.next()) {
                int id = r.getInt(1);
                long n = r.getLong(2);
                if (id != seen || n != expected[id]) {
                    throw new IllegalStateException("h2: row " + id + " counts " + n + ", expected "
                            + (id == seen ? String.valueOf(expected[id]) : "row " + seen) + ": an update was lost or doubled");
                }
                total += n;
                seen++;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("h2: cannot read the counters back: " + e.getMessage(), e);
        }
        if (seen != rows || total != actions) {
            throw new IllegalStateException("h2: " + seen + " rows read back of " + rows + ", counting " + total
                    + " updates of " + actions);
        }
    }

    @Override
    public Round newRound(RoundContext context) {
        Connection connection;
        String url = "jdbc:h2:mem:numaloom" + DATABASES.incrementAndGet();
        try {
            connection = new org.h2.Driver().connect(url, new Properties());
            try (Statement s = connection.createStatement()) {
                s.execute("CREATE TABLE counters(id INT PRIMARY KEY, n BIGINT NOT NULL)");
                s.execute("INSERT INTO counters SELECT X, 0 FROM SYSTEM_RANGE(0, " + (rows - 1) + ")");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("h2: cannot create the database " + url + ": " + e.getMessage(), e);
        }
        Lock connectionLock = (Lock) AgentSwap.field(connection, JdbcConnection.class, "lock");
        int threads = context.threads();
        return new Round() {
            @Override
            public void runThread(Worker worker) throws SQLException {
                int me = worker.index();
                try (PreparedStatement update = connection.prepareStatement("UPDATE counters SET n = n + 1 WHERE id = ?")) {
                    for (long i = 0, n = worker.share(actions); i < n; i++) {
                        if (beforeTokens > 0) {
                            Blackhole.consumeCPU(beforeTokens);
                        }
                        update.setInt(1, (int) ((me + i * threads) % rows));
                        if (update.executeUpdate() != 1) {
                            throw new IllegalStateException("h2: an update of row " + (me + i * threads) % rows + " changed no row");
                        }
                        worker.completed();
                    }
                }
            }

            @Override
            public long operations() {
                return actions;
            }

            @Override
            public void verify() {
                AgentSwap.require(connectionLock, "H2's JdbcConnection.lock");
                checkCounters(connection, rows, actions, threads);
            }

            @Override
            public void close() {
                try {
                    connection.close(); // the last connection to an in-memory database drops it
                } catch (SQLException e) {
                    // closing cannot lose a result: the round's check has run
                }
            }
        };
    }
}
