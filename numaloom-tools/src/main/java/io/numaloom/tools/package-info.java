/**
 * numaloom-tools: what a user runs on a recording of their application with nothing but a JDK
 * ({@code java -jar numaloom-tools-VERSION.jar contention app.jfr}). The module has no dependency:
 * it reads JFR files with {@code jdk.jfr.consumer} and matches numaloom's events by name, so it needs
 * neither numaloom-core nor the recording's numaloom version.
 */
package io.numaloom.tools;
