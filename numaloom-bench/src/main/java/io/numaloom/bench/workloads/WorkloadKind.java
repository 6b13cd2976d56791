package io.numaloom.bench.workloads;

import io.numaloom.bench.config.Field;
import io.numaloom.bench.config.Settings;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The workloads a bench can name, with their payload fields. The JSON {@code name} of a bench is
 * {@link #jsonName()}, as in the thesis's configuration format ({@code "name": "consumeCpu"}).
 */
public enum WorkloadKind {
    CONSUME_CPU("consumeCpu", "Blackhole.consumeCPU tokens outside and inside one lock (thesis §2.3-2.4)",
            ConsumeCpu.FIELDS, ConsumeCpu::new, false, Set.of()),
    MATRIX("matrix", "square matrix products outside and inside one lock (VNA paper, Listing 3)",
            Matrix.FIELDS, Matrix::new, false, Set.of()),
    TEXT_STATS("textStats", "word counts striped over hash maps, one lock per map; time to finish (thesis §4.4)",
            TextStats.FIELDS, TextStats::new, true, Set.of()),
    RAND_BASH("randBash", "a lock-guarded nextInt on one shared generator (Relaxed-Lock paper §4)",
            RandBash.FIELDS, RandBash::new, false, Set.of()),
    CONTEND("contend", "equal parallel and serial portions, the serial one under one lock (Relaxed-Lock paper §4)",
            Contend.FIELDS, Contend::new, false, Set.of()),
    SYNC("sync", "uncontended lock/unlock of a thread's own lock, plain or nested (Relaxed-Lock paper §4)",
            Sync.FIELDS, Sync::new, false, Set.of("recordLatency", "remotePenaltyNs", "migrationPenaltyNs")),
    KEYED("keyed", "a lock per key, keys drawn with Zipf skew, through a keyed scheme (KEYED_LOCK, Guava Striped, ...)",
            Keyed.FIELDS, Keyed::new, false, Set.of("remotePenaltyNs", "migrationPenaltyNs")),
    LOCK_RATE("lockRate", "lock/unlock in a loop, an empty section or one atomic add (NUMA talk: ticket vs queued spinlocks)",
            LockRate.FIELDS, LockRate::new, false, Set.of("recordLatency", "remotePenaltyNs", "migrationPenaltyNs")),
    FALSE_SHARING("falseSharing", "read-modify-writes on per-thread counters; the locks are layouts PACKED, PADDED_64, PADDED_128 (NUMA talk)",
            FalseSharing.FIELDS, FalseSharing::new, false, Set.of("recordLatency", "remotePenaltyNs", "migrationPenaltyNs")),
    QUEUE("queue", "producers hand items to consumers through a bounded buffer built as ArrayBlockingQueue is (one lock, "
            + "notFull and notEmpty), or through the JDK's ARRAY_BLOCKING_QUEUE or LINKED_BLOCKING_QUEUE; latency is each "
            + "item's put-to-take time; a buffer over a lock also counts futile wake-ups and the signal-to-lock time",
            ProducerConsumer.FIELDS, ProducerConsumer::new, false, Set.of("remotePenaltyNs", "migrationPenaltyNs")),
    CACHE("cache", "an LRU cache (LinkedHashMap in access order) under one lock, gets and puts on Zipf-skewed keys",
            LruCache.FIELDS, LruCache::new, false, Set.of()),
    SERVER("server", "a loopback HTTP server whose requests count a key under one lock; closed loop, or open loop at a percent "
            + "of the saturation rate with response times from the intended send times",
            LoopbackServer.FIELDS, LoopbackServer::new, false, Set.of("remotePenaltyNs", "migrationPenaltyNs")),
    LOGBACK("logback", "an application nobody here wrote: threads logging through one logback FileAppender, whose "
            + "ReentrantLock guards each write; logback's own lock, or numaloom's through the agent (a lock entry's jvmArgs)",
            LogbackAppender.FIELDS, LogbackAppender::new, false, Set.of("recordLatency", "remotePenaltyNs", "migrationPenaltyNs", "diagnostics")),
    POOL("pool", "an application nobody here wrote: threads borrowing, using and returning objects of one commons-pool2 "
            + "GenericObjectPool, whose deque's lock extends ReentrantLock; the pool's own lock, or numaloom's through the agent",
            CommonsPool.FIELDS, CommonsPool::new, false, Set.of("recordLatency", "remotePenaltyNs", "migrationPenaltyNs", "diagnostics")),
    H2("h2", "an application nobody here wrote: threads updating rows of an embedded in-memory H2 database through one "
            + "shared JDBC connection, whose ReentrantLock runs one statement at a time; H2's own lock, or numaloom's through the agent",
            H2Updates.FIELDS, H2Updates::new, false, Set.of("recordLatency", "remotePenaltyNs", "migrationPenaltyNs", "diagnostics")),
    RUNNABLE("runnable", "your own critical section: the run() of a class of yours (workloadClass, from classpath), one "
            + "instance per round shared by all threads, under each lock; checks the lock's exclusion, nothing of your data",
            UserSection.FIELDS, UserSection::new, false, Set.of());

    private final String jsonName;
    private final String summary;
    private final List<Field> fields;
    private final Function<Settings, Workload> factory;
    private final boolean timeToFinish;
    private final Set<String> inapplicableCommonFields;

    WorkloadKind(String jsonName, String summary, List<Field> fields, Function<Settings, Workload> factory,
                 boolean timeToFinish, Set<String> inapplicableCommonFields) {
        this.jsonName = jsonName;
        this.summary = summary;
        this.fields = fields;
        this.factory = factory;
        this.timeToFinish = timeToFinish;
        this.inapplicableCommonFields = inapplicableCommonFields;
    }

    /** The workload's name in a configuration. */
    public String jsonName() {
        return jsonName;
    }

    /** One line saying what the workload does and where it comes from. */
    public String summary() {
        return summary;
    }

    /** The workload's own payload fields (besides the common ones). */
    public List<Field> fields() {
        return fields;
    }

    /** Whether a common payload field (such as {@code recordLatency}) applies to this workload. */
    public boolean accepts(String commonField) {
        return !inapplicableCommonFields.contains(commonField);
    }

    /** Whether the report plots the time to finish (lower is better) instead of the throughput. */
    public boolean plotsTimeToFinish() {
        return timeToFinish;
    }

    /**
     * What the latency columns of this workload's points measure: {@code "acquire"} (the lock's acquire latency),
     * {@code "put-to-take"} for {@link #QUEUE} or {@code "response"} for {@link #SERVER}.
     */
    public String latencyName() {
        return switch (this) {
            case QUEUE -> "put-to-take";
            case SERVER -> "response";
            default -> "acquire";
        };
    }

    /**
     * Thread counts measured when a bench gives none: powers of two up to four times the CPUs, plus the
     * CPU count itself; a single thread for {@link #SYNC}; for {@link #LOCK_RATE} and {@link #FALSE_SHARING},
     * whose threads never wait, only up to the CPU count (one thread per CPU, as in the talk they come from); for
     * {@link #QUEUE}, which needs a producer and a consumer, from 2.
     */
    public List<Integer> defaultThreads(int cpus) {
        if (this == SYNC) {
            return List.of(1);
        }
        if (this == QUEUE) {
            TreeSet<Integer> counts = new TreeSet<>();
            for (int t = 2; t <= Math.max(2, 4 * cpus); t *= 2) {
                counts.add(t);
            }
            counts.add(Math.max(2, cpus));
            return List.copyOf(counts);
        }
        int max = this == LOCK_RATE || this == FALSE_SHARING ? cpus : 4 * cpus;
        TreeSet<Integer> counts = new TreeSet<>();
        for (int t = 1; t <= max; t *= 2) {
            counts.add(t);
        }
        counts.add(cpus);
        return List.copyOf(counts);
    }

    /**
     * Whether the bench's locks are {@link io.numaloom.bench.locks.KeyedSchemes keyed schemes} (a lock per key)
     * rather than {@link io.numaloom.bench.Mutex mutexes}.
     */
    public boolean isKeyed() {
        return this == KEYED;
    }

    /** Whether the bench's locks are {@link FalseSharing} counter layouts, not locks. */
    public boolean isLayout() {
        return this == FALSE_SHARING;
    }

    /** The workload built from validated settings. */
    public Workload create(Settings settings) {
        return factory.apply(settings);
    }

    /** The workload of that configuration name. */
    public static Optional<WorkloadKind> byJsonName(String name) {
        return Arrays.stream(values()).filter(k -> k.jsonName.equals(name)).findFirst();
    }

    /** All configuration names, for error messages. */
    public static List<String> jsonNames() {
        return Arrays.stream(values()).map(WorkloadKind::jsonName).toList();
    }
}
