package io.numaloom.scheduler;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The JDK 25 limit the class comment documents, observed: a virtual thread of a {@link NumaScheduler} that parks in
 * a class initializer is pinned (it holds its carrier while parked), and the JDK's own {@code jdk.VirtualThreadPinned}
 * JFR event reports it, as it does on the JDK's scheduler. That is how a user finds a carrier held this way.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PinnedEventTest {

    /** Parks in its static initializer: class initialization pins a virtual thread on JDK 25. */
    static final class ParksWhileInitializing {
        static final Thread INITIALIZED_BY;

        static {
            INITIALIZED_BY = Thread.currentThread();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
    }

    @Test
    void aParkInAClassInitializerIsReportedAsPinned() throws InterruptedException {
        ConcurrentLinkedQueue<RecordedEvent> pinned = new ConcurrentLinkedQueue<>();
        try (RecordingStream stream = new RecordingStream();
             NumaScheduler scheduler = NumaScheduler.builder().carriersPerNode(1).build()) {
            stream.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
            stream.onEvent("jdk.VirtualThreadPinned", pinned::add);
            stream.startAsync();
            Thread t = scheduler.threadFactory(1).newThread(() -> {
                assertTrue(ParksWhileInitializing.INITIALIZED_BY.isVirtual());
            });
            t.start();
            ShutdownTest.join(t);
            long id = t.threadId();
            ShutdownTest.await(() -> pinned.stream().anyMatch(e -> {
                RecordedThread thread = e.getThread();
                return thread != null && thread.getJavaThreadId() == id;
            }), "a jdk.VirtualThreadPinned event for " + t);
            assertEquals(1, NumaScheduler.homeNode(t));
        }
    }
}
