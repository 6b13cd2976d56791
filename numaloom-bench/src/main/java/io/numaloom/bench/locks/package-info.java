/**
 * The locks a bench can measure besides numaloom's own: the registry by name ({@link
 * io.numaloom.bench.locks.Locks}), one file per baseline algorithm of the literature, and the keyed schemes
 * ({@link io.numaloom.bench.locks.KeyedSchemes}).
 *
 * <p>Depends on numaloom-core only.
 */
package io.numaloom.bench.locks;
