package io.numaloom.bench.workloads;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.numaloom.bench.Mutex;
import io.numaloom.bench.Worker;
import io.numaloom.bench.config.Field;
import io.numaloom.bench.config.Settings;
import org.HdrHistogram.Histogram;
import org.openjdk.jmh.infra.Blackhole;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The {@code server} workload: an HTTP server on the loopback interface whose every request runs a short critical
 * section under one lock (the count of the request's key in a shared table), and a client in the same JVM that
 * drives it, so the lock is measured inside the thread handoffs, parsing and socket work of a real request path.
 *
 * <p>The server is the JDK's {@link HttpServer}, bound to 127.0.0.1 only, port chosen by the system; its executor
 * runs each request on a new virtual thread ({@code threadType} virtual) or on a pool of as many platform threads as
 * the point has connections ({@code threadType} platform: a thread-pool server). The client keeps one HTTP/1.1
 * keep-alive connection per worker thread (the point's thread count is the number of connections, so at most that
 * many requests are in the server at once), over plain sockets.
 *
 * <p>Measured, per round of {@code actionsCount} requests split over the connections:
 * <ul>
 * <li>{@code loadPercent} 0, closed loop: each connection sends its next request when the previous answer is in.
 *     Throughput is the server's saturation rate (requests per millisecond) at that many connections; latency is
 *     each request's response time.</li>
 * <li>{@code loadPercent} 1-100, open loop: before each round (untimed) the same connections send {@code actionsCount}
 *     requests closed loop, and their rate is the saturation rate; the round then sends at {@code loadPercent} percent of
 *     it on a fixed schedule (request {@code j} is due at {@code start + j / rate}, connection {@code w} sends requests
 *     {@code w, w + connections, ...}), whatever the answers do. Each response time is measured from the request's
 *     <em>intended</em> send time, not from when it was sent, so a connection held up by a slow answer is charged
 *     for the requests it sent late (coordinated omission, as wrk2 corrects it). Throughput is then the rate achieved,
 *     about the rate offered while the server keeps up; the latency columns are what the load level is about.</li>
 * </ul>
 * With {@code saturationFrom} (what {@code configs/real-world.json} uses), the load levels are instead a percent of
 * one rate for the whole run: the saturation rate that unfair {@code ReentrantLock} reached in the named closed-loop
 * bench at the same thread count, which the runner passes to every fork as {@code saturationPerSecond}. Every lock
 * is then offered the same requests at the same times, so response times compare at equal load; measured per
 * round with the lock under test, a lock whose closed loop happened to run fast was offered more, and the
 * throughput of a load level was that measurement's noise (docs/measurements.md, entry 47).
 * Every level is a bench of its own, so every (level, lock, connections) is one point of the results: a
 * configuration lists one bench per level ({@code configs/real-world.json} has 0, 25, 50, 75 and 90).
 *
 * <p>{@code pairedWith} (an open loop only; {@code configs/real-world.json} names unfair ReentrantLock): a second
 * server, the same but on the named lock, runs beside the measured one in the same JVM, and each connection's
 * thread also holds a connection to it: of the connection's requests on the schedule, every other one goes to the
 * paired server, at its own due time. The point's latency columns are then its own lock's requests (half the
 * round), {@code pairedP99Ns} the paired server's p99 over the same rounds, and the throughput counts both. Both
 * servers see the same machine, so the ratio of the two p99s compares the locks under the same stalls, collections
 * and carriers; it is blind to what both share: a request sent late because its thread's previous request (to
 * either server) was slow counts as late for both, as for any client that sends on a connection when it is free.
 * Why pair: the tail at a load level is queueing behind the machine's stalls (the server drains what a stall
 * piled up at the rate it has to spare), and measured point by point, the same lock's p99 moved from run to run
 * as many or few stalls fell into its rounds. With a thread and connection of its own per server, unfair
 * ReentrantLock against itself read 0.55 to 1.04 (a stall delays the connections that happen to be waiting), with
 * the shared ones 0.99 to 1.02, in runs before the verdict method (commit 8458e5a, not re-measured since; see
 * docs/measurements.md, entry 48).
 *
 * <p>Other parameters: {@code keys}, the keys the table counts (request {@code j} counts key {@code j mod keys});
 * {@code inCpuTokens}, {@code Blackhole.consumeCPU} work inside the lock per request.
 *
 * <p>Bounds: a round is bounded in requests ({@code actionsCount}) and in time: an open-loop round is planned to last
 * {@code actionsCount * 100 / loadPercent} requests' time at the saturation rate (measured over a number of requests, not
 * a time window, so a cold JVM's slow first answers cannot make it tiny), and that plan must fit in half the round's timeout, else the round
 * fails before it starts, saying so. The server, its threads and the client's sockets are closed when the round ends, passed or failed
 * ({@link Round#close()}).
 *
 * <p>Check: the handlers count requests per key under the lock; the client counts the answers it got per key,
 * saturation phase included; {@link Round#verify()} stops the server and requires the two tables to agree (a lost
 * update shows as a key counted less often than it was answered).
 */
public final class LoopbackServer implements Workload {
    /** The field naming the closed-loop bench whose rate the load levels are a percent of. */
    public static final String SATURATION_FROM = "saturationFrom";

    /** The field the runner sets from {@link #SATURATION_FROM}: that rate, requests per second. */
    public static final String SATURATION_PER_SECOND = "saturationPerSecond";

    /** The lock whose closed-loop rate {@link #SATURATION_FROM} takes: the summary's reference, unfair ReentrantLock. */
    public static final String SATURATION_LOCK = "UNFAIR_REENTRANT";

    /** The field naming the lock of a second server that shares every round of an open loop with the measured one. */
    public static final String PAIRED_WITH = "pairedWith";

    static final List<Field> FIELDS = List.of(
            Field.longField("actionsCount", 1, 20_000L, "requests per round, split evenly over the connections (the threads)"),
            Field.intField("loadPercent", 0, 0, "0: closed loop (the saturation rate); 1-100: open loop at that percent of the "
                    + "saturation rate (from saturationFrom or saturationPerSecond, else measured before each round), response "
                    + "times from each request's intended send time"),
            Field.longField(SATURATION_PER_SECOND, 0, 0L, "the saturation rate, requests per second, that loadPercent is a "
                    + "percent of; 0 measures it before each round with the lock under test (set by the runner from saturationFrom)"),
            Field.stringField(SATURATION_FROM, "", "the id of a closed-loop server bench earlier in the configuration: loadPercent "
                    + "is a percent of the rate unfair ReentrantLock reached there at the same thread count, so every lock is "
                    + "offered the same requests at the same times"),
            Field.stringField(PAIRED_WITH, "", "a lock name: an open loop then sends every other request of each "
                    + "connection's thread to a second server on this lock in the same JVM, so that both servers see the "
                    + "same machine; the second server's p99 is reported as pairedP99Ns"),
            Field.intField("keys", 1, 64, "keys of the table the handlers count under the lock (at most " + 65_536 + ")"),
            Field.longField("inCpuTokens", 0, 0L, "Blackhole.consumeCPU tokens inside the lock per request"));

    /** The most keys: the client keeps a count per key and connection. */
    public static final int MAX_KEYS = 65_536;

    /** The JDK server's TCP_NODELAY switch (read once, when its first server is made); the bench sets it. */
    public static final String NODELAY_PROPERTY = "sun.net.httpserver.nodelay";

    /** The one address the server binds. */
    static final InetAddress LOOPBACK;

    static {
        try {
            LOOPBACK = InetAddress.getByAddress("localhost", new byte[] {127, 0, 0, 1});
        } catch (UnknownHostException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** How long a client waits for one answer before the round fails: a hang guard, never reached by a slow lock. */
    static final int READ_TIMEOUT_MS = 60_000;

    /**
     * The client's wait for one answer in a round of timeout {@code roundTimeout}: {@link #READ_TIMEOUT_MS}, but at
     * most a quarter of the round's timeout (at least 1 s), so that a server that stops answering fails the round as a
     * failed worker whose cause is the socket's timeout, well before the round's own timeout calls it a hang.
     */
    static int readTimeoutMs(java.time.Duration roundTimeout) {
        long quarter = roundTimeout.toMillis() / 4;
        return (int) Math.max(1_000, Math.min(READ_TIMEOUT_MS, quarter));
    }

    private final long requests;
    private final int loadPercent;
    /** The rate loadPercent is a percent of, requests per second; 0 measures it before each round. */
    private final long givenSaturationPerSecond;
    private final int keys;
    private final long inTokens;
    /** The lock of the paired server, or empty for none. */
    private final String pairedWith;
    private final byte[][] requestBytes;

    public LoopbackServer(Settings settings) {
        this.requests = settings.getLong("actionsCount");
        this.loadPercent = settings.getInt("loadPercent");
        this.givenSaturationPerSecond = settings.getLong(SATURATION_PER_SECOND);
        this.keys = settings.getInt("keys");
        this.inTokens = settings.getLong("inCpuTokens");
        this.pairedWith = settings.getString(PAIRED_WITH).trim();
        if (loadPercent > 100) {
            throw new IllegalArgumentException("server: loadPercent must be <= 100, got " + loadPercent);
        }
        if (!pairedWith.isEmpty() && loadPercent == 0) {
            throw new IllegalArgumentException("server: " + PAIRED_WITH + " applies to an open loop only (loadPercent 1-100)");
        }
        if (keys > MAX_KEYS) {
            throw new IllegalArgumentException("server: keys " + keys + " is over " + MAX_KEYS);
        }
        if (requests > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("server: actionsCount " + requests + " is over " + Integer.MAX_VALUE);
        }
        // Without it the JDK server writes headers and body as two segments, and Nagle's algorithm holds the body
        // back until the client acknowledges the headers: tens of milliseconds per answer.
        if (System.getProperty(NODELAY_PROPERTY) == null) {
            System.setProperty(NODELAY_PROPERTY, "true");
        }
        this.requestBytes = new byte[keys][];
        for (int k = 0; k < keys; k++) {
            requestBytes[k] = ("GET /count/" + k + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        }
    }

    @Override
    public Round newRound(RoundContext context) {
        ServerRound round = new ServerRound(context);
        boolean ready = false;
        try {
            round.open();
            if (loadPercent > 0) {
                round.plan();
            }
            ready = true;
            return round;
        } catch (IOException e) {
            throw new IllegalStateException("server: could not start the round: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("server: interrupted while measuring the saturation rate", e);
        } finally {
            if (!ready) {
                round.close();
            }
        }
    }

    /** The server side: the JDK server, its handler threads and the counted table. */
    static final class Server {
        final HttpServer http;
        final ExecutorService handlers;
        final Mutex mutex;
        final long inTokens;
        /** Requests counted per key; guarded by {@link #mutex}. */
        final long[] counts;
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final AtomicBoolean stopped = new AtomicBoolean();

        Server(Mutex mutex, int keys, long inTokens, boolean virtual, int threads) throws IOException {
            this.mutex = mutex;
            this.inTokens = inTokens;
            this.counts = new long[keys];
            this.handlers = virtual
                    ? Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("server-handler-", 0).factory())
                    : Executors.newFixedThreadPool(threads, Thread.ofPlatform().daemon(true).name("server-handler-", 0).factory());
            HttpServer server = null;
            try {
                server = HttpServer.create(new InetSocketAddress(LOOPBACK, 0), threads + 16);
                server.createContext("/count/", this::handle);
                server.setExecutor(handlers);
                server.start();
            } catch (IOException | RuntimeException e) {
                if (server != null) {
                    server.stop(0);
                }
                handlers.shutdownNow();
                throw e;
            }
            this.http = server;
        }

        InetSocketAddress address() {
            return http.getAddress();
        }

        /** One request: counts its key under the lock and answers with the key's new count. */
        private void handle(HttpExchange exchange) throws IOException {
            try (exchange) {
                int key = parseKey(exchange.getRequestURI().getRawPath(), counts.length);
                if (key < 0) {
                    exchange.sendResponseHeaders(404, -1);
                    return;
                }
                Count count = new Count(this, key);
                mutex.runExclusively(count);
                byte[] body = Long.toString(count.value).getBytes(StandardCharsets.US_ASCII);
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            } catch (IOException | RuntimeException | Error e) {
                failure.compareAndSet(null, e);
                throw e;
            }
        }

        /** The table as the handlers left it, read under the lock. */
        long[] counts() {
            long[] copy = new long[counts.length];
            mutex.runExclusively(() -> System.arraycopy(counts, 0, copy, 0, counts.length));
            return copy;
        }

        /** Stops the server (its dispatcher thread is joined) and its handler threads; once. */
        void stop() {
            if (!stopped.compareAndSet(false, true)) {
                return;
            }
            http.stop(0);
            handlers.shutdown();
            try {
                if (!handlers.awaitTermination(10, TimeUnit.SECONDS)) {
                    handlers.shutdownNow();
                }
            } catch (InterruptedException e) {
                handlers.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The critical section of one request. */
    private static final class Count implements Runnable {
        private final Server server;
        private final int key;
        long value;

        Count(Server server, int key) {
            this.server = server;
            this.key = key;
        }

        @Override
        public void run() {
            Blackhole.consumeCPU(server.inTokens);
            value = ++server.counts[key];
        }
    }

    /** The key of a path {@code /count/<key>}, or -1 if it is not one below {@code keys}. */
    static int parseKey(String path, int keys) {
        String prefix = "/count/";
        if (path == null || !path.startsWith(prefix) || path.length() == prefix.length() || path.length() > prefix.length() + 9) {
            return -1;
        }
        int key = 0;
        for (int i = prefix.length(); i < path.length(); i++) {
            char c = path.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            key = key * 10 + (c - '0');
        }
        return key < keys ? key : -1;
    }

    /** One keep-alive client connection: writes a request, reads the answer (status 200 and a fixed-length body). */
    static final class Connection implements AutoCloseable {
        private final Socket socket;
        private final InputStream in;
        private final OutputStream out;
        private final byte[] buffer = new byte[4096];
        private int position;
        private int limit;
        private final byte[] line = new byte[256];

        Connection(InetSocketAddress address, int timeoutMs) throws IOException {
            socket = new Socket();
            try {
                socket.setTcpNoDelay(true);
                socket.connect(address, timeoutMs);
                socket.setSoTimeout(timeoutMs);
                in = socket.getInputStream();
                out = socket.getOutputStream();
            } catch (IOException | RuntimeException e) {
                socket.close();
                throw e;
            }
        }

        /** Sends {@code request} and returns the number in the answer's body. */
        long call(byte[] request) throws IOException {
            out.write(request);
            out.flush();
            int length = readLine();
            if (length < 12 || !startsWith(line, "HTTP/1.1 200")) {
                throw new IOException("server answered '" + new String(line, 0, length, StandardCharsets.ISO_8859_1) + "'");
            }
            long contentLength = -1;
            while ((length = readLine()) > 0) {
                if (length > 15 && startsWithIgnoreCase(line, "content-length:")) {
                    contentLength = parseNumber(line, 15, length);
                }
            }
            if (contentLength < 1 || contentLength > 19) {
                throw new IOException("server answered a body of " + contentLength + " bytes, expected a count");
            }
            long value = 0;
            for (long i = 0; i < contentLength; i++) {
                int b = read();
                if (b < '0' || b > '9') {
                    throw new IOException("server answered a body that is not a count (byte " + b + ")");
                }
                value = value * 10 + (b - '0');
            }
            return value;
        }

        /** Reads one line into {@link #line} without its CRLF; returns its length. */
        private int readLine() throws IOException {
            int n = 0;
            for (int b = read(); b != '\n'; b = read()) {
                if (b != '\r') {
                    if (n == line.length) {
                        throw new IOException("server answered a header line over " + line.length + " bytes");
                    }
                    line[n++] = (byte) b;
                }
            }
            return n;
        }

        private int read() throws IOException {
            if (position == limit) {
                limit = in.read(buffer);
                position = 0;
                if (limit <= 0) {
                    limit = 0;
                    throw new IOException("server closed the connection");
                }
            }
            return buffer[position++] & 0xFF;
        }

        private static boolean startsWith(byte[] bytes, String prefix) {
            for (int i = 0; i < prefix.length(); i++) {
                if (bytes[i] != prefix.charAt(i)) {
                    return false;
                }
            }
            return true;
        }

        private static boolean startsWithIgnoreCase(byte[] bytes, String prefix) {
            for (int i = 0; i < prefix.length(); i++) {
                if (Character.toLowerCase((char) bytes[i]) != prefix.charAt(i)) {
                    return false;
                }
            }
            return true;
        }

        private static long parseNumber(byte[] bytes, int from, int to) throws IOException {
            long value = 0;
            boolean digits = false;
            for (int i = from; i < to; i++) {
                byte b = bytes[i];
                if (b >= '0' && b <= '9') {
                    value = value * 10 + (b - '0');
                    digits = true;
                } else if (b != ' ' && b != '\t') {
                    throw new IOException("server answered a Content-Length that is not a number");
                }
            }
            return digits ? value : -1;
        }

        @Override
        public void close() {
            try {
                socket.close();
            } catch (IOException e) {
                // Closing is all that is left to do.
            }
        }
    }

    /** One round: its server, one client connection per worker, and what each side counted. */
    final class ServerRound implements Round {
        private final RoundContext context;
        private final int connections;
        private final AtomicBoolean closed = new AtomicBoolean();
        private Server server;
        private Connection[] clients;
        /** Answers per connection and key, saturation phase included; each row is written by its connection's thread. */
        private final long[][] answered;
        /** The paired server ({@code pairedWith}) and one connection to it per worker; null without. */
        private Server pairedServer;
        private Connection[] pairedClients;
        /** The paired server's answers per connection and key, and its response times per connection (own thread each). */
        private long[][] pairedAnswered;
        private Histogram[] pairedTimes;
        /** Nanoseconds between two due times of the open loop; 0 in closed loop. */
        private double intervalNs;
        private double saturationPerSecond;
        private final AtomicLong start = new AtomicLong(Long.MIN_VALUE);

        ServerRound(RoundContext context) {
            this.context = context;
            this.connections = context.threads();
            this.answered = new long[connections][keys];
        }

        /** Starts the server and connects the clients. */
        void open() throws IOException {
            server = new Server(context.newMutex(), keys, inTokens, context.virtual(), connections);
            clients = new Connection[connections];
            int timeoutMs = readTimeoutMs(context.timeout());
            for (int c = 0; c < connections; c++) {
                clients[c] = new Connection(server.address(), timeoutMs);
            }
            if (!pairedWith.isEmpty()) {
                pairedServer = new Server(Mutex.create(pairedWith), keys, inTokens, context.virtual(), connections);
                pairedClients = new Connection[connections];
                pairedAnswered = new long[connections][keys];
                pairedTimes = new Histogram[connections];
                for (int c = 0; c < connections; c++) {
                    pairedClients[c] = new Connection(pairedServer.address(), timeoutMs);
                    pairedTimes[c] = new Histogram(2);
                }
            }
        }

        /**
         * Sets the open loop's schedule: {@code loadPercent} of the saturation rate given ({@code saturationPerSecond},
         * the same for every lock of a run when the runner sets it from {@code saturationFrom}), or else measured now
         * with the lock under test (a closed loop of {@code actionsCount} requests over the round's connections, untimed).
         *
         * @throws IllegalStateException if nothing was answered, or the planned round would not fit in half its timeout
         */
        void plan() throws InterruptedException {
            saturationPerSecond = givenSaturationPerSecond > 0 ? givenSaturationPerSecond : measureSaturation();
            double rate = saturationPerSecond * loadPercent / 100.0;
            intervalNs = 1e9 / rate;
            double plannedSeconds = requests / rate;
            double allowed = context.timeout().toSeconds() / 2.0;
            if (plannedSeconds > allowed) {
                throw new IllegalStateException(String.format(java.util.Locale.ROOT,
                        "server: saturation %s at %.0f requests/s; %d requests at %d%% of it would take %.1f s, over half "
                                + "the round's timeout (%.0f s): lower actionsCount or raise timeoutSeconds",
                        givenSaturationPerSecond > 0 ? "given" : "measured", saturationPerSecond, requests, loadPercent,
                        plannedSeconds, allowed * 2));
            }
        }

        /** The closed loop of {@code actionsCount} requests over the round's connections: its rate, requests per second. */
        private double measureSaturation() throws InterruptedException {
            long[] done = new long[connections];
            long[] ended = new long[connections];
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread.Builder builder = context.virtual() ? Thread.ofVirtual().name("saturation-", 0)
                    : Thread.ofPlatform().daemon(true).name("saturation-", 0);
            Thread[] threads = new Thread[connections];
            long begin = System.nanoTime();
            for (int c = 0; c < connections; c++) {
                int connection = c;
                threads[c] = builder.start(() -> {
                    try {
                        long[] counts = answered[connection];
                        for (long j = connection; j < requests; j += connections) {
                            int key = (int) (j % keys);
                            clients[connection].call(requestBytes[key]);
                            counts[key]++;
                            done[connection]++;
                        }
                    } catch (IOException | RuntimeException e) {
                        failure.compareAndSet(null, e);
                    } finally {
                        ended[connection] = System.nanoTime();
                    }
                });
            }
            long guard = begin + context.timeout().toNanos();
            for (Thread t : threads) {
                long left = guard - System.nanoTime();
                if (left <= 0 || !t.join(java.time.Duration.ofNanos(left))) {
                    throw new IllegalStateException("server: the saturation run did not end within the round's timeout ("
                            + context.timeout().toSeconds() + " s)");
                }
            }
            if (failure.get() != null) {
                throw new IllegalStateException("server: a request of the saturation run failed: " + failure.get(), failure.get());
            }
            long total = 0;
            long last = begin;
            for (int c = 0; c < connections; c++) {
                total += done[c];
                last = Math.max(last, ended[c]);
            }
            return total * 1e9 / (last - begin);
        }

        @Override
        public void runThread(Worker worker) throws IOException {
            int w = worker.index();
            Connection client = clients[w];
            long[] counts = answered[w];
            Connection paired = pairedClients == null ? null : pairedClients[w];
            long t0 = start.get();
            if (t0 == Long.MIN_VALUE) {
                start.compareAndSet(Long.MIN_VALUE, System.nanoTime());
                t0 = start.get();
            }
            for (long j = w, k = 0; j < requests; j += connections, k++) {
                int key = (int) (j % keys);
                long sent;
                if (intervalNs > 0) {
                    sent = t0 + (long) (j * intervalNs);
                    for (long now = System.nanoTime(); now - sent < 0; now = System.nanoTime()) {
                        LockSupport.parkNanos(sent - now);
                    }
                } else {
                    sent = System.nanoTime();
                }
                if (paired != null && ((k + w) & 1) == 1) {
                    // Every other request of this connection goes to the paired server, at its own due time (odd
                    // connections start with it, so that neither server always has the first request of a pair).
                    paired.call(requestBytes[key]);
                    pairedTimes[w].recordValue(Math.max(0, System.nanoTime() - sent));
                    pairedAnswered[w][key]++;
                } else {
                    client.call(requestBytes[key]);
                    worker.record(System.nanoTime() - sent);
                    counts[key]++;
                }
                worker.completed();
            }
        }

        @Override
        public long operations() {
            return requests;
        }

        @Override
        public void verify() {
            server.stop();
            if (pairedServer != null) {
                pairedServer.stop();
            }
            for (Server s : pairedServer == null ? List.of(server) : List.of(server, pairedServer)) {
                Throwable failed = s.failure.get();
                if (failed != null) {
                    throw new IllegalStateException("server: a handler " + (s == server ? "" : "of the paired server ")
                            + "failed: " + failed, failed);
                }
            }
            verifyCounts(server.counts(), answered, context.lockName());
            if (pairedServer != null) {
                verifyCounts(pairedServer.counts(), pairedAnswered, pairedWith + " (the paired server)");
            }
        }

        /** The paired server's response times in this round, or null without {@code pairedWith}. */
        @Override
        public Histogram pairedLatency() {
            if (pairedTimes == null) {
                return null;
            }
            Histogram all = new Histogram(2);
            for (Histogram h : pairedTimes) {
                all.add(h);
            }
            return all;
        }

        /** The address the server listens on. */
        InetSocketAddress address() {
            return server.address();
        }

        /** The handler threads' executor, for tests. */
        ExecutorService handlers() {
            return server.handlers;
        }

        /** The paired server's handler threads' executor, for tests; null without {@code pairedWith}. */
        ExecutorService pairedHandlers() {
            return pairedServer == null ? null : pairedServer.handlers;
        }

        /** Stops the server but leaves the client connected: the next request fails (tests of the failure path). */
        void stopServerForTest() {
            server.stop();
        }

        /** The saturation rate of this round's open loop (given, or measured before it), requests per second; 0 in closed loop. */
        double saturationPerSecond() {
            return saturationPerSecond;
        }

        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            closeAll(clients);
            closeAll(pairedClients);
            if (server != null) {
                server.stop();
            }
            if (pairedServer != null) {
                pairedServer.stop();
            }
        }

        /** Closes the connections made so far (the array, or a slot of it, is null before they are made). */
        private static void closeAll(Connection[] connections) {
            if (connections != null) {
                for (Connection c : connections) {
                    if (c != null) {
                        c.close();
                    }
                }
            }
        }
    }

    /**
     * Checks the handlers' table against the answers the clients got, key by key.
     *
     * @param counted  requests the handlers counted per key
     * @param answered answers per client connection and key
     * @throws IllegalStateException naming the first key that differs, and the lock
     */
    static void verifyCounts(long[] counted, long[][] answered, String lock) {
        for (int k = 0; k < counted.length; k++) {
            long answers = 0;
            for (long[] row : answered) {
                answers += row[k];
            }
            if (counted[k] != answers) {
                throw new IllegalStateException("server: key " + k + " was counted " + counted[k] + " times by the handlers, the clients got "
                        + answers + " answers for it: " + (counted[k] < answers ? "an update was lost, " + lock + " let two handlers in"
                        : "a request was counted that nobody asked for"));
            }
        }
    }
}
