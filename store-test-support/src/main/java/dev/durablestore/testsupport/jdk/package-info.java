/**
 * The Java a test JVM must run on: {@link dev.durablestore.testsupport.jdk.RequiredJavaSession} fails
 * a Surefire execution meant for one Java release (the contract kit on Java 25) that got another.
 */
package dev.durablestore.testsupport.jdk;
