package io.numaloom.counter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Liveness on one carrier: runs {@link OneCarrierDriver} in a child JVM (the scheduler's parallelism is
 * fixed when the JVM starts) with {@code -Djdk.virtualThreadScheduler.parallelism=1}, on the detected
 * topology and on a virtual two-node topology, which makes the stripes consult the current node.
 */
class OneCarrierTest {

    @ParameterizedTest
    @ValueSource(strings = {"", "-Dnumaloom.topology=nodes=2"})
    void everythingFinishesOnOneCarrier(String topology) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.add("-Djdk.virtualThreadScheduler.parallelism=1");
        cmd.add("-Djdk.virtualThreadScheduler.maxPoolSize=1");
        cmd.add("-Dnumaloom.currentCpu=spread");
        if (!topology.isEmpty()) {
            cmd.add(topology);
        }
        cmd.add("-cp");
        cmd.add(root(OneCarrierDriver.class) + File.pathSeparator + root(CloseableAcquireCounter.class));
        cmd.add(OneCarrierDriver.class.getName());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("no progress on one carrier: " + String.join(" ", cmd));
        }
        String output = new String(out, StandardCharsets.UTF_8);
        System.out.println(output);
        assertEquals(0, p.exitValue(), output);
        assertTrue(output.contains("ok lazy") && output.contains("ok striped"), output);
    }

    private static String root(Class<?> c) throws URISyntaxException {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
