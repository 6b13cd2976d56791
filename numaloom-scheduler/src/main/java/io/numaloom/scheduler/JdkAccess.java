package io.numaloom.scheduler;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Constructor;
import java.util.concurrent.Executor;

/**
 * The three non-public members of {@code java.base} that a scheduler of virtual threads needs on JDK 25, reached
 * once, when this class is initialized, by deep reflection into {@code java.lang}:
 * <ul>
 * <li>the package-private constructor {@code java.lang.ThreadBuilders.VirtualThreadBuilder(Executor)}, which
 *     builds virtual threads whose every mount goes through the given executor;
 * <li>the field {@code java.lang.VirtualThread.scheduler}, read to tell which executor a virtual thread belongs
 *     to ({@link NumaScheduler#homeNode(Thread)}), inherited children included;
 * <li>the static method {@code Thread.currentCarrierThread()}, to tell which carrier the calling virtual thread
 *     is mounted on.
 * </ul>
 * All three need {@code java.lang} opened to this class's module: {@link #flag()} is the exact option. If any of
 * them cannot be reached, {@link #failure()} says why and none is used; nothing here is touched by
 * numaloom-core, which therefore keeps needing no JVM flag.
 */
final class JdkAccess {

    private static final Constructor<?> BUILDER;
    private static final VarHandle SCHEDULER;
    private static final Class<?> VIRTUAL_THREAD;
    private static final MethodHandle CURRENT_CARRIER;
    private static final String FAILURE;

    static {
        Constructor<?> builder = null;
        VarHandle scheduler = null;
        Class<?> virtualThread = null;
        MethodHandle currentCarrier = null;
        String failure = null;
        try {
            Class<?> builderClass = Class.forName("java.lang.ThreadBuilders$VirtualThreadBuilder");
            builder = builderClass.getDeclaredConstructor(Executor.class);
            builder.setAccessible(true); // InaccessibleObjectException unless java.lang is opened to us
            virtualThread = Class.forName("java.lang.VirtualThread");
            MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(virtualThread, MethodHandles.lookup());
            scheduler = lookup.findVarHandle(virtualThread, "scheduler", Executor.class);
            currentCarrier = MethodHandles.privateLookupIn(Thread.class, MethodHandles.lookup())
                    .findStatic(Thread.class, "currentCarrierThread", MethodType.methodType(Thread.class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            failure = e.getClass().getSimpleName() + ": " + e.getMessage();
            builder = null;
            scheduler = null;
            virtualThread = null;
            currentCarrier = null;
        }
        BUILDER = builder;
        SCHEDULER = scheduler;
        VIRTUAL_THREAD = virtualThread;
        CURRENT_CARRIER = currentCarrier;
        FAILURE = failure;
    }

    private JdkAccess() {}

    /** The JVM option that opens {@code java.lang} to this module: {@code ALL-UNNAMED} on the class path. */
    static String flag() {
        Module module = JdkAccess.class.getModule();
        return "--add-opens java.base/java.lang=" + (module.isNamed() ? module.getName() : "ALL-UNNAMED");
    }

    /** Why the members cannot be reached, or null if they can. */
    static String failure() {
        return FAILURE;
    }

    /**
     * A builder of virtual threads scheduled by {@code executor}.
     *
     * @throws UnsupportedOperationException naming {@link #flag()} if {@code java.lang} is not opened to us
     */
    static Thread.Builder.OfVirtual builder(Executor executor) {
        if (BUILDER == null) {
            throw unsupported();
        }
        try {
            return (Thread.Builder.OfVirtual) BUILDER.newInstance(executor);
        } catch (ReflectiveOperationException e) {
            throw new UnsupportedOperationException("cannot build virtual threads with a custom scheduler on this JDK ("
                    + Runtime.version() + "): " + e, e);
        }
    }

    static UnsupportedOperationException unsupported() {
        return new UnsupportedOperationException("NumaScheduler needs the JVM option " + flag()
                + ": JDK " + Runtime.version().feature() + " has no public API to give virtual threads a scheduler, and the"
                + " one way in, the constructor java.lang.ThreadBuilders$VirtualThreadBuilder(Executor), is not"
                + " accessible (" + FAILURE + ")");
    }

    /** The executor that schedules {@code thread}, or null if it is not a virtual thread or we cannot tell. */
    static Executor schedulerOf(Thread thread) {
        VarHandle handle = SCHEDULER;
        if (handle == null || !VIRTUAL_THREAD.isInstance(thread)) {
            return null;
        }
        return (Executor) handle.get(thread);
    }

    /**
     * The carrier the calling thread is mounted on: the thread itself if it is a platform thread; null if we
     * cannot tell.
     */
    static Thread currentCarrier() {
        MethodHandle handle = CURRENT_CARRIER;
        if (handle == null) {
            return null;
        }
        try {
            return (Thread) handle.invokeExact();
        } catch (Throwable e) {
            throw new IllegalStateException("Thread.currentCarrierThread() failed", e);
        }
    }
}
