package io.numaloom.bench.config;

import io.numaloom.bench.Mutex;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SuggestTest {
    private static final List<String> COMMANDS = List.of("bench", "topology", "plot", "jmh");

    @Test
    void typosSwapsCaseAndPrefixesAreCaught() {
        assertEquals(Optional.of("bench"), Suggest.closest("bnech", COMMANDS));
        assertEquals(Optional.of("bench"), Suggest.closest("bench2", COMMANDS));
        assertEquals(Optional.of("topology"), Suggest.closest("toplogy", COMMANDS));
        assertEquals(Optional.of("VNA"), Suggest.closest("VnaLock", Mutex.names()));
        assertEquals(Optional.of("UNFAIR_REENTRANT"), Suggest.closest("unfair_reentrant", Mutex.names()));
        assertEquals(Optional.of("SHFL"), Suggest.closest("SHFLE", Mutex.names()));
    }

    /** Of two candidates the input is a prefix of, the one that needs the fewest edits wins. */
    @Test
    void theNearestOfSeveralPrefixesWins() {
        List<String> fields = List.of("threadType", "threads", "warmupIterations", "measurementIterations", "forks",
                "pinCarriers", "topology");
        assertEquals(Optional.of("threads"), Suggest.closest("thread", fields));
        assertEquals(Optional.of("threads"), Suggest.closest("Thread", fields));
        assertEquals(Optional.of("threadType"), Suggest.closest("threadtyp", fields));
        assertEquals(Optional.of("threadType"), Suggest.closest("threadTyp", fields));
        assertEquals(Optional.of("threads"), Suggest.closest("thraeds", fields));
        assertEquals(Optional.of("forks"), Suggest.closest("fork", fields));
        assertEquals(Optional.of("warmupIterations"), Suggest.closest("warmup", fields));
        assertEquals(Optional.of("topology"), Suggest.closest("topo", fields));
        assertEquals(Optional.of("VNA"), Suggest.closest("VNA_", Mutex.names()));
        assertEquals(Optional.of("VNA_2_Q"), Suggest.closest("VNA_2", Mutex.names()));
    }

    @Test
    void nothingCloseMeansNoSuggestion() {
        assertEquals(Optional.empty(), Suggest.closest("frobnicate", COMMANDS));
        assertEquals(Optional.empty(), Suggest.closest("NOPE", Mutex.names()));
        assertEquals("", Suggest.hint("xyz", COMMANDS));
        assertEquals(" (did you mean 'plot'?)", Suggest.hint("plto", COMMANDS));
    }

    @Test
    void distanceCountsAnAdjacentSwapOnce() {
        assertEquals(1, Suggest.distance("bnech", "bench"));
        assertEquals(0, Suggest.distance("a", "a"));
        assertEquals(3, Suggest.distance("", "abc"));
    }
}
