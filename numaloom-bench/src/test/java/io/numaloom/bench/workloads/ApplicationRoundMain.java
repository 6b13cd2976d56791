package io.numaloom.bench.workloads;

/**
 * One checked round of an application workload in a JVM of its own, for ApplicationsAgentIT: {@code workload
 * payloadFields threads threadType}. Prints {@code operations=N} and ends with status 0 when the round's check passed
 * (with the agent on, that includes the swap of the library's lock).
 */
public final class ApplicationRoundMain {
    private ApplicationRoundMain() {}

    public static void main(String[] args) throws Exception {
        var outcome = ApplicationWorkloadsTest.runRound(args[0], args[1], Integer.parseInt(args[2]), args[3]);
        System.out.println("operations=" + outcome.operations());
    }
}
