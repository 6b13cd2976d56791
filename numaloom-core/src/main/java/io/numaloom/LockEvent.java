package io.numaloom;

import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;

/**
 * The fields that name the lock in numaloom's JFR events ({@link LockContendedEvent},
 * {@link ConditionAwaitEvent}): its class and identity hash, and for a {@link KeyedLock} the key's
 * hash. Abstract, so JFR registers only its concrete subclasses.
 */
abstract class LockEvent extends Event {

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

    /** Starts the event's clock and names {@code lock}. */
    final void begin(ConditionLock lock) {
        begin();
        Object reported = lock.reportedLock();
        lockClass = reported.getClass();
        lockIdentity = System.identityHashCode(reported);
        keyHash = lock.reportedKeyHash();
        name = reported instanceof VnaLock.Named n ? n.name : reported instanceof KeyedLock<?> k ? k.name : null;
    }
}
