package io.numaloom.bench.workloads;

import io.numaloom.VnaReentrantLock;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.util.concurrent.locks.Lock;

/**
 * The check that makes an application's run through numaloom's agent a result: the workloads of applications nobody
 * here wrote ({@link LogbackAppender}, {@link CommonsPool}, {@link H2Updates}) read their library's hot lock by
 * reflection and require it to be what this JVM was started for. With {@code -javaagent:...numaloom-agent...}
 * among the JVM's arguments the lock must be a {@link VnaReentrantLock} whose locking is a {@code VnaLock}'s; without,
 * it must be the library's own. A run in which the agent swapped nothing, or swapped where it was not asked to,
 * fails its round with a sentence that says so instead of passing for a measurement of the other.
 */
final class AgentSwap {
    /** Whether numaloom's agent was given to this JVM ({@code -javaagent:} naming {@code numaloom-agent}). */
    static final boolean AGENT_ON = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
            .anyMatch(a -> a.startsWith("-javaagent:") && a.contains("numaloom-agent"));

    private AgentSwap() {}

    /**
     * The value of field {@code name} of {@code owner}, declared by {@code declaring} or a superclass of it.
     *
     * @throws IllegalStateException naming the field, where this version of the library has none
     */
    static Object field(Object owner, Class<?> declaring, String name) {
        for (Class<?> c = declaring; c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(owner);
            } catch (NoSuchFieldException e) {
                // a superclass may declare it
            } catch (ReflectiveOperationException | RuntimeException e) {
                throw new IllegalStateException("cannot read " + declaring.getName() + "." + name + ": " + e, e);
            }
        }
        throw new IllegalStateException(declaring.getName() + " has no field " + name
                + ": this version of the library keeps its lock elsewhere, and the workload must follow it");
    }

    /**
     * Requires {@code lock}, the library's hot lock named {@code what}, to be swapped exactly when the agent is on.
     *
     * @throws IllegalStateException saying what was found against what the JVM was started for
     */
    static void require(Lock lock, String what) {
        boolean swapped = lock instanceof VnaReentrantLock v && v.isVna();
        if (AGENT_ON && !swapped) {
            throw new IllegalStateException("numaloom's agent is on, but " + what + " is a " + lock.getClass().getName()
                    + ": the agent swapped nothing there, so this run measures the stock lock (see the agent's report)");
        }
        if (!AGENT_ON && swapped) {
            throw new IllegalStateException(what + " is a VnaReentrantLock though numaloom's agent is not on: this is "
                    + "not the library's stock lock");
        }
    }
}
