package io.numaloom.bench;

/** Reaches {@link GuardedRegion}'s package-private bookkeeping from the tests of other packages. */
public final class GuardedRegions {
    private GuardedRegions() {}

    /** {@link GuardedRegion#acquired(int)}: counts an acquisition on {@code node}, as the holder's section does. */
    public static void acquired(GuardedRegion region, int node) {
        region.acquired(node);
    }
}
