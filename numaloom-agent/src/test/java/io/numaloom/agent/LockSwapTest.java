package io.numaloom.agent;

import io.numaloom.VnaReentrantLock;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.constantpool.StringEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LockSwap} on the class files of {@code org.example.app}, compiled by javac as an application's are: the
 * rewritten classes are loaded by a loader of their own, and their objects checked.
 */
class LockSwapTest {
    private static final ClassHierarchyResolver HIERARCHY = ClassHierarchyResolver.ofResourceParsing(LockSwapTest.class.getClassLoader());

    private static byte[] bytes(String name) throws IOException {
        try (InputStream in = LockSwapTest.class.getClassLoader().getResourceAsStream(name.replace('.', '/') + ".class")) {
            return in.readAllBytes();
        }
    }

    /** Loads org.example.app's classes rewritten for {@code target}, recording each class's result. */
    private static final class SwappingLoader extends ClassLoader {
        final Map<String, LockSwap.Result> results = new HashMap<>();
        final List<LockSwap.Site> numbered = new ArrayList<>();
        private final LockSwap.Target target;
        private final LockSwap.SiteNumbers numbers;

        SwappingLoader(LockSwap.Target target) {
            this(target, null);
        }

        /** {@code numbers}: how sites are numbered (null: in {@link #numbered}). */
        SwappingLoader(LockSwap.Target target, LockSwap.SiteNumbers numbers) {
            super(LockSwapTest.class.getClassLoader());
            this.target = target;
            this.numbers = numbers != null ? numbers : site -> {
                numbered.add(site);
                return numbered.size() - 1;
            };
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith("org.example.app.")) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    try {
                        byte[] original = bytes(name);
                        LockSwap.Result r = LockSwap.rewrite(original, target, HIERARCHY, numbers);
                        results.put(name, r);
                        byte[] b = r.bytes() != null ? r.bytes() : original;
                        c = defineClass(name, b, 0, b.length);
                    } catch (IOException e) {
                        throw new ClassNotFoundException(name, e);
                    }
                }
                return c;
            }
        }
    }

    @Test
    void unfairLocksBecomeVnaReentrantLocksAndTheFinalMonitoringCallsSeeTheirQueue() throws Exception {
        SwappingLoader loader = new SwappingLoader(LockSwap.Target.PLAIN);
        Class<?> holderClass = loader.loadClass("org.example.app.UnfairHolder");
        Object holder = holderClass.getConstructor().newInstance();
        ReentrantLock plain = (ReentrantLock) holderClass.getField("plain").get(holder);
        ReentrantLock unfair = (ReentrantLock) holderClass.getField("unfair").get(holder);
        assertSame(VnaReentrantLock.class, plain.getClass(), "new ReentrantLock()");
        assertSame(VnaReentrantLock.class, unfair.getClass(), "new ReentrantLock(false)");
        assertSame(VnaReentrantLock.class, holderClass.getMethod("make").invoke(null).getClass(), "in a static method");

        plain.lock();
        Thread waiter = Thread.ofPlatform().start(() -> {
            plain.lock();
            plain.unlock();
        });
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!(boolean) holderClass.getMethod("waiting", Thread.class).invoke(holder, waiter) && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertEquals(1, holderClass.getMethod("waiting").invoke(holder), "getQueueLength() through the static method");
            assertTrue((boolean) holderClass.getMethod("anyWaiting").invoke(holder));
            assertTrue((boolean) holderClass.getMethod("waiting", Thread.class).invoke(holder, waiter));
        } finally {
            plain.unlock();
        }
        waiter.join();

        LockSwap.Result r = loader.results.get("org.example.app.UnfairHolder");
        assertEquals(List.of("org.example.app.UnfairHolder.<init>:7", "org.example.app.UnfairHolder.<init>:8",
                "org.example.app.UnfairHolder.make:11"), r.swapped().stream().map(LockSwap.Site::where).toList());
        assertEquals(List.of(), r.left());
    }

    @Test
    void aConstantFairLockIsLeftAsItWasAndNamed() throws Exception {
        SwappingLoader loader = new SwappingLoader(LockSwap.Target.PLAIN);
        Class<?> c = loader.loadClass("org.example.app.FairHolder");
        Object holder = c.getConstructor().newInstance();
        assertSame(ReentrantLock.class, c.getField("fair").get(holder).getClass());
        assertSame(ReentrantLock.class, c.getField("unfair").get(holder).getClass(),
                "an unfair lock made in the same method as a fair one stays: the method is left whole");
        LockSwap.Result r = loader.results.get("org.example.app.FairHolder");
        assertEquals(List.of("org.example.app.FairHolder.<init>:6"), r.left().stream().map(LockSwap.Site::where).toList());
        assertTrue(r.left().getFirst().what().contains("fair"), r.left().toString());
    }

    @Test
    void aComputedFairnessIsDecidedWhenTheLockIsMade() throws Exception {
        for (LockSwap.Target target : List.of(LockSwap.Target.PLAIN,
                new LockSwap.Target(LockSwap.VNA_REENTRANT_LOCK, LockSwap.SiteArgument.NAME),
                AgentOptions.parse("counts").target())) {
            SwappingLoader loader = new SwappingLoader(target, Sites::register);
            Class<?> c = loader.loadClass("org.example.app.FairHolder");
            VnaReentrantLock unfair = (VnaReentrantLock) c.getMethod("make", boolean.class).invoke(null, false);
            VnaReentrantLock fair = (VnaReentrantLock) c.getMethod("make", boolean.class).invoke(null, true);
            assertTrue(unfair.isVna() && !unfair.isFair(), target.toString());
            assertTrue(!fair.isVna() && fair.isFair(), "asked for fairness, it keeps ReentrantLock's fair lock: " + target);
            fair.lock();
            assertTrue(fair.isHeldByCurrentThread());
            fair.unlock();
            assertEquals(List.of("org.example.app.FairHolder.make:11"), loader.results.get("org.example.app.FairHolder")
                    .swapped().stream().map(LockSwap.Site::where).toList());
            assertTrue(loader.results.get("org.example.app.FairHolder").swapped().getFirst().what().contains("fairness computed"));
        }
    }

    @Test
    void aSubclassOfReentrantLockExtendsVnaReentrantLockUnlessItAsksForFairness() throws Exception {
        SwappingLoader loader = new SwappingLoader(LockSwap.Target.PLAIN);
        Class<?> sub = loader.loadClass("org.example.app.CountingSubclass");
        assertSame(VnaReentrantLock.class, sub.getSuperclass());
        ReentrantLock lock = (ReentrantLock) sub.getConstructor().newInstance();
        lock.lock();
        lock.lock();
        assertEquals(2, sub.getField("locks").get(lock), "its own lock() runs, and super.lock() is VnaLock's");
        assertEquals(2, lock.getHoldCount());
        assertSame(Thread.currentThread(), sub.getMethod("owner").invoke(lock));
        lock.unlock();
        lock.unlock();
        assertFalse(lock.isLocked());

        Class<?> fair = loader.loadClass("org.example.app.FairSubclass");
        assertSame(ReentrantLock.class, fair.getSuperclass());
        assertTrue(((ReentrantLock) fair.getConstructor().newInstance()).isFair());
        assertTrue(loader.results.get("org.example.app.FairSubclass").left().getFirst().what().contains("super(true)"));

        Class<?> computed = loader.loadClass("org.example.app.ComputedFairSubclass");
        assertSame(VnaReentrantLock.class, computed.getSuperclass(), "super(fair): the choice is made at run time");
        VnaReentrantLock unfairOne = (VnaReentrantLock) computed.getConstructor(boolean.class).newInstance(false);
        VnaReentrantLock fairOne = (VnaReentrantLock) computed.getConstructor(boolean.class).newInstance(true);
        assertTrue(unfairOne.isVna() && !unfairOne.isFair());
        assertTrue(!fairOne.isVna() && fairOne.isFair());
    }

    @Test
    void aClassWithoutReentrantLockIsNotParsed() throws Exception {
        assertFalse(LockSwap.mentionsReentrantLock(bytes("org.example.app.NoLocks")));
        LockSwap.Result r = LockSwap.rewrite(bytes("org.example.app.NoLocks"), LockSwap.Target.PLAIN, HIERARCHY, s -> 0);
        assertNull(r.bytes());
    }

    @Test
    void withEventsTheLockIsNamedByItsSite() throws Exception {
        LockSwap.Target named = new LockSwap.Target(LockSwap.VNA_REENTRANT_LOCK, LockSwap.SiteArgument.NAME);
        LockSwap.Result r = LockSwap.rewrite(bytes("org.example.app.UnfairHolder"), named, HIERARCHY, s -> 0);
        List<String> strings = new ArrayList<>();
        ClassFile.of().parse(r.bytes()).constantPool().forEach(e -> {
            if (e instanceof StringEntry str) {
                strings.add(str.stringValue());
            }
        });
        assertTrue(strings.contains("org.example.app.UnfairHolder.<init>:7"), strings.toString());
        SwappingLoader loader = new SwappingLoader(named);
        Class<?> c = loader.loadClass("org.example.app.UnfairHolder");
        assertSame(VnaReentrantLock.class, c.getField("plain").get(c.getConstructor().newInstance()).getClass());
    }

    /** The agent's {@code counts}: the lock is a {@link CountingLock} of its site, and the report gives its counts. */
    @Test
    void withCountsEachSiteCountsItsAcquisitions() throws Exception {
        LockSwap.Target counting = AgentOptions.parse("counts").target();
        SwappingLoader loader = new SwappingLoader(counting, Sites::register);
        Class<?> c = loader.loadClass("org.example.app.UnfairHolder");
        Sites.record(loader.results.get("org.example.app.UnfairHolder"), true);
        ReentrantLock plain = (ReentrantLock) c.getField("plain").get(c.getConstructor().newInstance());
        assertSame(CountingLock.class, plain.getClass());
        for (int i = 0; i < 3; i++) {
            plain.lock();
            plain.unlock();
        }
        assertTrue(plain.tryLock());
        plain.unlock();
        String report = Sites.report();
        assertTrue(report.contains("swapped org.example.app.UnfairHolder.<init>:7: ReentrantLock -> io.numaloom.agent.CountingLock"
                + " (4 acquisitions, 0 contended)"), report);
        assertTrue(report.contains("swapped org.example.app.UnfairHolder.make:11"), report);
    }
}
