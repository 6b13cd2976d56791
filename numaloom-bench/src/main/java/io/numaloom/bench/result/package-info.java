/**
 * What a run produced, as it is stored and as the report reads it: a point's row ({@link
 * io.numaloom.bench.result.PointResult}) and the directory's {@code results.json} and {@code results.csv} ({@link
 * io.numaloom.bench.result.ResultStore}); what a measured JVM hands back besides JMH's times ({@link
 * io.numaloom.bench.result.ForkReport}), from which a row is computed with {@link io.numaloom.bench.result.Stats};
 * the machine's own stalls ({@link io.numaloom.bench.result.MachineStalls}) and the sessions of a resumed run ({@link
 * io.numaloom.bench.result.Session}) that {@code machine.json} keeps; and the
 * names of the directory's other files ({@link io.numaloom.bench.result.ResultsDirectory}).
 *
 * <p>Depends on the root package (a {@code Point}), {@code config} (the bench a row belongs to) and numaloom-core's
 * diagnostics; never on {@code run}, {@code report} or {@code cli}. The runner writes these types and the report
 * reads them, so the report needs nothing of the runner.
 */
package io.numaloom.bench.result;
