package io.numaloom;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.constantpool.ClassEntry;
import java.lang.classfile.constantpool.PoolEntry;
import java.lang.classfile.constantpool.Utf8Entry;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The parts of {@link VnaLock} depend downwards only (docs/vna-mechanisms.md, "The layering"): the facades
 * ({@code VnaLock}, {@code KeyedLock}, {@code VnaReentrantLock}) call the mechanisms, a mechanism refers only to the
 * shared state and to the mechanisms listed before it, and the shared state refers to no mechanism. Read from the
 * compiled classes' constant pools ({@code java.lang.classfile}), so a reference in code, a field or a signature
 * counts, and a name in a comment does not.
 */
class VnaLayeringTest {

    /** Layer 2: the API; they may use everything below. */
    private static final List<String> FACADES = List.of("VnaLock", "KeyedLock", "VnaReentrantLock");

    /** Layer 1, in order: each may use the shared state and the mechanisms before it. */
    private static final List<String> MECHANISMS = List.of(
            "VnaPlacement", "VnaNewcomerPoll", "VnaReservation", "VnaSuccession", "VnaHeirWait",
            "VnaConditionWakes", "VnaSignalPoll", "VnaCondition");

    /** Layer 0: what the mechanisms share; they use nothing above them. */
    private static final List<String> SHARED_STATE = List.of(
            "VnaLockWord", "ConditionLock", "VnaWaiters", "VnaWaitersPadBefore", "VnaWaitersHot", "VnaWaitersPadAfter",
            "VnaQueueNode", "VnaCarriers", "VnaWaitOutcome", "VnaSeams", "VnaConditionWaiter",
            "SignalledWaiters", "LockDiagnostics", "QueuePlacement");

    private static final Pattern DESCRIPTOR_CLASS = Pattern.compile("L(io/numaloom/[A-Za-z0-9_$/]+);");

    @Test
    void noPartOfTheLockRefersToAFacade() throws IOException {
        List<String> arrows = new ArrayList<>();
        for (String part : concat(MECHANISMS, SHARED_STATE)) {
            for (String used : references(part)) {
                if (FACADES.contains(used)) {
                    arrows.add(part + " -> " + used);
                }
            }
        }
        assertEquals(List.of(), arrows, "arrows from a part of the lock up to the class it is a part of");
    }

    @Test
    void theSharedStateRefersToNoMechanism() throws IOException {
        List<String> arrows = new ArrayList<>();
        for (String state : SHARED_STATE) {
            for (String used : references(state)) {
                if (MECHANISMS.contains(used)) {
                    arrows.add(state + " -> " + used);
                }
            }
        }
        assertEquals(List.of(), arrows, "arrows from the shared state up to a mechanism");
    }

    @Test
    void aMechanismRefersOnlyToTheMechanismsBeforeIt() throws IOException {
        List<String> arrows = new ArrayList<>();
        for (int i = 0; i < MECHANISMS.size(); i++) {
            String mechanism = MECHANISMS.get(i);
            for (String used : references(mechanism)) {
                int j = MECHANISMS.indexOf(used);
                if (j > i) {
                    arrows.add(mechanism + " -> " + used);
                }
            }
        }
        assertEquals(List.of(), arrows, "arrows from a mechanism to one listed after it (a cycle, or an order to fix)");
    }

    /** Every class of the package is in a layer, so that a new file cannot escape the checks above unnoticed. */
    @Test
    void everyPartOfTheLockIsInALayer() throws IOException {
        Set<String> known = new TreeSet<>(concat(FACADES, concat(MECHANISMS, SHARED_STATE)));
        Set<String> unplaced = new TreeSet<>();
        for (String name : topLevelClasses()) {
            if (name.startsWith("Vna") && !known.contains(name)) {
                unplaced.add(name);
            }
        }
        assertEquals(Set.of(), unplaced, "Vna* classes in no layer of this test");
    }

    /** The check can fail: the facade refers to its mechanisms, so an arrow the other way would be seen. */
    @Test
    void theReadingSeesReferences() throws IOException {
        Set<String> used = references("VnaLock");
        assertTrue(used.contains("VnaHeirWait") && used.contains("VnaLockWord") && used.contains("VnaReservation"),
                "VnaLock's references as read: " + used);
        assertFalse(references("VnaCarriers").contains("VnaLock"));
        assertTrue(references("VnaHeirWait").contains("VnaQueueNode"), "a parameter type is a reference");
    }

    /** The package's classes that {@code top} (and its nested classes) refer to, by top-level simple name. */
    private static Set<String> references(String top) throws IOException {
        Set<String> out = new TreeSet<>();
        List<Path> files = classFiles(top);
        assertFalse(files.isEmpty(), "no class file for " + top);
        for (Path file : files) {
            ClassModel model = ClassFile.of().parse(Files.readAllBytes(file));
            for (PoolEntry entry : model.constantPool()) {
                if (entry instanceof ClassEntry c) {
                    add(out, c.asInternalName(), top);
                } else if (entry instanceof Utf8Entry u) {
                    Matcher m = DESCRIPTOR_CLASS.matcher(u.stringValue());
                    while (m.find()) {
                        add(out, m.group(1), top);
                    }
                }
            }
        }
        return out;
    }

    private static void add(Set<String> out, String internalName, String self) {
        String prefix = "io/numaloom/";
        if (!internalName.startsWith(prefix) || internalName.indexOf('/', prefix.length()) >= 0) {
            return; // another package (java.*, io.numaloom.topology, ...)
        }
        String simple = internalName.substring(prefix.length());
        int nested = simple.indexOf('$');
        String topLevel = nested < 0 ? simple : simple.substring(0, nested);
        if (!topLevel.equals(self)) {
            out.add(topLevel);
        }
    }

    private static List<Path> classFiles(String top) throws IOException {
        try (Stream<Path> s = Files.list(packageDir())) {
            return s.filter(p -> {
                String f = p.getFileName().toString();
                return f.equals(top + ".class") || f.startsWith(top + "$");
            }).toList();
        }
    }

    private static Set<String> topLevelClasses() throws IOException {
        try (Stream<Path> s = Files.list(packageDir())) {
            Set<String> out = new TreeSet<>();
            s.map(p -> p.getFileName().toString()).filter(f -> f.endsWith(".class"))
                    .map(f -> f.substring(0, f.length() - ".class".length()))
                    .filter(f -> !f.contains("$") && !f.equals("package-info"))
                    .forEach(out::add);
            return out;
        }
    }

    private static Path packageDir() {
        try {
            Path root = Path.of(VnaLock.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path dir = root.resolve("io").resolve("numaloom");
            assertTrue(Files.isDirectory(dir), "the compiled classes are not a directory here: " + root);
            return dir;
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }
}
