package io.numaloom.bench.run;

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
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * CPU affinity of the calling thread through the C library's {@code sched_setaffinity} and
 * {@code sched_getaffinity} (Linux), called with the FFM API. Pinning is bench-only: it places the
 * carrier threads the way the thesis does (§2.2), so that a measurement does not depend on where the OS
 * happened to run them.
 *
 * <p>Linking may fail (not Linux, native access denied with {@code --illegal-native-access=deny}); then
 * {@link #unavailableReason()} says why and the callers measure unpinned. The bench jar's manifest grants
 * native access ({@code Enable-Native-Access: ALL-UNNAMED}) and the measured JVMs get
 * {@code --enable-native-access=ALL-UNNAMED}, so no warning is printed.
 */
public final class Affinity {
    /** {@code sizeof(cpu_set_t)} in glibc: 1024 CPUs. */
    private static final long CPU_SET_BYTES = 128;
    private static final int MAX_CPUS = (int) CPU_SET_BYTES * 8;

    private static final MethodHandle SET_AFFINITY;
    private static final MethodHandle GET_AFFINITY;
    private static final StructLayout CALL_STATE;
    private static final VarHandle ERRNO;
    private static final String UNAVAILABLE;

    static {
        MethodHandle set = null;
        MethodHandle get = null;
        StructLayout state = null;
        VarHandle errno = null;
        String why = null;
        try {
            if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
                throw new UnsupportedOperationException("not Linux (os.name=" + System.getProperty("os.name") + ")");
            }
            Linker linker = Linker.nativeLinker();
            SymbolLookup libc = linker.defaultLookup();
            Linker.Option captureErrno = Linker.Option.captureCallState("errno");
            state = Linker.Option.captureStateLayout();
            errno = state.varHandle(MemoryLayout.PathElement.groupElement("errno"));
            FunctionDescriptor signature = FunctionDescriptor.of(ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS);
            set = linker.downcallHandle(libc.find("sched_setaffinity").orElseThrow(
                    () -> new UnsupportedOperationException("the C library has no sched_setaffinity")), signature, captureErrno);
            get = linker.downcallHandle(libc.find("sched_getaffinity").orElseThrow(
                    () -> new UnsupportedOperationException("the C library has no sched_getaffinity")), signature, captureErrno);
        } catch (RuntimeException | LinkageError e) {
            why = e.getClass().getSimpleName() + ": " + e.getMessage();
            set = null;
            get = null;
        }
        SET_AFFINITY = set;
        GET_AFFINITY = get;
        CALL_STATE = state;
        ERRNO = errno;
        UNAVAILABLE = why;
    }

    private Affinity() {}

    /** Why pinning cannot work in this JVM, or empty if it can. */
    public static Optional<String> unavailableReason() {
        return Optional.ofNullable(UNAVAILABLE);
    }

    /**
     * Restricts the calling platform thread to {@code cpu}.
     *
     * @throws IllegalStateException if pinning is unavailable or the kernel refuses (the message has errno)
     */
    public static void pinCurrentThread(int cpu) {
        if (SET_AFFINITY == null) {
            throw new IllegalStateException("CPU pinning is unavailable: " + UNAVAILABLE);
        }
        if (cpu < 0 || cpu >= MAX_CPUS) {
            throw new IllegalArgumentException("cpu " + cpu + " is outside a cpu_set_t (0-" + (MAX_CPUS - 1) + ")");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(CPU_SET_BYTES, 8);
            mask.set(ValueLayout.JAVA_BYTE, cpu / 8, (byte) (1 << (cpu % 8)));
            MemorySegment state = arena.allocate(CALL_STATE);
            int rc = (int) SET_AFFINITY.invokeExact(state, 0, CPU_SET_BYTES, mask);
            if (rc != 0) {
                throw new IllegalStateException("sched_setaffinity(cpu " + cpu + ") failed: " + errnoName((int) ERRNO.get(state, 0L)));
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("sched_setaffinity(cpu " + cpu + ") failed", t);
        }
    }

    /** The CPUs the calling thread may run on, ascending; empty if that cannot be asked. */
    public static List<Integer> allowedCpus() {
        if (GET_AFFINITY == null) {
            return List.of();
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(CPU_SET_BYTES, 8);
            MemorySegment state = arena.allocate(CALL_STATE);
            int rc = (int) GET_AFFINITY.invokeExact(state, 0, CPU_SET_BYTES, mask);
            if (rc != 0) {
                return List.of();
            }
            List<Integer> cpus = new ArrayList<>();
            for (int cpu = 0; cpu < MAX_CPUS; cpu++) {
                if ((mask.get(ValueLayout.JAVA_BYTE, cpu / 8) & (1 << (cpu % 8))) != 0) {
                    cpus.add(cpu);
                }
            }
            return cpus;
        } catch (Throwable t) {
            return List.of();
        }
    }

    private static String errnoName(int errno) {
        String name = switch (errno) {
            case 1 -> "EPERM";
            case 3 -> "ESRCH";
            case 14 -> "EFAULT";
            case 22 -> "EINVAL (no such CPU, or not allowed by the cpuset)";
            default -> "?";
        };
        return "errno " + errno + " " + name;
    }
}
