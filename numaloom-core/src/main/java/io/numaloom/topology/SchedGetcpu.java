package io.numaloom.topology;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;
import java.util.Optional;

/**
 * The FFM binding of {@code int sched_getcpu(void)} and the choice, made once by {@link CurrentCpu}, of
 * where the current CPU comes from. This class is the only caller of a restricted method in numaloom
 * ({@link Linker#downcallHandle}), so the JDK's restricted-method warning, when it is printed, names it.
 *
 * <p>The handle is linked with {@link Linker.Option#critical(boolean) critical(false)}: the call makes no
 * thread-state transition (about 3 ns instead of 8 on the development machine in one run, commit fc7c5b3,
 * not re-measured since; docs/measurements.md, entry 43), which is safe because
 * {@code sched_getcpu} neither blocks nor calls back into Java (glibc answers from rseq or the vDSO).
 */
final class SchedGetcpu {

    private SchedGetcpu() {}

    /**
     * The outcome of {@link #choose}: a handle (null means the thread spread), the reason, and the level at
     * which {@link CurrentCpu} logs it.
     */
    record Choice(MethodHandle handle, String reason, System.Logger.Level level) {}

    /**
     * Chooses the source for {@code mode}, the value of {@link CurrentCpu#MODE_PROPERTY} (null means
     * {@code auto}), on behalf of {@code module} (numaloom's module, whose native access the JDK checks).
     */
    static Choice choose(String mode, Module module) {
        return choose(mode, module, multiNode());
    }

    /**
     * As {@link #choose(String, Module)}; {@code multiNode} says whether the topology has more than one
     * node or socket, where a fallback to the spread costs locality: only then is it logged as a
     * {@code WARNING}. Everything the user asked for, and every outcome on a one-node machine, is logged at
     * {@code DEBUG}, so that the library prints nothing on its users' standard error.
     */
    static Choice choose(String mode, Module module, boolean multiNode) {
        String m = mode == null ? "auto" : mode.strip().toLowerCase(Locale.ROOT);
        String enableFlag = "--enable-native-access=" + (module.isNamed() ? module.getName() : "ALL-UNNAMED");
        System.Logger.Level fallback = multiNode ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG;
        switch (m) {
            case "spread":
                return new Choice(null, CurrentCpu.MODE_PROPERTY + "=spread", System.Logger.Level.DEBUG);
            case "quiet":
                if (!module.isNativeAccessEnabled()) {
                    return new Choice(null, CurrentCpu.MODE_PROPERTY + "=quiet and native access is not enabled for "
                            + describe(module) + " (run with " + enableFlag + " to use sched_getcpu)", System.Logger.Level.DEBUG);
                }
                return bind(module, enableFlag, "", fallback);
            case "auto", "":
                return bind(module, enableFlag, "", fallback);
            default:
                return bind(module, enableFlag, "; ignored unknown " + CurrentCpu.MODE_PROPERTY + "=" + mode
                        + " (expected auto, quiet or spread), used auto", fallback);
        }
    }

    /** Whether the current topology has more than one node or socket; false if it cannot be read. */
    private static boolean multiNode() {
        try {
            Topology t = Topology.current();
            return t.nodeCount() > 1 || t.socketCount() > 1;
        } catch (RuntimeException e) {
            return false; // a bad numaloom.topology is reported where the topology is used
        }
    }

    private static Choice bind(Module module, String enableFlag, String note, System.Logger.Level fallback) {
        boolean enabled = module.isNativeAccessEnabled();
        MethodHandle handle;
        try {
            Linker linker = Linker.nativeLinker();
            Optional<MemorySegment> symbol = linker.defaultLookup().find("sched_getcpu");
            if (symbol.isEmpty()) {
                return new Choice(null, "the C library has no sched_getcpu (os.name=" + System.getProperty("os.name") + ")" + note,
                        level(note, fallback));
            }
            handle = linker.downcallHandle(symbol.get(), FunctionDescriptor.of(ValueLayout.JAVA_INT),
                    Linker.Option.critical(false));
        } catch (IllegalCallerException e) {
            return new Choice(null, "native access is denied to " + describe(module) + " (\"" + e.getMessage()
                    + "\"); run with " + enableFlag + " to use sched_getcpu" + note, level(note, fallback));
        } catch (UnsupportedOperationException e) {
            return new Choice(null, "the FFM linker does not support this platform (" + e.getMessage() + ")" + note,
                    level(note, fallback));
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            return new Choice(null, "binding sched_getcpu failed: " + e + note, level(note, fallback));
        }
        int probe;
        try {
            probe = (int) handle.invokeExact();
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            return new Choice(null, "calling sched_getcpu failed: " + e + note, level(note, fallback));
        }
        if (probe < 0) {
            return new Choice(null, "sched_getcpu returned " + probe + note, level(note, fallback));
        }
        if (enabled) {
            return new Choice(handle, "sched_getcpu through FFM" + note, level(note, System.Logger.Level.DEBUG));
        }
        return new Choice(handle, "sched_getcpu through FFM; native access is not enabled for " + describe(module)
                + ", so the JDK printed a one-time restricted-method warning: run with " + enableFlag
                + " to silence it, or -D" + CurrentCpu.MODE_PROPERTY + "=quiet to make no native call" + note,
                level(note, System.Logger.Level.DEBUG));
    }

    /** An unknown mode value is worth a warning whatever the outcome. */
    private static System.Logger.Level level(String note, System.Logger.Level otherwise) {
        return note.isEmpty() ? otherwise : System.Logger.Level.WARNING;
    }

    private static String describe(Module module) {
        return module.isNamed() ? "module " + module.getName() : "the unnamed module (class path)";
    }
}
