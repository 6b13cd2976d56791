package io.numaloom.agent;

import java.lang.classfile.ClassHierarchyResolver;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;

/**
 * numaloom's Java agent: {@code java -javaagent:numaloom-agent.jar[=options] -jar app.jar} runs an application with
 * its unfair {@code ReentrantLock}s, and those of its libraries, swapped for {@link io.numaloom.VnaReentrantLock}s,
 * without a change to its code ({@link LockSwap} says what is rewritten; {@link AgentOptions} the options). Classes
 * of the JDK (the boot and platform loaders) and numaloom's own are never touched; a class the agent cannot rewrite
 * is loaded as it was and named in the report.
 *
 * <p>A bad option stops the JVM at start, with one line on the standard error that says what is wrong, and status 2.
 */
public final class Agent {
    private Agent() {}

    /** The entry point of {@code -javaagent}. */
    public static void premain(String argument, Instrumentation instrumentation) {
        AgentOptions options;
        try {
            options = AgentOptions.parse(argument);
        } catch (IllegalArgumentException e) {
            System.err.println("numaloom-agent: " + e.getMessage());
            System.err.flush();
            Runtime.getRuntime().halt(2);
            return;
        }
        instrumentation.addTransformer(new Swapper(options), false);
        if (options.report()) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> Sites.write(options.reportFile(), System.err),
                    "numaloom-agent-report"));
        }
    }

    /** The transformer: every class of an application or library loader that {@link AgentOptions#covers} covers. */
    static final class Swapper implements ClassFileTransformer {
        private final AgentOptions options;
        private final LockSwap.Target target;

        Swapper(AgentOptions options) {
            this.options = options;
            this.target = options.target();
        }

        @Override
        public byte[] transform(ClassLoader loader, String className, Class<?> redefined, ProtectionDomain domain,
                                byte[] bytes) {
            if (loader == null || loader == ClassLoader.getPlatformClassLoader() || className == null || redefined != null
                    || className.startsWith("io/numaloom/") || !options.covers(className.replace('/', '.'))) {
                return null;
            }
            try {
                // LockSwap.rewrite returns at once for a class that does not mention ReentrantLock.
                ClassHierarchyResolver hierarchy = ClassHierarchyResolver.ofResourceParsing(loader)
                        .orElse(ClassHierarchyResolver.ofResourceParsing(Agent.class.getClassLoader()));
                LockSwap.Result result = LockSwap.rewrite(bytes, target, hierarchy, Sites::register);
                Sites.record(result, target.argument() == LockSwap.SiteArgument.NUMBER);
                return result.bytes();
            } catch (Throwable t) {
                Sites.classLeft(className, t);
                return null;
            }
        }
    }
}
