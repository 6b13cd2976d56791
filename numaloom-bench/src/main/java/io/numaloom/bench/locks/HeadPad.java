package io.numaloom.bench.locks;

/**
 * 128 bytes of padding placed before the hot fields of {@link QNode} and {@link LockWord}.
 *
 * <p>Padding through the class hierarchy: HotSpot lays out a superclass's fields before its subclass's, so
 * the hot fields of a subclass start at least 128 bytes after the object's header (two 64-byte lines, or one
 * 128-byte line on machines with adjacent-line prefetch or 128-byte lines such as the Kunpeng 920 of seed
 * 000). Each padded class adds its own tail pad after its fields. The {@code int} fills the 4-byte gap after
 * a 12-byte header, so no subclass field can be laid out in front of the longs.
 */
abstract class HeadPad {
    int h00;
    long h01, h02, h03, h04, h05, h06, h07, h08, h09, h10, h11, h12, h13, h14, h15, h16;
}
