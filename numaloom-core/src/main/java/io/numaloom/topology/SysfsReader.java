package io.numaloom.topology;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads a {@link Topology} from a Linux sysfs tree. The root is a parameter so that tests can point it at a
 * fake tree; {@link Topology#detect()} passes {@code /sys}.
 *
 * <p>Required, else {@link Unreadable}: {@code devices/system/cpu/online}, and for each
 * {@code devices/system/node/node<id>} directory its {@code cpulist} or {@code cpumap}. Optional, with the
 * defaults described in {@link Topology}: the whole {@code node} directory and every
 * {@code cpu<id>/topology/*} file.
 */
final class SysfsReader {

    /** Kernel values of {@code cluster_id} that mean "unknown": -1 (arm64, generic) and BAD_APICID (x86). */
    private static final int CLUSTER_UNKNOWN_ARM = -1;
    private static final int CLUSTER_UNKNOWN_X86 = 0xFFFF;

    /** Marks a missing or unparsable optional file. */
    private static final int ABSENT = Integer.MIN_VALUE;

    private SysfsReader() {}

    /** Thrown when a required file is missing or malformed; the message says which and why. */
    static final class Unreadable extends Exception {
        private static final long serialVersionUID = 1L;

        Unreadable(String message) {
            super(message, null, false, false);
        }
    }

    static Topology read(Path sysRoot) throws Unreadable {
        Path cpuDir = sysRoot.resolve("devices").resolve("system").resolve("cpu");
        Path nodeDir = sysRoot.resolve("devices").resolve("system").resolve("node");

        Path onlineFile = cpuDir.resolve("online");
        int[] online = parseList(onlineFile, readRequired(onlineFile));
        if (online.length == 0) {
            throw new Unreadable(onlineFile + " lists no cpus");
        }
        String source = sysRoot.equals(Path.of("/sys")) ? "sysfs" : "sysfs at " + sysRoot;

        int[] nodeKeys = new int[online.length];
        if (!readNodes(nodeDir, online, nodeKeys)) {
            source += " (no NUMA nodes listed: one node)";
        }

        int n = online.length;
        int[] packages = new int[n];
        int[] clusters = new int[n];
        int[] cores = new int[n];
        boolean allClusters = true;
        boolean allCores = true;
        for (int i = 0; i < n; i++) {
            Path topo = cpuDir.resolve("cpu" + online[i]).resolve("topology");
            int pkg = readOptionalInt(topo.resolve("physical_package_id"));
            packages[i] = pkg == ABSENT ? -1 : pkg;
            clusters[i] = readOptionalInt(topo.resolve("cluster_id"));
            cores[i] = readOptionalInt(topo.resolve("core_id"));
            allClusters &= clusters[i] != ABSENT && clusters[i] != CLUSTER_UNKNOWN_ARM && clusters[i] != CLUSTER_UNKNOWN_X86;
            allCores &= cores[i] != ABSENT && cores[i] >= 0;
        }
        long[] clusterKeys = new long[n];
        String basis;
        if (allClusters) {
            basis = "cluster_id";
            for (int i = 0; i < n; i++) {
                clusterKeys[i] = pair(packages[i], clusters[i]);
            }
        } else if (allCores) {
            basis = "one per core";
            for (int i = 0; i < n; i++) {
                clusterKeys[i] = pair(packages[i], cores[i]);
            }
        } else {
            basis = "one per socket";
            for (int i = 0; i < n; i++) {
                clusterKeys[i] = packages[i];
            }
        }
        return new Topology(online, nodeKeys, packages, clusterKeys, basis, source);
    }

    /**
     * Fills {@code nodeKeys} (parallel to {@code online}) with kernel node ids. Returns false, leaving all
     * keys 0, where sysfs lists no nodes. A CPU listed by no node (never seen on a real kernel) goes to the
     * lowest node id; a CPU listed by two goes to the lower.
     */
    private static boolean readNodes(Path nodeDir, int[] online, int[] nodeKeys) throws Unreadable {
        if (!Files.isDirectory(nodeDir)) {
            return false;
        }
        int[] nodeIds = listNodeIds(nodeDir);
        if (nodeIds.length == 0) {
            return false;
        }
        Arrays.fill(nodeKeys, nodeIds[0]);
        boolean[] assigned = new boolean[online.length];
        for (int id : nodeIds) {
            for (int cpu : readNodeCpus(nodeDir.resolve("node" + id))) {
                int i = Arrays.binarySearch(online, cpu);
                if (i >= 0 && !assigned[i]) {
                    assigned[i] = true;
                    nodeKeys[i] = id;
                }
            }
        }
        return true;
    }

    /** The ids {@code N} of the {@code nodeN} entries of {@code nodeDir}, ascending. */
    private static int[] listNodeIds(Path nodeDir) throws Unreadable {
        List<Integer> ids = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(nodeDir, "node*")) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                String digits = name.substring(4);
                if (!digits.isEmpty() && digits.length() <= 9 && digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
                    ids.add(Integer.parseInt(digits));
                }
            }
        } catch (IOException | RuntimeException e) {
            throw new Unreadable("cannot list " + nodeDir + " (" + describe(e) + ")");
        }
        return ids.stream().mapToInt(Integer::intValue).sorted().toArray();
    }

    private static int[] readNodeCpus(Path node) throws Unreadable {
        Path list = node.resolve("cpulist");
        if (Files.exists(list)) {
            return parseList(list, readRequired(list));
        }
        Path map = node.resolve("cpumap");
        String text = readRequired(map);
        try {
            return CpuList.parseMask(text);
        } catch (IllegalArgumentException e) {
            throw new Unreadable("cannot parse " + map + ": " + e.getMessage());
        }
    }

    private static int[] parseList(Path file, String text) throws Unreadable {
        try {
            return CpuList.parse(text);
        } catch (IllegalArgumentException e) {
            throw new Unreadable("cannot parse " + file + ": " + e.getMessage());
        }
    }

    private static String readRequired(Path file) throws Unreadable {
        try {
            return Files.readString(file);
        } catch (IOException | RuntimeException e) {
            throw new Unreadable("cannot read " + file + " (" + describe(e) + ")");
        }
    }

    /** Reads a file holding one decimal int; {@link #ABSENT} if it is missing or malformed. */
    private static int readOptionalInt(Path file) {
        try {
            return Integer.parseInt(Files.readString(file).strip());
        } catch (IOException | RuntimeException e) {
            return ABSENT;
        }
    }

    private static long pair(int high, int low) {
        return (long) high << 32 | (low & 0xFFFF_FFFFL);
    }

    private static String describe(Exception e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "access denied";
        }
        String m = e.getMessage();
        return e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }
}
