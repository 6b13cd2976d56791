package io.numaloom;

import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;

/**
 * The fields that name the lock in numaloom's JFR events ({@link LockContendedEvent},
 * {@link ConditionAwaitEvent}): its class and identity hash, and for a {@link KeyedLock} the key's
 * hash and, unless the lock was built with {@code keysInEvents(false)}, the key's {@code toString}
 * cut to {@value #MAX_KEY_CHARS} characters. Abstract, so JFR registers only its concrete subclasses.
 */
abstract class LockEvent extends Event {

    /** The most characters of a key's {@code toString} that an event carries. */
    static final int MAX_KEY_CHARS = 64;

    @Label("Lock Class")
    @Description("VnaLock (or its subclass), or KeyedLock for a key's lock")
    Class<?> lockClass;

    @Label("Lock Identity")
    @Description("System.identityHashCode of the lock (of the KeyedLock for a key's lock)")
    int lockIdentity;

    @Label("Lock Name")
    @Description("The name given by VnaLock.named or KeyedLock.builder().name, or null for an unnamed lock")
    String name;

    @Label("Key Hash")
    @Description("hashCode of the key for a KeyedLock, else 0")
    int keyHash;

    @Label("Key")
    @Description("The key's toString for a KeyedLock, at most 64 characters (longer ones are cut and end with ...); null for a plain lock or a KeyedLock built with keysInEvents(false)")
    String key;

    /**
     * The key's lock whose key {@link #describeKey} names, or null: kept until the commit so that the
     * key's {@code toString} (user code, maybe costly) runs only for a wait that is recorded.
     * Transient: not a field of the event.
     */
    private transient ConditionLock keyOf;

    /** Starts the event's clock and names {@code lock}. */
    final void begin(ConditionLock lock) {
        begin();
        Object reported = lock.reportedLock();
        lockClass = reported.getClass();
        lockIdentity = System.identityHashCode(reported);
        keyHash = keyHash(lock);
        name = reported instanceof VnaLock.Named n ? n.name : reported instanceof KeyedLock<?> k ? k.name : null;
        keyOf = reported instanceof KeyedLock<?> k && k.keysInEvents ? lock : null;
    }

    /**
     * The key's {@code hashCode} for a key's lock, 0 for a plain lock or a key whose {@code hashCode}
     * throws: a recording must not fail an acquisition, least of all a condition waiter's
     * re-acquisition, which must not fail at all.
     */
    private static int keyHash(ConditionLock lock) {
        try {
            return lock.reportedKeyHash();
        } catch (RuntimeException | Error e) { // an Error too: a condition waiter's re-acquisition may not fail
            return 0;
        }
    }

    /** Sets {@link #key}; called only once the event is to be committed. */
    final void describeKey() {
        ConditionLock l = keyOf;
        if (l != null) {
            keyOf = null;
            key = bounded(l.reportedKey());
        }
    }

    /**
     * {@code String.valueOf(key)}, cut to {@link #MAX_KEY_CHARS} characters (the last three of them
     * {@code ...}, never half a surrogate pair); a {@code toString} that throws is named, not
     * propagated: a recording must not break a lock.
     */
    static String bounded(Object key) {
        String s;
        try {
            s = String.valueOf(key);
        } catch (RuntimeException | StackOverflowError e) {
            return "(toString threw " + e.getClass().getName() + ")";
        }
        if (s == null) {
            return "null";
        }
        if (s.length() <= MAX_KEY_CHARS) {
            return s;
        }
        int end = MAX_KEY_CHARS - 3;
        if (Character.isHighSurrogate(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(0, end) + "...";
    }
}
