package io.numaloom.agent;

import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.CodeElement;
import java.lang.classfile.CodeModel;
import java.lang.classfile.CodeTransform;
import java.lang.classfile.Instruction;
import java.lang.classfile.MethodModel;
import java.lang.classfile.Opcode;
import java.lang.classfile.Superclass;
import java.lang.classfile.instruction.ConstantInstruction;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.classfile.instruction.LineNumber;
import java.lang.classfile.instruction.NewObjectInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Rewrites one class so that its unfair {@code ReentrantLock}s are {@code VnaReentrantLock}s (the agent's transformer
 * calls it for every class it may touch; tests call it on bytes).
 *
 * <ul>
 * <li>{@code new ReentrantLock()} and {@code new ReentrantLock(false)} become {@code new VnaReentrantLock()} (or the
 *     lock the {@link Target} names, with its site);
 * <li>{@code new ReentrantLock(fair)}, whose fairness is computed, becomes {@code new VnaReentrantLock(fair)}, which
 *     is a {@code VnaLock} when {@code fair} is false and {@code ReentrantLock}'s own fair lock when it is true;
 * <li>a class that extends {@code ReentrantLock} extends the target instead, its {@code super()},
 *     {@code super(false)} or {@code super(fair)} calls rewritten as above, unless a constructor calls
 *     {@code super(true)};
 * <li>the calls to {@code ReentrantLock}'s three final monitoring methods ({@code hasQueuedThreads()},
 *     {@code hasQueuedThread(Thread)}, {@code getQueueLength()}), which read a queue the swapped lock never uses,
 *     become calls to {@code VnaReentrantLock}'s static methods of the same name, which answer for any lock.
 * </ul>
 *
 * A method that makes a lock fair by a constant ({@code ReentrantLock.<init>(Z)V} right after {@code iconst_1})
 * keeps all its locks, and the result names it; so does a class that extends {@code ReentrantLock} and calls
 * {@code super(true)}: it keeps its superclass. A fair lock is asked for by name; a computed fairness is decided when
 * the lock is made.
 */
