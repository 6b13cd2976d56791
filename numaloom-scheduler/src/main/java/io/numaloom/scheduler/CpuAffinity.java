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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * CPU affinity of the calling platform thread: pins it to a set of CPUs with Linux's {@code sched_setaffinity}, and
 * asks which CPUs it may use with {@code sched_getaffinity}, both through the FFM API. {@link NumaScheduler} pins
 * its carriers with it, and numaloom's bench its carrier and platform threads.
 *
 * <p>Linking is a restricted operation: it works, with the JDK's one-time warning unless the caller's module has
 * {@code --enable-native-access}, unless native access is denied ({@code --illegal-native-access=deny}), and not at
 * all off Linux. Where it cannot link, {@link #unavailableReason()} says why; {@link NumaScheduler} then runs its
 * carriers unpinned. Pinning a virtual thread pins its current carrier, which is rarely what is meant: pin
 * platform threads.
 */
public final class CpuAffinity {
    /** {@code sizeof(cpu_set_t)} in glibc. */
    private static final long SET_BYTES = 128;
    /** The CPUs a {@code cpu_set_t} of glibc can name (1024): CPU numbers go from 0 to this minus one. */
    public static final int MAX_CPUS = (int) SET_BYTES * 8;

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

    private CpuAffinity() {}

    /**
     * {@return why threads cannot be pinned in this JVM (not Linux, native access denied, ...), or empty if they can}
     */
    public static Optional<String> unavailableReason() {
        return Optional.ofNullable(UNAVAILABLE);
    }

    /**
     * Restricts the calling platform thread to {@code cpus}.
     *
     * @param cpus the CPUs it may run on from now on
     * @throws IllegalArgumentException if {@code cpus} is empty or names a CPU outside 0 to {@link #MAX_CPUS} - 1
     * @throws IllegalStateException if pinning is unavailable ({@link #unavailableReason()}) or the kernel refuses
     *         ({@code EINVAL} for a set outside the process's cpuset, {@code EPERM}); the message has the errno
     */
    public static void pinCurrentThread(int... cpus) {
        if (cpus.length == 0) {
            throw new IllegalArgumentException("no cpus to pin to");
        }
        if (SET == null) {
            throw new IllegalStateException("cannot pin: " + UNAVAILABLE);
        }
        int rc;
        int errno;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(SET_BYTES, 8);
            for (int cpu : cpus) {
                if (cpu < 0 || cpu >= MAX_CPUS) {
                    throw new IllegalArgumentException("cpu " + cpu + " is outside a cpu_set_t (0-" + (MAX_CPUS - 1) + ")");
                }
                int b = cpu / 8;
                mask.set(ValueLayout.JAVA_BYTE, b, (byte) (mask.get(ValueLayout.JAVA_BYTE, b) | (1 << (cpu % 8))));
            }
            MemorySegment state = arena.allocate(STATE);
            rc = (int) SET.invokeExact(state, 0, SET_BYTES, mask);
            errno = rc == 0 ? 0 : (int) ERRNO.get(state, 0L);
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("sched_setaffinity(" + Arrays.toString(cpus) + ") failed", t);
        }
        if (rc != 0) {
            throw new IllegalStateException("sched_setaffinity(" + Arrays.toString(cpus) + ") failed: " + errnoName(errno));
        }
    }

    /** {@return the CPUs the calling thread may run on, ascending; empty if that cannot be asked} */
    public static List<Integer> allowedCpus() {
        if (GET == null) {
            return List.of();
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(SET_BYTES, 8);
            MemorySegment state = arena.allocate(STATE);
            int rc = (int) GET.invokeExact(state, 0, SET_BYTES, mask);
            if (rc != 0) {
                return List.of();
            }
            List<Integer> cpus = new ArrayList<>();
            for (int cpu = 0; cpu < MAX_CPUS; cpu++) {
                if ((mask.get(ValueLayout.JAVA_BYTE, cpu / 8) & (1 << (cpu % 8))) != 0) {
                    cpus.add(cpu);
                }
            }
            return List.copyOf(cpus);
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
