package io.numaloom.scheduler;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Locale;

/**
 * Pins the calling platform thread (a carrier) to a set of CPUs with Linux's {@code sched_setaffinity}, and asks
 * which CPUs the process may use with {@code sched_getaffinity}, both through the FFM API.
 *
 * <p>Linking is a restricted operation: it works, with the JDK's one-time warning, unless native access is denied
 * ({@code --illegal-native-access=deny}), and not at all off Linux. Where it cannot link, {@link #unavailable()}
 * says why and {@link NumaScheduler} runs its carriers unpinned. A refused call ({@code EINVAL} for a set outside
 * the process's cpuset, {@code EPERM}) is reported by {@link #pin} as a message, never thrown: pinning steers
 * locality, never correctness.
 */
final class CarrierAffinity {
    /** {@code sizeof(cpu_set_t)} in glibc: 1024 CPUs. */
    private static final long SET_BYTES = 128;
    static final int MAX_CPUS = (int) SET_BYTES * 8;

    private static final MethodHandle SET;
    private static final MethodHandle GET;
    private static final StructLayout STATE;
    private static final VarHandle ERRNO;
    private static final String UNAVAILABLE;

    static {
        MethodHandle set = null;
        MethodHandle get = null;
        StructLayout state = null;
        VarHandle errno = null;
        String why = null;
        try {
            String os = System.getProperty("os.name", "");
            if (!os.toLowerCase(Locale.ROOT).startsWith("linux")) {
                throw new UnsupportedOperationException("not Linux (os.name=" + os + ")");
            }
            Linker linker = Linker.nativeLinker();
            SymbolLookup libc = linker.defaultLookup();
            Linker.Option capture = Linker.Option.captureCallState("errno");
            state = Linker.Option.captureStateLayout();
            errno = state.varHandle(MemoryLayout.PathElement.groupElement("errno"));
            FunctionDescriptor signature = FunctionDescriptor.of(ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS);
            set = linker.downcallHandle(libc.find("sched_setaffinity").orElseThrow(
                    () -> new UnsupportedOperationException("the C library has no sched_setaffinity")), signature, capture);
            get = linker.downcallHandle(libc.find("sched_getaffinity").orElseThrow(
                    () -> new UnsupportedOperationException("the C library has no sched_getaffinity")), signature, capture);
        } catch (RuntimeException | LinkageError e) {
            why = e.getClass().getSimpleName() + ": " + e.getMessage();
            set = null;
            get = null;
        }
        SET = set;
        GET = get;
        STATE = state;
        ERRNO = errno;
        UNAVAILABLE = why;
    }

    private CarrierAffinity() {}

    /** Why threads cannot be pinned in this JVM, or null if they can. */
    static String unavailable() {
        return UNAVAILABLE;
    }

    /**
     * Restricts the calling platform thread to {@code cpus}. Returns null on success, else why it failed.
     */
    static String pin(int[] cpus) {
        if (SET == null) {
            return "cannot pin: " + UNAVAILABLE;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(SET_BYTES, 8);
            for (int cpu : cpus) {
                if (cpu < 0 || cpu >= MAX_CPUS) {
                    return "cpu " + cpu + " is outside a cpu_set_t (0-" + (MAX_CPUS - 1) + ")";
                }
                int b = cpu / 8;
                mask.set(ValueLayout.JAVA_BYTE, b, (byte) (mask.get(ValueLayout.JAVA_BYTE, b) | (1 << (cpu % 8))));
            }
            MemorySegment state = arena.allocate(STATE);
            int rc = (int) SET.invokeExact(state, 0, SET_BYTES, mask);
            return rc == 0 ? null : "sched_setaffinity(" + Arrays.toString(cpus) + ") failed with errno " + (int) ERRNO.get(state, 0L);
        } catch (Throwable t) {
            return "sched_setaffinity(" + Arrays.toString(cpus) + ") failed: " + t;
        }
    }

    /** The CPUs the calling thread may run on, ascending; null if that cannot be asked. */
    static int[] allowed() {
        if (GET == null) {
            return null;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(SET_BYTES, 8);
            MemorySegment state = arena.allocate(STATE);
            int rc = (int) GET.invokeExact(state, 0, SET_BYTES, mask);
            if (rc != 0) {
                return null;
            }
            int[] cpus = new int[MAX_CPUS];
            int n = 0;
            for (int cpu = 0; cpu < MAX_CPUS; cpu++) {
                if ((mask.get(ValueLayout.JAVA_BYTE, cpu / 8) & (1 << (cpu % 8))) != 0) {
                    cpus[n++] = cpu;
                }
            }
            return Arrays.copyOf(cpus, n);
        } catch (Throwable t) {
            return null;
        }
    }
}
