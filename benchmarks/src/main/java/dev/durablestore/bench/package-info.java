/**
 * The benchmarks of issue 5: a workload runner ({@link dev.durablestore.bench.BenchmarkRunner},
 * started by {@code ./bench.sh}) that measures the SQLite store against raw-JDBC baselines in the
 * same run and writes {@code BENCHMARKS.md}, and JMH micro-benchmarks in
 * {@code dev.durablestore.bench.jmh}.
 */
package dev.durablestore.bench;
