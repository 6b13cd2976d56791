package io.numaloom.bench;

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
