package io.numaloom.topology;

import java.util.Arrays;

/**
 * The Linux kernel's two notations for a set of CPU ids: the list form of {@code cpulist}, {@code online}
 * and {@code *_list} files ({@code "0-3,8-11"}, {@code "0"}, or empty) and the hexadecimal mask form of
 * {@code cpumap} files ({@code "00000000,0000f00f"}: 32-bit words, most significant first).
 *
 * <p>Sets are handled as {@code int[]} of distinct ids in ascending order. Parsing rejects what the kernel
 * never writes (descending ranges, signs, ids above {@link #MAX_CPU_ID}) with an
 * {@link IllegalArgumentException} that quotes the text; overlapping ranges are merged, as the kernel's own
 * parser does.
 */
final class CpuList {

    /**
     * The largest CPU id accepted. Linux allows at most 8192 CPUs on x86-64 ({@code NR_CPUS}); the cap only
     * keeps a typo such as {@code 0-4000000000} from allocating gigabytes.
     */
    static final int MAX_CPU_ID = (1 << 20) - 1;

    private CpuList() {}

    /**
     * Parses the kernel's list notation: comma-separated ids and inclusive ranges {@code a-b}. Blank text
     * (an empty cpulist, as memory-only NUMA nodes have) gives an empty set. Whitespace around items is
     * ignored.
     *
     * @throws IllegalArgumentException naming the offending item
     */
    static int[] parse(String text) {
        String s = text.strip();
        if (s.isEmpty()) {
            return new int[0];
        }
        Bits bits = new Bits();
        for (String raw : s.split(",", -1)) {
            String item = raw.strip();
            if (item.isEmpty()) {
                throw new IllegalArgumentException("cpu list \"" + text.strip() + "\" has an empty item");
            }
            int[] range = parseRange(item);
            for (int cpu = range[0]; cpu <= range[1]; cpu++) {
                bits.set(cpu);
            }
        }
        return bits.toArray();
    }

    /**
     * Parses one item of a list, {@code "5"} or {@code "4-7"}, into {@code {first, last}}.
     *
     * @throws IllegalArgumentException naming the item and what is wrong with it
     */
    static int[] parseRange(String item) {
        int dash = item.indexOf('-');
        if (dash < 0) {
            int cpu = parseId(item.strip(), item);
            return new int[] {cpu, cpu};
        }
        int first = parseId(item.substring(0, dash).strip(), item);
        int last = parseId(item.substring(dash + 1).strip(), item);
        if (first > last) {
            throw new IllegalArgumentException("cpu range \"" + item + "\" is descending (write " + last + "-" + first + ")");
        }
        return new int[] {first, last};
    }

    private static int parseId(String digits, String item) {
        if (digits.isEmpty()) {
            throw new IllegalArgumentException("\"" + item + "\" is not a cpu id or a range first-last");
        }
        long value = 0;
        for (int i = 0; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (c < '0' || c > '9') {
                throw new IllegalArgumentException("\"" + item + "\" is not a cpu id or a range first-last");
            }
            value = value * 10 + (c - '0');
            if (value > MAX_CPU_ID) {
                throw new IllegalArgumentException("cpu id " + digits + " in \"" + item + "\" is above the largest supported id " + MAX_CPU_ID);
            }
        }
        return (int) value;
    }

    /**
     * Parses the kernel's mask notation of {@code cpumap} files: hexadecimal digits in comma-separated
     * 32-bit words, most significant word first. Bit {@code i} set means CPU {@code i} is in the set.
     *
     * @throws IllegalArgumentException if the text holds anything but hex digits and commas
     */
    static int[] parseMask(String text) {
        String s = text.strip();
        if (s.isEmpty()) {
            throw new IllegalArgumentException("cpu mask is empty");
        }
        Bits bits = new Bits();
        String[] words = s.split(",", -1);
        for (int w = 0; w < words.length; w++) {
            String word = words[words.length - 1 - w].strip();
            if (word.isEmpty() || word.length() > 8) {
                throw new IllegalArgumentException("cpu mask \"" + s + "\" has a word that is not 1 to 8 hex digits: \"" + word + "\"");
            }
            long value = 0;
            for (int i = 0; i < word.length(); i++) {
                int nibble = Character.digit(word.charAt(i), 16);
                if (nibble < 0) {
                    throw new IllegalArgumentException("cpu mask \"" + s + "\" has a character that is not a hex digit: '" + word.charAt(i) + "'");
                }
                value = value << 4 | nibble;
            }
            for (long left = value; left != 0; left &= left - 1) {
                long cpu = 32L * w + Long.numberOfTrailingZeros(left);
                if (cpu > MAX_CPU_ID) {
                    throw new IllegalArgumentException("cpu mask \"" + s + "\" sets cpu " + cpu + ", above the largest supported id " + MAX_CPU_ID);
                }
                bits.set((int) cpu);
            }
        }
        return bits.toArray();
    }

    /**
     * Formats a set of ascending, distinct ids in the kernel's list notation, with runs of two or more
     * consecutive ids written as ranges: {@code {0,1,2,3,8}} gives {@code "0-3,8"}; an empty set gives
     * {@code ""}.
     */
    static String format(int[] cpus) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < cpus.length; ) {
            int j = i;
            while (j + 1 < cpus.length && cpus[j + 1] == cpus[j] + 1) {
                j++;
            }
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(cpus[i]);
            if (j > i) {
                sb.append('-').append(cpus[j]);
            }
            i = j + 1;
        }
        return sb.toString();
    }

    /** Returns whether {@code cpus} (ascending) contains {@code cpu}. */
    static boolean contains(int[] cpus, int cpu) {
        return Arrays.binarySearch(cpus, cpu) >= 0;
    }

    /** A growable bit set; java.util.BitSet would do, this keeps the ids bounded and the code obvious. */
    private static final class Bits {
        private long[] words = new long[2];

        void set(int bit) {
            int w = bit >>> 6;
            if (w >= words.length) {
                words = Arrays.copyOf(words, Math.max(w + 1, words.length * 2));
            }
            words[w] |= 1L << bit;
        }

        int[] toArray() {
            int n = 0;
            for (long w : words) {
                n += Long.bitCount(w);
            }
            int[] out = new int[n];
            int k = 0;
            for (int w = 0; w < words.length; w++) {
                long bitsLeft = words[w];
                while (bitsLeft != 0) {
                    out[k++] = (w << 6) + Long.numberOfTrailingZeros(bitsLeft);
                    bitsLeft &= bitsLeft - 1;
                }
            }
            return out;
        }
    }
}
