/**
 * The operator command line ({@link dev.durablestore.cli.DurableStoreCli}): migrate, backup,
 * verify, routes, dead-letters and redrive, documented in {@code docs/cli.md}.
 */
package dev.durablestore.cli;
