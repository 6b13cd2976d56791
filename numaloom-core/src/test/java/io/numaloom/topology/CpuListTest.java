package io.numaloom.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CpuListTest {

    @Test
    void parsesKernelListSyntax() {
        assertArrayEquals(new int[] {0, 1, 2, 3, 8, 9, 10, 11}, CpuList.parse("0-3,8-11"));
        assertArrayEquals(new int[] {0}, CpuList.parse("0"));
        assertArrayEquals(new int[] {0, 2, 4}, CpuList.parse("0,2,4"));
        assertArrayEquals(new int[] {5, 6, 7}, CpuList.parse("5-7\n"), "the trailing newline of a sysfs file");
        assertArrayEquals(new int[] {1, 2}, CpuList.parse(" 1 - 2 "));
        assertArrayEquals(new int[] {7}, CpuList.parse("7-7"));
    }

    @Test
    void emptyListIsEmptySet() {
        assertArrayEquals(new int[0], CpuList.parse(""));
        assertArrayEquals(new int[0], CpuList.parse("\n"), "memory-only nodes have an empty cpulist");
    }

    @Test
    void unsortedAndOverlappingItemsGiveSortedDistinctIds() {
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5, 9}, CpuList.parse("9,2-5,0-3,1"));
    }

    @Test
    void largeIdsSpanSeveralWords() {
        assertArrayEquals(new int[] {63, 64, 65, 200}, CpuList.parse("63-65,200"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"3-1", "a", "1-", "-1", "0,,1", "0,", ",0", "1.5", "0-1-2", "+1", "0-99999999"})
    void rejectsMalformedLists(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CpuList.parse(text));
        assertFalse(e.getMessage().isBlank());
    }

    @Test
    void errorsSayWhatIsWrong() {
        assertTrue(CpuList.parse("0").length == 1);
        assertEquals("cpu range \"3-1\" is descending (write 1-3)",
                assertThrows(IllegalArgumentException.class, () -> CpuList.parse("3-1")).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CpuList.parse("0-99999999")).getMessage()
                .contains("above the largest supported id"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CpuList.parse("0,,1")).getMessage()
                .contains("empty item"));
    }

    @Test
    void parsesKernelMaskSyntax() {
        assertArrayEquals(new int[] {0, 1}, CpuList.parseMask("3\n"), "unpadded, as on a 2-cpu machine");
        assertArrayEquals(new int[] {0, 1, 2, 3}, CpuList.parseMask("00000000,0000000f"));
        assertArrayEquals(new int[] {32}, CpuList.parseMask("1,00000000"));
        assertArrayEquals(new int[] {4, 5, 6, 7, 36}, CpuList.parseMask("00000010,000000f0"));
        assertArrayEquals(new int[] {0, 31, 32, 63}, CpuList.parseMask("80000001,80000001"));
        assertArrayEquals(new int[0], CpuList.parseMask("00000000"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "xyz", "123456789", "0,,1", "f,", "0x3"})
    void rejectsMalformedMasks(String text) {
        assertThrows(IllegalArgumentException.class, () -> CpuList.parseMask(text));
    }

    @Test
    void formatsRangesAndSingletons() {
        assertEquals("0-3,8", CpuList.format(new int[] {0, 1, 2, 3, 8}));
        assertEquals("0,2,4-5", CpuList.format(new int[] {0, 2, 4, 5}));
        assertEquals("7", CpuList.format(new int[] {7}));
        assertEquals("", CpuList.format(new int[0]));
    }

    @Test
    void formatThenParseRoundTrips() {
        int[][] sets = {{0}, {0, 1, 2, 3, 8, 9, 10, 11}, {1, 3, 5}, {0, 1, 63, 64, 65, 1000}};
        for (int[] set : sets) {
            assertArrayEquals(set, CpuList.parse(CpuList.format(set)));
        }
    }
}
