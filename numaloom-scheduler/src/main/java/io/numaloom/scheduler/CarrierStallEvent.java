package io.numaloom.scheduler;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * JFR event {@value #NAME}: a carrier of a {@link NumaScheduler} has been running one mount of a virtual thread for
 * at least the scheduler's stall threshold while other mounts wait in its node's queue. That is a carrier blocked in
 * file I/O, a pinned park, a native call, or a thread computing without yielding: on JDK 25 nothing compensates
 * for it (see {@link NumaScheduler}). Recorded once per such mount by the scheduler's watcher, only when the
 * scheduler was built with {@link NumaScheduler.Builder#stallDetection(java.time.Duration)}.
 */
@Name(CarrierStallEvent.NAME)
@Label("numaloom Carrier Stall")
@Category({"numaloom", "Scheduler"})
@Description("A NumaScheduler carrier held one virtual thread's mount past the stall threshold while others waited on its node")
@StackTrace(false)
final class CarrierStallEvent extends Event {
    static final String NAME = "io.numaloom.CarrierStall";

    @Label("Scheduler")
    String scheduler;

    @Label("Carrier")
    @Description("The carrier platform thread")
    Thread carrier;

    @Label("Node")
    @Description("The carrier's node, the home node of the threads waiting for it")
    int node;

    @Label("Held For")
    @Description("How long the carrier had been running the mount when the stall was seen")
    @Timespan(Timespan.NANOSECONDS)
    long heldFor;

    @Label("Queued")
    @Description("Mounts waiting in the node's queue when the stall was seen")
    int queued;
}