final class LockSwap {
    static final String REENTRANT_LOCK = "java/util/concurrent/locks/ReentrantLock";
    static final ClassDesc REENTRANT_LOCK_DESC = ClassDesc.ofInternalName(REENTRANT_LOCK);
    static final ClassDesc VNA_REENTRANT_LOCK = ClassDesc.of("io.numaloom.VnaReentrantLock");
    private static final MethodTypeDesc FAIRNESS_INIT = MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_boolean);
    private static final Set<String> FINAL_MONITORING = Set.of("hasQueuedThreads", "hasQueuedThread", "getQueueLength");
    private static final byte[] REENTRANT_LOCK_BYTES = REENTRANT_LOCK.getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private LockSwap() {}

    /**
     * What replaces a {@code ReentrantLock}: the class, and its constructor, whose arguments are {@code ()} or, for
     * a target that takes the site, {@code (String)} (the lock's name in numaloom's JFR events) or {@code (int)} (the
     * site's number in the agent's report).
     */
    record Target(ClassDesc lock, SiteArgument argument) {
        static final Target PLAIN = new Target(VNA_REENTRANT_LOCK, SiteArgument.NONE);

        MethodTypeDesc init() {
            return switch (argument) {
                case NONE -> ConstantDescs.MTD_void;
                case NAME -> MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_String);
                case NUMBER -> MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_int);
            };
        }

        /** The constructor that takes the computed fairness first, then what {@link #init()} takes. */
        MethodTypeDesc fairnessInit() {
            return init().insertParameterTypes(0, ConstantDescs.CD_boolean);
        }
    }

    /** What the target's constructor is given about the site that makes the lock. */
    enum SiteArgument { NONE, NAME, NUMBER }

    /** One place where the rewritten class makes or extends a lock, or was left as it was. */
    record Site(String className, String method, int line, String what) {
        /** {@code com.acme.Orders.<init>:41}. */
        String where() {
            return className.replace('/', '.') + "." + method + (line > 0 ? ":" + line : "");
        }
    }

    /**
     * The rewritten class, or null where nothing changed; the sites swapped; the places left as they were, with why.
     */
    record Result(byte[] bytes, List<Site> swapped, List<Site> left) {}

    /** Assigns a site its number (for a {@link SiteArgument#NUMBER} target) when it is swapped. */
    interface SiteNumbers {
        int register(Site site);
    }

    /** Whether {@code bytes} may mention {@code ReentrantLock} at all: a class that does not is not parsed. */
    static boolean mentionsReentrantLock(byte[] bytes) {
        byte[] needle = REENTRANT_LOCK_BYTES;
        outer:
        for (int i = 0; i <= bytes.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (bytes[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /**
     * Rewrites {@code bytes}, a class file, for {@code target}.
     *
     * @param hierarchy how the class-file API finds the superclasses it needs for the stack maps
     * @param numbers   gives each swapped site its number (used by a {@link SiteArgument#NUMBER} target)
     * @throws IllegalArgumentException if the class file cannot be parsed or written (the caller leaves it as it was)
     */
    static Result rewrite(byte[] bytes, Target target, ClassHierarchyResolver hierarchy, SiteNumbers numbers) {
        if (!mentionsReentrantLock(bytes)) {
            return new Result(null, List.of(), List.of());
        }
        ClassFile cf = ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(hierarchy));
        ClassModel model = cf.parse(bytes);
        String className = model.thisClass().asInternalName();
        boolean extendsLock = model.superclass().map(s -> s.asInternalName().equals(REENTRANT_LOCK)).orElse(false);
        List<Site> swapped = new ArrayList<>();
        List<Site> left = new ArrayList<>();
        boolean swapSuper = extendsLock;
        if (extendsLock) {
            for (MethodModel m : model.methods()) {
                if (m.methodName().equalsString(ConstantDescs.INIT_NAME) && m.code().isPresent() && makesFair(m.code().get())) {
                    swapSuper = false;
                    left.add(new Site(className, "<init>", firstLine(m.code().get()),
                            "extends ReentrantLock and calls super(true), a fair lock: left as it was"));
                }
            }
        }
        boolean changed = swapSuper;
        java.util.Map<String, Boolean> rewritten = new java.util.HashMap<>(); // method -> whether its locks are swapped
        for (MethodModel m : model.methods()) {
            if (m.code().isEmpty()) {
                continue;
            }
            CodeModel code = m.code().get();
            boolean constructor = m.methodName().equalsString(ConstantDescs.INIT_NAME);
            Uses uses = uses(code);
            boolean unfair = !makesFair(code);
            if (uses.constructs() && !unfair && !(constructor && extendsLock)) {
                left.add(new Site(className, m.methodName().stringValue(), firstLine(code),
                        "makes a fair ReentrantLock (new ReentrantLock(true)): its locks left as they were"));
            }
            // A constructor of a class that extends ReentrantLock calls its super constructor: swapped with the superclass.
            boolean swapLocks = unfair && (!(constructor && extendsLock) || swapSuper);
            if ((uses.constructs() && swapLocks) || uses.finalCalls() || (constructor && swapSuper)) {
                rewritten.put(key(m), swapLocks);
                changed = true;
            }
        }
        if (!changed) {
            return new Result(null, List.of(), List.copyOf(left));
        }
        final boolean newSuper = swapSuper;
        ClassTransform transform = (cb, ce) -> {
            if (ce instanceof Superclass && newSuper) {
                cb.withSuperclass(target.lock());
            } else if (ce instanceof MethodModel m && rewritten.containsKey(key(m))) {
                boolean swapLocks = rewritten.get(key(m));
                cb.transformMethod(m, (mb, me) -> {
                    if (me instanceof CodeModel code) {
                        mb.transformCode(code, new Rewriter(className, m.methodName().stringValue(), swapLocks, target,
                                swapped, numbers));
                    } else {
                        mb.with(me);
                    }
                });
            } else {
                cb.with(ce);
            }
        };
        byte[] out = cf.transformClass(model, transform);
        if (swapSuper) {
            swapped.add(0, new Site(className, "<class>", 0, "extends ReentrantLock: now extends "
                    + className(target.lock())));
        }
        return new Result(out, List.copyOf(swapped), List.copyOf(left));
    }

    /** {@code io.numaloom.VnaReentrantLock}. */
    static String className(ClassDesc c) {
        return c.packageName().isEmpty() ? c.displayName() : c.packageName() + "." + c.displayName();
    }

    private static String key(MethodModel m) {
        return m.methodName().stringValue() + m.methodType().stringValue();
    }

    /** What a method's code does with {@code ReentrantLock}: constructs one, calls one of its final monitoring methods. */
    private record Uses(boolean constructs, boolean finalCalls) {}

    private static Uses uses(CodeModel code) {
        boolean constructs = false;
        boolean finalCalls = false;
        for (CodeElement e : code) {
            if (e instanceof NewObjectInstruction n && n.className().asInternalName().equals(REENTRANT_LOCK)) {
                constructs = true;
            } else if (e instanceof InvokeInstruction i && isFinalMonitoringCall(i)) {
                finalCalls = true;
            }
        }
        return new Uses(constructs, finalCalls);
    }

    /**
     * Whether some {@code ReentrantLock.<init>} of {@code code} asks for a fair lock by a constant: {@code (Z)V} right
     * after {@code iconst_1}, or a constructor this class does not know.
     */
    static boolean makesFair(CodeModel code) {
        CodeElement previous = null;
        for (CodeElement e : code) {
            if (e instanceof InvokeInstruction i && isLockInit(i) && !i.typeSymbol().equals(ConstantDescs.MTD_void)) {
                if (!i.typeSymbol().equals(FAIRNESS_INIT) || isConstant(previous, Opcode.ICONST_1)) {
                    return true;
                }
            }
            if (!(e instanceof LineNumber)) {
                previous = e;
            }
        }
        return false;
    }

    private static boolean isLockInit(InvokeInstruction i) {
        return i.opcode() == Opcode.INVOKESPECIAL && i.owner().asInternalName().equals(REENTRANT_LOCK)
                && i.name().equalsString(ConstantDescs.INIT_NAME);
    }

    /** A call of one of {@code ReentrantLock}'s final queue-monitoring methods, which cannot see a swapped lock's queue. */
    private static boolean isFinalMonitoringCall(InvokeInstruction i) {
        return i.opcode() == Opcode.INVOKEVIRTUAL && i.owner().asInternalName().equals(REENTRANT_LOCK)
                && FINAL_MONITORING.contains(i.name().stringValue());
    }

    private static boolean isConstant(CodeElement e, Opcode opcode) {
        return e instanceof ConstantInstruction c && c.opcode() == opcode;
    }

    private static int firstLine(CodeModel code) {
        for (CodeElement e : code) {
            if (e instanceof LineNumber l) {
                return l.line();
            }
        }
        return 0;
    }

    /**
     * The code rewriter of one method, streaming: it holds back an {@code iconst_0} until it sees whether a
     * {@code ReentrantLock.<init>(Z)V} follows, and drops it if so.
     */
    private static final class Rewriter implements CodeTransform {
        private final String className;
        private final Target target;
        private final List<Site> swapped;
        private final SiteNumbers numbers;
        private final String method;
        /** Whether this method's locks are swapped; if not, only its calls of the final monitoring methods change. */
        private final boolean swapLocks;
        private int line;
        private Instruction heldIconst0;

        Rewriter(String className, String method, boolean swapLocks, Target target, List<Site> swapped, SiteNumbers numbers) {
            this.className = className;
            this.method = method;
            this.swapLocks = swapLocks;
            this.target = target;
            this.swapped = swapped;
            this.numbers = numbers;
        }

        @Override
        public void accept(CodeBuilder cb, CodeElement e) {
            if (heldIconst0 != null) {
                Instruction held = heldIconst0;
                heldIconst0 = null;
                if (e instanceof InvokeInstruction i && isLockInit(i) && i.typeSymbol().equals(FAIRNESS_INIT)) {
                    init(cb, false);
                    return;
                }
                cb.with(held);
            }
            switch (e) {
                case LineNumber l -> {
                    line = l.line();
                    cb.with(e);
                }
                case ConstantInstruction c when swapLocks && c.opcode() == Opcode.ICONST_0 -> heldIconst0 = c;
                case NewObjectInstruction n when swapLocks && n.className().asInternalName().equals(REENTRANT_LOCK) ->
                        cb.new_(target.lock());
                case InvokeInstruction i when swapLocks && isLockInit(i) && i.typeSymbol().equals(ConstantDescs.MTD_void) -> init(cb, false);
                // What is left of (Z)V: a fairness computed at run time (iconst_1 keeps the method as it was).
                case InvokeInstruction i when swapLocks && isLockInit(i) && i.typeSymbol().equals(FAIRNESS_INIT) -> init(cb, true);
                case InvokeInstruction i when isFinalMonitoringCall(i) -> {
                    MethodTypeDesc type = i.typeSymbol().insertParameterTypes(0, REENTRANT_LOCK_DESC);
                    cb.invokestatic(VNA_REENTRANT_LOCK, i.name().stringValue(), type);
                }
                default -> cb.with(e);
            }
        }

        @Override
        public void atEnd(CodeBuilder cb) {
            if (heldIconst0 != null) {
                cb.with(heldIconst0);
                heldIconst0 = null;
            }
        }

        /**
         * The target's constructor, with the site's name or number where it takes one; {@code computed}: the fairness
         * the code computed is on the stack, and goes first.
         */
        private void init(CodeBuilder cb, boolean computed) {
            Site site = new Site(className, method, line, "ReentrantLock -> " + className(target.lock())
                    + (computed ? " (fairness computed: a VnaLock when unfair, ReentrantLock's fair lock when fair)" : ""));
            swapped.add(site);
            switch (target.argument()) {
                case NAME -> cb.loadConstant(site.where());
                case NUMBER -> cb.loadConstant(numbers.register(site));
                case NONE -> { }
            }
            cb.invokespecial(target.lock(), ConstantDescs.INIT_NAME, computed ? target.fairnessInit() : target.init());
        }
    }
}
