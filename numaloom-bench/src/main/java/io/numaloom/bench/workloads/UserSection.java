package io.numaloom.bench.workloads;

import io.numaloom.bench.GuardedRegion;
import io.numaloom.bench.Worker;
import io.numaloom.bench.config.Field;
import io.numaloom.bench.config.Settings;
import org.openjdk.jmh.infra.Blackhole;

import java.io.File;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A user's own critical section: the {@code run()} of a {@link Runnable}, called by every worker under the measured
 * lock, {@code actionsCount} times per round split evenly over the threads, optionally after work outside the lock.
 *
 * <p>The section comes from one of two places:
 * <ul>
 * <li>a class named by {@value #CLASS_FIELD} (found on {@value #CLASSPATH_FIELD}, jars or class directories, through
 *     a class loader of its own in each measured JVM): public, with a public no-argument constructor, implementing
 *     {@code Runnable}. Each round makes one new instance, untimed, shared by all the round's threads, as an
 *     application's shared state is; so every round starts from fresh state, as the bench's own workloads do. Its
 *     public no-argument method named by {@value #OUTSIDE_FIELD}, if any, is the work outside the lock: every thread
 *     calls it on that instance before each acquisition, without any lock;</li>
 * <li>a {@code Runnable} registered in this JVM with {@link #register(String, Runnable, Runnable)} (what
 *     {@code io.numaloom.bench.api.LockMatrix.of(Runnable)} does), named by {@value #SECTION_FIELD}: it can only be
 *     measured in the JVM that registered it, and is the same object in every round.</li>
 * </ul>
 *
 * <p>Every acquisition goes through {@link Worker#locked}, so the round gets the bench's acquire latencies, NUMA
 * bookkeeping and its generic mutual-exclusion check (the region's own counter against the workers'); it checks
 * nothing about the user's data, which only the user knows: {@link Round#verify()} does nothing.
 */
public final class UserSection implements Workload {
    /** The field naming the class whose {@code run()} is the critical section. */
    public static final String CLASS_FIELD = "workloadClass";
    /** The field naming where that class is. */
    public static final String CLASSPATH_FIELD = "classpath";
    /** The field naming a section registered in this JVM. */
    public static final String SECTION_FIELD = "section";
    /** The field naming the class's method that is the work outside the lock. */
    public static final String OUTSIDE_FIELD = "outsideMethod";

    static final List<Field> FIELDS = List.of(
            Field.longField("actionsCount", 1, 100_000L, "critical sections per round, split evenly over the threads"),
            Field.stringField(CLASS_FIELD, "", "the critical section: a public class with a public no-argument constructor that "
                    + "implements Runnable; each round makes one instance, shared by all its threads, whose run() every thread "
                    + "calls under the lock"),
            Field.stringField(CLASSPATH_FIELD, "", "where " + CLASS_FIELD + " is: jar files or class directories separated by '"
                    + File.pathSeparator + "'; empty: the bench's own class path"),
            Field.stringField(OUTSIDE_FIELD, "", "the work outside the lock: the name of a public no-argument instance method of "
                    + CLASS_FIELD + ", which every thread calls on the round's shared instance before each acquisition, outside "
                    + "any lock (so it runs in all threads at once and must be safe to); empty: none"),
            Field.longField("beforeCpuTokens", 0, 0L, "Blackhole.consumeCPU tokens outside the lock before each acquisition"),
            Field.stringField(SECTION_FIELD, "", "set by io.numaloom.bench.api.LockMatrix for a Runnable measured in its own JVM; "
                    + "not for configuration files"));

    /** A section and its outside work (null for none), registered in this JVM. */
    private record Registered(Runnable inside, Runnable outside) {}

    private static final Map<String, Registered> REGISTERED = new ConcurrentHashMap<>();
    private static final AtomicLong NEXT_ID = new AtomicLong();

    private final long actions;
    private final long beforeTokens;
    private final Supplier<Runnable> sections;
    /** The work outside the lock, for a round's section (the registered one's ignores it); null for none. */
    private final java.util.function.Function<Runnable, Runnable> outside;

    public UserSection(Settings settings) {
        this.actions = settings.getLong("actionsCount");
        this.beforeTokens = settings.getLong("beforeCpuTokens");
        String section = settings.getString(SECTION_FIELD);
        String className = settings.getString(CLASS_FIELD);
        if (!section.isEmpty()) {
            Registered r = REGISTERED.get(section);
            if (r == null) {
                throw new IllegalArgumentException("runnable: " + SECTION_FIELD + " '" + section + "' is not registered in this JVM: a "
                        + "Runnable handed to LockMatrix.of is measured only in the JVM that runs that LockMatrix");
            }
            this.sections = r::inside;
            this.outside = r.outside() == null ? null : instance -> r.outside();
            if (!settings.getString(OUTSIDE_FIELD).isEmpty()) {
                throw new IllegalArgumentException("runnable: " + OUTSIDE_FIELD + " names a method of " + CLASS_FIELD
                        + "; a registered section takes its outside work from LockMatrix.outside(Runnable)");
            }
        } else {
            // The loader lives as long as this measured JVM: the class's instances are made round after round.
            ClassLoader loader = loader(classpath(settings.getString(CLASSPATH_FIELD), CLASSPATH_FIELD));
            Constructor<? extends Runnable> constructor = constructor(className, loader, CLASS_FIELD,
                    settings.getString(CLASSPATH_FIELD), CLASSPATH_FIELD);
            this.sections = () -> newInstance(constructor);
            String method = settings.getString(OUTSIDE_FIELD);
            if (method.isEmpty()) {
                this.outside = null;
            } else {
                MethodHandle handle = outsideMethod(constructor.getDeclaringClass(), method, OUTSIDE_FIELD);
                this.outside = instance -> bound(handle, instance);
            }
        }
    }

    /** A new id for {@link #register(String, Runnable, Runnable)}, unique in this JVM. */
    public static String newId() {
        return "section-" + NEXT_ID.incrementAndGet();
    }

    /**
     * Registers {@code inside} (and {@code outside}, the work before each acquisition, or null) under {@code id} (from
     * {@link #newId()}) for measurement in this JVM: {@value #SECTION_FIELD} names it. {@link #unregister(String)} it when
     * the run is over.
     */
    public static void register(String id, Runnable inside, Runnable outside) {
        REGISTERED.put(id, new Registered(java.util.Objects.requireNonNull(inside, "inside"), outside));
    }

    /** Forgets a registered section. */
    public static void unregister(String id) {
        REGISTERED.remove(id);
    }

    /**
     * The entries of a class path text (separated by {@link File#pathSeparator}), each checked to exist.
     *
     * @param argument what to name in a message: the option or field the text came from
     * @throws IllegalArgumentException naming {@code argument} and the first entry that does not exist
     */
    public static List<Path> classpath(String text, String argument) {
        List<Path> paths = new ArrayList<>();
        for (String entry : text.split(File.pathSeparator)) {
            if (entry.isBlank()) {
                continue;
            }
            Path p = Path.of(entry.strip());
            if (!Files.exists(p)) {
                throw new IllegalArgumentException(argument + ": no such jar file or directory: " + p.toAbsolutePath());
            }
            if (!Files.isDirectory(p) && !Files.isReadable(p)) {
                throw new IllegalArgumentException(argument + ": cannot read " + p.toAbsolutePath());
            }
            paths.add(p);
        }
        return paths;
    }

    /**
     * Checks, in this JVM, what a measured JVM will do: that {@code className} loads from {@code classpath} (existing
     * entries only) and is a public, concrete {@code Runnable} with a public no-argument constructor. The class is
     * loaded but not initialised and no instance is made.
     *
     * @param classArgument     what to name in a message about the class (an option, a field)
     * @param classpathArgument what to name in a message about the class path
     * @throws IllegalArgumentException naming the argument and what is wrong
     */
    public static void check(String className, List<Path> classpath, String classArgument, String classpathArgument) {
        check(className, classpath, classArgument, classpathArgument, null, null);
    }

    /**
     * {@link #check(String, List, String, String)}, and that {@code outsideMethod} (unless null or empty) is a public
     * no-argument instance method of the class.
     *
     * @param outsideArgument what to name in a message about the method
     */
    public static void check(String className, List<Path> classpath, String classArgument, String classpathArgument,
                             String outsideMethod, String outsideArgument) {
        String text = String.join(File.pathSeparator, classpath.stream().map(Path::toString).toList());
        try (URLClassLoader loader = loader(classpath)) {
            Constructor<? extends Runnable> c = constructor(className, loader, classArgument, text, classpathArgument);
            if (outsideMethod != null && !outsideMethod.isEmpty()) {
                outsideMethod(c.getDeclaringClass(), outsideMethod, outsideArgument);
            }
        } catch (IOException e) {
            throw new IllegalArgumentException(classpathArgument + ": cannot close the class loader of " + text + ": " + e, e);
        }
    }

    private static URLClassLoader loader(List<Path> classpath) {
        URL[] urls = new URL[classpath.size()];
        for (int i = 0; i < urls.length; i++) {
            try {
                urls[i] = classpath.get(i).toAbsolutePath().toUri().toURL();
            } catch (MalformedURLException e) {
                throw new IllegalArgumentException("cannot make a URL of " + classpath.get(i) + ": " + e, e);
            }
        }
        return new URLClassLoader("numaloom-user-section", urls, UserSection.class.getClassLoader());
    }

    private static Constructor<? extends Runnable> constructor(String className, ClassLoader loader, String classArgument,
                                                               String classpath, String classpathArgument) {
        if (className == null || className.isBlank()) {
            throw new IllegalArgumentException(classArgument + " is empty: name the class whose run() is the critical section");
        }
        String where = classpath.isBlank() ? "the bench's class path (name its jar with " + classpathArgument + ")" : classpath;
        Class<?> type;
        try {
            type = Class.forName(className.strip(), false, loader);
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException(classArgument + ": no class " + className.strip() + " in " + where
                    + " (a fully qualified name, such as com.acme.MyWork)", e);
        } catch (LinkageError e) {
            throw new IllegalArgumentException(classArgument + ": " + className.strip() + " in " + where + " cannot be loaded: " + e, e);
        }
        String name = type.getName();
        if (!Runnable.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException(classArgument + ": " + name + " does not implement java.lang.Runnable; its run() "
                    + "is the critical section the locks are compared on");
        }
        if (type.isInterface() || Modifier.isAbstract(type.getModifiers())) {
            throw new IllegalArgumentException(classArgument + ": " + name + " is " + (type.isInterface() ? "an interface" : "abstract")
                    + "; name a concrete class");
        }
        if (!Modifier.isPublic(type.getModifiers())) {
            throw new IllegalArgumentException(classArgument + ": " + name + " is not public");
        }
        if (type.getEnclosingClass() != null && !Modifier.isStatic(type.getModifiers())) {
            throw new IllegalArgumentException(classArgument + ": " + name + " is an inner class; make it static (it needs an "
                    + "instance of its enclosing class to be made)");
        }
        try {
            return type.asSubclass(Runnable.class).getConstructor();
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException(classArgument + ": " + name + " has no public no-argument constructor; the bench "
                    + "makes one instance per round with it, shared by all the round's threads", e);
        } catch (LinkageError e) {
            throw new IllegalArgumentException(classArgument + ": " + name + " cannot be linked: " + e, e);
        }
    }

    /**
     * The handle of {@code type}'s public no-argument instance method {@code name}, its result (if any) dropped.
     *
     * @throws IllegalArgumentException naming {@code argument}, when there is no such method
     */
    private static MethodHandle outsideMethod(Class<?> type, String name, String argument) {
        String n = name.strip();
        java.lang.reflect.Method m;
        try {
            m = type.getMethod(n);
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException(argument + ": " + type.getName() + " has no public no-argument method " + n
                    + "(); the work outside the lock is such a method of the class, called on the round's shared instance", e);
        } catch (LinkageError e) {
            throw new IllegalArgumentException(argument + ": " + type.getName() + " cannot be linked: " + e, e);
        }
        if (Modifier.isStatic(m.getModifiers())) {
            throw new IllegalArgumentException(argument + ": " + type.getName() + "." + n + "() is static; name an instance "
                    + "method (it is called on the round's shared instance)");
        }
        if (n.equals("run")) {
            throw new IllegalArgumentException(argument + ": run() is the critical section; name another method for the work "
                    + "outside the lock");
        }
        try {
            return MethodHandles.publicLookup().unreflect(m).asType(MethodType.methodType(void.class, Object.class));
        } catch (IllegalAccessException e) {
            throw new IllegalArgumentException(argument + ": " + type.getName() + "." + n + "() is not accessible: " + e, e);
        }
    }

    /** {@code handle} called on {@code target}, as the work outside the lock. */
    private static Runnable bound(MethodHandle handle, Object target) {
        MethodHandle h = handle.bindTo(target);
        return () -> {
            try {
                h.invokeExact();
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException("runnable: the work outside the lock threw " + t, t);
            }
        };
    }

    private static Runnable newInstance(Constructor<? extends Runnable> constructor) {
        try {
            return constructor.newInstance();
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("runnable: new " + constructor.getDeclaringClass().getName() + "() threw "
                    + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("runnable: cannot make a " + constructor.getDeclaringClass().getName() + ": " + e, e);
        }
    }

    @Override
    public Round newRound(RoundContext context) {
        GuardedRegion region = context.newRegion();
        Runnable inside = sections.get();
        Runnable before = outside == null ? null : outside.apply(inside);
        long tokens = beforeTokens;
        return new Round() {
            @Override
            public void runThread(Worker worker) {
                for (long i = worker.share(actions); i > 0; i--) {
                    if (before != null) {
                        before.run();
                    }
                    if (tokens > 0) {
                        Blackhole.consumeCPU(tokens);
                    }
                    worker.locked(region, inside);
                    worker.completed();
                }
            }

            @Override
            public long operations() {
                return actions;
            }

            @Override
            public List<GuardedRegion> regions() {
                return List.of(region);
            }

            @Override
            public void verify() {
                // The user's state is the user's: only the lock's exclusion (the regions' counts) is checked.
            }
        };
    }
}
