package io.numaloom.scheduler;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link CpuAffinity} on Linux with native access granted (this surefire execution has
 * {@code --enable-native-access=ALL-UNNAMED}): a platform thread pinned to one CPU may then run only there, and bad
 * input is refused before the kernel is asked. {@link NativeAccessDeniedTest} covers the JVM where linking is denied.
 */
class CpuAffinityTest {

    @Test
    void aPinnedPlatformThreadMayRunOnlyOnItsCpu() throws InterruptedException {
        assertTrue(CpuAffinity.unavailableReason().isEmpty(), CpuAffinity.unavailableReason().toString());
        List<Integer> allowed = CpuAffinity.allowedCpus();
        assertFalse(allowed.isEmpty(), "sched_getaffinity answered");
        int last = allowed.get(allowed.size() - 1);
        AtomicReference<Object> seen = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                CpuAffinity.pinCurrentThread(last);
                seen.set(CpuAffinity.allowedCpus());
            } catch (RuntimeException e) {
                seen.set(e);
            }
        });
        t.join();
        assertEquals(List.of(last), seen.get());
        assertEquals(allowed, CpuAffinity.allowedCpus(), "the test thread itself is not pinned");
    }

    @Test
    void badCpusAreRefusedWithTheirReason() {
        assertEquals("no cpus to pin to", assertThrows(IllegalArgumentException.class, CpuAffinity::pinCurrentThread).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CpuAffinity.pinCurrentThread(-1)).getMessage()
                .contains("cpu -1 is outside a cpu_set_t"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CpuAffinity.pinCurrentThread(CpuAffinity.MAX_CPUS))
                .getMessage().contains("outside a cpu_set_t (0-1023)"));
    }
}
